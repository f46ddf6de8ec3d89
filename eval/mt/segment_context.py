"""Each cell's reference and document context, read from an mt-metrics-eval folder (``--reference``, ``--context``).

- the reference of segment i is line i of ``references/LP.NAME.txt`` (or ``.jsonl``, field ``target``);
- the context of system S at segment i is the N segments before i in its document, oldest first,
  each as (source, S's translation of it). Documents come from ``documents/LP.docs`` (one
  ``DOMAIN<TAB>DOC`` line per segment; any set in the layout that ships it, WMT23 to WMT25, text or
  JSONL); a segment's document is the (domain, doc) pair, and "before" is file order.

A missing docs file, or an unknown reference name, is a one-line error naming the file and the
references the pair has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tribunal.errors import UserError


def previous_in_document(documents: list[tuple[str, str]], n: int) -> list[list[int]]:
    """For each segment, the indices of up to ``n`` segments before it in its document, oldest first."""
    earlier: dict[tuple[str, str], list[int]] = {}
    previous = []
    for index, document in enumerate(documents):
        seen = earlier.setdefault(tuple(document), [])
        previous.append(seen[-n:] if n > 0 else [])
        seen.append(index)
    return previous


@dataclass
class SegmentContext:
    """The reference lines and previous-segment indices of one language pair (None where not asked for)."""

    references: list[str] | None
    previous: list[list[int]] | None

    def extras(self, sources: list[str], outputs: list[str], segment: int) -> dict[str, Any]:
        """``{"reference": ..., "context": ((source, translation), ...)}`` for one cell (only what is used)."""
        extras: dict[str, Any] = {}
        if self.references is not None:
            extras["reference"] = self.references[segment]
        if self.previous is not None:
            extras["context"] = tuple((sources[j], outputs[j]) for j in self.previous[segment])
        return extras


def segment_context(pair: Any, inputs: Any) -> SegmentContext | None:
    """What ``inputs`` (a ``SegmentInputs``) needs of ``pair`` (a ``LanguagePair``); None when nothing."""
    if inputs is None or not inputs.used:
        return None
    references = None
    if inputs.reference is not None:
        if inputs.reference not in pair.ref_names:
            found = ", ".join(pair.ref_names) or "none"
            raise UserError(f"--reference {inputs.reference}: {pair.root / 'references'} has no {pair.lp}."
                            f"{inputs.reference}.txt or .jsonl (references of {pair.lp}: {found})")
        references = pair.reference(inputs.reference)
    previous = None
    if inputs.context:
        docs = pair.root / "documents" / f"{pair.lp}.docs"
        if not docs.is_file():
            raise UserError(f"--context {inputs.context}: {docs} not found (it says which segments belong to which "
                            "document); run without --context, or add the file")
        previous = previous_in_document(pair.documents, inputs.context)
    return SegmentContext(references, previous)
