"""Presenting meta-evaluation tables: TSV files and terminal tables."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from rich.table import Table

from tribunal.data.atomic import write_text_atomically


def _cell(value: object, digits: int | None) -> str:
    if value is pd.NA:
        return ""
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


RANK_SUFFIX = "_rank"
_TASK_MARKERS = ("_sys_", "_seg_")


def with_ranks(table: pd.DataFrame, rankings: dict) -> pd.DataFrame:
    """The table with a ``<column>_rank`` column after each ranked column (cluster ranks, Int64)."""
    out = table.copy()
    columns = []
    for column in table.columns:
        columns.append(column)
        if column in rankings:
            ranks = rankings[column].rank_of()
            out[column + RANK_SUFFIX] = pd.array([ranks.get(m) for m in table["metric"]], dtype="Int64")
            columns.append(column + RANK_SUFFIX)
    return out[columns]


def _header(column: str) -> str:
    """Two-line header so a wide table fits a terminal: ``en-de_seg_acc_t`` -> ``en-de\\nseg acc_t``.

    Pair names may hold underscores (``en-cs_CZ``), so the split is at the task's ``_sys_`` / ``_seg_``.
    """
    for marker in _TASK_MARKERS:
        lp, sep, task = column.partition(marker)
        if sep and "-" in lp:
            return f"{lp}\n{marker[1:]}{task}".replace("_", " ")
    return column.replace("_", " ")


def _display_frame(table: pd.DataFrame, digits: int) -> pd.DataFrame:
    """Values as text, each followed by its cluster rank in parentheses when the table has ranks."""
    shown = {}
    for column in table.columns:
        name = str(column)
        if name.endswith(RANK_SUFFIX) and name[: -len(RANK_SUFFIX)] in table.columns:
            continue
        values = [_cell(v, digits) or "—" for v in table[column]]
        if name + RANK_SUFFIX in table.columns:
            ranks = table[name + RANK_SUFFIX]
            values = [v if pd.isna(r) else f"{v} ({r})" for v, r in zip(values, ranks)]
        shown[column] = values
    return pd.DataFrame(shown)


display_frame = _display_frame  # public: the CLI splits wide tables into column groups
header = _header


def rich_table(table: pd.DataFrame, title: str, digits: int = 4):
    """A Rich table of the same rows and columns (a rank column shows as ``value (rank)``)."""
    out = Table(title=title, show_lines=False, padding=(0, 1))
    shown = _display_frame(table, digits)
    for column in shown.columns:
        if pd.api.types.is_numeric_dtype(table[column]):
            out.add_column(_header(str(column)), justify="right")
        else:
            width = max([len(str(v)) for v in shown[column]] + [len(str(column))])
            out.add_column(str(column), justify="left", no_wrap=True, min_width=width)
    for row in shown.itertuples(index=False):
        out.add_row(*row)
    return out
