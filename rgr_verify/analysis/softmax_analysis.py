"""Measurements for the softmax analysis (Sec. 8) on actual constructions.

Sec. 8 (Algorithm 2, Theorem 8.1): per-head logits L^(k) = S^(k) / sqrt(d_k) over all of V, the owner head k*(i)
of each source, the raw-score separation of Eq. (7), the exact worst case of the aggregated score
A_ij = sum_k softmax_{t in C}(L^(k)_{i t})_j over *all* contexts C of length ell (a certificate, see
:func:`certify_all_contexts`), scores on given contexts, the background mass B_ij of Eq. (12), and the mean
softmax mass over fresh signatures with X and C held fixed (Eq. (14)).

Lemma 8.3: exact psi_1 norms of p - 1/ell when Z ~ Gamma(a) (then p = Z_1 / sum_t Z_t ~ Beta(a, (ell - 1) a)), and a
certified lower bound showing that Z = exp(L) with L ~ N(0, sigma^2) has infinite psi_1 norm.

The Sec. 9 / Sec. 10 measurements (decision function of Lemma 9.3, the two-way softmax score of Eq. (28), the best
margin under normalisation (26), the graph-dependent embedding) live in :mod:`rgr_verify.analysis.lower_bound`; their names
are re-exported here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import integrate, optimize, stats

from ..basics.checks import check_finite_array, check_int, check_real, check_rng
from ..models.constructions import Construction, check_construction
from .measurements import head_score_matrix

__all__ = [
    "softmax_calibration_bound",
    "head_logits",
    "source_owner_heads",
    "raw_separation",
    "RawSeparation",
    "all_head_logits",
    "scores_from_logits",
    "source_row_scores",
    "owner_mass_lower",
    "ContextCertificate",
    "certify_all_contexts",
    "background_deviation",
    "rows_on_full_context",
    "c0_log_m_sizes",
    "signature_mean_masses",
    "gamma_softmax_psi1_norm",
    "lognormal_psi1_lower_bound",
]

def softmax_calibration_bound(a: float, b: float, ell: int) -> float:
    """Lemma 8.2's lower bound 1 / (1 + (ell - 1) e^{-(a - b)}) on the softmax mass of an item with z >= a
    against ell - 1 items with z <= b."""
    a = check_real("a", a)
    b = check_real("b", b)
    ell = check_int("ell", ell, min_value=1)
    return 1.0 / (1.0 + (ell - 1) * math.exp(-(a - b))) if a - b > -700 else 0.0


def head_logits(c: Construction, k: int) -> np.ndarray:
    """L^(k) ``[m, m]`` = (X W_Q^(k)) (X W_K^(k))^T / sqrt(d_k) (Eq. (5)), over every ordered pair of V."""
    return head_score_matrix(c, k) / math.sqrt(c.d_k)


def source_owner_heads(c: Construction) -> np.ndarray:
    """int64 ``[m]``: k*(i), the head whose source block V_k holds i (Theorem 8.1, Step 1)."""
    c = check_construction(c)
    own = np.full(c.m, -1, dtype=np.int64)
    for k, blk in enumerate(c.blocks):
        own[blk[:, 0]] = k
    if np.any(own < 0):
        raise ValueError("construction must assign every source to a head")
    return own


def _targets(c: Construction) -> np.ndarray:
    tgt = np.full(c.m, -1, dtype=np.int64)
    for blk in c.blocks:
        tgt[blk[:, 0]] = blk[:, 1]
    return tgt


@dataclass(frozen=True)
class RawSeparation:
    """Eq. (7) at the owner head, over all of V (self-pairs included).

    Attributes:
        min_true: min_i S^(k*)_{i, pi(i)} / d_k (Eq. (7) needs >= 3/4).
        max_other: max_i max_{j != pi(i)} S^(k*)_{ij} / d_k (Eq. (7) needs <= 1/4).
        fraction_sources: fraction of sources i for which both halves of (7) hold.
        holds: whether (7) holds for every source.
        worst_source: the source with the smallest slack.
    """

    min_true: float
    max_other: float
    fraction_sources: float
    holds: bool
    worst_source: int


def raw_separation(c: Construction) -> RawSeparation:
    """Measure Eq. (7): S^(k*)_{i,pi(i)} >= 3/4 d_k and S^(k*)_{ij} <= 1/4 d_k for j != pi(i)."""
    c = check_construction(c)
    true = np.empty(c.m)
    other = np.empty(c.m)
    for k, blk in enumerate(c.blocks):
        src = blk[:, 0]
        S = (c.X[src] @ c.W_Q[k]) @ (c.X @ c.W_K[k]).T / c.d_k  # [|V_k|, m], in units of d_k
        rows = np.arange(len(src))
        true[src] = S[rows, blk[:, 1]]
        S[rows, blk[:, 1]] = -np.inf
        other[src] = S.max(axis=1)
    ok = (true >= 0.75) & (other <= 0.25)
    slack = np.minimum(true - 0.75, 0.25 - other)
    return RawSeparation(min_true=float(true.min()), max_other=float(other.max()),
                         fraction_sources=float(ok.mean()), holds=bool(ok.all()), worst_source=int(np.argmin(slack)))


def all_head_logits(c: Construction) -> np.ndarray:
    """L ``[h, m, m]``: every head's logits over every ordered pair of V (Eq. (5)). Memory 8 h m^2 bytes."""
    c = check_construction(c)
    return np.stack([head_logits(c, k) for k in range(c.n_heads)])


def scores_from_logits(L: np.ndarray, contexts, *, exclude_heads=None) -> np.ndarray:
    """A[n, p, q] = sum_k softmax_{q in C_n}(L[k, c_p, c_q]) (Eq. (6)) from precomputed logits ``[h, m, m]``.

    Args:
        L: per-head logits over V, ``[h, m, m]``.
        contexts: integer ``[n, ell]``.
        exclude_heads: optional int ``[m]``: for query c_p, head exclude_heads[c_p] is left out of the sum (used for
            the background mass B_ij of Eq. (12) with the owner heads).
    Returns:
        ``[n, ell, ell]``.
    """
    L = check_finite_array("L", L, ndim=3)
    h, m, _ = L.shape
    ctx = np.asarray(contexts)
    if ctx.ndim != 2 or not np.issubdtype(ctx.dtype, np.integer):
        raise ValueError(f"contexts must be an integer array [n, ell], got shape {ctx.shape}")
    if ctx.size and (ctx.min() < 0 or ctx.max() >= m):
        raise ValueError(f"contexts must hold vertex ids in [0, {m - 1}]")
    out = np.zeros(ctx.shape + (ctx.shape[1],))
    for k in range(h):
        Lc = L[k][ctx[:, :, None], ctx[:, None, :]]  # [n, ell, ell]
        Lc = Lc - Lc.max(axis=2, keepdims=True)
        P = np.exp(Lc)
        P /= P.sum(axis=2, keepdims=True)
        if exclude_heads is not None:
            P = np.where((np.asarray(exclude_heads)[ctx] == k)[:, :, None], 0.0, P)
        out += P
    return out


def source_row_scores(L: np.ndarray, contexts) -> np.ndarray:
    """The first item's row of :func:`scores_from_logits`: A[n, q] for the source c_0 of each context, ``[n, ell]``."""
    L = np.asarray(L)
    ctx = np.asarray(contexts)
    if L.ndim != 3 or ctx.ndim != 2 or not np.issubdtype(ctx.dtype, np.integer):
        raise ValueError("L must be [h, m, m] and contexts an integer array [n, ell]")
    out = np.zeros(ctx.shape)
    for k in range(L.shape[0]):
        Lc = L[k][ctx[:, :1], ctx]  # [n, ell]
        P = np.exp(Lc - Lc.max(axis=1, keepdims=True))
        out += P / P.sum(axis=1, keepdims=True)
    return out


def owner_mass_lower(c: Construction, ell: int, *, logits: np.ndarray | None = None) -> np.ndarray:
    """Per source i, min over contexts C of length ell holding i and pi(i) of the owner-head mass p^(k*)_{i,pi(i)}.

    The minimum fills the other ell - |{i, pi(i)}| slots with the largest owner-head logits:
    e^{L_pi} / (e^{L_pi} + [pi(i) != i] e^{L_i} + sum of the top others). Returns ``[m]`` (Eqs. (9)-(10)).
    """
    c = check_construction(c)
    ell = check_int("ell", ell, min_value=2, max_value=c.m)
    L_all = all_head_logits(c) if logits is None else check_finite_array("logits", logits, ndim=3)
    own = source_owner_heads(c)
    tgt = _targets(c)
    out = np.empty(c.m)
    for k in range(c.n_heads):
        src = np.flatnonzero(own == k)
        if src.size == 0:
            continue
        rows = L_all[k][src]  # [n, m]
        E = np.exp(rows - rows.max(axis=1, keepdims=True))
        r = np.arange(src.size)
        e_t, e_i = E[r, tgt[src]], E[r, src]
        fixed = tgt[src] == src
        Eo = E.copy()
        Eo[r, src] = -np.inf
        Eo[r, tgt[src]] = -np.inf
        n_fill = np.where(fixed, ell - 1, ell - 2)  # [n]
        top = -np.sort(-Eo, axis=1)  # descending, the two excluded entries last
        cum = np.concatenate([np.zeros((src.size, 1)), np.cumsum(np.where(np.isfinite(top), top, 0.0), axis=1)], axis=1)
        fill = cum[r, n_fill]
        out[src] = e_t / (e_t + np.where(fixed, 0.0, e_i) + fill)
    return out


@dataclass(frozen=True)
class ContextCertificate:
    """The worst case of Theorem 8.1's conclusion over every context of length ell (each source in its context).

    Per source i the certificate bounds min over contexts C holding i and pi(i) of A_{i,pi(i)}(C) from below (the
    owner-head mass alone, minimised exactly) and max over contexts C holding i and over j in C, j != pi(i), of
    A_ij(C) from above (each head maximised separately); witness contexts realising the per-head extremes are scored
    exactly, which bounds the same extremes from the other side.

    Attributes:
        ell: context length.
        certified: true_lower > 1/2 > wrong_upper for every source (the conclusion holds on *every* context).
        refuted: some witness context has A_{i,pi(i)} <= 1/2 or A_ij >= 1/2 with j != pi(i).
        min_true_lower, max_wrong_upper: the extreme bounds over sources.
        min_true_witness, max_wrong_witness: the extreme exact scores on witness contexts.
        witness: a failing (source, j, context, score, target_in_context) if refuted, else None.
        fraction_sources_certified: fraction of sources whose both bounds are on the right side of 1/2.
    """

    ell: int
    certified: bool
    refuted: bool
    min_true_lower: float
    max_wrong_upper: float
    min_true_witness: float
    max_wrong_witness: float
    witness: dict | None
    fraction_sources_certified: float


def _sum_smallest_excluding(v_sorted_cum: np.ndarray, rank: np.ndarray, v: np.ndarray, n: int) -> np.ndarray:
    """Sum of the n smallest entries of a row with one entry (of sorted rank ``rank``, value ``v``) removed."""
    base = v_sorted_cum[:, n][:, None]  # [m, 1] sum of the n smallest
    alt = v_sorted_cum[:, min(n + 1, v_sorted_cum.shape[1] - 1)][:, None] - v  # [m, m]
    return np.where(rank < n, alt, base)


def certify_all_contexts(c: Construction, ell: int, *, logits: np.ndarray | None = None) -> ContextCertificate:
    """Exact bounds on Theorem 8.1's conclusion A_{i,pi(i)} > 1/2 > A_ij (j != pi(i)) over *all* contexts of length ell.

    A context C holds the source i. Softmax mass of j in head k over C is e^{L_ij} / sum_{t in C} e^{L_it}, so
    - min_C A_{i,pi(i)} >= min_C p^(k*)_{i,pi(i)}, attained when C fills its other ell - |{i, pi(i)}| slots with the
      largest owner-head logits (the witness context);
    - max_C A_ij <= sum_k max_C p^(k)_ij, and max_C p^(k)_ij fills the other slots with the smallest head-k logits.
    The witness contexts (the owner head's worst context for the worst j, and each head's worst context) are scored
    exactly, so a score on the wrong side of 1/2 there is a counterexample context.
    Cost O(h m^2 log m) time and O(h m^2) memory (the logits of every head over V).
    """
    c = check_construction(c)
    m = c.m
    ell = check_int("ell", ell, min_value=2, max_value=m)
    tgt = _targets(c)
    own = source_owner_heads(c)
    true_lower = np.empty(m)
    true_ctx = np.empty((m, ell), dtype=np.int64)
    wrong_upper = np.zeros((m, m))
    worst_ctx_by_head = np.empty((c.n_heads, m, ell), dtype=np.int64)  # head k's worst context for each source's argmax
    rows = np.arange(m)
    n_other = ell - 2
    L_all = all_head_logits(c) if logits is None else check_finite_array("logits", logits, ndim=3)
    for k in range(c.n_heads):
        L = L_all[k]  # [m, m]
        E = np.exp(L - L.max(axis=1, keepdims=True))  # row-scaled masses; ratios within a row are exact
        # --- upper bound on max_C p^(k)_ij over contexts holding i and j: smallest other logits fill C.
        Ei = E.copy()
        Ei[rows, rows] = np.inf  # exclude the source itself from the "others"
        order = np.argsort(Ei, axis=1, kind="stable")  # ascending, source last
        rank = np.empty_like(order)
        rank[rows[:, None], order] = np.arange(m)[None, :]
        sorted_vals = np.take_along_axis(Ei, order, axis=1)[:, : m - 1]  # [m, m-1] without the source
        cum = np.concatenate([np.zeros((m, 1)), np.cumsum(sorted_vals, axis=1)], axis=1)  # [m, m]
        self_e = E[rows, rows]
        # j != i: denominator e_j + e_i + (ell - 2 smallest others excluding j)
        others = _sum_smallest_excluding(cum, rank, E, n_other) if n_other > 0 else np.zeros((m, m))
        denom = E + self_e[:, None] + others
        P_up = E / denom
        # j == i: denominator e_i + (ell - 1 smallest others)
        P_up[rows, rows] = self_e / (self_e + cum[:, ell - 1])
        wrong_upper += P_up
        # head k's worst context for j = argmax_j P_up (excluding the true target)
        P_mask = P_up.copy()
        P_mask[rows, tgt] = -np.inf
        jstar = P_mask.argmax(axis=1)
        for i in range(m):
            j = int(jstar[i])
            fill = [int(t) for t in order[i, : n_other + 2] if t != j and t != i][:n_other] if j != i else \
                [int(t) for t in order[i, : ell] if t != i][: ell - 1]
            worst_ctx_by_head[k, i] = [i, j] + fill if j != i else [i] + fill
        # --- lower bound on min_C p^(k*)_{i,pi(i)} for the sources owned by head k: largest others fill C.
        src = np.flatnonzero(own == k)
        for i in src:
            p = int(tgt[i])
            row = E[i].copy()
            keep = np.ones(m, dtype=bool)
            keep[[i, p]] = False
            n_fill = ell - (1 if p == i else 2)
            cand = np.flatnonzero(keep)
            top = cand[np.argsort(-row[cand], kind="stable")[:n_fill]]
            denom = row[p] + (row[i] if p != i else 0.0) + row[top].sum()
            true_lower[i] = row[p] / denom
            true_ctx[i] = ([i, p] if p != i else [i]) + top.tolist()
    wrong_upper[rows, tgt] = -np.inf
    max_wrong_upper_row = wrong_upper.max(axis=1)
    # exact scores on witness contexts
    true_scores = source_row_scores(L_all, true_ctx)  # [m, ell]
    pos_p = np.array([int(np.flatnonzero(true_ctx[i] == tgt[i])[0]) for i in range(m)])
    true_witness = true_scores[rows, pos_p]
    wrong_witness = np.full(m, -np.inf)
    witness = None
    for k in range(c.n_heads):
        row0 = source_row_scores(L_all, worst_ctx_by_head[k])  # [m, ell]
        is_tgt = worst_ctx_by_head[k] == tgt[:, None]
        row0[is_tgt] = -np.inf
        best = row0.max(axis=1)
        arg = row0.argmax(axis=1)
        improve = best > wrong_witness
        wrong_witness = np.where(improve, best, wrong_witness)
        for i in np.flatnonzero(improve & (best >= 0.5)):
            if witness is None or best[i] > witness["score"]:
                ctx_i = worst_ctx_by_head[k, i]
                witness = {"kind": "wrong item >= 1/2", "source": int(i), "j": int(ctx_i[arg[i]]),
                           "target": int(tgt[i]), "target_in_context": bool(np.any(is_tgt[i])),
                           "context": ctx_i.tolist(), "score": float(best[i])}
    bad_true = np.flatnonzero(true_witness <= 0.5)
    if witness is None and bad_true.size:
        i = int(bad_true[np.argmin(true_witness[bad_true])])
        witness = {"kind": "true target <= 1/2", "source": i, "j": int(tgt[i]), "target": int(tgt[i]),
                   "target_in_context": True, "context": true_ctx[i].tolist(), "score": float(true_witness[i])}
    ok_src = (true_lower > 0.5) & (max_wrong_upper_row < 0.5)
    return ContextCertificate(
        ell=ell, certified=bool(ok_src.all()), refuted=witness is not None,
        min_true_lower=float(true_lower.min()), max_wrong_upper=float(max_wrong_upper_row.max()),
        min_true_witness=float(true_witness.min()), max_wrong_witness=float(wrong_witness.max()),
        witness=witness, fraction_sources_certified=float(ok_src.mean()),
    )


def background_deviation(c: Construction, contexts, *, logits: np.ndarray | None = None) -> dict:
    """Step 3 of Theorem 8.1: B_ij = sum_{k != k*(i)} p^(k)_ij (Eq. (12)) on the given contexts ``[n, ell]``.

    Returns the largest |B_ij - (h - 1)/ell| over all sources and items of all contexts, and the constant C_2 that
    Eq. (16) would need: max |B - (h - 1)/ell| * ell / (sqrt(h ln m) + ln m).
    """
    c = check_construction(c)
    L = all_head_logits(c) if logits is None else logits
    B = scores_from_logits(L, contexts, exclude_heads=source_owner_heads(c))
    n, ell = np.asarray(contexts).shape
    h = c.n_heads
    dev = np.abs(B - (h - 1) / ell)
    lm = math.log(c.m)
    return {"max_deviation": float(dev.max()), "mean_deviation": float(dev.mean()),
            "required_C2": float(dev.max() * ell / (math.sqrt(h * lm) + lm)), "ell": ell, "n_contexts": n}


def rows_on_full_context(c: Construction, sources) -> dict:
    """Theorem 8.1's scores on the context C = V (ell = m) for the given sources only, one head at a time.

    Returns ``A`` ``[n, m]`` (A_ij = sum_k p^(k)_ij, Eq. (6)), ``B`` ``[n, m]`` (the background of Eq. (12): the
    owner head k*(i) left out) and ``targets`` ``[n]`` (pi(i)). Memory O(n m) per head, so large m stays
    affordable when only a sample of sources is needed (a failing source is a witness; a sample gives a lower
    bound on the number of failing sources and on the largest deviation).
    """
    c = check_construction(c)
    src = np.asarray(sources)
    if src.ndim != 1 or not np.issubdtype(src.dtype, np.integer) or src.size == 0:
        raise ValueError("sources must be a non-empty 1-d integer array")
    if src.min() < 0 or src.max() >= c.m:
        raise ValueError(f"sources must be vertex ids in [0, {c.m - 1}]")
    own = source_owner_heads(c)[src]
    A = np.zeros((src.size, c.m))
    B = np.zeros((src.size, c.m))
    for k in range(c.n_heads):
        L = (c.X[src] @ c.W_Q[k]) @ (c.X @ c.W_K[k]).T / math.sqrt(c.d_k)
        P = np.exp(L - L.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        A += P
        B += np.where((own == k)[:, None], 0.0, P)
    return {"A": A, "B": B, "targets": _targets(c)[src]}


def c0_log_m_sizes(c0: float, heads) -> list:
    """Sizes (m, d_model) on the curve d_model = c0 ln m with h = m / d_model an integer: for each h of ``heads``,
    the smallest d_model >= c0 ln(h d_model) (a fixed point, reached from below), m = h d_model."""
    c0 = check_real("c0", c0, low=0.0, low_open=True)
    out = []
    for h in heads:
        h = check_int("h", h, min_value=1)
        d = max(2, math.ceil(c0))
        while d < c0 * math.log(h * d):
            d = math.ceil(c0 * math.log(h * d))
        out.append((h * d, d))
    return out


def signature_mean_masses(c: Construction, head: int, source: int, context, *, n_draws: int,
                          rng: np.random.Generator, batch: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation of p^(k)_{source, t} (t in context) over fresh Rademacher signatures, X and pi fixed.

    Only the signature rows w_t, t in T_k, enter head k, so each draw redraws them: q = u_i[V_k] W_sig[T_k],
    key_t = u_t[T_k] W_sig[T_k] with u = rows of X X^T (App. B.2). Returns two ``[ell]`` arrays.
    """
    c = check_construction(c)
    head = check_int("head", head, min_value=0, max_value=c.n_heads - 1)
    source = check_int("source", source, min_value=0, max_value=c.m - 1)
    n_draws = check_int("n_draws", n_draws, min_value=1)
    batch = check_int("batch", batch, min_value=1)
    check_rng(rng)
    ctx = np.asarray(context, dtype=np.int64)
    if ctx.ndim != 1 or ctx.size < 1 or ctx.min() < 0 or ctx.max() >= c.m:
        raise ValueError(f"context must be a 1-d array of vertex ids in [0, {c.m - 1}]")
    blk = c.blocks[head]
    src, tgt = blk[:, 0], blk[:, 1]
    G = c.X @ c.X.T  # [m, m]; u_i = G[i]
    a = G[source, src]  # [B] coefficients of w_{pi(s)} = w_{tgt}
    Bm = G[np.ix_(ctx, tgt)]  # [ell, B]
    total = np.zeros(ctx.size)
    total_sq = np.zeros(ctx.size)
    done = 0
    while done < n_draws:
        nb = min(batch, n_draws - done)
        W = rng.choice(np.array([-1.0, 1.0]), size=(nb, len(tgt), c.d_k))  # [nb, B, d_k]
        q = np.einsum("b,nbd->nd", a, W)  # [nb, d_k]
        K = np.einsum("lb,nbd->nld", Bm, W)  # [nb, ell, d_k]
        L = np.einsum("nd,nld->nl", q, K) / math.sqrt(c.d_k)
        L -= L.max(axis=1, keepdims=True)
        P = np.exp(L)
        P /= P.sum(axis=1, keepdims=True)
        total += P.sum(axis=0)
        total_sq += (P**2).sum(axis=0)
        done += nb
    mean = total / n_draws
    std = np.sqrt(np.maximum(total_sq / n_draws - mean**2, 0.0))
    return mean, std


def _psi1_from_expectation(expect, *, start: float = 1.0, hi: float = 1e12) -> float:
    """inf{t > 0 : expect(t) <= 2} for a decreasing ``expect`` (the psi_1 Orlicz norm), by bracketing and Brent."""
    hi_t = start
    while expect(hi_t) > 2:
        hi_t *= 2
        if hi_t > hi:
            return math.inf
    lo_t = hi_t / 2
    while expect(lo_t) <= 2:
        hi_t, lo_t = lo_t, lo_t / 2
    return float(optimize.brentq(lambda t: expect(t) - 2.0, lo_t, hi_t, xtol=1e-14, rtol=1e-10))


def gamma_softmax_psi1_norm(ell: int, shape: float = 1.0) -> float:
    """Exact ||p - 1/ell||_psi1 for p = Z_1 / sum_t Z_t with Z_t i.i.d. Gamma(shape) (Lemma 8.3's setting).

    Then p ~ Beta(shape, (ell - 1) shape), so E exp(|p - 1/ell| / t) is a one-dimensional integral (adaptive
    quadrature, split at 1/ell); the norm is the t solving E exp(|p - 1/ell| / t) = 2.
    """
    ell = check_int("ell", ell, min_value=2)
    shape = check_real("shape", shape, low=0.0, low_open=True)
    dist = stats.beta(shape, (ell - 1) * shape)
    mu = 1.0 / ell

    def expect(t):
        def f(x):  # exp(|x - mu| / t) * pdf(x), in log space; capped so quad never overflows (then E > 2 anyway)
            return math.exp(min(700.0, abs(x - mu) / t + float(dist.logpdf(x)))) if 0.0 < x < 1.0 else 0.0
        a, _ = integrate.quad(f, 0.0, mu, limit=200)
        b, _ = integrate.quad(f, mu, 1.0, limit=400, points=[min(0.999, mu * 10)])
        return a + b

    return _psi1_from_expectation(expect, start=1.0 / ell)


def lognormal_psi1_lower_bound(sigma: float, t: float) -> dict:
    """Certified lower bound on E exp(e^L / t) for L ~ N(0, sigma^2): max over a of P(L >= a) exp(e^a / t).

    Returns the best a found and log of the bound (in log space, so no overflow). A value above log 2 for every t
    shows ||e^L||_psi1 > t, i.e. e^L is not sub-exponential with that scale.
    """
    sigma = check_real("sigma", sigma, low=0.0, low_open=True)
    t = check_real("t", t, low=0.0, low_open=True)
    # maximise log P(L >= a) + e^a / t over a on a fine grid (any a gives a valid lower bound)
    grid = np.linspace(0.0, 50.0 * sigma + math.log(t) + 50.0, 20001)
    vals = stats.norm.logsf(grid / sigma) + np.exp(np.minimum(grid, 700.0)) / t
    over = np.flatnonzero(vals > math.log(2))
    idx = int(over[0]) if over.size else int(np.argmax(vals))  # the smallest a that certifies, if any
    return {"a": float(grid[idx]), "log_lower_bound": float(vals[idx]), "exceeds_log2": bool(vals[idx] > math.log(2))}
