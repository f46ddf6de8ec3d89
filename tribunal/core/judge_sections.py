"""A run's judge settings read from its config: the chosen judge's section (``[mmad]``) or ``settings``.

A config file keeps one section per judge's settings, named by the judge's registry entry
(``Settings.section``); the run holds the chosen judge's alone, validated by its settings model. A
section of another judge is refused with a one-line error naming the judge that takes it, so a
setting never silently does nothing.
"""

from __future__ import annotations

from pydantic_core import PydanticCustomError

from tribunal.core.judge_settings import JudgeSettings
from tribunal.core.judges import JUDGES, Judge


def sections_read(data: object) -> object:
    """``data`` (a run's raw values) with the chosen judge's section moved to ``settings``.

    Raises a one-line error for a section of another judge (or settings for a judge without any).
    """
    if not isinstance(data, dict):
        return data
    values = dict(data)
    program = values.get("program") or JUDGES.default("mt")
    judge = JUDGES.find(program) if isinstance(program, str) else None
    for owner in JUDGES:
        section = owner.settings.section if owner.settings else None
        if section is None or section not in values:
            continue
        given = values.pop(section)
        if judge is not None and owner is not judge:
            raise PydanticCustomError("judge_section", "[{section}]: {owner}'s settings (--program {name}), but the "
                                      "program is {program} ({its})", {
                                          "section": section, "owner": owner.title, "name": owner.name,
                                          "program": judge.name, "its": _its_section(judge)})
        values["settings"] = given
    return values


def _its_section(judge: Judge) -> str:
    return f"its settings: [{judge.settings.section}]" if judge.settings else "it takes no settings"


def judge_settings(judge: Judge | None, value: object) -> JudgeSettings | None:
    """``value`` (a dict, a settings model or None) as ``judge``'s settings model; None for a judge without."""
    if judge is None:
        return None  # the program's own validation names the judges
    if judge.settings is None:
        if value:
            raise PydanticCustomError("judge_section", "{name} takes no settings", {"name": judge.name})
        return None
    model = judge.settings_model()
    if isinstance(value, model):
        return value
    if isinstance(value, JudgeSettings):
        raise PydanticCustomError("judge_section", "{given} are not {name}'s settings ({model})", {
            "given": type(value).__name__, "name": judge.name, "model": model.__name__})
    return model.model_validate(value if value is not None else {})
