"""Validity checks of the perturbations people make: alias rewordings and minimal swaps (pure).

- ``alias-chain`` (same mechanism): the steps are renamed through aliases (abbreviation <->
  expansion, gene <-> protein name, brand <-> generic, symbol <-> name); every entity and relation
  is kept, at least one step is reworded, and no reworded step changes a quantity (a number
  standing alone) or a direction word (a rewording that turns "raised" into "lowered" is not an
  alias). Digits inside a name are not checked: gene and protein names differ in them (HIF-2 alpha
  is EPAS1). With an alias table (the
  suite's seeds) every text must be a known name of its entity.
- ``first-step-minimal`` / ``middle-step-minimal`` (different mechanism): one entity, number,
  direction or relation changed in one place, the rest verbatim. Either one step (the first; or
  one strictly between the first and the last) has one contiguous run of at most
  ``MAX_SWAPPED_WORDS`` words replaced, keeping at least one of its words, with a new entity that
  is not an alias of the old; or every step is kept and exactly one relation changes (the first
  link; or a later one).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from tribunal.eval.equiv.abbreviations import expand_against
from tribunal.eval.equiv.check_basics import Aliases, known_name, norm, same_relations
from tribunal.eval.equiv.direction_words import negations, net_polarity
from tribunal.core.hypothesis import Hypothesis
from tribunal.eval.equiv.step_words import step_words

MAX_SWAPPED_WORDS = 4


_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")


def _changes_meaning(old: str, new: str) -> bool:
    """Does a rewording change what no alias changes: a quantity (a number standing alone must
    reappear on the other side, alone or inside a name: "Th17" = "T helper 17"), the net direction
    or a negation?"""
    words = {side: step_words(text) for side, text in (("old", old), ("new", new))}
    digits = {side: set(_DIGITS.findall(text)) for side, text in (("old", old), ("new", new))}
    for side, other in (("old", "new"), ("new", "old")):
        if any(w.number and not w.joined and _DIGITS.search(w.key) and _DIGITS.search(w.key).group(0) not in digits[other]
               for w in words[side]):
            return True
    keys = {side: [w.key for w in ws] for side, ws in words.items()}
    return (net_polarity(keys["old"]), negations(keys["old"]) % 2) != (net_polarity(keys["new"]), negations(keys["new"]) % 2)


def check_alias_chain(original: Hypothesis, perturbed: Hypothesis, aliases: Aliases) -> list[str]:
    problems = same_relations(original, perturbed)
    if original.entities != perturbed.entities:
        return problems + ["ordered entities changed"]
    changed = [(a, b) for a, b in zip(original.steps, perturbed.steps) if norm(a.text) != norm(b.text)]
    if not changed:
        problems.append("no step reworded")
    for a, b in changed:
        if _changes_meaning(expand_against(a.text, b.text), expand_against(b.text, a.text)):
            problems.append(f"{b.text!r} changes a number or a direction of {a.text!r}")
    if aliases:
        unknown = [b.text for _, b in changed if not known_name(b.entity, b.text, aliases)]
        if unknown:
            problems.append(f"wording not in the alias table: {unknown}")
    return problems


def _replaced_run(old: str, new: str) -> tuple[int, int, int] | None:
    """(words replaced in old, words replacing them, words kept) when ``new`` differs from ``old``
    by one contiguous run of words; None when the words differ in more than one place."""
    a, b = old.split(), new.split()
    edits = [op for op in SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(edits) != 1:
        return None
    _, i1, i2, j1, j2 = edits[0]
    return i2 - i1, j2 - j1, len(a) - (i2 - i1)


def _step_swap_problems(original: Hypothesis, perturbed: Hypothesis, aliases: Aliases, index: int) -> list[str]:
    old, new = original.steps[index], perturbed.steps[index]
    problems = []
    if norm(new.entity) == norm(old.entity) or known_name(old.entity, new.text, aliases):
        problems.append(f"step {index} not replaced (still {old.entity!r})")
    if any(norm(new.entity) == norm(e) for e in original.entities):
        problems.append(f"step {index} replaced by an entity already in the chain")
    run = _replaced_run(old.text, new.text)
    if run is None:
        problems.append(f"step {index} must change in one place, the rest verbatim")
    elif max(run[0], run[1]) > MAX_SWAPPED_WORDS or run[2] == 0:
        problems.append(f"step {index} must keep some of its words and replace at most {MAX_SWAPPED_WORDS}")
    return problems


def _minimal_problems(original: Hypothesis, perturbed: Hypothesis, aliases: Aliases, first: bool) -> list[str]:
    if len(original.steps) != len(perturbed.steps) or len(original.relations) != len(perturbed.relations):
        return ["chain length changed"]
    steps = [i for i, (a, b) in enumerate(zip(original.steps, perturbed.steps)) if a != b]
    links = [i for i, (a, b) in enumerate(zip(original.relations, perturbed.relations)) if norm(a) != norm(b)]
    where = "the first" if first else "a later"
    if not steps and len(links) == 1:
        return [] if (links[0] == 0) == first else [f"the changed relation must be {where} link (changed: {links[0]})"]
    if links or len(steps) != 1:
        return [f"exactly one step or one relation must change (steps {steps}, relations {links})"]
    index = steps[0]
    if first and index != 0:
        return [f"the first step must be the one changed (changed: {index})"]
    if not first and not 0 < index < len(original.steps) - 1:
        return [f"exactly one intermediate step must be replaced (changed: {index})"]
    return _step_swap_problems(original, perturbed, aliases, index)


def check_first_step_minimal(original: Hypothesis, perturbed: Hypothesis, aliases: Aliases) -> list[str]:
    return _minimal_problems(original, perturbed, aliases, first=True)


def check_middle_step_minimal(original: Hypothesis, perturbed: Hypothesis, aliases: Aliases) -> list[str]:
    return _minimal_problems(original, perturbed, aliases, first=False)
