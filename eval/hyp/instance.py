"""A workflow instance: research question, observed finding, fixed opening hypotheses, evidence.

Evidence is user-supplied passages (the workflow never goes to the web): each a string, or an
object with ``text`` and an optional ``source``. The agents see them numbered ``[1]``, ``[2]``...

An instance file is one JSON object, a JSON list of objects, or JSON Lines (``.jsonl``, one
object a line); a bad instance is reported with its file and line.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tribunal.data.errors import DataFormatError

EXAMPLE = "example.json"
NO_EVIDENCE = "No evidence passages were supplied."


class Passage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    source: str | None = None


class Instance(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", description="Also a folder name under runs/.")
    research_question: str
    observed_finding: str
    opening_hypotheses: list[str] = Field(min_length=1)
    evidence: list[Passage] = []

    @field_validator("evidence", mode="before")
    @classmethod
    def _plain_strings_are_passages(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"text": item} if isinstance(item, str) else item for item in value]
        return value

    def evidence_text(self) -> str:
        """The passages as the agents see them."""
        if not self.evidence:
            return NO_EVIDENCE
        return "\n".join(f"[{i}] {f'({p.source}) ' if p.source else ''}{p.text}" for i, p in enumerate(self.evidence, 1))


def _records(text: str, name: str) -> list[tuple[int | None, str, Any]]:
    """(line, where, object) for every instance object in the file."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        if len(lines) < 2:
            raise DataFormatError(name, err.lineno, f"not JSON ({err.msg})") from err
        records = []
        for number, line in lines:
            try:
                records.append((number, "", json.loads(line)))
            except json.JSONDecodeError as line_err:
                raise DataFormatError(name, number, f"not JSON ({line_err.msg})") from line_err
        return records
    if isinstance(document, list):
        return [(None, f"instance {i}: ", item) for i, item in enumerate(document, 1)]
    return [(None, "", document)]


def _refuse_duplicates(instances: list[Instance], name: str) -> None:
    ids = [i.id for i in instances]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate:
        raise DataFormatError(name, None, f"instance id {duplicate!r} appears twice")


def parse_instances(text: str, name: str) -> list[Instance]:
    """Instances from the text of file ``name`` (JSON object, JSON list or JSON Lines)."""
    records = _records(text, name)
    if not records:
        raise DataFormatError(name, None, "no instance")
    instances = []
    for line, where, record in records:
        try:
            instances.append(Instance.model_validate(record))
        except ValidationError as err:
            first = err.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "instance"
            raise DataFormatError(name, line, f"{where}{field}: {first['msg']}") from err
    _refuse_duplicates(instances, name)
    return instances


def load_instances(paths: list[Path] | None = None) -> list[Instance]:
    """Every instance in ``paths`` (default: the shipped example instance); ids must be distinct."""
    if not paths:
        text = (resources.files("tribunal.eval.hyp") / "instances" / EXAMPLE).read_text(encoding="utf-8")
        return parse_instances(text, EXAMPLE)
    instances: list[Instance] = []
    for path in paths:
        instances += parse_instances(Path(path).read_text(encoding="utf-8"), str(path))
    _refuse_duplicates(instances, ", ".join(map(str, paths)))
    return instances


def load_instance(path: Path | None = None) -> Instance:
    """The first instance of ``path`` (default: the shipped example instance)."""
    return load_instances([path] if path else None)[0]
