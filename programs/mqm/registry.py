"""The MT judge programs selectable by name (``--program``): the ``mt`` judges of the registry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Iterator

from tribunal.core.judges import JUDGES
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.programs.mqm.ape import MQMAPEJudge
from tribunal.programs.mqm.eaprompt import EAPromptJudge
from tribunal.programs.mqm.esa import GembaESAJudge
from tribunal.programs.mqm.gemba import GembaMQMJudge
from tribunal.programs.mqm.mmad import MMAD
from tribunal.programs.mqm.segment_inputs import with_segment_inputs


class _MTPrograms(Mapping):
    """``{name: builder(config, lms)}`` of the registry's MT judges, read from it at each use."""

    def __getitem__(self, name: str) -> Callable[[Any, RoleLMs | None], Any]:
        judge = JUDGES.find(name)
        if judge is None or judge.kind != "mt":
            raise KeyError(name)
        return lambda config, lms: judge.build(config, lms)

    def __iter__(self) -> Iterator[str]:
        return iter(JUDGES.names("mt"))

    def __len__(self) -> int:
        return len(JUDGES.names("mt"))


PROGRAMS: Mapping[str, Callable[[Any, RoleLMs | None], Any]] = _MTPrograms()


def build_program(name: str, config: Any = None, lms: RoleLMs | None = None, inputs: Any = None):
    """The program ``name`` with its settings ``config`` (an ``MMADConfig``, ``ESAConfig`` or ``APEConfig``;
    None: the defaults; the other programs take none); ``inputs`` (a ``SegmentInputs``) adds the
    reference and context inputs it asks for."""
    if name not in PROGRAMS:
        raise ValueError(f"unknown program {name!r}; choose one of {', '.join(PROGRAMS)}")
    return with_segment_inputs(PROGRAMS[name](config, lms), inputs)
