"""A ``lm_roles.test_engine_factory`` factory that remembers the engine it built for each optimize role.

``tribunal optimize`` asks the hook for one engine per role (task, teacher, prompt) with the
model named on the command line; :data:`BUILT` maps ``role -> (model, engine)`` so a test can see
which LM each role got and how much each was used.
"""

from __future__ import annotations

from typing import Any

BUILT: dict[str, tuple[str, Any]] = {}


def engine(role: str, model: str) -> Any:
    """The toy task's engine (knows the shipped suite's labels), recorded under ``role``."""
    from tests.optimizers.toy_task import ToyEngine, suite_oracle

    built = ToyEngine(oracle=suite_oracle())
    BUILT[role] = (model, built)
    return built
