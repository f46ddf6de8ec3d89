"""The tutorials' examples run, and what they show is what they print (see :mod:`tests.docs.blocks`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.docs.blocks import read_blocks, run_block, missing_output_lines
from tests.support.batch_server import batch_server
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge

DOCS = Path(__file__).resolve().parents[2] / "docs"
TUTORIALS = sorted(p for p in (DOCS / "tutorials").glob("*.md")
                   if not p.name.endswith("-reference.md") and p.name != "testing.md")
TERMINAL_COLUMNS = "100"


def reader_env(folder: Path, api_base: str, api_base_2: str, batch_base: str) -> dict[str, str]:
    """A reader's shell: tribunal on PATH, the shipped data, everything they write inside ``folder``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "TRIBUNAL_", "DSPY_"))}
    data = os.environ.get("TRIBUNAL_DATA")
    if not data:
        pytest.skip("TRIBUNAL_DATA is not set (the tutorials run on the shipped data)")
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}", TRIBUNAL_DATA=data,
               LITELLM_LOCAL_MODEL_COST_MAP="True", DSPY_CACHEDIR=str(folder / ".dspy-cache"),
               TRIBUNAL_CACHE=str(folder / ".tribunal-cache"), API_BASE=api_base, API_BASE_2=api_base_2,
               BATCH_API_BASE=batch_base, COLUMNS=TERMINAL_COLUMNS,
               PYTHONPATH=str(DOCS.parent))
    return env


def test_every_tutorial_block_is_marked():
    """A block nobody runs can go stale: each one runs, is an output checked, or says why not."""
    assert TUTORIALS, DOCS
    unmarked = [b.where for page in TUTORIALS for b in read_blocks(page) if b.mark is None]
    assert not unmarked, f"unmarked code blocks: {unmarked}"
    reasonless = [b.where for page in TUTORIALS for b in read_blocks(page) if b.mark == "not-run" and not b.note]
    assert not reasonless, f"not-run blocks without a reason: {reasonless}"


@pytest.mark.parametrize("page", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs_as_shown(page: Path, tmp_path: Path):
    blocks = read_blocks(page)
    if not any(b.mark == "run" for b in blocks):
        pytest.skip(f"{page.name} has no CI-run blocks")
    with loopback_server(synthetic_judge) as (api_base, _), loopback_server(synthetic_judge) as (api_base_2, _), \
            batch_server(synthetic_judge) as (batch_base, _):
        env = reader_env(tmp_path, api_base, api_base_2, batch_base)
        last = None
        for block in blocks:
            if block.mark == "run":
                done = run_block(block, tmp_path, env)
                output = done.stdout + done.stderr
                assert done.returncode == 0, f"{block.where}: exit {done.returncode}\n{block.code}\n{output[-3000:]}"
                assert "Traceback" not in output, f"{block.where}\n{output[-3000:]}"
                last = (block, output)
                if os.environ.get("TRIBUNAL_DOCS_SHOW"):
                    print(f"\n===== {block.where}\n{output}")
            elif block.mark == "output":
                assert last is not None, f"{block.where}: an output block with no run block before it"
                missing = missing_output_lines(block.code, last[1])
                assert not missing, (f"{block.where}: shown but not printed by {last[0].where}:\n"
                                     + "\n".join(missing) + f"\n--- the run printed:\n{last[1][-4000:]}")
