"""The marked code blocks of the docs' tutorials, and running them as a reader would.

A fenced block is marked by an HTML comment on the line before it (invisible on the site):

- ``<!-- test: run -->``: runs in CI, in order with the page's other ``run`` blocks, in one temporary
  folder (MLflow store, outputs and DSPy cache inside it), on the shipped data (``TRIBUNAL_DATA``)
  and, where a command needs an LM, the scripted loopback peer the test starts (``$API_BASE``,
  model ``openai/scripted``: it answers every MT signature deterministically, see
  ``tests/support/mqm_fakes.synthetic_judge``);
- ``<!-- test: real-lm -->``: needs a real LM; runs in the real-model tier on ``--lm local``, each in
  a fresh folder (``tests/real_model/test_docs_real_lm.py``);
- ``<!-- test: output -->``: what the block before it printed; every non-blank line shown (``...``
  lines excepted) must be a line of that run's output, so a shown output cannot drift from the code;
- ``<!-- test: not-run REASON -->``: shown only (a server that runs until stopped, an install);
  the reason is required.

Shell blocks run under ``bash -eo pipefail``; a variable ``export``-ed in one block is seen by the
page's later blocks. Python blocks run with the test's interpreter.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

MARK = re.compile(r"^<!--\s*test:\s*(run|real-lm|output|not-run)\b\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
ENV_FILE = ".docs-env"


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    mark: str | None  # run | real-lm | output | not-run | None (unmarked)
    note: str
    language: str
    code: str

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def read_blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page`` with the marker on the line before it (if any)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index].strip())
        if not opening:
            index += 1
            continue
        fence, language, start = opening.group(1), opening.group(2), index
        index += 1
        body = []
        while index < len(lines) and not lines[index].strip().startswith(fence):
            body.append(lines[index])
            index += 1
        index += 1
        previous = lines[start - 1].strip() if start else ""
        mark = MARK.match(previous)
        blocks.append(Block(page, start + 1, mark.group(1) if mark else None, mark.group(2) if mark else "",
                            language, "\n".join(_dedent(body, lines[start]))))
    return blocks


def _dedent(body: list[str], opening: str) -> list[str]:
    indent = len(opening) - len(opening.lstrip())
    return [line[indent:] if line[:indent].strip() == "" else line for line in body]


def run_block(block: Block, folder: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    """Run one block in ``folder`` as a reader would; stdout and stderr together, as at a terminal."""
    if block.language == "python":
        script = folder / f".block-{block.line}.py"
        script.write_text(block.code + "\n", encoding="utf-8")
        argv = [sys.executable, str(script)]
    else:
        script = (f"[ -f {ENV_FILE} ] && source {ENV_FILE}\nset -eo pipefail\n{block.code}\n"
                  f"export -p > {ENV_FILE}\n")
        argv = ["bash", "-c", script]
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=timeout)


def missing_output_lines(shown: str, output: str) -> list[str]:
    """The lines of a shown output that the real output does not hold (trailing spaces ignored)."""
    real = {line.rstrip() for line in output.splitlines()}
    return [line for line in shown.splitlines()
            if line.strip() and line.strip() != "..." and line.rstrip() not in real]
