"""Language-model settings and construction; secrets come only from the environment.

A role (dimension agent, debater, judge, ...) may run on its own LM: ``--role-lm judge=MODEL``.

An OpenAI-compatible server that is not OpenAI (``openai/MODEL`` with an ``api_base``, and the local
models ``local`` / ``local/PATH.gguf``) is reached through :class:`~tribunal.programs.server_engine.ServerEngine`,
which sends the token limit as ``max_tokens`` (the field such servers honour) and asks for JSON the
way the server takes it. There the token limit defaults to :data:`DEFAULT_SERVER_MAX_TOKENS`, so a
runaway answer stops instead of filling the context. On a hosted (paid) provider, each role's answer
is limited to the tokens that fit it, declared per role in the judge registry
(:meth:`~tribunal.core.judges.JudgeRegistry.answer_tokens`, ``docs/reference/answer-limits.md``), not
the provider's maximum: the LM is marked :func:`~tribunal.programs.answers.reask.fit_answers` and each
role's first ask carries its limit.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from urllib.parse import urlsplit

from tribunal.core.pacing_gate import set_pacer
from tribunal.programs.local_models import is_local, local_endpoint, recovery
from tribunal.programs.rate_pacers import pacer_for
from tribunal.programs.server_engine import ServerEngine
from tribunal.programs.server_slots import ServerSlotsSetting, discover

DEFAULT_SERVER_MAX_TOKENS = 1024
"""The token limit of an answer from an OpenAI-compatible server or a local model, unless --max-tokens says."""
DEFAULT_TIMEOUT = 120.0
"""Seconds without an answer before a call times out (and is retried), unless --timeout says."""


class LMSettings(BaseModel):
    """How to reach one LM. The API key is never a field: only the name of its env variable."""

    model_config = ConfigDict(extra="forbid")

    model: str
    api_base: str | None = None
    api_key_env: str | None = Field(
        None, description="Environment variable holding the API key (default: the provider's usual one)."
    )
    temperature: float | None = 0.0
    max_tokens: int | None = Field(None, gt=0, description=(
        "Most tokens an answer may have (default: 1024 on an OpenAI-compatible server or a local model; "
        "on a paid API, the limit that fits each role's answer, docs/reference/answer-limits.md)."))
    num_retries: int = 5
    timeout: float | None = Field(DEFAULT_TIMEOUT, gt=0, description="Seconds to wait for an answer.")
    cache: bool = Field(True, description="Reuse DSPy's response cache (keyed by model, endpoint and request); "
                                          "answers from it are counted apart and cost nothing.")
    engine: Literal["auto", "litellm", "lm15"] = "auto"
    reasks: int = Field(2, ge=0, le=10, description="Times an unusable answer (a refusal, an unreadable, invalid or "
                                                    "truncated one) is asked again before its item is unscored "
                                                    "(tribunal.programs.answers.reask).")

    rpm: float | None = Field(None, gt=0, allow_inf_nan=False, description=(
        "Requests per minute the provider allows this model (--rpm): requests are paced to it, smoothly "
        "(tribunal.core.rate_pacer); unset: only the limits the provider's headers report."))
    tpm: float | None = Field(None, gt=0, allow_inf_nan=False, description=(
        "Tokens per minute the provider allows this model (--tpm): prompts are paced to it by their estimated "
        "tokens, corrected by the usage each answer reports."))

    server_slots: ServerSlotsSetting = Field(None, description=(
        "Requests the OpenAI-compatible server serves at once (--server-slots): N, 'probe', or unset for what "
        "the server says (llama.cpp's /props or /slots); no more are sent at once "
        "(tribunal.programs.server_slots)."))

    @model_validator(mode="after")
    def _server_slots_positive(self) -> "LMSettings":
        if isinstance(self.server_slots, int) and self.server_slots < 1:
            raise ValueError(f"--server-slots {self.server_slots}: must be at least 1 (or probe)")
        return self

    @model_validator(mode="after")
    def _local_runs_its_own_server(self) -> "LMSettings":
        if is_local(self.model) and self.api_base:
            raise ValueError(f"--lm {self.model} starts its own server on this machine: drop --api-base")
        return self

    def public(self) -> dict[str, Any]:
        """What may be logged: everything here (no secret is a field)."""
        return self.model_dump()


def settings_error(err: ValueError) -> str:
    """One line for a refused setting: a validator's own message (it names the option), else the error's first line."""
    errors = getattr(err, "errors", None)
    if callable(errors) and errors():
        return str(errors()[0].get("msg", err)).removeprefix("Value error, ")
    return str(err).split("\n")[0]


def on_server(settings: LMSettings) -> bool:
    """Whether the LM is an OpenAI-compatible server that is not OpenAI (``openai/`` + api_base, or local)."""
    if is_local(settings.model):
        return True
    return (bool(settings.api_base) and settings.model.startswith("openai/") and settings.engine != "litellm"
            and "api.openai.com" not in settings.api_base)


def effective_max_tokens(settings: LMSettings) -> int | None:
    """The token limit the requests carry: the setting, else the server default, else None (the provider's)."""
    if settings.max_tokens is not None:
        return settings.max_tokens
    return DEFAULT_SERVER_MAX_TOKENS if on_server(settings) else None


def fits_answers(settings: LMSettings) -> bool:
    """Whether each role's calls carry the limit that fits its answer: a paid API without ``--max-tokens``."""
    return settings.max_tokens is None and not on_server(settings)


def server_engine(settings: LMSettings) -> tuple[str, Any]:
    """``(model name for DSPy, ServerEngine)`` for an LM :func:`on_server` (starting a local model's server).

    Its connections are one per calling thread, so it has room for any number of call slots."""
    if is_local(settings.model):
        alias, api_base, endpoint = local_endpoint(settings.model)
        found = discover(api_base, setting=settings.server_slots, local=True)
        return f"openai/{alias}", ServerEngine(api_base, timeout=settings.timeout, cache_endpoint=endpoint,
                                               local=True, recover=recovery(settings.model), slots=found.slots)
    key = _api_key(settings)
    found = discover(settings.api_base, settings.model, key, settings.server_slots, timeout=settings.timeout or 120.0)
    return settings.model, ServerEngine(settings.api_base, api_key=key, timeout=settings.timeout, slots=found.slots)


def _api_key(settings: LMSettings) -> str | None:
    if not settings.api_key_env:
        return None
    key = os.environ.get(settings.api_key_env)
    if not key:
        raise ValueError(f"environment variable {settings.api_key_env} (the API key) is not set")
    return key


def endpoint_label(api_base: str | None) -> str:
    """The endpoint as it may be logged: scheme, host, port and path (no credentials, no query)."""
    if not api_base:
        return "default"

    parts = urlsplit(api_base)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}" if parts.scheme else api_base.split("?")[0]


def build_lm(settings: LMSettings, engine: Any = None):
    """tribunal's own ``dspy.LM`` (:class:`~tribunal.programs.tribunal_lm.TribunalLM`) for the settings;
    ``engine`` replaces the HTTP engine (scripted tests). Nothing of DSPy's is changed for it. Its requests
    wait on the rate pacer of its model (:mod:`tribunal.programs.rate_pacers`: ``rpm``, ``tpm``, headers)."""
    from tribunal.programs.answers.reask import fit_answers, set_reasks  # heavy: pulls in dspy
    from tribunal.programs.tribunal_lm import TribunalLM  # heavy: pulls in dspy

    kwargs: dict[str, Any] = dict(
        temperature=settings.temperature,
        max_tokens=effective_max_tokens(settings),
        num_retries=settings.num_retries,
        cache=settings.cache,
    )
    model = settings.model
    if engine is None and on_server(settings):
        model, engine = server_engine(settings)
    if engine is not None:
        endpoint = getattr(engine, "cache_endpoint", None) or settings.api_base
        lm = TribunalLM(model, engine=engine, cache_endpoint=endpoint, **kwargs)
        return fit_answers(set_reasks(set_pacer(lm, pacer_for(settings)), settings.reasks), fits_answers(settings))
    if settings.api_base:
        kwargs["api_base"] = settings.api_base
    if settings.timeout:
        kwargs["timeout"] = settings.timeout
    key = _api_key(settings)
    if key:
        kwargs["api_key"] = key
    lm = TribunalLM(model, engine=settings.engine, cache_endpoint=settings.api_base, **kwargs)
    return fit_answers(set_reasks(set_pacer(lm, pacer_for(settings)), settings.reasks), fits_answers(settings))


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


def role_settings(settings: LMSettings, roles: dict[str, Any]) -> dict[str, LMSettings]:
    """Each role's settings: the default ones with the role's model (and endpoint and key, if it has them)."""
    resolved = {}
    for role, value in roles.items():
        own = role_lm(value)
        update = {"model": own.model} | {k: v for k, v in (("api_base", own.api_base),
                                                           ("api_key_env", own.api_key_env)) if v}
        if is_local(own.model):  # a local model runs its own server, whatever the default LM's endpoint
            update["api_base"] = None
        resolved[role] = settings.model_copy(update=update)
    return resolved


def build_role_lms(settings: LMSettings, roles: dict[str, Any], engine: Any = None) -> dict[str, Any]:
    """One LM per role (:func:`role_settings`)."""
    return {role: build_lm(own, engine) for role, own in role_settings(settings, roles).items()}
