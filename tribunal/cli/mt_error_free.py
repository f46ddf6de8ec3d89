"""``tribunal mt meta-eval --task error-free``: WMT26's detection of error-free segments, printed and logged."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.eval.meta.binary_measures import MEASURES
from tribunal.eval.meta.error_free_job import ErrorFreeTable, run_error_free
from tribunal.eval.meta.meta_eval_job import load_pairs
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run


def tsv(result: ErrorFreeTable) -> str:
    """The table as TSV: detector, rule, rank, each measure and its interval bounds."""
    head = ["detector", "rule", "rank"] + [f"{m}{s}" for m in MEASURES for s in ("", "_low", "_high")]
    body = ["\t".join(head)]
    for row in result.rows:
        cells = [row["detector"], row["rule"], "" if row["rank"] is None else str(row["rank"])]
        cells += [f"{v:.4f}" for m in MEASURES for v in (row[m], *row[f"{m}_ci"])]
        body.append("\t".join(cells))
    return "\n".join(body) + "\n"


def error_free_table(data: Path, lps: list[str] | None, human: str | None, dirs: tuple[Path, ...],
                     scores: tuple[Path, ...], metrics: list[str] | None, threshold: float, samples: int, seed: int,
                     output: Path | None, settings: TrackingSettings) -> None:
    """Compute, print, write (``output``) and log the table of every requested pair."""
    pairs = load_pairs(data, lps, scores, None, human=human or "esa", human_dirs=dirs)
    console = make_console()
    text = ""
    for lp, pair in pairs.items():
        result = run_error_free(pair, pair.gold_name, list(pair.human_dirs), metrics, threshold, samples, seed)
        grid = Table(title=f"{lp}: error-free detection (WMT26 subtask 3), gold {result.gold} "
                           f"(score >= {threshold:g}, no span); {result.cells} cells, {result.error_free_rate:.1%} "
                           f"error-free; (rank): MCC cluster, {samples} draws; [95% bootstrap]")
        for column in ("detector", "rule", "MCC (rank)", "P", "R", "F1", "bal acc", "pred rate"):
            grid.add_column(column)
        for row in result.rows:
            rank = f" ({row['rank']})" if row["rank"] is not None else ""
            fmt = [f"{row[m]:.3f} [{row[m + '_ci'][0]:.3f}, {row[m + '_ci'][1]:.3f}]" for m in MEASURES]
            grid.add_row(row["detector"], row["rule"], fmt[0] + rank, *fmt[1:])
        console.print(grid)
        for note in result.notes:
            line(console, f"note: {note}")
        text += f"# {lp}\tgold {result.gold}\tcells {result.cells}\terror_free_rate {result.error_free_rate:.4f}\n"
        text += tsv(result)
    if output:
        output.write_text(text, encoding="utf-8")
        line(console, f"table written to {output}")
    params = {"data": str(data), "lps": ",".join(pairs), "human": human or "esa", "threshold": threshold,
              "samples": samples, "seed": seed}
    with tracked_run(settings, f"meta-eval | error-free | {data.name} {','.join(pairs)}", params,
                     {"tribunal.command": "mt meta-eval --task error-free"}, None) as run:
        run.log_text(text, "error_free.tsv")
