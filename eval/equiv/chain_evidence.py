"""What the chain rule can say about a pair beyond its weakest link: the evidence its screen acts on (pure).

From the aligned steps' contrasts (:mod:`step_contrast`) and the links between them:

- ``different``: a named difference (a direction, a number or a sibling name changed in an aligned
  step, or a link reversed: "activates"/"inhibits"), or a structural one (a step without a
  counterpart, the same steps in another order). No alias explains it: the screen may decide
  "different" alone, and the chain rule's score is 0.
- ``blocked``: an aligned step keeps its frame but replaces, adds or reorders words (the shape of a
  minimal swap, and of an alias the rule cannot verify): never "clearly same", never "clearly
  different": the judge decides.
- ``open``: some aligned step is reworded as a whole; the similarity of the two texts is all the
  rule has, so only a high score may call the pair "same" (and a low one proves nothing: it may be
  an alias the encoder does not know).
- ``verified``: every aligned step has the same content words (after abbreviation expansion,
  spelling and inflection folding): "same".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Sequence

from tribunal.eval.equiv.chain_alignment import ChainAlignment
from tribunal.eval.equiv.step_contrast import BLOCKS_SAME, StepContrast, contrast_steps, relations_reversed

Evidence = Literal["different", "blocked", "open", "verified"]


@dataclass(frozen=True)
class ChainEvidence:
    evidence: Evidence
    contrasts: dict[tuple[int, int], StepContrast] = field(default_factory=dict)  # aligned (i, j) -> contrast
    reason: str = ""  # the step or link that decides, for the item table

    def notes(self) -> list[str]:
        """``A[1]~B[1] number: '13' -> '9'`` for every aligned step that is not equal."""
        return [f"A[{i}]~B[{j}] {c.describe()}" for (i, j), c in sorted(self.contrasts.items()) if c.kind != "equal"]


def chain_evidence(alignment: ChainAlignment, compared: Sequence[Sequence[tuple[str, str]]],
                   relations_a: Sequence[str], relations_b: Sequence[str], structural: bool) -> ChainEvidence:
    """The evidence of one aligned pair. ``compared[i][j]``: step i of A and step j of B as
    compared (abbreviations expanded); ``structural``: a step without counterpart or a reordering."""
    contrasts = {(i, j): contrast_steps(*compared[i][j]) for i, j, _ in alignment.matched}
    named = next((f"A[{i}]~B[{j}] {c.describe()}" for (i, j), c in contrasts.items() if c.named), None)
    links = {(i, j) for i, j, _ in alignment.matched}
    reversed_link = next((f"link A[{i}]->A[{i + 1}] {relations_a[i]!r} ~ B[{j}]->B[{j + 1}] {relations_b[j]!r} reversed"
                          for i, j, _ in alignment.matched if (i + 1, j + 1) in links
                          and relations_reversed(relations_a[i], relations_b[j])), None)
    if structural or named or reversed_link:
        return ChainEvidence("different", contrasts, named or reversed_link or "structure")
    blocking = next((f"A[{i}]~B[{j}] {c.describe()}" for (i, j), c in contrasts.items() if c.kind in BLOCKS_SAME), None)
    if blocking:
        return ChainEvidence("blocked", contrasts, blocking)
    if all(c.kind == "equal" for c in contrasts.values()):
        return ChainEvidence("verified", contrasts, "every aligned step names the same things")
    return ChainEvidence("open", contrasts, "")
