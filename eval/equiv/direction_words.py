"""Which way a step points: words of increase and decrease, negations, antonym pairs (pure).

A minimal swap that turns "activates" into "inhibits", "increased" into "decreased" or
"hyperkalaemia" into "hypokalaemia" leaves a sentence encoder almost unmoved (one word of many
changes), yet reverses the mechanism. These tables let the chain rule see such a swap. They are
general English and biomedical usage (antonyms and the opposing prefixes of word formation),
written once; nothing here is fitted to data.

Words are compared by their :func:`~tribunal.eval.equiv.step_words.word_key` (lower case,
British/American spelling and common inflections folded), so one entry covers "increase",
"increases", "increased" and "increasing".
"""

from __future__ import annotations

from typing import Iterable

from tribunal.eval.equiv.step_words import word_key

_UP = """increase raise rise elevate elevation high higher excess excessive more greater enhance enhancement
gain activate activation stimulate stimulation promote promotion upregulate upregulation overexpression
accelerate acceleration augment augmentation amplify amplification strengthen induce induction potentiate
potentiation boost heighten intensify intensification
agonist agonism facilitate facilitation""".split()
_DOWN = """decrease reduce reduction lower fall decline drop low less fewer diminish impair impairment suppress
suppression inhibit inhibition block blockade loss lose deficiency deficient depletion deplete downregulate
downregulation underexpression slow slowing attenuate attenuation weaken shrink shrinkage dampen antagonist
antagonism prevent prevention abolish abolition restrict restriction limit knockdown knockout silence
silencing""".split()
_NEGATORS = """not no without absence absent lack lacking fail fails never non""".split()
# Opposites that are not a matter of more or less.
_ANTONYMS = [
    ("early", "late"), ("shallow", "deep"), ("heavy", "light"), ("broad", "narrow"), ("fast", "slow"),
    ("acute", "chronic"), ("mild", "severe"), ("hot", "cold"), ("warm", "cold"), ("positive", "negative"),
    ("inner", "outer"), ("northward", "southward"), ("eastward", "westward"), ("inward", "outward"),
    ("influx", "efflux"), ("uptake", "release"), ("import", "export"), ("afferent", "efferent"),
    ("proximal", "distal"), ("anterior", "posterior"), ("dorsal", "ventral"), ("excitatory", "inhibitory"),
    ("depolarisation", "hyperpolarisation"), ("depolarise", "hyperpolarise"), ("oxidation", "reduction"),
    ("open", "close"), ("opening", "closure"), ("gain", "loss"), ("presence", "absence"),
    ("maximum", "minimum"), ("long", "short"), ("wet", "dry"), ("rising", "falling"), ("rise", "fall"),
    ("dominant", "recessive"), ("malignant", "benign"), ("hydrophilic", "hydrophobic"),
    ("anabolic", "catabolic"), ("synthesis", "degradation"), ("production", "clearance"),
    ("retention", "excretion"), ("absorption", "excretion"), ("stabilisation", "destabilisation"),
    ("damage", "protect"), ("damage", "repair"), ("sensitivity", "resistance"),
]
# Causal verbs of a relation ("A causes B") point the same way as "A increases B".
_CAUSAL = """cause lead produce trigger drive result enable allow induce yield give bring generate create
progress""".split()
# Prefix pairs that oppose a word to its counterpart (hyper-/hypo-), and prefixes that negate it.
_OPPOSED_PREFIXES = [("hyper", "hypo"), ("up", "down"), ("over", "under"), ("in", "ex"), ("pro", "anti")]
_NEGATING_PREFIXES = ("un", "de", "dis", "non", "non-", "in", "im", "anti", "counter")

UP = frozenset(map(word_key, _UP))
DOWN = frozenset(map(word_key, _DOWN))
NEGATORS = frozenset(map(word_key, _NEGATORS))
CAUSAL = frozenset(map(word_key, _CAUSAL))
ANTONYMS = frozenset(frozenset(map(word_key, pair)) for pair in _ANTONYMS)


def net_polarity(words: Iterable[str]) -> int:
    """Words of increase minus words of decrease (keys)."""
    words = list(words)
    return sum(w in UP for w in words) - sum(w in DOWN for w in words)


def negations(words: Iterable[str]) -> int:
    return sum(w in NEGATORS for w in words)


def _prefix_opposed(x: str, y: str) -> bool:
    for p, q in _OPPOSED_PREFIXES:
        for a, b in ((x, y), (y, x)):
            if a.startswith(p) and b.startswith(q) and len(a) - len(p) >= 4 and a[len(p):] == b[len(q):]:
                return True
    for p in _NEGATING_PREFIXES:
        for a, b in ((x, y), (y, x)):
            if a.startswith(p) and len(b) >= 4 and a[len(p):].lstrip("-") == b:
                return True
    return False


def opposed(x: str, y: str) -> bool:
    """Do two word keys point in opposite directions ("increase"/"decrease", "hyperkalaemia"/"hypokalaemia")?"""
    if x == y:
        return False
    if frozenset((x, y)) in ANTONYMS:
        return True
    if (x in UP and y in DOWN) or (x in DOWN and y in UP):
        return True
    return _prefix_opposed(x, y)


def reversed_direction(only_a: Iterable[str], only_b: Iterable[str]) -> bool:
    """Do the words that differ between two steps reverse the direction of the step?

    True when a word of one side opposes a word of the other, when the net polarity of the two
    sides has opposite signs, or when one side negates and the other does not.
    """
    only_a, only_b = list(only_a), list(only_b)
    if any(opposed(x, y) for x in only_a for y in only_b):
        return True
    net_a, net_b = net_polarity(only_a), net_polarity(only_b)
    if net_a * net_b < 0:
        return True
    return negations(only_a) % 2 != negations(only_b) % 2


def one_sided_direction(only_a: Iterable[str], only_b: Iterable[str]) -> bool:
    """Does only one side carry a direction word ("increased X" against "X")? Not a reversal, but
    a change the rule cannot call the same."""
    only_a, only_b = list(only_a), list(only_b)
    a = net_polarity(only_a) != 0 or negations(only_a) > 0
    b = net_polarity(only_b) != 0 or negations(only_b) > 0
    return a != b


def negation_only(only_a: Iterable[str], only_b: Iterable[str]) -> bool:
    """Is the whole difference negations on one side ("X" against "no X")?"""
    only_a, only_b = list(only_a), list(only_b)
    for mine, other in ((only_a, only_b), (only_b, only_a)):
        if mine and not other and all(w in NEGATORS for w in mine):
            return True
    return False
