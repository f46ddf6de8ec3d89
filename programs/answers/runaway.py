"""A runaway: an answer cut at the token limit because it repeated itself, not because it had more to say.

Small models loop: the same error entry, sentence or character over and over until the provider cuts
the answer (``finish_reason: "length"``). Asking again with a larger limit only buys a longer loop, so
the re-ask rule (:mod:`.reask`) tells a runaway apart from a long answer by this rule, on the text of
the cut answer:

1. The *tail* is the second half of the answer, at most :data:`TAIL_CHARS` characters (a loop that
   ran to the limit fills at least its end; a longer tail would only cost time). A tail shorter than
   :data:`MIN_TAIL` characters is too short to tell: such an answer is never a runaway.
2. For each lag ``p`` from 1 to a third of the tail, the *self-match* at ``p`` is the share of the
   tail's characters equal to the character ``p`` places before them (``tail[i] == tail[i - p]``).
3. The answer is a runaway when some lag reaches :data:`MATCH_SHARE`; the shortest such lag is the
   *period*: the tail is a span of ``p`` characters repeated ``len(tail) / p`` (at least
   :data:`MIN_REPEATS`) times.

Why these numbers: a text that says something new matches itself at any lag about as often as two
random characters of the language agree (English prose and JSON error lists stay under 0.35 at every
lag; ``tests/programs/answers/test_runaway.py`` measures it on the docs and on long answers), while a
loop matches itself at its period almost everywhere; the 10% slack of 0.9 lets a loop carry a
counter ("1. ... 2. ... 3. ...") or a one-character drift. Three repeats rule out a sentence said
twice. Characters, not tokens: the rule needs no tokenizer, works for any script (a loop of ``的``
has no spaces) and costs one vector comparison per lag (a few milliseconds on 2,000 characters).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TAIL_CHARS = 2000
"""Most characters of the answer's end the rule reads (its period can be up to a third of that)."""
MIN_TAIL = 160
"""A tail shorter than this tells nothing (an answer under 320 characters is never a runaway)."""
MATCH_SHARE = 0.9
"""The self-match at the period for a runaway (fresh text stays under 0.35 at every lag)."""
MIN_REPEATS = 3
"""The repeated span must fill the tail at least this many times."""


@dataclass(frozen=True)
class Repetition:
    """How a runaway's tail repeats itself: a span of ``period`` characters, ``repeats`` times."""

    period: int
    repeats: float
    share: float
    span: str

    def describe(self) -> str:
        """One line, e.g. ``its last 2000 characters repeat a span of 84 characters 23.8 times``."""
        return (f"its last {round(self.period * self.repeats)} characters repeat a span of {self.period} "
                f"character{'' if self.period == 1 else 's'} {self.repeats:.1f} times")


def tail_of(text: str) -> str:
    """The part of ``text`` the rule reads: its second half, at most :data:`TAIL_CHARS` characters."""
    return text[len(text) - min(TAIL_CHARS, len(text) // 2):] if text else ""


def self_match(tail: str, lag: int) -> float:
    """The share of ``tail``'s characters (from ``lag`` on) equal to the one ``lag`` places before."""
    codes = np.frombuffer(tail.encode("utf-32-le"), dtype=np.uint32)
    if not 0 < lag < len(codes):
        return 0.0
    return float(np.count_nonzero(codes[lag:] == codes[:-lag])) / (len(codes) - lag)


def repetition(text: str | None) -> Repetition | None:
    """How ``text``'s tail repeats itself, None when it does not (the rule of the module docstring)."""
    tail = tail_of(text or "")
    if len(tail) < MIN_TAIL:
        return None
    codes = np.frombuffer(tail.encode("utf-32-le"), dtype=np.uint32)
    size = len(codes)
    for lag in range(1, size // MIN_REPEATS + 1):
        share = float(np.count_nonzero(codes[lag:] == codes[:-lag])) / (size - lag)
        if share >= MATCH_SHARE:
            return Repetition(lag, size / lag, round(share, 3), tail[-lag:])
    return None


def is_runaway(text: str | None) -> bool:
    """Whether a cut answer's text repeats itself (:func:`repetition` found a period)."""
    return repetition(text) is not None
