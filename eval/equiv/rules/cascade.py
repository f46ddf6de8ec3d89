"""Cascade: a cheap screening rule decides where it is confident, the LLM judge decides the rest.

The screen (the chain rule by default) scores every pair and, for the chain rule, records what
it found (named differences, verified steps, substitutions it cannot verify); the screen decides
alone where that is conclusive, and the LLM judge decides the rest. The routing and how its
default band is calibrated: :mod:`tribunal.eval.equiv.bands`.

Each judgment records its ``route``; a screened pair costs no LM call and saves the judge's
whole per-pair budget (``calls_saved``).
"""

from __future__ import annotations

from typing import Any, Sequence

from tribunal.eval.equiv.bands import screen_route
from tribunal.core.judgment import Judgment
from tribunal.eval.equiv.rules.base import EquivalenceRule, Pair, SimilarityRule


class CascadeRule(EquivalenceRule):
    name = "cascade"

    def __init__(self, screen: SimilarityRule, judge: EquivalenceRule, low: float, high: float):
        if not low <= high:
            raise ValueError(f"cascade band: low {low:g} must not exceed high {high:g}")
        self.screen, self.judge, self.low, self.high = screen, judge, low, high
        self.routed = {"screen-same": 0, "screen-different": 0, "judge": 0}
        self.judge_calls = 0

    @property
    def label(self) -> str:
        return f"cascade-{self.judge.label}"

    def route(self, score: float | None, evidence: str | None = None) -> str:
        """Where a pair with this screen score (and the screen's evidence, if any) goes."""
        return screen_route(score, evidence, self.low, self.high)

    def judge_pairs(self, pairs: Sequence[Pair], repeat: int = 0) -> list[Judgment]:
        screened = self.screen.judge_pairs(pairs, repeat)
        routes = [self.route(j.score, j.votes[0].detail.get("evidence") if j.votes else None) for j in screened]
        uncertain = [k for k, r in enumerate(routes) if r == "judge"]
        judged = dict(zip(uncertain, self.judge.judge_pairs([pairs[k] for k in uncertain], repeat))) if uncertain else {}
        budget = getattr(self.judge, "calls_per_pair", 0)
        results = []
        for k, (screen_judgment, route) in enumerate(zip(screened, routes)):
            self.routed[route] += 1
            if route == "judge":
                self.judge_calls += judged[k].calls
                results.append(judged[k].model_copy(update={"route": route}))
            else:
                results.append(Judgment(same=route == "screen-same", score=screen_judgment.score,
                                        votes=screen_judgment.votes, calls=0, calls_saved=budget, route=route))
        return results

    def stats(self) -> dict[str, float]:
        return {**{f"routed_{k.replace('-', '_')}": float(v) for k, v in self.routed.items()},
                "judge_calls": float(self.judge_calls)}

    def params(self) -> dict[str, Any]:
        screen = {f"screen_{k}": v for k, v in self.screen.params().items()}
        judge = {f"judge_{k}": v for k, v in self.judge.params().items()}
        return {"screen": self.screen.label, "low": self.low, "high": self.high, **screen, **judge}
