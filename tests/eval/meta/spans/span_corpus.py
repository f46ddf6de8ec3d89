"""A seeded generator of span corpora and the 54 option sets on which tribunal is checked against the authors' code.

A corpus is a list of segments ``{"id": "SYSTEM|N", "predicted": [span...], "gold": [span...]}``, a span
``{"start", "end", "severity", "side"}`` (half-open, non-empty, as the authors' ``ErrorSpan`` requires).
Each segment is drawn from one of the shapes below, so every corpus holds all of them: nothing on
either side or on both, exact duplicates, equal Dice ties, many-to-many chains (each span overlapping
the next one of the other side), nested and crossing overlaps inside one side, both sides at once,
dense crowds of a few spans in a dozen characters (where the matching of best F and the matching of
best summed Dice overlap part), and every severity (``neutral``, ``minor``, ``major``, ``critical``).
``side_cap`` bounds the spans of one side of a segment (the authors' optimal MPP search grows exponentially with it).

The 54 option sets are every combination the authors' ``compute`` accepts and ``tribunal mt span-eval``
offers: 4 measures x 3 matchings (one-to-one optimal, one-to-one greedy, many-to-many) x 2 averagings
(micro, macro) x the severity settings (none; penalty 0.5; and for MPP only, the only measure the
authors define them for, weights ``neutral=0, minor=1, major=5, critical=10``): 3 x 3 x 2 x 2 = 36 for
EM, MP, WMT25 and 3 x 2 x 3 = 18 for MPP. ``EXTRA_OPTION_SETS`` adds penalty 1 (a mismatched pair is
worth nothing) for every measure and matching, micro.
"""

from __future__ import annotations

import random

SEVERITIES = ("neutral", "minor", "major", "critical")
WEIGHTS = {"neutral": 0.0, "minor": 1.0, "major": 5.0, "critical": 10.0}
PENALTY = 0.5
MEASURES = ("em", "mp", "mpp", "wmt25")
MATCHINGS = (("one-to-one", "optimal"), ("one-to-one", "greedy"), ("many-to-many", "optimal"))
SHAPES = ("empty_both", "empty_predicted", "empty_gold", "duplicates", "dice_ties", "chain", "nested", "random",
          "both_sides", "dense")


def _span(rng: random.Random, start: int, length: int, side: str = "target") -> dict:
    return {"start": start, "end": start + max(1, length), "severity": rng.choice(SEVERITIES), "side": side}


def _random_side(rng: random.Random, n: int, width: int = 40, side: str = "target") -> list[dict]:
    return [_span(rng, rng.randrange(0, width), rng.choice((1, 2, 3, 4, 6, 9, 13)), side) for _ in range(n)]


def _chain(rng: random.Random, links: int) -> tuple[list[dict], list[dict]]:
    pred, gold, at = [], [], rng.randrange(0, 5)
    for k in range(links):
        length = rng.randrange(3, 8)
        (pred if k % 2 == 0 else gold).append(_span(rng, at, length))
        at += length - rng.randrange(1, length)  # the next span starts inside this one
    return pred, gold


def _shape(rng: random.Random, shape: str, cap: int) -> tuple[list[dict], list[dict]]:
    n = lambda: rng.randrange(1, cap + 1)  # noqa: E731
    if shape == "empty_both":
        return [], []
    if shape == "empty_predicted":
        return [], _random_side(rng, n())
    if shape == "empty_gold":
        return _random_side(rng, n()), []
    if shape == "duplicates":  # the same offsets several times, on both sides, in several severities
        base = _random_side(rng, max(1, cap // 3))
        pick = lambda: [dict(rng.choice(base), severity=rng.choice(SEVERITIES)) for _ in range(n())]  # noqa: E731
        return pick(), pick()
    if shape == "dice_ties":  # a gold span halved by two predictions, and one prediction straddling two golds
        a, w = rng.randrange(0, 10), 2 * rng.randrange(2, 5)
        gold = [_span(rng, a, w), _span(rng, a + w + 5, w), _span(rng, a + 2 * w + 5, w)]
        pred = [_span(rng, a, w // 2), _span(rng, a + w // 2, w // 2), _span(rng, a + w + 5 + w // 2, w)]
        return pred[:cap], gold[:cap]
    if shape == "chain":
        return _chain(rng, rng.randrange(3, 2 * cap))
    if shape == "nested":  # spans inside spans on one side, crossing the other side's
        outer = rng.randrange(0, 10)
        pred = [_span(rng, outer, 14), _span(rng, outer + 2, 4), _span(rng, outer + 8, 5)]
        gold = [_span(rng, outer + 1, 6), _span(rng, outer + 5, 8), _span(rng, outer + 3, 2)]
        return pred[:cap], gold[:cap]
    if shape == "dense":  # a few spans crowded into a dozen characters: the F-best and the Dice-best matchings part
        return ([_span(rng, rng.randrange(0, 12), rng.randrange(1, 12)) for _ in range(rng.randrange(2, 5))],
                [_span(rng, rng.randrange(0, 12), rng.randrange(1, 12)) for _ in range(rng.randrange(2, 5))])
    if shape == "both_sides":
        return (_random_side(rng, n() // 2 + 1, 20) + _random_side(rng, n() // 2, 20, "source"),
                _random_side(rng, n() // 2, 20) + _random_side(rng, n() // 2 + 1, 20, "source"))
    return _random_side(rng, rng.randrange(0, cap + 1), 25), _random_side(rng, rng.randrange(0, cap + 1), 25)


def generate_corpus(seed: int, systems: int = 3, segments: int = 24, side_cap: int = 6) -> list[dict]:
    """``systems`` x ``segments`` segments, shapes in turn (every shape in every system), spans drawn from ``seed``."""
    rng = random.Random(seed)
    corpus = []
    for system in range(systems):
        for k in range(segments):
            shape = SHAPES[(k + system) % len(SHAPES)]
            pred, gold = _shape(rng, shape, side_cap)
            rng.shuffle(pred)
            rng.shuffle(gold)
            corpus.append({"id": f"sys{system}|{k}", "shape": shape, "predicted": pred[:side_cap],
                           "gold": gold[:side_cap]})
    return corpus


def option_sets() -> list[dict]:
    """The 54 option sets, each ``{"name", "measure", "matching", "assignment", "averaging", "severity_penalty",
    "severity_weights"}`` in tribunal's terms (``assignment`` is ``optimal`` for many-to-many, where it has no role)."""
    sets = []
    for measure in MEASURES:
        severities = [("none", 0.0, None), ("penalty", PENALTY, None)]
        if measure == "mpp":
            severities.append(("weights", 0.0, WEIGHTS))
        for matching, assignment in MATCHINGS:
            for averaging in ("micro", "macro"):
                for label, penalty, weights in severities:
                    how = f"{matching} {assignment}" if matching == "one-to-one" else matching
                    sets.append({"name": f"{measure} {how} {averaging} {label}", "measure": measure,
                                 "matching": matching, "assignment": assignment, "averaging": averaging,
                                 "severity_penalty": penalty, "severity_weights": weights})
    return sets


EXTRA_OPTION_SETS = [
    {"name": f"{m} {mt}{' ' + a if mt == 'one-to-one' else ''} micro penalty=1", "measure": m, "matching": mt,
     "assignment": a, "averaging": "micro", "severity_penalty": 1.0, "severity_weights": None}
    for m in MEASURES for mt, a in MATCHINGS]


def reference_arguments(options: dict) -> dict:
    """The keyword arguments of the authors' ``compute`` for one option set."""
    return {"measure": options["measure"].upper(), "matching": options["matching"].replace("-", "_"),
            "matching_algorithm": options["assignment"], "averaging": options["averaging"],
            "severity_penalty": options["severity_penalty"], "severity_weights": options["severity_weights"]}
