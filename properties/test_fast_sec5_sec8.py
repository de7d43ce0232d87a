# The faster Sec. 5 / Sec. 8 computations give exactly the old answers, checked against the old implementations kept
# here as references:
# - paper_sec5._limit_n3_over_dk (float32 screening of the blocks with a rigorous rounding bound, float64 only where
#   the maximum can lie) returns the old float bit for bit and advances the generator in the same way;
# - conclusion._conclusion_on_V (torch products without re-validation, softmax in place) returns the old dict;
# - steps12.row_logits_bound's bound holds against the logits of rows_on_full_context, certain_failure never fires
#   where the conclusion holds, instance_draws are algorithm2_instance's draws, and thm81-conclusion-large-dk gives
#   the same verdict with the fast path as with the original computation on every draw.
import dataclasses
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rgr_verify.claims import paper_sec5
from rgr_verify.claims.base import CheckContext, jsonable
from rgr_verify.claims.paper_sec8 import conclusion
from rgr_verify.claims.paper_sec8.common import algorithm2_instance, softmax_dk
from rgr_verify.claims.paper_sec8.steps12 import certain_failure, instance_draws, row_logits_bound
from rgr_verify.core.embeddings import gaussian_unit_norm_embeddings
from rgr_verify.analysis.softmax_analysis import all_head_logits, rows_on_full_context


def _old_limit_n3_over_dk(m, d, r):
    """paper_sec5._limit_n3_over_dk before the float32 screening."""
    perm = r.permutation(m)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    D = X @ X.T - np.eye(m)
    worst = 0.0
    for s in range(0, m, d):
        src = np.arange(s, min(s + d, m))
        worst = max(worst, float(np.abs(D[:, src] @ D[:, perm[src]].T).max()))
    return worst


def _same_limit(m, d, seed):
    r_new, r_old = np.random.default_rng(seed), np.random.default_rng(seed)
    new, old = paper_sec5._limit_n3_over_dk(m, d, r_new), _old_limit_n3_over_dk(m, d, r_old)
    assert new == old and math.copysign(1, new) == math.copysign(1, old), (m, d, seed, new, old)
    assert r_new.random() == r_old.random()


def test_limit_n3_matches_old_on_sizes():
    for m, d in ((1, 1), (2, 1), (16, 16), (64, 8), (100, 7), (128, 16), (200, 64), (300, 29), (256, 32)):
        for seed in range(3):
            _same_limit(m, d, seed)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 200), st.floats(0.0, 1.0), st.integers(0, 2**63 - 1))
def test_limit_n3_matches_old_hypothesis(m, frac, seed):
    _same_limit(m, max(1, int(frac * m)), seed)


def test_limit_n3_several_candidate_blocks():
    # B = 1 on m = 2: the two blocks have equal maxima |D_01 D_10|, both within the bound, both recomputed
    for seed in range(5):
        _same_limit(2, 1, seed)


def _old_conclusion_on_V(c):
    """conclusion._conclusion_on_V before the change."""
    L = all_head_logits(c)
    P = np.exp(L - L.max(axis=2, keepdims=True))
    P /= P.sum(axis=2, keepdims=True)
    A = P.sum(axis=0)
    perm = np.asarray(c.graph.perm)
    rows = np.arange(c.m)
    true = A[rows, perm]
    A[rows, perm] = -np.inf
    j = A.argmax(axis=1)
    worst = int(np.argmax(A[rows, j]))
    return {"min_true": float(true.min()), "max_wrong": float(A.max()), "holds": bool(true.min() > 0.5 and A.max() < 0.5),
            "worst_source": worst, "worst_item": int(j[worst]), "worst_item_is_source": bool(j[worst] == worst)}


@pytest.mark.parametrize("m,d,C", [(32, 16, 1.0), (64, 16, 8.0), (64, 32, 32.0), (70, 16, 4.0), (128, 64, 16.0)])
def test_conclusion_on_V_matches_old(m, d, C):
    for seed in range(3):
        c = algorithm2_instance(m, d, softmax_dk(C, m), np.random.default_rng(seed))
        assert np.array_equal(conclusion._head_logits(c), all_head_logits(c))
        assert conclusion._conclusion_on_V(c) == _old_conclusion_on_V(c)


@settings(max_examples=30, deadline=None)
@given(st.integers(8, 96), st.integers(1, 4), st.sampled_from([1.0, 4.0, 16.0, 64.0, 400.0]), st.integers(0, 2**32))
def test_row_logits_bound_holds(m, heads, C, seed):
    # |L_fast - L_original| <= eps for every item, also with a smaller last block (m not a multiple of d_model)
    d = max(1, m // heads)
    d_k = softmax_dk(C, m)
    c = algorithm2_instance(m, d, d_k, np.random.default_rng(seed))
    g, X, blocks, W_sig = instance_draws(m, d, d_k, np.random.default_rng(seed))
    rows = np.random.default_rng(seed + 1).choice(m, size=min(m, 9), replace=False)
    L, eps = row_logits_bound(X, W_sig, blocks, rows, d_k)
    for k in range(c.n_heads):
        L_orig = (c.X[rows] @ c.W_Q[k]) @ (c.X @ c.W_K[k]).T / math.sqrt(c.d_k)  # rows_on_full_context's logits
        assert np.all(np.abs(L_orig - L[:, k]).max(axis=1) <= eps[:, k])
    assert np.all(eps < 1e-3)


def test_instance_draws_are_algorithm2_instance_draws():
    for m, d, d_k in ((16, 4, 3), (50, 16, 40), (128, 64, 200)):
        c = algorithm2_instance(m, d, d_k, np.random.default_rng(m))
        g, X, blocks, W_sig = instance_draws(m, d, d_k, np.random.default_rng(m))
        assert np.array_equal(g.perm, c.graph.perm) and np.array_equal(X, c.X) and np.array_equal(W_sig, c.W_sig)
        assert len(blocks) == len(c.blocks) and all(np.array_equal(a, b) for a, b in zip(blocks, c.blocks))


@pytest.mark.parametrize("m,d", [(64, 32), (128, 64), (128, 32), (256, 128)])
def test_certain_failure_only_where_the_conclusion_fails(m, d):
    # C from 1 to 64: the conclusion holds on some draws (small m, moderate C) and fails on others
    seen = set()
    for C in (1.0, 4.0, 8.0, 16.0, 64.0):
        for seed in range(3):
            d_k = softmax_dk(C, m)
            c = algorithm2_instance(m, d, d_k, np.random.default_rng(seed))
            g, X, blocks, W_sig = instance_draws(m, d, d_k, np.random.default_rng(seed))
            src = np.sort(np.random.default_rng(seed).choice(m, size=m // 2, replace=False))
            holds = conclusion._wrong_counts(rows_on_full_context(c, src))["holds"]
            fails = certain_failure(X, W_sig, blocks, src, d_k, batch=4)
            assert not (fails and holds), (m, d, C, seed)
            seen.add((holds, fails))
    assert (False, True) in seen


def _verdict_json(v):
    return json.loads(json.dumps({f.name: jsonable(getattr(v, f.name)) for f in dataclasses.fields(v)}, default=str))


_SMALL_CONFIGS = (("a", 64, 32, softmax_dk(64.0, 64), 3, None), ("b", 128, 32, softmax_dk(64.0, 128), 3, 40),
                  ("c", 64, 16, 2000, 4, None))


def test_large_dk_fast_path_gives_the_original_verdict(monkeypatch):
    monkeypatch.setattr(conclusion, "_LARGE_DK_QUICK", _SMALL_CONFIGS)
    calls = []

    def counted(*args, **kw):
        out = certain_failure(*args, **kw)
        calls.append(out)
        return out

    monkeypatch.setattr(conclusion, "certain_failure", counted)
    ctx = CheckContext(seed=11)
    fast = _verdict_json(conclusion._check_large_dk(ctx))
    assert calls and any(calls)  # the fast path ran and decided some draws
    monkeypatch.setattr(conclusion, "certain_failure", lambda *a, **k: False)  # every draw: the original computation
    assert _verdict_json(conclusion._check_large_dk(ctx)) == fast
    # draws that differ from algorithm2_instance's switch the fast path off (checked on the first draw)
    monkeypatch.setattr(conclusion, "certain_failure", counted)
    monkeypatch.setattr(conclusion, "instance_draws", lambda m, d, k, rng: instance_draws(m, d, k, np.random.default_rng(0)))
    calls.clear()
    assert _verdict_json(conclusion._check_large_dk(ctx)) == fast and not calls
