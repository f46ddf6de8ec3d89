"""Which LM each role runs on, and the call wrapper that tags every LM call with its stage.

Roles: the dimension agents (``accuracy``, ``fluency``, ``style``, ``terminology``, group
``assessor``), ``coupled``, ``defender`` / ``opposer`` (group ``debater``), ``consensus``,
``reviewer``, ``debate_judge``, ``judge``, ``gemba``, ``eaprompt``; GEMBA-ESA's ``evaluator`` (the
error spans) and ``scorer`` (the 0-100 score); MQM-APE's ``evaluator``, ``post_editor`` and
``verifier``. A role without its own LM falls back to its group's, then to the default LM.
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any, Mapping
import dspy

from tribunal.core.judges import JUDGES
from tribunal.core.run_context import current, reset, setter
from tribunal.programs.answers.unusable import UnusableAnswer  # noqa: F401  (raised by programs as roles.UnusableAnswer)
from tribunal.core.async_scheduling import acall_slot
from tribunal.core.scheduling import call_slot
from tribunal.programs.answers import ask, tolerant_answers
from tribunal.programs.answers.reask import aask
from tribunal.programs.mqm.sampling import rollout_config
from tribunal.programs.mqm.segment_inputs import given_to

# Each judge declares its roles and their groups in its registry entry (tribunal.core.judges); they are
# read from it when needed (``JUDGES.roles()``), never snapshotted, so a judge registered later is seen.

_SET_CALL = setter("call")  # default ("other", "other")
_SET_SUBJECT = setter("subject")


def current_subject() -> str | None:
    """What the calls on this thread are about, e.g. the dimension a debate argues (None: the item)."""
    return current().subject


def about(subject: str, call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)`` with its LM calls tagged as being about ``subject`` (e.g. a debate's dimension)."""
    with concerning(subject):
        return call(*args, **kwargs)


@contextlib.contextmanager
def concerning(subject: str):
    """The LM calls made inside are tagged as being about ``subject`` (:func:`current_subject`)."""
    token = _SET_SUBJECT(subject)
    try:
        yield
    finally:
        reset(token)


def current_call() -> tuple[str, str]:
    """``(stage, role)`` of the LM call being made on this thread, e.g. ``("stage2", "opposer")``."""
    return current().call


@contextlib.contextmanager
def calls_as(stage: str, role: str):
    """The LM calls made inside are tagged ``(stage, role)`` (the usage meter's and the call log's keys):
    for programs that call predictors themselves rather than through :func:`invoke`."""
    token = _SET_CALL((stage, role))
    try:
        yield
    finally:
        reset(token)


class RoleLMs:
    """A default LM plus optional per-role LMs. ``None`` everywhere means ``dspy.settings.lm``."""

    def __init__(self, default: Any = None, roles: Mapping[str, Any] | None = None):
        known = JUDGES.roles()
        unknown = set(roles or {}) - set(known)
        if unknown:
            raise ValueError(f"unknown role(s) {sorted(unknown)}; known roles: {', '.join(known)}")
        self.default = default
        self.roles = dict(roles or {})

    def __deepcopy__(self, memo: dict[int, Any]) -> "RoleLMs":
        """A copied judge (DSPy's ``Module.deepcopy``: ``load_state``, the optimizers) calls the same LMs.

        The LM clients hold connections and locks and cannot be deep-copied; without this DSPy falls back
        to a shallow copy after a ``logging.warning`` on the root logger, which installs a handler there
        (``basicConfig``) in the caller's process."""
        copied = copy.copy(self)
        copied.roles = dict(self.roles)
        return copied

    def for_role(self, role: str) -> Any:
        return self.roles.get(role) or self.roles.get(JUDGES.role_groups().get(role, "")) or self.default


def invoke(lms: RoleLMs | None, role: str, stage: str, predictor: Any, check: Any = None, **inputs: Any) -> Any:
    """Call ``predictor`` on ``role``'s LM, with its LM calls tagged as ``stage``.

    Under a runner's scheduler (:mod:`tribunal.core.scheduling`) the call holds a call slot (tribunal's
    own LM, :class:`~tribunal.programs.tribunal_lm.TribunalLM`, only while each request is out).
    The item's reference and context go along where the predictor takes them
    (:mod:`tribunal.programs.mqm.segment_inputs`), and a sample's rollout id inside an ensemble
    (:mod:`tribunal.programs.mqm.sampling`). The answer is read by the tolerant adapter and an unusable
    one is re-asked (:func:`tribunal.programs.answers.reask.ask`; ``check`` may refuse an answer that parsed).
    """
    token = _SET_CALL((stage, role))
    try:
        lm, deferred = _route(lms, role, predictor)
        with call_slot(stage, deferred), tolerant_answers(), \
                dspy.context(lm=lm) if lm is not None else contextlib.nullcontext():
            return ask(predictor, check=check, role=role, **inputs, **given_to(predictor), **rollout_config())
    finally:
        reset(token)


async def ainvoke(lms: RoleLMs | None, role: str, stage: str, predictor: Any, check: Any = None,
                  **inputs: Any) -> Any:
    """:func:`invoke` for coroutines (``mt evaluate --judging async``): the slot awaited, the predictor's
    ``acall`` asked by the same re-ask rule (:func:`tribunal.programs.answers.reask.aask`)."""
    token = _SET_CALL((stage, role))
    try:
        lm, deferred = _route(lms, role, predictor)
        async with acall_slot(stage, deferred):
            with tolerant_answers(), dspy.context(lm=lm) if lm is not None else contextlib.nullcontext():
                return await aask(predictor, check=check, role=role, **inputs, **given_to(predictor),
                                  **rollout_config())
    finally:
        reset(token)


def _route(lms: RoleLMs | None, role: str, predictor: Any) -> tuple[Any, bool]:
    """``(role's LM or None for DSPy's, whether the LM holds the slot around its requests only)``."""
    lm = lms.for_role(role) if lms else None
    sends = getattr(predictor, "lm", None) or lm or dspy.settings.lm  # the LM the predictor will call
    return lm, bool(getattr(sends, "takes_call_slots", False))
