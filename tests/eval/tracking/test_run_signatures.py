"""The typed run signatures: fixed fields in a fixed order, values escaped, read back by the parser."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tribunal import __version__
from tribunal.eval.tracking.run_signatures import (
    TASK_SIGNATURES,
    AgreementSignature,
    CompareSignature,
    EquivAuditSignature,
    EquivGenerateSignature,
    HypDivergenceSignature,
    HypRunSignature,
    MetaEvalSignature,
    MTEvaluateSignature,
    OptimizeSignature,
    SpanSignature,
)
from tribunal.eval.tracking.signature import Signature, escape, split_unescaped, unescape

AWKWARD = "a|b:c\\d\ne,f"  # every separator, the escape character and a line break

EXAMPLES = [
    MTEvaluateSignature(prog="mmad", judge={"preset": "paper", "strategy": "consensus", "rounds": "3",
                                           "topic": "severity", "ablate": "none", "tweaks": "none"}, lm="openai/gpt-4o", endpoint="http://host:8000/v1", temp=0.0, reasks=2,
                        roles=f"judge=x@{AWKWARD}", demos=4, lp="zh-en", data="wmt23/zh-en@abc",
                        degraded="exclude"),
    MTEvaluateSignature(prog="gemba-mqm", tuned="0123456789ab", judge={"ablate": "stage2"}, lm="m", endpoint="default",
                        max_tokens=512, reasks=0, demos=3, ref="refA", ctx=2, samples=5, combine="trimmed",
                        strict="yes", lp="en-de"),
    OptimizeSignature(prog="gemba-mqm", set="preset=paper", opt="bootstrap", budget=8, lm="m", endpoint="default",
                      reasks=1, teacher="t", metric="mt", objective="pearson", train=f"mqm-ted:zh-en:0-8@h{AWKWARD}",
                      dev="suite@h", seed=0),
    EquivAuditSignature(rules="tfidf(threshold=0.25),embedding(threshold=auto:x,embedder=e)", repeats=1,
                        data="suite@h"),
    EquivGenerateSignature(lm="m", temp=0.7, attempts=3, data=AWKWARD),
    HypRunSignature(instances="i1@h,i2@h", depths=(1, 3), reruns=5, per_opening=2, lm="m", judge="j"),
    HypDivergenceSignature(rules="a,b", matching="m", test="two-sided", runs=f"runs@{AWKWARD}"),
    MetaEvalSignature(task="wmt23-primary", metrics=14, data="wmt23/en-de,zh-en@h", significance=1000, seed=1,
                      coverage="limited"),
    CompareSignature(task="wmt24-compare", a="COMET", b=AWKWARD, samples=100, seed=2, data="d"),
    AgreementSignature(raters=2, judge=None, items=10, samples=100, seed=3, kappa="quadratic", data="d"),
    SpanSignature(m="mpp", match="1-1", assign="optimal", avg="micro", sevpen="0.5", sevw=f"major=5,{AWKWARD}=1",
                  side="target"),
]


@pytest.mark.parametrize("sig", EXAMPLES, ids=lambda s: type(s).__name__)
def test_every_signature_reads_back_as_itself(sig):
    text = str(sig)
    assert type(sig).parse(text) == sig
    assert str(type(sig).parse(text)) == text
    assert text.endswith(f"|v:{sig.v}") and sig.v == (__version__ if not isinstance(sig, SpanSignature) else "1")


def test_every_task_has_an_example():
    assert {type(s) for s in EXAMPLES} == set(TASK_SIGNATURES)


def test_colons_and_bars_in_values_are_escaped():
    sig = EquivGenerateSignature(lm="openai/qwen@http://host:8000", temp=0.0, attempts=1, data="x|y")
    text = str(sig)
    assert text == f"task:equiv-generate|lm:openai/qwen@http\\://host\\:8000|temp:0.0|attempts:1|data:x\\|y|v:{__version__}"
    assert [p.partition(":")[0] for p in split_unescaped(text, "|")] == ["task", "lm", "temp", "attempts", "data", "v"]


def test_escape_round_trips_any_text():
    for text in ["", "plain", AWKWARD, "\\\\|", "::", "trailing\\"]:
        assert unescape(escape(text)) == text


def test_fields_are_written_in_the_declared_order_whatever_the_keywords_order():
    a = MetaEvalSignature(seed=1, significance=10, data="d", metrics=2, task="wmt23-primary")
    assert str(a).startswith("task:wmt23-primary|metrics:2|data:d|significance:10|seed:1|v:")


def test_mt_signature_fields_keep_the_former_order_with_reasks_after_max_tokens():
    names = list(MTEvaluateSignature.model_fields)
    assert names[names.index("max_tokens") + 1] == "reasks"
    assert names[-3:] == ["data", "degraded", "v"]


@pytest.mark.parametrize("text, problem", [
    ("task:hyp-run|bogus:1|v:0", "unknown field 'bogus'"),
    ("task:hyp-run|reruns:1|instances:x|v:0", "out of order"),
    ("task:hyp-run|instances:x\\q|depths:1|reruns:1|v:0", "bad escape"),
])
def test_the_parser_refuses_what_no_signature_renders(text, problem):
    with pytest.raises(ValueError, match=problem):
        HypRunSignature.parse(text)


def test_a_task_value_is_checked():
    with pytest.raises(ValidationError):
        MetaEvalSignature(task="wmt23-compare", metrics=1, data="d")
    with pytest.raises(ValidationError):
        EquivAuditSignature.parse("task:equiv-generate|rules:x|repeats:1|data:d|v:0")


def test_a_signature_class_must_end_with_the_version():
    with pytest.raises(TypeError, match="last field is v"):
        type("Broken", (Signature,), {"__annotations__": {"a": str}})


def test_an_open_field_writes_its_items_in_its_place_and_reads_them_back():
    sig = MTEvaluateSignature(prog="x", judge={"strictness": "high", "orders": "2"}, lm="m", endpoint="default",
                              reasks=0, demos=0, lp="en-de")
    text = str(sig)
    assert text.startswith("prog:x|strictness:high|orders:2|lm:m|")
    assert MTEvaluateSignature.parse(text) == sig
    with pytest.raises(ValueError, match="unknown field 'strictness'"):
        MTEvaluateSignature.parse(text.replace("prog:x|strictness:high|orders:2|lm:m|", "prog:x|lm:m|strictness:high|"))
    with pytest.raises(ValidationError, match="cannot be a field of its own"):
        MTEvaluateSignature(prog="x", judge={"lm": "y"}, lm="m", endpoint="default", reasks=0, demos=0, lp="en-de")
