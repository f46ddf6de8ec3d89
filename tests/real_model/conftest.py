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

``q4km_model`` makes a Q4_K_M model at test time from the bundled one with llama.cpp's own quantizer
(``llama_model_quantize`` through the binding; requantizing a quantized model needs
``allow_requantize``) and serves it the same way, so ``--lm local/PATH.gguf`` reaches it.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
from pathlib import Path

import pytest

from tests.support.counting_proxy import counting_proxy


@contextlib.contextmanager
def _served(gguf: Path):
    """A server for ``gguf`` behind a counting proxy, in ``TRIBUNAL_LOCAL_SERVERS``; the proxy's state,
    with ``state.server`` the server (so a test can check it is still alive)."""
    from tribunal.programs.local_models import SERVERS_ENV, model_alias
    from tribunal.programs.local_server import LocalServer

    with LocalServer(gguf, alias=model_alias(gguf)) as server, counting_proxy(server.api_base) as (api_base, state):
        saved = os.environ.get(SERVERS_ENV)
        os.environ[SERVERS_ENV] = json.dumps({**json.loads(saved or "{}"), str(gguf): api_base})
        state.server = server
        try:
            yield state
        finally:
            if saved is None:
                os.environ.pop(SERVERS_ENV, None)
            else:
                os.environ[SERVERS_ENV] = saved


def _require_extra() -> None:
    from tribunal.programs.local_models import missing_local_extra

    reason = missing_local_extra()
    if reason and os.environ.get("TRIBUNAL_REAL_MODEL_REQUIRED"):
        pytest.fail(f"TRIBUNAL_REAL_MODEL_REQUIRED is set (CI) but {reason}")
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def local_model():
    """The proxy's state (what the server answered), with ``--lm local`` pointed at it for the session."""
    _require_extra()
    from tribunal.programs.local_models import bundled_gguf

    with _served(bundled_gguf()) as state:
        yield state


@pytest.fixture(scope="session")
def q4km_model(tmp_path_factory):
    """``(path, proxy state)`` of a Q4_K_M model quantized now from the bundled one, served like ``local``."""
    _require_extra()
    import llama_cpp

    from tribunal.programs.local_models import bundled_gguf

    target = tmp_path_factory.mktemp("q4km") / "SmolLM2-135M-Instruct.Q4_K_M.gguf"
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_K_M
    params.allow_requantize = True  # the bundled model is already quantized (Q4_1)
    params.nthread = os.cpu_count() or 1
    status = llama_cpp.llama_model_quantize(str(bundled_gguf()).encode(), str(target).encode(), ctypes.byref(params))
    assert status == 0 and target.is_file(), f"llama_model_quantize returned {status}"
    with _served(target) as state:
        yield target, state


@pytest.fixture(scope="session")
def model_report():
    """Per-command figures, written to ``TRIBUNAL_REAL_MODEL_REPORT`` at the end of the session."""
    figures: dict[str, dict] = {}
    yield figures
    target = os.environ.get("TRIBUNAL_REAL_MODEL_REPORT")
    if target and figures:
        Path(target).write_text(json.dumps(figures, indent=2, ensure_ascii=False), encoding="utf-8")
