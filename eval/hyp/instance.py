"""A workflow instance: research question, observed finding, fixed opening hypotheses."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

EXAMPLE = "example.json"


class Instance(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    research_question: str
    observed_finding: str
    opening_hypotheses: list[str] = Field(min_length=1)


def load_instance(path: Path | None = None) -> Instance:
    """Load ``path`` (default: the shipped example instance)."""
    if path is None:
        text = (resources.files("tribunal.eval.hyp") / "instances" / EXAMPLE).read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    return Instance.model_validate_json(text)
