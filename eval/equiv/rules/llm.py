"""LLM-judge rule: the registry's default equivalence judge (:data:`~tribunal.core.judges.JUDGES`) over a batch, concurrently.

Each worker thread enters ``dspy.context(lm=...)`` itself, so no global DSPy configuration
is touched and the rule can be used from any thread. Judgments are remembered per (pair,
repeat): a cascade or a threshold calibration that consults the same rule instance on a pair
already judged pays nothing twice.

Its calls are counted per role by its :attr:`~LLMJudgeRule.meter` (one for every thread). Under a spending
cap (:meth:`LLMJudgeRule.capped`) a pair is started only while the cap admits its whole vote budget; pairs
the cap left are not judged, and :meth:`~LLMJudgeRule.judge_pairs` raises
:class:`~tribunal.errors.SpendingCapReached` once the pairs it did start have finished. With a journal
(:meth:`LLMJudgeRule.journaled`) every finished judgment is kept as it lands and a resumed audit reads them
back instead of asking again.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from tribunal.core.judges import JUDGES
from tribunal.core.judgment import Judgment
from tribunal.errors import SpendingCapReached
from tribunal.eval.equiv.pair_journal import PairJournal, key_id
from tribunal.eval.equiv.rules.base import EquivalenceRule, Pair
from tribunal.runner.meter import UsageMeter, metering

CALLS_PER_PAIR = 3  # the majority-of-three budget of one pair


class LLMJudgeRule(EquivalenceRule):
    name = "llm"
    calls_per_pair = CALLS_PER_PAIR

    def __init__(self, lm: Any, rubric: str = "full", threads: int = 4, lm_name: str | None = None,
                 program: Any = None, program_label: str | None = None):
        """``program``: an already built (e.g. tuned, loaded from an export) judge; its rubric wins."""
        from tribunal.eval.tracking.call_log import attach_call_log  # heavy: pulls in dspy

        if program is None:  # the registry's default equivalence judge, built on first use (pulls in dspy)
            program = JUDGES.get(JUDGES.default("equiv")).build(rubric=rubric)
        self.program = attach_call_log(program, [lm])
        self.call_logs: dict[tuple[str, str, int], dict] = {}  # per (original, perturbed, repeat), for traces
        self.lm, self.rubric, self.threads = lm, self.program.rubric, max(1, threads)
        self.lm_name = lm_name or getattr(lm, "model", str(lm))
        self.program_label = program_label
        self._memo: dict[tuple, Judgment] = {}
        self._lock = threading.Lock()
        self.memo_hits = 0
        self.meter = UsageMeter()
        self.cap: Any = None
        self.journal: PairJournal | None = None
        self._journaled: dict[str, tuple[Judgment, dict]] = {}
        self.resumed = 0  # judgments read back from the journal
        self.left = 0  # pair judgments a spending cap left undone

    def capped(self, cap: Any) -> "LLMJudgeRule":
        """Judge under ``cap`` (a :class:`~tribunal.runner.spending_cap.SpendingCap`, its gate on the LM)."""
        self.cap = cap
        if cap is not None:
            cap.attach([self.lm])
        return self

    def journaled(self, journal: PairJournal, keep: bool = True) -> "LLMJudgeRule":
        """Take the judgments ``journal`` holds as judged, and (``keep``) append every new one to it."""
        self.journal = journal if keep else None
        self._journaled = journal.load()
        return self

    def _pair_budget(self) -> int:
        """The most calls one pair may take (two at temperature 0: the third vote is no call)."""
        temperature = (getattr(self.lm, "kwargs", None) or {}).get("temperature")
        return CALLS_PER_PAIR - 1 if temperature == 0 else CALLS_PER_PAIR

    @property
    def label(self) -> str:
        suffix = self.program_label.partition("@")[2] if self.program_label else ""
        return f"llm-{self.rubric}@{suffix}" if suffix else f"llm-{self.rubric}"

    def _judge_one(self, key: tuple, pair: Pair, repeat: int) -> Judgment | None:
        """The judgment of one pair (None: the spending cap left it undone)."""
        import dspy  # heavy: dspy

        from tribunal.eval.tracking.call_log import CallLog, recording  # heavy: pulls in dspy

        ids = (getattr(pair[0], "id", ""), getattr(pair[1], "id", ""), repeat)
        stored = self._journaled.get(key_id(key))
        if stored is not None:  # judged by an earlier, interrupted run of this audit
            self.call_logs[ids] = stored[1]
            with self._lock:
                self.resumed += 1
            return stored[0]
        if self.cap is not None and not self.cap.admitting(self._pair_budget()):
            return None
        log = CallLog()
        try:
            with dspy.context(lm=self.lm), recording(log), metering(self.meter):
                judgment = self.program(hypothesis_a=pair[0].render(), hypothesis_b=pair[1].render(),
                                        repeat=repeat).judgment
        except SpendingCapReached:
            return None  # a vote refused: the pair is left for the resumed run
        self.call_logs[ids] = log.trace()
        if self.journal is not None:
            self.journal.append(key_id(key), judgment, self.call_logs[ids])
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
            results = [self._judge_one(key, pair, repeat) for key, pair in work]
        else:
            with ThreadPoolExecutor(max_workers=self.threads) as pool:
                results = list(pool.map(lambda item: self._judge_one(item[0], item[1], repeat), work))
        with self._lock:
            self._memo.update((key, judgment) for (key, _), judgment in zip(work, results) if judgment is not None)
            left = sum(judgment is None for judgment in results)
            self.left += left
            if left:
                raise SpendingCapReached(f"{self.cap.stopped_by if self.cap else 'a spending cap'}: {left} of "
                                         f"{len(keys)} pair judgments left undone by {self.label}")
            return [self._memo[key] for key in keys]

    def stats(self) -> dict[str, float]:
        return {"memo_hits": float(self.memo_hits), "resumed": float(self.resumed)}

    def params(self) -> dict[str, Any]:
        return {"rubric": self.rubric, "lm": self.lm_name, "votes": CALLS_PER_PAIR, "threads": self.threads,
                "program": self.program_label or JUDGES.default("equiv")}
