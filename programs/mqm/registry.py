"""The MT judge programs selectable by name (``--program``)."""

from __future__ import annotations

from typing import Any, Callable

from tribunal.programs.mqm.roles import RoleLMs
from tribunal.programs.mqm.ape import MQMAPEJudge
from tribunal.programs.mqm.eaprompt import EAPromptJudge
from tribunal.programs.mqm.esa import GembaESAJudge
from tribunal.programs.mqm.gemba import GembaMQMJudge
from tribunal.programs.mqm.mmad import MMAD
from tribunal.programs.mqm.segment_inputs import with_segment_inputs


def _mmad(config: Any, lms: RoleLMs | None):
    return MMAD(config, lms)


def _gemba(config: Any, lms: RoleLMs | None):
    return GembaMQMJudge(lms)


def _eaprompt(config: Any, lms: RoleLMs | None):
    return EAPromptJudge(lms)


def _esa(config: Any, lms: RoleLMs | None):
    return GembaESAJudge(config, lms)


def _ape(config: Any, lms: RoleLMs | None):
    return MQMAPEJudge(config, lms)


PROGRAMS: dict[str, Callable[[Any, RoleLMs | None], Any]] = {
    "mmad": _mmad,
    "gemba-mqm": _gemba,
    "eaprompt": _eaprompt,
    "gemba-esa": _esa,
    "mqm-ape": _ape,
}


def build_program(name: str, config: Any = None, lms: RoleLMs | None = None, inputs: Any = None):
    """The program ``name`` with its settings ``config`` (an ``MMADConfig``, ``ESAConfig`` or ``APEConfig``;
    None: the defaults; the other programs take none); ``inputs`` (a ``SegmentInputs``) adds the
    reference and context inputs it asks for."""
    if name not in PROGRAMS:
        raise ValueError(f"unknown program {name!r}; choose one of {', '.join(PROGRAMS)}")
    return with_segment_inputs(PROGRAMS[name](config, lms), inputs)
