"""A judge's settings given as ``key=value`` (``mt evaluate -S rounds=2``), checked against its settings model.

The names are checked here (a one-line error naming the judge and its settings); the values are checked
by the model when the run's configuration is validated, with the config file's section merged under
them. A list setting takes comma-separated values (``-S ablate=stage2,stage3``).
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Iterable, Mapping

from pydantic import TypeAdapter, ValidationError

from tribunal.core.judges import Judge
from tribunal.errors import UserError


def parse_assignments(items: Iterable[str], flag: str = "-S") -> dict[str, str]:
    """``["k=v", ...]`` -> ``{k: v}``; a one-line UserError for a malformed or repeated one."""
    values: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise UserError(f"{flag} {item}: expected KEY=VALUE (e.g. {flag} rounds=2)")
        if key in values:
            raise UserError(f"{flag} {key}: given twice")
        values[key] = value.strip()
    return values


def is_list(annotation: object) -> bool:
    """Whether a setting holds several values (a tuple or list field)."""
    return typing.get_origin(annotation) in (tuple, list)


def judge_values(judge: Judge, values: Mapping[str, object], flag: str = "-S") -> dict[str, object]:
    """``values`` checked against ``judge``'s settings: list settings split at commas; a one-line UserError for
    a name the judge does not have (naming its settings) or any value for a judge without settings."""
    if not values:
        return {}
    shown = next(iter(values))
    model = judge.settings_model()
    if model is None:
        raise UserError(f"{flag} {shown}={values[shown]}: {judge.title} ({judge.name}) takes no settings")
    fields = model.model_fields
    for key, value in values.items():
        if key not in fields:
            raise UserError(f"{flag} {key}={value}: {judge.title} has no setting {key!r} "
                            f"(its settings: {', '.join(fields)})")
    return {key: _typed(fields[key].annotation, value) for key, value in values.items()}


def _typed(annotation: object, value: object) -> object:
    """A command-line string as its setting's type takes it: a list split at commas, a number or flag read as
    JSON where the type wants one (``orders=2`` for ``Literal[1, 2]``); left as given when neither fits (the
    settings model then says what is wrong)."""
    if not isinstance(value, str):
        return value
    if is_list(annotation):
        return [part.strip() for part in value.split(",") if part.strip()]
    adapter = TypeAdapter(annotation)
    try:
        adapter.validate_python(value)
        return value
    except ValidationError:
        pass
    try:
        return adapter.validate_json(value)
    except ValidationError:
        return value


@dataclass(frozen=True)
class SettingInfo:
    """One setting of a judge, as ``tribunal mt judges`` and the configuration reference list it."""

    name: str
    type: str
    default: str
    description: str


def settings_info(judge: Judge) -> list[SettingInfo]:
    """Each setting of ``judge``'s settings model: name, type, default, description (empty for none)."""
    model = judge.settings_model()
    if model is None:
        return []
    return [SettingInfo(name, type_name(field.annotation), _default(field.get_default(call_default_factory=True)),
                        field.description or "") for name, field in model.model_fields.items()]


def type_name(annotation: object) -> str:
    """A field's type as a reader writes it: ``paper | lean``, ``int``, ``list of stage1 | stage2``."""
    if typing.get_origin(annotation) is typing.Literal:
        return " | ".join(str(value) for value in typing.get_args(annotation))
    if is_list(annotation):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        return "list of " + (type_name(args[0]) if args else "str")
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _default(value: object) -> str:
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value)) or "(none)"
    return str(value)
