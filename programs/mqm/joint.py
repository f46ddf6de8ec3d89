"""The joint MQM judge: all candidate translations of one source segment judged in one call.

Positional bias is controlled by the order the candidates are shown in: :func:`shown_order` shuffles
them by a seeded rule (the seed of the settings and the source text, so a run is reproducible and the
order does not depend on the order items arrive in), and the order is recorded in every candidate's
transcript. ``orders=2`` asks a second time with that order reversed and averages each candidate's two
scores (its spans are those of the first order; both calls are in the transcript).

Cost: 1 call per source segment (``orders=2``: 2), i.e. 1/N (2/N) calls per translation for N
candidates, against 1 call per translation for GEMBA-MQM. Each candidate is scored by GEMBA-MQM's
scheme (:func:`~tribunal.programs.mqm.scoring.gemba_mqm_score`).
"""

from __future__ import annotations

import hashlib
import random
import string
from typing import Literal

import dspy
from pydantic import ConfigDict, Field

from tribunal.core.judge_settings import JudgeSettings
from tribunal.core.mt_judgment import judged
from tribunal.programs.answers.unusable import UnusableAnswer
from tribunal.programs.mqm.plans import Plan, Together, ask
from tribunal.programs.mqm.planned import Planned
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.programs.mqm.scoring import gemba_mqm_score
from tribunal.signatures.mqm.joint import Candidate, JointMQM

JOINT = "joint"
ROLES: tuple[str, ...] = (JOINT,)
"""The roles its calls are made as, declared once (its registry entry reads them from here)."""


class JointConfig(JudgeSettings):
    """The joint judge's settings (config section ``joint``)."""

    model_config = ConfigDict(extra="forbid")

    seed: int = Field(0, description="seeds the candidate order of every source segment (with the source text)")
    orders: Literal[1, 2] = Field(1, description="1: the shuffled order only; 2: also its reverse, each "
                                                 "candidate's score the mean of its two")


def shown_order(seed: int, source: str, count: int) -> list[int]:
    """The positions of ``count`` candidates (in the caller's canonical order) as shown for ``source``."""
    digest = hashlib.sha256(f"{seed}\0{source}".encode()).digest()
    order = list(range(count))
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return order


def label(position: int) -> str:
    """The label of the candidate shown at ``position``: A, B, ..., Z, then A2, B2, ..."""
    letters = string.ascii_uppercase
    return letters[position % 26] + (str(position // 26 + 1) if position >= 26 else "")


def _labels_check(expected: list[str]):
    def check(out: dspy.Prediction) -> None:
        given = [j.candidate.strip() for j in out.judgments]
        if sorted(given) != sorted(expected):
            raise UnusableAnswer(f"judgments for candidates {given}, expected one each for {expected}")
    return check


class JointMQMJudge(Planned):
    """Judges every candidate of one source together (see the module docstring): ``forward(source, candidates,
    source_lang="", target_lang="")``, or ``aforward`` on the async runner, runs :meth:`plan`."""

    judges_candidates_together = True

    def __init__(self, config: JointConfig | None = None, lms: RoleLMs | None = None):
        super().__init__()
        self.config = config or JointConfig()
        self.lms = lms
        self.annotate = dspy.Predict(JointMQM)

    def asking(self, order: list[int], candidates: list[str], source: str, languages: dict[str, str]) -> Plan:
        """One call with the candidates shown in ``order`` (a plan): ``{canonical index: errors}`` and its record."""
        labels = [label(p) for p in range(len(order))]
        shown = [Candidate(label=labels[p], translation=candidates[i]) for p, i in enumerate(order)]
        out = yield ask(self.lms, JOINT, "joint", self.annotate, check=_labels_check(labels), source=source,
                        candidates=shown, **languages)
        by_label = {j.candidate.strip(): list(j.errors) for j in out.judgments}
        errors = {i: by_label[labels[p]] for p, i in enumerate(order)}
        return {"order": order, "errors": errors}

    def plan(self, source: str, candidates: list[str], source_lang: str = "", target_lang: str = "") -> Plan:
        """A judgment (score, errors, transcript) per candidate, in the order given (``forward``'s arguments)."""
        canonical = sorted(range(len(candidates)), key=lambda i: candidates[i])  # not the order they came in
        order = [canonical[p] for p in shown_order(self.config.seed, source, len(candidates))]
        orders = [order, order[::-1]][: self.config.orders]
        languages = {"source_lang": source_lang, "target_lang": target_lang}
        asked = yield Together([self.asking(o, candidates, source, languages) for o in orders])
        judgments = []
        for index in range(len(candidates)):
            scores = [gemba_mqm_score(call["errors"][index]) for call in asked]
            transcript = [{"stage": "joint", "role": "joint", "call": n, "order": call["order"],
                           "position": call["order"].index(index), "label": label(call["order"].index(index)),
                           "candidates": len(candidates), "score": scores[n],
                           "errors": [e.model_dump() for e in call["errors"][index]]}
                          for n, call in enumerate(asked)]
            judgments.append(judged(sum(scores) / len(scores), asked[0]["errors"][index], transcript))
        return dspy.Prediction(judgments=judgments)
