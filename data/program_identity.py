"""What makes an exported program loadable into a freshly built one: its structure.

The identity hashes each named predictor's path and typed input/output fields.
Instructions and demos are deliberately excluded: they are what optimizers change.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def program_structure(program: Any) -> list[dict[str, Any]]:
    """One record per named predictor: path, input and output fields with their types.

    The signature's class name is left out: DSPy renames it when an optimizer edits instructions.
    """
    records = []
    for path, predictor in program.named_predictors():
        signature = predictor.signature
        records.append({
            "path": path,
            "inputs": {n: repr(f.annotation) for n, f in signature.input_fields.items()},
            "outputs": {n: repr(f.annotation) for n, f in signature.output_fields.items()},
        })
    return records


def program_identity(program: Any) -> str:
    """sha256 of the program structure (canonical JSON)."""
    text = json.dumps(program_structure(program), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
