"""The content words of a step text, normalised so that two wordings of one step compare equal (pure).

A step is split into words at spaces, hyphens and slashes ("IL-13" -> "IL", "13";
"acinar-to-ductal" -> three words), Greek letters are spelt out ("TNF-α" = "TNF-alpha"), and
each word gets a *key*: lower case, British and American spelling folded ("anaemia" = "anemia",
"stabilisation" = "stabilization", "tumour" = "tumor") and common inflections stripped
("secretes", "secreted" -> "secret"). English function words are dropped (scikit-learn's list),
except the words that carry a direction or a negation ("up", "less", "not", "without", ...).

A word written as a *symbol* (a digit inside it, two capitals, a lone capital letter after the
first word, a Greek letter) names something: "IL-13", "Th17", "vitamin A", "HIF-2 alpha".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "κ": "kappa", "λ": "lambda",
         "μ": "mu", "σ": "sigma", "τ": "tau", "ω": "omega", "Ω": "omega", "Δ": "delta"}
GREEK_NAMES = frozenset(GREEK.values()) | {"zeta", "eta", "theta", "iota", "nu", "xi", "pi", "rho", "phi", "chi", "psi"}
# Function words that carry a direction, a quantity or a negation are content here.
KEPT_FUNCTION_WORDS = frozenset("""above below over under up down off less more least most few fewer no not nor
without against""".split())
STOP_WORDS = frozenset(ENGLISH_STOP_WORDS) - KEPT_FUNCTION_WORDS

_EDGE = ",.;:()[]{}'\"“”‘’!?"
_PARTS = re.compile(r"[-‐‑–—/]+")
_NUMBER = re.compile(r"[<>≤≥~]?\d+(?:[.,]\d+)?%?")
_SPELLING = [(re.compile(r"ae"), "e"), (re.compile(r"oe"), "e"), (re.compile(r"(?<=[a-z])our"), "or"),
             (re.compile(r"(?<=\w{3})is(ation|ing|ed|e|es)$"), r"iz\1"), (re.compile(r"(?<=\w{3})ys(ed|e|es|ing)$"), r"yz\1"),
             (re.compile(r"(?<=\w{3})tre$"), "ter"), (re.compile(r"ph(?=ur|ate|ide)"), "f")]


@dataclass(frozen=True)
class Word:
    key: str  # the comparison key (see the module docstring)
    text: str  # as written
    symbol: bool  # written as a symbol: names something
    number: bool  # a plain number ("5", "95%", "0.5")
    joined: bool = False  # one part of a hyphenated or slashed word ("13" of "IL-13")


def word_key(token: str) -> str:
    """The comparison key of one word: lower case, spelling folded, inflection stripped."""
    key = token.lower().strip(_EDGE)
    if _NUMBER.fullmatch(key) or any(c.isdigit() for c in key):
        return key
    for pattern, replacement in _SPELLING:
        key = pattern.sub(replacement, key)
    if len(key) > 4 and key.endswith("ies"):
        key = key[:-3] + "y"
    elif len(key) > 3 and key.endswith("s") and not key.endswith(("ss", "us", "is")):
        key = key[:-1]
    if len(key) > 5 and key.endswith("ing"):
        key = key[:-3]
    elif len(key) > 4 and key.endswith("ed"):
        key = key[:-2]
    if len(key) > 3 and key.endswith("e"):
        key = key[:-1]
    return key


def _is_symbol(part: str, first_word: bool) -> bool:
    core = part.strip("+-")
    if not core:
        return False
    if any(c.isdigit() for c in core) and any(c.isalpha() for c in core):
        return True
    if sum(c.isupper() for c in core) >= 2:
        return True
    if len(core) == 1 and core.isupper() and not first_word:
        return True
    return core.lower() in GREEK_NAMES


def step_words(text: str) -> list[Word]:
    """The content words of ``text``, in order."""
    for letter, name in GREEK.items():
        text = text.replace(letter, f"-{name}")
    words = []
    for position, chunk in enumerate(text.split()):
        parts = _PARTS.split(chunk.strip(_EDGE))
        for index, part in enumerate(parts):
            part = part.strip(_EDGE).rstrip("+")
            if not part:
                continue
            number = bool(_NUMBER.fullmatch(part))
            symbol = not number and _is_symbol(part, position == 0 and index == 0)
            key = word_key(part)
            if not key or (key in STOP_WORDS and not symbol) or (part.lower() in STOP_WORDS and not symbol):
                continue
            words.append(Word(key=key, text=part, symbol=symbol, number=number, joined=len(parts) > 1))
    return words
