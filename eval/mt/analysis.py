"""What an MT run's MLflow record adds beyond the headline figures: how its MQM scores are
distributed against the human ones, and how its debates ended round by round.

Both read only the journal's per-item results, so they can be recomputed without an LM.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from tribunal.data.mtme import LanguagePair
from tribunal.core.item_result import ItemResult


def covered_scores(pair: LanguagePair, seg: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(judge, human)`` MQM scores of the cells the judge scored and a human rated."""
    judge, human = [], []
    for system, scores in seg.items():
        gold = pair.gold_seg.get(system)
        if gold is None:
            continue
        keep = np.isfinite(scores) & np.isfinite(gold)
        judge.append(scores[keep])
        human.append(gold[keep])
    if not judge:
        return np.array([]), np.array([])
    return np.concatenate(judge), np.concatenate(human)


def debate_rounds(results: dict[str, ItemResult], max_rounds: int) -> dict[int, dict[str, float]]:
    """Per round r: debates still running at r, and the share of all debates settled by consensus by r."""
    debates = [d for r in results.values() if r.status == "scored" for d in r.debates.values()]
    if not debates:
        return {}
    ended = Counter(int(d.get("rounds") or 0) for d in debates if d.get("consensus"))
    total, settled, stats = len(debates), 0, {}
    for round_ in range(1, max_rounds + 1):
        running = sum(int(d.get("rounds") or 0) >= round_ for d in debates)
        settled += ended.get(round_, 0)
        stats[round_] = {"debates_running": float(running), "consensus_share": settled / total}
    return stats


def debate_summary(results: dict[str, ItemResult]) -> dict[str, Any]:
    """Debates held, how they were decided, and mean rounds."""
    debates = [d for r in results.values() if r.status == "scored" for d in r.debates.values()]
    decided = Counter(str(d.get("decided_by")) for d in debates)
    rounds = [int(d.get("rounds") or 0) for d in debates]
    return {"debates": len(debates), "mean_rounds": float(np.mean(rounds)) if rounds else 0.0,
            "decided_by": dict(decided)}
