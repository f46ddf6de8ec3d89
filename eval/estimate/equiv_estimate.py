"""``tribunal equiv audit --estimate``: the audit's LLM judgments rehearsed, nothing sent, nothing tracked.

The rules are built as the audit builds them (the caller's ``make_rules(lm)``, rubrics, a tuned judge
and the cascade's screen included) on an LM whose engine is a
:class:`~tribunal.eval.estimate.rehearsal.RehearsalEngine`, and every rule that consults the LLM judge
(``llm``, ``cascade``) judges the pairs once per repeat, as the audit does (one judge per rubric shared by
both rules, so a pair the ``llm`` rule judged costs the cascade nothing; a cascade sends the judge only
the pairs its screen cannot decide). Judgments already in ``--out``'s journal are not counted. TF-IDF,
embedding and chain rules make no LM call and are not rehearsed.

The judge's call rule is its registry entry's (:data:`tribunal.core.judges.JUDGES`, ``equiv-llm``):
``low`` answers agree (2 calls a pair), ``high`` answers make the two presentation orders disagree
(:func:`disagreeing_votes`: 3 calls a pair above temperature 0; at temperature 0 the third vote is no call).
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Sequence

import dspy

from tribunal.core.judges import JUDGES
from tribunal.eval.equiv.pair_journal import PairJournal, journal_file
from tribunal.eval.estimate.estimate import Estimate, build_estimate
from tribunal.eval.estimate.mt_estimate import answer_limit
from tribunal.eval.estimate.rehearsal import RehearsalEngine, SignatureWatch, rehearsal_settings
from tribunal.eval.estimate.tokens import approximate, counter_for
from tribunal.programs.lm import DEFAULT_SERVER_MAX_TOKENS, build_lm
from tribunal.programs.local_models import is_local

NO_CALLS = "tfidf, embedding and chain rules make no LM calls"


def rehearsal_limit(settings: Any) -> int:
    """The completion tokens of a rehearsed call whose request carries no limit (as ``mt evaluate``'s)."""
    return answer_limit(settings) if not is_local(settings.model) else (settings.max_tokens or DEFAULT_SERVER_MAX_TOKENS)


def disagreeing_votes() -> Callable[[Any, str, dict, dict], dict]:
    """A ``high`` shape for the equivalence judge: of each pair's votes, the second (the reversed order)
    disagrees with the first, so the majority needs the third."""
    seen: Counter = Counter()
    lock = threading.Lock()

    def shape(signature: Any, scenario: str, inputs: dict, outputs: dict) -> dict:
        if scenario != "high" or "verdict" not in outputs:
            return outputs
        key = frozenset((str(inputs.get("hypothesis_a")), str(inputs.get("hypothesis_b"))))
        with lock:
            n = seen[key]
            seen[key] += 1
        outputs["verdict"] = "different" if n % 3 == 1 else "same"
        return outputs

    return shape


def _llm_rules(rules: Sequence[Any]) -> list[Any]:
    """The rules that consult an LLM judge (the judge itself, or a cascade around it)."""
    return [r for r in rules if hasattr(r, "meter") or hasattr(getattr(r, "judge", None), "meter")]


def rehearse(pairs: Sequence[Any], make_rules: Callable[[Any], list], repeats: int, lm_settings: Any,
             scenario: str, out: Path | None) -> tuple[list, list[str]]:
    """The calls of every LLM rule's judgments under ``scenario``, and the labels of those rules."""
    from tribunal.eval.equiv.audit_job import llm_judges  # heavy: pulls in sklearn, pandas

    watch = SignatureWatch()
    engine = RehearsalEngine(scenario, counter_for(lm_settings.model), watch, rehearsal_limit(lm_settings),
                             answers_in_json=is_local(lm_settings.model), shape=disagreeing_votes())
    rules = make_rules(build_lm(rehearsal_settings(lm_settings), engine))
    for judge in llm_judges(rules):
        judge.threads = 1  # the signature watch is per thread: the rehearsal judges in this one
        if out is not None:
            judge.journaled(PairJournal(journal_file(out, judge.label, judge.setting())), keep=False)
    judged = [(p.original, p.perturbed) for p in pairs]
    with dspy.context(callbacks=[*dspy.settings.callbacks, watch]):
        for rule in _llm_rules(rules):
            for repeat in range(repeats):
                rule.judge_pairs(judged, repeat=repeat)
    return engine.calls, [r.label for r in _llm_rules(rules)]


def estimate_audit(pairs: Sequence[Any], make_rules: Callable[[Any], list], repeats: int, lm_settings: Any,
                   threads: int, out: Path | None) -> Estimate:
    """What ``equiv audit`` would spend (see :mod:`tribunal.eval.estimate.estimate`); sends nothing.

    ``make_rules(lm)``: the audit's rules on ``lm``; ``lm_settings`` None: no rule can call an LM."""
    if lm_settings is None:
        return build_estimate("equiv audit", len(pairs) * repeats, [], [], {}, "", 0, NO_CALLS, approximate(),
                              threads)
    low, labels = rehearse(pairs, make_rules, repeats, lm_settings, "low", out)
    high, _ = rehearse(pairs, make_rules, repeats, lm_settings, "high", out)
    judge = JUDGES.get(JUDGES.default("equiv")).calls
    rule = (f"{judge.rule}, per pair and repeat, for the rules that consult the judge ({', '.join(labels)}; a "
            f"cascade only for the pairs its screen leaves); {NO_CALLS}" if labels else NO_CALLS)
    return build_estimate(f"equiv audit ({', '.join(labels) or 'no LLM rule'})", len(pairs) * repeats, low, high,
                          {}, lm_settings.model, rehearsal_limit(lm_settings), rule, counter_for(lm_settings.model),
                          threads)
