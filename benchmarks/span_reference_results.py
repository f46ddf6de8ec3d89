"""The authors' span measures on a generated corpus: the fixture of the parity test, and the side-by-side table.

How the expected results were produced (``tests/eval/meta/spans/span_reference_results.json``):

1. The reference is the authors' implementation of arXiv 2603.19921, sted19/span-mt-metrics-eval at
   commit b55b90f8d466f1c44907a8b3629566d21bedee3e, extracted and installed in a venv of its own::

       mkdir -p /tmp/spanref && git --git-dir=<mirror of sted19/span-mt-metrics-eval> \\
           archive b55b90f8d466f1c44907a8b3629566d21bedee3e | tar -x -C /tmp/spanref
       python3 -m venv /tmp/spanref-venv && /tmp/spanref-venv/bin/pip install /tmp/spanref

2. The corpus is ``span_corpus.generate_corpus(seed=41, systems=3, segments=24, side_cap=6)``
   (``tests/eval/meta/spans/span_corpus.py``), stored in the fixture beside the results.
3. For each of the 54 option sets of ``span_corpus.option_sets()`` (and the 12 of ``EXTRA_OPTION_SETS``)
   the reference venv's python runs, in a child process, ``span_mt_metrics_eval.compute(predictions,
   references, measure=..., matching=..., matching_algorithm=..., averaging=..., severity_penalty=...,
   severity_weights=...)`` with ``predictions`` / ``references`` the corpus's per-segment span dicts
   (``start``, ``end``, ``side``, ``severity``) and the arguments of ``span_corpus.reference_arguments``;
   its ``precision``, ``recall`` and ``f_score`` are written to the fixture::

       python benchmarks/span_reference_results.py --reference-python /tmp/spanref-venv/bin/python --write-fixture

With ``--compare`` (and, e.g., ``--seed 4141 --segments 60 --side-cap 7`` for a second, bigger corpus)
it also computes tribunal's figures through ``tribunal mt span-eval``'s job (``run_span_eval`` on JSONL
files, ``--side both``) and prints a markdown table of every option set: tribunal's P / R / F, the
reference's and the largest absolute difference. No reference code is vendored or imported here: it
only runs in its own interpreter.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.*: the corpus generator the parity test shares

from tests.eval.meta.spans.span_corpus import (EXTRA_OPTION_SETS, generate_corpus, option_sets,  # noqa: E402
                                               reference_arguments)

FIXTURE = ROOT / "tests" / "eval" / "meta" / "spans" / "span_reference_results.json"
REFERENCE_COMMIT = "b55b90f8d466f1c44907a8b3629566d21bedee3e"

# Runs in the reference's interpreter: reads {"corpus", "calls"} on stdin, prints one [P, R, F] per call.
DRIVER = """
import json, sys
from span_mt_metrics_eval import compute
job = json.load(sys.stdin)
spans = lambda key: [[{k: s[k] for k in ("start", "end", "side", "severity")} for s in seg[key]] for seg in job["corpus"]]
pred, gold = spans("predicted"), spans("gold")
out = []
for kwargs in job["calls"]:
    r = compute(pred, gold, **kwargs)
    out.append([r.precision, r.recall, r.f_score])
json.dump(out, sys.stdout)
"""


def reference_results(python: str, corpus: list[dict], sets: list[dict]) -> list[list[float]]:
    job = {"corpus": corpus, "calls": [reference_arguments(o) for o in sets]}
    done = subprocess.run([python, "-c", DRIVER], input=json.dumps(job), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the reference failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def tribunal_results(corpus: list[dict], sets: list[dict]) -> list[list[float]]:
    """tribunal's P, R, F of each option set, through the span-eval job on JSONL files (side both)."""
    from tribunal.eval.meta.spans.job import SpanEvalRequest, run_span_eval  # startup: only with --compare
    from tribunal.eval.meta.spans.options import SpanOptions  # startup: only with --compare

    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for key in ("predicted", "gold"):
            paths[key] = Path(folder) / f"{key}.jsonl"
            paths[key].write_text("".join(json.dumps({"id": s["id"], "spans": s[key]}) + "\n" for s in corpus))
        out = []
        for o in sets:
            options = SpanOptions(side="both", **{k: v for k, v in o.items() if k != "name"})
            r = run_span_eval(SpanEvalRequest([paths["predicted"]], [paths["gold"]], options))
            out.append([r["precision"], r["recall"], r["f"]])
    return out


def table(sets: list[dict], ours: list[list[float]], theirs: list[list[float]]) -> str:
    lines = ["| # | option set | tribunal P / R / F | reference P / R / F | max abs diff |", "|---|---|---|---|---|"]
    for k, (o, a, b) in enumerate(zip(sets, ours, theirs), 1):
        diff = max(abs(x - y) for x, y in zip(a, b))
        lines.append(f"| {k} | {o['name']} | {' / '.join(f'{x:.6f}' for x in a)} | "
                     f"{' / '.join(f'{x:.6f}' for x in b)} | {diff:.1e} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference-python", required=True, help="python of the venv the reference is installed in")
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--systems", type=int, default=3)
    parser.add_argument("--segments", type=int, default=24, help="segments per system")
    parser.add_argument("--side-cap", type=int, default=6, help="most spans on one side of a segment")
    parser.add_argument("--write-fixture", action="store_true", help=f"write {FIXTURE.relative_to(ROOT)}")
    parser.add_argument("--compare", action="store_true", help="print tribunal vs the reference per option set")
    args = parser.parse_args()
    corpus = generate_corpus(args.seed, args.systems, args.segments, args.side_cap)
    sets = option_sets() + EXTRA_OPTION_SETS
    theirs = reference_results(args.reference_python, corpus, sets)
    if args.write_fixture:
        fixture = {"reference": f"sted19/span-mt-metrics-eval@{REFERENCE_COMMIT}",
                   "corpus_call": {"seed": args.seed, "systems": args.systems, "segments": args.segments,
                                   "side_cap": args.side_cap},
                   "corpus": corpus,
                   "results": [{**o, "precision": p, "recall": r, "f": f} for o, (p, r, f) in zip(sets, theirs)]}
        FIXTURE.write_text(json.dumps(fixture, indent=1) + "\n")
        print(f"wrote {FIXTURE} ({len(corpus)} segments, {len(sets)} option sets)")
    if args.compare:
        ours = tribunal_results(corpus, sets)
        print(f"corpus: generate_corpus(seed={args.seed}, systems={args.systems}, segments={args.segments}, "
              f"side_cap={args.side_cap}): {len(corpus)} segments, "
              f"{sum(len(s['predicted']) for s in corpus)} predicted and {sum(len(s['gold']) for s in corpus)} gold spans")
        print(table(sets, ours, theirs))
        worst = max(max(abs(x - y) for x, y in zip(a, b)) for a, b in zip(ours, theirs))
        print(f"\n{sum(max(abs(x - y) for x, y in zip(a, b)) <= 1e-9 for a, b in zip(ours, theirs))} of {len(sets)} "
              f"option sets agree to 1e-9; largest difference {worst:.1e}")


if __name__ == "__main__":
    main()
