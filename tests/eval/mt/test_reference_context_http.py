"""``mt evaluate --reference NAME --context N`` over HTTP: what reaches the prompt, and nothing by default.

The loopback server records every request; its scripted judge reads the ``[[ ## field ## ]]``
sections back, so each request's reference and context are checked against the data: every call
that reads the segment (M-MAD's agents, debaters, reviewers and judges in every strategy, ESA's two
steps, APE's evaluator, post-editor and verifier) gets the segment's reference and the previous
segment of its document as this system translated it; M-MAD's consensus check, which compares
annotations only, gets neither.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from tests.support.cli import assert_one_line_error, run_cli
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import SIGNATURES, synthetic_judge
from tribunal.signatures.mqm.segment_context import CONTEXT_NOTE, REFERENCE_NOTE, reads_segment

from .segment_data import DOCUMENTS, OUTPUTS, REFERENCES, SOURCES, two_document_mtme

KEY_ENV = "TRIBUNAL_SEGMENT_TEST_KEY"
PROGRAMS = [
    ("mmad",),  # paper preset: consensus debate with the separate consensus check
    ("mmad", "--strategy", "deliberation"),
    ("mmad", "--preset", "lean", "--strategy", "interactive-review"),
    ("mmad", "--preset", "lean", "--strategy", "consultancy-review"),
    ("mmad", "--ablate", "stage1", "--ablate", "stage2"),
    ("gemba-mqm",), ("eaprompt",), ("gemba-esa",), ("mqm-ape",),
]


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-segment-test")
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy-cache"))
    monkeypatch.chdir(tmp_path)
    return two_document_mtme(tmp_path / "mtme")


def evaluate(capsys, api_base, data, out, program, *extra):
    return run_cli(capsys, "mt", "evaluate", "--data", data, "--lp", "en-de", "--lm", "openai/segment-judge",
                   "--api-base", api_base, "--api-key-env", KEY_ENV, "--program", *program, "--out", out,
                   "--no-cache", "--no-track", *extra)


def contexts_for(translation: str, size: int) -> list[list[dict]]:
    """Every context a cell with ``translation`` has: the ``size`` previous segments of its document."""
    found = []
    for system, lines in OUTPUTS.items():
        for segment, line in enumerate(lines):
            if line != translation:
                continue
            earlier = [j for j in range(segment) if DOCUMENTS[j] == DOCUMENTS[segment]][-size:]
            found.append([{"source": SOURCES[j], "translation": lines[j]} for j in earlier])
    return found


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: "-".join(p).replace("--", ""))
def test_reference_and_context_reach_every_call_that_reads_the_segment(program, data, tmp_path, capsys):
    with loopback_server(synthetic_judge) as (api_base, state):
        outcome = evaluate(capsys, api_base, data, tmp_path / "out", program, "--reference", "refB", "--context", "1")
    assert outcome.status == 0, outcome.err
    readers = 0
    for (name, _, inputs), system in zip(state.hits, state.system_prompts):
        if not reads_segment(SIGNATURES[name]):
            assert "reference" not in inputs and "context" not in inputs and REFERENCE_NOTE not in system
            continue
        readers += 1
        segment = SOURCES.index(inputs["source"])
        assert inputs["reference"] == REFERENCES["refB"][segment], name
        translation = inputs.get("translation", inputs.get("translation_a"))
        assert inputs["context"] in contexts_for(translation, 1), name
        assert REFERENCE_NOTE in system and CONTEXT_NOTE in system, name
    assert readers == len(state.hits) - Counter(h[0] for h in state.hits)["ConsensusCheck"] > 0
    # the first segment of a document is shown an empty context; the others their predecessor
    assert {len(h[2]["context"]) for h in state.hits if "context" in h[2]} == {0, 1}


@pytest.mark.parametrize("program", [("gemba-mqm",), ("mmad",), ("mqm-ape",)], ids=lambda p: p[0])
def test_by_default_no_reference_or_context_and_the_requests_are_unchanged(program, data, tmp_path, capsys):
    runs = {}
    with loopback_server(synthetic_judge) as (api_base, state):
        for label, extra in (("default", ()), ("explicit", ("--reference", "none", "--context", "0",
                                                             "--samples", "1"))):
            seen = len(state.bodies)
            outcome = evaluate(capsys, api_base, data, tmp_path / label, program, *extra)
            assert outcome.status == 0, outcome.err
            runs[label] = (Counter(state.bodies[seen:]), re.search(r"^signature: (\S+)$", outcome.out, re.M).group(1))
    assert not any(b"## reference ##" in body or b"## context ##" in body for body in state.bodies)
    assert not any(REFERENCE_NOTE in s or CONTEXT_NOTE in s for s in state.system_prompts)
    assert runs["default"] == runs["explicit"]
    assert "ref:" not in runs["default"][1] and "ctx:" not in runs["default"][1]


def test_context_makes_the_same_pair_in_two_contexts_two_items(data, tmp_path, capsys):
    with loopback_server(synthetic_judge) as (api_base, _):
        plain = evaluate(capsys, api_base, data, tmp_path / "plain", ("gemba-mqm",))
        shown = evaluate(capsys, api_base, data, tmp_path / "context", ("gemba-mqm",), "--context", "1")
        reference = evaluate(capsys, api_base, data, tmp_path / "reference", ("gemba-mqm",), "--reference", "refA")
    assert "items: 11 unique of 12 cells (1 duplicates)" in plain.out  # A and B translate segment 1 alike
    assert "items: 12 unique of 12 cells (0 duplicates)" in shown.out  # ... after different segment-0 translations
    assert "items: 11 unique of 12 cells (1 duplicates)" in reference.out  # the same reference: still one item


def test_names_signature_files_and_folder_carry_the_settings(data, tmp_path, capsys):
    with loopback_server(synthetic_judge) as (api_base, _):
        outcome = run_cli(capsys, "mt", "evaluate", "--data", data, "--lp", "en-de", "--lm", "openai/segment-judge",
                          "--api-base", api_base, "--api-key-env", KEY_ENV, "--program", "mmad", "--reference",
                          "refA", "--context", "2", "--no-cache", "--no-track")
    assert outcome.status == 0, outcome.err
    signature = re.search(r"^signature: (\S+)$", outcome.out, re.M).group(1)
    assert "|ref:refA|ctx:2|" in signature
    [folder] = (tmp_path / "tribunal-out" / "mt").iterdir()
    assert folder.name.startswith("M-MAD-ref-ctx2_en-de_")
    assert (folder / "metric-scores" / "en-de" / "M-MAD-ref-ctx2-refA.seg.score").is_file()
    assert (folder / "metric-scores" / "en-de" / "M-MAD-ref-ctx2-refA.sys.score").is_file()
    import json

    record = json.loads((folder / "transcripts.jsonl").read_text().splitlines()[0])
    assert record["reference"] == REFERENCES["refA"][0] and record["context"] == []


def test_settings_that_cannot_apply_are_refused_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-segment-test")
    without_docs = two_document_mtme(tmp_path / "nodocs", documents=False)
    common = ("mt", "evaluate", "--lp", "en-de", "--lm", "openai/x", "--api-base", "http://127.0.0.1:9/v1",
              "--api-key-env", KEY_ENV, "--no-track", "--out", tmp_path / "out")
    assert_one_line_error(run_cli(capsys, *common, "--data", without_docs, "--reference", "refZ"),
                          "--reference refZ", "references of en-de: refA, refB")
    assert_one_line_error(run_cli(capsys, *common, "--data", without_docs, "--context", "2"),
                          "--context 2", "en-de.docs not found")
    assert_one_line_error(run_cli(capsys, *common, "--data", without_docs, "--context", "-1"), "segment.context")
    assert_one_line_error(run_cli(capsys, *common, "--data", without_docs, "--combine", "trimmed"),
                          "--combine", "--samples 2 or more")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
