"""Relational graphs of RGR (Sec. 1, App. A.1, App. A.3).

A :class:`Digraph` holds the ``m`` items and the ``m'`` directed edges ``(source, target)`` that an attention
layer must recover. Builders: permutation graphs (edges ``(i, pi(i))``), directed r-regular graphs sampled as a
union of r random perfect matchings without self-loops or multi-edges (App. A.3), and arbitrary digraphs from an
edge list. The coloring-and-batching decomposition of Lemma B.8 lives in :mod:`rgr_verify.models.edge_coloring`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..basics.checks import check_int, check_rng

__all__ = [
    "Digraph",
    "permutation_graph",
    "random_permutation_graph",
    "random_derangement",
    "transposition",
    "random_regular_graph",
    "digraph_from_edges",
]


@dataclass(frozen=True, eq=False)
class Digraph:
    """A directed graph ``G = (V, E)`` on ``V = {0, ..., m-1}``.

    Attributes:
        m: number of items |V|.
        edges: int64 array ``[m', 2]`` of distinct ``(source, target)`` pairs, sorted lexicographically.
        kind: "permutation", "regular" or "digraph" (what built it; informational).
        perm: for permutation graphs the array ``pi`` with ``pi[i]`` the unique target of ``i``; else None.
        r: the common in/out-degree of a regular graph; else None.
    """

    m: int
    edges: np.ndarray
    kind: str = "digraph"
    perm: np.ndarray | None = None
    r: int | None = None
    _adjacency: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        m = check_int("m", self.m, min_value=1)
        edges = np.asarray(self.edges)
        if edges.size == 0:
            edges = np.zeros((0, 2), dtype=np.int64)
        if edges.ndim != 2 or edges.shape[1] != 2:
            raise ValueError(f"edges must have shape [n_edges, 2], got {edges.shape}")
        if not np.issubdtype(edges.dtype, np.integer):
            if not np.all(np.equal(np.mod(edges, 1), 0)):
                raise ValueError("edges must hold integer vertex ids")
        edges = edges.astype(np.int64)
        if edges.size and (edges.min() < 0 or edges.max() >= m):
            raise ValueError(f"edges must hold vertex ids in [0, {m - 1}], got ids in [{edges.min()}, {edges.max()}]")
        uniq = np.unique(edges, axis=0)
        if len(uniq) != len(edges):
            raise ValueError("edges must not contain repeated (source, target) pairs (multi-edges)")
        uniq.setflags(write=False)
        adjacency = np.zeros((m, m), dtype=bool)
        adjacency[uniq[:, 0], uniq[:, 1]] = True
        adjacency.setflags(write=False)
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "edges", uniq)
        object.__setattr__(self, "_adjacency", adjacency)

    @property
    def n_edges(self) -> int:
        """m' = |E|."""
        return int(self.edges.shape[0])

    @property
    def adjacency(self) -> np.ndarray:
        """Read-only boolean matrix ``[m, m]`` with ``A[i, j]`` iff ``(i, j) in E``."""
        return self._adjacency

    def out_degrees(self) -> np.ndarray:
        """int ``[m]``: the out-degree |N^+(v)| of every vertex."""
        return self._adjacency.sum(axis=1)

    def in_degrees(self) -> np.ndarray:
        """int ``[m]``: the in-degree of every vertex."""
        return self._adjacency.sum(axis=0)

    @property
    def max_degree(self) -> int:
        """Delta: the largest in- or out-degree (Sec. 4, Construction IV)."""
        if self.n_edges == 0:
            return 0
        return int(max(self.out_degrees().max(), self.in_degrees().max()))

    def __repr__(self) -> str:
        extra = f", r={self.r}" if self.r is not None else ""
        return f"Digraph(kind={self.kind!r}, m={self.m}, n_edges={self.n_edges}{extra})"


def permutation_graph(perm) -> Digraph:
    """The permutation graph with edges ``(i, perm[i])``; ``perm`` must be a permutation of ``0..m-1``."""
    arr = np.asarray(perm)
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(f"perm must be a non-empty 1-d array, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"perm must hold integers, got dtype {arr.dtype}")
    m = arr.size
    if not np.array_equal(np.sort(arr), np.arange(m)):
        raise ValueError(f"perm must be a permutation of 0..{m - 1} (each value exactly once)")
    perm_ro = arr.astype(np.int64).copy()
    perm_ro.setflags(write=False)
    edges = np.stack([np.arange(m), perm_ro], axis=1)
    return Digraph(m=m, edges=edges, kind="permutation", perm=perm_ro, r=1)


def random_permutation_graph(m: int, *, rng: np.random.Generator) -> Digraph:
    """A uniformly random permutation graph on m items (fixed points allowed, as for a uniform pi)."""
    m = check_int("m", m, min_value=1)
    check_rng(rng)
    return permutation_graph(rng.permutation(m))


def random_derangement(m: int, *, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random permutation of 0..m-1 without fixed points (rejection sampling: about e tries); m >= 2."""
    m = check_int("m", m, min_value=2)
    check_rng(rng)
    while True:
        perm = rng.permutation(m)
        if not np.any(perm == np.arange(m)):
            return perm


def transposition(m: int) -> np.ndarray:
    """The permutation (0 1) of 0..m-1: items 0 and 1 swap, every other item is a fixed point; m >= 2."""
    m = check_int("m", m, min_value=2)
    perm = np.arange(m)
    perm[[0, 1]] = [1, 0]
    return perm


def random_regular_graph(m: int, r: int, *, rng: np.random.Generator, greedy_tries: int = 20) -> Digraph:
    """A directed r-regular graph as the union of r random perfect matchings (App. A.3).

    Each layer is a permutation chosen by randomized greedy assignment that avoids self-loops and edges of
    earlier layers; if greedy gets stuck ``greedy_tries`` times, the layer is completed by a random-cost perfect
    matching on the allowed pairs (always possible: after k layers the allowed bipartite graph is
    (m-1-k)-regular, so Hall's condition holds). All in- and out-degrees are checked to equal r.

    Args:
        m: number of items, >= 2.
        r: degree, in [1, m-1].
        rng: numpy Generator.
    """
    m = check_int("m", m, min_value=2)
    r = check_int("r", r, min_value=1, max_value=m - 1)
    check_int("greedy_tries", greedy_tries, min_value=1)
    check_rng(rng)
    forbidden = np.eye(m, dtype=bool)
    layers = []
    for _ in range(r):
        layer = None
        for _ in range(greedy_tries):
            layer = _greedy_layer(forbidden, rng)
            if layer is not None:
                break
        if layer is None:
            cost = rng.random((m, m))
            cost[forbidden] = np.inf
            cost = np.where(np.isinf(cost), 1e9, cost)
            rows, cols = linear_sum_assignment(cost)
            layer = cols[np.argsort(rows)]
        forbidden[np.arange(m), layer] = True
        layers.append(layer)
    edges = np.concatenate([np.stack([np.arange(m), layer], axis=1) for layer in layers])
    graph = Digraph(m=m, edges=edges, kind="regular", r=r)
    if not (np.all(graph.in_degrees() == r) and np.all(graph.out_degrees() == r)):
        raise RuntimeError("regular graph sampler produced unequal degrees")  # pragma: no cover
    if np.any(np.diag(graph.adjacency)):
        raise RuntimeError("regular graph sampler produced a self-loop")  # pragma: no cover
    return graph


def digraph_from_edges(m: int, edges) -> Digraph:
    """An arbitrary digraph on m items from an iterable of ``(source, target)`` pairs."""
    m = check_int("m", m, min_value=1)
    arr = np.asarray(list(edges) if not isinstance(edges, np.ndarray) else edges)
    return Digraph(m=m, edges=arr.reshape(-1, 2) if arr.size else arr, kind="digraph")


def _greedy_layer(forbidden: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    m = forbidden.shape[0]
    used = np.zeros(m, dtype=bool)
    layer = np.empty(m, dtype=np.int64)
    for i in rng.permutation(m):
        allowed = np.flatnonzero(~forbidden[i] & ~used)
        if allowed.size == 0:
            return None
        j = allowed[rng.integers(allowed.size)]
        layer[i] = j
        used[j] = True
    return layer
