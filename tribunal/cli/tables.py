"""Tables that fit the console instead of being cut at its right edge.

A table wider than the console is printed as several tables, each with the key column(s) and as
many of the other columns as fit, titled ``(1/2)``, ``(2/2)``; headers are wrapped, never cut.
Columns with no value at all (e.g. en-de columns of ``meta-eval --lp zh-en``) are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence
from rich.table import Table

_NUMERIC = re.compile(r"^(-?\d[\d.,e+-]*( \(\d+\))?|n/a.*|—)$")


@dataclass
class Column:
    header: str
    cells: list[str]
    numeric: bool = True
    min_width: int | None = None

    @property
    def width(self) -> int:
        """Room the column needs: its widest cell or header word (headers wrap between words)."""
        words = [len(word) for word in self.header.split()] + [len(c) for c in self.cells]
        return max(words + [self.min_width or 0])

    @property
    def empty(self) -> bool:
        return all(c in ("", "—", "n/a") for c in self.cells)


@dataclass
class WideTable:
    title: str
    keys: list[Column]
    columns: list[Column] = field(default_factory=list)

    def groups(self, width: int) -> list[list[Column]]:
        """The non-empty columns in groups that fit ``width`` beside the key columns."""
        shown = [c for c in self.columns if not c.empty]
        base = sum(c.width + 3 for c in self.keys) + 1
        groups: list[list[Column]] = []
        current: list[Column] = []
        used = base
        for column in shown:
            need = column.width + 3
            if current and used + need > width:
                groups.append(current)
                current, used = [], base
            current.append(column)
            used += need
        groups = groups + ([current] if current else []) or [[]]
        return self._balanced(groups, width, base)

    @staticmethod
    def _balanced(groups: list[list[Column]], width: int, base: int) -> list[list[Column]]:
        """The same number of groups with as even a share of columns as fits (no lone last column)."""
        columns = [c for group in groups for c in group]
        size = -(-len(columns) // len(groups))
        even = [columns[i:i + size] for i in range(0, len(columns), size)]
        fits = all(base + sum(c.width + 3 for c in group) <= width for group in even)
        return even if fits and len(even) == len(groups) else groups


def print_wide(console, table: WideTable) -> None:
    """Print ``table`` as one Rich table, or several side by side in turn when it is too wide."""
    groups = table.groups(console.width)
    for number, columns in enumerate(groups, 1):
        title = table.title if number == 1 else "continued"
        suffix = f" ({number}/{len(groups)})" if len(groups) > 1 else ""
        out = Table(title=title + suffix, padding=(0, 1))
        for column in [*table.keys, *columns]:
            # Widths are fixed here, so the groups computed above are what Rich draws (headers wrap).
            out.add_column(column.header, justify="right" if column.numeric else "left",
                           width=column.width, overflow="fold")
        rows = len(table.keys[0].cells) if table.keys else 0
        for i in range(rows):
            out.add_row(*(c.cells[i] for c in [*table.keys, *columns]))
        console.print(out)


def frame_table(frame, title: str, keys: Sequence[str], headers=None, cell=str) -> WideTable:
    """A :class:`WideTable` from a pandas DataFrame: ``keys`` are repeated in every group.

    ``headers`` maps a column name to its header text; ``cell(value)`` formats a value.
    """
    headers = headers or (lambda name: name)
    built = {}
    for name in frame.columns:
        cells = [cell(v) for v in frame[name]]
        numeric = name not in keys and all(_NUMERIC.match(c) for c in cells if c)
        built[name] = Column(headers(str(name)), cells, numeric)
    return WideTable(title, [built[k] for k in keys], [built[n] for n in frame.columns if n not in keys])


def print_meta_table(console, table, title: str, digits: int = 4) -> None:
    """A meta-evaluation table (``metric`` first; a rank shows as ``value (rank)``), fitted to the console."""
    import pandas as pd  # heavy: pandas, pyarrow

    from tribunal.eval.meta.report import display_frame, header  # heavy: pulls in pandas, pyarrow

    shown = display_frame(table, digits)
    keys = [c for c in shown.columns[:1]]
    built = [Column(header(str(name)) if name not in keys else str(name), list(shown[name]),
                    numeric=name not in keys and pd.api.types.is_numeric_dtype(table[name]))
             for name in shown.columns]
    print_wide(console, WideTable(title, built[:1], built[1:]))
