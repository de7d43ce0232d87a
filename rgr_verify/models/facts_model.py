"""The single-layer attention-only model of "Paying Attention to Facts" (arXiv 2502.05076), batched over runs.

The model reads a (key, query) pair and predicts the value at the query position. There are no positional
embeddings, no layer norm, no MLP and no BOS token (our reading of the summary's single-layer attention-only
decoder); keys and queries share one embedding table ``W_E [|K| + |Q|, d_model]`` (query q is row |K| + q), and
the unembedding ``W_U [d_model, |V|]`` reads out value tokens only. Each head h has ``W_Q, W_K [d_model, d_qk]``
and ``W_V [d_model, d_vo]``, ``W_O [d_vo, d_model]`` (TransformerLens layout, multiplying on the right); the
query position attends over the two positions {key, query} (causal) with softmax(x_q W_Q (x_j W_K)^T / sqrt(d_qk))
(uniform when d_qk = 0). The logits are

    logits(k, q) = x_q W_U + sum_h sum_{j in {k, q}} A^h(k, q)_j  x_j W_V^h W_O^h W_U,

i.e. the circuit tensor L = E + sum_h A^h V^h with E[k, q] = x_q W_U (direct path), A^h the attention pattern and
V^h[j] = x_j W_OV^h W_U (OV circuit). :func:`circuit_tensor` builds L from these three pieces;
:func:`forward_logits` runs the residual stream; they agree (claim ``facts-circuit-tensor-equals-logits``).

Training (:func:`train_facts`) is full batch over the database (cross-entropy on the value), AdamW through the RGR
engine's :func:`~rgr_verify.engine.stacked_adamw_step`, many runs at once (one stacked tensor per parameter, one
row per run; runs that differ only in d_model, d_qk, d_vo or database share a batch, zero-padded exactly). Every run's randomness comes from its seed alone (numpy
``SeedSequence([seed, ...])`` for the database, a ``torch.Generator`` for the weights), so a run gives the same
result alone or in a batch. Stored runs (presets, keys by config, seed and :data:`FACTS_VERSION`, the
``facts-runs.jsonl`` store) are :mod:`rgr_verify.runs.facts`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from ..basics.checks import check_choice, check_int, check_real
from .facts_tensors import Database, distinct_value_database, random_functional_database

__all__ = ["FactsConfig", "FactsParams", "init_params", "forward_logits", "circuit_tensor", "circuit_parts",
           "circuit_rank_bound", "train_facts", "train_facts_batch", "run_database", "TAUS", "FACTS_VERSION"]

FACTS_VERSION = "1"
TAUS = (0.5, 0.8, 0.9, 0.95, 0.99)  # softmax>=tau thresholds recorded for every run
DATABASES = ("random", "distinct", "key-only")


@dataclass(frozen=True)
class FactsConfig:
    """One training configuration of the facts model (the run's seed is kept apart, as in the RGR engine)."""

    n_keys: int  # |K|
    n_queries: int  # |Q|
    n_values: int  # |V| (ignored by "distinct": |V| = |K| |Q|)
    database: str = "random"  # "random": uniform value per (k, q); "distinct": a value per pair; "key-only": v = f(k)
    d_model: int = 8
    n_heads: int = 1
    d_qk: int = 1  # d_head,qk (0: no query-key circuit, uniform attention)
    d_vo: int = 1  # d_head,vo
    epochs: int = 2000  # full-batch steps, at most 2000 as in the paper
    lr: float = 1e-2  # AdamW learning rate (constant)
    weight_decay: float = 0.0
    stop_tau: float = 0.99  # a run stops once every triple has softmax probability >= stop_tau
    check_every: int = 50  # epochs between stopping checks

    def __post_init__(self):
        check_int("n_keys", self.n_keys, min_value=1)
        check_int("n_queries", self.n_queries, min_value=1)
        check_int("n_values", self.n_values, min_value=1)
        check_choice("database", self.database, DATABASES)
        if self.n_triples > 200:
            raise ValueError(f"n_keys * n_queries must be <= 200 triples (the paper's limit), got {self.n_triples}")
        check_int("d_model", self.d_model, min_value=1)
        check_int("n_heads", self.n_heads, min_value=1)
        check_int("d_qk", self.d_qk, min_value=0)
        check_int("d_vo", self.d_vo, min_value=1)
        check_int("epochs", self.epochs, min_value=1, max_value=2000)
        check_real("lr", self.lr, low=0.0, low_open=True)
        check_real("weight_decay", self.weight_decay, low=0.0)
        check_real("stop_tau", self.stop_tau, low=0.0, high=1.0, low_open=True, high_open=True)
        check_int("check_every", self.check_every, min_value=1)

    @property
    def n_triples(self) -> int:
        return self.n_keys * self.n_queries

    @property
    def values(self) -> int:
        """|V| of the database actually built."""
        return self.n_triples if self.database == "distinct" else self.n_values

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def shape_key(self) -> tuple:
        """Runs with equal shape keys train in one batch (d_model, d_qk and d_vo may differ: they are zero-padded)."""
        return (self.n_keys, self.n_queries, self.values, self.n_heads, self.epochs, self.lr,
                self.weight_decay, self.stop_tau, self.check_every)


def run_database(config: FactsConfig, seed: int) -> Database:
    """The run's database, drawn from ``SeedSequence([seed, 1])`` (the same for every layer shape at this seed)."""
    if not isinstance(config, FactsConfig):
        raise ValueError(f"config must be a FactsConfig, got {type(config).__name__}")
    seed = check_int("seed", seed, min_value=0, max_value=2**63 - 1)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    if config.database == "distinct":
        return distinct_value_database(config.n_keys, config.n_queries, rng=rng)
    if config.database == "key-only":
        f = rng.integers(0, config.n_values, size=config.n_keys)
        k, q = np.meshgrid(np.arange(config.n_keys), np.arange(config.n_queries), indexing="ij")
        return Database(np.stack([k.ravel(), q.ravel(), f[k.ravel()]], axis=1), config.n_keys, config.n_queries,
                        config.n_values)
    return random_functional_database(config.n_keys, config.n_queries, config.n_values, rng=rng)


@dataclass
class FactsParams:
    """Stacked weights of R runs: ``W_E [R, |K|+|Q|, d]``, ``W_Q, W_K [R, H, d, d_qk]``, ``W_V [R, H, d, d_vo]``,
    ``W_O [R, H, d_vo, d]``, ``W_U [R, d, |V|]``."""

    W_E: torch.Tensor
    W_Q: torch.Tensor
    W_K: torch.Tensor
    W_V: torch.Tensor
    W_O: torch.Tensor
    W_U: torch.Tensor
    qk_scale: torch.Tensor | None = None  # [R] per-run 1/sqrt(d_qk) when runs are zero-padded to a common d_qk

    def tensors(self) -> list[torch.Tensor]:
        return [self.W_E, self.W_Q, self.W_K, self.W_V, self.W_O, self.W_U]

    @property
    def n_keys_queries(self) -> int:
        return self.W_E.shape[1]


def init_params(config: FactsConfig, seeds: Sequence[int], *, dtype: torch.dtype = torch.float32) -> FactsParams:
    """Gaussian init, one ``torch.Generator`` per run seeded from ``SeedSequence([seed, 2])``: W_E std 1, the
    others std 1/sqrt(fan-in)."""
    if not isinstance(config, FactsConfig):
        raise ValueError(f"config must be a FactsConfig, got {type(config).__name__}")
    check_choice("dtype", dtype, (torch.float32, torch.float64))
    c = config
    shapes = [((c.n_keys + c.n_queries, c.d_model), 1.0), ((c.n_heads, c.d_model, c.d_qk), c.d_model ** -0.5),
              ((c.n_heads, c.d_model, c.d_qk), c.d_model ** -0.5), ((c.n_heads, c.d_model, c.d_vo), c.d_model ** -0.5),
              ((c.n_heads, c.d_vo, c.d_model), c.d_vo ** -0.5), ((c.d_model, c.values), c.d_model ** -0.5)]
    per_run = []
    for s in seeds:
        s = check_int("seed", s, min_value=0, max_value=2**63 - 1)
        g = torch.Generator().manual_seed(int(np.random.SeedSequence([s, 2]).generate_state(1, np.uint64)[0] >> 1))
        per_run.append([torch.randn(shape, generator=g, dtype=torch.float64) * std for shape, std in shapes])
    stacked = [torch.stack([w[i] for w in per_run]).to(dtype) for i in range(len(shapes))]
    return FactsParams(*stacked)


def _attention(p: FactsParams, xk: torch.Tensor, xq: torch.Tensor) -> torch.Tensor:
    """Attention of the query position over (key, query): ``[R, H, N, 2]`` from xk, xq ``[R, N, d]``."""
    d_qk = p.W_Q.shape[-1]
    R, H, N = xk.shape[0], p.W_Q.shape[1], xk.shape[1]
    if d_qk == 0:
        return torch.full((R, H, N, 2), 0.5, dtype=xk.dtype)
    Q = torch.einsum("rnd,rhde->rhne", xq, p.W_Q)  # [R, H, N, d_qk]
    Kk = torch.einsum("rnd,rhde->rhne", xk, p.W_K)
    Kq = torch.einsum("rnd,rhde->rhne", xq, p.W_K)
    s = torch.stack([(Q * Kk).sum(-1), (Q * Kq).sum(-1)], dim=-1)  # [R, H, N, 2]
    s = s / math.sqrt(d_qk) if p.qk_scale is None else s * p.qk_scale.to(s.dtype)[:, None, None, None]
    return torch.softmax(s, dim=-1)


def forward_logits(p: FactsParams, keys: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
    """Logits ``[R, N, |V|]`` of the layer at (keys[r, n], queries[r, n]) (ids; queries index W_E at |K| + q is the
    caller's job: pass ``queries`` already offset), computed on the residual stream."""
    if not isinstance(p, FactsParams):
        raise ValueError(f"p must be FactsParams, got {type(p).__name__}")
    for name, ids in (("keys", keys), ("queries", queries)):
        if not isinstance(ids, torch.Tensor) or ids.dim() != 2 or ids.shape[0] != p.W_E.shape[0] \
                or ids.dtype not in (torch.int64, torch.int32):
            raise ValueError(f"{name} must be an integer tensor [R, N] with R = {p.W_E.shape[0]} runs")
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= p.W_E.shape[1]):
            raise ValueError(f"{name} must hold embedding rows in [0, {p.W_E.shape[1] - 1}]")
    if keys.shape != queries.shape:
        raise ValueError(f"keys and queries must have the same shape, got {tuple(keys.shape)} and {tuple(queries.shape)}")
    keys, queries = keys.long(), queries.long()
    xk = torch.gather(p.W_E, 1, keys[..., None].expand(-1, -1, p.W_E.shape[-1]))  # [R, N, d]
    xq = torch.gather(p.W_E, 1, queries[..., None].expand(-1, -1, p.W_E.shape[-1]))
    A = _attention(p, xk, xq)  # [R, H, N, 2]
    vk = torch.einsum("rnd,rhde->rhne", xk, p.W_V)  # [R, H, N, d_vo]
    vq = torch.einsum("rnd,rhde->rhne", xq, p.W_V)
    z = A[..., 0:1] * vk + A[..., 1:2] * vq  # [R, H, N, d_vo]
    resid = xq + torch.einsum("rhne,rhed->rnd", z, p.W_O)  # [R, N, d]
    return resid @ p.W_U  # [R, N, |V|]


def circuit_parts(p: FactsParams, n_keys: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The pieces of L over the full (key, query) grid: E ``[R, K, Q, V]`` (x_q W_U), A ``[R, H, K, Q, 2]``
    (attention on (key, query)) and OV ``[R, H, K+Q, V]`` (x_j W_V^h W_O^h W_U)."""
    if not isinstance(p, FactsParams):
        raise ValueError(f"p must be FactsParams, got {type(p).__name__}")
    n_keys = check_int("n_keys", n_keys, min_value=1, max_value=p.n_keys_queries - 1)
    R, KQ, d = p.W_E.shape
    n_q = KQ - n_keys
    xk = p.W_E[:, :n_keys]  # [R, K, d]
    xq = p.W_E[:, n_keys:]  # [R, Q, d]
    E = (xq @ p.W_U)[:, None].expand(R, n_keys, n_q, p.W_U.shape[-1])  # [R, K, Q, V]
    xk_grid = xk[:, :, None].expand(R, n_keys, n_q, d).reshape(R, n_keys * n_q, d)
    xq_grid = xq[:, None].expand(R, n_keys, n_q, d).reshape(R, n_keys * n_q, d)
    A = _attention(p, xk_grid, xq_grid).reshape(R, -1, n_keys, n_q, 2)  # [R, H, K, Q, 2]
    OV = torch.einsum("rjd,rhde,rhef,rfv->rhjv", p.W_E, p.W_V, p.W_O, p.W_U)  # [R, H, K+Q, V]
    return E, A, OV


def circuit_tensor(p: FactsParams, n_keys: int) -> torch.Tensor:
    """L = E + sum_h A^h V^h: ``L[r, k, q, :] = E[k, q] + sum_h (A^h[k, q, key] OV^h[k] + A^h[k, q, query] OV^h[q])``,
    shape ``[R, |K|, |Q|, |V|]``."""
    E, A, OV = circuit_parts(p, n_keys)
    ov_k = OV[:, :, :n_keys]  # [R, H, K, V]
    ov_q = OV[:, :, n_keys:]  # [R, H, Q, V]
    heads = A[..., 0, None] * ov_k[:, :, :, None] + A[..., 1, None] * ov_q[:, :, None]  # [R, H, K, Q, V]
    return E + heads.sum(1)


def circuit_rank_bound(*, d_model: int, n_heads: int, d_vo: int, n_queries: int, n_keys: int | None = None,
                       n_values: int | None = None) -> int:
    """An upper bound on rank(L) that any reading of Proposition 3.5 / Eq. (9) must respect:

        rank(L) <= sum_q rank(L[:, q, :]) <= |Q| min(d_model, 1 + H d_vo[, |K|, |V|]).

    Slice q is L_q = 1 g_q^T + sum_{h, t} (A^h(:, q)_key * ((x_k - x_q) W_V^h)[:, t]) (W_O^h W_U)[t]^T with
    g_q = x_q (I + sum_h W_OV^h) W_U (the attention weights on key and query sum to 1), so it has rank at most
    1 + H d_vo, and at most d_model (L_q = X_q W_U). d_qk does not enter. (Certified lower bound, for comparison:
    the key flattening spans 1 and the |Q| H d_vo gated columns, so rank(L) >= 1 + |Q| H d_vo generically when
    1 + H d_vo <= d_model and |K| is large enough.)
    """
    d_model = check_int("d_model", d_model, min_value=1)
    n_heads = check_int("n_heads", n_heads, min_value=1)
    d_vo = check_int("d_vo", d_vo, min_value=1)
    n_queries = check_int("n_queries", n_queries, min_value=1)
    per_slice = min(d_model, 1 + n_heads * d_vo)
    if n_keys is not None:
        per_slice = min(per_slice, check_int("n_keys", n_keys, min_value=1))
    if n_values is not None:
        per_slice = min(per_slice, check_int("n_values", n_values, min_value=1))
    return n_queries * per_slice


# --------------------------------------------------------------------------------------------------------------
# Training


def _batch_data(runs: Sequence[tuple[FactsConfig, int]]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    dbs = [run_database(c, s) for c, s in runs]
    t = np.stack([db.triples for db in dbs]).copy()  # [R, N, 3]
    n_keys = runs[0][0].n_keys
    return torch.from_numpy(t[:, :, 0]), torch.from_numpy(t[:, :, 1] + n_keys), torch.from_numpy(t[:, :, 2])


def _padded_params(runs: Sequence[tuple[FactsConfig, int]], dtype: torch.dtype) -> FactsParams:
    """Each run's own init (:func:`init_params`), zero-padded to the batch's largest d_model, d_qk and d_vo.

    Padding is exact: a zero column of W_Q and W_K (or of W_V with the matching zero row of W_O) adds 0 to every
    score (output), and a zero residual coordinate (zero column of W_E and W_O, zero row of W_Q, W_K, W_V, W_U)
    adds 0 to every logit; all of them receive zero gradient, so they stay zero. The per-run 1/sqrt(d_qk) scale
    is kept in ``qk_scale``.
    """
    dm = max(c.d_model for c, _ in runs)
    dqk = max(c.d_qk for c, _ in runs)
    dvo = max(c.d_vo for c, _ in runs)
    parts = []
    pad = torch.nn.functional.pad
    for c, s in runs:
        w = init_params(c, [s], dtype=torch.float64)
        e = dm - c.d_model
        parts.append([pad(w.W_E, (0, e)), pad(w.W_Q, (0, dqk - c.d_qk, 0, e)), pad(w.W_K, (0, dqk - c.d_qk, 0, e)),
                      pad(w.W_V, (0, dvo - c.d_vo, 0, e)), pad(w.W_O, (0, e, 0, dvo - c.d_vo)), pad(w.W_U, (0, 0, 0, e))])
    stacked = [torch.cat([p[i] for p in parts]).to(dtype) for i in range(6)]
    scale = torch.tensor([1 / math.sqrt(c.d_qk) if c.d_qk else 1.0 for c, _ in runs], dtype=torch.float64)
    return FactsParams(*stacked, qk_scale=scale)


def _metrics(logits: torch.Tensor, values: torch.Tensor) -> dict:
    """Per run: argmax accuracy, softmax>=tau accuracy for each tau in TAUS, mean loss."""
    with torch.no_grad():
        logp = torch.log_softmax(logits.double(), dim=-1)
        true = logp.gather(-1, values[..., None])[..., 0]  # [R, N]
        others = logp.clone()
        others.scatter_(-1, values[..., None], -math.inf)
        argmax_ok = true > others.max(-1).values  # strict: ties fail
        out = {"argmax": argmax_ok.double().mean(-1)}
        p_true = true.exp()
        for tau in TAUS:
            out[f"tau={tau}"] = (p_true >= tau).double().mean(-1)
        out["loss"] = -true.mean(-1)
        out["min_p"] = p_true.min(-1).values
    return out


def train_facts(config: FactsConfig, seeds: Sequence[int], *, dtype: torch.dtype = torch.float32,
                on_result: Callable[[dict], None] | None = None) -> list[dict]:
    """Train one run of ``config`` per seed in one batch (see :func:`train_facts_batch`)."""
    if not isinstance(config, FactsConfig):
        raise ValueError(f"config must be a FactsConfig, got {type(config).__name__}")
    return train_facts_batch([(config, s) for s in seeds], dtype=dtype, on_result=on_result)


def train_facts_batch(runs: Sequence[tuple[FactsConfig, int]], *, dtype: torch.dtype = torch.float32,
                      on_result: Callable[[dict], None] | None = None) -> list[dict]:
    """Train many runs in one batch; their configs must share :meth:`FactsConfig.shape_key` (d_model, d_qk, d_vo
    may differ).

    Full batch, cross-entropy on the value, AdamW (the RGR engine's stacked step: elementwise, so each run gets its
    own optimiser's update). Every ``check_every`` epochs a run whose every triple has softmax probability
    >= stop_tau stops: its record is taken then (later epochs of other runs do not change it). A run's record
    depends on its config and seed only (up to float rounding of the batched products). Record: config, seed,
    epochs, stopped, accuracies (argmax and softmax>=tau), loss, smallest true-value probability, and the rank
    bound of its circuit tensor (:func:`circuit_rank_bound`).
    """
    from ..engine import stacked_adamw_step

    runs = list(runs)
    for c, s in runs:
        if not isinstance(c, FactsConfig):
            raise ValueError(f"runs must hold (FactsConfig, seed) pairs, got {type(c).__name__}")
        check_int("seed", s, min_value=0, max_value=2**63 - 1)
    if not runs:
        return []
    check_choice("dtype", dtype, (torch.float32, torch.float64))
    if len({c.shape_key() for c, _ in runs}) != 1:
        raise ValueError("runs must share FactsConfig.shape_key() (only d_model, d_qk, d_vo and database may differ)")
    config = runs[0][0]
    keys, queries, values = _batch_data(runs)
    p = _padded_params(runs, dtype)
    params = p.tensors()
    exp_avgs = [torch.zeros_like(w) for w in params]
    exp_avg_sqs = [torch.zeros_like(w) for w in params]
    done: dict[int, dict] = {}

    def record(row: int, epoch: int, stopped: bool, m: dict) -> dict:
        c, seed = runs[row]
        rec = {"config": c.to_dict(), "seed": int(seed), "epochs": epoch, "stopped": stopped,
               "accuracy": {k: float(v[row]) for k, v in m.items() if k not in ("loss", "min_p")},
               "loss": float(m["loss"][row]), "min_p": float(m["min_p"][row]),
               "rank_bound": circuit_rank_bound(d_model=c.d_model, n_heads=c.n_heads, d_vo=c.d_vo,
                                                n_queries=c.n_queries, n_keys=c.n_keys, n_values=c.values),
               "facts_version": FACTS_VERSION}
        if on_result is not None:
            on_result(rec)
        return rec

    for epoch in range(1, config.epochs + 1):
        for w in params:
            w.requires_grad_(True)
        logits = forward_logits(p, keys, queries)  # [R, N, V]
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), values, reduction="none").mean(-1).sum()
        grads = torch.autograd.grad(loss, params)
        for w in params:
            w.requires_grad_(False)
        stacked_adamw_step(params, grads, exp_avgs, exp_avg_sqs, epoch, lr=config.lr,
                           weight_decay=config.weight_decay)
        if epoch % config.check_every == 0 or epoch == config.epochs:
            with torch.no_grad():
                m = _metrics(forward_logits(p, keys, queries), values)
            for row in range(len(runs)):
                if row in done:
                    continue
                if float(m["min_p"][row]) >= config.stop_tau:
                    done[row] = record(row, epoch, True, m)
                elif epoch == config.epochs:
                    done[row] = record(row, epoch, False, m)
            if len(done) == len(runs):
                break
    return [done[i] for i in range(len(runs))]
