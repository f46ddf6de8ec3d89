"""``tribunal demo``: run what the data and configuration allow, end to end."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.cap_options import MaxCallsOption, MaxCostOption, make_cap
from tribunal.cli.common import NoTrack, TrackingUri, data_root
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.help_policy import examples
from tribunal.cli.demo_options import (DataOption, DemoApiBaseOption, DemoApiKeyEnvOption, DemoArgs, DemoCacheOption,
                                       DemoExperimentOption, DemoLmOption, DemoOutOption, NoLmOption)
from tribunal.cli.lm_options import MaxTokensOption, ReasksOption, ServerSlotsOption, TimeoutOption, lm_limits
from tribunal.cli.equiv_audit import audited
from tribunal.cli.equiv_report import print_audit
from tribunal.eval.equiv.rule_set import build_rules
from tribunal.cli.lm_options import build_cli_lm
from tribunal.cli.mt_evaluate import run_and_report
from tribunal.programs.local_models import is_bundled, is_local

EPILOG = examples(
    "tribunal demo",
    "TRIBUNAL_LM=openai/gpt-4o-mini tribunal demo",
    "tribunal demo --lm openai/Qwen2.5-7B-Instruct --api-base http://localhost:8000/v1 --no-track")


def register(app: typer.Typer) -> None:
    app.command("demo", epilog=EPILOG)(demo)


def demo(
    ctx: typer.Context,
    data: Optional[Path] = DataOption,
    out: Path = DemoOutOption,
    lm: Optional[str] = DemoLmOption,
    api_base: Optional[str] = DemoApiBaseOption,
    api_key_env: Optional[str] = DemoApiKeyEnvOption,
    cache: bool = DemoCacheOption,
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    server_slots: Optional[str] = ServerSlotsOption,
    no_lm: bool = NoLmOption,
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = DemoExperimentOption,
) -> None:
    """Run what the data and configuration allow, end to end.

    1. The WMT23 meta-evaluation of every shipped metric (the primary table), written to
       OUT/wmt23_meta_eval.tsv.
    2. The perturbation audit of the TF-IDF and embedding equivalence rules on the shipped suite
       (TF-IDF alone without the embeddings extra), in OUT/equiv-audit/.
    3. With an LM (--lm or TRIBUNAL_LM, with TRIBUNAL_API_BASE / TRIBUNAL_API_KEY_ENV as needed):
       M-MAD on 5 rated WMT23 zh-en items, in OUT/mmad/.
    4. With the bundled local model only: the LLM equivalence judge on 3 pairs (OUT/equiv-judge/).
    5-9. With an LM, the whole loop (GEMBA-MQM, one call per item): judge a few rated WMT23
       zh-en items; tune with the labeled optimizer on TED MQM zh-en items; export the tuned
       program from its run (OUT/loop/tuned.json); judge the same items with it; compare the two
       judge runs (tribunal runs compare, plots in OUT/loop/compare/).
    Without --lm, when the local extra is installed, steps 3-9 run on the bundled local model
    (SmolLM2-135M-Instruct) with fewer items (M-MAD lean, one debate round, on 1 item; the loop
    on 2 items and 2 dev items), a few minutes on 2 cores; a 135M model's numbers say nothing about
    quality. --no-lm skips the LM steps.
    Each step is an MLflow run of the experiment tribunal-demo; the demo ends with what the
    store holds, the command that opens it and the pages to look at. A step that fails is one
    line and the demo goes on; it then exits with status 2. --max-cost / --max-calls cap all the
    LM steps together: once the cap is reached the remaining LM steps are skipped and the demo
    exits with status 5.
    """
    run_demo(ctx, DemoArgs.of(locals()))


def demo_model(args: DemoArgs) -> Optional[str]:
    """The demo's LM: ``--lm``, else the bundled local model when its extra is installed (none with ``--no-lm``)."""
    if args.no_lm and (args.lm or args.api_base or args.api_key_env):
        raise UserError("--no-lm: the demo was also given an LM (--lm, --api-base, --api-key-env or TRIBUNAL_LM)")
    if args.lm is None and not args.api_base and not args.api_key_env and not args.no_lm:
        from tribunal.programs.local_models import LOCAL, missing_local_extra  # startup: kept out of `tribunal --help`

        return None if missing_local_extra() else LOCAL  # a real model, offline, when the local extra is there
    return args.lm


def run_demo(ctx: typer.Context, args: DemoArgs) -> None:
    """Run every step the data and the LM allow (a failed step is one line), then the MLflow summary and the
    pages to look at; exits with the steps' status (2 if one failed, 5 if the cap stopped them)."""
    from tribunal.cli.demo_steps import DemoSteps  # startup: kept out of `tribunal --help`
    from tribunal.data.output_paths import writable_folder  # startup: kept out of `tribunal --help`

    lm, api_base, api_key_env, cache, out = demo_model(args), args.api_base, args.api_key_env, args.cache, args.out
    max_tokens = args.max_tokens or _local_limit(lm)
    lm_obj = build_cli_lm(lm, api_base, 0.0, api_key_env, cache, args.reasks, max_tokens, args.timeout,
                          args.server_slots)  # a bad option fails first
    limits = lm_limits(args.reasks, max_tokens, args.timeout, args.server_slots)
    cap = make_cap(args.max_cost, args.max_calls, ctx=ctx)
    if cap is not None and lm:
        cap.check_models([lm])
    writable_folder(out, "--out")
    console = make_console()
    settings = args.tracking_settings()
    root = data_root()
    wmt23 = args.data or (root / "wmt23" if root else None)
    have_wmt23 = wmt23 is not None and (wmt23 / "sources").is_dir()
    steps = DemoSteps(console, out, cap)
    if not have_wmt23:
        console.print("[yellow]No WMT23 data found[/yellow]: set TRIBUNAL_DATA or run `tribunal data fetch wmt23`.")
    else:
        steps.run("1. WMT23 meta-evaluation", meta_eval_step, console, wmt23, out, settings)
    steps.run("2. equivalence rules' audit", equiv_audit_step, console, settings, out / "equiv-audit")
    if have_wmt23:
        steps.run_lm("3. M-MAD", _mmad_demo, console, wmt23, out, settings, lm, api_base, api_key_env, cache, limits,
                     cap=cap)
    if lm and is_local(lm):  # a real model on this machine: the equivalence judge too
        steps.run_lm("4. LLM equivalence judge", equiv_judge_step, console, settings, out / "equiv-judge", lm_obj, lm,
                     cap=cap)
    loop = _whole_loop(console, steps, wmt23 if have_wmt23 else None, root, out, settings, lm, api_base, api_key_env,
                       cache, limits, cap)
    if settings.enabled:
        steps.run("the MLflow summary", _store_lines, console, settings, loop)
    from tribunal.cli.demo_pages import print_run_pages  # startup: kept out of `tribunal --help`

    print_run_pages(console, out)
    status = steps.finish()
    if status:
        raise typer.Exit(status)


def meta_eval_step(console, wmt23: Path, out: Path, settings) -> None:
    """The WMT23 primary table of every shipped metric, printed and written to OUT/wmt23_meta_eval.tsv."""
    from tribunal.cli.tables import print_meta_table  # startup: kept out of `tribunal --help`
    from tribunal.eval.meta.meta_eval_job import run_meta_eval  # heavy: pulls in pandas, pyarrow
    from tribunal.eval.meta.report import write_tsv  # heavy: pulls in pandas, pyarrow

    console.rule("1. WMT23 meta-evaluation of the shipped metrics")
    result = run_meta_eval(wmt23, None, None, settings)
    print_meta_table(console, result.table, "WMT23 primary table")
    write_tsv(result.table, out / "wmt23_meta_eval.tsv")
    line(console, f"table: {out / 'wmt23_meta_eval.tsv'}")


def _whole_loop(console, steps, wmt23: Optional[Path], root: Optional[Path], out: Path, settings, model: Optional[str],
                api_base: Optional[str], api_key_env: Optional[str], cache: bool, limits: dict, cap=None):
    """Steps 5-9 (judge, tune, export, judge with the tuned program, compare) when an LM and the data allow."""
    from tribunal.cli.demo_loop import FULL, SMALL, run_loop  # startup: kept out of `tribunal --help`
    from tribunal.programs.lm import LMSettings  # startup: kept out of `tribunal --help`

    if not model:
        console.print("[dim]Steps 5-9 (judge, tune with labeled, export, judge with the tuned program, compare the "
                      "runs) need an LM: --lm, TRIBUNAL_LM, or the local model (`tribunal local install`).[/dim]")
        return None
    if wmt23 is None or root is None or not (root / "mqm-ted").is_dir():
        steps.skip("5-9. the tuning loop", "needs the WMT23 and TED MQM data (set TRIBUNAL_DATA to the folder holding "
                                          "wmt23/ and mqm-ted/)")
        return None
    lm = LMSettings(model=model, api_base=api_base or None, api_key_env=api_key_env or None, cache=cache, **limits)
    small = is_bundled(model)
    loop = run_loop(steps, console, wmt23, out, settings, lm, SMALL if small else FULL, cap=cap)
    if small:
        from tribunal.cli.demo_pages import SMALL_MODEL_NOTE  # startup: kept out of `tribunal --help`

        console.print()
        line(console, SMALL_MODEL_NOTE)
    return loop


def _store_lines(console, settings, loop) -> None:
    """What the store holds, the command that opens it, and the pages to look at."""
    from tribunal.cli.demo_pages import print_pages  # startup: kept out of `tribunal --help`
    from tribunal.eval.tracking.prompts import register_all_signatures  # startup: kept out of `tribunal --help`
    from tribunal.eval.tracking.store_summary import store_summary, summary_line  # startup: kept out of `tribunal --help`

    register_all_signatures(settings)
    console.print()
    line(console, f"MLflow experiment {settings.experiment!r} holds: {summary_line(store_summary(settings))}")
    line(console, f"Runs are in {settings.resolved_uri}; browse them with:")
    line(console, f"  {settings.ui_command()}")
    print_pages(console, settings, loop.compared if loop else [], loop.model if loop else None)


def equiv_audit_step(console, settings, out: Path) -> None:
    """Audit the similarity rules (no LM needed) on the shipped perturbation suite."""
    from tribunal.cli.progress import progress_bars  # startup: kept out of `tribunal --help`
    from tribunal.eval.equiv.audit_job import run_audit  # heavy: pulls in sklearn, pandas
    from tribunal.eval.equiv.rules.embedding import EmbeddingRule, local_minilm_available  # heavy: pulls in numpy
    from tribunal.eval.equiv.rules.tfidf import TfidfRule  # heavy: pulls in numpy
    from tribunal.eval.equiv.suite import load_suite  # heavy: pulls in sklearn, pandas

    console.rule("2. Equivalence rules: perturbation audit (TF-IDF, embeddings)")
    rules = [TfidfRule()]
    if local_minilm_available():
        rules.append(EmbeddingRule())
    else:
        console.print("[yellow]sentence-transformers is not installed[/yellow]: running TF-IDF only "
                      "(pip install 'tribunal[embeddings]' for the embedding rule).")
    with progress_bars() as report:
        result = audited(report, lambda progress: run_audit(load_suite(), rules, 1, settings, out, progress=progress),
                         len(rules))
    print_audit(console, result.summary)


def _mmad_demo(console, wmt23: Path, out: Path, tracking, model: Optional[str], api_base: Optional[str],
               api_key_env: Optional[str], cache: bool, limits: Optional[dict] = None, cap=None) -> None:
    """M-MAD on a handful of WMT23 zh-en items when an LM is configured (under the demo's ``cap``)."""
    if not model:
        console.print("\n[dim]Set TRIBUNAL_LM (and TRIBUNAL_API_BASE, TRIBUNAL_API_KEY_ENV) or pass --lm to also "
                      "run M-MAD on a few WMT23 items (or install the local model, `tribunal local install`: llama.cpp "
                      "built for this CPU, to run them on a small model on this machine).[/dim]")
        return
    from tribunal.service.judging import JobRequest, configure  # startup: kept out of `tribunal --help`
    from tribunal.programs.lm import LMSettings  # startup: kept out of `tribunal --help`


    small = is_bundled(model)  # the bundled model: few, short calls, so the step takes minutes on 2 cores
    items = LOCAL_DEMO_ITEMS if small else 5
    console.rule(f"3. M-MAD on {items} WMT23 zh-en item{'' if items == 1 else 's'} with {model}")
    lm = LMSettings(model=model, api_base=api_base or None, api_key_env=api_key_env or None, cache=cache,
                    **(limits or {}))
    demos = None if (wmt23.parent / "mqm-ted").is_dir() else 0  # None: the preset's own demo count
    mmad = {"preset": "lean", "rounds": 1} if small else {}
    config = configure(JobRequest(given=dict(data=wmt23, lp="zh-en", lm=lm, limit=items, rated_only=True,
                                             demos=0 if small else demos, demo_data=wmt23.parent / "mqm-ted",
                                             out=out / "mmad", concurrency=1 if small else 4), settings=mmad))
    run_and_report(config, tracking, cap=cap)


LOCAL_DEMO_ITEMS = 1  # M-MAD makes several long calls per item: one shows them, the loop below judges more
LOCAL_DEMO_MAX_TOKENS = 192


def _local_limit(model: Optional[str]) -> Optional[int]:
    """The bundled model's answers are bounded tighter in the demo (seconds per call on 2 cores)."""
    return LOCAL_DEMO_MAX_TOKENS if is_bundled(model) else None


def equiv_judge_step(console, settings, out: Path, lm_obj, lm_name: str, pairs: int = 3, cap=None) -> None:
    """The LLM equivalence judge (full rubric) on the first ``pairs`` pairs of the shipped suite (under ``cap``)."""
    from tribunal.cli.progress import progress_bars  # startup: kept out of `tribunal --help`
    from tribunal.eval.equiv.audit_job import run_audit  # heavy: pulls in sklearn, pandas
    from tribunal.eval.equiv.suite import load_suite  # heavy: pulls in sklearn, pandas

    console.rule(f"4. The LLM equivalence judge on {pairs} pairs of the suite with {lm_name}")
    suite = load_suite()
    suite = suite.model_copy(update={"name": f"{suite.name}[:{pairs}]", "hash": f"{suite.hash}[:{pairs}]",
                                     "pairs": suite.pairs[:pairs]})
    rules = build_rules("llm", "full", {"lm": lm_obj, "lm_name": lm_name, "threads": 1})
    with progress_bars() as report:
        result = audited(report, lambda progress: run_audit(suite, rules, 1, settings, out, progress=progress,
                                                            cap=cap), 1)
    print_audit(console, result.summary)
