"""Explicit QK constructions of the paper: Algorithms 1-5 (Sec. 4, Sec. 8, App. B).

Every builder returns a :class:`Construction` whose ``W_Q, W_K`` use the TransformerLens layout of
:mod:`rgr_verify.core.scoring` (float64 ``[n_heads, d_model, d_k]``), so constructed and trained weights are scored
by the same code. The common recipe (Algorithm 1, step 4-9): each head k serves a matching
``M_k = {(s, pi_k(s)) : s in V_k}`` (sources V_k, targets T_k = pi_k(V_k)); with signature rows ``w_j`` of
``W_sig [m, d_k]`` the one-hot-space templates are

    W'_Q,(k)[i] = w_{pi_k(i)} if i in V_k else 0,        W'_K,(k)[j] = w_j if j in T_k else 0,

and the weights are ``W_Q^(k) = X_inv W'_Q,(k)``, ``W_K^(k) = X_inv W'_K,(k)`` with the approximate inverse
``X_inv = X^T / mu`` ([d_model, m]; mu = 1 for Algorithms 1, 2 and 5). Since the templates are row-sparse,
``W_Q^(k) = X_inv[:, V_k] W_sig[pi_k(V_k)]`` is formed directly ([d_model, d_k]) without the m x d_k template.

- Algorithm 3 / Construction I (App. B.1, Sec. 4): one-hot X = I_m, one head, Bernoulli(p) signatures with
  tau = (p + p^2) d_k / 2, or Rademacher signatures with tau = d_k / 2.
- Algorithm 1 (Sec. 4): compressive X, h = ceil(m / B) blocks of B = d_model sources (or any block size B),
  Rademacher signatures, X^T de-embedding, tau = d_k / 2, max over heads.
- Algorithm 2 (Sec. 8): Algorithm 1's weights, per-head softmax with 1/sqrt(d_k) scaling, sum over heads,
  tau = 1/2.
- Algorithm 4 (App. B.3): any X, X_inv = X^T / mu, Bernoulli(p) signatures (p <= 1/20), block size B,
  tau = (p + p^2) d_k / 2.
- Algorithm 5 (App. B.4): any digraph; edges packed into matchings of size <= d_model by the coloring-and-batching
  decomposition of Lemma B.8 (exact Konig edge coloring with Delta colours), Rademacher signatures, X^T,
  tau = d_k / 2. The coloring-and-batching decomposition lives in :mod:`rgr_verify.models.edge_coloring` (its names are
  re-exported here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..basics.checks import check_choice, check_finite_array, check_int, check_real, check_rng
from .edge_coloring import coloring_and_batching
from ..core.graphs import Digraph

__all__ = [
    "Construction",
    "check_construction",
    "default_d_k",
    "SIGNATURES",
    "signature_matrix",
    "contiguous_blocks",
    "permutation_blocks",
    "weights_from_blocks",
    "algorithm1",
    "algorithm2",
    "algorithm3",
    "construction1",
    "algorithm4",
    "algorithm5",
    "build",
    "ALGORITHMS",
]

SIGNATURES = ("rademacher", "bernoulli")
ALGORITHMS = (1, 2, 3, 4, 5)


@dataclass(frozen=True, eq=False)
class Construction:
    """Weights, threshold and bookkeeping of one explicit construction.

    Attributes:
        algorithm: 1-5 (3 with Rademacher signatures is Construction I).
        graph: the digraph recognised.
        X: embeddings ``[m, d_model]`` the weights were built for.
        X_inv: the approximate inverse ``[d_model, m]`` (X^T / mu).
        W_sig: signatures ``[m, d_k]`` (entries in {-1, +1} or {0, 1}).
        W_Q, W_K: float64 ``[n_heads, d_model, d_k]`` (TransformerLens layout).
        tau: the threshold.
        aggregation: "max" (Sec. 3) or "softmax-sum" (Sec. 8).
        blocks: per head, int64 ``[n_k, 2]`` array of the (source, target) pairs it serves (the matching M_k).
        signatures: "rademacher" or "bernoulli".
        p: Bernoulli signature density (None for Rademacher).
        mu: de-embedding scale (X_inv = X^T / mu).
        block_size: the block size B (largest |V_k| allowed).
        metadata: other parameters (C, number of colours, ...).
    """

    algorithm: int
    graph: Digraph
    X: np.ndarray
    X_inv: np.ndarray
    W_sig: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    tau: float
    aggregation: str
    blocks: tuple
    signatures: str
    p: float | None = None
    mu: float = 1.0
    block_size: int = 0
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        for name in ("X", "X_inv", "W_sig", "W_Q", "W_K"):
            # float64 arrays; left writable because torch.as_tensor warns on read-only numpy arrays
            object.__setattr__(self, name, np.asarray(getattr(self, name), dtype=np.float64))
        if self.W_Q.shape != self.W_K.shape or self.W_Q.ndim != 3:
            raise ValueError(f"W_Q and W_K must share a shape [n_heads, d_model, d_k], got {self.W_Q.shape}, {self.W_K.shape}")
        check_choice("aggregation", self.aggregation, ("max", "softmax-sum"))
        if len(self.blocks) != self.W_Q.shape[0]:
            raise ValueError("blocks must hold one matching per head")

    @property
    def m(self) -> int:
        return self.graph.m

    @property
    def n_heads(self) -> int:
        return int(self.W_Q.shape[0])

    @property
    def d_model(self) -> int:
        return int(self.W_Q.shape[1])

    @property
    def d_k(self) -> int:
        return int(self.W_Q.shape[2])

    @property
    def D_K(self) -> int:
        """Total key dimension h * d_k (Sec. 3)."""
        return self.n_heads * self.d_k

    def sources(self, k: int) -> np.ndarray:
        """V_k: the sources served by head k."""
        return self.blocks[check_int("k", k, min_value=0, max_value=self.n_heads - 1)][:, 0]

    def targets(self, k: int) -> np.ndarray:
        """T_k = pi_k(V_k), aligned with :meth:`sources`."""
        return self.blocks[check_int("k", k, min_value=0, max_value=self.n_heads - 1)][:, 1]

    def owner_heads(self) -> np.ndarray:
        """int64 ``[m, m]``: the head whose matching holds (i, j), or -1 for non-edges."""
        own = np.full((self.m, self.m), -1, dtype=np.int64)
        for k, blk in enumerate(self.blocks):
            own[blk[:, 0], blk[:, 1]] = k
        return own

    def templates(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The one-hot-space templates ``(W'_Q,(k), W'_K,(k))``, each ``[m, d_k]`` (Algorithm 1, steps 6-8)."""
        src, tgt = self.sources(k), self.targets(k)
        WQp = np.zeros((self.m, self.d_k))
        WKp = np.zeros((self.m, self.d_k))
        WQp[src] = self.W_sig[tgt]
        WKp[tgt] = self.W_sig[tgt]
        return WQp, WKp

    def summary(self) -> dict:
        """JSON-able description (sizes, tau, block sizes), without the weights."""
        return {
            "algorithm": self.algorithm,
            "m": self.m,
            "n_edges": self.graph.n_edges,
            "d_model": self.d_model,
            "n_heads": self.n_heads,
            "d_k": self.d_k,
            "D_K": self.D_K,
            "tau": self.tau,
            "aggregation": self.aggregation,
            "signatures": self.signatures,
            "p": self.p,
            "mu": self.mu,
            "block_size": self.block_size,
            "largest_block": max((len(b) for b in self.blocks), default=0),
            **self.metadata,
        }


def check_construction(c, name: str = "construction") -> Construction:
    """Return ``c`` after checking it is a :class:`Construction` (the argument check of every measurement on one)."""
    if not isinstance(c, Construction):
        raise ValueError(f"{name} must be a Construction, got {type(c).__name__}")
    return c


def default_d_k(m: int, C: float) -> int:
    """d_k = ceil(C ln m), at least 1 (natural log; see docs/theorems.md for the log-base reading)."""
    m = check_int("m", m, min_value=1)
    C = check_real("C", C, low=0.0, low_open=True)
    return max(1, int(math.ceil(C * math.log(max(m, 2)))))


def signature_matrix(m: int, d_k: int, *, kind: str = "rademacher", p: float | None = None,
                     rng: np.random.Generator) -> np.ndarray:
    """W_sig ``[m, d_k]``: i.i.d. Rademacher (+-1) entries, or i.i.d. Bernoulli(p) entries in {0, 1}."""
    m = check_int("m", m, min_value=1)
    d_k = check_int("d_k", d_k, min_value=1)
    check_choice("kind", kind, SIGNATURES)
    check_rng(rng)
    if kind == "rademacher":
        return rng.choice(np.array([-1.0, 1.0]), size=(m, d_k))
    if p is None:
        raise ValueError("p must be given for Bernoulli signatures")
    p = check_real("p", p, low=0.0, high=1.0, low_open=True, high_open=True)
    return (rng.random((m, d_k)) < p).astype(np.float64)


def contiguous_blocks(n: int, block_size: int) -> list[np.ndarray]:
    """Split ``0..n-1`` into ceil(n / B) consecutive blocks of size B (the last may be smaller)."""
    n = check_int("n", n, min_value=0)
    block_size = check_int("block_size", block_size, min_value=1)
    return [np.arange(s, min(s + block_size, n)) for s in range(0, n, block_size)]


def permutation_blocks(graph: Digraph, block_size: int) -> tuple:
    """Algorithm 1 step 4: V_k = consecutive sources of size B, T_k = pi(V_k); returns matchings ``[n_k, 2]``."""
    perm = _require_permutation(graph)
    return tuple(np.stack([blk, perm[blk]], axis=1).astype(np.int64) for blk in contiguous_blocks(graph.m, block_size))


def _require_permutation(graph: Digraph) -> np.ndarray:
    if not isinstance(graph, Digraph):
        raise ValueError(f"graph must be a Digraph, got {type(graph).__name__}")
    if graph.perm is None:
        outd, ind = graph.out_degrees(), graph.in_degrees()
        if not (np.all(outd == 1) and np.all(ind == 1)):
            raise ValueError("graph must be a permutation graph (every in- and out-degree 1)")
        perm = np.empty(graph.m, dtype=np.int64)
        perm[graph.edges[:, 0]] = graph.edges[:, 1]
        return perm
    return np.asarray(graph.perm, dtype=np.int64)


def weights_from_blocks(X_inv: np.ndarray, W_sig: np.ndarray, blocks) -> tuple[np.ndarray, np.ndarray]:
    """W_Q^(k) = X_inv[:, V_k] W_sig[T_k], W_K^(k) = X_inv[:, T_k] W_sig[T_k]; both ``[h, d_model, d_k]``.

    ``X_inv`` is ``[d_model, m]``, ``W_sig`` is ``[m, d_k]`` and ``blocks`` holds per head an int ``[n_k, 2]`` array
    of (source, target) pairs (Algorithm 1, steps 6-9, without forming the one-hot-space templates).
    """
    d_model, d_k = X_inv.shape[0], W_sig.shape[1]
    h = len(blocks)
    W_Q = np.zeros((h, d_model, d_k))
    W_K = np.zeros((h, d_model, d_k))
    for k, blk in enumerate(blocks):
        src, tgt = blk[:, 0], blk[:, 1]
        W_Q[k] = X_inv[:, src] @ W_sig[tgt]  # [d_model, d_k]
        W_K[k] = X_inv[:, tgt] @ W_sig[tgt]  # [d_model, d_k]
    return W_Q, W_K


def _check_X(X, m: int) -> np.ndarray:
    X = check_finite_array("X", X, ndim=2)
    if X.shape[0] != m:
        raise ValueError(f"X must have m = {m} rows (one per vertex), got {X.shape[0]}")
    return X


def algorithm1(graph: Digraph, X, *, d_k: int, rng: np.random.Generator, block_size: int | None = None) -> Construction:
    """Algorithm 1 (Sec. 4): multi-head construction for permutation graphs under compressive embeddings.

    Args:
        graph: a permutation graph on m items.
        X: embeddings ``[m, d_model]`` (Gaussian unit-norm in Theorem 4.1).
        d_k: per-head width (the paper's C log m).
        rng: numpy Generator for the Rademacher signatures ``W_sig [m, d_k]``.
        block_size: sources per head B (default d_model, giving h = m / d_model heads); h = ceil(m / B).
    Returns:
        a max-over-heads :class:`Construction` with tau = d_k / 2 and X_inv = X^T.
    """
    _require_permutation(graph)
    X = _check_X(X, graph.m)
    d_k = check_int("d_k", d_k, min_value=1)
    B = X.shape[1] if block_size is None else check_int("block_size", block_size, min_value=1)
    check_rng(rng)
    blocks = permutation_blocks(graph, B)
    W_sig = signature_matrix(graph.m, d_k, kind="rademacher", rng=rng)
    X_inv = X.T.copy()
    W_Q, W_K = weights_from_blocks(X_inv, W_sig, blocks)
    return Construction(algorithm=1, graph=graph, X=X, X_inv=X_inv, W_sig=W_sig, W_Q=W_Q, W_K=W_K, tau=d_k / 2,
                        aggregation="max", blocks=blocks, signatures="rademacher", block_size=B)


def algorithm2(graph: Digraph, X, *, d_k: int, rng: np.random.Generator, block_size: int | None = None) -> Construction:
    """Algorithm 2 (Sec. 8): Algorithm 1's weights scored by per-head softmax (logits S / sqrt(d_k)) summed over heads.

    Same arguments as :func:`algorithm1`; the threshold is tau = 1/2 and ``aggregation = "softmax-sum"``
    (A_ij = sum_k p_ij^(k), Eq. (6)). For the same ``rng`` state the weights equal Algorithm 1's.
    """
    c = algorithm1(graph, X, d_k=d_k, rng=rng, block_size=block_size)
    return Construction(algorithm=2, graph=c.graph, X=c.X, X_inv=c.X_inv, W_sig=c.W_sig, W_Q=c.W_Q, W_K=c.W_K,
                        tau=0.5, aggregation="softmax-sum", blocks=c.blocks, signatures="rademacher",
                        block_size=c.block_size)


def algorithm3(graph: Digraph, *, d_k: int, rng: np.random.Generator, p: float = 0.25,
               signatures: str = "bernoulli") -> Construction:
    """Algorithm 3 (App. B.1): one head, one-hot inputs X = I_m.

    W_K = W_sig (rows k_j), W_Q[i] = W_sig[pi(i)] (so q_i = k_pi(i)).
    Bernoulli(p) signatures, p in (0, 1/2): tau = (p + p^2) d_k / 2. Rademacher signatures (Construction I, Sec. 4):
    tau = d_k / 2. Returns W_Q, W_K of shape ``[1, m, d_k]``.
    """
    perm = _require_permutation(graph)
    d_k = check_int("d_k", d_k, min_value=1)
    check_choice("signatures", signatures, SIGNATURES)
    check_rng(rng)
    m = graph.m
    if signatures == "bernoulli":
        p = check_real("p", p, low=0.0, high=0.5, low_open=True, high_open=True)
        tau = (p + p * p) * d_k / 2
    else:
        p, tau = None, d_k / 2
    W_sig = signature_matrix(m, d_k, kind=signatures, p=p, rng=rng)
    X = np.eye(m)
    blocks = (np.stack([np.arange(m), perm], axis=1).astype(np.int64),)
    W_Q, W_K = weights_from_blocks(X.T, W_sig, blocks)
    return Construction(algorithm=3, graph=graph, X=X, X_inv=X.T.copy(), W_sig=W_sig, W_Q=W_Q, W_K=W_K, tau=tau,
                        aggregation="max", blocks=blocks, signatures=signatures, p=p, block_size=m,
                        metadata={"variant": "construction-I" if signatures == "rademacher" else "algorithm-3"})


def construction1(graph: Digraph, *, d_k: int, rng: np.random.Generator) -> Construction:
    """Construction I (Sec. 4): Algorithm 3 with Rademacher signatures and tau = d_k / 2."""
    return algorithm3(graph, d_k=d_k, rng=rng, signatures="rademacher")


def algorithm4(graph: Digraph, X, *, d_k: int, block_size: int, rng: np.random.Generator, p: float = 0.05,
               mu: float | None = None, signatures: str = "bernoulli") -> Construction:
    """Algorithm 4 (App. B.3): general embeddings, X_inv = X^T / mu, Bernoulli(p) signatures, block size B.

    Args:
        graph: permutation graph.
        X: any embedding matrix ``[m, d_model]``.
        d_k: per-head width.
        block_size: B; h = ceil(m / B) consecutive source blocks.
        rng: Generator for W_sig.
        p: signature density in (0, 1/20] (Algorithm 4, step 2).
        mu: de-embedding scale; default the mean squared row norm of X (1 for unit-norm rows, about
            d_model p_B for Bernoulli(p_B) rows, Corollary B.7's mu).
        signatures: "bernoulli" (tau = (p + p^2) d_k / 2) or "rademacher" (tau = d_k / 2, the paper's
            "Signature family" remark).
    """
    _require_permutation(graph)
    X = _check_X(X, graph.m)
    d_k = check_int("d_k", d_k, min_value=1)
    B = check_int("block_size", block_size, min_value=1)
    check_choice("signatures", signatures, SIGNATURES)
    check_rng(rng)
    if mu is None:
        mu = float(np.mean(np.sum(X * X, axis=1)))
    mu = check_real("mu", mu, low=0.0, low_open=True)
    if signatures == "bernoulli":
        p = check_real("p", p, low=0.0, high=0.05, low_open=True)
        tau = (p + p * p) * d_k / 2
    else:
        p, tau = None, d_k / 2
    blocks = permutation_blocks(graph, B)
    W_sig = signature_matrix(graph.m, d_k, kind=signatures, p=p, rng=rng)
    X_inv = X.T / mu
    W_Q, W_K = weights_from_blocks(X_inv, W_sig, blocks)
    return Construction(algorithm=4, graph=graph, X=X, X_inv=X_inv, W_sig=W_sig, W_Q=W_Q, W_K=W_K, tau=tau,
                        aggregation="max", blocks=blocks, signatures=signatures, p=p, mu=mu, block_size=B)


def algorithm5(graph: Digraph, X, *, d_k: int, rng: np.random.Generator, block_size: int | None = None,
               n_colors: int | None = None) -> Construction:
    """Algorithm 5 (App. B.4): general digraphs via Lemma B.8's matchings, Rademacher signatures, X^T, tau = d_k/2.

    Args:
        graph: any digraph on m = X.shape[0] vertices.
        X: embeddings ``[m, d_model]``.
        d_k: per-head width.
        rng: Generator for the shared W_sig.
        block_size: largest matching per head (default d_model, as in Algorithm 5 step 2).
        n_colors: None for Konig's Delta colours (H <= ceil(m'/d_model) + Delta heads); an integer >= Delta for an
            equitable colouring (with n_colors = ceil(m'/d_model) >= Delta this gives Corollary B.10's h_0 heads).
    """
    if not isinstance(graph, Digraph):
        raise ValueError(f"graph must be a Digraph, got {type(graph).__name__}")
    X = _check_X(X, graph.m)
    d_k = check_int("d_k", d_k, min_value=1)
    B = X.shape[1] if block_size is None else check_int("block_size", block_size, min_value=1)
    check_rng(rng)
    if graph.n_edges == 0:
        raise ValueError("graph must have at least one edge")
    blocks = coloring_and_batching(graph, B, n_colors=n_colors)
    W_sig = signature_matrix(graph.m, d_k, kind="rademacher", rng=rng)
    X_inv = X.T.copy()
    W_Q, W_K = weights_from_blocks(X_inv, W_sig, blocks)
    H = math.ceil(graph.n_edges / B) + graph.max_degree
    return Construction(algorithm=5, graph=graph, X=X, X_inv=X_inv, W_sig=W_sig, W_Q=W_Q, W_K=W_K, tau=d_k / 2,
                        aggregation="max", blocks=blocks, signatures="rademacher", block_size=B,
                        metadata={"lemma_b8_H": H, "n_colors": n_colors or graph.max_degree})


def build(algorithm: int, graph: Digraph, X, *, d_k: int, rng: np.random.Generator, block_size: int | None = None,
          p: float | None = None) -> Construction:
    """Dispatch to Algorithm 1-5 (the CLI's ``construct``). X is ignored by Algorithm 3 (one-hot)."""
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    if algorithm == 1:
        return algorithm1(graph, X, d_k=d_k, rng=rng, block_size=block_size)
    if algorithm == 2:
        return algorithm2(graph, X, d_k=d_k, rng=rng, block_size=block_size)
    if algorithm == 3:
        return algorithm3(graph, d_k=d_k, rng=rng, p=0.25 if p is None else p)
    if algorithm == 4:
        X = _check_X(X, graph.m)
        return algorithm4(graph, X, d_k=d_k, rng=rng, block_size=block_size or X.shape[1],
                          p=0.05 if p is None else p)
    return algorithm5(graph, X, d_k=d_k, rng=rng, block_size=block_size)
