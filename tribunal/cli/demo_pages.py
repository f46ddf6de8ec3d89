"""The end of the demo: which MLflow UI pages show what it did, and what a 135M model's numbers mean."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tribunal.cli.console import line
from tribunal.eval.tracking.mlflow_run import experiment_id, mlflow_client

UI_ADDRESS = "http://127.0.0.1:5000"  # where `mlflow ui` serves by default
SMALL_MODEL_NOTE = ("The numbers above come from a 135M-parameter model: they show that every step ran on a real "
                    "model's answers (calls, scores, files, runs), not how good a judge is; the untuned and tuned "
                    "scores differ by chance. With --lm and a real model the same loop measures something.")


def ui_base(tracking: Any) -> str:
    """The address of the UI that shows ``tracking``'s store (a server's own, else `mlflow ui`'s)."""
    uri = tracking.resolved_uri
    return uri.rstrip("/") if uri.startswith(("http://", "https://")) else UI_ADDRESS


def page_lines(tracking: Any, compared: list[str], model: str | None) -> list[str]:
    """``what: address`` lines for the runs compared, the traces, the prompts and the tuned model."""
    base = ui_base(tracking)
    experiment = experiment_id(mlflow_client(tracking), tracking.experiment)
    pages = []
    if len(compared) == 2:
        pages.append(("the untuned and the tuned judge compared",
                      f"{base}/#/compare-runs?runs={_json(compared)}&experiments={_json([experiment])}"))
    pages += [("the traces (one per item judged: the prompt with its demos, the answer, the score)",
               f"{base}/#/experiments/{experiment}/traces"),
              ("the prompts (each signature's text, versioned)", f"{base}/#/prompts")]
    if model:
        pages.append(("the tuned judge as a registered model", f"{base}/#/models/{model}"))
    return [f"  {what}: {address}" for what, address in pages]


def _json(values: list[str]) -> str:
    return json.dumps(values, separators=(",", ":"))  # no space: the address stays one clickable word


def print_pages(console: Any, tracking: Any, compared: list[str], model: str | None) -> None:
    """Say which pages to open (after the line with the command that starts the UI)."""
    line(console, "then open:")
    for text in page_lines(tracking, compared, model):
        line(console, text)


RUN_PAGES = (("M-MAD's run page", "mmad/report.html"), ("the untuned judge's run page", "loop/untuned/report.html"),
             ("the tuned judge's run page", "loop/tuned/report.html"),
             ("the untuned and the tuned judge side by side", "loop/compare/compare.html"))
"""The pages the demo's steps write under --out (each opens offline; `tribunal runs view PATH --serve` serves it)."""


def print_run_pages(console: Any, out: Path) -> None:
    """Name the run pages the demo wrote (those its steps got to)."""
    written = [(what, out / path) for what, path in RUN_PAGES if (out / path).is_file()]
    if not written:
        return
    line(console, "the pages of the runs (open them in a browser, or `tribunal runs view PATH --serve`):")
    for what, path in written:
        line(console, f"  {what}: {path}")
