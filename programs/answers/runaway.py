"""A runaway: an answer cut at the token limit because it repeated itself, not because it had more to say.

Small models loop: the same error entry, sentence or character over and over until the provider cuts
the answer (``finish_reason: "length"``). Asking again with a larger limit only buys a longer loop, so
the re-ask rule (:mod:`.reask`) tells a runaway apart from a long answer by this rule, on the text of
the cut answer:

1. Only the answer's last :data:`TAIL_CHARS` characters are read (its *tail*).
2. For each lag ``p`` (from 1 to a third of the tail), the *self-match* at ``p`` is the share of the
   last ``max(2p, MIN_TAIL)`` characters (the last ``p`` for a span of :data:`LONG_SPAN` or more)
   equal to the character ``p`` places before them
   (``tail[i] == tail[i - p]``): how well the last stretch of the answer copies the stretch before it.
3. The answer is a runaway when some lag reaches :data:`MATCH_SHARE`; the shortest such lag is the
   *period*: the answer ends in a span of ``p`` characters repeated at least :data:`MIN_REPEATS` times
   (and over at least :data:`MIN_TAIL` characters, so "!!" is not a loop).

Why these numbers: a text that says something new matches itself at any lag about as often as two
random characters of the language agree (English prose and JSON error lists stay under 0.35 at every
lag; ``tests/programs/answers/test_runaway.py`` measures it on the docs and on long answers), while a
loop matches itself at its period almost everywhere; the 10% slack of 0.9 lets a loop carry a
counter ("1. ... 2. ... 3. ...") or a one-character drift. Three repeats rule out a sentence said
twice; a span of :data:`LONG_SPAN` characters or more said twice at the very end of a cut answer is a
loop (the bundled model's coupled assessment began its loop with a variant, then repeated a
382-character block exactly; a table of near-identical rows, the closest fresh text, has short rows). Only the end is compared: a loop that ran to the limit fills the end, whatever came before it.
Characters, not tokens: the rule needs no tokenizer, works for any script (a loop of ``的`` has no
spaces) and costs one vector comparison per lag (a few milliseconds on 3,000 characters).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TAIL_CHARS = 3000
"""Most characters of the answer's end the rule reads (its period can be up to a third of that)."""
MIN_TAIL = 160
"""The least stretch compared: a loop must fill at least this many characters (plus one period)."""
MATCH_SHARE = 0.9
"""The self-match at the period for a runaway (fresh text stays under 0.35 at every lag)."""
MIN_REPEATS = 3
"""A short span must fill the tail at least this many times."""
LONG_SPAN = 240
"""A span at least this long need only be said twice: the last stretch equals the one before it."""


@dataclass(frozen=True)
class Repetition:
    """How a runaway's end repeats itself: a span of ``period`` characters, over its last ``length`` ones."""

    period: int
    length: int
    share: float
    span: str

    @property
    def repeats(self) -> float:
        """How many times the span fills the stretch compared and the one before it."""
        return (self.length + self.period) / self.period

    def describe(self) -> str:
        """One line, e.g. ``its last 880 characters repeat a span of 440 characters``."""
        return (f"its last {self.length} characters repeat a span of {self.period} "
                f"character{'' if self.period == 1 else 's'}")


def tail_of(text: str) -> str:
    """The part of ``text`` the rule reads: its last :data:`TAIL_CHARS` characters."""
    return text[-TAIL_CHARS:] if text else ""


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)


def _stretch(size: int, lag: int) -> int:
    """How many of the last characters are compared at ``lag`` (0: the tail is too short for it)."""
    length = lag if lag >= LONG_SPAN else max((MIN_REPEATS - 1) * lag, MIN_TAIL)
    return length if length + lag <= size else 0


def self_match(tail: str, lag: int) -> float:
    """The share of ``tail``'s last stretch (see :func:`_stretch`) equal to the character ``lag`` places before."""
    codes = _codes(tail)
    length = _stretch(len(codes), lag) if lag > 0 else 0
    if not length:
        return 0.0
    return float(np.count_nonzero(codes[-length:] == codes[-length - lag:-lag])) / length


def repetition(text: str | None) -> Repetition | None:
    """How ``text``'s end repeats itself, None when it does not (the rule of the module docstring)."""
    tail = tail_of(text or "")
    codes = _codes(tail)
    for lag in range(1, len(codes) // 2 + 1):
        length = _stretch(len(codes), lag)
        if not length:
            continue
        share = float(np.count_nonzero(codes[-length:] == codes[-length - lag:-lag])) / length
        if share >= MATCH_SHARE:
            return Repetition(lag, length, round(share, 3), tail[-lag:])
    return None


def is_runaway(text: str | None) -> bool:
    """Whether a cut answer's text repeats itself (:func:`repetition` found a period)."""
    return repetition(text) is not None
