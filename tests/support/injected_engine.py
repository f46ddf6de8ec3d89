"""Injecting a scripted engine into ``tribunal optimize`` (the hook :data:`tribunal.optimizers.lm_roles.test_engine_factory`).

The hook is an attribute set in the test's own process, never an environment variable naming a
module: ``use_engine(monkeypatch, "tests.optimizers.toy_task:engine")`` imports the factory here, in
test code, and monkeypatch puts the hook back when the test ends.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable


def use_engine(monkeypatch: Any, factory: str | Callable[[str, str], Any] | None) -> None:
    """Route every optimize role's LM to ``factory(role, model)`` (a ``"module:attribute"`` path or the
    callable itself; None: the real HTTP engine again) for the rest of the test."""
    from tribunal.optimizers import lm_roles

    if isinstance(factory, str):
        module, _, attribute = factory.partition(":")
        factory = getattr(importlib.import_module(module), attribute)
    monkeypatch.setattr(lm_roles, "test_engine_factory", factory)
