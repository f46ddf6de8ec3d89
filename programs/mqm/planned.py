"""Judges written once as a plan: ``forward`` runs it on threads, ``aforward`` awaits it.

A subclass of :class:`Planned` writes its calls once, as the generator :meth:`Planned.plan`
(:mod:`tribunal.programs.mqm.plans`); ``forward`` drives it with :func:`~tribunal.programs.mqm.plans.run`
(the threaded runner's path), ``aforward`` with :func:`~tribunal.programs.mqm.plans.arun`
(``mt evaluate --judging async``): the same calls, the same fallbacks, never two copies of the logic.
:class:`SegmentJudge` is the base of the judges of one segment: its ``forward`` and ``aforward`` also take
``reference=`` and ``context=`` (:func:`~tribunal.programs.mqm.segment_inputs.segment_aware`).
"""

from __future__ import annotations

from typing import Any

import dspy

from tribunal.programs.mqm.plans import Plan, arun, run
from tribunal.programs.mqm.segment_inputs import segment_aware


class Planned(dspy.Module):
    """A module whose call is the plan :meth:`plan`; ``forward`` and ``aforward`` take its arguments."""

    def plan(self, *args: Any, **kwargs: Any) -> Plan:
        """The module's calls as a plan, returning its prediction (every subclass writes it)."""
        raise NotImplementedError(f"{type(self).__name__} writes no plan")

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return run(self.plan(*args, **kwargs))

    async def aforward(self, *args: Any, **kwargs: Any) -> Any:
        """:meth:`forward` for the async runner (``mt evaluate --judging async``): the same plan, awaited."""
        return await arun(self.plan(*args, **kwargs))


class SegmentJudge(Planned):
    """A judge of one segment: ``plan(source, translation, source_lang="", target_lang="")``; its calls also
    take the item's reference and context (``reference=``, ``context=``)."""

    @segment_aware
    def forward(self, source: str, translation: str, source_lang: str = "", target_lang: str = "") -> Any:
        return run(self.plan(source, translation, source_lang, target_lang))

    @segment_aware
    async def aforward(self, source: str, translation: str, source_lang: str = "", target_lang: str = "") -> Any:
        """:meth:`forward` for the async runner (``mt evaluate --judging async``): the same plan, awaited."""
        return await arun(self.plan(source, translation, source_lang, target_lang))
