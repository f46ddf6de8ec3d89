"""Every measure and option re-measured by a second, deliberately different implementation, to 1e-9.

The reference below shares no code with ``eval/meta/spans``: spans are sets of ``(side, position)``
characters, one-to-one matching is a brute-force search over *every* partial matching (the
production code uses scipy's assignment solver), greedy is a repeated arg-max scan, many-to-many
works on set unions, and micro / macro are written out from their definitions. Span sets are random
(their own seed), with overlaps inside a side, both sides, empty segments and zero-length spans.
"""

import functools
import itertools
import random

import pytest

from tribunal.core.spans import span
from tribunal.eval.meta.spans import SpanOptions, score_segments

SEVERITIES = ("minor", "major")


@functools.lru_cache(maxsize=None)
def chars(s):
    return {(s.side, c) for c in range(s.start, s.end)}


def pair_value(kind, measure, p, g):
    shared = len(chars(p) & chars(g))
    if measure == "em":
        return float((p.start, p.end, p.side) == (g.start, g.end, g.side))
    if measure == "mp":
        return float(shared > 0)
    if measure == "mpp":
        return {"objective": 2 * shared / (len(chars(p)) + len(chars(g))), "pred": shared / len(chars(p)),
                "gold": shared / len(chars(g))}[kind]
    return float(shared)


def all_matchings(n, m):
    for k in range(min(n, m) + 1):
        for rows in itertools.combinations(range(n), k):
            for cols in itertools.permutations(range(m), k):
                yield list(zip(rows, cols))


def sev(p, g, penalty):
    return 1.0 if p.severity == g.severity else 1.0 - penalty


def matched_credits(pred, gold, pairs, o):
    w = lambda s: 1.0 if o.severity_weights is None else o.severity_weights.get(s.severity, 1.0)  # noqa: E731
    tp_p = sum(w(pred[i]) * pair_value("pred", o.measure, pred[i], gold[j]) * sev(pred[i], gold[j], o.severity_penalty)
               for i, j in pairs)
    tp_r = sum(w(gold[j]) * pair_value("gold", o.measure, pred[i], gold[j]) * sev(pred[i], gold[j], o.severity_penalty)
               for i, j in pairs)
    return tp_p, tp_r


def objective(o, p, g):
    if p.side != g.side:
        return 0.0
    return pair_value("objective", o.measure, p, g) * sev(p, g, o.severity_penalty)


def brute_force_candidates(pred, gold, o):
    """Credits of every matching whose total objective is the maximum (ties may differ in credit)."""
    totals = [(sum(objective(o, pred[i], gold[j]) for i, j in mt), mt) for mt in all_matchings(len(pred), len(gold))]
    best = max(t for t, _ in totals)
    return [matched_credits(pred, gold, [(i, j) for i, j in mt if objective(o, pred[i], gold[j]) > 0], o)
            for t, mt in totals if abs(t - best) < 1e-12]


def greedy_scan(pred, gold, o):
    free_p, free_g, pairs = set(range(len(pred))), set(range(len(gold))), []
    while True:
        best = None
        for i in sorted(free_p):
            for j in sorted(free_g):
                v = objective(o, pred[i], gold[j])
                if v > 0 and (best is None or v > best[0]):
                    best = (v, i, j)
        if best is None:
            return matched_credits(pred, gold, pairs, o)
        pairs.append(best[1:])
        free_p.discard(best[1])
        free_g.discard(best[2])


def coverage(o, s, others):
    union = set().union(*(chars(x) for x in others)) if others else set()
    union_same = set().union(*(chars(x) for x in others if x.severity == s.severity)) if others else set()
    covered, same = len(chars(s) & union), len(chars(s) & union_same)
    if o.measure == "em":
        hits = [x for x in others if (x.start, x.end, x.side) == (s.start, s.end, s.side)]
        return 0.0 if not hits else (1.0 if any(x.severity == s.severity for x in hits) else 1 - o.severity_penalty)
    credited = same + (covered - same) * (1 - o.severity_penalty)
    if o.measure == "mp":
        return 0.0 if covered == 0 else (1.0 if same else 1 - o.severity_penalty)
    return credited / len(chars(s)) if o.measure == "mpp" else credited


def reference_segment(pred, gold, o):
    """(tp_p, n_p, tp_r, n_g) candidates of one segment."""
    keep = lambda s: (o.side == "both" or s.side == o.side) and s.end > s.start  # noqa: E731
    pred, gold = [s for s in pred if keep(s)], [s for s in gold if keep(s)]
    w = lambda s: 1.0 if o.severity_weights is None else o.severity_weights.get(s.severity, 1.0)  # noqa: E731
    size = lambda s: len(chars(s)) if o.measure == "wmt25" else 1  # noqa: E731
    n_p, n_g = sum(w(s) * size(s) for s in pred), sum(w(s) * size(s) for s in gold)
    if o.matching == "many-to-many":
        credits = [(sum(w(p) * coverage(o, p, gold) for p in pred), sum(w(g) * coverage(o, g, pred) for g in gold))]
    elif o.assignment == "greedy":
        credits = [greedy_scan(pred, gold, o)]
    else:
        credits = brute_force_candidates(pred, gold, o)
    return sorted({(round(tp_p, 12), n_p, round(tp_r, 12), n_g) for tp_p, tp_r in credits})


def prf(tp_p, n_p, tp_r, n_g):
    p = 1.0 if n_p == 0 else tp_p / n_p
    r = 1.0 if n_g == 0 else tp_r / n_g
    return p, r, 0.0 if p + r == 0 else 2 * p * r / (p + r)


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


OPTIONS = [SpanOptions(measure=m, matching=mt, assignment=a, averaging=av, severity_penalty=pen, severity_weights=w, side=sd)
           for m in ("em", "mp", "mpp", "wmt25") for mt in ("one-to-one", "many-to-many")
           for a in (("optimal", "greedy") if mt == "one-to-one" else ("optimal",)) for av in ("micro", "macro")
           for pen in (0.0, 0.5) for w in (None, {"minor": 1.0, "major": 5.0}) for sd in ("target", "source", "both")]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: o.signature())
def test_production_matches_the_reference(options):
    for seed in range(4):
        segments = random_segments(1000 + seed)
        got = score_segments(segments, options)
        per_segment = [reference_segment(p, g, options) for p, g in segments]
        if options.averaging == "micro":
            # the production totals must be one of the reference's (tied) maxima in every segment
            expected_values = set()
            for combo in itertools.product(*per_segment):
                totals = [sum(c[k] for c in combo) for k in range(4)]
                expected_values.add(tuple(round(x, 9) for x in prf(*totals)))
        else:
            expected_values = set()
            for combo in itertools.product(*per_segment):
                rows = [prf(*c) for c in combo]
                expected_values.add(tuple(round(sum(r[k] for r in rows) / len(rows), 9) for k in range(3)))
        assert any(abs(got.precision - p) < 1e-9 and abs(got.recall - r) < 1e-9 and abs(got.f - f) < 1e-9
                   for p, r, f in expected_values), (seed, got, expected_values)
