"""Line-aligned text files of the mt-metrics-eval layout (sources, references, outputs, documents)."""

from __future__ import annotations

from pathlib import Path

from tribunal.eval.data.errors import DataFormatError


def read_lines(path: str | Path, expected: int | None = None) -> list[str]:
    """Read a one-segment-per-line file; check its length against ``expected`` if given."""
    path = Path(path)
    if not path.is_file():
        raise DataFormatError(path, None, "file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        line = path.read_bytes()[: err.start].count(b"\n") + 1
        raise DataFormatError(path, line, "not valid UTF-8") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if expected is not None and len(lines) != expected:
        raise DataFormatError(
            path, len(lines), f"has {len(lines)} lines but the source has {expected}"
        )
    return lines


def read_documents(path: str | Path, expected: int | None = None) -> list[tuple[str, str]]:
    """Read a ``.docs`` file: one ``DOMAIN\\tDOC_ID`` line per segment."""
    rows = []
    for number, line in enumerate(read_lines(path, expected), 1):
        parts = line.split("\t")
        if len(parts) != 2:
            raise DataFormatError(
                path, number, f"expected 2 tab-separated columns (domain, doc), found {len(parts)}"
            )
        rows.append((parts[0], parts[1]))
    return rows
