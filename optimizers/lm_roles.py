"""The LMs of an optimize run, one per role: task, teacher, prompt (proposals / reflection).

Keys come only from the environment (LiteLLM's usual variables); only model names are logged.

Test hook: a test sets :data:`test_engine_factory` (in its own process: ``monkeypatch.setattr``, see
``tests/support/injected_engine.py``) to ``factory(role, model)``, which returns a DSPy engine
(``complete(Request) -> Response``) that replaces the HTTP engine, and the DSPy cache is turned off
(its key ignores custom engines). It exists so tests can drive the real command offline; unset,
nothing here changes. No environment variable names a module to import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from tribunal.errors import UserError
from tribunal.optimizers.lm_calls import ROLE_ATTRIBUTE

test_engine_factory: Callable[[str, str], Any] | None = None
"""The test hook (see the module docstring): None outside tests."""


def _test_engine(role: str, model: str) -> Any:
    return test_engine_factory(role, model) if test_engine_factory is not None else None


@dataclass
class RoleLMs:
    task: Any
    teacher: Any = None
    prompt: Any = None
    models: dict[str, str | None] | None = None

    def params(self) -> dict[str, str | None]:
        """``lm.task``, ``lm.teacher``, ``lm.prompt``: model names only."""
        return {f"lm.{role}": model for role, model in (self.models or {}).items()}


def build_role_lm(role: str, model: str, api_base: str | None, cache: bool = True,
                  api_key_env: str | None = None, limits: dict[str, Any] | None = None) -> Any:
    """A ``dspy.LM`` for one role (the test engine when the hook is set), tagged with ``role``
    (:func:`tribunal.optimizers.lm_calls.lm_role`); ``limits``: max_tokens, timeout, rpm, tpm."""
    from tribunal.programs.lm import LMSettings, build_lm, settings_error  # heavy: pulls in pydantic

    engine = _test_engine(role, model)
    given = {k: v for k, v in (limits or {}).items() if v is not None}
    try:
        settings = LMSettings(model=model, api_base=api_base, api_key_env=api_key_env,
                              cache=cache and engine is None, **given)
        lm = build_lm(settings, engine=engine)
    except ValueError as err:
        raise UserError(f"--{role}-lm {model}: {settings_error(err)}") from None
    setattr(lm, ROLE_ATTRIBUTE, role)  # the call counter's role key (copies the optimizers make keep it)
    return lm


def build_role_lms(task: str, teacher: str | None, prompt: str | None, api_base: str | None,
                   needs_prompt: bool, cache: bool = True, api_key_env: str | None = None,
                   limits: dict[str, Any] | None = None) -> RoleLMs:
    """Task LM always; teacher when asked for; the prompt LM (default: the task model) when needed."""
    prompt_model = (prompt or task) if needs_prompt else None
    return RoleLMs(
        task=build_role_lm("task", task, api_base, cache, api_key_env, limits),
        teacher=build_role_lm("teacher", teacher, api_base, cache, api_key_env, limits) if teacher else None,
        prompt=build_role_lm("prompt", prompt_model, api_base, cache, api_key_env, limits) if prompt_model else None,
        models={"task": task, "teacher": teacher, "prompt": prompt_model},
    )
