"""What an MT run judges: the cells (system x segment) of one language pair, deduplicated.

Identical (source, translation) pairs are judged once: a :class:`JudgeItem` is keyed by a hash of
both texts and every :class:`Cell` points at its item. A run that shows the judge a reference or
document context (``--reference``, ``--context``) keys items by those too: the same pair in two
documents with different context is two items.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

from tribunal.core.mt_item import JudgeItem
from tribunal.data.mtme import LanguagePair
from tribunal.eval.mt.segment_context import segment_context


@dataclass(frozen=True)
class Cell:
    system: str
    segment: int
    key: str


@dataclass
class RunItems:
    """The cells of a run and the unique items they need judged (in first-seen order)."""

    cells: list[Cell]
    items: dict[str, JudgeItem]
    systems: list[str]
    truncated: bool = False  # ``limit`` stopped the selection before the last segment

    @property
    def duplicates(self) -> int:
        return len(self.cells) - len(self.items)


def item_key(source: str, translation: str, reference: str | None = None,
             context: tuple[tuple[str, str], ...] | None = None) -> str:
    """A stable key for a (source, translation) pair, and its reference and context when shown."""
    text = f"{source}\0{translation}"
    if reference is not None or context is not None:
        text += "\0" + json.dumps({"reference": reference, "context": context}, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def select_items(pair: LanguagePair, systems: list[str] | None = None, rated_only: bool = False,
                 limit: int | None = None, inputs: Any = None) -> RunItems:
    """Cells segment by segment (all chosen systems of a segment together), up to ``limit`` unique items.

    ``systems`` defaults to the systems meta-evaluation scores; ``rated_only`` keeps cells with a
    gold MQM score; ``inputs`` (a ``SegmentInputs``) gives each item its reference and context.
    """
    shown = segment_context(pair, inputs)
    systems = list(systems or pair.scored_systems())
    unknown = sorted(set(systems) - set(pair.system_names))
    if unknown:
        raise ValueError(f"{pair.lp}: no system output for {', '.join(unknown)}")
    outputs = {s: pair.system_output(s) for s in systems}
    gold = pair.gold_seg if rated_only else {}
    cells: list[Cell] = []
    items: dict[str, JudgeItem] = {}
    for segment, source in enumerate(pair.sources):
        for system in systems:
            if rated_only and math.isnan(gold.get(system, [math.nan] * pair.n_segments)[segment]):
                continue
            translation = outputs[system][segment]
            extras = shown.extras(pair.sources, outputs[system], segment) if shown else {}
            key = item_key(source, translation, **extras)
            if key not in items:
                if limit is not None and len(items) >= limit:
                    return RunItems(cells, items, systems, truncated=True)
                items[key] = JudgeItem(key, source, translation, **extras)
            cells.append(Cell(system, segment, key))
    return RunItems(cells, items, systems)
