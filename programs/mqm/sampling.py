"""Which sample of an item the LM calls on this thread belong to: DSPy's ``rollout_id``.

A sampled ensemble (``mt evaluate --samples K``) runs a judge K times on the same item. Identical
requests would be answered from DSPy's response cache, so sample k runs under
:func:`rollout` ``k`` and every predictor call it makes carries ``config={"rollout_id": k}``
(:func:`rollout_config`, passed by :func:`~tribunal.programs.mqm.roles.invoke`). DSPy 3.4 puts the
rollout id in its cache key and strips it from the request it sends
(``dspy/clients/execution.py``: ``PreparedCall.key`` keeps the merged call kwargs, ``_canonical``
drops ``rollout_id`` from the body), so the K samples are K distinct cache entries and K requests
to the provider; the request bodies themselves are identical. Batch mode reads
:func:`current_rollout` to keep the K requests apart in a batch (``eval/mt/batch/engine.py``).

Samples are numbered 1..K, so no sample is the single-judgment run's cached answer; a rerun of the
same command finds its own samples in the cache (nothing is paid twice). Outside an ensemble no
rollout is set and requests are exactly as before.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from tribunal.core.run_context import current, reset, setter

_SET_ROLLOUT = setter("rollout")


@contextlib.contextmanager
def rollout(number: int) -> Iterator[None]:
    """Make the enclosed LM calls sample ``number`` of their item."""
    token = _SET_ROLLOUT(number)
    try:
        yield
    finally:
        reset(token)


def current_rollout() -> int | None:
    """The sample the calls on this thread belong to (None outside an ensemble)."""
    return current().rollout


def rollout_config() -> dict[str, Any]:
    """The keyword arguments a predictor call takes for the current sample (``{}`` outside one)."""
    number = current().rollout
    return {} if number is None else {"config": {"rollout_id": number}}
