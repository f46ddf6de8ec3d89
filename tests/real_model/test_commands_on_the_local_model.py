"""Every LM command of tribunal, through its real entry point, on a real (tiny) model.

What is asserted holds whatever the model says: no traceback; exit 0 or 3; the model answered
(at least one HTTP 200 at the counting proxy during the command, no connection error in the output
or errors.jsonl, and the server still alive and never restarted at the end: a dead server fails the
tier, on any machine); every unscored item has a one-line reason and, when the model answered, its
raw answer; the calls and tokens a summary reports equal what the server answered (counted by the
proxy in front of it); the run says that a 135M model's judgments say nothing about quality. A
Q4_K_M model, quantized at test time from the bundled one, runs GEMBA-MQM too. Prompts are kept short (no M-MAD demos, one
debate round), items few and answers bounded (``--max-tokens``), so the tier takes minutes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import Outcome, run_cli
from tests.support.counting_proxy import totals
from tribunal.programs.local_models import QUALITY_NOTICE

pytestmark = [pytest.mark.real_model, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
LM = ["--lm", "local", "--no-cache", "--timeout", "1800", "--max-tokens", "128"]
MT_PROGRAMS = {
    "mmad": ["--limit", "1", "--preset", "lean", "--rounds", "1", "--demos", "0"],
    "gemba-mqm": ["--limit", "1"],
    "eaprompt": ["--limit", "1"],
    "gemba-esa": ["--limit", "1"],
    "mqm-ape": ["--limit", "1"],
}
QUOTED = 3  # raw answers kept per command for the report


def _sane(outcome: Outcome, model, mark: int, folder: Path | None = None, bundled: bool = True) -> None:
    assert outcome.status in (0, 3), (outcome.status, outcome.err[-3000:])
    assert "Traceback" not in outcome.err and "Traceback" not in outcome.out
    if bundled:
        assert QUALITY_NOTICE in outcome.err  # the run says what a 135M model's judgments are worth
    _model_answered(outcome, model, mark, folder)


def _model_answered(outcome: Outcome, model, mark: int, folder: Path | None = None) -> None:
    """The model answered this command, over a connection that held, and its server is alive at the end."""
    answered = [e for e in model.since(mark) if e.status == 200]
    assert answered, f"the local model never answered (no HTTP 200 at the proxy): {outcome.err[-2000:]}"
    text = (outcome.out + outcome.err).lower()
    assert "connection error" not in text, outcome.err[-3000:]
    errors = folder / "errors.jsonl" if folder else None
    if errors is not None and errors.exists():
        assert "connection error" not in errors.read_text(encoding="utf-8").lower()
    server = model.server
    assert server.running() and server.answers(), f"the local model server died: log {server.log_path}"
    assert not server.deaths, server.deaths  # never restarted either


def _number(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found, (pattern, text[-3000:])
    return int(found.group(1).replace(",", ""))


def _report(figures: dict, name: str, exchanges: list, **extra) -> None:
    answered = [e for e in exchanges if e.status == 200]
    figures[name] = {"calls": len(answered), "cut_at_max_tokens": sum(e.finish_reason == "length" for e in answered),
                     "answers": [e.answer for e in answered[:QUOTED]], **extra}


def _check_unscored(folder: Path) -> tuple[int, int, list[str]]:
    """(items, unscored, reasons): every unscored item has a one-line reason and its raw answer if there was one."""
    rows = [json.loads(line) for line in (folder / "errors.jsonl").read_text(encoding="utf-8").splitlines() if line]
    unscored = [r for r in rows if r["status"] == "unscored"]
    for row in unscored:
        assert row["reason"] and "\n" not in row["reason"], row
        if row["reason"].startswith(("unparseable answer", "invalid answer")):
            assert row.get("raw_answer"), row
    return len(rows), len(unscored), [r["reason"][:160] for r in unscored]


@pytest.mark.parametrize("program", list(MT_PROGRAMS))
def test_mt_programs(program, local_model, model_report, tmp_path, capsys):
    mark = local_model.mark()
    outcome = run_cli(capsys, "mt", "evaluate", "--lp", "zh-en", "--rated-only", "--concurrency", "1",
                      "--program", program, *MT_PROGRAMS[program], *LM, "--no-track", "--out", tmp_path / program)
    _sane(outcome, local_model, mark, tmp_path / program)
    calls, prompt, completion = totals(local_model.since(mark))
    text = outcome.out + outcome.err
    assert _number(r"(\d+) answered by the provider", text) == calls
    assert _number(r"tokens \(provider usage\): ([\d,]+) in", text) == prompt
    assert _number(r"tokens \(provider usage\): [\d,]+ in, ([\d,]+) out", text) == completion
    items, unscored, reasons = _check_unscored(tmp_path / program)
    _report(model_report, f"mt evaluate --program {program}", local_model.since(mark), items=items,
            scored=items - unscored, reasons=reasons, reasks=_number(r"of which (\d+) re-asks", text))


def test_a_q4_k_m_model_quantized_from_the_bundled_one(q4km_model, model_report, tmp_path, capsys):
    path, served = q4km_model
    mark = served.mark()
    outcome = run_cli(capsys, "mt", "evaluate", "--lp", "zh-en", "--rated-only", "--concurrency", "1",
                      "--program", "gemba-mqm", "--limit", "1", "--lm", f"local/{path}", *LM[2:], "--no-track",
                      "--out", tmp_path / "q4km")
    _sane(outcome, served, mark, tmp_path / "q4km", bundled=False)
    calls, prompt, _ = totals(served.since(mark))
    assert _number(r"(\d+) answered by the provider", outcome.out + outcome.err) == calls
    assert _number(r"tokens \(provider usage\): ([\d,]+) in", outcome.out + outcome.err) == prompt
    items, unscored, reasons = _check_unscored(tmp_path / "q4km")
    _report(model_report, "mt evaluate --program gemba-mqm on Q4_K_M", served.since(mark), items=items,
            scored=items - unscored, reasons=reasons)


def _pairs(tmp_path: Path, count: int) -> Path:
    lines = (REPO / "eval" / "equiv" / "suite" / "heldout_pairs.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(lines[:count]) + "\n", encoding="utf-8")
    return path


def test_equivalence_judge(local_model, model_report, tmp_path, capsys):
    mark = local_model.mark()
    outcome = run_cli(capsys, "equiv", "audit", "--rules", "llm", "--pairs", _pairs(tmp_path, 2), "--repeats", "1",
                      "--threads", "1", *LM, "--no-track", "--out", tmp_path / "audit")
    _sane(outcome, local_model, mark)
    calls, _, _ = totals(local_model.since(mark))
    assert _number(r"LM calls (\d+)", outcome.out + outcome.err) == calls
    _report(model_report, "equiv audit --rules llm", local_model.since(mark), pairs=2)


def test_hypothesis_workflow(local_model, model_report, tmp_path, capsys):
    mark = local_model.mark()
    outcome = run_cli(capsys, "hyp", "run", "--depths", "0,1", "--reruns", "1", "--max-per-opening", "1",
                      "--threads", "1", "--temperature", "0.7", *LM, "--no-track", "--out", tmp_path / "runs")
    _sane(outcome, local_model, mark)
    errors = [error for path in sorted((tmp_path / "runs" / "runs").rglob("*.json"))
              for error in json.loads(path.read_text(encoding="utf-8")).get("errors", [])]
    _report(model_report, "hyp run --depths 0,1", local_model.since(mark), errors=[e[:200] for e in errors],
            summary=[line for line in outcome.out.splitlines() if "runs of" in line])
    assert not any("\n" in error for error in errors), "every unscored slot's reason is one line"


def test_optimize_export_and_evaluate(local_model, model_report, tmp_path, capsys, empty_sqlite_store):
    import shutil

    store = tmp_path / "mlflow.db"
    shutil.copy(empty_sqlite_store, store)
    tracking = ["--tracking-uri", f"sqlite:///{store}"]
    mark = local_model.mark()
    tuned = run_cli(capsys, "optimize", "--program", "gemba-mqm", "--optimizer", "labeled", "--budget", "2",
                    "--train", "mqm-ted:zh-en:0-2", "--dev", "mqm-ted:zh-en:2-3", "--threads", "1", *LM, *tracking,
                    "--out", tmp_path / "tuned.json")
    assert tuned.status == 0, tuned.err[-3000:]
    assert "Traceback" not in tuned.err and QUALITY_NOTICE in tuned.err
    _model_answered(tuned, local_model, mark)
    run_id = _run_id(tuned.out)
    exported = run_cli(capsys, "export", run_id, "--out", tmp_path / "exported.json", *tracking)
    assert exported.status == 0, exported.err
    before_eval = local_model.mark()
    evaluated = run_cli(capsys, "mt", "evaluate", "--lp", "zh-en", "--rated-only", "--limit", "1", "--concurrency", "1",
                        "--program", tmp_path / "exported.json", *LM, "--no-track", "--out", tmp_path / "tuned-eval")
    _sane(evaluated, local_model, before_eval, tmp_path / "tuned-eval")
    calls, prompt, _ = totals(local_model.since(before_eval))
    assert _number(r"(\d+) answered by the provider", evaluated.out + evaluated.err) == calls
    assert _number(r"tokens \(provider usage\): ([\d,]+) in", evaluated.out + evaluated.err) == prompt
    items, unscored, reasons = _check_unscored(tmp_path / "tuned-eval")
    _report(model_report, "optimize labeled --budget 2, export, mt evaluate --program FILE", local_model.since(mark),
            items=items, scored=items - unscored, reasons=reasons,
            dev=[line for line in tuned.out.splitlines() if line.startswith("dev score")])


def _run_id(out: str) -> str:
    found = re.search(r"^run: (\w+)", out, re.MULTILINE)
    assert found, out
    return found.group(1)
