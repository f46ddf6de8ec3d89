"""What differs between two aligned steps, at the level of what they name (pure).

Two step texts (abbreviations already expanded against each other) are reduced to their content
words (:mod:`step_words`); the words one step has and the other lacks are the *difference*. Its
kind, first match wins:

- ``equal``: no difference (the same words; spelling variants and inflections count as equal);
- ``direction``: the difference reverses the step ("activates"/"inhibits", "increased"/"decreased",
  "hyper-"/"hypo-", a negation on one side only: :mod:`direction_words`);
- ``number``: a number changes inside the same name or phrase ("IL-13"/"IL-9", "below 5"/"below 6",
  "Q10"/"Q9");
- ``sibling``: one name is swapped for a sibling of the same family: symbols that differ only in a
  final letter ("UVA"/"UVB", "GABA-A"/"GABA-B", "V600E"/"V600K"), Greek letters ("alpha"/"beta"),
  or drugs sharing an INN stem ("atorvastatin"/"rosuvastatin");
- ``reordered``: the same words in another order ("acinar-to-ductal"/"ductal-to-acinar");
- ``substituted``: part of the step kept, part replaced or added, or a name (a symbol, a number)
  replaced by another: the shape of a minimal swap, and of a partial alias the rule cannot verify
  ("loss of butyrate-producing bacteria" / "loss of butanoate-producing bacteria");
- ``reworded``: every content word replaced: a paraphrase or a swap, which only the similarity of
  the two texts can tell apart.

``direction``, ``number`` and ``sibling`` are *named* differences, recognised only where one word
stands against one word (or a negation is added) and the rest of the step is kept: no alias
changes a number, a direction or a family member, so the step differs. ``reordered`` and ``substituted`` block a
"clearly same" (a sentence encoder scores such a pair 0.9+ either way) but prove nothing.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from tribunal.eval.equiv.direction_words import CAUSAL, negation_only, one_sided_direction, opposed, reversed_direction
from tribunal.eval.equiv.step_words import GREEK_NAMES, Word, step_words, word_key

ContrastKind = Literal["equal", "direction", "number", "sibling", "reordered", "substituted", "reworded"]
NAMED = frozenset({"direction", "number", "sibling"})
BLOCKS_SAME = NAMED | {"reordered", "substituted"}

# WHO INN stems: two different drugs sharing one are members of one class.
INN_STEMS = ("vastatin", "statin", "olol", "pril", "sartan", "taxel", "azepam", "azolam", "dipine", "prazole",
             "tidine", "setron", "triptan", "gliflozin", "gliptin", "glutide", "floxacin", "cillin", "mycin",
             "cycline", "conazole", "vir", "tinib", "ciclib", "parib", "mab", "lukast", "semide", "thiazide",
             "barbital", "profen", "coxib", "dronate", "tropin", "relin", "caine", "curium", "pam", "tegravir")
_DERIVATIONS = ("ation", "ion", "ing", "ed", "es", "s", "ity", "ive", "al", "ous", "ic", "ism", "ment", "ness",
                "er", "or", "ance", "ence", "y", "ate", "ise", "ize", "ization", "isation", "ly")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class StepContrast:
    kind: ContrastKind
    only_a: tuple[str, ...]  # words of step A missing from step B, as written
    only_b: tuple[str, ...]

    @property
    def named(self) -> bool:
        return self.kind in NAMED

    def describe(self) -> str:
        """``sibling: 'UVA' -> 'UVB'``."""
        return f"{self.kind}: {' '.join(self.only_a) or '-'!r} -> {' '.join(self.only_b) or '-'!r}"


def _variants(x: str, y: str) -> bool:
    """Spelling variants ("aluminium"/"aluminum": letters inserted, none replaced) or derivations
    ("ulcer"/"ulceration") of one word; never words with digits or of opposite direction."""
    if any(c.isdigit() for c in x + y) or opposed(x, y):
        return False
    short, long = sorted((x, y), key=len)
    if len(short) < 5:
        return False
    if len(long) - len(short) <= 2 and _subsequence(short, long):
        return True
    return long.startswith(short) and long[len(short):] in _DERIVATIONS


def _subsequence(short: str, long: str) -> bool:
    letters = iter(long)
    return all(c in letters for c in short)


def _number_change(x: Word, y: Word) -> bool:
    if not (_DIGITS.search(x.key) and _DIGITS.search(y.key)):
        return False
    return _DIGITS.sub("#", x.key) == _DIGITS.sub("#", y.key) and x.key != y.key


def _siblings(x: Word, y: Word) -> bool:
    if x.key == y.key:
        return False
    if x.key in GREEK_NAMES and y.key in GREEK_NAMES:
        return True
    if x.symbol and y.symbol:
        common = os.path.commonprefix([x.key, y.key])
        rest_x, rest_y = x.key[len(common):], y.key[len(common):]
        if 1 <= len(rest_x) <= 2 and 1 <= len(rest_y) <= 2 and (common or len(x.key) == len(y.key) == 1):
            return True
    if x.key.endswith(y.key) or y.key.endswith(x.key):  # "penicillin" / "benzylpenicillin": a narrower name
        return False  # of the same drug, not another member of its class (an alias the judge must weigh)
    stem = next((s for s in INN_STEMS if x.key.endswith(s) and y.key.endswith(s)), None)
    return stem is not None and min(len(x.key), len(y.key)) > len(stem) + 1


def _unpartnered(words: list[Word], others: list[Word]) -> list[Word]:
    """The words of ``words`` left over once each word of ``others`` has taken one partner."""
    available = Counter(w.key for w in others)
    left = []
    for word in words:
        if available[word.key] > 0:
            available[word.key] -= 1
        else:
            left.append(word)
    return left


def _difference(a: list[Word], b: list[Word]) -> tuple[list[Word], list[Word]]:
    """Words of ``a`` not matched in ``b`` and the reverse (multisets; variants matched)."""
    only_a, only_b = _unpartnered(a, b), _unpartnered(b, a)
    for x in list(only_a):
        match = next((y for y in only_b if _variants(x.key, y.key)), None)
        if match is not None:
            only_a.remove(x)
            only_b.remove(match)
    return only_a, only_b


def contrast_steps(text_a: str, text_b: str) -> StepContrast:
    """The kind of difference between two aligned step texts (see the module docstring)."""
    words_a, words_b = step_words(text_a), step_words(text_b)
    only_a, only_b = _difference(words_a, words_b)
    shown = (tuple(w.text for w in only_a), tuple(w.text for w in only_b))
    keys_a, keys_b = [w.key for w in only_a], [w.key for w in only_b]
    if not only_a and not only_b:
        same_order = [w.key for w in words_a] == [w.key for w in words_b] or len(words_a) != len(words_b)
        return StepContrast("equal" if same_order or _variant_order(words_a, words_b) else "reordered", *shown)
    # a named difference is one word against one (or a negation added): the rest of the step is kept
    single = len(only_a) <= 1 and len(only_b) <= 1
    if (single or negation_only(keys_a, keys_b)) and reversed_direction(keys_a, keys_b):
        return StepContrast("direction", *shown)
    if single and only_a and only_b and _number_change(only_a[0], only_b[0]):
        return StepContrast("number", *shown)
    if single and only_a and only_b and _siblings(only_a[0], only_b[0]):
        return StepContrast("sibling", *shown)
    shared = len(words_a) - len(only_a)
    names_swapped = any(w.symbol or w.number for w in only_a) and any(w.symbol or w.number for w in only_b)
    if shared or names_swapped or not only_a or not only_b or one_sided_direction(keys_a, keys_b):
        return StepContrast("substituted", *shown)
    return StepContrast("reworded", *shown)


def _variant_order(a: list[Word], b: list[Word]) -> bool:
    """Equal word lists that differ only by variants at the same positions keep their order."""
    return all(x.key == y.key or _variants(x.key, y.key) for x, y in zip(a, b))


def relations_reversed(relation_a: str, relation_b: str) -> bool:
    """Does one link reverse the other ("activates"/"inhibits", "causes"/"prevents")? A causal
    verb ("causes", "leads to", "triggers") counts as pointing up."""
    keys_a = [w.key for w in step_words(relation_a)]
    keys_b = [w.key for w in step_words(relation_b)]
    if keys_a == keys_b:
        return False
    up = word_key("increase")
    return reversed_direction([up if k in CAUSAL else k for k in keys_a], [up if k in CAUSAL else k for k in keys_b])
