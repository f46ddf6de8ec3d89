#!/usr/bin/env python3
"""Replay bad inputs and faults against the installed ``tribunal`` and fail on any traceback.

Each case is a command a user could type with something wrong in it. The replay checks that it
ends with its documented exit status and one ``tribunal: error: ...`` line on stderr (holding the
expected words), that no traceback and no credential from the environment is printed. Cases that
need a read-only or full disk mount a small tmpfs; where mounting is not permitted they are
skipped and said so.

    python tests/tribunal/replay_bad_inputs.py [--tribunal PATH] [--jobs N] [--data DIR]

Exit status 0 when every case behaves, 1 otherwise. CI runs it through
``tests/tribunal/test_bad_input_replay.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

SECRET_ENV, SECRET = "REPLAY_API_KEY", "sk-replay-0123456789abcdefghij"


@dataclass(frozen=True)
class Case:
    command: str  # shell words; {tmp}, {tiny}, {bad}, {ro}, {full} ... are filled in
    status: int
    expect: str  # words the one error line must hold
    needs: str = ""  # "ro" or "full": a mount this case needs


CASES = [
    # usage
    Case("mt meta-eval --bogus", 2, "No such option: --bogus"),
    Case("optimize --program equiv-llm --optimizer labeled --train suite:0-4 --dev suite:4-8 --lm openai/x "
         "--threads 0 --no-track", 2, "--threads"),
    Case("mt compare COMET BLEU --data {tiny} --samples 0 --no-track", 2, "--samples"),
    # options that cannot apply together
    Case("mt evaluate --lp zh-en --lm openai/x --program gemba-mqm --strategy deliberation --no-track", 2,
         "--strategy: an M-MAD setting, but the program is gemba-mqm"),
    Case("hyp run --lm openai/x --judge-lm openai/y --no-engagement --no-track", 2,
         "--judge-lm: the engagement judge does not run with --no-engagement"),
    Case("equiv audit --rules embedding --embedding-target-rate 0.4 --no-track", 2,
         "--embedding-target-rate: only used with --embedding-threshold auto"),
    # data
    Case("mt meta-eval --data {tmp}/nowhere --no-track", 2, "not a folder in the mt-metrics-eval layout"),
    Case("mt meta-eval --data {bad} --no-track", 2, "M-refA.seg.score:5: score 'zero point four'"),
    Case("data check --data {bad}", 2, "M-refA.seg.score:5"),
    Case("mt meta-eval --data {tiny} --lp xx-yy --no-track", 2, "no language pair xx-yy"),
    Case("mt compare M NOPE --data {tiny} --no-track", 2, "no scores for metric 'NOPE'"),
    Case("data fetch wmt99", 2, "unknown test set 'wmt99'"),
    # outputs
    Case("mt meta-eval --data {tiny} --output {folder} --no-track", 2, "is a folder; name a file"),
    Case("mt meta-eval --data {tiny} --output {ro}/table.tsv --no-track", 2, "Read-only file system", "ro"),
    Case("mt meta-eval --data {tiny} --output {full}/table.tsv --no-track", 2, "No space left on device", "full"),
    Case("mt evaluate --data {tiny} --lp en-de --lm openai/x --demos 0 --out {ro}/mt --no-track", 2,
         "Read-only file system", "ro"),
    Case("equiv audit --rules tfidf --out {ro}/audit --no-track", 2, "Read-only file system", "ro"),
    Case("export 0123abcd --out {folder}", 2, "is a folder; name a file"),
    Case("export 0123abcd --out {ro}/p.json", 2, "Read-only file system", "ro"),
    Case("optimize --program equiv-llm --optimizer labeled --train suite:0-4 --dev suite:4-8 --lm openai/x "
         "--out {ro}/p.json --no-track", 2, "Read-only file system", "ro"),
    # tracking
    Case("runs list --tracking-uri bogus://x", 2, "unsupported URI scheme"),
    Case("mt meta-eval --data {tiny} --tracking-uri bogus://x", 2, "unsupported URI scheme"),
    Case("mt evaluate --data {tiny} --lp en-de --lm openai/x --demos 0 --out {tmp}/mt-uri --tracking-uri bogus://x",
         2, "unsupported URI scheme"),
    # configuration
    Case("mt evaluate --lp zh-en --lm openai/x --config {list_json} --no-track", 2, "holds one object of settings"),
    Case("mt evaluate --lp zh-en --lm openai/x --config {broken_toml} --no-track", 2, "not valid TOML"),
    Case("mt evaluate --data {tiny} --lp en-de --lm openai/x --concurrency 0 --no-track", 2, "concurrency"),
    Case("mt evaluate --data {tiny} --lp en-de --lm openai/x --name ../../escape --no-track", 2, "name:"),
    Case("mt evaluate --data {tiny} --lp en-de --lm openai/x --config {secret_name} --no-track", 2,
         "holds a credential from the environment"),
    Case("mt evaluate --data {tiny} --lp en-de --lm openai/x --demos 0 --out {busy} --no-track", 4, "busy"),
    Case("optimize --program equiv-llm --optimizer labeled --train suite:0-4 --dev suite:4-8 --lm openai/x "
         "--set {secret} --no-track", 2, "expected KEY=VALUE"),
    Case("optimize --program nope --optimizer labeled --train suite:0-4 --dev suite:4-8 --lm openai/x --no-track",
         2, "unknown program 'nope'"),
    Case("optimize --program mmad --optimizer labeled --train wmt23:en-de:0-5 --dev suite:0-4 --lm openai/x "
         "--no-track", 2, "WMT23 is test data only"),
    # exported programs
    Case("equiv audit --rules llm --lm openai/x --program {no_state} --no-track", 2, "not a complete tribunal export"),
    Case("equiv audit --rules llm --lm openai/x --program {pickle} --no-track", 2, "a pickle"),
    # equivalence and hypothesis runs
    Case("equiv audit --rules bogus --no-track", 2, "bogus"),
    Case("equiv audit --suite {tmp}/missing.jsonl --no-track", 2, "no such suite file"),
    Case("hyp run --lm openai/x --depths a,b --no-track", 2, "--depths"),
    Case("hyp divergence {hyp_run} --rules tfidf --no-track", 2, "not a stored run"),
]


def _seal(document: dict) -> str:
    body = {k: v for k, v in document.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _tiny_mtme(root: Path) -> Path:
    """3 segments, systems A, B, C and the reference refA, one metric M-refA (as tests/conftest.py)."""
    _write(root / "sources" / "en-de.txt", "s1\ns2\ns3\n")
    _write(root / "references" / "en-de.refA.txt", "r1\nr2\nr3\n")
    for system in ("A", "B", "C", "refA"):
        _write(root / "system-outputs" / "en-de" / f"{system}.txt", f"{system}1\n{system}2\n{system}3\n")
    _write(root / "documents" / "en-de.docs", "news\td1\nnews\td1\nnews\td2\n")
    gold = {"A": [-1, -5, None], "B": [0, -2, -1], "C": [-3, -1, 0], "refA": [0, 0, 0]}
    _write(root / "human-scores" / "en-de.mqm.seg.score", "".join(f"{s}\t{v}\n" for s, vs in gold.items() for v in vs))
    _write(root / "human-scores" / "en-de.mqm.sys.score", "A\t-3.0\nB\t-1.0\nC\t-1.3333\nrefA\t0\n")
    _write(root / "human-scores" / "en-de.mqm.domain.score", "news\tA\t-3.0\nnews\tB\t-1.0\nnews\tC\t-1.3333\n")
    metric = {"A": [0.2, 0.1, 0.5], "B": [0.9, 0.4, 0.6], "C": [0.1, 0.8, 0.7]}
    _write(root / "metric-scores" / "en-de" / "M-refA.seg.score",
           "".join(f"{s}\t{v}\n" for s, vs in metric.items() for v in vs))
    _write(root / "metric-scores" / "en-de" / "M-refA.sys.score", "A\t0.27\nB\t0.63\nC\t0.53\n")
    return root


def build_fixtures(tmp: Path) -> dict[str, str]:
    """The files and folders the cases point at."""
    tiny = _tiny_mtme(tmp / "tiny")
    bad = Path(shutil.copytree(tiny, tmp / "bad"))
    seg = bad / "metric-scores" / "en-de" / "M-refA.seg.score"
    seg.write_text(seg.read_text().replace("0.4", "zero point four"))
    (tmp / "folder").mkdir()
    no_state = {"format": "tribunal.program/1", "metadata": {},
                "program": {"name": "equiv-llm", "config": {}, "identity": "0" * 64, "structure": {}}}
    no_state["sha256"] = _seal(no_state)
    hyp_run = tmp / "hyp-run"
    _write(hyp_run / "runs" / "d0-r0.json", '{"run_id": "d0-r0", "depth": 0, "rer')
    paths = {
        "tmp": tmp, "tiny": tiny, "bad": bad, "folder": tmp / "folder", "busy": tmp / "busy",
        "list_json": _write(tmp / "list.json", "[1, 2]"),
        "broken_toml": _write(tmp / "broken.toml", "lp = \n"),
        "secret_name": _write(tmp / "secret-name.toml", f'name = "M-{SECRET}"\n'),
        "no_state": _write(tmp / "no-state.json", json.dumps(no_state)),
        "pickle": tmp / "pickled.json", "hyp_run": hyp_run, "secret": SECRET,
    }
    (tmp / "pickled.json").write_bytes(b"\x80\x04\x95\x00\x00")
    return {k: str(v) for k, v in paths.items()}


def _mount(folder: Path, options: str) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    try:
        return subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
                              capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):  # no mount command, or no permission to use it
        return False


@contextlib.contextmanager
def mounts(tmp: Path):
    """``{"ro": folder, "full": folder}`` for the mounts this machine allows."""
    made: dict[str, str] = {}
    try:
        if _mount(tmp / "ro", "size=1m,ro"):
            made["ro"] = str(tmp / "ro")
        if _mount(tmp / "full", "size=64k"):
            with contextlib.suppress(OSError), open(tmp / "full" / ".filler", "wb") as handle:
                handle.write(b"\0" * (1 << 20))
            made["full"] = str(tmp / "full")
        yield made
    finally:
        for folder in made.values():
            subprocess.run(["umount", "-l", folder], capture_output=True, timeout=30)


@contextlib.contextmanager
def busy_folder(folder: Path):
    """Hold the advisory lock of a tribunal output folder, as a running tribunal would."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".tribunal.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        yield


def check(case: Case, argv: list[str], tribunal: str, env: dict, cwd: Path) -> tuple[bool, str, float]:
    """Run one case; ``(ok, what happened, seconds)``."""
    started = time.perf_counter()
    done = subprocess.run([tribunal, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - started
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    problems = []
    if "Traceback" in done.stderr or "Traceback" in done.stdout:
        problems.append("a traceback")
    if done.returncode != case.status:
        problems.append(f"exit status {done.returncode}, expected {case.status}")
    if len(lines) != 1 or not lines[0].startswith("tribunal: error: "):
        problems.append(f"{len(lines)} stderr lines, expected one 'tribunal: error:' line")
    elif case.expect not in lines[0]:
        problems.append(f"the error does not say {case.expect!r}")
    if SECRET in done.stderr or SECRET in done.stdout:
        problems.append("the credential was printed")
    shown = lines[-1] if lines else (done.stderr.strip()[-300:] or "(no stderr)")
    if problems:
        shown = "; ".join(problems) + " | " + (done.stderr.strip()[-1500:] or "(no stderr)")
    return not problems, shown, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tribunal", default=shutil.which("tribunal") or str(Path(sys.executable).parent / "tribunal"))
    parser.add_argument("--jobs", type=int, default=2)
    options = parser.parse_args()
    tribunal = str(Path(options.tribunal).resolve()) if os.sep in options.tribunal else options.tribunal
    env = {**os.environ, SECRET_ENV: SECRET, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    failures = 0
    with tempfile.TemporaryDirectory(prefix="tribunal-replay-") as folder:
        tmp = Path(folder)
        fixtures = build_fixtures(tmp)
        with mounts(tmp) as mounted, busy_folder(tmp / "busy"):
            runnable = [c for c in CASES if not c.needs or c.needs in mounted]
            skipped = [c for c in CASES if c.needs and c.needs not in mounted]
            values = {**fixtures, **mounted}
            argvs = [[word.format(**values) for word in shlex.split(c.command)] for c in runnable]
            work = tmp / "cwd"
            work.mkdir()
            with ThreadPoolExecutor(max(1, options.jobs)) as pool:
                results = list(pool.map(lambda pair: check(*pair, tribunal, env, work), zip(runnable, argvs)))
        for case, (ok, shown, seconds) in zip(runnable, results):
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {case.status} {seconds:5.1f}s  tribunal {case.command}\n"
                  f"{'':13}{shown}")
        for case in skipped:
            print(f"skip   (no {case.needs} mount here)  tribunal {case.command}")
    print(f"{len(runnable) - failures} of {len(runnable)} bad inputs handled cleanly"
          f"{f', {len(skipped)} skipped' if skipped else ''}; {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
