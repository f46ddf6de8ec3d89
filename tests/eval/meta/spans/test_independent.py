"""Every measure and option re-measured by a second, deliberately different implementation, to 1e-9.

The reference below follows the authors' code (sted19/span-mt-metrics-eval@b55b90f, as
``docs/reference/span-eval.md`` describes it) but shares no code with ``eval/meta/spans``: spans are
sets of ``(side, position)`` characters; optimal MPP tries *every* partial matching and keeps the one of
highest segment F (the production code searches Pareto points by position); optimal EM / MP / WMT25
try every matching for the largest summed credit (production: the assignment method of scipy); greedy
is a repeated arg-max scan of Dice x mass; many-to-many decomposes each character's severity layers
one character at a time; micro / macro are written out from their definitions. Span sets are random
(their own seed), with overlaps inside a side, both sides, empty segments and zero-length spans.
"""

import functools
import itertools
import random

import pytest

from tribunal.core.spans import span
from tribunal.eval.meta.spans import SpanOptions, score_segments

SEVERITIES = ("minor", "major")
WEIGHTS = {"minor": 1.0, "major": 5.0}  # severity weights are MPP's only


@functools.lru_cache(maxsize=None)
def chars(s):
    return {(s.side, c) for c in range(s.start, s.end)}


def shared(p, g):
    return len(chars(p) & chars(g))


def all_matchings(n, m):
    for k in range(min(n, m) + 1):
        for rows in itertools.combinations(range(n), k):
            for cols in itertools.permutations(range(m), k):
                yield list(zip(rows, cols))


def weight(o, s):
    return 1.0 if o.severity_weights is None else o.severity_weights[s.severity]


def mass(o, p, g):
    if o.severity_weights is not None:
        return min(weight(o, p), weight(o, g))
    return 1.0 if p.severity == g.severity else 1.0 - o.severity_penalty


def credits(o, p, g):
    """(precision credit, recall credit) of a matched pair."""
    c, o_chars = mass(o, p, g), shared(p, g)
    if o.measure == "em":
        return (c, c) if chars(p) == chars(g) else (0.0, 0.0)
    if o.measure == "mp":
        return c, c
    if o.measure == "mpp":
        return c * o_chars / len(chars(p)), c * o_chars / len(chars(g))
    return c * o_chars, c * o_chars


def prf(tp_p, n_p, tp_r, n_g):
    p = 1.0 if n_p == 0 else tp_p / n_p
    r = 1.0 if n_g == 0 else tp_r / n_g
    return p, r, 0.0 if p + r == 0 else 2 * p * r / (p + r)


def usable(o, p, g):
    return shared(p, g) > 0 and mass(o, p, g) > 0 and (o.measure != "em" or chars(p) == chars(g))


def brute_force(pred, gold, o, n_p, n_g):
    best, best_key = (0.0, 0.0), None
    for mt in all_matchings(len(pred), len(gold)):
        if not all(usable(o, pred[i], gold[j]) for i, j in mt):
            continue
        tp_p = sum(credits(o, pred[i], gold[j])[0] for i, j in mt)
        tp_r = sum(credits(o, pred[i], gold[j])[1] for i, j in mt)
        p, r, f = prf(tp_p, n_p, tp_r, n_g)
        key = (round(f, 12), round(p + r, 12), round(p, 12)) if o.measure == "mpp" else (round(tp_p, 12),)
        if best_key is None or key > best_key:
            best, best_key = (tp_p, tp_r), key
    return best


def dice(p, g):
    return 2 * shared(p, g) / (len(chars(p)) + len(chars(g)))


def greedy_scan(pred, gold, o):
    free_p, free_g, tp_p, tp_r = set(range(len(pred))), set(range(len(gold))), 0.0, 0.0
    while True:
        best = None
        for i in sorted(free_p):
            for j in sorted(free_g):
                v = dice(pred[i], gold[j]) * mass(o, pred[i], gold[j])
                if v > 0 and (best is None or v > best[0]):
                    best = (v, i, j)
        if best is None:
            return tp_p, tp_r
        _, i, j = best
        tp_p, tp_r = tp_p + credits(o, pred[i], gold[j])[0], tp_r + credits(o, pred[i], gold[j])[1]
        free_p.discard(i)
        free_g.discard(j)


def layer(spans, c, o):
    out = {}
    for s in spans:
        if c in chars(s):
            out[s.severity] = out.get(s.severity, 0.0) + weight(o, s)
    return out


def matched_here(mine, theirs, worth):
    exact = {k: min(v, theirs.get(k, 0.0)) for k, v in mine.items()}
    mine_left = {k: v - exact[k] for k, v in mine.items()}
    theirs_left = sum(v - min(v, mine.get(k, 0.0)) for k, v in theirs.items())
    across = min(sum(mine_left.values()), theirs_left)
    if across <= 0:
        return exact
    return {k: exact[k] + worth * mine_left[k] * across / sum(mine_left.values()) for k in mine}


def many_to_many(pred, gold, o):
    worth = 1.0 if o.severity_weights is not None else 1.0 - o.severity_penalty
    if o.measure == "em":
        keys = {(s.side, s.start, s.end) for s in pred + gold}
        tp = 0.0
        for key in keys:
            a = [s.severity for s in pred if (s.side, s.start, s.end) == key]
            b = [s.severity for s in gold if (s.side, s.start, s.end) == key]
            exact = sum(min(a.count(k), b.count(k)) for k in set(a))
            tp += exact + worth * min(len(a) - exact, len(b) - exact)
        return tp, tp
    if o.measure == "mp":
        def hit(s, others):
            touching = [x for x in others if chars(x) & chars(s)]
            return 0.0 if not touching else (1.0 if any(x.severity == s.severity for x in touching) else worth)
        return sum(hit(p, gold) for p in pred), sum(hit(g, pred) for g in gold)
    every = set().union(*(chars(s) for s in pred + gold)) if pred + gold else set()
    mine = {c: (layer(pred, c, o), layer(gold, c, o)) for c in every}
    if o.measure == "wmt25":
        tp = sum(sum(matched_here(a, b, worth).values()) for a, b in mine.values())
        return tp, tp

    def span_credit(s, predicted):
        total = 0.0
        for c in chars(s):
            a, b = mine[c] if predicted else mine[c][::-1]
            if a.get(s.severity, 0.0) > 0:
                total += matched_here(a, b, worth)[s.severity] / a[s.severity]
        return weight(o, s) * total / len(chars(s))
    return sum(span_credit(p, True) for p in pred), sum(span_credit(g, False) for g in gold)


def reference_segment(pred, gold, o):
    """(tp_p, n_p, tp_r, n_g) of one segment."""
    keep = lambda s: (o.side == "both" or s.side == o.side) and s.end > s.start  # noqa: E731
    pred, gold = [s for s in pred if keep(s)], [s for s in gold if keep(s)]
    size = lambda s: len(chars(s)) if o.measure == "wmt25" else weight(o, s)  # noqa: E731
    n_p, n_g = sum(size(s) for s in pred), sum(size(s) for s in gold)
    if o.matching == "many-to-many":
        tp_p, tp_r = many_to_many(pred, gold, o)
    elif o.assignment == "greedy":
        tp_p, tp_r = greedy_scan(pred, gold, o)
    else:
        tp_p, tp_r = brute_force(pred, gold, o, n_p, n_g)
    return tp_p, n_p, tp_r, n_g


def random_spans(rng, n):
    out = []
    for _ in range(n):
        start = rng.randrange(0, 25)
        out.append(span(start, start + rng.choice([0, 1, 2, 3, 5, 8, 12]), rng.choice(SEVERITIES),
                        rng.choice(["target", "target", "source"])))
    return out


def random_segments(seed, n=6):
    rng = random.Random(seed)
    return [(random_spans(rng, rng.randrange(0, 5)), random_spans(rng, rng.randrange(0, 5))) for _ in range(n)]


OPTIONS = [SpanOptions(measure=m, matching=mt, assignment=a, averaging=av, severity_penalty=pen, severity_weights=w,
                       side=sd)
           for m in ("em", "mp", "mpp", "wmt25") for mt in ("one-to-one", "many-to-many")
           for a in (("optimal", "greedy") if mt == "one-to-one" else ("optimal",)) for av in ("micro", "macro")
           for pen, w in ((0.0, None), (0.5, None), (1.0, None)) + (((0.0, WEIGHTS),) if m == "mpp" else ())
           for sd in ("target", "source", "both")]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: o.signature())
def test_production_matches_the_reference(options):
    for seed in range(4):
        segments = random_segments(1000 + seed)
        got = score_segments(segments, options)
        rows = [reference_segment(p, g, options) for p, g in segments]
        if options.averaging == "micro":
            expected = prf(*(sum(row[k] for row in rows) for k in range(4)))
        else:
            per = [prf(*row) for row in rows]
            expected = tuple(sum(x[k] for x in per) / len(per) for k in range(3))
        assert max(abs(a - b) for a, b in zip((got.precision, got.recall, got.f), expected)) < 1e-9, (seed, got, expected)
