"""Named judge programs. Commands take ``--program NAME`` (or an exported file) and build here.

Entries are ``module:factory`` paths imported on first use, so listing names costs nothing.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from tribunal.errors import UserError

_FACTORIES: dict[str, str | Callable[..., Any]] = {}


def register_program(name: str, factory: str | Callable[..., Any]) -> None:
    """Register a factory (a callable or a ``"module:attribute"`` path) under ``name``."""
    _FACTORIES[name] = factory


def program_names() -> list[str]:
    """Every registered program name."""
    return sorted(_FACTORIES)


def program_factory(name: str) -> Callable[..., Any]:
    """The factory registered under ``name``; a clear error for unknown names."""
    if name not in _FACTORIES:
        raise UserError(f"unknown program {name!r} (available: {', '.join(program_names())})")
    factory = _FACTORIES[name]
    if isinstance(factory, str):
        module, _, attribute = factory.partition(":")
        factory = getattr(importlib.import_module(module), attribute)
        _FACTORIES[name] = factory
    return factory


def build_program(name: str, **config: Any) -> Any:
    """Build a fresh, untuned program by name."""
    return program_factory(name)(**config)


# The shipped judges (kinds: see tribunal.optimizers.program_source.PROGRAM_KINDS).
register_program("mmad", "tribunal.programs.mqm.mmad:MMAD")
register_program("gemba-mqm", "tribunal.programs.mqm.gemba:GembaMQMJudge")
register_program("eaprompt", "tribunal.programs.mqm.eaprompt:EAPromptJudge")
register_program("gemba-esa", "tribunal.programs.mqm.esa:GembaESAJudge")
register_program("mqm-ape", "tribunal.programs.mqm.ape:MQMAPEJudge")
register_program("equiv-llm", "tribunal.programs.equiv_judge:EquivalenceJudge")
