"""The LM options every command with an LM shares, and the LM they build.

``--lm MODEL`` (a LiteLLM/DSPy name), ``--api-base URL``, ``--api-key-env VAR`` (the variable
holding the key; the key itself never appears on a command line) and ``--cache/--no-cache``
(DSPy's response cache: on by default, keyed by model, endpoint and request; answers it serves
are counted apart and cost nothing), ``--reasks N`` (unusable answers asked again, default 2),
``--max-tokens N`` (the longest answer), ``--timeout S`` (seconds to wait for an answer) and
``--server-slots N|probe`` (requests the OpenAI-compatible server serves at once: no more are sent,
:mod:`tribunal.programs.server_slots`), ``--rpm N`` / ``--tpm N`` (the provider's requests and tokens per
minute: requests are paced to them, :mod:`tribunal.core.rate_pacer`).
``--lm local`` / ``--lm local/PATH.gguf`` runs a model on this machine (:mod:`tribunal.programs.local_models`).
"""

from __future__ import annotations

import math
from typing import Any, Optional

import typer

from tribunal.cli.errors import UserError

LM_HELP = ("LiteLLM model name, e.g. openai/gpt-4o-mini (the key comes from the provider's usual variable); "
           "local for the bundled 135M model on this machine (the local extra), local/PATH.gguf for a GGUF file.")
API_BASE_HELP = "Base URL of an OpenAI-compatible server (vLLM, Ollama, a gateway)."
API_KEY_ENV_HELP = ("Environment variable holding the API key (default: the provider's usual one, "
                    "e.g. OPENAI_API_KEY); the key never goes on the command line.")
MAX_TOKENS_HELP = ("Most tokens an answer may have (default: 1024 on an OpenAI-compatible server, --api-base, or a "
                   "local model; on a paid API, the limit that fits each role's answer, e.g. 512 for GEMBA-MQM: "
                   "see docs/reference/answer-limits.md).")
TIMEOUT_HELP = "Seconds to wait for an answer before the call is retried (default: 120)."
CACHE_HELP = ("Reuse DSPy's response cache (keyed by model, endpoint and request); answers it serves are "
              "counted apart and cost nothing.")

LmOption = typer.Option(None, "--lm", help=LM_HELP)
ApiBaseOption = typer.Option(None, "--api-base", help=API_BASE_HELP)
ApiKeyEnvOption = typer.Option(None, "--api-key-env", help=API_KEY_ENV_HELP)
CacheOption = typer.Option(True, "--cache/--no-cache", help=CACHE_HELP)
REASKS_HELP = ("Times an unusable answer (a refusal, an unreadable, invalid or cut answer) is asked again, with "
               "what was wrong with it, before its item is unscored (default: 2).")
ReasksOption = typer.Option(None, "--reasks", min=0, max=10, metavar="N", help=REASKS_HELP)
MaxTokensOption = typer.Option(None, "--max-tokens", min=1, metavar="N", help=MAX_TOKENS_HELP)
TimeoutOption = typer.Option(None, "--timeout", metavar="S", help=TIMEOUT_HELP)
SERVER_SLOTS_HELP = ("Requests the OpenAI-compatible server (--api-base) serves at once; no more are sent at once, so "
                     "none waits in its queue while its timeout runs. Default: what the server says (llama.cpp's "
                     "/props total_slots or /slots; the local model: 1), else the run's concurrency. probe: send a "
                     "few one-token requests at once to find out.")
ServerSlotsOption = typer.Option(None, "--server-slots", metavar="N|probe", help=SERVER_SLOTS_HELP)
RPM_HELP = ("Requests per minute the provider allows the model: requests go out paced to it, smoothly (about a "
            "second's worth at once), besides the limits its x-ratelimit-* headers report (default: those only).")
TPM_HELP = ("Tokens per minute the provider allows the model: requests are paced by their prompts' estimated "
            "tokens, corrected by the usage each answer reports (default: the headers' limit only).")
RpmOption = typer.Option(None, "--rpm", metavar="N", help=RPM_HELP)
TpmOption = typer.Option(None, "--tpm", metavar="N", help=TPM_HELP)


def parse_server_slots(value: Optional[str]) -> int | str | None:
    """``--server-slots``: a positive number, ``probe``, or None; a one-line error otherwise."""
    if value is None or value == "probe":
        return value
    try:
        slots = int(value)
    except ValueError:
        slots = 0
    if slots < 1:
        raise UserError(f"--server-slots {value}: expected a number of requests (1 or more) or probe")
    return slots


def check_timeout(timeout: Optional[float]) -> None:
    """A one-line error for a --timeout that is not a positive finite number of seconds."""
    if timeout is not None and (not math.isfinite(timeout) or timeout <= 0):
        raise UserError(f"--timeout {timeout}: must be a positive number of seconds")


def check_rates(rpm: Optional[float], tpm: Optional[float]) -> None:
    """A one-line error for a --rpm or --tpm that is not a positive finite number per minute."""
    for flag, value in (("--rpm", rpm), ("--tpm", tpm)):
        if value is not None and (not math.isfinite(value) or value <= 0):
            raise UserError(f"{flag} {value:g}: must be a positive number per minute")


def lm_limits(reasks: Optional[int], max_tokens: Optional[int], timeout: Optional[float],
              server_slots: Optional[str] = None) -> dict[str, Any]:
    """The ``LMSettings`` fields the options set (an unset option keeps the settings' default)."""
    return {k: v for k, v in (("reasks", reasks), ("max_tokens", max_tokens), ("timeout", timeout),
                              ("server_slots", parse_server_slots(server_slots))) if v is not None}


def cli_lm_settings(lm: Optional[str], api_base: Optional[str], temperature: float, api_key_env: Optional[str] = None,
                    cache: bool = True, reasks: Optional[int] = None, max_tokens: Optional[int] = None,
                    timeout: Optional[float] = None, server_slots: Optional[str] = None) -> Any:
    """The ``LMSettings`` of the shared options (``None`` without ``--lm``); one-line errors for bad values."""
    if not math.isfinite(temperature) or temperature < 0:
        raise UserError(f"--temperature {temperature}: must be a finite number >= 0")
    check_timeout(timeout)
    if lm is None:
        if api_base or api_key_env:
            raise UserError(f"{'--api-base' if api_base else '--api-key-env'} needs --lm MODEL")
        return None
    from tribunal.programs.lm import LMSettings, settings_error  # heavy: pulls in pydantic

    try:
        return LMSettings(model=lm, api_base=api_base, api_key_env=api_key_env, temperature=temperature,
                          cache=cache, **lm_limits(reasks, max_tokens, timeout, server_slots))
    except ValueError as err:
        raise UserError(settings_error(err)) from err


def build_cli_lm(lm: Optional[str], api_base: Optional[str], temperature: float, api_key_env: Optional[str] = None,
                 cache: bool = True, reasks: Optional[int] = None, max_tokens: Optional[int] = None,
                 timeout: Optional[float] = None, server_slots: Optional[str] = None) -> Any:
    """A ``dspy.LM`` from the shared options (``None`` without ``--lm``); one-line errors for bad values."""
    settings = cli_lm_settings(lm, api_base, temperature, api_key_env, cache, reasks, max_tokens, timeout,
                               server_slots)
    if settings is None:
        return None
    from tribunal.programs.lm import build_lm, settings_error  # heavy: pulls in pydantic

    try:
        return build_lm(settings)
    except ValueError as err:
        raise UserError(settings_error(err)) from err


def independent_repeats_notice(repeats: int, temperature: float, what: str) -> str | None:
    """What to tell the user when ``repeats`` judgments meant to be independent run at ``temperature``."""
    if repeats > 1 and temperature == 0:
        return (f"{what}: the {repeats} repeats are fresh calls (never from the response cache), but at "
                "--temperature 0 a deterministic model answers them alike: they measure only the "
                "provider's own nondeterminism")
    return None
