"""Labelled pair files: a user's own pairs for ``equiv audit --pairs`` and ``optimize --train pairs:``.

One JSON object per line (blank lines are skipped)::

    {"id": "p1", "kind": "my-kind", "label": "same" | "different", "a": H, "b": H}
    H = {"id", "statement", "explanation",
         "steps": [string or {"entity", "text"}, ...],   # initiating event ... finding (>= 3)
         "relations": [string, ...]}                      # optional; default "causes" between steps

A step given as a string is its own entity; ``{"text": ...}`` alone also uses the text as the
entity. Any malformed line is a :class:`DataFormatError` naming the file and the line; unknown
keys are refused (a misspelt ``"lable"`` must not pass silently), and so are duplicate ids.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tribunal.data.errors import DataFormatError
from tribunal.core.hypothesis import Hypothesis, Step
from tribunal.eval.equiv.suite import Suite, SuitePair
from tribunal.eval.tracking.signature import files_hash

DEFAULT_RELATION = "causes"
Text = str


class StepIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entity: str | None = Field(default=None, min_length=1)
    text: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _named(self) -> "StepIn":
        if self.entity is None and self.text is None:
            raise ValueError("a step needs a text (or an entity)")
        return self

    def to_step(self) -> Step:
        return Step(entity=self.entity or self.text, text=self.text or self.entity)


class HypothesisIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    statement: str
    explanation: str
    steps: list[StepIn | Text] = Field(min_length=3)
    relations: list[str] | None = None

    def to_hypothesis(self) -> Hypothesis:
        steps = tuple(Step(entity=s, text=s) if isinstance(s, str) else s.to_step() for s in self.steps)
        if any(not s.text.strip() for s in steps):
            raise ValueError(f"{self.id}: empty step text")
        relations = tuple(self.relations) if self.relations is not None else (DEFAULT_RELATION,) * (len(steps) - 1)
        return Hypothesis(id=self.id, statement=self.statement, explanation=self.explanation,
                          steps=steps, relations=relations)


class PairLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    kind: str = Field(min_length=1)
    label: Literal["same", "different"]
    a: HypothesisIn
    b: HypothesisIn


def _first_problem(err: ValidationError) -> str:
    """The first validation problem as ``field.path: message`` (one line)."""
    problem = err.errors()[0]
    where = ".".join(str(part) for part in problem["loc"] if not str(part).startswith(("function-after", "str")))
    message = problem["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def parse_pair_line(text: str) -> SuitePair:
    """One labelled pair from one line of a pairs file (``ValueError`` with a one-line reason)."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"not valid JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    try:
        line = PairLine.model_validate(record)
        return SuitePair(id=line.id, kind=line.kind, label=line.label,
                         original=line.a.to_hypothesis(), perturbed=line.b.to_hypothesis())
    except ValidationError as err:
        raise ValueError(_first_problem(err)) from None


def load_pairs(path: Path) -> Suite:
    """Every labelled pair of ``path`` as a :class:`Suite` (audited exactly like the shipped suite)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise DataFormatError(path, None, f"not UTF-8 text ({err.reason} at byte {err.start})") from None
    pairs: list[SuitePair] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            pair = parse_pair_line(line)
        except ValueError as err:
            raise DataFormatError(path, number, str(err)) from None
        if pair.id in first_line:
            raise DataFormatError(path, number, f"duplicate pair id {pair.id!r} (first on line {first_line[pair.id]})")
        first_line[pair.id] = number
        pairs.append(pair)
    if not pairs:
        raise DataFormatError(path, None, "no pairs (expected one JSON object per line)")
    return Suite(name=path.stem, hash=files_hash([path]), pairs=tuple(pairs))
