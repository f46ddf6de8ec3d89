"""A rehearsal: the program runs as it would, but every LM call is answered here and sends nothing.

:class:`RehearsalEngine` takes the place of the HTTP engine of tribunal's LMs
(:func:`tribunal.programs.lm.build_lm` with ``engine=``): DSPy builds each prompt with the real adapter,
the predictor's signature and demos and the item's inputs, exactly as for the run, and hands the request
to the engine, which records it (role, stage, messages, token limit) and answers with made-up values of
the signature's output fields (:mod:`tribunal.eval.estimate.answers`) in the adapter's own answer
format. Which signature and adapter a call is for comes from DSPy's ``format`` callback on the same
thread (:class:`SignatureWatch`).

Each call's prompt tokens are counted with the model's tokenizer (:mod:`tribunal.eval.estimate.tokens`)
as the request would be sent. The rehearsal needs DSPy's response cache off (its made-up answers must
never be stored for the real run): :func:`rehearsal_settings` turns it off.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from dspy.lm15 import Message, Response, TextPart, Usage
from dspy.utils.callback import BaseCallback

from tribunal.eval.estimate.answers import Scenario, filler, free_text_field, sample_outputs
from tribunal.eval.estimate.tokens import TokenCounter, request_messages
from tribunal.programs.mqm.roles import current_call


@dataclass
class RehearsedCall:
    """One LM call of a rehearsal."""

    stage: str
    role: str
    signature: str
    prompt_tokens: int
    completion_tokens: int
    max_tokens: int | None


@dataclass
class _Format:
    adapter: Any
    signature: Any
    inputs: dict[str, Any]


class SignatureWatch(BaseCallback):
    """Remembers, per thread, the adapter, signature and inputs of the prompt DSPy is formatting."""

    def __init__(self) -> None:
        self._local = threading.local()

    def on_adapter_format_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        self._local.current = _Format(instance, inputs.get("signature"), dict(inputs.get("inputs") or {}))

    def current(self) -> _Format | None:
        return getattr(self._local, "current", None)


@dataclass
class RehearsalEngine:
    """``complete(Request) -> Response`` answering every call with ``scenario``'s made-up values.

    ``limit``: the completion tokens a ``high`` answer fills when a request carries no token limit.
    ``answers_in_json``: as the engine it stands for (a local model's asks for JSON answers).
    ``shape``: ``(signature, scenario, inputs, outputs) -> outputs``, where a program needs answers the
    field types alone do not give (an equivalence judge's votes that disagree, as many hypotheses as asked).
    """

    scenario: Scenario
    counter: TokenCounter
    watch: SignatureWatch
    limit: int = 1024
    answers_in_json: bool = False
    shape: Callable[[Any, str, dict, dict], dict] | None = None
    calls: list[RehearsedCall] = field(default_factory=list)
    supports_response_schema: bool = True
    supports_function_calling: bool = False
    supports_reasoning: bool = False

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def complete(self, request: Any) -> Any:
        stage, role = current_call()
        prompt = self.counter.count_messages(request_messages(request))
        limit = request.config.max_tokens
        current = self.watch.current()
        signature = getattr(current.signature, "__name__", "?") if current else "?"
        text = self._answer(current, limit or self.limit) if current and current.signature else ""
        completion = self.counter.count_text(text)
        with self._lock:
            self.calls.append(RehearsedCall(stage, role, signature, prompt, completion, limit))
        return Response(id=None, model=request.model, message=Message.assistant([TextPart(text)]),
                        finish_reason="stop",
                        usage=Usage(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion))

    def _answer(self, current: _Format, limit: int) -> str:
        outputs = sample_outputs(current.signature, self.scenario, current.inputs)
        if self.shape is not None:
            outputs = self.shape(current.signature, self.scenario, current.inputs, outputs)
        text = current.adapter.format_assistant_message_content(current.signature, outputs)
        free = free_text_field(current.signature)
        if self.scenario == "high" and free is not None:  # as long as the limit lets a real answer be
            outputs[free] = filler(limit - self.counter.count_text(text))
            text = current.adapter.format_assistant_message_content(current.signature, outputs)
        return text

    def stream(self, request: Any) -> Any:
        raise NotImplementedError("a rehearsal does not stream")

    def close(self) -> None:
        pass


def rehearsal_settings(settings: Any) -> Any:
    """LM settings for a rehearsal: the run's, with DSPy's response cache off and no re-ask budget spent
    on made-up answers (they always parse), and no rate pacing (``rpm``/``tpm``: nothing is sent)."""
    return settings.model_copy(update={"cache": False, "rpm": None, "tpm": None})
