"""The output policy: stdout holds tribunal's own lines, the libraries speak only with ``--verbose``.

One test runs the real command in a subprocess against the loopback server, with
``LITELLM_LOCAL_MODEL_COST_MAP`` unset (the entry point sets it: no price-list fetch, no "Model
metadata refresh failed" warning) and a fresh MLflow store (whose creation MLflow logs). The
in-process tests plant the libraries' kinds of noise (a ``print``, a warning log, a tqdm bar) inside
a running command and check where each goes with and without ``--verbose``.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import subprocess
import sys
import uuid

import pytest

from tests.support.injected_engine import use_engine
from tests.support.cli import run_cli
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge

EVALUATE_LINES = [  # everything `mt evaluate` may print on stdout
    r"items: \d+ unique of \d+ cells \(\d+ duplicates\); scored \d+( \(of which \d+ degraded\))?, unscored \d+, "
    r"resumed from journal \d+",
    r"  degraded: scored with a fallback after a role stayed unusable \(.+\); .+; errors.jsonl says what stood in",
    r"LM calls: \d+ \(.*\): \d+ answered by the provider, \d+ from the response cache, \d+ failed; "
    r"of which \d+ re-asks( \(.+\))?",
    r"tokens \(provider usage\): \d+ in, \d+ out; spend: .+",
    r"error spans the judge marked in the \d+ scored items: \d+ in the translation( \(.+\))?, \d+ in the source"
    r"( \(.+\))?",
    r"against the human MQM scores \(\d+ rated cells of \d+ systems\):",
    r"  (sys_pearson|sys_acc|seg_pearson|seg_acc_t): (-?\d\.\d{4}|n/a \(.+\))",
    r"error spans against the raters' \(\d+ rated cells; the judge marked \d+ error spans in them: \d+ in the "
    r"translation( \(.+\))?, \d+ in the source( \(.+\))?; pooled over raters: \d+ judge spans, \d+ rater spans\):",
    r"  span (mpp|wmt25)_(precision|recall|f)(: (\d\.\d{4}|n/a \(.+\)))( \(.+\))?",
    r"  span (char|span)_(precision|recall|f1): (\d\.\d{4}|n/a \(.+\))( \(legacy.+\))?",
    r"error-free detection \(WMT26 subtask 3\) against .+ \(.+; \d+ cells, \d+\.\d% error-free\); judge: .+ "
    r"\(95% bootstrap, \d+ draws over cells, seed \d+\):",
    r"  MCC -?\d\.\d{3} \[.+\], P \d\.\d{3} .+, predicted error-free \d\.\d{3} \[.+\]",
    r"outputs: \S+, \S+errors.jsonl, \S+transcripts.jsonl",
    r"system scores: not written \(.+\): the segment scores cover part of the test set only",
    r"wall time: \d+\.\d s",
    r"signature: prog:\S+\|v:\d+\.\d+\.\d+",
    r"MLflow run [0-9a-f]{32}",
    r"page: \S+report\.html \(open it in a browser, or `tribunal runs view PATH --serve`\)",
    r"  second pass \(items a transient failure left unscored, judged once more at the end\): \d+ of \d+ recovered",
    r"server: \S+ (serves \d+ requests? at once \(.+\)(: calls in flight \d+ \(--concurrency \d+\))?"
    r"|does not say how many requests it serves at once \(.+\): .+)",
]


def only_tribunal_lines(stdout: str, patterns: list[str]) -> list[str]:
    lines = stdout.splitlines()
    strangers = [line for line in lines if not any(re.fullmatch(p, line) for p in patterns)]
    assert not strangers, f"not tribunal's lines: {strangers}"
    return lines


def evaluate_args(wmt23_root, api_base, out, *extra):
    return ["mt", "evaluate", "--data", wmt23_root, "--lp", "zh-en", "--lm", f"openai/quiet-{uuid.uuid4().hex[:8]}",
            "--api-base", api_base, "--program", "gemba-mqm", "--limit", "3", "--out", out, *extra]


def test_an_lm_command_prints_only_its_own_lines_without_verbose(tmp_path, wmt23_root):
    env = {k: v for k, v in os.environ.items() if k not in ("LITELLM_LOCAL_MODEL_COST_MAP", "COLUMNS")}
    env |= {"OPENAI_API_KEY": "sk-loopback-unused", "DSPY_CACHEDIR": str(tmp_path / "cache")}
    out = tmp_path / "out"
    with loopback_server(synthetic_judge) as (api_base, state):
        done = subprocess.run(
            [sys.executable, "-m", "tribunal", *map(str, evaluate_args(wmt23_root, api_base, out)),
             "--tracking-uri", f"sqlite:///{tmp_path / 'fresh' / 'mlflow.db'}"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no metadata warning, no MLflow/alembic log, no bar off a terminal
    lines = only_tribunal_lines(done.stdout, EVALUATE_LINES)
    assert lines[0].startswith("items: 3 unique") and len(state.hits) == 3
    assert any(line.startswith("signature: prog:gemba-mqm|") and len(line) > 150 for line in lines)  # never wrapped
    score_file = next((out / "metric-scores" / "zh-en").glob("*.seg.score"))
    assert stat.S_IMODE(score_file.stat().st_mode) == 0o666 & ~_umask()


def _umask() -> int:
    from tribunal.data.atomic import current_umask

    return current_umask()


class _StderrNow(logging.StreamHandler):
    """A handler writing to whatever ``sys.stderr`` is when a record is emitted."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass


@pytest.fixture
def noisy_library(monkeypatch):
    """Noise of the kinds DSPy, MLflow and transformers make, emitted while the command judges."""
    import tribunal.eval.mt.items as job
    from tqdm import tqdm

    logger = logging.getLogger("dspy.clients.model_metadata.planted")
    handler = _StderrNow()
    logger.addHandler(handler)
    logger.propagate = False
    real = job.select_items

    def noisy(*args, **kwargs):
        print("Going to sample between 1 and 4 traces per predictor.")
        logger.warning("Model metadata refresh failed (URLError); using bundled snapshot.")
        for _ in tqdm(range(3), desc="Loading weights"):
            pass
        return real(*args, **kwargs)

    monkeypatch.setattr(job, "select_items", noisy)
    yield
    logger.removeHandler(handler)


@pytest.mark.parametrize("verbose", [False, True])
def test_library_noise_is_silenced_and_verbose_sends_it_to_stderr(verbose, tmp_path, capsys, wmt23_root,
                                                                   noisy_library, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-unused")
    with loopback_server(synthetic_judge) as (api_base, _state):
        args = evaluate_args(wmt23_root, api_base, tmp_path / "out", "--no-track", "--no-cache")
        outcome = run_cli(capsys, *args, *(["--verbose"] if verbose else []))  # --verbose last: anywhere works
    assert outcome.status == 0, outcome.err
    only_tribunal_lines(outcome.out, EVALUATE_LINES)  # stdout is tribunal's either way
    noise = ("Going to sample between", "Model metadata refresh failed", "Loading weights")
    if verbose:
        assert all(n in outcome.err for n in noise), outcome.err
    else:
        assert outcome.err == ""
    assert logging.root.manager.disable == logging.NOTSET and sys.stdout is not None  # all put back


def test_optimize_and_export_print_only_their_own_lines(tmp_path, capsys, monkeypatch):
    """MIPROv2's INFO log and DSPy's Average Metric lines stay out; with --verbose they are emitted."""
    monkeypatch.chdir(tmp_path)
    use_engine(monkeypatch, "tests.optimizers.toy_task:engine")
    records: list[str] = []
    collector = logging.Handler()
    collector.emit = lambda record: records.append(record.getMessage())  # type: ignore[method-assign]
    dspy_logger = logging.getLogger("dspy")
    dspy_logger.addHandler(collector)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    args = ["optimize", "--program", "equiv-llm", "--optimizer", "mipro", "--budget", "2", "--train", "suite:0-40",
            "--dev", "suite:40-60", "--lm", "openai/task", "--threads", "2", "--out", tmp_path / "tuned.json",
            "--tracking-uri", uri]
    try:
        quiet = run_cli(capsys, *args)
        assert quiet.status == 0, quiet.err
        assert quiet.err == "" and not [r for r in records if "Average Metric" in r or "STEP 1" in r]
        lines = quiet.out.splitlines()
        assert len(lines) == 10, quiet.out  # scores, intervals, unscored rule, calls, wall time, files, model, run
        assert re.fullmatch(r"dev score: untuned \d\.\d{4} -> tuned \d\.\d{4} \(\d+ unscored of 20\); \d+ trial\(s\)",
                            lines[0])
        for which, text in zip(("untuned", "tuned"), lines[1:3]):
            assert re.fullmatch(rf"dev {which}: objective item \d\.\d{{4}} \[\d\.\d{{4}}, \d\.\d{{4}}\]; item metric "
                                r"\d\.\d{4} \[\d\.\d{4}, \d\.\d{4}\]  \(95% bootstrap intervals\); "
                                r"\d+ scored, \d+ unscored, \d+ degraded of 20", text), text
        assert lines[3].startswith("unscored dev items: item:") and lines[4].startswith("LM calls: ")
        assert re.fullmatch(r"wall time: \d+\.\d s", lines[5])
        lines = lines[:1] + lines[6:]
        assert lines[1] == f"program: {tmp_path / 'tuned.json'}  (summary: {tmp_path / 'summary.json'})"
        assert lines[2].startswith("signature: prog:equiv-llm|")
        assert lines[3].startswith("model: models:/tribunal-equiv-llm/1  (mlflow.pyfunc.load_model;")
        run_id = re.fullmatch(r"run: ([0-9a-f]{32})  \(export again with `tribunal export \1 --out FILE`\)",
                              lines[4]).group(1)
        loud = run_cli(capsys, "--verbose", *args[:-4], "--out", tmp_path / "loud.json", "--no-track")
        assert loud.status == 0 and len(loud.out.splitlines()) == 8  # no model or run line without tracking
        assert any("Average Metric" in r for r in records) and any("STEP 1" in r for r in records)
    finally:
        dspy_logger.removeHandler(collector)

    exported = run_cli(capsys, "export", run_id, "--out", tmp_path / "exported.json", "--tracking-uri", uri)
    assert exported.status == 0 and exported.err == ""  # no "Downloading artifacts" bar
    assert re.fullmatch(rf"equiv-llm \(optimizer mipro, dev score \d\.\d{{4}}\) -> {re.escape(str(tmp_path))}/exported.json\n",
                        exported.out)
    for name in ("tuned.json", "exported.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~_umask(), name
