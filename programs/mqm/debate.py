"""Stage 2 of M-MAD: what a debate over one dimension gets and returns, and the strategy registry.

A strategy is a ``dspy.Module`` holding its own predictors; it receives a :class:`DebateCase`
and returns a :class:`DebateOutcome`. Register new ones with :func:`register_strategy`;
:mod:`tribunal.programs.mqm.debate_strategies` loads the built-in ones and makes a strategy by name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from tribunal.programs.mqm.mmad_roles import DEBATERS
from tribunal.signatures.mqm.errors import DimensionError

STAGE = "stage2"


@dataclass
class DebateCase:
    """One dimension's stage-1 verdict, put up for debate."""

    source: str
    translation: str
    dimension: str
    topic: str
    assessment: list[DimensionError]
    opening: str | None = None
    """The stage-1 agent's own rationale, used as the defender's first turn (no call) when set."""
    source_lang: str = ""
    target_lang: str = ""
    turns: list[dict[str, Any]] = field(default_factory=list)

    def inputs(self) -> dict[str, Any]:
        """The inputs every debate signature shares."""
        return dict(source=self.source, translation=self.translation, dimension=self.dimension,
                    topic=self.topic, assessment=self.assessment, debate=self.transcript())

    def segment(self) -> dict[str, str]:
        """The translation pair with its languages (what the published debaters read)."""
        return dict(source_lang=self.source_lang, target_lang=self.target_lang, source=self.source,
                    translation=self.translation)

    def add_turn(self, role: str, round_: int, text: str, errors: list[DimensionError] | None = None,
                 **extra: Any) -> None:
        self.turns.append({"role": role, "round": round_, "text": text,
                           "errors": None if errors is None else [e.model_dump() for e in errors], **extra})

    def transcript(self, viewer: str | None = None) -> str:
        """The debate so far, as the agents read it.

        With ``viewer`` (``"defender"`` or ``"opposer"``) it is that debater's own view: its turns are
        "you", the other debater's "other agent", and consensus checks (which debaters never see) are left out.
        """
        lines = []
        for turn in self.turns:
            role = turn["role"]
            if viewer is not None:
                if role == "consensus":
                    continue
                role = "you" if role == viewer else "other agent" if role in DEBATERS else role
            lines.append(f"[round {turn['round']}] {role}: {turn['text']}")
            if turn["errors"] is not None:
                lines.append(f"  position: {json.dumps(turn['errors'], ensure_ascii=False)}")
        return "\n".join(lines)


@dataclass
class DebateOutcome:
    """The errors a debate settled on, and how it got there."""

    errors: list[DimensionError]
    rounds: int
    consensus: bool | None
    decided_by: str


STRATEGIES: dict[str, Callable[..., Any]] = {}


def register_strategy(name: str) -> Callable[[type], type]:
    """Class decorator: make a debate strategy selectable by ``name``."""

    def add(cls: type) -> type:
        STRATEGIES[name] = cls
        return cls

    return add
