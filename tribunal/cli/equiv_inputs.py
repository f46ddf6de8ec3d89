"""The pairs an equivalence command reads: the suite (``--suite``, default shipped) or a pair file
(``--pairs``), cut to ``--limit``; and ``--embedding-threshold``'s value."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from tribunal.cli.errors import UserError


def load_suite_or_fail(path: Optional[Path]):
    """The suite of ``path`` (default: the shipped one); a missing or malformed file is a one-line error."""
    from tribunal.eval.equiv.suite import load_suite  # heavy: pulls in sklearn, pandas

    if path is not None and not path.is_file():
        raise UserError(f"{path}: no such suite file")
    try:
        return load_suite(path)
    except ValueError as err:
        raise UserError(str(err)) from err


def load_pairs_or_suite(suite: Optional[Path], pairs: Optional[Path]):
    """The labelled pairs to audit: a pair file (``--pairs``) or the suite (``--suite``, default shipped)."""
    if pairs is None:
        return load_suite_or_fail(suite)
    if suite is not None:
        raise UserError("give --suite or --pairs, not both")
    if not pairs.is_file():
        raise UserError(f"{pairs}: no such pairs file")
    from tribunal.eval.equiv.pairs import load_pairs  # heavy: pulls in sklearn, pandas

    return load_pairs(pairs)  # a DataFormatError names the file and line


def first_pairs(loaded, limit: Optional[int]):
    """``--limit N``: the first N pairs, as a slice of its own (its hash names the cut, so signatures differ)."""
    if limit is None or limit >= len(loaded.pairs):
        return loaded
    from tribunal.eval.tracking.signature import text_hash  # startup: kept out of `tribunal --help`

    return loaded.model_copy(update={"pairs": loaded.pairs[:limit], "hash": text_hash(f"{loaded.hash}|first {limit}")})


def parse_embedding_threshold(text: str) -> float | str:
    """``--embedding-threshold``: a number, or ``auto`` (calibrated to a target same-pair rate)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return float(text)
    except ValueError:
        raise UserError(f"--embedding-threshold {text!r}: expected a number in [0, 1] or 'auto'") from None
