"""``--program NAME|FILE``: a fresh registered program, or an exported (tuned) one loaded back safely.

Every command that runs a judge (evaluate, audit, optimize) resolves its ``--program`` here, so a
tuned JSON export is accepted wherever a program name is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from tribunal.core.judges import JUDGES
from tribunal.errors import UserError
from tribunal.data.program_export import is_program_file
from tribunal.programs.registry import program_names

_KIND_LABELS = {"mt": "an MT", "equiv": "an equivalence"}


@dataclass
class ResolvedProgram:
    """A built program and where it came from (what an export of it needs)."""

    program: Any
    name: str
    config: dict[str, Any] = field(default_factory=dict)
    kind: str | None = None
    source: str = "registry"  # "registry" or the export file's path
    document: dict[str, Any] | None = None  # the export it was loaded from, if any

    @property
    def label(self) -> str:
        """For params and signatures: the name, plus ``@sha`` of the export it came from."""
        return self.name if self.document is None else f"{self.name}@{self.document['sha256'][:12]}"


def program_kind(name: str, program: Any) -> str | None:
    """``"mt"``, ``"equiv"`` or None when unknown: what the program declares (``judge_kind``), else its
    registry entry's kind."""
    judge = JUDGES.find(name)
    return getattr(program, "judge_kind", None) or (judge.kind if judge else None)


def resolve_program(value: str, expected_kind: str | None = None, settings: Mapping[str, str] | None = None,
                    **config: Any) -> ResolvedProgram:
    """Build ``value``: a registered program name (with its settings) or the path of an exported JSON.

    ``settings`` are ``--set KEY=VALUE`` strings, validated by the program's own config
    (:mod:`tribunal.optimizers.program_settings`); ``config`` is an already valid JSON config.
    ``expected_kind`` ("mt" / "equiv") rejects a program of the other family with a clear error.
    An export is verified (seal, structure, no secrets) and never unpickled; it takes no settings
    (it carries its own).
    """
    from tribunal.optimizers.program_settings import build_configured, program_config  # heavy: pulls in pydantic

    if is_program_file(value):
        from tribunal.optimizers.program_loader import load_program  # heavy: pulls in pydantic

        if config or settings:
            raise UserError(f"--program {value}: an exported program carries its own configuration")
        if not Path(value).is_file():
            raise UserError(f"--program {value}: no such file")
        program, document = load_program(value)
        info = document["program"]
        resolved = ResolvedProgram(program, info["name"], dict(info.get("config") or {}), None, str(value), document)
    else:
        if value not in program_names():
            raise UserError(f"unknown program {value!r} (available: {', '.join(program_names()) or 'none'}; "
                            "or pass an exported .json file)")
        config = {**config, **program_config(value, dict(settings or {}))}
        resolved = ResolvedProgram(build_configured(value, config), value, config)
    resolved.kind = program_kind(resolved.name, resolved.program)
    if expected_kind and resolved.kind and resolved.kind != expected_kind:
        raise UserError(f"--program {value}: is {_KIND_LABELS.get(resolved.kind, resolved.kind)} judge, "
                        f"but the data needs {_KIND_LABELS.get(expected_kind, expected_kind)} judge")
    return resolved
