"""Reusable Hypothesis strategies for RGR objects (plural nouns; bounds are keyword-only).

Strategies draw sizes and a seed, and build the object from a numpy Generator, so Hypothesis can replay and
shrink a failure without managing any global random state.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from .contexts import sample_context
from .embeddings import gaussian_unit_norm_embeddings
from .graphs import random_permutation_graph, random_regular_graph

__all__ = ["seeds", "permutation_graphs", "regular_graphs", "embedding_matrices", "qk_weights", "contexts",
           "theorem81_cases"]


def seeds() -> st.SearchStrategy[int]:
    """Seeds for numpy/torch generators, in [0, 2**32 - 1]."""
    return st.integers(0, 2**32 - 1)


@st.composite
def permutation_graphs(draw, *, min_size: int = 1, max_size: int = 64):
    """Uniformly random permutation graphs with m in [min_size, max_size]."""
    if min_size < 1 or max_size < min_size:
        raise ValueError(f"need 1 <= min_size <= max_size, got min_size={min_size}, max_size={max_size}")
    m = draw(st.integers(min_size, max_size))
    return random_permutation_graph(m, rng=np.random.default_rng(draw(seeds())))


@st.composite
def regular_graphs(draw, *, min_size: int = 2, max_size: int = 64, max_degree: int = 8):
    """Directed r-regular graphs (App. A.3) with m in [min_size, max_size] and r in [1, min(max_degree, m-1)]."""
    if min_size < 2 or max_size < min_size or max_degree < 1:
        raise ValueError("need 2 <= min_size <= max_size and max_degree >= 1")
    m = draw(st.integers(min_size, max_size))
    r = draw(st.integers(1, min(max_degree, m - 1)))
    return random_regular_graph(m, r, rng=np.random.default_rng(draw(seeds())))


@st.composite
def embedding_matrices(draw, m: int, *, min_dim: int = 1, max_dim: int = 64):
    """Gaussian unit-norm embeddings [m, d_model] with d_model in [min_dim, max_dim]."""
    if min_dim < 1 or max_dim < min_dim:
        raise ValueError(f"need 1 <= min_dim <= max_dim, got {min_dim}, {max_dim}")
    d = draw(st.integers(min_dim, max_dim))
    return gaussian_unit_norm_embeddings(m, d, rng=np.random.default_rng(draw(seeds())))


@st.composite
def qk_weights(draw, d_model: int, *, max_heads: int = 8, max_head_dim: int = 8, runs: int | None = None):
    """A pair (W_Q, W_K) of float64 arrays [(runs,) n_heads, d_model, d_k] with standard normal entries."""
    if max_heads < 1 or max_head_dim < 1:
        raise ValueError("need max_heads >= 1 and max_head_dim >= 1")
    h = draw(st.integers(1, max_heads))
    d_k = draw(st.integers(1, max_head_dim))
    rng = np.random.default_rng(draw(seeds()))
    shape = ((runs,) if runs else ()) + (h, d_model, d_k)
    return rng.standard_normal(shape), rng.standard_normal(shape)


@st.composite
def contexts(draw, graph, *, min_size: int = 1, max_size: int | None = None, rho: float | None = None):
    """Contexts of ``graph`` sampled by the App. A.1 procedure, with ell in [min_size, max_size]."""
    hi = graph.m if max_size is None else min(max_size, graph.m)
    if min_size < 1 or hi < min_size:
        raise ValueError(f"need 1 <= min_size <= max_size <= m, got min_size={min_size}, max_size={max_size}")
    ell = draw(st.integers(min_size, hi))
    r = draw(st.floats(0, 1)) if rho is None else rho
    return sample_context(graph, ell, r, rng=np.random.default_rng(draw(seeds())))


@st.composite
def theorem81_cases(draw, *, d_models=(64, 128), max_heads: int = 4, Cs=(16.0, 64.0), min_c0: float = 8.0,
                    min_c_ell: float = 8.0, target_absent: bool = True):
    """Sizes inside Theorem 8.1's ranges (Sec. 8): a dict with m = h d_model, d_model, C (d_k = C ln^2 m), ell and
    a seed, where d_model >= min_c0 ln m and min_c_ell max{h, ln m} <= ell <= m - [target_absent] (room for a
    context without pi(i)). Every coordinate is drawn inside the ranges, so shrinking stays inside them too; sizes
    (d_model, h) with no admissible ell are skipped."""
    if max_heads < 1 or not d_models or not Cs or min_c0 <= 0 or min_c_ell <= 0:
        raise ValueError("need max_heads >= 1, non-empty d_models and Cs, min_c0 > 0 and min_c_ell > 0")
    options = []
    for d in d_models:
        for h in range(1, max_heads + 1):
            m = d * h
            lo = math.ceil(min_c_ell * max(h, math.log(m)))
            hi = m - (1 if target_absent else 0)
            if m >= 2 and d >= min_c0 * math.log(m) and lo <= hi:
                options.append((m, d, lo, hi))
    if not options:
        raise ValueError("no (d_model, h) meets the ranges")
    m, d, lo, hi = draw(st.sampled_from(options))
    return {"m": m, "d_model": d, "C": draw(st.sampled_from(tuple(Cs))), "ell": draw(st.integers(lo, hi)),
            "seed": draw(seeds())}
