"""``tribunal demo``: run what the data and configuration allow, end to end."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.console import console as make_console
from tribunal.cli.common import NoTrack, TrackingUri, data_root, tracking_settings


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo(
    data: Optional[Path] = typer.Option(None, "--data", help="A wmt23-style folder (default: $TRIBUNAL_DATA/wmt23)."),
    out: Path = typer.Option(Path("tribunal-out/demo"), "--out", help="Where result files go."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
) -> None:
    """Meta-evaluate every shipped WMT23 metric and log the run; later steps join as they land."""
    from tribunal.eval.meta.meta_eval_job import run_meta_eval
    from tribunal.eval.meta.report import rich_table, write_tsv

    from tribunal.eval.data.output_paths import writable_folder

    writable_folder(out, "--out")
    console = make_console()
    settings = tracking_settings(tracking_uri, no_track, "tribunal-demo")
    root = data_root()
    wmt23 = data or (root / "wmt23" if root else None)
    if wmt23 is None or not (wmt23 / "sources").is_dir():
        console.print("[yellow]No WMT23 data found[/yellow]: set TRIBUNAL_DATA or run `tribunal data fetch wmt23`.")
    else:
        console.rule("WMT23 meta-evaluation of the shipped metrics")
        result = run_meta_eval(wmt23, None, None, settings)
        console.print(rich_table(result.table, "WMT23 primary table"))
        write_tsv(result.table, out / "wmt23_meta_eval.tsv")
        console.print(f"table: {out / 'wmt23_meta_eval.tsv'}")
    equiv_audit_step(console, settings, out / "equiv-audit")
    if wmt23 is not None and (wmt23 / "sources").is_dir():
        _mmad_demo(console, wmt23, out, settings)
    if settings.enabled:
        from tribunal.eval.tracking.prompts import register_all_signatures
        from tribunal.eval.tracking.store_summary import store_summary, summary_line

        register_all_signatures(settings)
        console.print(f"\nMLflow experiment {settings.experiment!r} holds: {summary_line(store_summary(settings))}")
        console.print(f"Runs are in {settings.resolved_uri}; browse them with:\n  {settings.ui_command()}")


def equiv_audit_step(console, settings, out: Path) -> None:
    """Audit the similarity rules (no LM needed) on the shipped perturbation suite."""
    from tribunal.cli.equiv import print_audit
    from tribunal.eval.equiv.audit_job import run_audit
    from tribunal.eval.equiv.rules.embedding import EmbeddingRule, local_minilm_available
    from tribunal.eval.equiv.rules.tfidf import TfidfRule
    from tribunal.eval.equiv.suite import load_suite

    console.rule("Equivalence rules: perturbation audit (TF-IDF, embeddings)")
    rules = [TfidfRule()]
    if local_minilm_available():
        rules.append(EmbeddingRule())
    else:
        console.print("[yellow]sentence-transformers is not installed[/yellow]: running TF-IDF only "
                      "(pip install 'tribunal[embeddings]' for the embedding rule).")
    print_audit(console, run_audit(load_suite(), rules, 1, settings, out))


def _mmad_demo(console, wmt23: Path, out: Path, tracking) -> None:
    """M-MAD on a handful of WMT23 zh-en items when an LM is configured (``TRIBUNAL_LM``)."""
    import os

    model = os.environ.get("TRIBUNAL_LM")
    if not model:
        console.print("\n[dim]Set TRIBUNAL_LM (and TRIBUNAL_API_BASE, TRIBUNAL_API_KEY_ENV) to also run M-MAD "
                      "on a few WMT23 items.[/dim]")
        return
    from tribunal.cli.mt_evaluate import run_and_report
    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.programs.lm import LMSettings

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    console.rule(f"M-MAD on 5 WMT23 zh-en items with {model}")
    lm = LMSettings(model=model, api_base=os.environ.get("TRIBUNAL_API_BASE") or None,
                    api_key_env=os.environ.get("TRIBUNAL_API_KEY_ENV") or None)
    demos = None if (wmt23.parent / "mqm-ted").is_dir() else 0  # None: the preset's own demo count
    config = EvaluateConfig(data=wmt23, lp="zh-en", lm=lm, limit=5, rated_only=True, demos=demos,
                            demo_data=wmt23.parent / "mqm-ted", out=out / "mmad", concurrency=4)
    run_and_report(config, tracking)
