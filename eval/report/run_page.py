"""``report.html``: the page of one ``mt evaluate`` run, and the page of two runs side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tribunal.core.item_result import ItemResult
from tribunal.core.run_summary import RunSummary
from tribunal.eval.mt.items import RunItems
from tribunal.eval.report.compare_data import compare_page_data
from tribunal.eval.report.page_data import run_page_data
from tribunal.eval.report.render import read_page_data, write_page

PAGE_FILE = "report.html"
COMPARE_FILE = "compare.html"


def write_run_page(out: Path, summary: RunSummary, items: RunItems, results: dict[str, ItemResult], pair: Any,
                   scale: str = "mqm") -> Path:
    """Write ``OUT/report.html`` from the run's summary, journal results and data; returns its path."""
    data = run_page_data(summary, items, results, pair, scale)
    head = data["heads"][0]
    title = f"{head['judge'] or 'judge'} on {pair.lp}: {summary.items.total} items"
    return write_page(Path(out) / PAGE_FILE, data, title)


def write_compare_page(path: Path, first: Path, second: Path, labels: tuple[str, str]) -> Path:
    """Write the side-by-side page of two runs' pages (``first``, ``second``: their ``report.html``)."""
    data = compare_page_data(read_page_data(first), read_page_data(second), labels)
    heads = data["heads"]
    title = f"{heads[0]['label']} vs {heads[1]['label']}: {len(data['rows'])} cells"
    return write_page(Path(path), data, title)
