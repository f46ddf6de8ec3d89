"""M-MAD against a peer that gives unusable answers now and then: items lost, calls paid, and what a rerun recovers.

A loopback server answers with the deterministic synthetic judge; a share of its answers (default 10%) is
unusable: a refusal, JSON with the wrong keys, or an answer cut at ``finish_reason: "length"``
(``tests/support/unusable.py``; no transport fault). For each language pair and seed the same items are
judged three times through the job API that ``tribunal mt evaluate`` runs (``run_evaluation``):

1. with clean answers (DSPy's cache off): the calls a run needs;
2. against the unusable peer, with DSPy's cache on in a folder of the benchmark's own: items unscored after
   the re-asks, and calls relative to the clean run;
3. the same command again with ``--retry-unscored`` (same journal, same cache): items still unscored.

``--cuts random`` cuts answers at random whatever the token limit (a raised limit does not help);
``--faults mixed`` draws 429s, 500s and timeouts as well as the unusable answers (the client's retries,
``num_retries`` 3 and a 2 s timeout, then handle the transport faults). ``--peer http`` draws the faults
through the tests' HTTP-level injection instead (the loopback server's ``fault`` hook: a seeded draw per
hit in arrival order, whatever the request, cut answers cut whatever the limit). Each run reports the items scored,
degraded (a role's fallback stood in, :mod:`tribunal.programs.fallbacks`) and unscored.

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_unusable_answers.py --items 60 --lp zh-en
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def judge(config, api_base: str, state) -> tuple[dict, int]:
    """The run's summary and the server hits it made (the endpoint is part of the journal's and the cache's keys:
    a rerun must use the same server)."""
    from tribunal.eval.mt.job import run_evaluation
    from tribunal.eval.tracking.mlflow_run import TrackingSettings

    before = len(state.hits)
    config = config.model_copy(update={"lm": config.lm.model_copy(update={"api_base": api_base})})
    result = run_evaluation(config, TrackingSettings(enabled=False))
    return result.summary, len(state.hits) - before


def measure(args, lp: str, seed: int, folder: Path) -> None:
    from tests.support.dspy_cache import private_dspy_cache
    from tests.support.loopback import loopback_server
    from tests.support.mqm_fakes import synthetic_judge
    from tests.support.unusable import unusable_answers
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.programs.lm import LMSettings

    data = Path(os.environ.get("TRIBUNAL_DATA", REPO.parent / "shared" / "data"))
    mixed = args.faults == "mixed"
    lm = LMSettings(model="openai/bench-judge", api_base="http://unused", max_tokens=1024,
                    timeout=2 if mixed else 30, num_retries=3 if mixed else 0,
                    cache=False, **({"reasks": args.reasks} if args.reasks is not None else {}))
    config = EvaluateConfig(data=data / "wmt23", lp=lp, lm=lm, limit=args.items, concurrency=8,
                            demo_data=data / "mqm-ted", out=folder / f"clean-{lp}-{seed}")
    with loopback_server(synthetic_judge) as (api_base, state):
        clean, clean_hits = judge(config, api_base, state)
    from tests.support.unusable import MIXED, UNUSABLE, random_faults

    kinds_drawn = MIXED if mixed else UNUSABLE
    if args.peer == "http":  # the tests' HTTP-level injection: a seeded draw per hit, whatever the request
        peer = random_faults(args.rate, seed, kinds_drawn)
        hooks = {"fault": peer}
    else:
        peer = unusable_answers(args.rate, seed, long_answer=None if args.cuts == "random" else 2048,
                                kinds_drawn=kinds_drawn)
        hooks = {"bad_answer": peer}
    cached = config.model_copy(update={"out": folder / f"unusable-{lp}-{seed}-{args.peer}",
                                       "lm": config.lm.model_copy(update={"cache": True})})
    with private_dspy_cache(folder / f"cache-{lp}-{seed}-{args.peer}"), \
            loopback_server(synthetic_judge, hang=3.0, **hooks) as (api_base, state):
        first, first_hits = judge(cached, api_base, state)
        unusable = sum(peer.kinds.values())
        retried, retry_hits = judge(cached.model_copy(update={"retry_unscored": True}), api_base, state)
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(peer.kinds.items()))
    print(f"--- M-MAD ({config.settings.preset} preset), {first['items']} {lp} items, seed {seed}, "
          f"{args.rate:.0%} {'mixed faults' if mixed else 'unusable answers'} (peer: {args.peer}, "
          f"cuts: {'random' if args.peer == 'http' else args.cuts}), "
          f"--reasks {config.lm.reasks}")
    print(f"clean run: {clean_hits} LM calls (server hits), unscored {clean['unscored']}")
    print(f"first run: unusable answers {unusable} of {first_hits} ({unusable / first_hits:.1%}); re-asks "
          f"{first['lm_reasks']} {first['lm_reasks_by_kind']}; scored {first['scored']}, of which "
          f"{first['degraded']} degraded {first['degraded_by_role'] or ''}; unscored {first['unscored']} "
          f"{first['unscored_reasons'] or ''}")
    second = first.get("second_pass") or {}
    print(f"first run: second pass {second.get('recovered', 0)} of {second.get('items', 0)} items recovered"
          + (f" (skipped: {second['skipped']})" if second.get("skipped") else ""))
    print(f"first run: LM calls {first_hits} = {first_hits / clean_hits:.3f}x the clean run")
    print(f"--retry-unscored rerun: {retry_hits} server hits for {first['unscored']} items "
          f"({sum(peer.kinds.values()) - unusable} unusable); degraded {retried['degraded']}, "
          f"unscored {retried['unscored']} "
          f"{retried['unscored_reasons'] or ''}; peer's unusable answers in all: {kinds}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--lp", action="append", help="language pair (repeatable; default zh-en)")
    parser.add_argument("--seed", type=int, action="append", help="peer seed (repeatable; default 0)")
    parser.add_argument("--rate", type=float, default=0.1)
    parser.add_argument("--reasks", type=int, default=None, help="re-asks per unusable answer (default: tribunal's)")
    parser.add_argument("--cuts", choices=("long", "random"), default="long",
                        help="long: only answers longer than 2048 tokens are cut; random: cut whatever the limit")
    parser.add_argument("--faults", choices=("unusable", "mixed"), default="unusable",
                        help="mixed: 429, 500 and timeouts drawn beside the unusable answers")
    parser.add_argument("--peer", choices=("own", "http"), default="own",
                        help="own: faults drawn per request body (tests/support/unusable.py unusable_answers); http: "
                             "the tests' HTTP-level injection, a seeded draw per hit in arrival order (random_faults)")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "loopback-peer-takes-any-key")
    with tempfile.TemporaryDirectory() as out:
        for lp in args.lp or ["zh-en"]:
            for seed in args.seed or [0]:
                measure(args, lp, seed, Path(out))


if __name__ == "__main__":
    main()
