"""Claims of Sec. 3 (the scoring model and its two aggregation rules) and the Sec. 4 monotonicity paragraph.

- the linear-aggregation remark: summing head scores equals one head with concatenated projections, so under
  linear aggregation a split of D_K into heads changes no decision (checked exactly in sympy and by Hypothesis);
- (the library's implementation of the two aggregation rules and their permutation equivariance are unit tests of
  the library, properties/test_implementation.py, not claims);
- monotonicity under context restriction (Sec. 4) for max-over-heads: a pair's score does not depend on the rest
  of the context, so separation over V implies correct decisions in every context.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
import torch
from hypothesis import strategies as st

from ..scoring import (
    concat_heads,
    head_scores,
    linear_sum_scores,
    max_over_heads_scores,
    split_heads,
)
from .base import CheckContext, Claim, Kind, Status, Tier, Verdict
from .tools import property_verdict

ORDER = 30

_TOL = 1e-9  # float64 agreement, relative to the score scale


@st.composite
def _qk_cases(draw, *, max_heads: int = 6, max_dk: int = 6, max_dmodel: int = 12, max_ell: int = 10):
    h = draw(st.integers(1, max_heads))
    d_k = draw(st.integers(1, max_dk))
    d_model = draw(st.integers(1, max_dmodel))
    ell = draw(st.integers(1, max_ell))
    seed = draw(st.integers(0, 2**32 - 1))
    return {"h": h, "d_k": d_k, "d_model": d_model, "ell": ell, "seed": seed}


def _draw_weights(case):
    g = torch.Generator().manual_seed(case["seed"])
    X = torch.randn(1, case["ell"], case["d_model"], generator=g, dtype=torch.float64)
    W_Q = torch.randn(case["h"], case["d_model"], case["d_k"], generator=g, dtype=torch.float64)
    W_K = torch.randn(case["h"], case["d_model"], case["d_k"], generator=g, dtype=torch.float64)
    return X, W_Q, W_K


def _rel_err(a: torch.Tensor, b: torch.Tensor) -> float:
    scale = max(1.0, float(a.abs().max()), float(b.abs().max()))
    return float((a - b).abs().max()) / scale


# Sec. 3 remark: linear aggregation == one head with concatenated projections ---------------------------------------

def _check_linear_equals_concat(ctx: CheckContext) -> Verdict:
    def prop(case):
        X, W_Q, W_K = _draw_weights(case)
        lin = linear_sum_scores(X, W_Q, W_K)  # [1, ell, ell]
        single = head_scores(X, concat_heads(W_Q)[None], concat_heads(W_K)[None]).squeeze(-3)  # one head, width D_K
        err1 = _rel_err(lin, single)
        assert err1 <= _TOL, f"sum of head scores differs from the concatenated single head by {err1:.3g} (relative)"
        # the other direction: any single head of width D_K, split into h heads, gives the same linear sum
        D_K = case["h"] * case["d_k"]
        g = torch.Generator().manual_seed(case["seed"] ^ 0x5EED)
        V_Q = torch.randn(case["d_model"], D_K, generator=g, dtype=torch.float64)
        V_K = torch.randn(case["d_model"], D_K, generator=g, dtype=torch.float64)
        whole = head_scores(X, V_Q[None], V_K[None]).squeeze(-3)
        split = linear_sum_scores(X, split_heads(V_Q, case["h"]), split_heads(V_K, case["h"]))
        err2 = _rel_err(whole, split)
        assert err2 <= _TOL, f"single head split into {case['h']} heads changes the linear sum by {err2:.3g}"
        return {"max_relative_error": max(err1, err2)}

    return property_verdict(
        prop, _qk_cases(), ctx=ctx, max_examples=80,
        paper_value="sum_k S^(k) = (X W_Q^cat)(X W_K^cat)^T: linear aggregation of h heads equals one head of width D_K",
        params={"tolerance_relative": _TOL, "dtype": "float64"},
    )


def _check_linear_identity_symbolic(ctx: CheckContext) -> Verdict:
    """Exact identity in sympy for explicit symbolic matrices of several shapes."""
    shapes = [(1, 1, 1, 1), (2, 2, 1, 3), (3, 2, 2, 2), (2, 3, 2, 3)]  # (ell, d_model, d_k, h)
    checked = []
    for ell, d_model, d_k, h in shapes:
        X = sp.Matrix(ell, d_model, lambda i, j: sp.Symbol(f"x_{i}_{j}"))
        WQ = [sp.Matrix(d_model, d_k, lambda i, j, t=t: sp.Symbol(f"q{t}_{i}_{j}")) for t in range(h)]
        WK = [sp.Matrix(d_model, d_k, lambda i, j, t=t: sp.Symbol(f"k{t}_{i}_{j}")) for t in range(h)]
        lhs = sp.zeros(ell, ell)
        for t in range(h):
            lhs += (X * WQ[t]) * (X * WK[t]).T
        rhs = (X * sp.Matrix.hstack(*WQ)) * (X * sp.Matrix.hstack(*WK)).T
        diff = (lhs - rhs).applyfunc(sp.expand)
        if diff != sp.zeros(ell, ell):
            return Verdict(status=Status.REFUTED, paper_value="sum_k Q^(k) K^(k)T = Q_cat K_cat^T",
                           measured_value="nonzero difference", witness={"shape": [ell, d_model, d_k, h]},
                           evidence="sympy exact expansion")
        checked.append([ell, d_model, d_k, h])
    return Verdict(
        status=Status.VERIFIED,
        paper_value="sum_k (X W_Q^(k))(X W_K^(k))^T = (X W_Q^cat)(X W_K^cat)^T",
        measured_value="expand(lhs - rhs) == 0 for every shape",
        params={"shapes_(ell,d_model,d_k,h)": checked},
        evidence="sympy: exact polynomial identity on fully symbolic matrices",
        details="Block-matrix identity: [A_1|...|A_h][B_1|...|B_h]^T = sum_k A_k B_k^T.",
    )


def _check_monotonicity(ctx: CheckContext) -> Verdict:
    """Separation of max-over-heads scores over all of V implies correct decisions in every context."""

    @st.composite
    def cases(draw):
        m = draw(st.integers(2, 24))
        h = draw(st.integers(1, 4))
        d_k = draw(st.integers(2, 6))
        noise = draw(st.sampled_from([0.0, 0.05, 0.2, 1.0]))
        ell = draw(st.integers(1, m))
        seed = draw(st.integers(0, 2**32 - 1))
        return {"m": m, "h": h, "d_k": d_k, "noise": noise, "ell": ell, "seed": seed}

    stats = {"premise_held": 0, "premise_failed": 0}

    def prop(case):
        rng = np.random.default_rng(case["seed"])
        m, h, d_k = case["m"], case["h"], case["d_k"]
        perm = rng.permutation(m)
        # planted instance: one-hot items, head 0 puts q_i = k_{pi(i)} on a circle (separating), other heads noise
        theta = 2 * np.pi * np.arange(m) / m
        W_Q = case["noise"] * rng.standard_normal((h, m, d_k))
        W_K = case["noise"] * rng.standard_normal((h, m, d_k))
        W_Q[0, :, :2] += np.stack([np.cos(theta[perm]), np.sin(theta[perm])], axis=1)
        W_K[0, :, :2] += np.stack([np.cos(theta), np.sin(theta)], axis=1)
        X = torch.eye(m, dtype=torch.float64)[None]
        S_V = max_over_heads_scores(X, torch.as_tensor(W_Q), torch.as_tensor(W_K))[0]
        true = S_V[np.arange(m), perm]
        mask = torch.ones(m, m, dtype=torch.bool)
        mask[np.arange(m), perm] = False
        lo, hi = float(true.min()), float(S_V[mask].max()) if m > 1 else -np.inf
        ctx_ids = rng.choice(m, size=case["ell"], replace=False)
        S_C = max_over_heads_scores(X[:, ctx_ids], torch.as_tensor(W_Q), torch.as_tensor(W_K))[0]
        # locality: a pair's score is the same in the context as over V
        err = _rel_err(S_C, S_V[ctx_ids][:, ctx_ids])
        assert err <= _TOL, f"a pair's max-over-heads score changed when restricting V to the context (error {err:.3g})"
        if lo > hi:  # premise: global separation over V
            stats["premise_held"] += 1
            tau = (lo + hi) / 2
            labels = torch.as_tensor(perm[ctx_ids][:, None] == ctx_ids[None, :])
            assert torch.equal(S_C > tau, labels), "separated over V but a context decision is wrong"
        else:
            stats["premise_failed"] += 1
        return dict(stats)

    verdict = property_verdict(
        prop, cases(), ctx=ctx, max_examples=80,
        paper_value="S_max separation over V implies the same inequalities in every context C (restriction only removes distractors)",
        params={"tolerance_relative": _TOL},
    )
    if verdict.status is Status.VERIFIED and stats["premise_held"] == 0:
        return Verdict(status=Status.INCONCLUSIVE, paper_value=verdict.paper_value,
                       measured_value="no generated example satisfied the premise", params=verdict.params,
                       evidence=verdict.evidence)
    return verdict


CLAIMS = (
    Claim(
        id="sec3-linear-aggregation-equals-single-head",
        ref="Sec. 3",
        statement="Summing head scores linearly equals one head with the concatenated projections, in both "
                  "directions, so under linear aggregation splitting D_K into heads changes no decision.",
        kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_linear_equals_concat,
        notes="Float64, relative tolerance 1e-9; both directions (concatenate h heads; split one head into h).",
    ),
    Claim(
        id="sec3-sym-linear-aggregation-identity",
        ref="Sec. 3",
        statement="The block identity sum_k Q^(k) K^(k)T = Q_cat K_cat^T behind the linear-aggregation remark holds exactly.",
        kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=_check_linear_identity_symbolic,
        notes="Also App. C's concatenated-projection view. Exact on fully symbolic matrices of four shapes.",
    ),
    Claim(
        id="sec4-monotonicity-under-context-restriction",
        ref="Sec. 4",
        statement="Under max-over-heads, separation of true edges from non-edges over all of V carries over to every "
                  "context, because restricting to a context only removes distractor targets.",
        kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_monotonicity,
        notes="Generated planted instances (one-hot items, a separating circle code in head 0, noise in all heads) "
              "so that the premise holds for a share of examples; checks score locality for every example and the "
              "conclusion whenever the premise holds.",
    ),
)
