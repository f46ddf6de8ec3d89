"""A scripted equivalence judge, in-process (``scripted_lm``) or behind the loopback server.

``decide(hypothesis_a, hypothesis_b) -> bool`` (True = "same") stands in for the model. The
answer fills every output field the signature asks for, read from DSPy's system message (so a
rubric with other outputs still gets a complete answer): ``verdict`` from ``decide``, booleans
consistent with it, any other text field a short note. Requests are recognised by their
``hypothesis_a`` / ``hypothesis_b`` inputs, not by the rubric's wording.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any, Callable, Iterator
from unittest import mock

from tests.support import loopback
from tests.support.dspy_cache import dspy_cache_off  # noqa: F401  (used with these fakes)
from tests.support.mqm_fakes import answer as mqm_answer
from tests.support.mqm_fakes import chat_answer, parse_fields

Decide = Callable[[str, str], bool]
_OUTPUTS = re.compile(r"Your output fields are:\n(.*?)(?:\n\n|\nAll interactions)", re.S)
_FIELD = re.compile(r"`(\w+)` \(([^)]*)\)")


def output_fields(system: str) -> dict[str, str]:
    """Output field name -> its declared type, from a ChatAdapter system message."""
    block = _OUTPUTS.search(system)
    return dict(_FIELD.findall(block.group(1))) if block else {"verdict": "str"}


def is_equivalence_request(user: str) -> bool:
    return "[[ ## hypothesis_a ## ]]" in user and "[[ ## hypothesis_b ## ]]" in user


def equiv_outputs(system: str, user: str, decide: Decide) -> dict[str, Any]:
    """The answer to one equivalence request."""
    inputs = parse_fields(user)
    same = decide(str(inputs["hypothesis_a"]), str(inputs["hypothesis_b"]))
    outputs: dict[str, Any] = {}
    for name, kind in output_fields(system).items():
        if name == "verdict":
            outputs[name] = "same" if same else "different"
        elif kind == "bool":
            outputs[name] = same
        else:
            outputs[name] = "scripted"
    return outputs


def scripted_equiv_respond(decide: Decide) -> Callable[[str, str], dict[str, Any]]:
    """A ``respond(system, user)`` for :func:`tests.support.scripted_lm.scripted_lm`."""
    return lambda system, user: equiv_outputs(system, user, decide)


@contextlib.contextmanager
def equiv_loopback_server(decide: Decide, **kwargs: Any) -> Iterator[tuple[str, loopback.LoopbackState]]:
    """The loopback server answering equivalence requests with ``decide`` (others as usual).

    Every equivalence hit is recorded in ``state.hits`` as ``("equiv", fault, inputs)``.
    """
    def routed(system: str, user: str, responder: Any, render: Any = None) -> tuple[str, str, dict[str, Any]]:
        if is_equivalence_request(user):
            return "equiv", chat_answer(equiv_outputs(system, user, decide)), parse_fields(user)
        return mqm_answer(system, user, responder, render)

    with mock.patch.object(loopback, "answer", routed):
        with loopback.loopback_server(lambda name, inputs: {}, **kwargs) as (api_base, state):
            yield api_base, state
