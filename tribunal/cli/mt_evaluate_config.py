"""From the options of ``tribunal mt evaluate`` to its :class:`~tribunal.eval.mt.config.EvaluateConfig`:
the ``--config`` file under the flags (a tuned export brings its program and settings), the judge's
settings (``-S``, its flags), the defaults, and one-line refusals of what the run would ignore or lacks."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tribunal.cli.common import data_root
from tribunal.cli.errors import UserError
from tribunal.cli.lm_options import check_rates, check_timeout, parse_server_slots
from tribunal.cli.setting_flags import setting_values
from tribunal.core.judges import JUDGES, Judge

if TYPE_CHECKING:
    from tribunal.eval.mt.config import EvaluateConfig


def owned_options() -> dict[str, Judge]:
    """``{option: judge}`` of the run options only one judge takes (its registry entry's ``options``, e.g.
    ``--demos``); the other judges refuse them. Read when called: a judge registered later counts."""
    return {option: judge for judge in JUDGES for option in judge.options}


def evaluate_config(options: SimpleNamespace) -> EvaluateConfig:
    """The run's ``EvaluateConfig`` from the command's options (by parameter name); a UserError in one
    line for a file that cannot be read, a missing language pair, LM or data folder, or an invalid value."""
    from tribunal.service.judging import JobRequest, configure, layered  # startup: kept out of `tribunal --help`
    from tribunal.eval.mt.config import load_config_file  # heavy: pulls in dspy
    from tribunal.programs.lm import parse_role_lms  # startup: kept out of `tribunal --help`

    check_timeout(options.timeout)
    check_rates(options.rpm, options.tpm)
    try:
        base = load_config_file(options.config) if options.config else {}
        roles = parse_role_lms(options.role_lm) if options.role_lm else None
    except (OSError, ValueError) as err:
        raise UserError(str(err)) from None
    role_lms = {r: m.model_dump(exclude_none=True) for r, m in roles.items()} if roles else None
    # A tuned export brings its program and settings; explicit flags still override the settings.
    merged = layered(JobRequest(base=base, given=flag_fields(options, role_lms)))
    given = {"--demos": options.demos, "--routing": options.routing, "--batch-poll": options.batch_poll,
             "--combine": options.combine}
    refuse_conflicts(merged, {k: v for k, v in given.items() if v is not None})
    merged = _with_settings(merged, options.settings_given, options.setting_flags or {})
    _check_required(merged)
    try:
        settings = configure(merged)
    except ValidationError as err:
        raise UserError(validation_line(err, merged)) from None
    if settings.data is None or not (Path(settings.data) / "sources").is_dir():
        raise UserError(f"{settings.data}: not a folder in the mt-metrics-eval layout (pass --data)")
    return settings


def flag_fields(o: SimpleNamespace, role_lms: dict | None) -> dict[str, Any]:
    """The configuration's fields the flags give (None where a flag is not given: the file's value stands)."""
    return {"lp": o.lp, "data": o.data, "program": o.program, "role_lms": role_lms,
            "lm": {"model": o.lm, "api_base": o.api_base[0] if o.api_base else None, "api_key_env": o.api_key_env,
                   "cache": o.cache, "reasks": o.reasks, "temperature": o.temperature, "max_tokens": o.max_tokens,
                   "timeout": o.timeout, "server_slots": parse_server_slots(o.server_slots), "rpm": o.rpm,
                   "tpm": o.tpm},
            "segment": {"reference": o.reference, "context": o.context},
            "sampling": {"samples": o.samples, "combine": o.combine},
            "router": {"endpoints": list(o.api_base) if o.api_base and len(o.api_base) > 1 else None,
                       "strategy": o.routing},
            "batch": {"enabled": o.batch, "poll_seconds": o.batch_poll},
            "systems": list(o.systems) if o.systems else None, "limit": o.limit, "rated_only": o.rated_only,
            "concurrency": o.concurrency, "judging": o.judging, "processes": o.processes, "demos": o.demos,
            "out": o.out, "name": o.name, "retry_unscored": o.retry_unscored, "strict": o.strict,
            "degraded": o.degraded}


def _check_required(merged: dict) -> None:
    """The data folder's default (``$TRIBUNAL_DATA/wmt23``) into ``merged``; a language pair and an LM required."""
    if not merged.get("data"):
        root = data_root()
        merged["data"] = root / "wmt23" if root else None
    if not merged.get("lp"):
        raise UserError("no language pair: pass --lp LP (e.g. zh-en) or set lp in --config")
    lm_table = merged.get("lm")
    if not isinstance(lm_table, dict) or not lm_table.get("model"):
        raise UserError("no LM: pass --lm MODEL (e.g. openai/gpt-4o-mini) or set lm.model in --config")


def _with_settings(merged: dict, assignments: list[str] | None, flags: dict) -> dict:
    """``merged`` with the command line's settings of its program (``-S``, the judge's flags) in its section."""
    from tribunal.service.judging import JobRequest, layered  # startup: kept out of `tribunal --help`

    judge = JUDGES.find(merged.get("program") or JUDGES.default("mt"))
    values = setting_values(judge, assignments, flags) if judge is not None else {}
    return layered(JobRequest(base=merged, settings=values)) if values else merged


def validation_line(err: ValidationError, merged: dict) -> str:
    """The first error of a configuration, on one line: ``mmad.rounds: Input should be ...`` (a judge's
    settings named by its section, as the config file writes them)."""
    first = err.errors()[0]
    loc = [str(part) for part in first["loc"]]
    judge = JUDGES.find(merged.get("program") or JUDGES.default("mt"))
    if loc[:1] == ["settings"] and judge is not None and judge.settings is not None:
        loc[0] = judge.settings.section
    return f"{'.'.join(loc)}: {first['msg']}" if loc else first["msg"]


def refuse_conflicts(merged: dict, given: dict) -> None:
    """One-line refusals of options the resolved configuration would silently ignore."""
    program = merged.get("program") or JUDGES.default("mt")
    for option, owner in owned_options().items():
        if option in given and program != owner.name:
            raise UserError(f"{option}: an {owner.title} setting, but the program is {program} (drop {option}, "
                            f"or use --program {owner.name})")
    endpoints = (merged.get("router") or {}).get("endpoints") or []
    if "--routing" in given and len(endpoints) < 2:
        raise UserError("--routing: balances several endpoints; give --api-base more than once")
    if "--batch-poll" in given and not (merged.get("batch") or {}).get("enabled"):
        raise UserError("--batch-poll: only used with --batch")
    if "--combine" in given and int((merged.get("sampling") or {}).get("samples") or 1) < 2:
        raise UserError("--combine: combines the judgments of --samples K; give --samples 2 or more")
