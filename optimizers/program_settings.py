"""Program settings (``--set KEY=VALUE``): validated by the program's own config, stored as JSON.

A program's *config* is the JSON object an export records (``program.config``) and loading
rebuilds from, so a tuned M-MAD with ``ablate=stage2`` comes back with the same structure.
How a config becomes constructor arguments is per program (its entry in :data:`tribunal.core.judges.JUDGES`):

- :class:`ModelSettings`: one pydantic model passed as a single keyword (M-MAD's ``MMADConfig``,
  GEMBA-ESA's ``ESAConfig``, MQM-APE's ``APEConfig``);
  list-valued fields take comma-separated values (``--set ablate=stage2,stage3``);
- :class:`KeywordSettings` (every other program): the constructor's own keywords, e.g.
  ``EquivalenceJudge(rubric=...)``; values the constructor rejects are reported at build time.

Every MT program also takes the segment inputs ``reference`` and ``context``
(:class:`~tribunal.programs.mqm.segment_inputs.SegmentInputs`), kept in the same config. Sampled
ensembles (``samples``, ``combine``) are a setting of the run (``mt evaluate --samples K``), not
of the program: optimizers judge each example once, so ``--set samples=`` is refused.
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass
from typing import Any, Iterable, get_origin

from pydantic import ValidationError

from tribunal.core.judges import JUDGES, build_judge
from tribunal.errors import UserError
from tribunal.programs.registry import program_factory

# Setting names that would carry a credential (not "max_tokens"): refused, their value never echoed.
_CREDENTIAL_KEY = re.compile(r"(api[_-]?key|secret|password|passwd|authorization|bearer|(^|_)token$|access[_-]?key)",
                             re.IGNORECASE)

# Constructor parameters that are wiring, not settings (LMs come from --lm and the role options).
NOT_SETTINGS = frozenset({"lms", "lm"})


def _shown(text: str) -> str:
    """``text`` when it reads as a setting name; anything else (a pasted key?) is not echoed."""
    return text if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]{0,39}", text) else "(argument not shown)"


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """``["k=v", ...]`` -> ``{k: v}``; a one-line UserError for a malformed or repeated key.

    Credentials never come from ``--set`` (they come from the environment), and an argument that
    is not a plausible setting name is not echoed back: it may be a key pasted in the wrong place.
    """
    values: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UserError(f"--set {_shown(item.strip())}: expected KEY=VALUE")
        if _CREDENTIAL_KEY.search(key):
            raise UserError(f"--set {_shown(key)}: credentials come from the environment "
                            "(e.g. OPENAI_API_KEY), never from --set")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", key):
            raise UserError(f"--set {_shown(key)}: not a setting name")
        if key in values:
            raise UserError(f"--set {key}: given twice")
        values[key] = value.strip()
    return values


def _unknown(program: str, key: str, known: Iterable[str]) -> UserError:
    known = sorted(known)
    return UserError(f"--set {key}: program {program} has no such setting "
                     f"({'known: ' + ', '.join(known) if known else 'it takes no settings'})")


@dataclass(frozen=True)
class ModelSettings:
    """Settings checked by a pydantic model (``module:Class``) and passed as ``keyword=Model(...)``."""

    model: str
    keyword: str = "config"

    def _model(self) -> Any:
        module, _, name = self.model.partition(":")
        return getattr(importlib.import_module(module), name)

    def validate(self, program: str, values: dict[str, str]) -> dict[str, Any]:
        model = self._model()
        fields = model.model_fields
        for key in values:
            if key not in fields:
                raise _unknown(program, key, fields)
        raw = {key: [part.strip() for part in value.split(",") if part.strip()]
               if get_origin(fields[key].annotation) in (tuple, list) else value for key, value in values.items()}
        try:
            config = model(**raw)
        except ValidationError as err:
            first = err.errors()[0]
            key = str(first["loc"][0]) if first["loc"] else "?"
            raise UserError(f"--set {key}={values.get(key, '')}: {first['msg']}") from None
        return config.model_dump(mode="json", exclude_defaults=True)

    def kwargs(self, config: dict[str, Any]) -> dict[str, Any]:
        return {self.keyword: self._model()(**config)} if config else {}


@dataclass(frozen=True)
class KeywordSettings:
    """Settings that are the program constructor's own keyword arguments (values as given)."""

    def validate(self, program: str, values: dict[str, str]) -> dict[str, Any]:
        factory = program_factory(program)
        # A dspy.Module class reports its metaclass's (*args, **kwargs); its __init__ has the keywords.
        parameters = inspect.signature(factory.__init__ if inspect.isclass(factory) else factory).parameters
        known = [name for name, p in parameters.items() if name not in NOT_SETTINGS | {"self"}
                 and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        for key in values:
            if key not in known:
                raise _unknown(program, key, known)
        return dict(values)

    def kwargs(self, config: dict[str, Any]) -> dict[str, Any]:
        return dict(config)


def _settings(program: str) -> ModelSettings | KeywordSettings:
    """A judge's settings model from its registry entry; the constructor's keywords for one without."""
    judge = JUDGES.find(program)
    if judge is None or judge.settings is None:
        return KeywordSettings()
    return ModelSettings(judge.settings.model, judge.settings.keyword)


# Run settings of ``mt evaluate`` that a program cannot hold (see the module docstring).
RUN_ONLY = {"samples": "--samples K", "combine": "--combine RULE", "temperature": "--temperature T"}


def _takes_segment_inputs(program: str) -> bool:
    judge = JUDGES.find(program)
    return judge is not None and judge.kind == "mt"


def _segment_config(program: str, values: dict[str, Any]) -> dict[str, Any]:
    """The validated ``reference`` / ``context`` of an MT program's settings (``{}`` for another program)."""
    from tribunal.programs.mqm.segment_inputs import SEGMENT_KEYS, SegmentInputs  # heavy: pulls in dspy

    if not _takes_segment_inputs(program):
        return {}
    for key, option in RUN_ONLY.items():
        if key in values:
            raise UserError(f"--set {key}: a setting of the run, not of the program (optimizers judge each example "
                            f"once); use it with tribunal mt evaluate {option}")
    try:
        return SegmentInputs(**{k: values[k] for k in SEGMENT_KEYS if k in values}).settings()
    except ValidationError as err:
        first = err.errors()[0]
        key = str(first["loc"][0]) if first["loc"] else "?"
        raise UserError(f"--set {key}={values.get(key, '')}: {first['msg']}") from None


def _own(program: str, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` without the segment inputs an MT program takes."""
    from tribunal.programs.mqm.segment_inputs import SEGMENT_KEYS  # heavy: pulls in dspy

    return {k: v for k, v in values.items() if not (_takes_segment_inputs(program) and k in SEGMENT_KEYS)}


def program_config(program: str, values: dict[str, str]) -> dict[str, Any]:
    """The JSON config for ``--set`` values of ``program`` (``{}`` for none); UserError if invalid."""
    if not values:
        return {}
    segment = _segment_config(program, values)
    own = _own(program, values)
    return {**(_settings(program).validate(program, own) if own else {}), **segment}


def build_configured(program: str, config: dict[str, Any] | None = None) -> Any:
    """Build ``program`` from its JSON config; a value the program rejects is a one-line UserError."""
    from tribunal.programs.mqm.segment_inputs import SegmentInputs  # heavy: pulls in dspy

    config = dict(config or {})
    try:
        segment = _segment_config(program, config)
        return build_judge(program, segment=SegmentInputs(**segment) if segment else None,
                           **_settings(program).kwargs(_own(program, config)))
    except (ValueError, TypeError) as err:  # includes pydantic's ValidationError
        if not config:
            raise
        shown = ", ".join(f"{k}={v}" for k, v in config.items())
        raise UserError(f"program {program} with {shown}: {str(err).splitlines()[0]}") from None
