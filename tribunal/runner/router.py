"""Several endpoints of one model (``--api-base`` repeated, e.g. vLLM replicas) behind LiteLLM's Router.

Every model the run uses (the default LM and each ``--role-lm``) becomes a Router model group with
one deployment per endpoint; the Router picks a deployment per call (``least-busy``: fewest calls
in flight; ``simple-shuffle``: random) and, when a call to one endpoint fails, retries it on
another while the failed one cools down. DSPy talks to the Router through :class:`RouterEngine`,
its own LiteLLM engine with ``Router.completion`` in place of ``litellm.completion``.
"""

from __future__ import annotations

import os
from typing import Any

from dspy.clients.engines.litellm_engine import LiteLLMEngine
from dspy.clients.engines.litellm_errors import litellm_errors


class RouterEngine:
    """A DSPy engine (``complete(Request) -> Response``) whose calls go through a ``litellm.Router``.

    Requests and responses are converted by DSPy's own LiteLLM engine, so the Router receives
    exactly what ``litellm.completion`` would; one model group per model name.
    """

    def __init__(self, router: Any):
        self.router = router
        self.codec = LiteLLMEngine(model_type="chat")

    def complete(self, request: Any) -> Any:
        # Unset connection settings (api_key=None, ...) would override the deployments' own.
        data = {k: v for k, v in self.codec._arguments(request).items() if v is not None}
        data.pop("num_retries", None)  # the Router's own retries move a failed call to another endpoint
        data.pop("cache", None)
        with litellm_errors(model=request.model):
            raw = self.router.completion(**data)
        return self.codec._response(raw, request)

    def stream(self, request: Any):
        raise NotImplementedError("the runner does not stream")

    def close(self) -> None:
        self.codec.close()


def build_router(config: Any) -> Any:
    """A ``litellm.Router`` over ``config.router.endpoints`` for every model of the run."""
    import litellm  # heavy: litellm, openai

    settings = config.lm
    key = os.environ.get(settings.api_key_env) if settings.api_key_env else None
    if settings.api_key_env and not key:
        raise ValueError(f"environment variable {settings.api_key_env} (the API key) is not set")
    models = dict.fromkeys([settings.model, *config.role_lms.values()])
    deployments = []
    for model in models:
        for number, endpoint in enumerate(config.router.endpoints):
            params = {"model": model, "api_base": endpoint, "timeout": settings.timeout}
            if key:
                params["api_key"] = key
            deployments.append({"model_name": model, "litellm_params": params,
                                "model_info": {"id": f"{model}@{number}"}})
    return litellm.Router(model_list=deployments, routing_strategy=config.router.strategy,
                          num_retries=config.router.retries, allowed_fails=0,
                          cooldown_time=config.router.cooldown_seconds, retry_after=0)
