"""``tribunal mt judges``: every MT judge of the registry, with its settings (name, type, default, meaning)."""

from __future__ import annotations

import json

import typer

from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.help_policy import examples
from tribunal.core.judges import JUDGES, Judge
from tribunal.core.setting_assignments import settings_info

EPILOG = examples("tribunal mt judges", "tribunal mt judges --json")
JsonOption = typer.Option(False, "--json", help="Print the judges as one JSON list (each with its settings).")


def judge_record(judge: Judge) -> dict:
    """One judge as ``--json`` prints it: its name, display name, scale, section, flags and settings."""
    return {"name": judge.name, "title": judge.title, "scale": judge.scale, "default": judge.default,
            "section": judge.settings.section if judge.settings else None,
            "flags": {alias.flag: alias.setting for alias in judge.aliases},
            "settings": [vars(info) for info in settings_info(judge)]}


def judge_lines(judge: Judge) -> list[str]:
    """One judge as text: a heading line, then a line per setting (``-S name=VALUE``)."""
    head = f"{judge.name} ({judge.title}, {judge.scale} scale{', the default' if judge.default else ''})"
    infos = settings_info(judge)
    if not infos:
        return [head + ": no settings"]
    flags = {alias.setting: alias.flag for alias in judge.aliases}
    lines = [head + f": settings in [{judge.settings.section}] of --config, or -S NAME=VALUE"]
    for info in infos:
        flag = f", {flags[info.name]}" if info.name in flags else ""
        meaning = f": {info.description}" if info.description else ""
        lines.append(f"  {info.name} ({info.type}; default {info.default}{flag}){meaning}")
    return lines


def judges(as_json: bool = JsonOption) -> None:
    """List the MT judges and each one's settings.

    Each setting with its type, default and meaning.

    A setting is given as ``-S NAME=VALUE`` to ``tribunal mt evaluate`` (or in the judge's section of
    its ``--config`` file), as a field of ``settings`` to the MLflow scorer, and as ``--set NAME=VALUE``
    to ``tribunal optimize``.
    """
    mt = [judge for judge in JUDGES if judge.kind == "mt"]
    console = make_console()
    if as_json:
        line(console, json.dumps([judge_record(judge) for judge in mt]))
        return
    for judge in mt:
        for text in judge_lines(judge):
            line(console, text)
