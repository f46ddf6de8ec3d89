"""The reference and document context of TED MQM training examples (``--set reference=ref --set context=2``).

The TED MQM files have no reference column: their human translations are rated as systems
(``ref`` in en-de; ``ref`` and ``refB`` in zh-en), and every segment has one. A reference is such a
system's translation of the same segment, named like the system (any system whose name starts
with ``ref``). Examples of the reference system itself keep their place (item ranges stay the
same) and are shown their own text as the reference.

The context of an example is the N segments before it in the same talk (``doc``) that the file
holds, in ``seg_id`` order, each with its source and the same system's translation (a segment the
system has no row for is skipped). The files annotate most but not all segments of a talk
(en-de: 529 segment ids up to 606), so "previous" means previous among the annotated ones.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from tribunal.errors import UserError
from tribunal.data.mqm_tsv import read_mqm_tsv


def ted_references(rows: list[Any]) -> list[str]:
    """The human translations a TED MQM file rates as systems (``ref``, ``refB``)."""
    return sorted({row.system for row in rows if row.system.lower().startswith("ref")})


def attach_ted_inputs(path: Path, examples: list[Any], inputs: Any, option: str) -> list[Any]:
    """``examples`` of the TED file ``path`` with ``reference`` and/or ``context`` as inputs (new examples)."""
    rows = list(read_mqm_tsv(path))
    targets = {(row.system, row.seg_id): row.target for row in rows}
    sources = {row.seg_id: row.source for row in rows}
    talks: dict[str, list[int]] = defaultdict(list)
    for seg_id, doc in sorted({(row.seg_id, row.doc) for row in rows}):
        talks[doc].append(seg_id)
    talk_of = {seg_id: doc for doc, ids in talks.items() for seg_id in ids}
    if inputs.reference is not None and inputs.reference not in ted_references(rows):
        found = ", ".join(ted_references(rows)) or "none"
        raise UserError(f"{option}: --set reference={inputs.reference}: {path.name} has no such reference "
                        f"(its references, human translations rated as systems: {found})")
    attached = []
    for example in examples:
        extra: dict[str, Any] = {}
        if inputs.reference is not None:
            reference = targets.get((inputs.reference, example.seg_id))
            if reference is None:
                raise UserError(f"{option}: {path.name} has no {inputs.reference} translation of segment "
                                f"{example.seg_id} (--set reference={inputs.reference})")
            extra["reference"] = reference
        if inputs.context:
            talk = talks[talk_of[example.seg_id]]
            earlier = [s for s in talk[:talk.index(example.seg_id)] if (example.system, s) in targets]
            extra["context"] = [{"source": sources[s], "translation": targets[(example.system, s)]}
                                for s in earlier[-inputs.context:]]
        attached.append(example.copy(**extra).with_inputs(*example.inputs().keys(), *extra))
    return attached
