"""Export and load tuned programs as JSON: program state plus metadata, sealed with sha256.

Format ``tribunal.program/1``::

    {"format": ..., "program": {"name", "config", "identity", "structure"},
     "state": <dspy dump_state without LM settings>, "metadata": {...}, "sha256": ...}

Loading parses JSON only (never unpickles), verifies the seal, the program name and its structural
identity before any state touches the program. LM settings are not program state: they are
stripped on export (DSPy's ``lm`` state can carry keys and endpoints), and a file containing a
credential from the environment is refused on both export and load.
"""

from __future__ import annotations

import hashlib
import json
import platform
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from tribunal.errors import UserError
from tribunal.data.atomic import write_text_atomically
from tribunal.secrets import secret_values
from tribunal.data.program_identity import program_identity, program_structure

FORMAT = "tribunal.program/1"
_PICKLE_MAGIC = (b"\x80", b"(dp", b"ccopy_reg")


def is_program_file(value: str) -> bool:
    """Whether ``--program VALUE`` names an exported file rather than a registered program."""
    return value.endswith(".json") or "/" in value or Path(value).is_file()


class _ProgramInfo(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    identity: str
    config: dict[str, Any] | None = None


class _ExportShape(BaseModel):
    """What loading needs of a document, checked after its seal (a re-sealed file may lack it)."""

    model_config = ConfigDict(extra="allow")

    program: _ProgramInfo
    state: dict[str, Any]
    metadata: dict[str, Any] = {}


def _strip_lm(state: Any) -> Any:
    """Blank every predictor's ``lm`` (DSPy's loader expects the key, set to None)."""
    if isinstance(state, dict):
        return {k: None if k == "lm" else _strip_lm(v) for k, v in state.items()}
    if isinstance(state, list):
        return [_strip_lm(v) for v in state]
    return state


def _seal(document: dict[str, Any]) -> str:
    body = {k: v for k, v in document.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("tribunal", "dspy", "pydantic", "mlflow"):
        try:
            versions[package] = importlib_metadata.version(package)
        except importlib_metadata.PackageNotFoundError:
            versions[package] = "unknown"
    return versions


def _check_no_secret(text: str, where: str) -> None:
    for value in secret_values():
        if value in text:
            raise UserError(f"{where}: contains a credential from the environment; refusing")


def export_document(program: Any, name: str, config: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
    """The sealed export of a program built from ``config`` (its JSON config, see ``program_settings``)."""
    document = {
        "format": FORMAT,
        "program": {"name": name, "config": config, "identity": program_identity(program),
                    "structure": program_structure(program)},
        "state": _strip_lm(program.dump_state()),
        "metadata": {**metadata, "versions": _versions()},
    }
    document["sha256"] = _seal(document)
    return document


def write_export(document: dict[str, Any], path: str | Path) -> Path:
    """Write an export atomically after checking it holds no credential.

    Keys keep their order: a demo's fields in the schema's order are part of the prompt, so a sorted
    file would load back as another prompt. (The seal is computed over a sorted, canonical form.)
    """
    path = Path(path)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    _check_no_secret(text, str(path))
    return write_text_atomically(path, text)


def read_export(path: str | Path) -> dict[str, Any]:
    """Parse and verify an export file; never unpickles."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise UserError(f"{path}: cannot read the export: {err.strerror or err}") from None
    if raw.startswith(_PICKLE_MAGIC):
        raise UserError(f"{path}: a pickle; tribunal only loads its own JSON exports")
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UserError(f"{path}: not a tribunal export (not JSON: {err})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise UserError(f"{path}: not a tribunal export (format is not {FORMAT})")
    if document.get("sha256") != _seal(document):
        raise UserError(f"{path}: sha256 does not match the content (the file was modified)")
    _check_no_secret(raw.decode("utf-8"), str(path))
    try:
        _ExportShape.model_validate(document)
    except ValidationError as err:
        first = err.errors()[0]
        raise UserError(f"{path}: not a complete tribunal export: {'.'.join(map(str, first['loc']))}: "
                        f"{first['msg']}") from None
    return document
