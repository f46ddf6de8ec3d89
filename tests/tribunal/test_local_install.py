"""``tribunal local install``: llama.cpp's build flags come from /proc/cpuinfo, and the wheel's folder is keyed by them."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tribunal import local_build
from tribunal.local_build import LLAMA_VERSION, build_plan, wheel_folder

REPO = Path(__file__).resolve().parents[2]
SAPPHIRE_RAPIDS = ("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8481C\n"
                   "flags\t\t: fpu sse sse2 ssse3 sse4_1 sse4_2 avx f16c fma avx2 bmi2 avx512f avx512dq avx512bw "
                   "avx512vl avx512_vnni avx512_bf16 amx_bf16 amx_tile amx_int8\nprocessor\t: 1\n")
ZEN2 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse sse2 sse4_2 avx f16c fma avx2 bmi2\n"
OLD_X86 = "processor\t: 0\nflags\t\t: fpu sse sse2 sse4_2 avx\n"
ARM = "processor\t: 0\nFeatures\t: fp asimd evtstrm aes\nCPU implementer\t: 0x41\n"


def test_an_amx_cpu_gets_native_off_and_its_own_instruction_sets():
    plan = build_plan(SAPPHIRE_RAPIDS)
    assert plan.has_amx
    assert plan.cmake_string() == ("-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
                                   "-DGGML_AVX512=ON")


def test_a_cpu_without_avx512f_gets_a_wheel_without_avx512():
    plan = build_plan(ZEN2)
    assert not plan.has_amx
    assert "-DGGML_NATIVE=OFF" in plan.cmake_args and "-DGGML_AVX2=ON" in plan.cmake_args
    assert "-DGGML_AVX512=OFF" in plan.cmake_args
    old = build_plan(OLD_X86)
    assert "-DGGML_AVX=ON" in old.cmake_args and "-DGGML_AVX2=OFF" in old.cmake_args and "-DGGML_FMA=OFF" in old.cmake_args


def test_a_cpu_without_an_x86_flags_line_keeps_llama_cpps_own_build():
    assert build_plan(ARM).cmake_args == () and build_plan("").cmake_args == ()


def test_the_wheel_folder_is_keyed_by_the_flags(tmp_path, monkeypatch):
    monkeypatch.setenv(local_build.CACHE_ENV, str(tmp_path))
    amx, zen = wheel_folder(build_plan(SAPPHIRE_RAPIDS)), wheel_folder(build_plan(ZEN2))
    assert amx != zen and amx.parent == zen.parent == tmp_path  # a wheel built with other flags is never reused
    assert wheel_folder(build_plan(SAPPHIRE_RAPIDS)) == amx and LLAMA_VERSION in amx.name


def test_the_extra_pins_the_version_the_command_builds():
    extra = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert f"llama-cpp-python[server]=={LLAMA_VERSION}" in extra["local"]


def _dry_run(capsys, *extra):
    return run_cli(capsys, "local", "install", "--dry-run", *extra)


def test_dry_run_says_the_flags_the_folder_and_the_pip_commands(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(local_build.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(local_build, "this_cpu", lambda: build_plan(SAPPHIRE_RAPIDS))
    outcome = _dry_run(capsys)
    assert outcome.status == 0, outcome.err
    text = " ".join(outcome.out.split())
    folder = wheel_folder(build_plan(SAPPHIRE_RAPIDS))
    assert "CMAKE_ARGS=-DGGML_NATIVE=OFF" in text and "this CPU has AMX" in text
    assert f"pip wheel -q --no-cache-dir --no-deps llama-cpp-python=={LLAMA_VERSION} -w {folder}" in text
    assert f"--find-links {folder}" in text and sys.executable in text
    assert not folder.exists()  # nothing built or made


def test_a_wheel_in_the_keyed_folder_is_reused_unless_rebuild(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(local_build.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(local_build, "this_cpu", lambda: build_plan(ZEN2))
    folder = wheel_folder(build_plan(ZEN2))
    folder.mkdir(parents=True)
    (folder / f"llama_cpp_python-{LLAMA_VERSION}-py3-none-linux_x86_64.whl").write_bytes(b"")
    reused = " ".join(_dry_run(capsys).out.split())
    assert "holds llama_cpp_python" in reused and "pip wheel" not in reused
    rebuilt = " ".join(_dry_run(capsys, "--rebuild").out.split())
    assert "it is built again" in rebuilt and "pip wheel -q --no-cache-dir" in rebuilt


@pytest.mark.parametrize("words", ["GGML_NATIVE=OFF", "AMX", "20824", "--no-cache-dir", "CMAKE_ARGS"])
def test_help_says_why_next_to_the_flags(words, capsys):
    from typer.testing import CliRunner

    from tribunal.cli import app

    result = CliRunner().invoke(app, ["local", "install", "--help"])
    assert result.exit_code == 0 and words in " ".join(result.output.split())
