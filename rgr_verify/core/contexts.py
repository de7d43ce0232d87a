"""Contexts and their labels (Sec. 1, App. A.1, App. A.3).

A context is an ordered tuple of distinct vertices. The samplers implement App. A.1's three steps exactly:
(1) draw S, ell distinct vertices uniformly (in random order); (2) draw b ~ Binomial(ell, rho) and a subset U of
S with |U| = b; (3) for each i in U, if i has no out-neighbour in S, replace a uniformly random j in S \\ {i}
by an out-neighbour of i. For a permutation graph "no out-neighbour in S" is "pi(i) not in S", which is A.1;
for an r-regular graph the replacement is a uniformly random out-neighbour, which is the A.3 variant (and
reduces to A.1 at r = 1). Step 3 is applied in the order U was drawn, as stated.

Two readings of step 3 (``reading=``): "literal" (default) replaces a uniformly random j in S \\ {i}, as written,
so a later replacement may evict an earlier source of U or a target placed for it; "protected" draws j only among
positions holding neither a source of U nor a target placed in step 3 (falling back to S \\ {i} when none is
left), which is what it takes for the per-context positive rate to approach rho. The literal reading reaches a
positive rate of only about 0.25 at rho = 0.5 (claim ``appa1-sampler-positive-rate``).

A third value, "uniform", is no reading of the paper but the sampler without its rate enforcement: step 1 alone (S, ell
distinct vertices uniformly; steps 2 and 3 skipped, ``rho`` ignored), the natural contexts whose positive rate is
(ell - 1) / (m - 1) at a vertex that is not a fixed point. It is the distribution of the three steps at rho = 0; the
engine trains it as ``rho=0`` (preset ``sec6-grid-uniform``, claim ``appa1-rate-enforcing-sampler-trains-faster``).
"""

from __future__ import annotations

import numpy as np

from ..basics.checks import check_choice, check_int, check_probability, check_rng
from .graphs import Digraph

READINGS = ("literal", "protected", "uniform")

__all__ = [
    "READINGS",
    "validate_context",
    "sample_context",
    "sample_contexts",
    "context_labels",
    "in_context_neighbours",
]


def validate_context(graph: Digraph, context) -> np.ndarray:
    """Return ``context`` as an int64 array after checking it holds 1..m distinct vertex ids of ``graph``."""
    arr = np.asarray(context)
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(f"context must be a non-empty 1-d sequence of vertex ids, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"context must hold integer vertex ids, got dtype {arr.dtype}")
    if arr.size > graph.m:
        raise ValueError(f"context length ell must be in [1, m={graph.m}], got {arr.size}")
    if arr.min() < 0 or arr.max() >= graph.m:
        raise ValueError(f"context must hold vertex ids in [0, {graph.m - 1}]")
    if np.unique(arr).size != arr.size:
        raise ValueError("context must hold distinct vertices")
    return arr.astype(np.int64)


def sample_context(graph: Digraph, ell: int, rho: float, *, rng: np.random.Generator,
                   reading: str = "literal") -> np.ndarray:
    """One context of length ``ell`` with target-in-context rate ``rho`` (App. A.1 / A.3). Returns int64 [ell]."""
    _check_sampler_args(graph, ell, rho, rng, reading)
    return _draw(graph, int(ell), float(rho), rng, reading)


def sample_contexts(graph: Digraph, n: int, ell: int, rho: float, *, rng: np.random.Generator,
                    reading: str = "literal") -> np.ndarray:
    """``n`` independent contexts, drawn in sequence from ``rng``. Returns int64 ``[n, ell]``."""
    n = check_int("n", n, min_value=1)
    _check_sampler_args(graph, ell, rho, rng, reading)
    return np.stack([_draw(graph, int(ell), float(rho), rng, reading) for _ in range(n)])


def context_labels(graph: Digraph, contexts) -> np.ndarray:
    """Labels y[..., p, q] = 1 iff (c_p, c_q) in E, over all ordered pairs of each context.

    Args:
        contexts: int array ``[..., ell]`` of vertex ids.
    Returns:
        bool array ``[..., ell, ell]``.
    """
    arr = np.asarray(contexts)
    if arr.ndim < 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError("contexts must be an integer array of shape [..., ell]")
    if arr.size and (arr.min() < 0 or arr.max() >= graph.m):
        raise ValueError(f"contexts must hold vertex ids in [0, {graph.m - 1}]")
    return graph.adjacency[arr[..., :, None], arr[..., None, :]]


def in_context_neighbours(graph: Digraph, v: int, context) -> list[int]:
    """N_G(v; C) = {v' in C : (v, v') in E}, in context order (Sec. 1). ``v`` must be in the context."""
    ctx = validate_context(graph, context)
    v = check_int("v", v, min_value=0, max_value=graph.m - 1)
    if v not in set(ctx.tolist()):
        raise ValueError(f"v must be a vertex of the context, got {v}")
    return [int(u) for u in ctx if graph.adjacency[v, u]]


def _check_sampler_args(graph: Digraph, ell, rho, rng, reading) -> None:
    if not isinstance(graph, Digraph):
        raise ValueError(f"graph must be a Digraph, got {type(graph).__name__}")
    check_int("ell", ell, min_value=1, max_value=graph.m)
    check_probability("rho", rho)
    check_rng(rng)
    check_choice("reading", reading, READINGS)


def _draw(graph: Digraph, ell: int, rho: float, rng: np.random.Generator, reading: str) -> np.ndarray:
    if reading == "uniform":  # step 1 alone: no rate enforcement
        return rng.choice(graph.m, size=ell, replace=False).astype(np.int64)
    return _sample_one(graph, ell, rho, rng, reading == "protected")


def _sample_one(graph: Digraph, ell: int, rho: float, rng: np.random.Generator, protected: bool) -> np.ndarray:
    adjacency = graph.adjacency
    context = rng.choice(graph.m, size=ell, replace=False).astype(np.int64)  # step 1: S, in random order
    b = rng.binomial(ell, rho)  # step 2
    chosen = rng.choice(context, size=b, replace=False)  # U, a subset of S
    keep = np.isin(context, chosen) if protected else None  # positions step 3 must not overwrite
    for i in chosen:  # step 3
        targets = np.flatnonzero(adjacency[i])
        if targets.size == 0 or np.any(adjacency[i, context]):
            continue
        others = np.flatnonzero(context != i)
        if protected:
            free = np.flatnonzero((context != i) & ~keep)
            others = free if free.size else others
        if others.size == 0:
            continue
        slot = others[rng.integers(others.size)]
        context[slot] = targets[rng.integers(targets.size)] if targets.size > 1 else targets[0]
        if protected:
            keep[slot] = True
    return context
