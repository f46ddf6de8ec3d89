"""The summary ``tribunal mt evaluate`` prints after a run (``tribunal demo`` too): items, calls, spend,
agreement with the humans, error spans, files, signature; rendered from the typed run summary alone, so
``summary.json`` read back renders the same text."""

from __future__ import annotations

from typing import Iterator

from tribunal.cli.cap_options import cap_lines
from tribunal.cli.console import line
from tribunal.cli.mt_agreement import ceiling_summary_lines
from tribunal.cli.numbers import count, money, number, seconds
from tribunal.programs.local_models import server_deaths


SPAN_KEYS = ("mpp_precision", "mpp_recall", "mpp_f", "wmt25_precision", "wmt25_recall", "wmt25_f",
             "char_precision", "char_recall", "char_f1", "span_precision", "span_recall", "span_f1")
SPAN_LABELS = {"mpp_f": " (micro MPP, Perrella et al. 2026)", "wmt25_f": " (WMT25 character counts)",
               "char_f1": " (legacy pooled character F1)", "span_f1": " (legacy: one shared character matches)"}


def meta_keys() -> tuple[str, ...]:
    """The run report's statistics, printed as logged (``meta.<key>`` in MLflow), in table order."""
    from tribunal.eval.meta.statistics import per_lp_tasks  # heavy: pulls in numpy

    return tuple(s.key for s in per_lp_tasks("run"))


def meta_reasons(meta: dict) -> dict[str, str]:
    """Why each meta-evaluation value is undefined on the covered cells (as its statistic declares)."""
    from tribunal.eval.meta.statistics import STATISTICS  # heavy: pulls in numpy

    return {key: s.why_undefined(meta) for key, s in STATISTICS.items()}


def span_reasons(spans: dict) -> dict[str, str]:
    """Why a span precision / recall / F1 is undefined (in the same counts the summary prints)."""
    ungrounded, source = count(spans.get("judge_spans_ungrounded") or 0), count(spans.get("judge_spans_source") or 0)
    precision = "the judge marked no error span in the rated cells"
    if spans.get("judge_spans_ungrounded"):
        precision = f"none of the judge's spans in the rated cells was located in the translation ({ungrounded} ungrounded"
        precision += f", {source} in the source)" if spans.get("judge_spans_source") else ")"
    elif spans.get("judge_spans_source"):
        precision = f"the judge marked only source-side errors in the rated cells ({source})"
    recall = "the human raters marked no error span in the covered cells"
    f1 = precision if not spans.get("predicted_spans") else recall
    return {f"{level}_{name}": reason for level in ("char", "span")
            for name, reason in (("precision", precision), ("recall", recall), ("f1", f1))}


def span_sides(tally: dict) -> str:
    """``"9 in the translation (7 exact, 1 fuzzy, 1 ungrounded: not found in it), 2 in the source (2 exact)"``:
    one wording for every line that counts spans (:func:`tribunal.eval.mt.report.span_tally`)."""
    from tribunal.eval.mt.report import GROUNDINGS  # heavy: pulls in dspy, numpy

    parts = []
    for side in ("translation", "source"):
        how = [f"{count(tally.get(f'{side}_{g}', 0))} {g}" + (": not found in it" if g == "ungrounded" else "")
               for g in GROUNDINGS if tally.get(f"{side}_{g}")]
        parts.append(f"{count(tally.get(side, 0))} in the {side}" + (f" ({', '.join(how)})" if how else ""))
    return ", ".join(parts)


def sampling_line(sampling: dict) -> str:
    """``samples: K=5 per item, combined by trimmed; the calls, tokens and spend below are for all 5 ...``."""
    k = sampling["k"]
    text = (f"samples: K={k} per item, combined by {sampling['rule']}; the LM calls, tokens and spend below cover "
            f"all {k} samples (x{k} a single judgment)")
    if sampling["dropped"]:
        text += (f"; {sampling['dropped']} unusable samples dropped in {sampling['items_with_dropped']} items "
                 "(each scored from the rest)")
    if sampling["items_too_few"]:
        text += f"; {sampling['items_too_few']} items unscored with fewer than ceil(K/2) usable samples"
    if sampling.get("mean_std") is not None:
        text += f"; per-item spread: mean std {number(sampling['mean_std'])}, largest {number(sampling['max_std'])}"
    return text


def runaways_line(s: dict) -> str:
    """Runaways per role beside its re-asks, e.g. ``... runaways ...: 3 (stage1/coupled 3 (re-asks 4))``."""
    reasks = s.get("lm_reasks_by_role", {})
    roles = ", ".join(f"{role} {n} (re-asks {reasks.get(role, 0)})"
                      for role, n in sorted(s.get("lm_runaways_by_role", {}).items()))
    return (f"  runaways (answers cut while repeating themselves, re-asked at the same token limit): "
            f"{s['lm_runaways']}" + (f" ({roles})" if roles else ""))


def print_summary(console, summary) -> None:
    """The run's summary: items, calls, spend, agreement with the humans, files, signature.

    Rendered from the :class:`~tribunal.core.run_summary.RunSummary` alone (what ``summary.json`` holds),
    so the file read back renders the same text.
    """
    s = summary.details
    say = lambda text: line(console, text)  # noqa: E731
    for part in (_item_lines(summary), _call_lines(summary), _meta_lines(summary.meta),
                 _span_eval_lines(summary.spans), _output_lines(summary)):
        for text in part:
            say(text)
    say(f"wall time: {seconds(s['wall_seconds'])}")
    say(f"signature: {summary.signature}")
    if summary.mlflow_run_id:
        say(f"MLflow run {summary.mlflow_run_id}")


def _item_lines(summary) -> Iterator[str]:
    """The items judged, scored, degraded and unscored, and why."""
    s = summary.details
    degraded = f" (of which {s['degraded']} degraded)" if s.get("degraded") else ""
    left = f", left {summary.items.left} (stopped by {summary.stopped_by})" if summary.items.left else ""
    yield (f"items: {s['items']} unique of {s['cells']} cells ({s['duplicates']} duplicates); "
           f"scored {s['scored']}{degraded}, unscored {s['unscored']}, resumed from journal {s['resumed_items']}{left}")
    if s.get("degraded"):
        roles = ", ".join(f"{n} x {role}" for role, n in sorted(s["degraded_by_role"].items()))
        left = "left out of the scores and the tables (--degraded exclude)" if s.get("degraded_excluded") else \
            "counted in the scores (--degraded exclude leaves them out; --strict unscores them)"
        yield (f"  degraded: scored with a fallback after a role stayed unusable ({roles}); {left}; "
               "errors.jsonl says what stood in")
    second = s.get("second_pass") or {}
    if second.get("items"):
        yield (f"  second pass (items a transient failure left unscored, judged once more at the end): "
               f"{second['recovered']} of {second['items']} recovered")
    elif second.get("skipped"):
        yield (f"  no second pass: {second['skipped']}")
    for reason, n in sorted(s["unscored_reasons"].items()):
        yield (f"  unscored: {n} x {reason}")
    if s["unscored_retryable"]:
        died = bool(server_deaths())  # a rerun as it is would meet the same crash
        yield (f"  {s['unscored_retryable']} unscored without an answer (rate limit, timeout, server, connection): "
               + ("the local model server died during the run (see its line above)" if died
                  else "rerun the same command to judge them again"))
    if s["unscored_permanent"]:
        yield (f"  {s['unscored_permanent']} unscored with an unusable answer: "
               "rerun with --retry-unscored to pay for them again"
               + (" (it re-judges the degraded items too)" if s.get("degraded") else ""))


def _call_lines(summary) -> Iterator[str]:
    """The LM calls, tokens, spend and cap, and the spans the judge marked."""
    s = summary.details
    if s.get("sampling"):
        yield sampling_line(s["sampling"])
    stages = ", ".join(f"{k} {v}" for k, v in sorted(s["lm_calls_by_stage"].items())) or "none"
    kinds = ", ".join(f"{k} {v}" for k, v in s.get("lm_reasks_by_kind", {}).items())
    reasks = f"; of which {s.get('lm_reasks', 0)} re-asks" + (f" ({kinds})" if kinds else "")
    yield (f"LM calls: {s['lm_calls']} ({stages}): {s['lm_calls_paid']} answered by the provider, "
           f"{s['lm_calls_cached']} from the response cache, {s['lm_calls_failed']} failed{reasks}")
    if s.get("lm_runaways"):
        yield runaways_line(s)
    yield (f"tokens (provider usage): {s['prompt_tokens']} in, {s['completion_tokens']} out; spend: {s['cost']}")
    for text in cap_lines(summary.cap):
        yield text
    spans = s.get("spans", {})
    if spans.get("translation") or spans.get("source"):
        yield (f"error spans the judge marked in the {s['scored']} scored items: " + span_sides(spans))


def _meta_lines(meta) -> Iterator[str]:
    """Agreement with the human MQM scores."""
    if meta:
        reasons = meta_reasons(meta)
        yield (f"against the human MQM scores ({count(meta.get('covered_cells'))} rated cells of "
               f"{count(meta.get('covered_systems'))} systems):")
        for key in meta_keys():
            if key in meta:
                yield (f"  {key}: {number(meta[key], reasons[key])}")


def _span_eval_lines(spans_eval) -> Iterator[str]:
    """The judge's error spans against the raters'."""
    if spans_eval:
        reasons = span_reasons(spans_eval)
        sp = spans_eval
        sides = {k[len("judge_spans_"):]: int(v) for k, v in sp.items() if k.startswith("judge_spans_")}
        marked = f"the judge marked {count(sp.get('judge_spans', 0))} error spans in them: {span_sides(sides)}"
        yield (f"error spans against the raters' ({count(sp.get('rated_cells', sp.get('cells')))} rated cells; {marked}; "
               f"pooled over raters: {count(sp.get('predicted_spans'))} judge spans, {count(sp.get('gold_spans'))} "
               "rater spans):")
        for key in SPAN_KEYS:
            if key in spans_eval:
                yield (f"  span {key}: {number(spans_eval[key], reasons.get(key))}{SPAN_LABELS.get(key, '')}")
        per_rater = {k.rsplit(".", 1)[0]: v for k, v in spans_eval.items() if k.endswith(".mpp_f")}
        if len(per_rater) > 1:
            yield ("  span mpp_f per rater: " + ", ".join(f"{r} {number(v)}" for r, v in per_rater.items()))


def _output_lines(summary) -> Iterator[str]:
    """The error-free and ceiling figures, the files written, the batches."""
    s = summary.details
    if s.get("error_free"):  # the scored cells have gold labels (tribunal.eval.mt.error_free)
        from tribunal.eval.mt.error_free import error_free_lines  # heavy: pulls in numpy

        for text in error_free_lines(s["error_free"]):
            yield text
    if s.get("human_ceiling"):  # several raters scored some judged cells
        for text in ceiling_summary_lines(s["human_ceiling"]):
            yield text
    paths = summary.outputs
    yield (f"outputs: {s['outputs_folder']}, {paths['errors']}, {paths['transcripts']}"
           + (f", {paths['samples']}" if "samples" in paths else ""))
    if "report" in paths:
        yield (f"page: {paths['report']} (open it in a browser, or `tribunal runs view PATH --serve`)")
    elif s.get("page_error"):
        yield (f"page: not written ({s['page_error']}); every other output is")
    if s.get("system_scores_gap"):
        yield (f"system scores: not written ({s['system_scores_gap']}): the segment scores cover part of the "
               "test set only")
    if s.get("batch"):
        b = s["batch"]
        price = b["spend_usd_batch_price"]
        spend = "unknown price" if price is None else f"{money(price)} at the batch price"
        yield (f"batches: {b['batches']} in {b['steps']} steps, {b['requests']} requests "
               f"({b['answered']} answered, {b['failed']} failed), {b['input_tokens']} tokens in, "
               f"{b['output_tokens']} out: {spend}")
