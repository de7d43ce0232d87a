"""Lemma B.8 (App. B.4): proper edge colourings of a digraph and the coloring-and-batching decomposition.

A digraph's edges are coloured as edges of its bipartite incidence graph (a left copy of each vertex for sources,
a right copy for targets), so each colour class is a matching: no two edges share a source or a target.
:func:`coloring_and_batching` splits the classes into matchings of at most ``d_model`` edges, one per head of
Algorithm 5 (:mod:`rgr_verify.models.constructions`).
"""

from __future__ import annotations

import numpy as np

from ..basics.checks import check_int
from ..core.graphs import Digraph

__all__ = [
    "is_proper_edge_coloring",
    "konig_edge_coloring",
    "equitable_edge_coloring",
    "coloring_and_batching",
]


def is_proper_edge_coloring(edges: np.ndarray, colors: np.ndarray) -> bool:
    """True iff no two edges sharing a source, or sharing a target, have the same colour."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    colors = np.asarray(colors, dtype=np.int64).reshape(-1)
    if len(colors) != len(edges):
        return False
    for side in (0, 1):
        keys = np.stack([edges[:, side], colors], axis=1)
        if len(np.unique(keys, axis=0)) != len(keys):
            return False
    return True


def konig_edge_coloring(graph: Digraph) -> np.ndarray:
    """Exact proper edge colouring of the bipartite incidence graph with Delta colours (Konig's theorem).

    The incidence graph has left copy of each vertex (sources) and right copy (targets); edge (i, j) joins
    left i to right j, so its maximum degree is Delta = max(max out-degree, max in-degree). Edges are coloured
    one by one; when the free colours a (at i) and b (at j) differ, the a/b alternating path from j is swapped
    (it cannot reach i in a bipartite graph), which frees a at j. Returns int64 colours ``[m']`` in
    ``0..Delta-1``, aligned with ``graph.edges``.
    """
    if not isinstance(graph, Digraph):
        raise ValueError(f"graph must be a Digraph, got {type(graph).__name__}")
    m, E = graph.m, graph.edges
    delta = graph.max_degree
    colors = np.full(len(E), -1, dtype=np.int64)
    if len(E) == 0:
        return colors
    # at[side][v][c] = index of the edge of colour c at vertex v on that side, or -1 (plain lists: the loop is
    # scalar, and list indexing is several times faster than numpy element access; same steps, same colours)
    at = ([[-1] * delta for _ in range(m)], [[-1] * delta for _ in range(m)])
    src = E[:, 0].tolist()
    tgt = E[:, 1].tolist()
    col = [-1] * len(src)
    for e in range(len(src)):
        i, j = src[e], tgt[e]
        a = at[0][i].index(-1)  # free at source i (the first free colour)
        b = at[1][j].index(-1)  # free at target j
        if at[1][j][a] >= 0:
            # Walk the path from right-vertex j alternating colours a, b, b..., then swap a <-> b on it.
            path = []
            side, v, c = 1, j, a
            while True:
                f = at[side][v][c]
                if f < 0:
                    break
                path.append(f)
                side = 1 - side
                v = src[f] if side == 0 else tgt[f]
                c = b if c == a else a
            for f in path:  # clear, then re-insert with swapped colours
                at[0][src[f]][col[f]] = -1
                at[1][tgt[f]][col[f]] = -1
            for f in path:
                col[f] = b if col[f] == a else a
                at[0][src[f]][col[f]] = f
                at[1][tgt[f]][col[f]] = f
        col[e] = a
        at[0][i][a] = e
        at[1][j][a] = e
    colors[:] = col
    return colors


def equitable_edge_coloring(graph: Digraph, n_colors: int) -> np.ndarray:
    """A proper edge colouring with ``n_colors >= Delta`` colours whose class sizes differ by at most one.

    Starts from :func:`konig_edge_coloring` and repeatedly takes a largest class a and a smallest class b with
    |a| - |b| >= 2: the union of two matchings is a disjoint union of alternating paths and even cycles, and some
    path has one more a-edge than b-edges; swapping its colours moves one edge from a to b (de Werra's argument).
    Used for Corollary B.10's h_0 = ceil(m' / d_model) heads.
    """
    n_colors = check_int("n_colors", n_colors, min_value=max(1, graph.max_degree))
    colors = konig_edge_coloring(graph)
    left = graph.edges[:, 0].tolist()  # vertex copies: left v, right m + v
    right = (graph.edges[:, 1] + graph.m).tolist()
    while True:
        sizes = np.bincount(colors, minlength=n_colors) if len(colors) else np.zeros(n_colors, int)
        a, b = int(np.argmax(sizes)), int(np.argmin(sizes))
        if sizes[a] - sizes[b] <= 1:
            return colors
        sel = np.flatnonzero((colors == a) | (colors == b))
        # components of the a/b subgraph via union-find on the vertex copies (plain lists: one Python loop)
        parent = list(range(2 * graph.m))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for f in sel.tolist():
            ra, rb = find(left[f]), find(right[f])
            if ra != rb:
                parent[ra] = rb
        comp = np.array([find(left[f]) for f in sel.tolist()], dtype=np.int64)
        # the first component (by root) with more a-edges than b-edges: its colours are swapped
        roots, which = np.unique(comp, return_inverse=True)
        is_a = colors[sel] == a
        n_a = np.bincount(which, weights=is_a, minlength=roots.size)
        n_b = np.bincount(which, weights=~is_a, minlength=roots.size)
        more_a = np.flatnonzero(n_a > n_b)
        if more_a.size == 0:  # pragma: no cover - de Werra: some a/b path has more a-edges when |a| > |b|
            raise RuntimeError("no alternating path with more a-edges than b-edges")
        members = sel[which == more_a[0]]
        colors[members] = np.where(colors[members] == a, b, a)


def coloring_and_batching(graph: Digraph, d_model: int, *, n_colors: int | None = None) -> tuple:
    """Lemma B.8: partition E into matchings M_1..M_H with |M_k| <= d_model and H <= ceil(m'/d_model) + Delta.

    Colour E properly (Konig, Delta colours; or equitably with ``n_colors`` colours), then split each colour class
    into consecutive chunks of at most d_model edges. Returns a tuple of int64 ``[n_k, 2]`` matchings (empty
    classes produce no head).
    """
    d_model = check_int("d_model", d_model, min_value=1)
    if n_colors is None:
        colors = konig_edge_coloring(graph)
        n_colors = graph.max_degree
    else:
        colors = equitable_edge_coloring(graph, n_colors)
    if not is_proper_edge_coloring(graph.edges, colors):  # pragma: no cover - guarded by the tests
        raise RuntimeError("edge colouring is not proper")
    out = []
    for c in range(n_colors):
        cls = graph.edges[colors == c]
        for s in range(0, len(cls), d_model):
            out.append(cls[s:s + d_model].astype(np.int64))
    return tuple(out)
