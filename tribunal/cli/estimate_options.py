"""``--estimate`` and ``--json``: what a run will cost, shown before (instead of) running it.

The commands that call an LM take both options; the estimate itself comes from ``tribunal.eval.estimate``
(a rehearsal of the run: nothing is sent, no MLflow run is made). :func:`show_estimate` prints it as a
Rich table (per role, then the total, then the rule and the notes), or with ``--json`` as one JSON object.
"""

from __future__ import annotations

import json
from typing import Any

import typer

from tribunal.cli.console import console as make_console
from tribunal.quiet import real_stdout

EstimateOption = typer.Option(
    False, "--estimate",
    help="Send nothing: print what the run would cost (calls, prompt and answer tokens, dollars from LiteLLM's "
         "price table, wall time; per role and in total, each as a low-high range) and exit.")
JsonOption = typer.Option(False, "--json", help="With --estimate: print the estimate as one JSON object.")


def _span(value: dict | None, money: bool = False) -> str:
    if value is None:
        return "unpriced"
    low, high = value["low"], value["high"]
    text = (lambda v: f"${v:.4f}") if money else (lambda v: f"{v:,.0f}" if float(v).is_integer() else f"{v:,.1f}")
    return text(low) if low == high else f"{text(low)} - {text(high)}"


def show_estimate(estimate: Any, as_json: bool = False) -> None:
    """Print ``estimate`` (an ``Estimate``) as a table, or as one JSON object on stdout with ``as_json``."""
    document = estimate.as_json()
    if as_json:
        print(json.dumps(document, ensure_ascii=False), file=real_stdout(), flush=True)
        return
    from rich.table import Table  # startup: kept out of tribunal --help

    table = Table(title=f"estimate: {document['program']} on {document['items']} items (nothing sent)")
    for column in ("role", "calls", "prompt tokens", "answer tokens", "USD", "wall s"):
        table.add_column(column, justify="left" if column == "role" else "right")
    rows = [*document["by_role"].items(), ("total", document)]
    for role, figures in rows:
        table.add_row(role, _span(figures["calls"]), _span(figures["prompt_tokens"]),
                      _span(figures["completion_tokens"]), _span(figures["usd"], money=True), _span(figures["wall_s"]))
    console = make_console()
    console.print(table)
    console.print(f"calls: {document['rule']}", markup=False)
    console.print(f"tokens: {document['tokenizer']}; concurrency {document['concurrency']}"
                  f"{'; batch prices' if document['batch'] else ''}", markup=False)
    for note in document["notes"]:
        console.print(f"note: {note}", markup=False)
