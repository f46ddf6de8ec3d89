"""The parsed-data cache on the command line: ``mt meta-eval`` / ``mt compare`` fill it unless
``--no-data-cache``, a repeated run reads it, and ``tribunal data cache clear`` empties it."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_cli


def entries(folder: Path) -> list[Path]:
    return sorted((folder / "scores").glob("*.bin"))


def test_meta_eval_fills_and_reuses_the_cache_unless_told_not_to(tiny_mtme, tmp_path, capsys, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("TRIBUNAL_CACHE", str(cache))
    monkeypatch.chdir(tmp_path)
    args = ("mt", "meta-eval", "--data", tiny_mtme, "--no-track")
    off = run_cli(capsys, *args, "--output", tmp_path / "off.tsv", "--no-data-cache")
    assert off.status == 0, off.err
    assert not entries(cache)
    first = run_cli(capsys, *args, "--output", tmp_path / "first.tsv")
    assert first.status == 0, first.err
    assert len(entries(cache)) == 4  # gold and metric, segment and system level
    again = run_cli(capsys, *args, "--output", tmp_path / "again.tsv")
    assert again.status == 0, again.err
    tables = {(tmp_path / f"{name}.tsv").read_text() for name in ("off", "first", "again")}
    assert len(tables) == 1
    signatures = {line for o in (off, first, again) for line in o.out.splitlines() if line.startswith("signature:")}
    assert len(signatures) == 1  # the data hash is the same whether the cache knew the digests or not


def test_compare_without_the_cache_leaves_it_empty(wmt23_root, tmp_path, capsys, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("TRIBUNAL_CACHE", str(cache))
    args = ("mt", "compare", "COMET", "BLEU", "--data", wmt23_root, "--lp", "en-de", "--samples", "10", "--no-track")
    off = run_cli(capsys, *args, "--no-data-cache")
    assert off.status == 0, off.err
    assert not entries(cache)
    on = run_cli(capsys, *args)
    assert on.status == 0, on.err
    assert len(entries(cache)) == 6  # gold and both metrics, segment and system level
    assert on.out == off.out


def test_data_cache_clear_empties_the_cache(tiny_mtme, tmp_path, capsys, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("TRIBUNAL_CACHE", str(cache))
    monkeypatch.chdir(tmp_path)
    assert run_cli(capsys, "mt", "meta-eval", "--data", tiny_mtme, "--no-track").status == 0
    assert entries(cache)
    cleared = run_cli(capsys, "data", "cache", "clear")
    assert cleared.status == 0, cleared.err
    assert cleared.out.startswith(f"removed 4 cached score files (0.0 MB) from {cache / 'scores'}")
    assert not entries(cache)
    again = run_cli(capsys, "data", "cache", "clear")
    assert again.out.startswith("removed 0 cached score files")
