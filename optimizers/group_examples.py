"""Examples for a judge of a source's candidates together (``together`` in its registry entry, e.g. ``joint-mqm``).

Training and dev data hold one translation per example. A judge that sees every candidate of a
source at once is tuned on *group* examples instead: one per (source, language pair), its inputs the
source and its candidates (in the order the members were read; the judge shuffles them itself),
``members`` the per-translation examples with their gold, and the members' ``seg_id`` (so a bootstrap
resamples whole sources, and a resampled group's members stay one draw's row). The judge's prediction has one judgment
per candidate (``judgments``), so every per-translation measure applies unchanged to the members:
:func:`member_pairs` expands (group, prediction) pairs into (member, judgment) pairs, which the
judge metric (:mod:`tribunal.optimizers.metric_base`) and the objectives
(:mod:`tribunal.optimizers.objectives`) use before scoring. A failed group call leaves every member
unscored.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

GROUP_INPUTS = ("source", "candidates", "source_lang", "target_lang")


def group_by_source(examples: Iterable[Any]) -> list[Any]:
    """One group example per (source, languages), in first-appearance order; see the module docstring."""
    import dspy  # heavy: dspy, pydantic

    groups: dict[tuple[str, str, str], list[Any]] = {}
    for example in examples:
        key = (str(example.get("source", "")), str(example.get("source_lang", "")),
               str(example.get("target_lang", "")))
        groups.setdefault(key, []).append(example)
    made = []
    for (source, source_lang, target_lang), members in groups.items():
        segment = {m.get("seg_id") for m in members}
        tags = {"seg_id": segment.pop()} if len(segment) == 1 and None not in segment else {}
        made.append(dspy.Example(source=source, source_lang=source_lang, target_lang=target_lang,
                                 candidates=[str(m.get("translation", "")) for m in members], members=members,
                                 **tags).with_inputs(*GROUP_INPUTS))
    return made


def is_group(gold: Any) -> bool:
    """Whether ``gold`` is a group example (it has ``members``)."""
    getter = getattr(gold, "get", None)
    return getter is not None and getter("members") is not None


def member_predictions(gold: Any, prediction: Any) -> list[Any]:
    """A group prediction's judgment per member (None for each when the group call failed or is short)."""
    members = gold.get("members")
    judgments = None if prediction is None else getattr(prediction, "judgments", None)
    if judgments is None and isinstance(prediction, dict):
        judgments = prediction.get("judgments")
    if judgments is None or len(judgments) != len(members):
        return [None] * len(members)
    return list(judgments)


def member_pairs(predictions: Sequence[Any], golds: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """``(predictions, golds)`` with every group pair expanded into its members' pairs (others as they are)."""
    flat_predictions, flat_golds = [], []
    for prediction, gold in zip(predictions, golds):
        if is_group(gold):
            flat_predictions.extend(member_predictions(gold, prediction))
            draw = gold.get("_draw")  # a bootstrap copy of the group: its members are copies of that draw too
            flat_golds.extend(gold.get("members") if draw is None else [m.copy(_draw=draw) for m in gold.get("members")])
        else:
            flat_predictions.append(prediction)
            flat_golds.append(gold)
    return flat_predictions, flat_golds
