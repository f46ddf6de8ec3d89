"""LLM-judge rule: :class:`~tribunal.programs.equiv_judge.EquivalenceJudge` over a batch, concurrently.

Each worker thread enters ``dspy.context(lm=...)`` itself, so no global DSPy configuration
is touched and the rule can be used from any thread. Judgments are remembered per (pair,
repeat): a cascade or a threshold calibration that consults the same rule instance on a pair
already judged pays nothing twice.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from tribunal.core.judgment import Judgment
from tribunal.eval.equiv.rules.base import EquivalenceRule, Pair

CALLS_PER_PAIR = 3  # the majority-of-three budget of one pair


class LLMJudgeRule(EquivalenceRule):
    name = "llm"
    calls_per_pair = CALLS_PER_PAIR

    def __init__(self, lm: Any, rubric: str = "full", threads: int = 4, lm_name: str | None = None,
                 program: Any = None, program_label: str | None = None):
        """``program``: an already built (e.g. tuned, loaded from an export) judge; its rubric wins."""
        from tribunal.programs.equiv_judge import EquivalenceJudge  # heavy: pulls in dspy

        from tribunal.eval.tracking.call_log import attach_call_log  # heavy: pulls in dspy

        self.program = attach_call_log(program if program is not None else EquivalenceJudge(rubric), [lm])
        self.call_logs: dict[tuple[str, str, int], dict] = {}  # per (original, perturbed, repeat), for traces
        self.lm, self.rubric, self.threads = lm, self.program.rubric, max(1, threads)
        self.lm_name = lm_name or getattr(lm, "model", str(lm))
        self.program_label = program_label
        self._memo: dict[tuple, Judgment] = {}
        self._lock = threading.Lock()
        self.memo_hits = 0

    @property
    def label(self) -> str:
        suffix = self.program_label.partition("@")[2] if self.program_label else ""
        return f"llm-{self.rubric}@{suffix}" if suffix else f"llm-{self.rubric}"

    def _judge_one(self, pair: Pair, repeat: int) -> Judgment:
        import dspy  # heavy: dspy

        from tribunal.eval.tracking.call_log import CallLog, recording  # heavy: pulls in dspy

        log = CallLog()
        with dspy.context(lm=self.lm), recording(log):
            judgment = self.program(hypothesis_a=pair[0].render(), hypothesis_b=pair[1].render(), repeat=repeat).judgment
        self.call_logs[(getattr(pair[0], "id", ""), getattr(pair[1], "id", ""), repeat)] = log.trace()
        return judgment

    def judge_pairs(self, pairs: Sequence[Pair], repeat: int = 0) -> list[Judgment]:
        # The judge's framing (an instance's question and finding) is part of the key: a framed copy of
        # this rule shares the memo, and the same pair under another framing is another judgment.
        frame = tuple(sorted(getattr(self.program, "context", {}).items()))
        keys = [(frame, a.render(), b.render(), repeat) for a, b in pairs]
        with self._lock:
            todo = {key: pair for key, pair in zip(keys, pairs) if key not in self._memo}
            self.memo_hits += len(keys) - len(todo)
        work = list(todo.items())
        if self.threads == 1 or len(work) < 2:
            results = [self._judge_one(pair, repeat) for _, pair in work]
        else:
            with ThreadPoolExecutor(max_workers=self.threads) as pool:
                results = list(pool.map(lambda item: self._judge_one(item[1], repeat), work))
        with self._lock:
            self._memo.update((key, judgment) for (key, _), judgment in zip(work, results))
            return [self._memo[key] for key in keys]

    def stats(self) -> dict[str, float]:
        return {"memo_hits": float(self.memo_hits)}

    def params(self) -> dict[str, Any]:
        return {"rubric": self.rubric, "lm": self.lm_name, "votes": CALLS_PER_PAIR, "threads": self.threads,
                "program": self.program_label or "equiv-llm"}
