"""How the ``local`` extra's llama.cpp is compiled here: CMake flags from this CPU's /proc/cpuinfo, and the wheel's cache folder.

Why not pip's default build: llama-cpp-python compiles llama.cpp with ``GGML_NATIVE=ON``
(``-march=native``). On a CPU with AMX (``amx_tile``, ``amx_int8``: Sapphire Rapids and later Xeons)
that build repacks q4_0/q4_1/q8_0 weights for AMX, and inside a VM that path segfaults on the first
request (llama.cpp issue 20824; Ollama users on such VMs saw the same): the bundled SmolLM2 (Q4_1)
and Q4_K_M models alike. Turning ``GGML_NATIVE`` off and naming the instruction sets one by one gives
a build that runs on such a CPU and as fast on the rest; each set is switched on only when this CPU
has it (AVX-512 only with ``avx512f``), so the wheel also runs on a CPU without AVX-512.

pip's wheel cache keys a built wheel on the package's name and version, not on ``CMAKE_ARGS``: a wheel
built earlier with other flags would be reused silently. So the wheel is built with
``--no-cache-dir`` into a folder of its own, keyed by the flags (:func:`wheel_folder`), and installed
from there.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

LLAMA_VERSION = "0.3.36"  # the llama-cpp-python the local extra pins (pyproject.toml)
CACHE_ENV = "TRIBUNAL_WHEEL_CACHE"
# (CMake option, the /proc/cpuinfo flag that turns it on), in the order they are passed
INSTRUCTION_SETS = (("GGML_AVX", "avx"), ("GGML_AVX2", "avx2"), ("GGML_FMA", "fma"), ("GGML_F16C", "f16c"),
                    ("GGML_AVX512", "avx512f"))
AMX_FLAGS = ("amx_tile", "amx_int8", "amx_bf16")


@dataclass(frozen=True)
class BuildPlan:
    """The CMake flags for this CPU, and what they were derived from."""

    cmake_args: tuple[str, ...]
    cpu_flags: frozenset[str]

    @property
    def has_amx(self) -> bool:
        return any(flag in self.cpu_flags for flag in AMX_FLAGS)

    def cmake_string(self) -> str:
        """``CMAKE_ARGS`` as pip's build of llama-cpp-python reads it."""
        return " ".join(self.cmake_args)

    def key(self) -> str:
        """What the wheel's cache folder is keyed by: version, Python, platform and flags (12 hex digits)."""
        text = "|".join((LLAMA_VERSION, f"{sys.implementation.name}{sys.version_info[0]}{sys.version_info[1]}",
                         sys.platform, self.cmake_string()))
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The instruction-set flags of the first processor in a /proc/cpuinfo text (empty when it lists none)."""
    for line in cpuinfo.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def build_plan(cpuinfo: str) -> BuildPlan:
    """The flags for a CPU described by ``cpuinfo``: native off, each instruction set on when the CPU has it.

    A CPU whose cpuinfo has no ``flags`` line (not x86: ARM lists ``Features``) keeps llama.cpp's
    own build (no flags), which the AMX crash does not concern.
    """
    flags = cpu_flags(cpuinfo)
    if not flags:
        return BuildPlan((), flags)
    args = ["-DGGML_NATIVE=OFF"] + [f"-D{option}={'ON' if flag in flags else 'OFF'}"
                                    for option, flag in INSTRUCTION_SETS]
    return BuildPlan(tuple(args), flags)


def this_cpu() -> BuildPlan:
    """The plan for the machine this runs on (from /proc/cpuinfo; no flags where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    return build_plan(text)


def cache_root() -> Path:
    """``$TRIBUNAL_WHEEL_CACHE``, else ``$XDG_CACHE_HOME/tribunal/wheels``, else ``~/.cache/tribunal/wheels``."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "tribunal" / "wheels"


def wheel_folder(plan: BuildPlan) -> Path:
    """The folder that holds the wheel built with ``plan``'s flags (one folder per key)."""
    return cache_root() / f"llama-cpp-python-{LLAMA_VERSION}-{plan.key()}"


def cached_wheel(folder: Path) -> Path | None:
    """The llama-cpp-python wheel already built into ``folder``, if any."""
    found = sorted(folder.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl")) if folder.is_dir() else []
    return found[-1] if found else None
