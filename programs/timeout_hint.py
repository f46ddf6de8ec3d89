"""A read timeout names the option that raises it: ``--timeout S``, not lm15's internal ``Timeouts(read=...)``.

DSPy's HTTP client (lm15) ends a read-timeout message with "raise it with Timeouts(read=...)", an
API a tribunal user never sees; the message becomes the unscored reason of every item whose calls
timed out. :func:`with_timeout_hint` rewrites that tail, in tribunal's terms, on an error raised by
one of tribunal's own LMs (:class:`~tribunal.programs.tribunal_lm.TribunalLM`); lm15 itself is left
as it is, so any other LM's message is lm15's.
"""

from __future__ import annotations

import re

LM15_HINT = re.compile(r"no bytes for (?P<seconds>[0-9.eE+-]+)s; this is lm15's read timeout, not a server "
                       r"failure \S+ raise it with Timeouts\(read=\.\.\.\) if the model needs longer")


def read_timeout_hint(seconds: float) -> str:
    """The tail of a read-timeout message, in tribunal's terms."""
    return (f"no answer for {seconds:g} s; this is tribunal's LM timeout, not a server failure: raise it with "
            "--timeout S (or timeout under [lm] in a --config file) if the model needs longer")


def _tribunal_terms(text: str) -> str:
    return LM15_HINT.sub(lambda found: read_timeout_hint(float(found["seconds"])), text)


def with_timeout_hint(err: BaseException) -> BaseException:
    """``err`` with lm15's read-timeout hint, if its message has one, said in tribunal's terms (in place)."""
    message = getattr(err, "message", None)
    if isinstance(message, str) and LM15_HINT.search(message):
        err.message = _tribunal_terms(message)
    if err.args and isinstance(err.args[0], str) and LM15_HINT.search(err.args[0]):
        err.args = (_tribunal_terms(err.args[0]), *err.args[1:])
    return err
