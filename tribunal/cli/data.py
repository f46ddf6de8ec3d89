"""``tribunal data ...``: fetch test sets in the mt-metrics-eval layout and check a data folder."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tribunal.cli.common import data_root, resolve_wmt23
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.help_policy import examples

app = typer.Typer(no_args_is_help=True)


@app.command("fetch", epilog=examples("tribunal data fetch wmt23",
                                      "tribunal data fetch wmt24 wmt25 --dest ~/data --force"))
def fetch(
    names: List[str] = typer.Argument(..., help="Test sets to fetch: wmt23, wmt24, wmt24pp, wmt25 (several at once)."),
    dest: Optional[Path] = typer.Option(None, "--dest", help="Data root (default: $TRIBUNAL_DATA or ~/.tribunal/data)."),
    url: Optional[str] = typer.Option(None, "--url", help="Archive URL (default: the official mt-metrics-eval archive)."),
    force: bool = typer.Option(False, "--force", help="Replace existing copies."),
) -> None:
    """Download test sets in the mt-metrics-eval layout.

    Downloads the official mt-metrics-eval archive once and unpacks the named test sets into the
    data root (DEST/wmt23, ...), where every command finds them.
    """
    import tempfile  # startup: kept out of `tribunal --help`
    from urllib.error import URLError  # startup: kept out of `tribunal --help`

    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn  # startup: kept out of `tribunal --help`

    from tribunal.data.fetch import MTME_ARCHIVE_URL, TEST_SETS, download, extract_test_sets  # startup: kept out of `tribunal --help`

    unknown = [n for n in names if n not in TEST_SETS]
    if unknown:
        raise UserError(f"unknown test set {unknown[0]!r} (available: {', '.join(TEST_SETS)})")
    names = list(dict.fromkeys(names))
    root = dest or data_root() or Path.home() / ".tribunal" / "data"
    taken = [root / n for n in names if (root / n).exists()]
    if taken and not force:
        raise UserError(f"{taken[0]}: already exists (use --force to replace it)")
    errors = make_console(stderr=True, min_width=100)
    with tempfile.TemporaryDirectory() as tmp, Progress(
        TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(), console=errors,
        disable=not errors.is_terminal, transient=True, redirect_stdout=False, redirect_stderr=False,
    ) as bar:
        task = bar.add_task("downloading the mt-metrics-eval archive", total=None)
        archive = Path(tmp) / "mt-metrics-eval.tgz"
        try:
            download(url or MTME_ARCHIVE_URL, archive, lambda done, total: bar.update(task, completed=done, total=total))
        except (URLError, OSError, ValueError) as err:
            raise UserError(f"download of {url or MTME_ARCHIVE_URL} failed: {err}") from None
        bar.update(task, description=f"unpacking {', '.join(names)}")
        finals = extract_test_sets(archive, root, tuple(names), force)
    console = make_console()
    for name, final in finals.items():
        line(console, f"{name} unpacked to {final}")


@app.command("check", epilog=examples("tribunal data check", "tribunal data check --data ~/.tribunal/data/wmt24"))
def check(data: Optional[Path] = typer.Option(
        None, "--data", help="A folder in the mt-metrics-eval layout (default: $TRIBUNAL_DATA/wmt23).")) -> None:
    """Check a test-set folder, file by file.

    Reads every file (sources, references, system outputs, human scores and ratings, metric
    scores) as the meta-evaluation would and prints what each language pair holds, or stops at
    the first bad line with its file and line number (exit status 2).
    """
    from tribunal.data.mtme import LanguagePair, language_pairs  # heavy: pulls in numpy, pydantic
    from tribunal.eval.meta.lp_tasks import GoldMatrices  # heavy: pulls in numpy, pydantic
    from tribunal.eval.meta.protocols import get_protocol  # startup: kept out of `tribunal --help`

    folder = resolve_wmt23(data)
    console = make_console()
    for lp in language_pairs(folder):
        pair = LanguagePair(folder, lp)
        for system in pair.system_names:
            pair.system_output(system)
        for ref in pair.ref_names:
            pair.reference(ref)
        if (folder / "documents" / f"{lp}.docs").is_file():
            pair.documents
        gold = pair.gold_name
        has_gold = any((folder / "human-scores").glob(f"{lp}.{gold}.s[ey][gs].score"))
        if has_gold:
            _ = pair.gold_seg, pair.gold_sys
            if (folder / "human-scores" / f"{lp}.{gold}.domain.score").is_file():
                pair.gold_domain
            # the same consistency the meta-evaluation requires (every rated system has a system score)
            GoldMatrices.from_pair(pair, need_sys=get_protocol(pair.conventions.protocol).needs_sys_scores)
        for rating in pair.rating_names:
            pair.ratings(rating)
        for metric in pair.metric_names:
            pair.metric_seg(metric), pair.metric_sys(metric)
        line(
            console, f"{lp}: {pair.n_segments} segments, {len(pair.system_names)} outputs, "
            f"{'gold ' + gold if has_gold else 'no gold scores'}, "
            f"{len(pair.rating_names)} rating files, {len(pair.metric_names)} metric files: ok"
        )


cache_app = typer.Typer(no_args_is_help=True)
app.add_typer(cache_app, name="cache", help="The parsed-data cache of score files.")


@cache_app.command("clear", epilog=examples("tribunal data cache clear",
                                            "TRIBUNAL_CACHE=/tmp/c tribunal data cache clear"))
def cache_clear() -> None:
    """Empty the parsed-data cache.

    meta-eval and compare keep each score file they parse as binary arrays in
    $TRIBUNAL_CACHE/scores (else $XDG_CACHE_HOME/tribunal/scores or ~/.cache/tribunal/scores)
    and re-read a file only when it changed. Clearing is never needed for correctness; it frees the space.
    """
    from tribunal.data.score_cache import ScoreCache  # heavy: pulls in numpy

    cache = ScoreCache.default()
    entries, size = cache.clear()
    line(make_console(), f"removed {entries} cached score file{'s' if entries != 1 else ''} "
                         f"({size / 1e6:.1f} MB) from {cache.folder}")
