"""Coerce a loosely written value to a signature's output type, without guessing.

Real models write values a person reads unambiguously but that pydantic refuses: ``"Major"`` for the
literal ``"major"``, ``"Untranslated Text"`` or ``"untranslated_text"`` for ``"untranslated text"``,
``"yes"`` for ``True``, ``"3"`` for ``3``, one error object where a list of errors is asked for,
``"Severity"`` as a key, or an extra key such as ``"explanation"`` beside the schema's own.
:func:`coerce` walks the annotation and rewrites only what has exactly one reading; everything
else is left for pydantic to accept or refuse. It never picks a value out of free text ("not the
same" is not ``"same"``).
"""

from __future__ import annotations

import enum
import json
import re
import types
import unicodedata
from typing import Any, Callable, Literal, Union, get_args, get_origin

import json_repair
from pydantic import BaseModel

_TRUE = {"true", "yes", "y", "1"}
_FALSE = {"false", "no", "n", "0"}
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_SEPARATORS = re.compile(r"[\s_\-]+")
_LABEL = re.compile(r"^[A-Za-z][\w ]{0,30}:\s*")
_DECORATION = "*`'\"“”‘’«»"
_HIERARCHY = re.compile(r"\s*(?:/|>|::|:|\|)\s*")
_EMPTY = {"none", "no errors", "no error", "n/a", "na", "empty", "nothing", "[]", "no errors found", "nil", "null"}
_HINT = "# note: the value you produce"  # DSPy's format hint (dspy.adapters.utils.translate_field_type)
_NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}


def normalise_label(text: str) -> str:
    """Case, Unicode form, separators (space, ``_``, ``-``) and markdown emphasis ignored."""
    text = unicodedata.normalize("NFKC", text).strip().strip(_DECORATION).strip().rstrip(".").strip()
    return _SEPARATORS.sub(" ", text).casefold()


def _annotated(label: str) -> re.Pattern:
    words = r"[\s_\-]+".join(map(re.escape, label.split()))
    return re.compile(rf"^[\s*_`'\"]*{words}[*_`'\"]*\s*[(,;:\-–—\[]", re.IGNORECASE)


def _literal(value: Any, allowed: tuple) -> Any:
    if value in allowed or not isinstance(value, str):
        return value
    labels = {normalise_label(a): a for a in allowed if isinstance(a, str)}
    label = normalise_label(value)
    if label in labels:
        return labels[label]
    # A label under its parent: "Accuracy/Mistranslation", "fluency > grammar", "Style: awkward".
    parts = [normalise_label(p) for p in _HIERARCHY.split(value) if p.strip()]
    known = [labels[p] for p in parts if p in labels]
    if len(parts) > 1 and len(known) == 1:
        return known[0]
    # A label followed by its justification: "Major (the meaning changes)", "same - both start ...".
    text = unicodedata.normalize("NFKC", value)
    annotated = [a for a in labels.values() if _annotated(a).match(text)]
    return annotated[0] if len(annotated) == 1 else value


def _bool(value: Any) -> Any:
    if isinstance(value, str):
        word = normalise_label(value)
        word = word.split()[0].rstrip(".,;:!") if word else word
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1):
        return bool(value)
    return value


def _number(value: Any, kind: type) -> Any:
    if isinstance(value, str):
        # "3", "2 (two major errors)", "85/100", "Score: 85": a leading label is dropped, then the
        # number the value starts with, or its only number.
        text = _LABEL.sub("", value.strip().strip(_DECORATION)).strip()
        if normalise_label(text) in _NUMBER_WORDS:
            return _NUMBER_WORDS[normalise_label(text)]
        numbers = _NUMBER.findall(text)
        first = _NUMBER.match(text)
        if first:
            value = float(first.group())
        elif len(numbers) == 1:
            value = float(numbers[0])
        else:
            return value
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def json_at(text: str) -> Any:
    """The JSON value ``text`` starts with (anything after it is ignored); json_repair's reading of a
    damaged one (trailing commas, single quotes); None when neither reads a value."""
    try:
        return json.JSONDecoder().raw_decode(text)[0]
    except json.JSONDecodeError:
        repaired = json_repair.loads(text)
        return None if repaired in ("", None) else repaired


def structured(value: Any, wanted: Callable[[Any], bool] | None = None) -> Any:
    """A JSON value from text: the first complete object or array (a closing remark after it is ignored).

    With ``wanted``, a value it refuses is passed over for the next one that it takes (``[AccuracyError]``
    on a line before the error object, where objects are wanted); if none is taken, the first one.
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    first = None
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    while start >= 0:
        parsed = json_at(text[start:])
        if parsed is not None:
            if wanted is None or wanted(parsed):
                return parsed
            first = parsed if first is None else first
        start = min((i for i in (text.find("[", start + 1), text.find("{", start + 1)) if i >= 0), default=-1)
    return value if first is None else first


def holds_objects(value: Any) -> bool:
    """An object, or a list of objects (or none): what a model, or a list of them, is read from."""
    return isinstance(value, dict) or (isinstance(value, list) and all(isinstance(v, dict) for v in value))


def without_format_hint(text: str) -> str:
    """``"True  # note: the value you produce must be True or False"`` -> ``"True"``: DSPy's own format
    hint echoed after a value is not part of it."""
    cut = text.find(_HINT)
    return text[:cut].rstrip() if cut > 0 else text


def _field_names(model: type[BaseModel], data: dict) -> dict:
    by_label = {normalise_label(name): name for name in model.model_fields}
    renamed: dict[str, Any] = {}
    for key, item in data.items():
        name = key if key in model.model_fields else by_label.get(normalise_label(str(key)))
        if name is not None and name not in renamed:  # unknown keys (an "explanation") are dropped
            renamed[name] = item
    return renamed


def _model(value: Any, model: type[BaseModel]) -> Any:
    value = structured(value, holds_objects)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        value = value[0]
    if not isinstance(value, dict):
        return value
    fields = model.model_fields
    data = _field_names(model, value)
    # null for a field that has a default and takes no None: the default is meant ("is_source_error": null)
    data = {k: v for k, v in data.items() if not (v is None and not fields[k].is_required()
                                                   and not _allows_none(fields[k].annotation))}
    return {name: coerce(item, fields[name].annotation) for name, item in data.items()}


def _allows_none(annotation: Any) -> bool:
    return annotation is None or (get_origin(annotation) in (Union, types.UnionType)
                                  and type(None) in get_args(annotation))


def coerce(value: Any, annotation: Any) -> Any:
    """``value`` rewritten toward ``annotation`` where exactly one reading exists."""
    origin = get_origin(annotation)
    if annotation is str:
        return value if isinstance(value, str) or value is None else json.dumps(value, ensure_ascii=False)
    if annotation is bool:
        return _bool(value)
    if annotation in (int, float):
        return _number(value, annotation)
    if origin is Literal:
        return _literal(value.strip() if isinstance(value, str) else value, get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _literal(value.strip() if isinstance(value, str) else value, tuple(m.value for m in annotation))
    if origin in (list, tuple, set) and get_args(annotation):
        if value is None or (isinstance(value, str) and normalise_label(value).rstrip("!") in _EMPTY):
            return []  # "None", "No errors found.", null: an empty list, said in words
        element = get_args(annotation)[0]
        value = structured(value, holds_objects if isinstance(element, type) and issubclass(element, BaseModel) else None)
        if isinstance(value, dict):  # one object where a list of them is asked for
            value = [value]
        if isinstance(value, list):
            return [coerce(item, element) for item in value]
        return value
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        return coerce(value, members[0]) if len(members) == 1 else value
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model(value, annotation)
    return value
