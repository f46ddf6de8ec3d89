"""Terminal views of tracked runs that fit any width (100 columns included) and lose nothing.

- :func:`print_records`: one block per run (``field  value`` lines), long values wrapped under
  their field, never cut;
- :func:`print_side_by_side`: rows = params or metrics, columns = runs; when the runs do not fit
  the width they are shown in groups of columns, each group a table of its own.
"""

from __future__ import annotations

import math

import pandas as pd
from rich.table import Table
from rich.text import Text

_MAX_LABEL = 36  # widest first column (metric / param names wrap beyond it)


def _text(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value) if str(value) else "—"


def print_records(console, table: pd.DataFrame, title: str, heading: tuple[str, ...] = ("run", "name")) -> None:
    """Each row as a block headed by its ``heading`` fields, the other fields below it."""
    console.print(Text(title, style="bold"))
    fields = [c for c in table.columns if c not in heading]
    label_width = max(len(str(f)) for f in fields) if fields else 0
    for row in table.to_dict("records"):
        head = " ".join(_text(row[h]) for h in heading if h in row)
        console.print(Text(head, style="bold cyan"), overflow="fold")
        grid = Table.grid(padding=(0, 2))
        grid.add_column(width=label_width, no_wrap=True, style="dim")
        grid.add_column(overflow="fold")
        for field in fields:
            grid.add_row(str(field), _text(row[field]))
        console.print(grid)


def _column_groups(frame: pd.DataFrame, width: int, label_width: int) -> list[list[str]]:
    widths = {c: max([len(_text(v)) for v in frame[c]] + [len(str(c))]) for c in frame.columns}
    groups, current, used = [], [], label_width + 2
    for column in frame.columns:
        need = min(widths[column], 30) + 3
        if current and used + need > width:
            groups.append(current)
            current, used = [], label_width + 2
        current.append(column)
        used += need
    return groups + ([current] if current else [])


def print_side_by_side(console, frame: pd.DataFrame, title: str, label: str) -> None:
    """``frame`` (index: names, columns: runs) as tables that fit the console width."""
    if frame.empty:
        return
    label_width = min(_MAX_LABEL, max(len(str(i)) for i in frame.index))
    groups = _column_groups(frame, console.width, label_width)
    for number, columns in enumerate(groups, 1):
        suffix = f" ({number}/{len(groups)})" if len(groups) > 1 else ""
        out = Table(title=f"{title}{suffix}", padding=(0, 1), title_justify="left")
        out.add_column(label, overflow="fold", max_width=label_width)
        for column in columns:
            out.add_column(str(column), justify="right", overflow="fold", max_width=30)
        for name, row in frame[columns].iterrows():
            out.add_row(str(name), *(_text(v) for v in row))
        console.print(out)
