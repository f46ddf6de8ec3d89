"""``tribunal equiv ...``: equivalence judges and their perturbation audit."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.common import Experiment, NoTrack, TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.help_policy import examples
from tribunal.cli.numbers import count, number, seconds
from tribunal.cli.cap_options import MaxCallsOption, MaxCostOption, cap_lines, make_cap
from tribunal.cli.estimate_options import EstimateOption, JsonOption, show_estimate
from tribunal.cli.lm_options import (ApiBaseOption, ApiKeyEnvOption, CacheOption, LmOption, MaxTokensOption,
                                     ReasksOption, TimeoutOption, build_cli_lm, cli_lm_settings)
from tribunal.cli.lm_options import independent_repeats_notice
from tribunal.eval.equiv import defaults
from tribunal.eval.equiv.rule_set import build_rules, check_rule_options
from tribunal.errors import EXIT_CAPPED, EXIT_UNSCORED

app = typer.Typer(no_args_is_help=True)

SuiteOption = typer.Option(None, "--suite", help="Suite JSONL (seeds and/or checked pairs; default: the shipped suite).")


def load_suite_or_fail(path: Optional[Path]):
    from tribunal.eval.equiv.suite import load_suite  # heavy: pulls in sklearn, pandas

    if path is not None and not path.is_file():
        raise UserError(f"{path}: no such suite file")
    try:
        return load_suite(path)
    except ValueError as err:
        raise UserError(str(err)) from err


def load_pairs_or_suite(suite: Optional[Path], pairs: Optional[Path]):
    """The labelled pairs to audit: a pair file (``--pairs``) or the suite (``--suite``, default shipped)."""
    if pairs is None:
        return load_suite_or_fail(suite)
    if suite is not None:
        raise UserError("give --suite or --pairs, not both")
    if not pairs.is_file():
        raise UserError(f"{pairs}: no such pairs file")
    from tribunal.eval.equiv.pairs import load_pairs  # heavy: pulls in sklearn, pandas

    return load_pairs(pairs)  # a DataFormatError names the file and line


def first_pairs(loaded, limit: Optional[int]):
    """``--limit N``: the first N pairs, as a slice of its own (its hash names the cut, so signatures differ)."""
    if limit is None or limit >= len(loaded.pairs):
        return loaded
    from tribunal.eval.tracking.signature import text_hash  # startup: kept out of `tribunal --help`

    return loaded.model_copy(update={"pairs": loaded.pairs[:limit], "hash": text_hash(f"{loaded.hash}|first {limit}")})


def parse_embedding_threshold(text: str) -> float | str:
    """``--embedding-threshold``: a number, or ``auto`` (calibrated to a target same-pair rate)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return float(text)
    except ValueError:
        raise UserError(f"--embedding-threshold {text!r}: expected a number in [0, 1] or 'auto'") from None


TEMPERATURE_0_VOTES = ("--temperature 0: the LLM judge's third vote is no repeated request (it would get the same "
                       "answer); when the two presentation orders disagree, the (A, B) answer counts twice")
RULES_HELP = "Comma-separated rules: tfidf, embedding, chain, llm, cascade (chain screen + LLM judge)."


AUDIT_EPILOG = examples(
    "tribunal equiv audit",
    "tribunal equiv audit --rules tfidf,embedding,llm --rubric full,component --lm openai/gpt-4o-mini",
    "tribunal equiv audit --pairs my_pairs.jsonl --rules cascade --lm openai/gpt-4o-mini --cascade-low 0.5 --cascade-high 0.9",
    "tribunal equiv audit --rules llm --lm openai/gpt-4o-mini --program tribunal-out/optimized/equiv-llm-labeled.json")


@app.command("audit", epilog=AUDIT_EPILOG)
def audit(
    ctx: typer.Context,
    suite: Optional[Path] = SuiteOption,
    pairs: Optional[Path] = typer.Option(
        None, "--pairs", help="Your own labelled pairs (JSONL: id, kind, label same|different, a, b) instead of the suite."),
    rules: str = typer.Option("tfidf,embedding", "--rules", help=RULES_HELP),
    rubric: Optional[str] = typer.Option(
        None, "--rubric", metavar="RUBRICS", help="LLM rubric(s), comma-separated: full (default), stepwise, component, none. "
        "A tuned judge (--program FILE) brings its own."),
    lm: Optional[str] = LmOption,
    api_base: Optional[str] = ApiBaseOption,
    api_key_env: Optional[str] = ApiKeyEnvOption,
    cache: bool = CacheOption,
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    temperature: float = typer.Option(0.0, "--temperature", help="LLM judge sampling temperature."),
    tfidf_threshold: float = typer.Option(defaults.TFIDF_THRESHOLD, "--tfidf-threshold", help="TF-IDF cosine at or above which a pair is 'same'."),
    embedding_threshold: str = typer.Option(
        str(defaults.EMBEDDING_THRESHOLD), "--embedding-threshold",
        help="Embedding cosine threshold, or 'auto': calibrated so the same-pair rate matches the other rules'."),
    embedding_target_rate: Optional[float] = typer.Option(
        None, "--embedding-target-rate", help="With --embedding-threshold auto: calibrate to this same-pair rate "
        "instead of the other rules'."),
    embedder: str = typer.Option("all-MiniLM-L6-v2", "--embedder", help="all-MiniLM-L6-v2 (offline), a model folder, or a DSPy/LiteLLM embedder name."),
    chain_threshold: float = typer.Option(
        defaults.CHAIN_THRESHOLD, "--chain-threshold", help="Chain rule: weakest aligned step similarity at or above which a pair is 'same'."),
    chain_steps: str = typer.Option("embedding", "--chain-steps", help="Chain rule step vectors: embedding or tfidf."),
    chain_extra_steps: str = typer.Option(
        "different", "--chain-extra-steps", help="Chain rule: an extra step after the first makes a pair 'different' or is 'allowed'."),
    cascade_low: float = typer.Option(
        defaults.CASCADE_LOW, "--cascade-low", help="Cascade: chain score below which a step reworded as a whole counts as 'different' without "
        "the LLM (default 0: never; a named difference always does, an unverifiable alias never)."),
    cascade_high: float = typer.Option(
        defaults.CASCADE_HIGH, "--cascade-high", help="Cascade: chain score at or above which a step reworded as a whole counts as 'same' without "
        "the LLM (default 1: never; verified steps always do, a substituted word never)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Audit only the first N pairs of the suite "
                                        "or pairs file."),
    repeats: int = typer.Option(2, "--repeats", min=1, help="Judge the suite this many times (repeat consistency); "
                                "with more than one, the LLM judge's answers never come from the response cache."),
    threads: int = typer.Option(4, "--threads", min=1, help="Concurrent LLM calls."),
    program: Optional[str] = typer.Option(
        None, "--program", help="The LLM judge: equiv-llm (default) or a tuned export (.json) from `tribunal export`."
    ),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Where tables and plots go (default: tribunal-out/equiv-audit/<rules>-<hash>, one per configuration)."),
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
    estimate: bool = EstimateOption,
    as_json: bool = JsonOption,
) -> None:
    """Audit equivalence rules on labelled pairs.

    Judges the perturbation suite (or your --pairs) with each rule and reports, per perturbation
    kind, the share of pairs judged 'different', with agreement between the rules, repeat
    consistency and order flips. Tables go to --out; the run is logged to MLflow.
    """
    from tribunal.cli.progress import progress_bars  # startup: kept out of `tribunal --help`
    from tribunal.eval.data.folder_lock import folder_lock  # startup: kept out of `tribunal --help`
    from tribunal.eval.data.output_paths import writable_folder  # startup: kept out of `tribunal --help`
    from tribunal.eval.equiv.audit_job import run_audit  # heavy: pulls in sklearn, pandas

    options = dict(tfidf_threshold=tfidf_threshold, embedding_threshold=parse_embedding_threshold(embedding_threshold),
                   embedding_target_rate=embedding_target_rate, embedder=embedder, chain_threshold=chain_threshold,
                   chain_steps=chain_steps, chain_extra_steps=chain_extra_steps, cascade_low=cascade_low,
                   cascade_high=cascade_high, lm_name=lm, threads=threads)
    check_rule_options(options)  # every option checked before anything is loaded, built or paid for
    if embedding_target_rate is not None and options["embedding_threshold"] != "auto":
        raise UserError("--embedding-target-rate: only used with --embedding-threshold auto")
    if out is not None:
        writable_folder(out, "--out")
    loaded = first_pairs(load_pairs_or_suite(suite, pairs), limit)
    # Repeats meant to be independent must be fresh calls: a cached answer would make them agree by construction.
    options["lm"] = build_cli_lm(lm, api_base, temperature, api_key_env, cache=cache and repeats == 1, reasks=reasks,
                                 max_tokens=max_tokens, timeout=timeout)
    if program is not None:
        from tribunal.optimizers.program_source import resolve_program  # startup: kept out of `tribunal --help`

        resolved = resolve_program(program, expected_kind="equiv")
        options |= dict(program=resolved.program, program_label=resolved.label)
        own = getattr(resolved.program, "rubric", None)
        if rubric is not None and {r.strip() for r in rubric.split(",") if r.strip()} != {own}:
            raise UserError(f"--rubric {rubric}: the judge of --program {program} uses its own rubric ({own}); "
                            "drop --rubric")
    rule_objs = build_rules(rules, rubric or "full", options)
    if estimate:  # the rules rebuilt on a rehearsal LM: nothing is sent, nothing tracked, nothing written
        from tribunal.eval.estimate.equiv_estimate import estimate_audit  # startup: kept out of `tribunal --help`

        lm_settings = cli_lm_settings(lm, api_base, temperature, api_key_env, cache and repeats == 1, reasks,
                                      max_tokens, timeout)
        make = lambda rehearsal_lm: build_rules(rules, rubric or "full", {**options, "lm": rehearsal_lm})  # noqa: E731
        return show_estimate(estimate_audit(loaded.pairs, make, repeats, lm_settings, threads,
                                            out or _default_out(rule_objs, loaded, repeats)), as_json)
    settings = tracking_settings(tracking_uri, no_track, experiment)
    console = make_console()
    notices = [independent_repeats_notice(repeats, temperature, "--repeats")] if options["lm"] is not None else []
    if options["lm"] is not None and temperature == 0 and any(r.name in ("llm", "cascade") for r in rule_objs):
        notices.append(TEMPERATURE_0_VOTES)
    for notice in filter(None, notices):
        from rich.markup import escape  # startup: kept out of `tribunal --help`

        make_console(stderr=True).print(f"[yellow]note:[/yellow] {escape(notice)}")
    out = out or _default_out(rule_objs, loaded, repeats)
    writable_folder(out, "--out")
    cap = make_cap(max_cost, max_calls, ctx=ctx)
    if cap is not None:
        cap.check_models([lm] if any(r.name in ("llm", "cascade") for r in rule_objs) else [])
    with folder_lock(out), progress_bars() as report:  # two audits into one folder would mix their tables
        result = audited(report, lambda progress: run_audit(loaded, rule_objs, repeats, settings, out,
                                                            progress=progress, cap=cap), len(rule_objs))
    print_audit(console, result.summary)
    if result.run_id:
        line(console, f"MLflow run {result.run_id}; see it with: {settings.ui_command()}")
    if result.stopped_by:
        line(console, f"stopped by {result.stopped_by} (exit status {EXIT_CAPPED})")
        raise typer.Exit(EXIT_CAPPED)
    unscored = {audit.label: int(audit.summary.get("unscored", 0)) for audit in result.rules}
    if any(unscored.values()):
        shown = ", ".join(f"{label} {count}" for label, count in unscored.items() if count)
        line(console, f"unscored pairs (first repeat): {shown} (exit status {EXIT_UNSCORED})")
        raise typer.Exit(EXIT_UNSCORED)


def _default_out(rule_objs, loaded, repeats: int) -> Path:
    """``tribunal-out/equiv-audit/<rules>_<suite>-<hash>``: one folder per configuration."""
    from tribunal.eval.tracking.run_names import config_folder  # startup: kept out of `tribunal --help`

    labels = "_".join(r.label for r in rule_objs)
    return config_folder("tribunal-out/equiv-audit", f"{labels}_{loaded.name}",
                         repr([(r.label, r.params()) for r in rule_objs] + [loaded.hash, repeats]))


def audited(report, audit, rules: int):
    """``audit(progress)`` with its per-rule messages counted on one bar (``rules`` in all)."""
    label = f"auditing {rules} rule(s)"
    started = {"n": 0}

    def next_rule(_message: str) -> None:
        report(label, started["n"], rules)
        started["n"] += 1

    result = audit(next_rule)
    report(label, rules, rules)
    return result


def print_audit(console, summary) -> None:
    """The audit and agreement tables (fitted to the console), timings, calls, spend and the signature.

    Rendered from the :class:`~tribunal.core.run_summary.RunSummary` alone (what ``summary.json`` holds), so
    the file read back renders the same text.
    """
    from tribunal.cli.tables import frame_table, print_wide  # startup: kept out of `tribunal --help`

    d = summary.details
    suite = d["suite"]
    say = lambda text: line(console, text)  # noqa: E731
    if d["table"]:
        title = f"Share judged 'different' per perturbation kind — suite {suite['name']} ({suite['pairs']} pairs, hash {suite['hash']})"
        table = _frame(d["table"])
        for column in ("unscored", "calls"):  # counts, not shares
            table[column] = [count(v) for v in table[column]]
        print_wide(console, frame_table(table, title, keys=["rule"], cell=_fmt))
    if d["agreement"]:
        columns = ["rule_a", "rule_b", "both_scored", "raw", "kappa", "alpha", "note"]
        agreement = _frame(d["agreement"])[columns].copy()
        agreement["both_scored"] = [count(v) for v in agreement["both_scored"]]
        print_wide(console, frame_table(agreement, "Agreement between rules (first repeat)",
                                        keys=["rule_a", "rule_b"], cell=_fmt))
    for audit in d["rules"]:
        say(_rule_line(audit["label"], audit["seconds"], audit["summary"]))
    for audit in d["rules"]:
        params = audit["params"]
        if "threshold_rule" in params:
            peers = {k.removeprefix("calibration_rate_"): v for k, v in params.items()
                     if k.startswith("calibration_rate_")}
            source = ", ".join(f"{k} {number(v)}" for k, v in peers.items()) or "given"
            say(f"{audit['label']}: calibrated threshold {number(params['threshold'])} "
                f"(target same-pair rate {number(params['calibration_target_rate'])}, {source}; "
                f"achieved {number(params['calibration_achieved_rate'])})")
    for audit in d["rules"]:
        if audit["routes"] is not None:
            print_wide(console, frame_table(_frame(audit["routes"]), f"{audit['label']}: decided by the screen "
                                            "alone, sent to the judge, wrong among the screened (first repeat)",
                                            keys=["kind"], cell=_fmt))
    for row in d["cascade"]:
        if row["calls_judge_alone"] is not None:
            say(f"{row['rule']}: {count(row['calls'])} LM calls against {count(row['calls_judge_alone'])} for the "
                f"judge alone (saved {count(row['calls_saved'])}); verdicts agree with the judge alone on "
                f"{number(row['agreement_with_judge_alone'])} of pairs")
    items = summary.items
    resumed = sum(int(a["summary"].get("resumed", 0)) for a in d["rules"])
    say(f"pair judgments (pairs x repeats x rules): {count(items.total)}; scored {count(items.scored)}, unscored "
        f"{count(items.unscored)}" + (f", left {count(items.left)}" if items.left else "")
        + (f"; {count(resumed)} read back from the journal (not paid again)" if resumed else ""))
    if summary.calls or summary.roles:
        roles = ", ".join(f"{role} {count(r.calls)}" for role, r in summary.roles.items())
        say(f"LM calls: {count(summary.calls)} ({roles}); tokens {count(summary.prompt_tokens)} in, "
            f"{count(summary.completion_tokens)} out; spend: {summary.spend}")
    left = (f"rules left: {', '.join(d['rules_left'])} (the finished pair judgments are journaled in "
            f"{summary.outputs.get('folder', '--out')}/journal; no table and no MLflow run for a stopped audit)")
    for text in cap_lines(summary.cap, left if d["rules_left"] else None):
        say(text)
    if d["files_folder"]:
        say(f"files: {d['files_folder']}/")
    say(f"signature: {summary.signature}")


TEXT_COLUMNS = ("rule", "kind", "note", "rule_a", "rule_b")


def _frame(records: list):
    """A table of ``summary.json`` as a DataFrame: its undefined figures (JSON null) back to NaN ("n/a")."""
    import pandas as pd  # heavy: pandas

    frame = pd.DataFrame(records)
    for column in frame.columns:
        if column not in TEXT_COLUMNS:
            frame[column] = pd.to_numeric(frame[column])
    return frame


def _rule_line(label: str, elapsed: float, s: dict) -> str:
    """One rule's timing, embedding passes, routing and LM calls."""
    text = f"{label}: {seconds(elapsed)}"
    if "encode_calls" in s:
        text += (f" ({count(s['texts_encoded'])} distinct texts embedded in {count(s['encode_calls'])} batched "
                 f"pass(es), {seconds(s['encode_seconds'])}; model load {seconds(s['load_seconds'])})")
    if "routed_judge" in s:
        screened = s['routed_screen_same'] + s['routed_screen_different']
        text += f", screened {count(screened)} pair judgments, sent {count(s['routed_judge'])} to the judge"
    if s["calls"] or "routed_judge" in s:
        text += f", LM calls {count(s['calls'])}, saved {count(s['calls_saved'])} of the 3-per-pair budget"
        if s.get("memo_hits"):
            text += f" ({count(s['memo_hits'])} pair judgments reused, not paid again)"
    return text


def _fmt(value) -> str:
    """A table cell: shares and agreement with fixed decimals, 'n/a' where undefined."""
    if isinstance(value, float):
        return number(value)
    return "" if value is None else str(value)


def _capped_generation(console, cap, result, run_id) -> None:
    """A cap stopped the generation: what was spent and left, then exit status 5 (--out not written)."""
    from tribunal.eval.mt.run_summary import cap_status  # heavy: pulls in pydantic

    words = (f"{result.left} perturbations left (not written; --out not written: a partial suite is not a suite); "
             f"{len(result.kept)} kept and {len(result.rejected)} rejected so far, their calls in the response cache")
    for text in cap_lines(cap_status(cap, result.left), words):
        line(console, text)
    if run_id:
        line(console, f"MLflow run {run_id}")
    line(console, f"stopped by {result.stopped_by} (exit status {EXIT_CAPPED})")
    raise typer.Exit(EXIT_CAPPED)


@app.command("generate", epilog=examples(
    "tribunal equiv generate --lm openai/gpt-4o-mini",
    "tribunal equiv generate --lm openai/gpt-4o-mini --out generated.jsonl && "
    "tribunal equiv audit --suite generated.jsonl"))
def generate(
    ctx: typer.Context,
    lm: str = typer.Option(..., "--lm", help="LiteLLM model that writes the perturbations."),
    api_base: Optional[str] = ApiBaseOption,
    api_key_env: Optional[str] = ApiKeyEnvOption,
    cache: bool = CacheOption,
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    suite: Optional[Path] = SuiteOption,
    temperature: float = typer.Option(0.3, "--temperature", help="Generator sampling temperature."),
    attempts: int = typer.Option(2, "--attempts", min=1, help="Tries per (hypothesis, kind) before giving up."),
    out: Path = typer.Option(Path("tribunal-out/equiv-generated.jsonl"), "--out", metavar="FILE",
                             help="JSONL of the kept pairs (usable as --suite)."),
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """Have an LM write perturbations of the suite's hypotheses.

    For every original hypothesis of the suite and every perturbation kind, the LM writes a
    perturbed version; only those passing the kind's deterministic check are kept (written to
    --out, usable as --suite), the others are listed with the reason. The run is logged to MLflow.
    """
    from tribunal.cli.progress import progress_bars  # startup: kept out of `tribunal --help`
    from tribunal.eval.data.output_paths import writable_file  # startup: kept out of `tribunal --help`
    from tribunal.eval.tracking.generate_run import run_generation  # heavy: pulls in pydantic

    writable_file(out, "--out")
    lm_obj = build_cli_lm(lm, api_base, temperature, api_key_env, cache, reasks, max_tokens, timeout)
    settings = tracking_settings(tracking_uri, no_track, experiment)
    loaded = load_suite_or_fail(suite)
    cap = make_cap(max_cost, max_calls, ctx=ctx)
    if cap is not None:
        cap.check_models([lm])
    with progress_bars() as report:
        result, run_id = run_generation(loaded, lm_obj, lm, settings, out, temperature, attempts,
                                        progress=lambda done, total: report("writing perturbations", done, total),
                                        cap=cap)
    console = make_console()
    if result.stopped_by:
        _capped_generation(console, cap, result, run_id)
    line(console, f"kept {len(result.kept)} perturbations, rejected {len(result.rejected)}; written to {out}")
    if run_id:
        line(console, f"MLflow run {run_id}; see it with: {settings.ui_command()}")
    for item in result.rejected[:20]:
        line(console, f"rejected {item['original']} {item['kind']}: {'; '.join(item['problems'])}")
    if len(result.rejected) > 20:
        where = " (all are in the MLflow run's rejected.json)" if run_id else ""
        line(console, f"... and {len(result.rejected) - 20} more rejected{where}")
