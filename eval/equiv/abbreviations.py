"""Abbreviations across two step texts: "PDAC" in one, "pancreatic ductal adenocarcinoma" in the other.

A sentence embedding cannot know that an abbreviation and its long form name one thing, so
before two step texts are compared, each abbreviation in one of them whose letters spell out
words of the other is replaced by those words. The matching follows Schwartz & Hearst (2003),
"A simple algorithm for identifying abbreviation definitions in biomedical text" (PSB 8):

- a short form is a token of 2-10 characters, starting with a letter or digit, holding an
  upper-case letter and not just a capitalised word ("Kidneys"); a plural "s" after capitals
  ("AGEs") is dropped;
- its letters and digits must occur, in order, in the long form, the first one at the start
  of the long form's first word;
- the long form has at most ``min(|short| + 5, 2 * |short|)`` words; the shortest span wins;
- the long form does not repeat a part of the short form ("TNF-alpha" is not "TNF beta release").

Pure string functions; nothing is learnt, nothing depends on the data at hand.
"""

from __future__ import annotations

import re

_WORD_SPLIT = re.compile(r"[\s\-/]+")
_EDGE = ",.;:()[]'\""


def short_form(token: str) -> str | None:
    """The abbreviation ``token`` stands for (plural "s" dropped), or None if it is not one."""
    core = token.strip(_EDGE)
    if len(core) > 2 and core.endswith("s") and core[:-1].isupper():
        core = core[:-1]
    if not 2 <= len(core) <= 10 or not core[0].isalnum() or not any(c.isupper() for c in core):
        return None
    if core[0].isupper() and core[1:].islower():  # a capitalised ordinary word
        return None
    return core


def long_form(short: str, text: str) -> str | None:
    """The shortest run of words of ``text`` that ``short`` abbreviates, or None."""
    chars = [c.lower() for c in short if c.isalnum()]
    parts = {p.lower() for p in _WORD_SPLIT.split(short) if p.isalpha() and len(p) >= 2}
    words = [w for w in _WORD_SPLIT.split(text.strip(_EDGE)) if w]
    limit = min(len(chars) + 5, 2 * len(chars))
    best: list[str] | None = None
    for start, word in enumerate(words):
        if word.lower().strip(_EDGE)[:1] != chars[0]:
            continue
        matched, index, position = 1, start, 1
        while matched < len(chars) and index < len(words):
            hit = words[index].lower().find(chars[matched], position)
            if hit >= 0:
                position, matched = hit + 1, matched + 1
            else:
                index, position = index + 1, 0
        span = words[start:index + 1]
        repeats = {w.lower().strip(_EDGE) for w in span} & parts  # an expansion spells out, never repeats
        if matched == len(chars) and len(span) <= limit and not repeats and (best is None or len(span) < len(best)):
            best = span
    return " ".join(best) if best else None


def expand_against(text: str, other: str) -> str:
    """``text`` with each abbreviation that ``other`` spells out replaced by its long form."""
    if text == other:
        return text
    out = []
    for token in text.split():
        short = short_form(token)
        expansion = long_form(short, other) if short else None
        out.append(expansion if expansion and expansion.lower() != token.lower() else token)
    return " ".join(out)
