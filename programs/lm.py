"""Language-model settings and construction; secrets come only from the environment.

A role (dimension agent, debater, judge, ...) may run on its own LM: ``--role-lm judge=MODEL``.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class LMSettings(BaseModel):
    """How to reach one LM. The API key is never a field: only the name of its env variable."""

    model_config = ConfigDict(extra="forbid")

    model: str
    api_base: str | None = None
    api_key_env: str | None = Field(
        None, description="Environment variable holding the API key (default: the provider's usual one)."
    )
    temperature: float | None = 0.0
    max_tokens: int | None = None
    num_retries: int = 5
    timeout: float | None = 120.0
    cache: bool = Field(True, description="Reuse DSPy's response cache (keyed by model, endpoint and request); "
                                          "answers from it are counted apart and cost nothing.")
    engine: Literal["auto", "litellm", "lm15"] = "auto"
    reasks: int = Field(2, ge=0, le=10, description="Times an unusable answer (a refusal, an unreadable, invalid or "
                                                    "truncated one) is asked again before its item is unscored "
                                                    "(tribunal.programs.answers.reask).")

    def public(self) -> dict[str, Any]:
        """What may be logged: everything here (no secret is a field)."""
        return self.model_dump()


def endpoint_label(api_base: str | None) -> str:
    """The endpoint as it may be logged: scheme, host, port and path (no credentials, no query)."""
    if not api_base:
        return "default"
    from urllib.parse import urlsplit

    parts = urlsplit(api_base)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}" if parts.scheme else api_base.split("?")[0]


def build_lm(settings: LMSettings, engine: Any = None):
    """A ``dspy.LM`` for the settings; ``engine`` replaces the HTTP engine (scripted tests)."""
    import dspy

    from tribunal.programs import dspy_speedups, response_cache

    dspy_speedups.install()
    response_cache.install()

    kwargs: dict[str, Any] = dict(
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        num_retries=settings.num_retries,
        cache=settings.cache,
    )
    from tribunal.programs.answers.reask import set_reasks

    if engine is not None:
        return set_reasks(dspy.LM(settings.model, engine=engine, **kwargs), settings.reasks)
    if settings.api_base:
        kwargs["api_base"] = settings.api_base
    if settings.timeout:
        kwargs["timeout"] = settings.timeout
    if settings.api_key_env:
        key = os.environ.get(settings.api_key_env)
        if not key:
            raise ValueError(f"environment variable {settings.api_key_env} (the API key) is not set")
        kwargs["api_key"] = key
    return set_reasks(dspy.LM(settings.model, engine=settings.engine, **kwargs), settings.reasks)


class RoleLM(BaseModel):
    """One role's own LM: a model, optionally on its own endpoint (other settings: the default LM's)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    api_base: str | None = None
    api_key_env: str | None = None

    def label(self) -> str:
        """``model`` or ``model@endpoint`` (no credentials) for signatures and params."""
        return self.model if not self.api_base else f"{self.model}@{endpoint_label(self.api_base)}"


def parse_role_lms(values: list[str] | None) -> dict[str, RoleLM]:
    """``["judge=openai/gpt-4o", "defender=openai/qwen@http://host:8000/v1"]`` -> ``{role: RoleLM}``."""
    roles: dict[str, RoleLM] = {}
    for value in values or []:
        role, sep, spec = value.partition("=")
        model, at, api_base = spec.strip().partition("@")
        if not sep or not role.strip() or not model.strip() or (at and not api_base.strip()):
            raise ValueError(f"--role-lm {value!r}: expected ROLE=MODEL or ROLE=MODEL@API_BASE")
        roles[role.strip()] = RoleLM(model=model.strip(), api_base=api_base.strip() or None)
    return roles


def role_lm(value: "str | RoleLM | dict") -> RoleLM:
    """A role's LM from a config value: a model name, or a table with model / api_base / api_key_env."""
    if isinstance(value, RoleLM):
        return value
    return RoleLM(model=value) if isinstance(value, str) else RoleLM.model_validate(value)


def build_role_lms(settings: LMSettings, roles: dict[str, Any], engine: Any = None) -> dict[str, Any]:
    """One LM per role: the default settings with the role's model (and endpoint and key, if it has them)."""
    built = {}
    for role, value in roles.items():
        own = role_lm(value)
        update = {"model": own.model} | {k: v for k, v in (("api_base", own.api_base),
                                                           ("api_key_env", own.api_key_env)) if v}
        built[role] = build_lm(settings.model_copy(update=update), engine)
    return built
