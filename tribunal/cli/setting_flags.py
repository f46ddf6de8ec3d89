"""The command-line flags of judges' settings: ``-S KEY=VALUE`` and each flag a registry entry declares.

``-S`` (repeatable, inspect_ai's convention for task arguments) sets any setting of the chosen judge's
settings model. A judge's entry may also declare flags standing for its settings (``Judge.aliases``:
M-MAD's ``--rounds`` is ``-S rounds=``); :func:`with_setting_flags` gives a Typer command one option per
such flag, read from the registry, so ``tribunal/cli`` names none of them and ``--help`` and the CLI
reference list them. A flag of a judge other than the chosen one is refused with a one-line error.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, List, Optional

import typer

from tribunal.core.judges import JUDGES, Alias, Judge
from tribunal.core.setting_assignments import judge_values, parse_assignments
from tribunal.errors import UserError

SETTING_HELP = ("A setting of the program (repeatable): KEY=VALUE, e.g. -S rounds=2 -S strategy=deliberation; "
                "a list takes comma-separated values (-S ablate=stage2,stage3). `tribunal mt judges` lists each "
                "judge's settings; -S overrides the program's section of --config.")
SettingOption = typer.Option(None, "--setting", "-S", metavar="KEY=VALUE", help=SETTING_HELP)
_PREFIX = "setting_flag_"


def _parameter(flag: str, declared: list[tuple[Judge, Alias]]) -> inspect.Parameter:
    """The Typer parameter of one setting flag (its help from the judges declaring it)."""
    first = declared[0][1]
    choices = [alias.choices for _, alias in declared if alias.choices]
    text = first.help + (f": {', '.join(choices)}." if choices else "")
    kind: Any = Optional[List[str]] if first.repeatable else Optional[int] if first.integer else Optional[str]
    option = typer.Option(None, flag, help=text, metavar=first.metavar)
    return inspect.Parameter(_PREFIX + flag.lstrip("-").replace("-", "_"), inspect.Parameter.KEYWORD_ONLY,
                             default=option, annotation=kind)


def with_setting_flags(command: Callable[..., Any]) -> Callable[..., Any]:
    """``command`` with one option per setting flag of the registry (``Judge.aliases``), placed after
    ``--program``; the command receives them as ``setting_flags={flag: value or None}``."""
    signature = inspect.signature(command, eval_str=True)
    flags = JUDGES.aliases()
    extra = [_parameter(flag, declared) for flag, declared in flags.items()]
    own = [p for p in signature.parameters.values() if p.name != "setting_flags"]
    at = next((k + 1 for k, p in enumerate(own) if p.name == "program"), len(own))
    positional = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]
    parameters = positional[:at] + extra + positional[at:]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        given = {flag: kwargs.pop(_PREFIX + flag.lstrip("-").replace("-", "_"), None) for flag in flags}
        return command(*args, setting_flags=given, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
    del wrapper.__wrapped__  # a command of its own: the help policy (help_policy.apply_policy) still wraps it
    return wrapper


def refuse_foreign_flags(judge: Judge, given: dict[str, Any]) -> None:
    """A one-line UserError for a setting flag ``judge`` does not declare (naming the judges that do)."""
    for flag, value in given.items():
        if value is None or any(alias.flag == flag for alias in judge.aliases):
            continue
        owners = [owner for owner, _ in JUDGES.aliases().get(flag, [])]
        if len(owners) == 1:
            raise UserError(f"{flag}: an {owners[0].title} setting, but the program is {judge.name} (drop {flag}, "
                            f"or use --program {owners[0].name})")
        raise UserError(f"{flag}: program {judge.name} has no setting {flag[2:]!r} (a setting of "
                        f"{', '.join(o.name for o in owners)})")


def setting_values(judge: Judge, assignments: list[str] | None, flags: dict[str, Any]) -> dict[str, Any]:
    """The settings the command line gives ``judge``: its declared flags, then ``-S`` (which wins), names checked."""
    refuse_foreign_flags(judge, flags)
    from_flags = {alias.setting: flags[alias.flag] for alias in judge.aliases if flags.get(alias.flag) is not None}
    return from_flags | judge_values(judge, parse_assignments(assignments or []))
