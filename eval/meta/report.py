"""Presenting meta-evaluation tables: TSV files and terminal tables."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from tribunal.eval.data.atomic import write_text_atomically


def _cell(value: object, digits: int | None) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.{digits}f}" if digits is not None else repr(value)
    return str(value)


def table_to_tsv(table: pd.DataFrame, digits: int | None = None) -> str:
    """TSV text of a table; NaN cells are empty; full precision unless ``digits`` is given."""
    lines = ["\t".join(table.columns)]
    lines += ["\t".join(_cell(v, digits) for v in row) for row in table.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def write_tsv(table: pd.DataFrame, path: str | Path) -> None:
    """Write the table atomically: a crash never leaves a half-written file."""
    write_text_atomically(path, table_to_tsv(table))


def _header(column: str) -> str:
    """Two-line header so a 12-column table fits a terminal: ``en-de_seg_acc_t`` -> ``en-de\\nseg acc_t``."""
    lp, sep, task = column.partition("_")
    return f"{lp}\n{task.replace('_', ' ')}" if sep and "-" in lp else column.replace("_", " ")


def rich_table(table: pd.DataFrame, title: str, digits: int = 4):
    """A Rich table of the same rows and columns."""
    from rich.table import Table

    out = Table(title=title, show_lines=False, padding=(0, 1))
    for column in table.columns:
        if pd.api.types.is_numeric_dtype(table[column]):
            out.add_column(_header(str(column)), justify="right")
        else:
            width = max([len(str(v)) for v in table[column]] + [len(str(column))])
            out.add_column(str(column), justify="left", no_wrap=True, min_width=width)
    for row in table.itertuples(index=False):
        out.add_row(*(_cell(v, digits) if _cell(v, digits) else "—" for v in row))
    return out
