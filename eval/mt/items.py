"""What an MT run judges: the cells (system x segment) of one language pair, deduplicated.

Identical (source, translation) pairs are judged once: a :class:`JudgeItem` is keyed by a hash of
both texts and every :class:`Cell` points at its item.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from tribunal.eval.data.mtme import LanguagePair


@dataclass(frozen=True)
class JudgeItem:
    key: str
    source: str
    translation: str


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


def item_key(source: str, translation: str) -> str:
    """A stable key for a (source, translation) pair."""
    return hashlib.sha256(f"{source}\0{translation}".encode()).hexdigest()[:20]


def select_items(pair: LanguagePair, systems: list[str] | None = None, rated_only: bool = False,
                 limit: int | None = None) -> RunItems:
    """Cells segment by segment (all chosen systems of a segment together), up to ``limit`` unique items.

    ``systems`` defaults to the systems meta-evaluation scores; ``rated_only`` keeps cells with a
    gold MQM score.
    """
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
            key = item_key(source, translation)
            if key not in items:
                if limit is not None and len(items) >= limit:
                    return RunItems(cells, items, systems, truncated=True)
                items[key] = JudgeItem(key, source, translation)
            cells.append(Cell(system, segment, key))
    return RunItems(cells, items, systems)
