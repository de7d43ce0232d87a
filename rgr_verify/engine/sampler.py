"""Per-run data and the batched context sampler (App. A.1 / A.3).

:func:`build_run_data` derives everything random about a run from its seed (graph, neighbour table, embeddings,
validation/test streams, initial weights, training stream). Contexts are drawn by :func:`contexts_from_uniforms`
from uniforms that each run's own numpy generator supplies (:func:`draw_uniforms`), so a run's data never depend
on its batch or the device; :class:`UniformStreams` keeps the training streams of a batch's rows and draws the
next segment's block in a worker thread. :func:`labels_torch` gives the edge labels of contexts.
"""

from __future__ import annotations

import math
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

from ..basics.checks import check_int, check_probability
from ..core.embeddings import gaussian_unit_norm_embeddings
from ..core.graphs import Digraph, random_permutation_graph, random_regular_graph
from .config import RunConfig

__all__ = ["pair_counts", "RunData", "build_run_data", "draw_uniforms", "ordered_subset", "contexts_from_uniforms",
           "sample_contexts_torch", "labels_torch", "UniformStreams"]


@dataclass
class RunData:
    """Frozen per-run tensors (numpy, float64) and the run's generators."""

    config: RunConfig
    graph: Digraph
    nbrs: np.ndarray  # [m, r] out-neighbours
    X: np.ndarray  # [m, d_model] embeddings
    val_seed: np.random.SeedSequence  # the validation contexts' stream
    test_seed: np.random.SeedSequence  # the test contexts' stream
    W_Q: np.ndarray  # [d_model, D_K] initial
    W_K: np.ndarray  # [d_model, D_K] initial
    W_V: np.ndarray | None  # [d_model, d_msg] frozen value map (variant "value")
    stream: np.random.Generator  # training-context stream

    @property
    def val(self) -> np.ndarray:
        """The fixed validation contexts ``[n_val, ell]`` (a batch draws the same ones, vectorised)."""
        return _sample_numpy(self.nbrs, self.config.n_val, self.config, np.random.default_rng(self.val_seed))

    @property
    def test(self) -> np.ndarray:
        """The fixed test contexts ``[n_test, ell]``."""
        return _sample_numpy(self.nbrs, self.config.n_test, self.config, np.random.default_rng(self.test_seed))


def _neighbour_table(graph: Digraph) -> np.ndarray:
    adj = graph.adjacency
    r = int(adj.sum(1).max())
    # Rows of a regular graph have exactly r ones; argsort puts them first, in increasing vertex order.
    return np.argsort(~adj, axis=1, kind="stable")[:, :r].astype(np.int64)


def build_run_data(config: RunConfig, seed: int) -> RunData:
    """Build a run's graph, embeddings, validation/test contexts, initial weights and stream from its seed."""
    if not isinstance(config, RunConfig):
        raise ValueError(f"config must be a RunConfig, got {type(config).__name__}")
    seed = check_int("seed", seed, min_value=0, max_value=2**63 - 1)
    ss_graph, ss_emb, ss_val, ss_test, ss_init, ss_stream, ss_value = np.random.SeedSequence(seed).spawn(7)
    g_rng = np.random.default_rng(ss_graph)
    if config.graph == "permutation":
        graph = random_permutation_graph(config.m, rng=g_rng)
    else:
        graph = random_regular_graph(config.m, config.r, rng=g_rng)
    nbrs = _neighbour_table(graph)
    X = gaussian_unit_norm_embeddings(config.m, config.d_model, rng=np.random.default_rng(ss_emb))
    i_rng = np.random.default_rng(ss_init)
    W_Q = i_rng.standard_normal((config.d_model, config.D_K)) * config.init_std
    W_K = i_rng.standard_normal((config.d_model, config.D_K)) * config.init_std
    W_V = None
    if config.variant == "value":
        # Frozen random value map with i.i.d. N(0, 1/d_model) entries, so ||y_i|| is about sqrt(d_msg/d_model).
        W_V = np.random.default_rng(ss_value).standard_normal((config.d_model, config.message_dim)) / math.sqrt(
            config.d_model)
    return RunData(config, graph, nbrs, X, ss_val, ss_test, W_Q, W_K, W_V, np.random.default_rng(ss_stream))


def _sample_numpy(nbrs: np.ndarray, n: int, config: RunConfig, rng: np.random.Generator) -> np.ndarray:
    u = draw_uniforms([rng], n, config.m, config.ell)
    t_nbrs = torch.as_tensor(nbrs)[None]
    return contexts_from_uniforms(t_nbrs, *u, rho=config.rho, protected=config.sampler == "protected")[0].numpy()


def draw_uniforms(gens: Sequence[np.random.Generator], n: int, m: int, ell: int,
                  device: str | torch.device = "cpu") -> tuple[torch.Tensor, ...]:
    """The uniforms that drive ``n`` contexts per run, one numpy generator per run (batch-invariant).

    Returns float64 tensors ``u_set``, ``u_bern``, ``u_order``, ``u_slot``, ``u_tgt``, each ``[R, n, ell]``
    (``m`` is only validated: step 1 needs ell uniforms).
    """
    n = check_int("n", n, min_value=1)
    check_int("ell", ell, min_value=1, max_value=check_int("m", m, min_value=1))
    sizes = (ell, ell, ell, ell, ell)
    total = sum(sizes)
    blocks = np.stack([g.random((n, total)) for g in gens])  # [R, n, total]
    out, start = [], 0
    for size in sizes:
        out.append(blocks[:, :, start:start + size])
        start += size
    u_set, u_bern, u_order, u_slot, u_tgt = (torch.as_tensor(np.ascontiguousarray(a), device=device) for a in out)
    return u_set, u_bern, u_order, u_slot, u_tgt


def ordered_subset(u: torch.Tensor, m, *, dtype: torch.dtype = torch.long) -> torch.Tensor:
    """A uniformly random ordered ell-subset of {0..m-1} from ``u [..., ell]`` uniforms (``m`` an int, or a
    per-run integer tensor ``[R]`` when ``u`` is ``[R, n, ell]``), as integers of ``dtype`` (long, or int32 when
    m fits: the same values).

    Draw i picks the floor(u_i (m - i))-th (0-based) vertex not chosen yet, k say. With the vertices chosen so far
    sorted, c_0 < c_1 < ..., that vertex is k + #{j : c_j - j <= k}: the c_j below it are exactly those with fewer
    than k + 1 unchosen vertices below them (c_j - j of them). Exact, and it needs ell uniforms instead of m.
    """
    ell = u.shape[-1]
    if not isinstance(m, torch.Tensor):
        check_int("m", m, min_value=ell)
    if dtype not in (torch.long, torch.int32):
        raise ValueError(f"dtype must be torch.long or torch.int32, got {dtype}")
    if isinstance(m, torch.Tensor):
        m = m.to(dtype).reshape(-1, *([1] * (u.ndim - 2)))  # [R, 1] against u[..., i] of shape [R, n]
    offs = torch.arange(ell, device=u.device, dtype=dtype)
    out = torch.empty(u.shape, dtype=dtype, device=u.device)
    shifted = None  # c_j - j of the vertices chosen so far, sorted ascending (c_j - j is nondecreasing)
    for i in range(ell):
        limit = m - i
        x = (u[..., i] * limit).to(dtype)  # the rank k, as u * (m - i) truncated
        x = torch.minimum(x, limit - 1) if isinstance(limit, torch.Tensor) else x.clamp_max_(limit - 1)
        if i == 0:
            shifted = x[..., None].clone()
        else:
            below = shifted <= x[..., None]  # [..., i]: c_j below the pick
            p = below.sum(-1, dtype=dtype)  # how many, = the pick's position among the sorted chosen
            x.add_(p)
            above = below.logical_not()
            grown = torch.empty(shifted.shape[:-1] + (i + 1,), dtype=dtype, device=u.device)
            # c_j above the pick move up one place (so c_j - j drops by one); the pick goes to place p
            grown.scatter_(-1, (offs[:i] + above).long().expand_as(shifted), shifted - above.to(dtype))
            grown.scatter_(-1, p.long()[..., None], (x - p)[..., None])
            shifted = grown
        out[..., i] = x
    return out


def contexts_from_uniforms(nbrs: torch.Tensor, u_set, u_bern, u_order, u_slot, u_tgt, *, rho: float,
                           m: torch.Tensor | None = None, protected: bool = False) -> torch.Tensor:
    """App. A.1's three-step sampler, vectorised over runs and contexts.

    (1) S = a uniformly random ordered ell-subset of the m vertices (:func:`ordered_subset`); (2) each of ell processing slots
    is active with probability rho (so b ~ Binomial(ell, rho)), and slot t processes vertex S[order[t]] (so U is a
    uniform b-subset of S in uniformly random order); (3) for each active vertex i with no out-neighbour in the
    current context, a uniformly random position holding a vertex other than i receives a uniformly random
    out-neighbour of i. This is the distribution of :func:`rgr_verify.core.contexts.sample_contexts`. ``protected``:
    step 3 read with the positions of U's vertices (and of each target placed) never overwritten, as long as another
    position is free (``sample_contexts(..., reading="protected")``). Vertices are int32 while sampling when the
    tables allow (the same integers as long, less memory traffic); the result is long.

    Args:
        nbrs: ``[R, m, r]`` out-neighbour tables (long).
        u_*: uniforms from :func:`draw_uniforms`.
        m: per-run vertex counts ``[R]`` when the tables are zero-padded to a common m (default: all m).
    Returns:
        long ``[R, n, ell]``.
    """
    R, n, ell = u_set.shape
    r = nbrs.shape[-1]
    dt = torch.int32 if nbrs.shape[-2] * r < 2**31 - 1 else torch.long
    ctx = ordered_subset(u_set, nbrs.shape[-2] if m is None else m, dtype=dt)  # [R, n, ell]
    perm = torch.argsort(u_order, dim=-1)
    chosen = torch.gather(ctx, -1, perm)  # U candidates in processing order
    active = u_bern < rho  # [R, n, ell]
    # protected reading: the positions of U's vertices (slot t processes the vertex at position perm[t])
    keep = torch.zeros_like(active).scatter(-1, perm, active) if protected else None
    tgt_idx = (u_tgt * r).long().clamp_max(r - 1) if r > 1 else None  # [R, n, ell]; r = 1: always 0
    flat = nbrs.reshape(R, -1).to(dt)  # [R, m r]: vertex i's out-neighbours at i r ... i r + r - 1
    offs = torch.arange(r, device=ctx.device, dtype=dt)
    for t in range(ell):
        i = chosen[..., t]  # [R, n]
        if r == 1:
            nb = torch.gather(flat, 1, i.long())[..., None]  # [R, n, 1]
            present = (ctx == nb).any(-1)  # [R, n]
            target = nb  # its only out-neighbour
        else:
            nb = torch.gather(flat, 1, (i[..., None] * r + offs).reshape(R, -1).long()).view(R, n, r)  # [R, n, r]
            present = (nb[..., :, None] == ctx[..., None, :]).any(-1).any(-1)  # [R, n]
            target = torch.gather(nb, -1, tgt_idx[..., t:t + 1])  # [R, n, 1]
        need = active[..., t] & ~present
        allowed = ctx != i[..., None]  # positions holding a vertex other than i
        if protected:
            free = allowed & ~keep
            allowed = torch.where(free.any(-1, keepdim=True), free, allowed)  # protected ones only when none is free
        cs = allowed.cumsum(-1, dtype=dt)
        n_allowed = cs[..., -1]  # [R, n]
        k = torch.minimum((u_slot[..., t] * n_allowed).to(dt), n_allowed - 1)  # uniform rank among them
        # The (k+1)-th allowed position: the first where the running count reaches k + 1.
        slot = (cs <= k[..., None]).sum(-1, keepdim=True)  # [R, n, 1]
        new = torch.where(need[..., None], target, torch.gather(ctx, -1, slot))
        ctx.scatter_(-1, slot, new)  # ctx is this call's own tensor
        if protected:
            keep.scatter_(-1, slot, torch.gather(keep, -1, slot) | need[..., None])
    return ctx.long()


def sample_contexts_torch(nbrs: np.ndarray, n: int, ell: int, rho: float, *, rng: np.random.Generator,
                          reading: str = "literal") -> np.ndarray:
    """``n`` contexts of one graph (given by its ``[m, r]`` neighbour table) from the batched sampler."""
    nbrs = np.asarray(nbrs)
    if nbrs.ndim != 2 or not np.issubdtype(nbrs.dtype, np.integer):
        raise ValueError(f"nbrs must be an integer [m, r] table, got shape {nbrs.shape}")
    m = nbrs.shape[0]
    check_int("ell", ell, min_value=1, max_value=m)
    check_probability("rho", rho)
    u = draw_uniforms([rng], check_int("n", n, min_value=1), m, ell)
    if reading not in ("literal", "protected"):
        raise ValueError(f"reading must be 'literal' or 'protected', got {reading!r}")
    return contexts_from_uniforms(torch.as_tensor(nbrs, dtype=torch.long)[None], *u, rho=rho,
                                  protected=reading == "protected")[0].numpy()


def labels_torch(nbrs: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
    """y[R, n, p, q] = (c_p -> c_q) in E, from ``nbrs [R, m, r]`` and ``ctx [R, n, ell]``. Returns bool."""
    R = ctx.shape[0]
    runs = torch.arange(R, device=ctx.device).reshape(R, *([1] * (ctx.ndim - 1)))
    out = nbrs[runs, ctx]  # [R, n, ell, r]
    if out.shape[-1] == 1:  # one out-neighbour: the any() over it is the comparison itself
        return out[..., :, None, 0] == ctx[..., None, :]
    return (out[..., :, None, :] == ctx[..., None, :, None]).any(-1)


class UniformStreams:
    """The training streams of a batch's rows (one numpy generator per run, in row order) and the uniforms of the
    next segment, drawn in a worker thread while the current segment trains.

    ``prefetched`` is (future, rows of the drawn block that are still in the batch, steps), or None. A stream is
    only ever read by that draw or by :meth:`take`; the streams of rows that leave (:meth:`keep`) are never read
    again, so each run's values are always the next rows of its own stream.
    """

    def __init__(self, streams: Sequence[np.random.Generator], ms: Sequence[int], ell: int):
        if len(streams) != len(ms):
            raise ValueError(f"streams and ms must have one entry per row, got {len(streams)} and {len(ms)}")
        self.streams = list(streams)
        self.ms = [int(m) for m in ms]  # each row's m (only validated by draw_uniforms)
        self.ell = check_int("ell", ell, min_value=1)
        self.prefetched: tuple[Future, list[int], int] | None = None

    def take(self, n_steps: int) -> tuple[torch.Tensor, ...]:
        """This segment's uniforms (host tensors ``[R, n_steps, ell]``): the prefetched block, less the rows of
        runs that left the batch since it was drawn, or else drawn now. Either way each run's values are the
        next ``n_steps`` rows of its own stream."""
        pending, self.prefetched = self.prefetched, None
        if pending is None:
            return draw_uniforms(self.streams, n_steps, min(self.ms), self.ell)  # host tensors
        future, rows, n = pending
        u = future.result()
        if n != n_steps:
            raise RuntimeError(f"uniforms were prefetched for {n} steps, but the segment has {n_steps}")
        if rows != list(range(u[0].shape[0])):
            idx = torch.as_tensor(rows, dtype=torch.long)
            u = tuple(x.index_select(0, idx) for x in u)
        return u

    def prefetch(self, pool: ThreadPoolExecutor, n_steps: int) -> None:
        """Start drawing the next segment's ``n_steps`` uniforms per row in ``pool``; :meth:`take` collects them."""
        self.prefetched = (pool.submit(draw_uniforms, list(self.streams), n_steps, min(self.ms), self.ell),
                           list(range(len(self.streams))), n_steps)

    def keep(self, rows: Sequence[int]) -> None:
        """Keep only rows ``rows`` (a prefetched block drops the others when it is taken)."""
        self.streams = [self.streams[i] for i in rows]
        self.ms = [self.ms[i] for i in rows]
        if self.prefetched is not None:
            future, prows, n = self.prefetched
            self.prefetched = (future, [prows[i] for i in rows], n)


def pair_counts(nbrs: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
    """``[R, 2, M^2]`` float64: how often each ordered vertex pair (i, j) occurs as (c_p, c_q) over the
    contexts ``ctx [R, n, ell]`` (all ell^2 position pairs, p = q included), split into positive pairs
    (i -> j an edge: row 0) and negative pairs (row 1). M is the padded m of the tables ``nbrs [R, M, r]``.

    Max variant: a pair's score S_max(c_p, c_q) depends only on the two vertices, so a fixed context set enters
    the metric only through these counts (:func:`evaluate_pairs`)."""
    R, M = ctx.shape[0], nbrs.shape[1]
    base = torch.arange(R, device=ctx.device)[:, None, None, None] * (M * M)
    counts = torch.zeros(R * M * M, dtype=torch.float64, device=ctx.device)
    for start in range(0, ctx.shape[1], 250):
        c = ctx[:, start:start + 250]
        idx = c[..., :, None] * M + c[..., None, :] + base  # [R, chunk, ell, ell]
        counts += torch.bincount(idx.reshape(-1), minlength=R * M * M)
    counts = counts.view(R, M * M)
    verts = torch.arange(M, device=ctx.device).expand(R, 1, M)
    adj = labels_torch(nbrs, verts).reshape(R, M * M)  # y for the pair (i, j), as labels_torch gives it
    return torch.stack((counts * adj, counts * ~adj), dim=1)
