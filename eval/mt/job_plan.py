"""What an MT run works on, read before any LM call: the language pair, the items, the journal and what it
leaves to judge, the languages shown to the judge and the run's signature."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tribunal.core.mt_item import JudgeItem
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.eval.mt.journal import Journal, journal_path
from tribunal.eval.tracking.signature import text_hash
from tribunal.programs.mqm.demos import LANGUAGES


@dataclass
class JobPlan:
    pair: Any  # the LanguagePair (tribunal.data.mtme)
    items: Any  # the RunItems (tribunal.eval.mt.items)
    journal: Journal
    pending: list[JudgeItem]  # the items the journal holds no (usable) result of
    languages: dict[str, str]  # source_lang, target_lang: the program's language inputs
    slice_hash: str  # of the selected items' keys
    run_signature: str
    setup_started: float  # perf_counter() when the run began reading its data

    @property
    def total(self) -> int:
        """Items selected."""
        return len(self.items.items)

    @property
    def resumed(self) -> int:
        """Items the journal judged already."""
        return self.total - len(self.pending)


def plan_job(config: EvaluateConfig) -> JobPlan:
    """Open the language pair, select the items, open the journal and sign the run."""
    from tribunal.data.mtme import LanguagePair  # heavy: pulls in numpy
    from tribunal.data.score_cache import ScoreCache  # heavy: pulls in numpy
    from tribunal.eval.mt.items import select_items  # heavy: pulls in numpy

    setup_started = time.perf_counter()
    pair = LanguagePair(config.data, config.lp, cache=ScoreCache.default())  # score and rating files parsed once
    items = select_items(pair, config.systems, config.rated_only, config.limit, config.segment)
    config_sig = config.config_signature()
    journal = Journal(journal_path(config.output_dir, config_sig), config_sig)
    pending = [i for i in items.items.values() if not journal.done(i.key, config.retry_unscored)]
    slice_hash = text_hash("\n".join(sorted(items.items)))
    left_out = "exclude" if config.degraded == "exclude" else None  # changes the table, not the judgments
    run_sig = str(config.signature(data=f"{Path(config.data).name}/{config.lp}@{slice_hash}", degraded=left_out))
    return JobPlan(pair, items, journal, pending, judge_languages(config.lp), slice_hash, run_sig, setup_started)


def judge_languages(lp: str) -> dict[str, str]:
    """``{"source_lang": "Chinese", "target_lang": "English"}`` for ``zh-en`` (a code without a name stays a code)."""
    src, _, tgt = lp.partition("-")
    return {"source_lang": LANGUAGES.get(src, src), "target_lang": LANGUAGES.get(tgt, tgt)}
