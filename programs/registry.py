"""Named judge programs. Commands take ``--program NAME`` (or an exported file) and build here.

The names are those of the judge registry (:data:`tribunal.core.judges.JUDGES`), whose builders are
``module:attribute`` paths imported on first use, so listing names costs nothing.
"""

from __future__ import annotations

from typing import Any, Callable

from tribunal.core.judges import JUDGES, Judge
from tribunal.errors import UserError


def register_program(name: str, factory: str | Callable[..., Any]) -> None:
    """Register a factory (a callable or a ``"module:attribute"`` path) under ``name``.

    The program says what it judges (``judge_kind``); a judge with more to declare (settings,
    demos, labels) is a :class:`~tribunal.core.judges.Judge` added to the registry.
    """
    JUDGES.add(Judge(name, factory))


def program_names() -> list[str]:
    """Every registered program name."""
    return sorted(JUDGES.names())


def program_factory(name: str) -> Callable[..., Any]:
    """The factory registered under ``name``; a clear error for unknown names."""
    judge = JUDGES.find(name)
    if judge is None:
        raise UserError(f"unknown program {name!r} (available: {', '.join(program_names())})")
    return judge.factory()


def build_program(name: str, **config: Any) -> Any:
    """Build a fresh, untuned program by name."""
    return program_factory(name)(**config)
