"""The DSPy engine of batch mode: answer a call from the ledger, or park it until its batch returns.

A parked call raises :class:`Parked`, a ``BaseException``, so neither DSPy (its adapters' fallbacks,
its retries) nor a program's own ``except Exception`` mistakes it for a failed call: the item simply
stops, and :mod:`tribunal.eval.mt.batch.runner` replays it once the answer is in. Identical requests
(the same key) are one batch line whose answer serves every item that asked.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any, Iterator

from dspy.utils.exceptions import LMProviderError

from tribunal.core.run_context import current, reset, setter
from tribunal.eval.mt.batch.ledger import BatchLedger
from tribunal.eval.mt.batch.lines import BatchLine, BatchProvider
from tribunal.eval.mt.batch.providers import provider_of
from tribunal.programs.mqm.sampling import current_rollout


class Parked(BaseException):
    """An LM call whose answer is not in yet: the item waits for the next batch."""


class BatchRequestFailed(LMProviderError):
    """A request that failed or expired in every batch it was sent in."""


_SET_WANTS = setter("batch_wants")


@contextlib.contextmanager
def collecting(wants: dict[str, tuple[str, BatchLine]]) -> Iterator[dict[str, tuple[str, BatchLine]]]:
    """Parked requests made in this context go to ``wants`` (``key -> (provider, line)``)."""
    token = _SET_WANTS(wants)
    try:
        yield wants
    finally:
        reset(token)


def request_key(provider: str, body: dict[str, Any], rollout: int | None = None) -> str:
    """A custom_id valid for both providers (64 hex characters) naming the exact request.

    ``rollout``: the sample of a sampled ensemble (:mod:`tribunal.programs.mqm.sampling`): the K
    samples send the same body, and each must be a line of its own.
    """
    named: dict[str, Any] = {"provider": provider, "body": body}
    if rollout is not None:
        named["rollout"] = rollout
    text = json.dumps(named, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class BatchEngine:
    """``complete(Request) -> Response`` from downloaded answers; parks an unanswered request.

    A request that failed in ``attempts`` batches raises :class:`BatchRequestFailed` with the
    provider's reason (the item becomes unscored with it).
    """

    def __init__(self, ledger: BatchLedger, providers: dict[str, BatchProvider], attempts: int = 2):
        self.ledger, self.providers, self.attempts = ledger, providers, attempts

    def complete(self, request: Any) -> Any:
        name, _ = provider_of(request.model)
        provider = self.providers[name]
        body = provider.body(request)
        key = request_key(name, body, current_rollout())
        answer = self.ledger.answers.get(key)
        if answer is not None:
            return provider.response(answer, request)
        failures = self.ledger.failures.get(key, [])
        if len(failures) >= self.attempts:
            raise BatchRequestFailed(f"failed in {len(failures)} batches: {failures[-1]}", model=request.model,
                                     provider=name)
        wants = current().batch_wants
        if wants is None:
            raise RuntimeError("a batch-mode LM was called outside a batch runner step")
        wants[key] = (name, BatchLine(key, body))
        raise Parked(key)

    def stream(self, request: Any):
        raise NotImplementedError("batch mode does not stream")

    def close(self) -> None:
        pass


def gather(calls) -> list[Any]:
    """Fan-out under batch mode: run every call (each may park), then raise.

    A real failure wins over a parked call (the item is unscored without waiting for a batch);
    otherwise, if any call parked, the item waits with all of its calls' requests recorded, so
    independent calls (M-MAD's four agents, its debates) go out in the same batch.
    """
    results, parked, failure = [], None, None
    for call in calls:
        try:
            results.append(call())
        except Parked as wait:
            parked = parked or wait
        except Exception as error:  # re-raised below, first in call order, as the online fan-out does
            failure = failure or error
    if failure is not None:
        raise failure
    if parked is not None:
        raise parked
    return results
