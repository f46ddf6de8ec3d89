"""The run page and the side-by-side page in a real headless chromium (skipped, with the reason, without one)."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from tests.support.headless_chromium import chromium_or_skip
from tribunal.core.item_result import ItemResult
from tribunal.core.run_summary import read_run_summary
from tribunal.data.mtme import LanguagePair
from tribunal.eval.mt.items import select_items
from tribunal.eval.report.render import read_page_data, write_page
from tribunal.eval.report.page_data import run_page_data
from tribunal.eval.report.run_page import write_compare_page

from .runs import PLANTED, UNGROUNDED, evaluate, markup_judge, write_markup_data
from tests.support.mqm_fakes import synthetic_judge

# Each judge span's highlighted text, per rendered row: the marks whose data-spans name it, in order.
SPAN_TEXTS = """(() => { const out = {};
  document.querySelectorAll('article.row').forEach(row => { const texts = {};
    row.querySelectorAll('mark[data-spans]').forEach(m => m.getAttribute('data-spans').split(' ').forEach(id => {
      const side = m.parentElement.getAttribute('data-side'); const key = id + '@' + side;
      texts[key] = (texts[key] || '') + m.textContent; }));
    out[row.getAttribute('data-i')] = texts; });
  return out; })()"""
SHOWN = "Array.from(document.querySelectorAll('article.row')).map(r => Number(r.getAttribute('data-i')))"


def choose(select: str, value: str) -> str:
    return (f"(() => {{ const s = document.getElementById('{select}'); s.value = {json.dumps(value)};"
            "s.dispatchEvent(new Event('change')); return true; })()")


@pytest.fixture(scope="module")
def browser():
    chromium = chromium_or_skip()
    yield chromium
    chromium.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    data = write_markup_data(root / "data")
    evaluate(data, "en-de", root / "first", "gemba-mqm", markup_judge)
    evaluate(data, "en-de", root / "second", "gemba-mqm", synthetic_judge)
    compare = write_compare_page(root / "compare.html", root / "first" / "report.html", root / "second" / "report.html",
                                 ("untuned", "tuned"))
    return root / "first" / "report.html", compare


def test_the_page_loads_offline_and_highlights_each_span_s_own_characters(browser, pages, tmp_path):
    page, _ = pages
    browser.errors.clear(), browser.requests.clear()
    browser.open(page.as_uri())
    rows = {row["i"]: row for row in read_page_data(page)["rows"]}
    texts = browser.evaluate(SPAN_TEXTS)
    assert sorted(map(int, texts)) == sorted(rows)
    checked = 0
    for index, row in rows.items():
        for n, span in enumerate(row["j"][0]["spans"]):
            key = f"j0:{n}@{span['side']}"
            if span["s"] is None:  # ungrounded: listed, never highlighted
                assert key not in texts[str(index)]
                continue
            text = row["tgt"] if span["side"] == "target" else row["src"]
            assert texts[str(index)][key] == text[span["s"]:span["e"]]
            checked += 1
    assert checked >= 8
    assert browser.evaluate("document.querySelectorAll('script').length") == 2  # the planted one is text
    assert browser.evaluate(f"document.body.innerText.includes({json.dumps(PLANTED)})")
    assert browser.evaluate(f"document.querySelector('ul.notfound').textContent.includes({json.dumps(UNGROUNDED)})")
    assert browser.errors == [] and browser.outside_requests() == []
    assert browser.screenshot(tmp_path / "run.png").stat().st_size > 10_000


def test_sorting_filtering_and_search(browser, pages):
    page, _ = pages
    rows = {row["i"]: row for row in read_page_data(page)["rows"]}
    browser.open(page.as_uri())
    browser.evaluate(choose("sort", "disagreement"))
    shown = browser.evaluate(SHOWN)
    gaps = [rows[i]["dis"] if rows[i]["dis"] is not None else -1 for i in shown]
    assert gaps == sorted(gaps, reverse=True) and len(shown) == 8
    browser.evaluate(choose("sort", "missed"))
    assert rows[browser.evaluate(SHOWN)[0]]["missed"][0] == max(r["missed"][0] for r in rows.values()) > 0
    browser.evaluate(choose("sys", "B"))
    assert {rows[i]["sys"] for i in browser.evaluate(SHOWN)} == {"B"}
    browser.evaluate(choose("status", "unscored"))
    assert [rows[i]["j"][0]["status"] for i in browser.evaluate(SHOWN)] == ["unscored"]
    browser.evaluate(choose("sys", "") + " && " + choose("status", "missed"))
    assert {i for i in browser.evaluate(SHOWN)} == {i for i, r in rows.items() if r["missed"][0]}
    browser.evaluate(choose("status", ""))
    browser.evaluate("(() => { const q = document.getElementById('q'); q.value = 'BRÜCKE';"
                     " q.dispatchEvent(new Event('input')); return true; })()")
    browser.wait_for(f"{SHOWN}.length === 2")
    assert all("Brücke" in rows[i]["tgt"] for i in browser.evaluate(SHOWN))
    browser.evaluate(choose("raters", "each"))
    whos = browser.evaluate("Array.from(document.querySelector('article.row').querySelectorAll('.who'), w => w.textContent)")
    assert whos == ["source", "judge", "mqm.merged"]  # each rater by name (this data has one rating file)
    assert browser.errors == []


def test_the_page_runs_in_mlflow_s_sandboxed_artifact_iframe(browser, pages):
    """MLflow 3.17 shows an .html artifact as a blob: URL in an iframe sandboxed to allow-scripts."""
    page, _ = pages
    browser.open("about:blank", ready="true")
    browser.errors.clear()
    html = page.read_text(encoding="utf-8")
    browser.evaluate(f"""(() => {{ const frame = document.createElement('iframe');
        frame.setAttribute('sandbox', 'allow-scripts'); frame.style.width = '1200px'; frame.style.height = '800px';
        frame.src = URL.createObjectURL(new Blob([{json.dumps(html)}], {{type: 'text/html'}}));
        document.body.appendChild(frame); return true; }})()""")
    deadline, drawn = time.monotonic() + 20, 0
    count = "document.querySelectorAll('article.row').length"
    while time.monotonic() < deadline and not drawn:
        for session in browser.watch_children():  # the iframe in a process of its own
            drawn = drawn or browser.send("Runtime.evaluate", session=session, expression=count,
                                          returnByValue=True)["result"].get("value")
        frames = browser.send("Page.getFrameTree")["frameTree"].get("childFrames", [])
        if frames and not drawn:  # the iframe in the tab's own process
            try:
                world = browser.send("Page.createIsolatedWorld", frameId=frames[0]["frame"]["id"])
                drawn = browser.send("Runtime.evaluate", expression=count, contextId=world["executionContextId"],
                                     returnByValue=True)["result"].get("value")
            except RuntimeError:  # the frame is still loading
                pass
        time.sleep(0.1)
    assert drawn == 8
    assert browser.errors == [] and browser.outside_requests() == []


def test_the_side_by_side_page_puts_the_largest_differences_first(browser, pages, tmp_path):
    _, compare = pages
    data = read_page_data(compare)
    browser.errors.clear(), browser.requests.clear()
    browser.open(compare.as_uri())
    shown = browser.evaluate(SHOWN)
    by_index = {row["i"]: row for row in data["rows"]}
    order = [(by_index[i]["diff"]["status"], by_index[i]["diff"]["score"], by_index[i]["diff"]["spans"]) for i in shown]
    assert order == sorted(order, reverse=True) and order[0] > order[-1]
    assert browser.evaluate("document.querySelector('article.row').querySelectorAll('.line .who')[2].textContent") == "tuned"
    assert browser.errors == [] and browser.outside_requests() == []
    assert browser.screenshot(tmp_path / "compare.png").stat().st_size > 10_000


def _thousands_of_results(items) -> dict[str, ItemResult]:
    results = {}
    for n, (key, item) in enumerate(items.items.items()):
        words = item.translation.split() or ["?"]
        pick = int(hashlib.sha256(key.encode()).hexdigest()[:6], 16)
        errors = [{"span": words[pick % len(words)], "severity": ("minor", "major", "critical")[pick % 3],
                   "subcategory": "mistranslation", "is_source_error": False}]
        if n % 97 == 0:
            results[key] = ItemResult(key=key, status="unscored", reason="refusal", raw="no")
        else:
            results[key] = ItemResult(key=key, status="scored", score=-float(pick % 26), errors=errors,
                                      transcript=[{"stage": "gemba", "role": "judge", "errors": errors}],
                                      degraded=[{"role": "gemba/judge", "reason": "test", "stood_in": "s"}] if n % 89 == 0 else [])
    return results


def test_a_run_of_2000_items_renders_in_under_2_seconds(browser, pages, tmp_path):
    from tests.eval.mt.helpers import wmt23

    pair = LanguagePair(wmt23(), "zh-en")
    items = select_items(pair, None, True, 2000)
    assert len(items.items) == 2000
    summary = read_run_summary(pages[0].parent)
    data = run_page_data(summary, items, _thousands_of_results(items), pair)
    page = write_page(tmp_path / "report.html", data, "2,000 items")
    browser.errors.clear()
    started = time.perf_counter()
    drawn_at = int(browser.open(page.as_uri()))  # the page's own mark: ms since navigation when the rows are drawn
    seen = time.perf_counter() - started
    assert drawn_at < 2000 and seen < 2.0, (drawn_at, seen)
    started = time.perf_counter()
    browser.evaluate(choose("sort", "missed"))
    assert time.perf_counter() - started < 1.0
    assert browser.evaluate("document.getElementById('count').textContent").startswith("showing 100 of ")
    assert browser.errors == [] and browser.outside_requests() == []
    print(f"2,000 items ({page.stat().st_size / 1e6:.1f} MB): drawn {drawn_at} ms after navigation, {seen:.2f} s seen")
