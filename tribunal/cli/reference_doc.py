"""The CLI reference as markdown, generated from the Typer app (the docs site's ``reference/cli.md``).

Walks the click tree Typer builds (:func:`typer.main.get_command`; Typer 0.29 carries its own copy of
click, so the tree is read by its attributes rather than by click's classes), so every command, argument and
option appears with its help text, placeholder and default as ``--help`` shows them; nothing is
copied by hand. ``docs/hooks.py`` calls :func:`cli_reference_markdown` when the site is built.
"""

from __future__ import annotations

import inspect
from typing import Any, Iterator
import typing
import typer

from tribunal.cli import app


def tribunal_command() -> Any:
    """The root click command of ``tribunal`` (the same object ``tribunal --help`` renders)."""
    return typer.main.get_command(app)


def walk(command: Any, path: tuple[str, ...] = ("tribunal",)) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command under ``command`` (itself first), depth first, sub-commands in name order."""
    yield path, command
    if hasattr(command, "commands"):
        for name in sorted(command.commands):
            sub = command.commands[name]
            if not sub.hidden:
                yield from walk(sub, (*path, name))


def option_names(param: Any) -> list[str]:
    """What a user types for ``param``: ``--lm``, ``--cache / --no-cache``, or the argument's name."""
    if _is_argument(param):
        return [(param.metavar or param.name).upper()]
    return [*param.opts, *param.secondary_opts]


def _is_argument(param: Any) -> bool:
    return param.param_type_name == "argument"


def _escape(text: str) -> str:
    """Square brackets are option syntax here (``[:A-B]``), not markdown reference links."""
    return text.replace("[", "\\[").replace("]", "\\]")


def _cell(text: str | None) -> str:
    return _escape(" ".join((text or "").split()).replace("|", "\\|"))


def _params_table(command: Any) -> list[str]:
    """The options as ``--help`` lists them: the help record of each (names and placeholder, help and default)."""
    ctx = command.context_class(command)
    rows = []
    for param in command.params:
        record = None if getattr(param, "hidden", False) else param.get_help_record(ctx)
        if record is None:
            continue
        usage, help_text = record
        if _is_argument(param):
            usage = (param.metavar or param.name).upper()
        rows.append(f"| `{_cell(usage)}` | {_cell(help_text)} |")
    if not rows:
        return []
    return ["| option | what it does |", "|---|---|", *rows, ""]


def _epilog(command: Any) -> list[str]:
    text = (command.epilog or "").replace("\b\n", "").strip()
    return ["```text", text, "```", ""] if text else []


def cli_reference_markdown() -> str:
    """One section per command: usage, description, the options table, the examples."""
    lines: list[str] = []
    for path, command in walk(tribunal_command()):
        name = " ".join(path)
        level = "#" * min(len(path) + 1, 4)
        lines += [f"{level} `{name}`", ""]
        usage = " ".join(command.collect_usage_pieces(command.context_class(command)))
        lines += ["```text", f"{name} {usage}".rstrip(), "```", ""]
        help_text = inspect.cleandoc(command.help or "")
        if help_text:
            lines += [_escape(help_text.replace("\b\n", "")), ""]
        lines += _params_table(command)
        lines += _epilog(command)
    return "\n".join(lines)


def _type_name(annotation: Any) -> str:
    if typing.get_origin(annotation) is typing.Literal:
        return " | ".join(str(value) for value in typing.get_args(annotation))
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return str(annotation).replace("typing.", "").replace("pathlib.", "")


def _field_rows(model: Any, prefix: str = "") -> Iterator[str]:
    from pydantic import BaseModel  # heavy: pydantic

    for name, field in model.model_fields.items():
        if name == "settings" and not prefix:
            continue  # the program's own settings: listed per judge, under its section (_judge_section_rows)
        key = f"{prefix}{name}"
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _field_rows(annotation, f"{key}.")
            continue
        kind = _type_name(annotation)
        default = "" if field.is_required() else f"`{field.get_default(call_default_factory=True)!r}`"
        yield f"| `{key}` | `{_cell(str(kind))}` | {default} | {_cell(field.description)} |"


def config_keys_markdown() -> str:
    """The keys of ``mt evaluate --config FILE`` (:class:`EvaluateConfig`, nested models dotted)."""
    from tribunal.eval.mt.config import EvaluateConfig  # heavy: pulls in dspy, pydantic

    return "\n".join(["| key | type | default | meaning |", "|---|---|---|---|", *_field_rows(EvaluateConfig),
                      *_judge_section_rows()])


def _judge_section_rows() -> Iterator[str]:
    """The settings of each judge, under its section (``mmad.preset``): the registry's settings models."""
    from tribunal.core.judges import JUDGES  # startup: kept out of `tribunal --help`
    from tribunal.core.setting_assignments import settings_info  # startup: kept out of `tribunal --help`

    for judge in JUDGES:
        for info in settings_info(judge) if judge.kind == "mt" else []:
            meaning = f"{judge.title}: {info.description}" if info.description else judge.title
            yield (f"| `{judge.settings.section}.{info.name}` | `{_cell(info.type)}` | `{_cell(info.default)}` | "
                   f"{_cell(meaning)} |")
