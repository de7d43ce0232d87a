# Sec. 3, Sec. 7.2, Sec. 8, App. A.1: scoring models (heads, aggregation, value readout) and micro-F1.
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import rgr_verify as R
from rgr_verify.core.strategies import qk_weights


def test_scoring_shapes_with_run_dimension():
    rng = np.random.default_rng(0)
    X = torch.as_tensor(rng.standard_normal((3, 10, 8)))  # [R, m, d_model]
    ctx = torch.as_tensor(rng.integers(0, 10, size=(3, 5, 4)))  # [R, B, ell]
    W_Q = torch.as_tensor(rng.standard_normal((3, 2, 8, 4)))  # [R, h, d_model, d_k]
    XC = R.context_embeddings(X, ctx)
    assert XC.shape == (3, 5, 4, 8)
    assert R.head_scores(XC, W_Q, W_Q).shape == (3, 5, 2, 4, 4)
    S = R.max_over_heads_scores(XC, W_Q, W_Q)
    assert R.predict_edges(S, torch.zeros(3)).shape == (3, 5, 4, 4)
    W_V = torch.as_tensor(rng.standard_normal((3, 8, 6)))
    assert R.value_readout(S, XC, W_V).shape == (3, 5, 4, 6)


def test_per_run_scores_equal_solo_scores():
    rng = np.random.default_rng(1)
    X = torch.as_tensor(rng.standard_normal((2, 6, 4)))
    ctx = torch.as_tensor(rng.integers(0, 6, size=(2, 3, 5)))
    W = torch.as_tensor(rng.standard_normal((2, 3, 4, 2)))
    batched = R.max_over_heads_scores(R.context_embeddings(X, ctx), W, W)
    for r in range(2):
        solo = R.max_over_heads_scores(R.context_embeddings(X[r], ctx[r]), W[r], W[r])
        torch.testing.assert_close(batched[r], solo)


@given(st.data(), st.integers(1, 6), st.integers(1, 5))
def test_linear_sum_of_drawn_heads_is_one_wide_head(data, d_model, ell):
    # qk_weights draws W_Q, W_K [h, d_model, d_k]: summing the heads' scores equals one head of width h d_k.
    W_Q, W_K = data.draw(qk_weights(d_model, max_heads=4, max_head_dim=3))
    h, _, d_k = W_Q.shape
    XC = torch.as_tensor(np.random.default_rng(0).standard_normal((2, ell, d_model)))  # [B, ell, d_model]
    S = R.linear_sum_scores(XC, torch.as_tensor(W_Q), torch.as_tensor(W_K))
    wide = R.head_scores(XC, R.concat_heads(torch.as_tensor(W_Q))[None], R.concat_heads(torch.as_tensor(W_K))[None])
    torch.testing.assert_close(S, wide[:, 0])


def test_split_and_concat_heads_are_inverse():
    W = torch.arange(24.0).reshape(2, 12)
    heads = R.split_heads(W, 3)
    assert heads.shape == (3, 2, 4)
    assert torch.equal(heads[1], W[:, 4:8])
    assert torch.equal(R.concat_heads(heads), W)


def test_micro_f1_hand_set():
    pred = torch.tensor([[True, True], [False, False]])
    lab = torch.tensor([[True, False], [True, False]])
    # TP=1, FP=1, FN=1 -> 2/(2+1+1)
    assert float(R.micro_f1(pred, lab)) == pytest.approx(0.5)
    assert float(R.micro_f1(torch.zeros(2, 2, dtype=bool), torch.zeros(2, 2, dtype=bool))) == 1.0
    per_run = R.micro_f1(torch.stack([pred, lab]), torch.stack([lab, lab]), run_dims=1)
    assert per_run.tolist() == pytest.approx([0.5, 1.0])
