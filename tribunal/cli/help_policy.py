"""What every command gets, in one place: the output policy and readable option placeholders.

:func:`apply_policy` walks the Typer app once, at start-up:

- each command body runs inside :func:`tribunal.quiet.command_output` (libraries quiet unless
  ``--verbose``; tribunal's own lines on the real stdout/stderr);
- each option without a placeholder gets one from :data:`PLACEHOLDERS` or its type (``--lm MODEL``,
  ``--limit N``), instead of Typer's ``<list[str]>``.

Examples live in each command's ``epilog`` (:func:`examples`), so ``--help`` ends with one.
"""

from __future__ import annotations

import functools
import inspect
import typing
from pathlib import Path
from typing import Any, Callable
import typer.models

from tribunal.quiet import command_output

PLACEHOLDERS = {
    "--lm": "MODEL", "--teacher-lm": "MODEL", "--prompt-lm": "MODEL", "--judge-lm": "MODEL",
    "--embedder": "MODEL", "--api-base": "URL", "--api-key-env": "VAR", "--tracking-uri": "URI",
    "--experiment": "NAME", "--role-lm": "ROLE=MODEL[@URL]", "--set": "KEY=VALUE", "--lp": "LP",
    "--data": "DIR", "--dest": "DIR", "--scores": "DIR", "--config": "FILE", "--suite": "FILE",
    "--pairs": "FILE", "--instance": "FILE", "--output": "FILE", "--metric": "NAME", "--name": "NAME",
    "--systems": "SYSTEM", "--train": "SPEC", "--dev": "SPEC", "--filter": "FILTER", "--url": "URL",
}
_BY_TYPE = {int: "N", float: "X", Path: "PATH", str: None}
VERBOSE_NOTE = "Add --verbose anywhere to also see what DSPy, MLflow, LiteLLM and other libraries log and print."


def examples(*commands: str) -> str:
    """An ``epilog`` listing example command lines, kept as written (never re-wrapped)."""
    title = "Example:" if len(commands) == 1 else "Examples:"
    return "\b\n" + title + "\n" + "\n".join(f"  {c}" for c in commands)


def _base_type(annotation: Any) -> Any:
    """``Optional[List[Path]]`` -> ``Path``."""
    while typing.get_origin(annotation) is not None:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if not args:
            break
        annotation = args[0]
    return annotation


def _placeholder(info: Any, annotation: Any) -> str | None:
    names = [d for d in info.param_decls or () if d.startswith("--")]
    for name in names:
        if name in PLACEHOLDERS:
            return PLACEHOLDERS[name]
    kind = _base_type(annotation)
    if kind is bool:
        return None
    if kind in _BY_TYPE and _BY_TYPE[kind]:
        return _BY_TYPE[kind]
    return names[0].lstrip("-").split("-")[-1].upper() if names else None


def _label_options(callback: Callable[..., Any]) -> None:
    hints = typing.get_type_hints(callback)
    for name, parameter in inspect.signature(callback).parameters.items():
        info = parameter.default
        if isinstance(info, typer.models.OptionInfo) and info.metavar is None:
            info.metavar = _placeholder(info, hints.get(name))



def quiet_command(callback: Callable[..., Any]) -> Callable[..., Any]:
    """``callback`` running under the output policy (Typer still reads its signature)."""

    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        with command_output():
            return callback(*args, **kwargs)

    return run


def commands(app: Any) -> list[Any]:
    """Every registered command info of ``app`` and its sub-apps."""
    found = list(app.registered_commands)
    for group in app.registered_groups:
        found += commands(group.typer_instance)
    return found


def apply_policy(app: Any) -> None:
    """Wrap every command of ``app`` once and give its options placeholders."""
    for info in commands(app):
        if getattr(info.callback, "__wrapped__", None) is None:
            _label_options(info.callback)
            info.callback = quiet_command(info.callback)
            info.epilog = "\n\n".join(filter(None, [info.epilog, VERBOSE_NOTE]))
