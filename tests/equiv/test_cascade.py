"""The cascade: only the screen's uncertain band reaches the LM (counted by the loopback server)."""

import numpy as np
import pytest

from tests.equiv.chains import ORIGINAL, VARIANTS, chain
from tests.support.equiv_fakes import dspy_cache_off, equiv_loopback_server, scripted_equiv_respond
from tests.support.scripted_lm import scripted_lm
from tribunal.eval.equiv.rules.base import SimilarityRule
from tribunal.eval.equiv.rules.cascade import CascadeRule
from tribunal.eval.equiv.rules.llm import LLMJudgeRule
from tribunal.programs.lm import LMSettings, build_lm

KEY_ENV = "TRIBUNAL_LOOPBACK_API_KEY"
SCORES = [0.05, 0.2, 0.3, 0.45, 0.6, 0.9]  # screen scores of the six pairs below
PAIRS = [(chain(f"a{k}", f"start {k}", "middle", "end"), chain(f"b{k}", f"origin {k}", "middle", "end"))
         for k in range(len(SCORES))]


class FixedScreen(SimilarityRule):
    """A screen whose score of pair k is SCORES[k] (looked up by the first hypothesis' id)."""

    name = "fixed"

    def similarities(self, pairs):
        return np.array([SCORES[int(a.id[1:] if a.id.startswith("a") else b.id[1:])] for a, b in pairs])

    def params(self):
        return {"threshold": self.threshold}


@pytest.fixture
def loopback_lm(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-loopback-test")

    def make(api_base):
        return build_lm(LMSettings(model="openai/loopback-judge", api_base=api_base, api_key_env=KEY_ENV,
                                   num_retries=0, timeout=5, cache=False))
    return make


def test_only_the_uncertain_band_reaches_the_lm(loopback_lm):
    with equiv_loopback_server(lambda a, b: True) as (api_base, state):
        judge = LLMJudgeRule(loopback_lm(api_base), threads=2)
        cascade = CascadeRule(FixedScreen(0.5), judge, low=0.15, high=0.5)
        judgments = cascade.judge_pairs(PAIRS)
    assert [j.route for j in judgments] == ["screen-different", "judge", "judge", "judge", "screen-same", "screen-same"]
    assert [j.same for j in judgments] == [False, True, True, True, True, True]
    # the judge's two agreeing votes per band pair, nothing else: 3 pairs x 2 calls
    assert len(state.hits) == 6 and all(name == "equiv" for name, _, _ in state.hits)
    seen = {(inputs["hypothesis_a"], inputs["hypothesis_b"]) for _, _, inputs in state.hits}
    band = {(a.render(), b.render()) for a, b in PAIRS[1:4]}
    assert seen == band | {(b, a) for a, b in band}
    assert sum(j.calls for j in judgments) == 6 and [j.calls_saved for j in judgments][::5] == [3, 3]
    assert cascade.stats() == {"routed_screen_same": 2.0, "routed_screen_different": 1.0, "routed_judge": 3.0,
                               "judge_calls": 6.0}


def test_a_judge_shared_with_the_llm_rule_pays_for_a_pair_once():
    lm, engine = scripted_lm(scripted_equiv_respond(lambda a, b: False))
    judge = LLMJudgeRule(lm, threads=1)
    alone = judge.judge_pairs(PAIRS)
    assert len(engine.calls) == 12  # 2 agreeing calls per pair
    cascade = CascadeRule(FixedScreen(0.5), judge, low=0.15, high=0.5)
    judgments = cascade.judge_pairs(PAIRS)
    assert len(engine.calls) == 12 and judge.memo_hits == 3  # the band's 3 pairs were already judged
    assert [j.same for j in judgments[1:4]] == [j.same for j in alone[1:4]]
    assert sum(j.calls for j in judgments) == 6  # its own cost: what the band would cost alone


def test_band_edges_and_unscored_screens():
    cascade = CascadeRule(FixedScreen(0.5), judge=None, low=0.2, high=0.6)
    assert [cascade.route(s) for s in (0.19, 0.2, 0.59, 0.6, None, float("nan"))] == \
        ["screen-different", "judge", "judge", "screen-same", "judge", "judge"]
    with pytest.raises(ValueError, match="low 0.7 must not exceed high 0.6"):
        CascadeRule(FixedScreen(0.5), judge=None, low=0.7, high=0.6)


def test_the_registry_builds_a_cascade_on_the_chain_rule_sharing_the_llm_judge():
    from tribunal.eval.equiv.rule_set import build_rules

    lm, engine = scripted_lm(scripted_equiv_respond(lambda a, b: True))
    rules = build_rules("llm,cascade", "full", dict(lm=lm, lm_name="scripted", chain_steps="tfidf", threads=1))
    llm, cascade = rules
    assert cascade.label == "cascade-llm-full" and cascade.judge is llm and cascade.screen.name == "chain"
    pairs = [(ORIGINAL, variant) for variant, _, _ in VARIANTS.values()]
    llm.judge_pairs(pairs)
    before = len(engine.calls)
    cascade.judge_pairs(pairs)
    assert len(engine.calls) == before  # nothing paid twice
    assert "low=0," in cascade.setting() and "high=1," in cascade.setting()


def test_audit_of_llm_and_cascade_over_http_reports_the_calls_saved(tmp_path, monkeypatch, capsys):
    import sys

    from tribunal.cli import main
    from tribunal.eval.equiv.suite import default_suite_path

    lines = (default_suite_path().parent / "heldout_pairs.jsonl").read_text().splitlines()[:10]
    pairs = tmp_path / "ten.jsonl"
    pairs.write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    # the CLI's LM caches; calls are counted here, so no cache is read or written
    with dspy_cache_off(), equiv_loopback_server(lambda a, b: True) as (api_base, state):
        monkeypatch.setattr(sys, "argv", [
            "tribunal", "equiv", "audit", "--pairs", str(pairs), "--rules", "llm,cascade", "--chain-steps", "tfidf",
            "--lm", "openai/loopback-judge", "--api-base", api_base, "--repeats", "1", "--threads", "2",
            "--no-track", "--out", str(tmp_path / "out")])
        with pytest.raises(SystemExit) as exit_:
            main()
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    assert len(state.hits) == 20  # the judge alone: 2 agreeing calls x 10 pairs; the cascade paid nothing more
    routes = [line.split("\t")[10] for line in (tmp_path / "out" / "items_cascade-llm-full.tsv").read_text().splitlines()[1:]]
    judged = routes.count("judge")
    assert f"cascade-llm-full: {2 * judged} LM calls against 20 for the judge alone (saved {20 - 2 * judged})" in out
    assert "cascade-llm-full: decided by the screen alone, sent to the judge, wrong among the screened" in out
    screen = (tmp_path / "out" / "screen_cascade-llm-full.tsv").read_text().splitlines()
    assert screen[0].split("\t")[:3] == ["kind", "pairs", "screened"] and screen[-1].startswith(f"all\t10\t{10 - judged}\t")
