"""Options that cannot apply together are refused with one line saying why, before any work."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import assert_one_line_error, run_cli


@pytest.fixture
def tuned_full_judge(tmp_path):
    """A sealed export of the equivalence judge with the ``full`` rubric."""
    from tribunal.data.program_export import export_document, write_export
    from tribunal.programs.equiv_judge import EquivalenceJudge

    return write_export(export_document(EquivalenceJudge("full"), "equiv-llm", {"rubric": "full"}, {}),
                        tmp_path / "tuned-full.json")


def evaluate(*extra):
    return ["mt", "evaluate", "--lp", "zh-en", "--lm", "openai/x", "--api-base", "http://127.0.0.1:9/v1",
            "--no-track", *extra]


def optimize(*extra):
    return ["optimize", "--program", "equiv-llm", "--train", "suite:0-8", "--dev", "suite:8-16", "--lm", "openai/x",
            "--no-track", *extra]


CASES = {
    "rubric-vs-tuned-judge": (["equiv", "audit", "--rules", "llm", "--lm", "openai/x", "--program", "{tuned}",
                               "--rubric", "component", "--no-track"],
                              ["--rubric component: the judge of --program", "uses its own rubric (full); drop --rubric"]),
    "suite-and-pairs": (["equiv", "audit", "--suite", "{tuned}", "--pairs", "{tuned}", "--no-track"],
                        ["give --suite or --pairs, not both"]),
    "target-rate-without-auto": (["equiv", "audit", "--rules", "embedding", "--embedding-target-rate", "0.4",
                                  "--no-track"], ["--embedding-target-rate: only used with --embedding-threshold auto"]),
    "api-base-without-lm": (["equiv", "audit", "--rules", "tfidf", "--api-base", "http://127.0.0.1:9/v1",
                             "--no-track"], ["--api-base needs --lm MODEL"]),
    "demo-key-without-lm": (["demo", "--api-key-env", "MY_KEY", "--no-track"], ["--api-key-env needs --lm MODEL"]),
    "debate-setting-for-gemba": (evaluate("--program", "gemba-mqm", "--strategy", "deliberation"),
                                 ["--strategy: an M-MAD setting, but the program is gemba-mqm"]),
    "demos-for-eaprompt": (evaluate("--program", "eaprompt", "--demos", "2"),
                           ["--demos: an M-MAD setting, but the program is eaprompt"]),
    "topic-for-a-config-program": (evaluate("--config", "{config}", "--topic", "free"),
                                   ["--topic: an M-MAD setting, but the program is mqm-ape"]),
    "routing-one-endpoint": (evaluate("--routing", "simple-shuffle"),
                             ["--routing: balances several endpoints; give --api-base more than once"]),
    "batch-poll-without-batch": (evaluate("--batch-poll", "5"), ["--batch-poll: only used with --batch"]),
    "judge-lm-without-engagement": (["hyp", "run", "--lm", "openai/x", "--judge-lm", "openai/y", "--no-engagement",
                                     "--no-track"], ["--judge-lm: the engagement judge does not run with --no-engagement"]),
    "teacher-for-labeled": (optimize("--optimizer", "labeled", "--teacher-lm", "openai/t"),
                            ["--teacher-lm: optimizer labeled takes no teacher LM"]),
    "prompt-lm-for-labeled": (optimize("--optimizer", "labeled", "--prompt-lm", "openai/p"),
                              ["--prompt-lm: optimizer labeled uses no prompt/reflection LM"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_conflicting_options_are_one_line_before_any_work(case, tmp_path, capsys, monkeypatch, tuned_full_judge,
                                                          wmt23_root):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRIBUNAL_DATA", str(wmt23_root.parent))
    config = tmp_path / "run.json"
    config.write_text(json.dumps({"program": "mqm-ape"}))
    argv, fragments = CASES[case]
    argv = [str(a).format(tuned=tuned_full_judge, config=config) for a in argv]
    before = sorted(p.name for p in tmp_path.iterdir())
    assert_one_line_error(run_cli(capsys, *argv), *fragments)
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "nothing written: no store, no tribunal-out"
