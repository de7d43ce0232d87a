"""Measured minimal constants of the "sufficiently large constants" statements (Sec. 4, App. B).

The theorems of Sec. 4 and App. B hold "for sufficiently large absolute constants" (C in d_k = C ln m, c_0 in
d_model >= c_0 ln m). We measure the smallest constants at which the conclusion actually holds at concrete sizes:

- exact certificates: for one-hot constructions the score distributions are exact binomials, so the union bound
  over all pairs is computed exactly; :func:`certified_c_construction1` and :func:`certified_c_algorithm3` give the
  smallest d_k (and C = d_k / ln m) at which the union bound is <= m^-3 (a rigorous guarantee at that m).
- empirical minima: the smallest d_k at which the construction separates all ordered pairs of V in every one of
  ``n_draws`` independent draws (criterion "all n draws separate"; the Clopper-Pearson bound on the failure rate
  at that d_k is reported with it).
- c_0 for Algorithm 1: the d_k -> infinity limit of S / d_k is a function of X alone
  (:func:`rgr_verify.analysis.measurements.limit_score_matrix`); c_0(m) is the smallest d_model / ln m at which that limit
  separates at tau / d_k = 1/2 in every draw. Below it no C works.

:func:`measured_constants` collects these per theorem; ``rgr-verify constants`` prints them.
:func:`algorithm1_separates` / :func:`algorithm5_separates` answer "does this draw separate?" exactly as the full
scores do, faster (a Gram-matrix path guarded by a rounding bound; see the comment above them).
:func:`algorithm1_limit_separates` answers "does this draw's limit separate?" exactly as
:func:`algorithm1_limit_margin` does, faster (float32 scores guarded by a rounding bound); the c_0 bisection uses it.
Logarithms are natural (the paper does not fix the base; docs/theorems.md).
"""

from __future__ import annotations

import copy
import math

import numpy as np
from scipy import stats as _st

from ..basics.checks import check_choice, check_finite_array, check_int, check_real, check_rng
from ..models.constructions import algorithm1, algorithm3, algorithm5, construction1, permutation_blocks, signature_matrix
from ..models.edge_coloring import coloring_and_batching
from ..core.embeddings import gaussian_unit_norm_embeddings
from ..core.graphs import Digraph, random_permutation_graph, random_regular_graph
from .measurements import limit_score_matrix, limit_separation_decision, separation_margins
from ..core.stats import clopper_pearson

__all__ = [
    "algorithm1_separates",
    "algorithm5_separates",
    "max_heads_decision",
    "PAPER_SIZES",
    "THEOREMS",
    "union_bound_construction1",
    "union_bound_algorithm3",
    "certified_c_construction1",
    "certified_c_algorithm3",
    "paper_c_theorem_b1",
    "min_dk_all_draws",
    "fast_min_dk",
    "algorithm1_limit_margin",
    "algorithm1_limit_separates",
    "smallest_passing",
    "minimal_c0_algorithm1",
    "measured_constants",
]

# (m, d_model) of the paper's max-over-heads experiments (Sec. 6.1): the grid and the r = m / d_model = 8 diagonal
# plus the r = 32 points.
PAPER_SIZES = tuple(sorted(
    {(m, d) for m in (64, 128, 256, 512) for d in (16, 32, 64)}
    | {(128, 16), (256, 32), (512, 64), (1024, 128), (2048, 256), (4096, 512), (1024, 32), (512, 16)}
))

THEOREMS = ("construction-i", "theorem-b1", "theorem-4.1", "theorem-b9")


def union_bound_construction1(m: int, d_k: int) -> float:
    """Exact union bound on Construction I's failure: m(m-1)/2 * P(Bin(d_k, 1/2) >= 3 d_k / 4).

    A non-edge score <w_a, w_b> (a != b) equals 2 Bin(d_k, 1/2) - d_k and fails when >= tau = d_k / 2; edge
    scores equal d_k > tau always; the symmetric score of a row pair is one event.
    """
    m = check_int("m", m, min_value=2)
    d_k = check_int("d_k", d_k, min_value=1)
    tail = float(_st.binom.sf(math.ceil(3 * d_k / 4) - 1, d_k, 0.5))
    return m * (m - 1) / 2 * tail


def union_bound_algorithm3(m: int, d_k: int, p: float) -> float:
    """Exact union bound for Algorithm 3: m P(Bin(d_k, p) <= tau) + m(m-1)/2 P(Bin(d_k, p^2) >= tau).

    tau = (p + p^2) d_k / 2; edge scores are ||k||^2 ~ Bin(d_k, p), non-edge scores k_a . k_b ~ Bin(d_k, p^2).
    """
    m = check_int("m", m, min_value=2)
    d_k = check_int("d_k", d_k, min_value=1)
    p = check_real("p", p, low=0.0, high=0.5, low_open=True, high_open=True)
    tau = (p + p * p) * d_k / 2
    edge = float(_st.binom.cdf(math.floor(tau), d_k, p))
    non = float(_st.binom.sf(math.ceil(tau) - 1, d_k, p * p))
    return m * edge + m * (m - 1) / 2 * non


def _first_dk(bound, target: float, d_max: int = 100000) -> int:
    """Smallest d_k with bound(d_k) <= target (bounds are not monotone in d_k by parity, so scan then confirm)."""
    lo = 1
    while lo <= d_max and bound(lo) > target:
        lo = lo * 2 if lo < 64 else lo + max(1, lo // 8)
    if lo > d_max:
        raise ValueError(f"no d_k <= {d_max} certifies the bound")
    start = max(1, lo // 2 if lo <= 128 else lo - max(1, lo // 8))
    for d in range(start, lo + 1):
        if bound(d) <= target:
            return d
    return lo  # pragma: no cover


def certified_c_construction1(m: int) -> dict:
    """Smallest d_k with :func:`union_bound_construction1` <= m^-3, and C = d_k / ln m."""
    m = check_int("m", m, min_value=2)
    d = _first_dk(lambda d: union_bound_construction1(m, d), m ** -3.0)
    return {"m": m, "d_k": d, "C": d / math.log(m), "bound": union_bound_construction1(m, d)}


def certified_c_algorithm3(m: int, p: float = 0.25) -> dict:
    """Smallest d_k with :func:`union_bound_algorithm3` <= m^-3, and C = d_k / ln m."""
    m = check_int("m", m, min_value=2)
    d = _first_dk(lambda d: union_bound_algorithm3(m, d, p), m ** -3.0)
    return {"m": m, "p": p, "d_k": d, "C": d / math.log(m), "bound": union_bound_algorithm3(m, d, p)}


def paper_c_theorem_b1(p: float) -> dict:
    """The constants of Theorem B.1's proof: c1 = p(1-p)^2/8, c2 = p(1-p)^2/(2(1+3p)), C_paper = max(3/c1, 2/c2)."""
    p = check_real("p", p, low=0.0, high=0.5, low_open=True, high_open=True)
    c1 = p * (1 - p) ** 2 / 8
    c2 = p * (1 - p) ** 2 / (2 * (1 + 3 * p))
    return {"c1": c1, "c2": c2, "C_paper": max(3 / c1, 2 / c2), "C_needed_for_union_bound": max(4 / c1, 5 / c2)}


def min_dk_all_draws(make, *, n_draws: int, rng: np.random.Generator, d_k_grid) -> dict:
    """Smallest d_k in ``d_k_grid`` at which ``make(d_k, rng_i)`` separates in all ``n_draws`` draws.

    ``make(d_k, rng)`` returns a Construction; draws use independent child generators (fresh X, graph and
    signatures per draw). Returns the d_k, the failures seen at each smaller d_k, and the 95% Clopper-Pearson
    interval of the failure rate at the chosen d_k (0 failures in n_draws). d_k None when no grid value works.
    """
    n_draws = check_int("n_draws", n_draws, min_value=1)
    seeds = rng.integers(0, 2**63 - 1, size=n_draws)
    history = []
    for d_k in d_k_grid:
        fails = 0
        worst = math.inf
        for s in seeds:
            c = make(int(d_k), np.random.default_rng(int(s)))
            mg = separation_margins(c, max_failures=0)
            worst = min(worst, mg.margin)
            if mg.margin <= 0:
                fails += 1
                break  # this d_k is already ruled out
        history.append({"d_k": int(d_k), "failed": fails > 0, "worst_margin": worst})
        if fails == 0:
            return {"d_k": int(d_k), "history": history, "failure_rate_ci95": clopper_pearson(0, n_draws)}
    return {"d_k": None, "history": history, "failure_rate_ci95": None}


def algorithm1_limit_margin(m: int, d_model: int, *, rng: np.random.Generator, block_size: int | None = None) -> dict:
    """The d_k -> infinity margins of Algorithm 1 for one draw of (pi, X): tau / d_k = 1/2 and best threshold."""
    g = random_permutation_graph(m, rng=rng)
    X = gaussian_unit_norm_embeddings(m, d_model, rng=rng)
    c = algorithm1(g, X, d_k=1, rng=rng, block_size=block_size)
    mg = separation_margins(c, scores=limit_score_matrix(c), tau=0.5, max_failures=3)
    return {"margin": mg.margin, "best_margin": mg.best_margin, "edge_margin": mg.edge_margin,
            "nonedge_margin": mg.nonedge_margin, "failing_pairs": mg.failing_pairs}


def algorithm1_limit_separates(m: int, d_model: int, *, rng: np.random.Generator,
                               block_size: int | None = None) -> bool:
    """``algorithm1_limit_margin(m, d_model, rng=rng, block_size=block_size)["margin"] > 0``: the same draws from
    ``rng`` and the same answer, faster (float32 scores guarded by a rounding bound, early exit; see
    :func:`measurements.limit_separation_decision`), computing the reference when the bound leaves it open."""
    check_rng(rng)
    saved = copy.deepcopy(rng)
    g = random_permutation_graph(m, rng=rng)
    X = gaussian_unit_norm_embeddings(m, d_model, rng=rng)
    B = d_model if block_size is None else check_int("block_size", block_size, min_value=1)
    signature_matrix(m, 1, kind="rademacher", rng=rng)  # algorithm1's draw (the limit does not depend on it)
    blocks = permutation_blocks(g, B)
    ans = limit_separation_decision(g, X, blocks, tau=0.5, gram32=True)
    if ans is None:  # a score within the (wider) bound of tau: again with the float64 Gram matrix, then the reference
        ans = limit_separation_decision(g, X, blocks, tau=0.5)
    if ans is None:
        ans = algorithm1_limit_margin(m, d_model, rng=saved, block_size=block_size)["margin"] > 0
    return bool(ans)


def smallest_passing(ok, lo: int, hi: int) -> int:
    """Integer bisection: the smallest n in (lo, hi] with ``ok(n)``, for a predicate that is monotone (false up to
    some point, true after it), given that ``ok(lo)`` is false (or lo is below the range) and ``ok(hi)`` is true;
    neither end is evaluated."""
    if not callable(ok):
        raise ValueError(f"ok must be a callable taking an integer, got {type(ok).__name__}")
    lo = check_int("lo", lo)
    hi = check_int("hi", hi, min_value=lo + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def minimal_c0_algorithm1(m: int, *, n_draws: int, rng: np.random.Generator, max_d_model: int | None = None) -> dict:
    """Smallest d_model (bisection over integers; the limit margin grows with d_model) whose limit margin is > 0
    in all ``n_draws`` draws; c_0 = d_model / ln m. d_model None if even max_d_model (default m) fails."""
    m = check_int("m", m, min_value=4)
    hi = m if max_d_model is None else check_int("max_d_model", max_d_model, min_value=1)
    seeds = rng.integers(0, 2**63 - 1, size=n_draws)

    def ok(d):
        return all(algorithm1_limit_separates(m, d, rng=np.random.default_rng(int(s))) for s in seeds)

    if not ok(hi):
        return {"m": m, "d_model": None, "c0": None, "n_draws": n_draws}
    # Start the bisection at d_model = 20 ln m (c0 = 20 never separated at any m we tried); confirm it fails.
    lo = min(hi - 1, max(1, int(20 * math.log(m))))
    if lo >= 1 and ok(lo):
        lo = 0
    hi = smallest_passing(ok, lo, hi)
    return {"m": m, "d_model": hi, "c0": hi / math.log(m), "n_draws": n_draws}


def measured_constants(theorem_id: str, *, m_values=(64, 128, 256), n_draws: int = 5, seed: int = 0) -> dict:
    """Measured minimal constants for ``theorem_id`` in :data:`THEOREMS`.

    - "construction-i": certified C (exact union bound <= m^-3) and empirical minimal C (all n_draws separate).
    - "theorem-b1": the same for Algorithm 3 (p = 1/4), beside the proof's C_paper = max(3/c1, 2/c2).
    - "theorem-4.1": minimal c_0 (limit margin, all draws), then minimal C at d_model = ceil(1.25 c_0 ln m).
    - "theorem-b9": minimal C for Algorithm 5 on 4-regular graphs with d_model = ceil(1.25 c_0(m) ln m).
    Returns a dict with one row per m plus the criterion used.
    """
    check_choice("theorem_id", theorem_id, THEOREMS)
    n_draws = check_int("n_draws", n_draws, min_value=1)
    rng = np.random.default_rng(np.random.SeedSequence([seed, THEOREMS.index(theorem_id)]))
    rows = []
    for m in m_values:
        m = check_int("m", m, min_value=4)
        lnm = math.log(m)
        if theorem_id in ("construction-i", "theorem-b1"):
            if theorem_id == "construction-i":
                cert = certified_c_construction1(m)

                def make(d_k, r, m=m):
                    return construction1(random_permutation_graph(m, rng=r), d_k=d_k, rng=r)
            else:
                cert = certified_c_algorithm3(m, 0.25)

                def make(d_k, r, m=m):
                    return algorithm3(random_permutation_graph(m, rng=r), d_k=d_k, rng=r, p=0.25)
            emp = fast_min_dk(make, n_draws=n_draws, rng=rng, d_k_hi=4 * cert["d_k"])
            rows.append({"m": m, "certified_d_k": cert["d_k"], "certified_C": cert["C"], "empirical_d_k": emp["d_k"],
                         "empirical_C": None if emp["d_k"] is None else emp["d_k"] / lnm})
        elif theorem_id == "theorem-4.1":
            c0 = minimal_c0_algorithm1(m, n_draws=n_draws, rng=rng)
            row = {"m": m, "c0_min": c0["c0"], "d_model_min": c0["d_model"]}
            if c0["d_model"] is not None:
                d = min(m, math.ceil(1.25 * c0["d_model"]))

                def make(d_k, r, m=m, d=d):
                    return algorithm1(random_permutation_graph(m, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r),
                                      d_k=d_k, rng=r)
                emp = fast_min_dk(make, n_draws=n_draws, rng=rng, d_k_hi=int(60 * lnm))
                row.update({"d_model_used": d, "c0_used": d / lnm, "empirical_d_k": emp["d_k"],
                            "empirical_C": None if emp["d_k"] is None else emp["d_k"] / lnm})
            rows.append(row)
        else:
            c0 = minimal_c0_algorithm1(m, n_draws=max(1, n_draws // 2), rng=rng)
            d = m if c0["d_model"] is None else min(m, math.ceil(1.25 * c0["d_model"]))

            def make(d_k, r, m=m, d=d):
                return algorithm5(random_regular_graph(m, 4, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r),
                                  d_k=d_k, rng=r)
            emp = fast_min_dk(make, n_draws=n_draws, rng=rng, d_k_hi=int(60 * lnm))
            rows.append({"m": m, "r": 4, "d_model_used": d, "c0_used": d / lnm, "empirical_d_k": emp["d_k"],
                         "empirical_C": None if emp["d_k"] is None else emp["d_k"] / lnm})
    return {"theorem": theorem_id, "n_draws": n_draws, "seed": seed, "rows": rows,
            "criterion": "smallest value at which all n_draws independent draws separate every ordered pair of V "
                         "(certified: exact union bound <= m^-3); natural log"}


def fast_min_dk(make, *, n_draws: int, rng: np.random.Generator, d_k_hi: int) -> dict:
    """Bisection version of :func:`min_dk_all_draws` on [1, d_k_hi] (assumes separation is monotone in d_k, which
    holds in expectation; the result is re-checked at the returned d_k with the same draws).

    ``make(d_k, rng)`` builds one construction; ``{"d_k": smallest d_k at which all n_draws draws separate}``, or
    ``{"d_k": None}`` when d_k_hi does not separate them all. ValueError for n_draws < 1, d_k_hi < 1, or a
    ``make`` that is not callable.
    """
    if not callable(make):
        raise ValueError(f"make must be callable as make(d_k, rng), got {make!r}")
    n_draws = check_int("n_draws", n_draws, min_value=1)
    d_k_hi = check_int("d_k_hi", d_k_hi, min_value=1)
    seeds = [int(s) for s in rng.integers(0, 2**63 - 1, size=n_draws)]

    def ok(d):
        return all(separation_margins(make(d, np.random.default_rng(s)), max_failures=0).margin > 0 for s in seeds)

    if not ok(d_k_hi):
        return {"d_k": None}
    return {"d_k": smallest_passing(ok, 0, d_k_hi)}


# Whether Algorithm 1 or 5 separates at its threshold, decided exactly as ``separation_margins(c).margin > 0`` but
# without forming the h d_model x d_k weights and the m x d_k query/key matrices.
#
# For weights built by :func:`constructions.weights_from_blocks` (W_Q^(k) = X_inv[:, V_k] W_sig[T_k], W_K^(k) =
# X_inv[:, T_k] W_sig[T_k]) head k's scores are S^(k) = U[:, V_k] G_k U[:, T_k]^T with U = X X_inv and G_k =
# W_sig[T_k] W_sig[T_k]^T, a Gram matrix of +-1 rows that floating point computes exactly (integer partial sums).
# This costs O(n_k^2 d_k) per head instead of O(m d_model d_k), but rounds differently from the scores of
# :func:`measurements.aggregated_score_matrix`. So every answer is guarded: a rigorous bound E on the entrywise
# difference between the two computations (standard gamma_n bounds of floating-point matrix products, valid for any
# summation order) is computed alongside, and the answer is given only when every edge score is more than E above
# tau and every non-edge score more than E below it (then the original scores separate too), or some score is on
# the wrong side by more than E (then they do not). Otherwise the construction is built from the same signature
# draw and :func:`measurements.separation_margins` decides, so the answer is always the original's. The generator is
# advanced exactly as :func:`constructions.algorithm1` / :func:`constructions.algorithm5` advance it. Used by the
# finite-d_k Monte Carlo trials of thm41-separation-whp and thmb9-separation-whp.

_U = 2.0 ** -53  # unit roundoff of float64
_SAFETY = 1.01  # the bound's own rounding (relative errors far below 1%) is absorbed by this factor


def _gamma(n: int) -> float:
    nu = n * _U
    if nu >= 0.5:
        raise ValueError("inner dimension too large for the rounding bound")
    return nu / (1.0 - nu)


def max_heads_decision(graph: Digraph, X: np.ndarray, X_inv: np.ndarray, W_sig: np.ndarray, blocks, tau: float,
                       *, include_self: bool = True) -> bool | None:
    """True / False when the guarded fast scores decide ``separation_margins(c).margin > 0`` for the max-over-heads
    construction with weights ``weights_from_blocks(X_inv, W_sig, blocks)`` and threshold ``tau``; None when the
    rounding bound leaves it open (or the signatures are not +-1)."""
    X = np.asarray(X, dtype=np.float64)
    X_inv = np.asarray(X_inv, dtype=np.float64)
    W_sig = np.asarray(W_sig, dtype=np.float64)
    m, d = X.shape
    d_k = W_sig.shape[1]
    if d_k >= 2 ** 24:  # pragma: no cover - float32 Gram sums exact only below 2^24 terms
        return None
    if not np.all(np.abs(W_sig) == 1.0):
        return None  # the Gram matrices below are exact for +-1 entries (Rademacher signatures) only
    W32 = W_sig.astype(np.float32)  # exact for +-1
    # one m x m Gram matrix when it is cheaper than one per head (Algorithm 5: heads share targets)
    full = (W32 @ W32.T).astype(np.float64) if m * m < sum(len(b) ** 2 for b in blocks) else None
    absX, absXi = np.abs(X), np.abs(X_inv)
    U = X @ X_inv  # [m, m]
    V = absX @ absXi  # |X| |X_inv| >= |U*| entrywise; |U - U*| <= gamma_d V
    g_d, g_dk = _gamma(d), _gamma(d_k)
    S = None
    E = 0.0
    for blk in blocks:
        src, tgt = blk[:, 0], blk[:, 1]
        n = len(src)
        g_n = _gamma(max(n, 1))
        if full is None:
            Wt = W32[tgt]
            G = (Wt @ Wt.T).astype(np.float64)  # exact: integer partial sums below 2^24
        else:
            G = full[np.ix_(tgt, tgt)]
        T = U[:, src] @ G
        Sk = T @ U[:, tgt].T
        # fast path vs S* (the exact product of the float inputs): with |UA|, |UA*| <= V_A (1 + gamma_d) and
        # W_A = V_A |G|: |T - UA* G| <= (g_n + g_d) W_A, |T| <= (1 + g_n + g_d) W_A, and
        # |S_fast - S*| <= [g_n (1 + g_n + g_d) + (g_n + g_d) + g_d (1 + g_d)] (1 + g_d)^2 W_A V_B^T, whose entries
        # are at most (max row sum of V_A) (max column sum of |G|) (max of V_B)
        c_f = (g_n * (1 + g_n + g_d) + (g_n + g_d) + g_d * (1 + g_d)) * (1 + g_d) ** 2
        e_fast = (c_f * V[:, src].sum(axis=1).max(initial=0.0) * np.abs(G).sum(axis=0).max(initial=0.0)
                  * V[:, tgt].max(initial=0.0))
        # original path (weights_from_blocks, then X W, then q k^T): row-wise bounds with |W_sig| <= 1
        rA = absXi[:, src].sum(axis=1)  # [d]: |A| 1, A = X_inv[:, V_k]
        rB = absXi[:, tgt].sum(axis=1)
        s_max, t_max = (absX @ rA).max(initial=0.0), (absX @ rB).max(initial=0.0)  # bounds of |q*|, |k*|
        c_q = g_d * (1.0 + g_n) + g_n
        e_q, e_k = c_q * s_max, c_q * t_max
        qmax, kmax = s_max + e_q, t_max + e_k
        e_orig = g_dk * d_k * qmax * kmax + d_k * (e_q * kmax + s_max * e_k)
        E = max(E, _SAFETY * (e_fast + e_orig))
        S = Sk if S is None else np.maximum(S, Sk)
    if S is None or not np.all(np.isfinite(S)) or not np.isfinite(E):
        return None
    A = graph.adjacency
    mask = np.ones_like(A) if include_self else ~np.eye(m, dtype=bool)
    edge, non = A & mask, ~A & mask
    se, sn = S[edge], S[non]
    if (se.size and se.min() + E < tau) or (sn.size and sn.max() - E > tau):
        return False  # some original score is on the wrong side of tau
    if (not se.size or se.min() - E > tau) and (not sn.size or sn.max() + E < tau):
        return True
    return None


def _separates(build, blocks_of, graph: Digraph, X, d_k: int, rng: np.random.Generator,
               block_size: int | None) -> bool:
    """``separation_margins(build(graph, X, ...)).margin > 0`` for a max-over-heads construction whose head blocks
    are ``blocks_of(graph, B)`` and whose only draw from ``rng`` is its Rademacher signature matrix: the same draw
    and the same answer, from :func:`max_heads_decision` when its rounding bound decides, else from the
    construction itself (rebuilt from a copy of ``rng`` taken before the draw)."""
    X = check_finite_array("X", X, ndim=2)
    d_k = check_int("d_k", d_k, min_value=1)
    check_rng(rng)
    B = X.shape[1] if block_size is None else check_int("block_size", block_size, min_value=1)
    if not isinstance(graph, Digraph) or X.shape[0] != graph.m or graph.n_edges == 0:
        return separation_margins(build(graph, X, d_k=d_k, rng=rng, block_size=block_size)).margin > 0
    blocks = blocks_of(graph, B)
    saved = copy.deepcopy(rng)
    W_sig = signature_matrix(graph.m, d_k, kind="rademacher", rng=rng)
    ans = max_heads_decision(graph, X, X.T.copy(), W_sig, blocks, d_k / 2)
    if ans is None:
        ans = separation_margins(build(graph, X, d_k=d_k, rng=saved, block_size=block_size)).margin > 0
    return bool(ans)


def algorithm1_separates(graph: Digraph, X, *, d_k: int, rng: np.random.Generator,
                         block_size: int | None = None) -> bool:
    """``separation_margins(algorithm1(graph, X, d_k=d_k, rng=rng, block_size=block_size)).margin > 0``, with the
    same draw from ``rng`` and the same answer, faster (see the module docstring)."""
    return _separates(algorithm1, permutation_blocks, graph, X, d_k, rng, block_size)


def algorithm5_separates(graph: Digraph, X, *, d_k: int, rng: np.random.Generator,
                         block_size: int | None = None) -> bool:
    """``separation_margins(algorithm5(graph, X, d_k=d_k, rng=rng, block_size=block_size)).margin > 0``, with the
    same draw from ``rng`` and the same answer, faster (see the module docstring)."""
    return _separates(algorithm5, coloring_and_batching, graph, X, d_k, rng, block_size)
