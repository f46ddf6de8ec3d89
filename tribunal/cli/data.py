"""``tribunal data ...``: fetch the WMT23 data and check a data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.common import data_root, resolve_wmt23
from tribunal.cli.errors import UserError

app = typer.Typer(no_args_is_help=True)


@app.command("fetch")
def fetch(
    name: str = typer.Argument(..., help="Test set to fetch: wmt23."),
    dest: Optional[Path] = typer.Option(None, "--dest", help="Data root (default: $TRIBUNAL_DATA or ~/.tribunal/data)."),
    url: Optional[str] = typer.Option(None, "--url", help="Archive URL (default: the official mt-metrics-eval archive)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing copy."),
) -> None:
    """Download the official mt-metrics-eval archive and unpack one test set."""
    import tempfile
    from urllib.error import URLError

    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    from tribunal.eval.data.fetch import MTME_ARCHIVE_URL, download, extract_test_set

    if name != "wmt23":
        raise UserError(f"unknown test set {name!r} (available: wmt23)")
    root = dest or data_root() or Path.home() / ".tribunal" / "data"
    with tempfile.TemporaryDirectory() as tmp, Progress(
        "[progress.description]{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn()
    ) as bar:
        task = bar.add_task("downloading", total=None)
        archive = Path(tmp) / "mt-metrics-eval.tgz"
        try:
            download(url or MTME_ARCHIVE_URL, archive, lambda done, total: bar.update(task, completed=done, total=total))
        except (URLError, OSError, ValueError) as err:
            raise UserError(f"download of {url or MTME_ARCHIVE_URL} failed: {err}") from None
        bar.update(task, description="unpacking")
        final = extract_test_set(archive, root, name, force)
    typer.echo(f"{name} unpacked to {final}")


@app.command("check")
def check(data: Optional[Path] = typer.Option(None, "--data", help="A folder in the mt-metrics-eval layout.")) -> None:
    """Read every file of a WMT23-style folder and report what it holds (or the first bad line)."""
    from tribunal.eval.data.mtme import LanguagePair, language_pairs

    folder = resolve_wmt23(data)
    for lp in language_pairs(folder):
        pair = LanguagePair(folder, lp)
        for system in pair.system_names:
            pair.system_output(system)
        for ref in pair.ref_names:
            pair.reference(ref)
        _ = pair.documents, pair.gold_seg, pair.gold_sys, pair.gold_domain
        for rating in pair.rating_names:
            pair.ratings(rating)
        for metric in pair.metric_names:
            pair.metric_seg(metric), pair.metric_sys(metric)
        typer.echo(
            f"{lp}: {pair.n_segments} segments, {len(pair.system_names)} outputs, "
            f"{len(pair.rating_names)} rating files, {len(pair.metric_names)} metric files: ok"
        )
