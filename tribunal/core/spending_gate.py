"""The contract between an LM and a spending cap: a call is admitted, then settled with what it cost.

A runner gives the LMs of a capped run a gate (:func:`set_gate`; the cap itself, which prices calls,
is :class:`tribunal.runner.spending_cap.SpendingCap`). tribunal's LM wraps each request in
:func:`gated`: the gate admits the call (or raises
:class:`~tribunal.errors.SpendingCapReached`) once its call slot is held, and is told the result, so
a call waiting for a slot reserves nothing. An LM without a gate is unchanged.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Callable, Iterator, Protocol, TypeVar

if TYPE_CHECKING:
    import dspy
    from dspy.clients.call_result import CallResult
    from dspy.clients.execution import PreparedCall

GATE_ATTRIBUTE = "tribunal_spending_gate"

LM = TypeVar("LM", bound="dspy.BaseLM | None")


class SpendingGate(Protocol):
    """What a cap does around one LM request."""

    def admit(self, lm: dspy.BaseLM, call: PreparedCall) -> object:
        """A reservation for the request ``call`` of ``lm`` (DSPy's prepared call); raises when over a cap."""

    def settle(self, reservation: object, result: CallResult | None) -> None:
        """The request ended: ``result`` (DSPy's call result) or None when it failed."""


def set_gate(lm: LM, gate: SpendingGate | None) -> LM:
    """Give ``lm`` (a tribunal LM) the ``gate`` its requests pass through (None: none); returns ``lm``."""
    if lm is not None:
        setattr(lm, GATE_ATTRIBUTE, gate)
    return lm


@contextlib.contextmanager
def gated(lm: dspy.BaseLM, call: PreparedCall) -> Iterator[Callable[[CallResult | None], None]]:
    """Around one request of ``lm``: yields ``settle(result)``; a request that raises settles as failed."""
    gate = getattr(lm, GATE_ATTRIBUTE, None)
    if gate is None:
        yield lambda result: None
        return
    reservation = gate.admit(lm, call)
    settled = []

    def settle(result: CallResult | None) -> None:
        settled.append(True)
        gate.settle(reservation, result)

    try:
        yield settle
    finally:
        if not settled:
            gate.settle(reservation, None)
