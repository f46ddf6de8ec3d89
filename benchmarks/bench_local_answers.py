"""What a real small model's answers look like to each MT program: calls, re-asks by kind, items unscored.

Runs every MT program through the job API that ``tribunal mt evaluate`` runs (``run_evaluation``) on the
same rated WMT23 items, with ``--lm local`` (SmolLM2-135M-Instruct, Q4_1, behind llama.cpp's server on
loopback; the ``local`` extra), the response cache off and answers bounded by ``--max-tokens``. A 135M
model's scores say nothing about quality; what this measures is whether its answers can be read.

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_local_answers.py --items 3
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

PROGRAMS = ("gemba-mqm", "eaprompt", "gemba-esa", "mqm-ape", "mmad")


def measure(program: str, args, folder: Path) -> None:
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.programs.mqm.mmad import MMADConfig
    from tribunal.eval.mt.job import run_evaluation
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.programs.lm import LMSettings

    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    lm = LMSettings(model="local", max_tokens=args.max_tokens, timeout=1800, cache=False)
    extra = {"mmad": MMADConfig.model_validate({"preset": "lean", "rounds": 1}), "demos": 0} if program == "mmad" else {}
    config = EvaluateConfig(data=data / "wmt23", lp=args.lp, program=program, lm=lm, limit=args.items,
                            rated_only=True, concurrency=1, demo_data=data / "mqm-ted", out=folder / program, **extra)
    started = time.perf_counter()
    s = run_evaluation(config, TrackingSettings(enabled=False)).summary
    seconds = time.perf_counter() - started
    calls, reasks = s["lm_calls_paid"], s.get("lm_reasks", 0)
    first = calls - reasks
    print(f"{program:10} items {s['items']:2}  calls {calls:3} (first asks {first}, re-asks {reasks}: "
          f"{s.get('lm_reasks_by_kind') or {}})  re-asked share {reasks / max(first, 1):.0%}  "
          f"scored {s['scored']}  unscored {s['unscored']} {s['unscored_reasons'] or ''}  {seconds:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=3)
    parser.add_argument("--lp", default="zh-en")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--program", action="append", choices=PROGRAMS, help="repeatable (default: all)")
    args = parser.parse_args()
    from tribunal.programs.local_models import missing_local_extra

    if reason := missing_local_extra():
        sys.exit(f"bench_local_answers: {reason}")
    print(f"--lm local (SmolLM2-135M-Instruct), {args.items} rated {args.lp} items per program, "
          f"--max-tokens {args.max_tokens}, M-MAD lean preset, 1 round, no demos")
    with tempfile.TemporaryDirectory() as out:
        for program in args.program or PROGRAMS:
            measure(program, args, Path(out))


if __name__ == "__main__":
    main()
