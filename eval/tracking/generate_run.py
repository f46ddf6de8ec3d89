"""``tribunal equiv generate`` as an MLflow run: the source suite as input, kept / rejected counts per
kind, the kept pairs and the rejections as artifacts, the generator's prompt, a trace per attempt."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.traces import SpanNode, TraceWriter, call_node
from tribunal.eval.tracking.prompts import PromptRegistry
from tribunal.eval.tracking.run_names import join_name, short_lm
from tribunal.eval.tracking.run_signatures import EquivGenerateSignature


def run_generation(suite: Any, lm: Any, lm_name: str, tracking: TrackingSettings, out: Path,
                   temperature: float, attempts: int, trace_sample: float | None = None,
                   progress: Any = None, cap: Any = None) -> tuple[Any, str | None]:
    """Generate, write ``out`` and log the run (opened before the LM is called); ``(result, run_id)``.

    ``progress(done, total)`` follows the (original, kind) perturbations. When ``cap`` stops the generation,
    ``out`` is not written (a partial suite is not a suite); the run logs what was left and the cap.
    """
    from tribunal.eval.equiv.checks import check_perturbation  # heavy: pulls in sklearn, pandas
    from tribunal.eval.equiv.generate_job import generate_pairs, write_pairs  # heavy: pulls in sklearn, pandas
    from tribunal.eval.tracking.equiv_run import log_suite  # heavy: pulls in pandas, pyarrow
    from tribunal.programs.equiv_perturb import PerturbationGenerator  # heavy: pulls in dspy

    sig = str(EquivGenerateSignature(lm=lm_name, temp=temperature, attempts=attempts,
                                     data=f"{suite.name}@{suite.hash}"))
    params = {"suite": suite.name, "suite_hash": suite.hash, "lm": lm_name, "temperature": temperature,
              "attempts": attempts, "out": str(out)}
    name = join_name("equiv generate", short_lm(lm_name), f"{suite.name} t={temperature}")
    with tracked_run(tracking, name, params, {"tribunal.command": "equiv generate"}, sig) as run:
        log_suite(run, suite, context="source")
        PromptRegistry(run).signatures(PerturbationGenerator(check=check_perturbation))
        result = generate_pairs(suite, lm, temperature=temperature, attempts=attempts, progress=progress, cap=cap)
        if result.stopped_by:
            run.set_tags({"tribunal.stopped_by": result.stopped_by})
            run.log_metrics({"left": result.left, "cap.spent_usd": cap.spent, "cap.calls_sent": float(cap.sent)})
            return result, run.run_id
        write_pairs(result.kept, out)
        kept, rejected = Counter(p.kind for p in result.kept), Counter(r["kind"] for r in result.rejected)
        run.log_metrics({"kept": len(result.kept), "rejected": len(result.rejected),
                         **{f"kept/{k}": v for k, v in kept.items()}, **{f"rejected/{k}": v for k, v in rejected.items()}})
        run.log_artifact(out, "generated")
        run.log_text(json.dumps(result.rejected, indent=1, ensure_ascii=False), "rejected.json")
        writer = TraceWriter(run, trace_sample)
        for attempt in result.traces:
            children = [call_node(c, f"attempt {i}") for i, c in enumerate(attempt["calls"], 1)]
            root = SpanNode(f"perturb: {attempt['kind']}", attempt["start"], attempt["end"], "AGENT",
                            {"original": attempt["original"], "kind": attempt["kind"]},
                            {"kept": attempt["kept"], "problems": attempt["problems"]}, {"tribunal.kind": attempt["kind"]},
                            None if attempt["kept"] else "rejected: " + "; ".join(attempt["problems"])[:500], children)
            writer.write(root, f"{attempt['original']}/{attempt['kind']}", {"tribunal.kept": str(attempt["kept"])})
        run.log_metrics({f"tracking.{k}": v for k, v in writer.close().items()})
    return result, run.run_id
