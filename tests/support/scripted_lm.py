"""A scripted offline LM for tests: a Python function answers each request.

``respond(system, user)`` returns a dict of output-field values (formatted the way DSPy's
ChatAdapter expects) or a raw string (to simulate garbage). Every request is recorded.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

import dspy
from dspy.lm15 import Message, Response, TextPart, Usage


def format_fields(fields: dict[str, Any]) -> str:
    parts = []
    for name, value in fields.items():
        if not isinstance(value, str):
            value = json.dumps(value.model_dump() if hasattr(value, "model_dump") else value)
        parts.append(f"[[ ## {name} ## ]]\n{value}")
    return "\n\n".join(parts) + "\n\n[[ ## completed ## ]]"


class ScriptedEngine:
    def __init__(self, respond: Callable[[str, str], dict[str, Any] | str]):
        self.respond = respond
        self.calls: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def complete(self, request):
        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system or ())
        from tests.support.mqm_fakes import task_message

        user = task_message([m.text or "" for m in request.messages if m.role == "user"])
        with self._lock:
            self.calls.append((system, user))
        answer = self.respond(system, user)
        text = answer if isinstance(answer, str) else format_fields(answer)
        return Response(id=None, model="scripted", message=Message.assistant([TextPart(text)]),
                        finish_reason="stop", usage=Usage(input_tokens=1, output_tokens=1, total_tokens=2))

    def stream(self, request):
        raise NotImplementedError

    def close(self):
        pass


def scripted_lm(respond: Callable[[str, str], dict[str, Any] | str], model: str = "scripted/test",
                temperature: float = 0.0) -> tuple[Any, ScriptedEngine]:
    """A ``dspy.LM`` backed by ``respond``, with DSPy's cache off."""
    engine = ScriptedEngine(respond)
    return dspy.LM(model, engine=engine, cache=False, temperature=temperature, num_retries=0), engine


def field(user: str, name: str) -> str:
    """The value of input field ``name`` in a ChatAdapter user message."""
    marker = f"[[ ## {name} ## ]]\n"
    start = user.index(marker) + len(marker)
    end = user.find("\n\n", start)  # field values here contain no blank line
    return user[start:end if end >= 0 else None].strip()
