"""The debate strategies by name: the built-in ones (consensus, deliberation, the reviews) and any registered.

Importing this module loads the built-in strategies, which register themselves with
:func:`tribunal.programs.mqm.debate.register_strategy`.
"""

from __future__ import annotations

from typing import Any

from tribunal.programs.mqm import consensus, deliberation, review  # noqa: F401  (they register)
from tribunal.programs.mqm.debate import STRATEGIES


def strategy_names() -> list[str]:
    """The names of the strategies one can choose, sorted."""
    return sorted(STRATEGIES)


def make_strategy(name: str, **kwargs: Any) -> Any:
    """An instance of the strategy ``name``; a clear error for an unknown name."""
    if name not in STRATEGIES:
        raise ValueError(f"unknown debate strategy {name!r}; choose one of {', '.join(sorted(STRATEGIES))}")
    return STRATEGIES[name](**kwargs)
