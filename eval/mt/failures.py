"""Why an item ended unscored, and whether rerunning the same command should judge it again.

*Retryable*: no usable answer was obtained (rate limit, timeout, server error, dropped
connection, a key or quota problem fixed outside the configuration): a rerun of the same
command judges the item again. *Permanent*: the LM answered and the answer stayed unusable after its
re-asks (:mod:`tribunal.programs.answers.reask`: a refusal, an unparseable, invalid or truncated
answer), or the request itself is wrong for the model (e.g. too long): only ``--retry-unscored``
pays for it again (unusable answers are never kept in the response cache, so it does reach the
provider).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tribunal.core.mt_judgment import MalformedJudgment
from tribunal.errors import TribunalError
from tribunal.secrets import redact_text


@dataclass(frozen=True)
class Failure:
    """How an item ended unscored: its reason, whether a rerun retries it, whether a fresh ask may not repeat it."""

    label: str
    retryable: bool
    transient: bool = False
    """An unusable answer after its re-asks or a transport failure after its retries: the run's second
    pass (:mod:`tribunal.eval.mt.second_pass`) judges the item once more."""


class TooFewSamples(Exception):
    """Fewer than ceil(K/2) samples of an item were usable; ``failure`` is how the item ends."""

    def __init__(self, message: str, failure: Any, lm_response: str | None = None):
        super().__init__(message)
        self.failure, self.lm_response = failure, lm_response


def classify_failure(exc: BaseException) -> Failure | None:
    """The failure an exception makes of an item; None for an exception that is a bug."""
    import pydantic  # heavy: pydantic
    from dspy.utils import exceptions as dx  # heavy: dspy, pydantic

    from tribunal.eval.mt.batch.engine import BatchRequestFailed  # heavy: pulls in dspy, pydantic
    from tribunal.programs.answers.unusable import UnusableAnswer  # heavy: pulls in dspy, pydantic

    if isinstance(exc, TribunalError):  # tribunal's own (e.g. the local server is gone): the run stops
        return None
    if isinstance(exc, MalformedJudgment):  # the program returned no judgment: its bug, not the LM's
        return Failure("malformed judgment", False, False)
    if isinstance(exc, TooFewSamples):  # a sampled ensemble: decided from its samples' own failures
        return exc.failure
    if isinstance(exc, UnusableAnswer):  # refusal, unparseable, invalid or truncated, after the re-asks
        return Failure(exc.label, False, True)
    table = [  # (exception, label, retryable by a rerun, transient: a fresh ask later may well succeed)
        (BatchRequestFailed, "batch request failed", True, False),  # failed or expired in every batch it was sent in
        (dx.AdapterParseError, "unparseable answer", False, True),
        (dx.LMRateLimitError, "rate limited (retries exhausted)", True, True),
        (dx.LMTimeoutError, "timeout (retries exhausted)", True, True),
        (dx.LMServerError, "server error (retries exhausted)", True, True),
        (dx.LMTransportError, "connection error (retries exhausted)", True, True),
        (dx.LMLockTimeoutError, "credential lock timeout", True, False),
        (dx.LMAuthError, "authentication failed", True, False),
        (dx.LMBillingError, "billing or quota failed", True, False),
        (dx.LMNotConfiguredError, "LM not configured (no API key? set the provider's key variable or "
                                  "name one with --api-key-env)", True, False),
        (dx.LMError, f"LM error ({type(exc).__name__})", False, False),
        (pydantic.ValidationError, "invalid answer", False, True),
    ]
    return next((Failure(label, retryable, transient) for kind, label, retryable, transient in table
                 if isinstance(exc, kind)), None)


RAW_ANSWER_LIMIT = 2000


def raw_answer(exc: BaseException) -> str | None:
    """The LM's own answer behind an unusable-answer failure, redacted and truncated (None if none)."""
    text = getattr(exc, "lm_response", None)
    if not text:
        return None
    text = redact_text(str(text))
    return text if len(text) <= RAW_ANSWER_LIMIT else text[:RAW_ANSWER_LIMIT] + " [truncated]"
