"""``--rpm``: how a run's requests are spread against a fast peer, on both judging paths.

GEMBA-MQM (one call an item) over rated zh-en items of WMT23 at ``--concurrency 16``, through the
command line itself (``tribunal mt evaluate --no-track``, DSPy's cache off), against the loopback
server of the tests (``tests/support/loopback.py``, 50 ms a call), unpaced and at ``--rpm RPM``.
Reported per run: the requests, the wall time, the time from the first request's arrival to the
last's, how many arrived within the first second (the burst: about a second's worth of the rate,
then the rate), and the most in flight at once.

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_rate_pacing.py --items 40 --rpm 600
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.support.dspy_cache import dspy_cache_off  # noqa: E402
from tests.support.loopback import loopback_server  # noqa: E402
from tests.support.mqm_fakes import synthetic_judge  # noqa: E402
from tribunal.cli import main  # noqa: E402


def run(items: int, judging: str, rpm: float | None, data: Path) -> str:
    """One run's figures, one line."""
    extra = ["--rpm", f"{rpm:g}"] if rpm else []
    with tempfile.TemporaryDirectory() as out, loopback_server(synthetic_judge, latency=0.05) as (api_base, state), \
            dspy_cache_off():
        started = time.monotonic()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            with contextlib.suppress(SystemExit):
                main(["mt", "evaluate", "--lp", "zh-en", "--lm", "openai/judge", "--data", str(data), "--api-base",
                      api_base, "--limit", str(items), "--rated-only", "--program", "gemba-mqm",
                      "--concurrency", "16", "--judging", judging, "--out", out, "--no-track", *extra])
        wall = time.monotonic() - started
    arrivals = sorted(arrived for arrived, _ in state.intervals)
    burst = sum(1 for a in arrivals if a - arrivals[0] < 1.0)
    return (f"{judging:7}  {' '.join(extra) or 'unpaced':10}  requests {len(arrivals)}  wall {wall:5.2f} s  "
            f"first to last request {arrivals[-1] - arrivals[0]:5.2f} s  within the first second {burst}  "
            f"most in flight {state.peak}")


def main_cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--rpm", type=float, default=600)
    args = parser.parse_args()
    data = Path(os.environ["TRIBUNAL_DATA"]) / "wmt23"
    for judging in ("threads", "async"):
        for rpm in (None, args.rpm):
            print(run(args.items, judging, rpm, data), flush=True)


if __name__ == "__main__":
    main_cli()
