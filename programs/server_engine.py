"""The DSPy engine for an OpenAI-compatible server that is not OpenAI (vLLM, llama.cpp, Ollama, a gateway).

DSPy's native engine speaks to ``openai/MODEL`` at ``--api-base URL`` as if it were OpenAI: the token
limit goes out as ``max_completion_tokens``, which such servers ignore (llama.cpp's ran M-MAD's
answers on to the end of its context, 6,468 tokens and five minutes a call). This engine sends the
same requests through lm15's door for self-hosted OpenAI-compatible servers (its ``vllm`` dialect:
``max_tokens``, no OpenAI-only fields) and asks for JSON the way the server takes it:

- a JSON answer is asked with ``response_format: json_schema`` first; a server that refuses it
  (llama-cpp-python answers HTTP 500 "Input should be 'text' or 'json_object'") is asked again at
  once with ``json_object`` plus the schema (llama-cpp-python turns that into a grammar), then plain
  ``json_object``, then no response format at all (the prompt still spells the fields out). The
  step a server took is remembered for the run (per endpoint), so later calls ask it directly;
- ``n > 1`` is never sent: DSPy asks a custom engine for one answer per request;
- a server known to serve N requests at once (``slots``: :mod:`tribunal.programs.server_slots`; a
  local model's server, llama-cpp-python's, serves one) is sent at most N at once, by every engine
  of the process together (the endpoint's :func:`~tribunal.programs.server_slots.gate`, held while
  a request is out): queued there, a call's timeout would count the calls ahead of it;
- a local model's server (``local=True``: llama.cpp's, which tribunal runs) is asked for JSON answers (:attr:`ServerEngine.answers_in_json`), which it holds to the
  signature's schema with a grammar: even a 135M model then answers in the shape asked for;
- a call to a local model's server that fails with a connection error (the server died under it)
  asks ``recover`` (:func:`tribunal.programs.local_models.recovery`), which returns once the server
  answers again (restarted) or raises the error that stops the run, and is then sent again (at most
  :data:`RESENDS` times), so a restart loses no call.

A custom engine owns its connection, so DSPy cannot see the endpoint; :attr:`ServerEngine.cache_endpoint`
names it for the response cache's key (:mod:`tribunal.programs.response_cache`).
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any, Callable

from tribunal.programs.server_slots import gate
from tribunal.programs.thread_transport import ThreadTransport

# What a JSON answer is asked with, most constrained first. Each refused step moves to the next.
JSON_STEPS = ("json_schema", "json_object+schema", "json_object", "prompt only")
DIALECT = "vllm"  # lm15's door for a self-hosted OpenAI-compatible server: max_tokens, keyless by default
RESENDS = 2  # a call re-sent after a connection error, once its local server answers again

_lock = threading.Lock()
_json_step: dict[str, int] = {}  # endpoint -> index into JSON_STEPS it answered (for the run)


def json_step(endpoint: str) -> str:
    """How JSON answers are asked of ``endpoint`` now (``json_schema`` until it refused one)."""
    return JSON_STEPS[_json_step.get(endpoint, 0)]


def _refuses_format(err: Exception) -> bool:
    """Whether a server's error says it cannot take the requested response format."""
    status = getattr(err, "status", None)
    text = str(err).lower()
    return status in (400, 422, 500) and any(word in text for word in ("response_format", "json_schema", "json_object"))


def _ask(request: Any, step: str) -> Any:
    """``request`` with its JSON response format expressed as ``step`` asks."""
    fmt = request.config.response_format
    if not fmt or step == "json_schema" or (fmt.get("type") == "json_object" and step == "json_object+schema"):
        return request
    extensions = dict(request.config.extensions or {})
    if step == "json_object+schema" and fmt.get("schema"):
        extensions["response_format"] = {"type": "json_object", "schema": fmt["schema"]}
        return replace(request, config=replace(request.config, response_format=None, extensions=extensions))
    if step in ("json_object", "json_object+schema"):
        return replace(request, config=replace(request.config, response_format={"type": "json_object"}))
    return replace(request, config=replace(request.config, response_format=None))


def routed_to_door(request: Any) -> Any:
    """``request`` routed to lm15's door for a self-hosted OpenAI-compatible server."""
    _, slash, name = request.model.partition("/")
    return replace(request, model=f"{DIALECT}:{name if slash else request.model}")


def first_step(endpoint: str) -> int:
    """The index into :data:`JSON_STEPS` a JSON answer is asked of ``endpoint`` with now."""
    with _lock:
        return _json_step.get(endpoint, 0)


def stepped_down(endpoint: str, err: Exception, index: int) -> int:
    """The next step after ``endpoint`` refused step ``index`` with ``err`` (remembered for the run);
    ``err`` is re-raised if it is not a refused format, or no step is left."""
    if not _refuses_format(err) or index + 1 == len(JSON_STEPS):
        raise err
    index += 1
    with _lock:
        _json_step[endpoint] = max(_json_step.get(endpoint, 0), index)
    return index


class ServerEngine:
    """``complete(Request) -> Response`` against one OpenAI-compatible server at ``api_base``."""

    supports_response_schema = True  # asked first; a refusal steps down (see the module docstring)
    supports_function_calling = False
    supports_reasoning = False
    answers_in_json = False  # True: tribunal's adapters ask this server for JSON answers (a local model's)
    supported_params = frozenset({"temperature", "max_tokens", "top_p", "stop", "seed", "response_format",
                                  "presence_penalty", "frequency_penalty", "logprobs", "top_logprobs"})

    def __init__(self, api_base: str, api_key: str | None = None, timeout: float | None = None,
                 cache_endpoint: str | None = None, local: bool = False,
                 recover: Callable[[], None] | None = None, slots: int | None = None):
        from dspy.clients.engines.lm15_engine import LM15Engine, timeouts_for  # heavy: dspy, pydantic
        from dspy.lm15 import RouterConfig  # heavy: dspy, pydantic


        self.api_base = api_base
        self.cache_endpoint = cache_endpoint or api_base
        # A connection per calling thread: no pool lock shared by every call (thread_transport.py).
        self._transport = ThreadTransport(timeouts_for(timeout), api_base)
        config = RouterConfig(env={}, api_keys={DIALECT: api_key} if api_key else None,
                              base_urls={DIALECT: api_base}, transport=self._transport)
        self._engine = LM15Engine(config, model_type="chat")
        self.slots = slots
        self._gate = gate(api_base, slots) if slots else None
        self.answers_in_json = local
        self._recover = recover
        self.timeout, self.api_key = timeout, api_key
        self.async_twin: Any = None  # its AsyncServerEngine, once the async path asked for one

    def _routed(self, request: Any) -> Any:
        return routed_to_door(request)

    def complete(self, request: Any) -> Any:
        if self._gate is None:
            return self._resent(request)
        with self._gate.hold():  # its slot number picks the connection (thread_transport.py)
            return self._resent(request)

    def _resent(self, request: Any) -> Any:
        """The call, sent again after a connection error once ``recover`` says the server answers."""
        from dspy import lm15  # heavy: dspy, pydantic

        for attempt in range(RESENDS + 1):
            try:
                return self._complete(request)
            except lm15.TransportError:
                if self._recover is None or attempt == RESENDS:
                    raise
                self._recover()  # returns once the server answers again; raises when it is gone for good

    def _complete(self, request: Any) -> Any:
        routed = self._routed(request)
        if not routed.config.response_format:
            return self._engine.complete(routed)
        index = first_step(self.api_base)
        while True:
            try:
                return self._engine.complete(_ask(routed, JSON_STEPS[index]))
            except Exception as err:  # noqa: BLE001 - only a refused format steps down; the rest propagates
                index = stepped_down(self.api_base, err, index)

    def stream(self, request: Any):
        raise NotImplementedError("tribunal does not stream")

    def close(self) -> None:
        self._engine.close()
        self._transport.close()  # the engine leaves a transport it was given open
