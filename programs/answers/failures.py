"""What an LM call or its answer raises when a vote, item or slot cannot be scored, and nothing else.

``except ANSWER_FAILURES`` catches a provider's failure (DSPy's ``LMError`` family: rate limits, timeouts,
server and connection errors, a failed batch request), an answer DSPy could not parse
(``AdapterParseError``), one that broke its schema (pydantic's ``ValidationError``) and one the re-ask rule
gave up on (:class:`~tribunal.programs.answers.unusable.UnusableAnswer`). A programming error (a
``TypeError``, a ``KeyError``...) is none of these: it propagates. So does tribunal's own error
(:func:`is_answer_failure` is False for a :class:`~tribunal.errors.TribunalError`, e.g. the local server gone).
"""

from __future__ import annotations

from dspy.utils.exceptions import AdapterParseError, LMError
from pydantic import ValidationError

from tribunal.errors import TribunalError
from tribunal.programs.answers.unusable import UnusableAnswer

ANSWER_FAILURES: tuple[type[Exception], ...] = (UnusableAnswer, AdapterParseError, LMError, ValidationError)


def is_answer_failure(err: BaseException) -> bool:
    """True for an LM or answer failure (the caller records it as unscored); False for a bug or tribunal's own error."""
    return isinstance(err, ANSWER_FAILURES) and not isinstance(err, TribunalError)
