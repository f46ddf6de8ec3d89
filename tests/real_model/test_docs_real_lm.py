"""The tutorials' blocks marked ``real-lm`` run on the local model (see :mod:`tests.docs.blocks`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.docs.blocks import read_blocks, run_block

pytestmark = pytest.mark.real_model

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCKS = [b for page in sorted((DOCS / "tutorials").glob("*.md")) for b in read_blocks(page) if b.mark == "real-lm"]


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: f"{b.page.stem}:{b.line}")
def test_real_lm_block_runs_on_the_local_model(block, local_model, tmp_path):
    """Exit 0 or 3 (items unscored, each with its reason) and no traceback, whatever the model says."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DSPY_"))}
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
               LITELLM_LOCAL_MODEL_COST_MAP="True", DSPY_CACHEDIR=str(tmp_path / ".dspy-cache"))
    if not env.get("TRIBUNAL_DATA"):
        pytest.skip("TRIBUNAL_DATA is not set")
    done = run_block(block, tmp_path, env, timeout=900)
    output = done.stdout + done.stderr
    assert done.returncode in (0, 3), f"{block.where}: exit {done.returncode}\n{output[-3000:]}"
    assert "Traceback" not in output, output[-3000:]
