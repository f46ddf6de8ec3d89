"""The real-model tier: tribunal's commands against SmolLM2-135M-Instruct behind llama.cpp's server.

Marked ``real_model``. Skipped, with the reason and what to install, where the ``local`` extra is
missing (``pytest -rs`` lists the reason); CI installs the extra and sets ``TRIBUNAL_REAL_MODEL_REQUIRED``,
which turns that skip into a failure. The server is
started once per test session, with a counting proxy in front (llama-cpp-python's server keeps no
counts of its own); ``TRIBUNAL_LOCAL_SERVERS`` points ``--lm local`` at the proxy, so every command
of the session shares the one server, and the calls and tokens each command reports can be compared
with what the server answered.

``TRIBUNAL_REAL_MODEL_REPORT=FILE`` writes what the model's answers looked like per command (calls,
items scored and unscored, a few raw answers) as JSON, for the README's figures.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.counting_proxy import counting_proxy


@pytest.fixture(scope="session")
def local_model():
    """The proxy's state (what the server answered), with ``--lm local`` pointed at it for the session."""
    from tribunal.programs.local_models import missing_local_extra

    reason = missing_local_extra()
    if reason and os.environ.get("TRIBUNAL_REAL_MODEL_REQUIRED"):
        pytest.fail(f"TRIBUNAL_REAL_MODEL_REQUIRED is set (CI) but {reason}")
    if reason:
        pytest.skip(reason)
    from tribunal.programs.local_models import SERVERS_ENV, bundled_gguf, model_alias
    from tribunal.programs.local_server import LocalServer

    gguf = bundled_gguf()
    with LocalServer(gguf, alias=model_alias(gguf)) as server, counting_proxy(server.api_base) as (api_base, state):
        saved = os.environ.get(SERVERS_ENV)
        os.environ[SERVERS_ENV] = json.dumps({str(gguf): api_base})
        try:
            yield state
        finally:
            if saved is None:
                os.environ.pop(SERVERS_ENV, None)
            else:
                os.environ[SERVERS_ENV] = saved


@pytest.fixture(scope="session")
def model_report():
    """Per-command figures, written to ``TRIBUNAL_REAL_MODEL_REPORT`` at the end of the session."""
    figures: dict[str, dict] = {}
    yield figures
    target = os.environ.get("TRIBUNAL_REAL_MODEL_REPORT")
    if target and figures:
        Path(target).write_text(json.dumps(figures, indent=2, ensure_ascii=False), encoding="utf-8")
