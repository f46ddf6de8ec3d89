"""The runaway rule (:mod:`tribunal.programs.answers.runaway`) on real loops and on long answers that say something new.

The loops in ``cut_answers/loop_*.txt`` are answers of the bundled SmolLM2-135M model cut at their
token limit (see ``cut_answers/COLLECTED.md`` for how they were collected); ``fresh_*.txt`` are long
answers that never repeat themselves and were cut all the same: they must still get the larger limit.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tribunal.programs.answers.runaway import (LONG_SPAN, MATCH_SHARE, MIN_REPEATS, MIN_TAIL, TAIL_CHARS, is_runaway, repetition,
                                               self_match, tail_of)

FOLDER = Path(__file__).parent / "cut_answers"
LOOPS = sorted(FOLDER.glob("loop_*.txt"))
FRESH = sorted(FOLDER.glob("fresh_*.txt"))
DOCS = sorted((Path(__file__).parents[3] / "docs").rglob("*.md"))


def _best_share(text: str) -> float:
    tail = tail_of(text)
    return max((self_match(tail, lag) for lag in range(1, len(tail) // 2 + 1)), default=0.0)


def test_the_fixtures_are_there():
    assert len(LOOPS) >= 2 and len(FRESH) >= 2


@pytest.mark.parametrize("path", LOOPS, ids=lambda p: p.stem)
def test_a_real_loop_is_a_runaway(path):
    found = repetition(path.read_text(encoding="utf-8"))
    assert found is not None and found.share >= MATCH_SHARE
    assert found.repeats >= (2 if found.period >= LONG_SPAN else MIN_REPEATS)
    assert found.period > 300  # these loops repeat whole made-up functions
    assert "repeat a span of" in found.describe()


@pytest.mark.parametrize("path", FRESH, ids=lambda p: p.stem)
def test_a_long_answer_that_says_something_new_is_not(path):
    text = path.read_text(encoding="utf-8")
    assert len(text) > 2 * MIN_TAIL and not is_runaway(text)
    assert _best_share(text) < 0.6  # far from MATCH_SHARE: the rule has room


def test_prose_and_tables_of_the_docs_stay_far_below_the_threshold():
    """4,000-character windows of every docs page, read as if each were a cut answer."""
    windows = [text[start:start + 4000] for path in DOCS for text in [path.read_text(encoding="utf-8")]
               for start in range(0, max(1, len(text) - 1000), 4000)]
    windows = [w for w in windows if len(w) > 1000]
    assert len(windows) > 20
    # closest: docs/concepts/answers.md's benchmark output, blocks of 383 characters that differ only in
    # their figures (0.84 at that lag, compared once since the span is long)
    assert max(_best_share(w) for w in windows) < MATCH_SHARE - 0.05
    assert not any(is_runaway(w) for w in windows)


def test_a_loop_with_a_counter_is_a_runaway_and_its_period_is_the_loop():
    line = "The word bank is mistranslated as river.\n"
    text = "Errors:\n" + "".join(f"{n}. {line}" for n in range(1, 60))
    found = repetition(text)
    assert found is not None and found.period == len(line) + 4  # "59. " + the line


def test_a_loop_without_spaces_is_a_runaway():
    assert repetition("翻译中的" + "的" * 400).period == 1


def test_a_sentence_said_twice_is_not_a_runaway():
    sentence = "The translation drops the second clause of the source, which changes who refused the loan. "
    filler = "Apart from that, the register, the terminology and the word order all follow the source closely. "
    assert not is_runaway(filler * 2 + sentence * 2)


def test_a_short_cut_answer_is_never_a_runaway():
    assert not is_runaway("ab" * (MIN_TAIL // 2))
    assert is_runaway("ab" * (MIN_TAIL // 2 + 1))
    assert not is_runaway(None) and not is_runaway("")


def test_the_tail_is_the_end_capped():
    text = "x" * 10_000
    assert len(tail_of(text)) == TAIL_CHARS and tail_of("abcd") == "abcd"


def test_the_rule_is_cheap_on_a_fresh_answer():
    text = FRESH[0].read_text(encoding="utf-8") * 3  # long enough for the full tail, no period under a third of it
    start = time.perf_counter()
    for _ in range(10):
        repetition(text[: 3 * TAIL_CHARS])
    assert (time.perf_counter() - start) / 10 < 0.05
