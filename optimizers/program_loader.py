"""Load a tuned program from its export file (:mod:`tribunal.data.program_export`) into a freshly built one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tribunal.errors import UserError
from tribunal.data.program_export import read_export
from tribunal.data.program_identity import program_identity
from tribunal.optimizers.program_settings import build_configured


def load_program(path: str | Path, expected_name: str | None = None) -> tuple[Any, dict[str, Any]]:
    """Rebuild the exported program and load its state; returns ``(program, document)``."""
    document = read_export(path)
    info = document["program"]
    if expected_name is not None and info["name"] != expected_name:
        raise UserError(f"{path}: exported program is {info['name']!r}, not {expected_name!r}")

    program = build_configured(info["name"], info.get("config") or {})
    if program_identity(program) != info["identity"]:
        raise UserError(f"{path}: its structure does not match program {info['name']!r} of this tribunal version")
    program.load_state(document["state"])
    return program, document
