"""Tune on the same MLflow labels two ways: tribunal's optimizers on GEMBA-MQM, and MLflow's own alignment.

TED MQM en-de items (never WMT23) become MLflow traces, each labelled the way a reviewer labels in
the UI: human feedback ``human_mqm`` (the annotators' MQM score, their errors as its rationale) and
the expectation ``human_errors`` (their spans). Then, on the same train / dev split of those traces:

- (a) ``tribunal optimize --program gemba-mqm --train "mlflow:alignment?tags.split = 'train'" --dev
  "mlflow:alignment?tags.split = 'dev'"`` with each ``--optimizers`` entry (default: labeled and bootstrap);
- (b) an MLflow ``make_judge`` judge named ``human_mqm`` with GEMBA-MQM's instruction, aligned by
  ``judge.align(train traces)`` with its default optimizer (MemAlign: guidelines distilled by a
  reflection LM, examples retrieved by embedding).

For each: agreement with the human scores on dev before and after tuning (Pearson r, accuracy and
Cohen's kappa over the MQM bands none / minor / major, mean absolute error), LM requests (counted on
the wire by a forwarding proxy, chat and embeddings) and wall time, for tuning and for judging dev.

Without ``--lm`` both pipelines talk to a deterministic loopback peer (``alignment_peer.py``) that
ignores demos, examples and guidelines: the figures are mechanics (calls, time), not model quality.
With ``--lm openai/MODEL --api-base URL`` (an OpenAI-compatible server, e.g. llama.cpp or vLLM) they
talk to that model; MemAlign's reflection LM and embedding model default to the same endpoint's
``--lm`` and ``--embedding-model``.

Run: TRIBUNAL_DATA=/work/shared/data .venv/bin/python benchmarks/bench_alignment.py --train 40 --dev 20
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["DSPY_CACHEDIR"] = tempfile.mkdtemp(prefix="bench-alignment-cache-")  # no answer from an earlier run
EXPERIMENT, KEY_ENV = "alignment", "TRIBUNAL_BENCH_KEY"
PERSON = "TED MQM annotator"


def write_labelled_traces(items, train: int) -> None:
    """One trace per item (tag ``split``: the first ``train`` are ``train``, the rest ``dev``), labelled by a
    person: feedback ``human_mqm`` and expectation ``human_errors``."""
    import mlflow
    from mlflow.entities import AssessmentSource

    ids, start = [], time.time_ns()
    experiment = mlflow.get_experiment_by_name(EXPERIMENT).experiment_id
    for number, item in enumerate(items):  # a millisecond apart: the traces' order is the items' order
        span = mlflow.start_span_no_context(
            "translation item", span_type="CHAIN", experiment_id=experiment, start_time_ns=start + number * 1_000_000,
            inputs={"source": item.source, "source_lang": item.source_lang, "target_lang": item.target_lang},
            tags={"split": "train" if number < train else "dev"})
        span.end(outputs=item.translation, end_time_ns=start + number * 1_000_000 + 500_000)
        ids.append(span.trace_id)
    mlflow.flush_trace_async_logging()
    person = AssessmentSource("HUMAN", PERSON)
    for trace_id, item in zip(ids, items):
        said = "; ".join(f"{e['severity']} {e['category']}: {item.translation[e['start']:e['end']]!r}"
                         for e in item.gold_errors if e["start"] is not None) or "no errors"
        mlflow.log_feedback(trace_id=trace_id, name="human_mqm", value=item.gold_score, rationale=said, source=person)
        mlflow.log_expectation(trace_id=trace_id, name="human_errors", value=item.gold_errors, source=person)


def agreement(predicted: list, human: list) -> dict:
    """Pearson r, band accuracy and kappa (none / minor / major), mean absolute error, unscored count."""
    from tribunal.eval.meta.judge_human import MQM_BANDS, mqm_band
    from tribunal.eval.tracking.assessments import LabelledVerdict, categorical_agreement

    found = categorical_agreement([LabelledVerdict(None, h, p) for p, h in zip(predicted, human)], MQM_BANDS,
                                  mqm_band, scores=True)
    pairs = [(p, h) for p, h in zip(predicted, human) if p is not None]
    return {"r": found.pearson, "acc": found.accuracy, "kappa": found.kappa,
            "mae": sum(abs(p - h) for p, h in pairs) / len(pairs) if pairs else float("nan"),
            "unscored": len(predicted) - len(pairs)}


def timed(count, work):
    """``(result, requests by kind, seconds)`` of ``work()``."""
    count.take()
    started = time.perf_counter()
    result = work()
    return result, count.take(), time.perf_counter() - started


def program_scores(program, examples, lm, threads: int) -> list:
    import dspy

    def one(example):
        try:
            with dspy.context(lm=lm):
                return float(program(**example.inputs()).score)
        except Exception:  # noqa: BLE001 - an item the judge cannot score is unscored, never a guess
            return None

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, examples))


def judge_scores(judge, examples, threads: int) -> list:
    def one(example):
        value = judge(inputs={"source": example.source, "source_lang": example.source_lang,
                              "target_lang": example.target_lang}, outputs=example.translation).value
        return float(value) if isinstance(value, (int, float)) else None

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, examples))


def tribunal_rows(args, base, count, train, dev, store, folder: Path) -> list:
    from tribunal.eval.tracking.mlflow_run import TrackingSettings
    from tribunal.optimizers.program_loader import load_program
    from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize
    from tribunal.optimizers.program_source import resolve_program
    from tribunal.programs.lm import LMSettings, build_lm

    lm = build_lm(LMSettings(model=args.lm, api_base=base, api_key_env=KEY_ENV, cache=False))
    human = [e.gold_score for e in dev.examples]
    untuned, calls, seconds = timed(count, lambda: program_scores(resolve_program("gemba-mqm").program,
                                                                   dev.examples, lm, args.threads))
    rows = [("GEMBA-MQM, untuned", agreement(untuned, human), None, None, calls, seconds)]
    for optimizer in args.optimizers.split(","):
        out = folder / f"gemba-{optimizer}.json"
        request = OptimizeRequest(program="gemba-mqm", optimizer=optimizer, train=train.spec, dev=dev.spec,
                                  lm=args.lm, api_base=base, api_key_env=KEY_ENV, threads=args.threads,
                                  cache=False, out=out, budget=args.budget)
        _, tune_calls, tune_seconds = timed(count, lambda: run_optimize(request, TrackingSettings(
            uri=store, experiment=f"{EXPERIMENT}-tribunal")))
        program, _ = load_program(out)
        tuned, calls, seconds = timed(count, lambda: program_scores(program, dev.examples, lm, args.threads))
        rows.append((f"tribunal optimize --optimizer {optimizer}", agreement(tuned, human), tune_calls, tune_seconds,
                     calls, seconds))
    return rows


def mlflow_rows(args, base, count, train, dev) -> list:
    import mlflow
    from mlflow.genai.judges import make_judge

    from tribunal.signatures.mqm.gemba import GembaMQM

    provider, _, name = args.lm.partition("/")
    instruction = (f"{GembaMQM.__doc__.strip()}\n\nThe source segment and its languages: {{{{ inputs }}}}\n"
                   "The machine translation: {{ outputs }}\nReturn as the result the translation's MQM score under "
                   "GEMBA-MQM's scheme: minus the weights of its first five errors (critical 25, major 5, minor 1), "
                   "at most 25 in all; 0 for a perfect translation.")
    judge = make_judge(name="human_mqm", instructions=instruction, feedback_value_type=float,
                       model=f"{provider}:/{name}", base_url=base)
    human = [e.gold_score for e in dev.examples]
    untuned, calls, seconds = timed(count, lambda: judge_scores(judge, dev.examples, args.threads))
    rows = [("MLflow make_judge, unaligned", agreement(untuned, human), None, None, calls, seconds)]
    traces = [mlflow.get_trace(e.trace_ids[0]) for e in train.examples]
    optimizer = None
    if args.reflection_lm or args.embedding_model:
        from mlflow.genai.judges.optimizers import MemAlignOptimizer

        optimizer = MemAlignOptimizer(reflection_lm=args.reflection_lm, embedding_model=args.embedding_model)
    aligned, tune_calls, tune_seconds = timed(count, lambda: judge.align(traces, optimizer))
    tuned, calls, seconds = timed(count, lambda: judge_scores(aligned, dev.examples, args.threads))
    rows.append(("MLflow judge.align() (MemAlign)", agreement(tuned, human), tune_calls, tune_seconds, calls, seconds))
    return rows


def print_table(rows, args) -> None:
    def calls(counted):
        return "-" if counted is None else f"{sum(counted.values())}" + (
            f" ({counted['embeddings']} embed)" if counted.get("embeddings") else "")

    print(f"\n{args.train} train / {args.dev} dev TED MQM en-de items as labelled MLflow traces; "
          f"LM: {'loopback peer (mechanics, not quality)' if not args.api_base else args.lm}\n")
    print("| judge | dev r | dev acc | dev kappa | dev MAE | unscored | tuning calls | tuning s | dev calls | dev s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, found, tune_calls, tune_s, dev_calls, dev_s in rows:
        print(f"| {label} | {found['r']:.4f} | {found['acc']:.4f} | {found['kappa']:.4f} | {found['mae']:.2f} | "
              f"{found['unscored']} | {calls(tune_calls)} | {'-' if tune_s is None else f'{tune_s:.1f}'} | "
              f"{calls(dev_calls)} | {dev_s:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", type=int, default=40)
    parser.add_argument("--dev", type=int, default=20)
    parser.add_argument("--optimizers", default="labeled,bootstrap")
    parser.add_argument("--budget", type=int, default=None, help="tribunal's --budget (default: each optimizer's)")
    parser.add_argument("--lm", default="openai/bench-judge", help="a real model (with --api-base); default: the peer")
    parser.add_argument("--api-base", default=None, help="an OpenAI-compatible base URL (ends in /v1)")
    parser.add_argument("--api-key-env", default=None, help="the variable holding the key for --api-base")
    parser.add_argument("--reflection-lm", default=None, help="MemAlign's reflection LM, e.g. openai:/MODEL")
    parser.add_argument("--embedding-model", default=None, help="MemAlign's embedding model, e.g. openai:/MODEL")
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()

    import mlflow

    from benchmarks.alignment_peer import counting_proxy, peer_answer
    from tests.support.loopback import loopback_server
    from tribunal.optimizers.training_data import load_training_data

    key = os.environ.get(args.api_key_env, "") if args.api_key_env else "loopback-peer-takes-any-key"
    os.environ[KEY_ENV] = os.environ["OPENAI_API_KEY"] = key or "unused"
    labels = {}
    for example in load_training_data("mqm-ted:en-de").examples:  # one item per (source, translation)
        labels.setdefault((example.source, example.translation), example)
    items = list(labels.values())[: args.train + args.dev]
    folder = Path(tempfile.mkdtemp(prefix="bench-alignment-"))  # the store and the exports
    store = f"sqlite:///{folder}/mlflow.db"
    mlflow.set_tracking_uri(store)
    mlflow.create_experiment(EXPERIMENT, artifact_location=(folder / "artifacts").as_uri())  # not ./mlruns
    mlflow.set_experiment(EXPERIMENT)
    with contextlib_peer(args.api_base, loopback_server, peer_answer) as upstream, counting_proxy(upstream) as (base, count):
        os.environ["OPENAI_BASE_URL"] = os.environ["OPENAI_API_BASE"] = base  # MemAlign's default models
        write_labelled_traces(items, args.train)
        train = load_training_data(f"mlflow:{EXPERIMENT}?tags.split = 'train'", "--train", tracking_uri=store)
        dev = load_training_data(f"mlflow:{EXPERIMENT}?tags.split = 'dev'", "--dev", tracking_uri=store)
        warm_up(args, base, dev.examples[:1])  # one-time client set-up and imports stay out of the timings
        rows = tribunal_rows(args, base, count, train, dev, store, folder) + mlflow_rows(args, base, count, train, dev)
    print_table(rows, args)


def warm_up(args, base, examples) -> None:
    """One judgment by each pipeline before anything is timed (not counted: ``timed`` resets the count)."""
    from mlflow.genai.judges import make_judge

    from tribunal.optimizers.program_source import resolve_program
    from tribunal.programs.lm import LMSettings, build_lm

    lm = build_lm(LMSettings(model=args.lm, api_base=base, api_key_env=KEY_ENV, cache=False))
    program_scores(resolve_program("gemba-mqm").program, examples, lm, 1)
    provider, _, name = args.lm.partition("/")
    judge_scores(make_judge(name="warm_up", instructions="Rate {{ outputs }} for {{ inputs }}.",
                            feedback_value_type=float, model=f"{provider}:/{name}", base_url=base), examples, 1)


def contextlib_peer(api_base, loopback_server, peer_answer):
    """The upstream: ``api_base`` when given, else the loopback peer."""
    import contextlib

    if api_base:
        return contextlib.nullcontext(api_base)

    @contextlib.contextmanager
    def peer():
        with loopback_server(respond_raw=peer_answer) as (url, _):
            yield url

    return peer()


if __name__ == "__main__":
    main()
