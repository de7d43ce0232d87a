"""Measurements on constructions: margins, the App. B.2 noise decomposition, Definition B.4, normalisation (26).

All scores are over the full vertex set V (the context C = V, every ordered pair (i, j), the self-pair (i, i)
included: the paper's "for all j != pi(i)" does not exclude j = i, and contexts hold the query item itself).
Per-head raw scores S^(k) = (X W_Q^(k)) (X W_K^(k))^T are formed head by head, so memory is O(m^2), not O(h m^2).

- :func:`separation_margins`: min true-edge score - tau, tau - max non-edge score, and the best-threshold margin
  (min edge - max non-edge) / 2, with the failing pairs.
- :func:`limit_separation_decision`: whether :func:`limit_score_matrix` separates at tau, decided from float32
  scores under a rigorous rounding bound (None when a score is too close to tau to call).
- :func:`noise_terms` / :func:`noise_summary`: S^(k)_ij = Signal + N1 + N2 + N3 of App. B.2 (exact identity), with the
  conditional means E[. | X] over Rademacher signatures.
- :func:`restricted_self_incoherence`: the smallest (eps_d, rho, gamma) of Definition B.4 at block size B, exactly: a
  max over subsets |S| <= B of a sum is the sum of the B largest (positive) terms, i.e. a sort per row.
- :func:`normalised_margin`: the margin divided by ||U||_F ||V||_F with U = [W_Q^(1) | ... | W_Q^(h)],
  V = [W_K^(1) | ...] (Theorem 9.2's normalisation (26); rows of X have norm <= 1 for unit-norm embeddings).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from ..core import scoring
from ..basics.checks import check_finite_array, check_int, check_real
from ..models.constructions import Construction, check_construction

__all__ = [
    "head_score_matrix",
    "aggregated_score_matrix",
    "limit_score_matrix",
    "limit_separation_decision",
    "SeparationMargins",
    "separation_margins",
    "noise_terms",
    "noise_summary",
    "IncoherenceParameters",
    "restricted_self_incoherence",
    "normalised_margin",
]


def head_score_matrix(c: Construction, k: int) -> np.ndarray:
    """S^(k) ``[m, m]``: S^(k)[i, j] = (x_i W_Q^(k)) . (x_j W_K^(k)), scored by :func:`scoring.head_scores`
    (the code that scores trained weights), over the context C = V."""
    c = check_construction(c)
    k = check_int("k", k, min_value=0, max_value=c.n_heads - 1)
    return _score_heads(c, slice(k, k + 1), "linear-sum")


def aggregated_score_matrix(c: Construction) -> np.ndarray:
    """The aggregated score over C = V, ``[m, m]``, by :func:`scoring.aggregate_scores`.

    "max": S_max = max_k S^(k). "softmax-sum": A = sum_k softmax_j(S^(k)[i, :] / sqrt(d_k)) (Eq. (6), ell = m).
    Heads are scored one at a time (max and sum are associative) so memory stays at a few m x m matrices.
    """
    c = check_construction(c)
    out = None
    for k in range(c.n_heads):
        S = _score_heads(c, slice(k, k + 1), c.aggregation)
        if out is None:
            out = S
        elif c.aggregation == "max":
            np.maximum(out, S, out=out)
        else:
            out += S
    return out


def _score_heads(c: Construction, heads: slice, aggregation: str) -> np.ndarray:
    X = torch.as_tensor(c.X, dtype=torch.float64)[None]  # [1, m, d_model]: one context holding all of V
    W_Q = torch.as_tensor(c.W_Q[heads], dtype=torch.float64)
    W_K = torch.as_tensor(c.W_K[heads], dtype=torch.float64)
    return scoring.aggregate_scores(X, W_Q, W_K, aggregation)[0].numpy()


def limit_score_matrix(c: Construction) -> np.ndarray:
    """The d_k -> infinity limit of S_max / d_k for Rademacher signatures, ``[m, m]``, a function of X alone.

    E[S^(k)_ij | X] = sum_{s in V_k, t in T_k} u_i(s) u_j(t) E[w_pi(s) . w_t] = d_k sum_{s in V_k} u_i(s) u_j(pi_k(s)),
    so S^(k) / d_k -> U[:, V_k] U[:, T_k]^T (U = X X_inv) by the law of large numbers, and the max over heads
    converges to the max of these limits. Against tau / d_k = 1/2, a negative margin of this matrix means no d_k
    (no constant C) makes the construction separate for this X.
    """
    c = check_construction(c)
    if c.signatures != "rademacher":
        raise ValueError("limit_score_matrix needs Rademacher signatures")
    U = c.X @ c.X_inv  # [m, m]
    out = np.full((c.m, c.m), -np.inf)
    for blk in c.blocks:
        out = np.maximum(out, U[:, blk[:, 0]] @ U[:, blk[:, 1]].T)
    return out


# limit_separation_decision: float32 scores of limit_score_matrix with a rigorous bound E on |float32 score - exact|
# + |float64 reference score - exact| ("exact": real arithmetic on the float64 X; gamma_n bounds, valid for any
# summation order). The float32 Gram matrix U^ satisfies |U^ - U*| <= c |U^| + g rho_i rho_s (rho: row norms of X):
# c = u32 / (1 - u32), g = gamma_d(u64) when U^ = fl32(fl64(X X^T)); c = 0, g = 2 u32 + u32^2 + gamma_d(u32) (1 + u32)^2
# when U^ = fl32(fl32(X) fl32(X)^T). A head's score is a dot product over its n sources, so by Cauchy-Schwarz with
# a_i = ||U^[i, V_k]||, b_j = ||U^[j, T_k]|| the error is at most K1 a_i b_j + K2 (a_i + b_j) + K3 (constants below;
# the reference's float64 Gram matrix is within gamma_d(u64) rho_i rho_s of U*).
_LIMIT_GUARD = 1.01  # absorbs the rounding of the bound itself (relative errors far below 1%)


def _limit_bound(n: int, d: int, rho: float, gram32: bool):
    def gam(k, u):
        return k * u / (1 - k * u)
    u32, u64, r2, sq = 2.0 ** -24, 2.0 ** -53, rho * rho, math.sqrt(n)
    g64, gn = gam(d, u64), gam(n, u64)
    c, g = (0.0, 2 * u32 + u32 * u32 + gam(d, u32) * (1 + u32) ** 2) if gram32 else (u32 / (1 - u32), g64)
    g2 = g + g64  # |U64 - U^| <= c |U^| + g2 rho_i rho_s for the reference's Gram matrix U64
    K1 = gam(n, u32) + c * (2 + c) + gn * (1 + c) ** 2
    K2 = sq * r2 * (1 + c) * (g + gn * g2 + g64)
    K3 = n * r2 * r2 * (g * g + gn * g2 * g2 + g64 * g2 + g64 * g)
    return lambda a, b: _LIMIT_GUARD * (K1 * a * b + K2 * (a + b) + K3) + 1e-30  # + float32 underflow


def limit_separation_decision(graph, X, blocks, *, tau: float = 0.5, gram32: bool = False,
                              chunk: int = 1024) -> bool | None:
    """True / False when float32 scores with a rigorous rounding bound decide
    ``separation_margins(c, scores=limit_score_matrix(c), tau=tau).margin > 0`` for the permutation-graph
    construction c with embeddings X, X_inv = X^T and head matchings ``blocks`` (Algorithm 1); None when a score
    that matters lies within the bound of tau (the caller then computes the reference).

    Edge scores (i, pi(i)) first (O(m^2) in all); then non-edges head by head in row chunks (rows i in V_k, where
    the largest non-edge scores lie, first), stopping at the first score certainly on the wrong side of tau."""
    X = np.asarray(X, dtype=np.float64)
    m, d = X.shape
    E = np.asarray(graph.edges, dtype=np.int64).reshape(-1, 2)
    perm = np.full(m, -1, dtype=np.int64)
    perm[E[:, 0]] = E[:, 1]
    if len(E) != m or np.any(perm < 0) or len(np.unique(E[:, 1])) != m or not np.all(np.isfinite(X)):
        return None
    X32 = X.astype(np.float32) if gram32 else None  # gram32: cheaper, with a wider bound
    U = X32 @ X32.T.copy() if gram32 else (X @ X.T.copy()).astype(np.float32)  # gemm (numpy's syrk is slower)
    rho = float(np.sqrt((X * X).sum(axis=1)).max(initial=0.0))
    Up = U.take(perm, axis=1)  # Up[t, s] = U^[t, pi(s)], which stands for U*[pi(s), t] (U* is symmetric)
    heads, lo_e, hi_e = [], np.full(m, -np.inf), np.full(m, -np.inf)
    for blk in blocks:
        src, tgt = np.ascontiguousarray(blk[:, 0]), np.ascontiguousarray(blk[:, 1])
        # head scores F[i, pi(s)] = A[i] . B[:, s] with A = U^[:, V_k], B = Up[T_k]: edges on the diagonal
        A, B = U.take(src, axis=1), Up.take(tgt, axis=0)
        a = np.sqrt(np.einsum("ij,ij->i", A, A, dtype=np.float64))  # ||U^[i, V_k]||
        b = np.sqrt(np.einsum("ij,ij->j", B, B, dtype=np.float64))  # ||U^[T_k, pi(s)]||
        bound = _limit_bound(len(src), d, rho, gram32)
        e = bound(a, b)
        v = np.einsum("ij,ji->i", A, B).astype(np.float64)  # edge scores F[i, pi(i)]
        lo_e, hi_e = np.maximum(lo_e, v - e), np.maximum(hi_e, v + e)
        order = np.concatenate([src, np.setdiff1d(np.arange(m), src)])  # rows in V_k first
        heads.append((A, B, order, a, b.max(initial=0.0), bound, len(src)))
    del U, Up
    if np.any(hi_e < tau):
        return False  # some edge score is certainly below tau
    unsure = not np.all(lo_e > tau)
    # first the rows i in V_k of every head (the largest non-edge scores lie there), padded to 512 rows; then the rest
    for first in (True, False):
        for A, B, order, a, bmax, bound, n in heads:
            c1 = max(n, 512)
            for r0, r1 in ([(0, c1)] if first else [(r, r + chunk) for r in range(c1, m, chunk)]):
                rows = order[r0:r1]
                F = A.take(rows, axis=0) @ B
                F[np.arange(len(rows)), rows] = -np.inf  # the edges (i, pi(i))
                mx = F.max(axis=1).astype(np.float64)
                e = bound(a[rows], bmax)
                if np.any(mx - e > tau):
                    return False  # a non-edge score certainly >= tau
                unsure = unsure or not np.all(mx + e < tau)
    return None if unsure else True


@dataclass(frozen=True)
class SeparationMargins:
    """Separation of true edges from non-edges over all ordered pairs of V.

    Attributes:
        tau: the construction's threshold.
        min_edge: min over edges of the aggregated score.
        max_nonedge: max over non-edges (self-pairs included unless excluded) of the aggregated score.
        edge_margin: min_edge - tau (> 0 iff every edge is detected).
        nonedge_margin: tau - max_nonedge (> 0 iff no non-edge is detected).
        margin: min(edge_margin, nonedge_margin) (> 0 iff the construction recognises G at tau).
        best_threshold: (min_edge + max_nonedge) / 2.
        best_margin: (min_edge - max_nonedge) / 2 (> 0 iff some threshold separates).
        n_failures: number of misclassified ordered pairs at tau.
        failing_pairs: up to ``max_failures`` tuples (i, j, score, is_edge).
    """

    tau: float
    min_edge: float
    max_nonedge: float
    edge_margin: float
    nonedge_margin: float
    margin: float
    best_threshold: float
    best_margin: float
    n_failures: int
    failing_pairs: tuple

    @property
    def separated(self) -> bool:
        return self.margin > 0

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def separation_margins(c: Construction, *, scores: np.ndarray | None = None, tau: float | None = None,
                       include_self: bool = True, max_failures: int = 20) -> SeparationMargins:
    """Margins of the construction's aggregated scores at its threshold over all ordered pairs of V.

    Args:
        c: the construction.
        scores: precomputed aggregated scores ``[m, m]`` (default :func:`aggregated_score_matrix`).
        tau: threshold to use instead of ``c.tau`` (e.g. 1/2 for :func:`limit_score_matrix`).
        include_self: whether the self-pairs (i, i) count (as non-edges unless (i, i) in E).
        max_failures: how many failing pairs to list.
    """
    c = check_construction(c)
    max_failures = check_int("max_failures", max_failures, min_value=0)
    S = aggregated_score_matrix(c) if scores is None else check_finite_array("scores", scores, ndim=2)
    if S.shape != (c.m, c.m):
        raise ValueError(f"scores must have shape [m, m] = {(c.m, c.m)}, got {S.shape}")
    A = c.graph.adjacency
    mask = np.ones_like(A) if include_self else ~np.eye(c.m, dtype=bool)
    edge = A & mask
    non = ~A & mask
    min_edge = float(S[edge].min()) if edge.any() else math.inf
    max_non = float(S[non].max()) if non.any() else -math.inf
    tau = float(c.tau) if tau is None else check_real("tau", tau)
    bad = (edge & (S <= tau)) | (non & (S >= tau))
    idx = np.argwhere(bad)
    fails = tuple((int(i), int(j), float(S[i, j]), bool(A[i, j])) for i, j in idx[:max_failures])
    return SeparationMargins(
        tau=tau, min_edge=min_edge, max_nonedge=max_non, edge_margin=min_edge - tau, nonedge_margin=tau - max_non,
        margin=min(min_edge - tau, tau - max_non), best_threshold=(min_edge + max_non) / 2,
        best_margin=(min_edge - max_non) / 2, n_failures=int(bad.sum()), failing_pairs=fails,
    )


def noise_terms(c: Construction, k: int) -> dict[str, np.ndarray]:
    """App. B.2's decomposition of head k's scores over all (i, j): S^(k) = Signal + N1 + N2 + N3, each ``[m, m]``.

    With u_i = x_i X_inv = e_i + delta_i, q-leakage a_i = sum_{s in V_k} delta_i(s) w_pi(s) and k-leakage
    b_j = sum_{t in T_k} delta_j(t) w_t ([d_k] each):

        Signal_ij = 1(i in V_k) 1(j in T_k) w_pi(i) . w_j,   N1_ij = 1(i in V_k) w_pi(i) . b_j,
        N2_ij = a_i . w_j 1(j in T_k),                       N3_ij = a_i . b_j.

    Also returned: ``S`` (head scores), and for Rademacher signatures the exact conditional means over W_sig
    given X: E[N1|X]_ij = d_k 1(i in V_k) delta_j(pi(i)), E[N2|X]_ij = d_k 1(j in T_k) delta_i(pi^-1(j)),
    E[N3|X]_ij = d_k sum_{a in T_k} delta_i(pi^-1(a)) delta_j(a) (the last is the paper's formula).
    """
    c = check_construction(c)
    k = check_int("k", k, min_value=0, max_value=c.n_heads - 1)
    m, d_k = c.m, c.d_k
    src, tgt = c.sources(k), c.targets(k)
    U = c.X @ c.X_inv  # [m, m], row i = u_i
    D = U - np.eye(m)  # delta_i rows
    W = c.W_sig
    in_V = np.zeros(m, dtype=bool)
    in_V[src] = True
    in_T = np.zeros(m, dtype=bool)
    in_T[tgt] = True
    pi = np.full(m, -1)
    pi[src] = tgt
    pinv = np.full(m, -1)
    pinv[tgt] = src
    Wq = np.zeros((m, d_k))
    Wq[src] = W[tgt]  # w_pi(i) for i in V_k
    Wk = np.zeros((m, d_k))
    Wk[tgt] = W[tgt]  # w_j for j in T_k
    a = D[:, src] @ W[tgt]  # [m, d_k]
    b = D[:, tgt] @ W[tgt]  # [m, d_k]
    out = {
        "Signal": Wq @ Wk.T,
        "N1": Wq @ b.T,
        "N2": a @ Wk.T,
        "N3": a @ b.T,
        "S": head_score_matrix(c, k),
    }
    if c.signatures == "rademacher":
        EN1 = np.zeros((m, m))
        EN1[src] = d_k * D[:, tgt].T  # row i in V_k: d_k delta_j(pi(i)) over j
        EN2 = np.zeros((m, m))
        EN2[:, tgt] = d_k * D[:, src]  # column j in T_k: d_k delta_i(pi^-1(j)) over i
        out["E_N1"] = EN1
        out["E_N2"] = EN2
        out["E_N3"] = d_k * (D[:, src] @ D[:, tgt].T)
    return out


def noise_summary(c: Construction, *, heads=None) -> dict:
    """Statistics of Signal, N1, N2, N3 over all heads and ordered pairs, split as App. B.2 does.

    Groups: "edge" (i in V_k, j = pi_k(i)), "same-block" (i in V_k, j in T_k \\ {pi_k(i)}), "off-block"
    (every other (i, j) at head k). Per term and group: mean, std, max |.|, and max |.| / sqrt(d_k ln m) (the scale
    of the paper's bounds); for N1, N3 also max |E[.|X]| / d_k. Also the identity residual max |S - sum|.
    """
    c = check_construction(c)
    heads = range(c.n_heads) if heads is None else heads
    scale = math.sqrt(c.d_k * math.log(max(c.m, 2)))
    acc: dict = {}
    resid = 0.0
    for k in heads:
        t = noise_terms(c, k)
        resid = max(resid, float(np.max(np.abs(t["S"] - t["Signal"] - t["N1"] - t["N2"] - t["N3"]))))
        src, tgt = c.sources(k), c.targets(k)
        in_V = np.zeros(c.m, bool)
        in_V[src] = True
        in_T = np.zeros(c.m, bool)
        in_T[tgt] = True
        edge = np.zeros((c.m, c.m), bool)
        edge[src, tgt] = True
        same = in_V[:, None] & in_T[None, :] & ~edge
        off = ~(in_V[:, None] & in_T[None, :])
        for gname, g in (("edge", edge), ("same-block", same), ("off-block", off)):
            for term in ("Signal", "N1", "N2", "N3", "E_N1", "E_N2", "E_N3"):
                if term not in t or not g.any():
                    continue
                vals = t[term][g]
                rec = acc.setdefault((term, gname), {"n": 0, "sum": 0.0, "sq": 0.0, "maxabs": 0.0})
                rec["n"] += vals.size
                rec["sum"] += float(vals.sum())
                rec["sq"] += float((vals ** 2).sum())
                rec["maxabs"] = max(rec["maxabs"], float(np.abs(vals).max()))
    out: dict = {"identity_residual": resid, "scale_sqrt_dk_log_m": scale, "d_k": c.d_k}
    for (term, gname), rec in acc.items():
        mean = rec["sum"] / rec["n"]
        var = max(rec["sq"] / rec["n"] - mean * mean, 0.0)
        out.setdefault(gname, {})[term] = {
            "n": rec["n"], "mean": mean, "std": math.sqrt(var), "max_abs": rec["maxabs"],
            "max_abs_over_scale": rec["maxabs"] / scale, "max_abs_over_dk": rec["maxabs"] / c.d_k,
        }
    return out


@dataclass(frozen=True)
class IncoherenceParameters:
    """The smallest (eps_d, rho, gamma) for which X is (mu, eps_d, B; rho, gamma)-restricted self-incoherent.

    Attributes:
        mu, B: the scale and block size.
        eps_d: max_i |u_i(i) - 1|.
        rho: max_i max_{S subset [m] minus i, |S| <= B} sum_{s in S} delta_i(s)^2.
        gamma: max_{i, j} max_{|S| <= B} |sum_{a in S} delta_i(a) delta_j(a)| (i = j included, as the definition
            reads "for every i, j").
        gamma_offdiag: the same with i != j.
        argmax_rho: the row i attaining rho; argmax_gamma: the pair (i, j) attaining gamma_offdiag.
    """

    mu: float
    B: int
    eps_d: float
    rho: float
    gamma: float
    gamma_offdiag: float
    argmax_rho: int
    argmax_gamma: tuple

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _top_sum(vals: np.ndarray, B: int) -> np.ndarray:
    """Row-wise sum of the B largest nonnegative entries of ``vals`` ``[r, n]`` (0 if none)."""
    v = np.maximum(vals, 0.0)
    if B >= v.shape[1]:
        return v.sum(axis=1)
    part = np.partition(v, v.shape[1] - B, axis=1)[:, v.shape[1] - B:]
    return part.sum(axis=1)


def _pair_values(D: np.ndarray, I: np.ndarray, J: np.ndarray, B: int) -> np.ndarray:
    """gamma's value per pair (I[n], J[n]), computed exactly as :func:`_gamma_all_pairs` computes it (the same
    products, the same row-wise partition and sum)."""
    P = D[I] * D[J]  # [n, m]: delta_i(a) delta_j(a)
    return np.maximum(_top_sum(P, B), _top_sum(-P, B))


def _gamma_all_pairs(D: np.ndarray, B: int, chunk: int):
    """gamma, gamma_offdiag and its argmax over all pairs, by the definition (O(m^3) partitions)."""
    m = D.shape[0]
    gamma, g_off, arg = 0.0, 0.0, (0, 0)
    for s in range(0, m, chunk):
        P = D[s:s + chunk, None, :] * D[None, :, :]  # [c, m, m]: delta_i(a) delta_j(a)
        P = P.reshape(-1, m)
        best = np.maximum(_top_sum(P, B), _top_sum(-P, B)).reshape(-1, m)  # [c, m]
        gamma = max(gamma, float(best.max()))
        rows = np.arange(s, min(s + chunk, m))
        best[np.arange(len(rows)), rows] = -np.inf
        idx = np.unravel_index(int(np.argmax(best)), best.shape)
        if best[idx] > g_off:
            g_off, arg = float(best[idx]), (int(rows[idx[0]]), int(idx[1]))
    return gamma, g_off, arg


def _gamma_screened(D: np.ndarray, B: int, chunk: int):
    """The same result as :func:`_gamma_all_pairs` (bit for bit), faster: every pair's value is first computed
    approximately, in float32 and over i <= j only (the value is symmetric in i, j), with torch.topk selecting the B
    largest and smallest products; then only the pairs within a safe margin of the largest approximate value are
    recomputed exactly by :func:`_pair_values`, and the maximum (and, among the pairs attaining it, the first in
    row-major order, as the full scan picks) is among them. The margin bounds the approximation: entries rounded
    to float32 and multiplied are within 3 u32 of the exact products (relative), so each of the two top-B sums moves
    by at most 3 u32 (T+ + T-) <= 6 u32 f; summing B float32 terms in any order adds gamma_B(u32) f; the float64
    value is within 2 gamma_B(u64) f of the exact one. The margin used is ten times their sum. Needs B < m."""
    m = D.shape[0]
    u32 = 2.0 ** -24
    rel = 10.0 * (6 * u32 + 1.01 * B * u32 / (1 - B * u32) + 4 * B * 2.0 ** -53)
    Dt = torch.from_numpy(D.astype(np.float32))
    approx = np.full((m, m), -np.inf)
    for s in range(0, m, chunk):
        e = min(s + chunk, m)
        P = (Dt[s:e, None, :] * Dt[None, s:, :]).reshape(-1, m)  # pairs (i, j), i in [s, e), j >= s
        hi = torch.topk(P, B, dim=1, sorted=False).values.clamp_min(0.0).sum(dim=1)
        lo = torch.topk(P, B, dim=1, largest=False, sorted=False).values.clamp_max(0.0).sum(dim=1).neg()
        approx[s:e, s:] = torch.maximum(hi, lo).reshape(e - s, m - s).double().numpy()
    approx = np.maximum(approx, approx.T)
    top = float(approx.max())
    tol = rel * top + 1e-30 * B * max(1.0, float(np.abs(D).max())) ** 2  # + float32 underflow, absolutely
    off = approx.copy()
    np.fill_diagonal(off, -np.inf)
    top_off = float(off.max())
    cand = (approx >= top - 2 * tol) | (off >= top_off - 2 * tol)
    I, J = np.nonzero(cand)  # row-major order
    vals = np.concatenate([_pair_values(D, I[k:k + chunk * m], J[k:k + chunk * m], B)
                           for k in range(0, len(I), chunk * m)]) if len(I) else np.zeros(0)
    gamma = max(0.0, float(vals.max())) if len(vals) else 0.0
    g_off, arg = 0.0, (0, 0)
    offd = I != J
    if offd.any():
        best = float(vals[offd].max())
        if best > g_off:
            k = int(np.flatnonzero(offd & (vals == best))[0])
            g_off, arg = best, (int(I[k]), int(J[k]))
    return gamma, g_off, arg


def restricted_self_incoherence(X, B: int, *, mu: float | None = None, chunk: int = 64,
                                with_gamma: bool = True, screen: bool | None = None) -> IncoherenceParameters:
    """Exact Definition B.4 parameters of ``X [m, d_model]`` at block size B (see :class:`IncoherenceParameters`).

    The maximum of sum_{a in S} f(a) over |S| <= B is the sum of the B largest positive f(a), so rho is a top-B sum
    of delta_i(s)^2 per row and gamma is, per pair (i, j), the larger of the top-B sums of the positive and of the
    negative parts of delta_i * delta_j. Cost O(m^3) for gamma (chunked over i).

    Args:
        X: embeddings ``[m, d_model]``.
        B: block size >= 1.
        mu: scale of X_inv = X^T / mu (default the mean squared row norm).
        chunk: rows of i processed at once for gamma (memory chunk * m * m floats).
        with_gamma: False skips the O(m^3) gamma (reported as NaN).
        screen: how gamma is found (the result is the same bit for bit): True screens every pair approximately and
            recomputes only the candidates for the maximum exactly; False computes every pair exactly; None (the
            default) screens where it pays (m >= 384, B <= 8).
    """
    X = check_finite_array("X", X, ndim=2)
    m = X.shape[0]
    B = check_int("B", B, min_value=1)
    chunk = check_int("chunk", chunk, min_value=1)
    if mu is None:
        mu = float(np.mean(np.sum(X * X, axis=1)))
    mu = check_real("mu", mu, low=0.0, low_open=True)
    U = X @ X.T / mu
    D = U - np.eye(m)
    eps_d = float(np.max(np.abs(np.diag(U) - 1.0)))
    D2 = D ** 2
    np.fill_diagonal(D2, 0.0)  # S excludes i itself
    rho_rows = _top_sum(D2, B)
    if not with_gamma:
        gamma = g_off = math.nan
        arg = (0, 0)
    elif B < m and float(np.abs(D).max()) < 1e15 and (screen or (screen is None and m >= 384 and B <= 8)):
        gamma, g_off, arg = _gamma_screened(D, B, chunk)
    else:
        gamma, g_off, arg = _gamma_all_pairs(D, B, chunk)
    return IncoherenceParameters(mu=mu, B=B, eps_d=eps_d, rho=float(rho_rows.max()), gamma=gamma,
                                 gamma_offdiag=g_off, argmax_rho=int(np.argmax(rho_rows)), argmax_gamma=arg)


def normalised_margin(c: Construction, *, margins: SeparationMargins | None = None) -> dict:
    """Margins under Theorem 9.2's normalisation (26): divide scores and tau by ||U||_F ||V||_F.

    U = [W_Q^(1) | ... | W_Q^(h)] and V = [W_K^(1) | ...] ([d_model, D_K]); with ||x_v|| <= 1 the rescaled
    parameters satisfy (26) when |tau| / (||U|| ||V||) <= 1. Returns the scale, the normalised margin at tau, the
    normalised best-threshold margin and the largest row norm of X.
    """
    c = check_construction(c)
    mg = separation_margins(c) if margins is None else margins
    scale = float(np.linalg.norm(c.W_Q) * np.linalg.norm(c.W_K))
    return {
        "frobenius_scale": scale,
        "normalised_margin": mg.margin / scale,
        "normalised_best_margin": mg.best_margin / scale,
        "normalised_tau": c.tau / scale,
        "max_row_norm": float(np.max(np.linalg.norm(c.X, axis=1))),
    }
