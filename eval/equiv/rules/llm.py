"""LLM-judge rule: :class:`~tribunal.programs.equiv_judge.EquivalenceJudge` over a batch, concurrently.

Each worker thread enters ``dspy.context(lm=...)`` itself, so no global DSPy configuration
is touched and the rule can be used from any thread.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from tribunal.eval.equiv.rules.base import EquivalenceRule, Judgment, Pair


class LLMJudgeRule(EquivalenceRule):
    name = "llm"

    def __init__(self, lm: Any, rubric: str = "full", threads: int = 4, lm_name: str | None = None,
                 program: Any = None, program_label: str | None = None):
        """``program``: an already built (e.g. tuned, loaded from an export) judge; its rubric wins."""
        from tribunal.programs.equiv_judge import EquivalenceJudge

        from tribunal.eval.tracking.call_log import attach_call_log

        self.program = attach_call_log(program if program is not None else EquivalenceJudge(rubric), [lm])
        self.call_logs: dict[tuple[str, str, int], dict] = {}  # per (original, perturbed, repeat), for traces
        self.lm, self.rubric, self.threads = lm, self.program.rubric, max(1, threads)
        self.lm_name = lm_name or getattr(lm, "model", str(lm))
        self.program_label = program_label

    @property
    def label(self) -> str:
        suffix = self.program_label.partition("@")[2] if self.program_label else ""
        return f"llm-{self.rubric}@{suffix}" if suffix else f"llm-{self.rubric}"

    def _judge_one(self, pair: Pair, repeat: int) -> Judgment:
        import dspy

        from tribunal.eval.tracking.call_log import CallLog, recording

        log = CallLog()
        with dspy.context(lm=self.lm), recording(log):
            judgment = self.program(hypothesis_a=pair[0].render(), hypothesis_b=pair[1].render(), repeat=repeat).judgment
        self.call_logs[(getattr(pair[0], "id", ""), getattr(pair[1], "id", ""), repeat)] = log.trace()
        return judgment

    def judge_pairs(self, pairs: Sequence[Pair], repeat: int = 0) -> list[Judgment]:
        if self.threads == 1 or len(pairs) < 2:
            return [self._judge_one(pair, repeat) for pair in pairs]
        with ThreadPoolExecutor(max_workers=self.threads) as pool:
            return list(pool.map(lambda pair: self._judge_one(pair, repeat), pairs))

    def params(self) -> dict[str, Any]:
        return {"rubric": self.rubric, "lm": self.lm_name, "votes": 3, "threads": self.threads,
                "program": self.program_label or "equiv-llm"}
