"""Evaluation and early stopping (App. A.1, Sec. 7.2).

Validation micro-F1 (max, softmax) or MSE (value) of all live runs of a batch at every check
(:func:`validate`), the stopping rule (:class:`EarlyStopping`: stop after ``patience`` consecutive checks with F1
> ``stop_f1``, or, for the value variant, without improving on the best validation MSE; or at the step cap), and
the test metric of runs that finish (:func:`finish`, with the single learned tau).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np
import torch

from .config import RunConfig, RunResult
from .model import aggregate, head_scores, qk, scores
from .sampler import labels_torch

if TYPE_CHECKING:
    from .batch import Batch

__all__ = ["evaluate", "evaluate_pairs", "validate", "EarlyStopping", "finish"]


@torch.no_grad()
def evaluate(b: "Batch", ctx: torch.Tensor, labels: torch.Tensor | None = None, chunk: int = 250
             ) -> tuple[np.ndarray, np.ndarray]:
    """Micro-F1 (or MSE) per run over contexts ``[R, n, ell]`` (labels ``[R, n, ell, ell]`` if known);
    also returns the raw counts ``[R, 3]``."""
    R, n, _ = ctx.shape
    acc = torch.zeros(R, 3, dtype=torch.float64, device=b.device)
    for start in range(0, n, chunk):
        c = ctx[:, start:start + chunk]
        y = labels_torch(b.nbrs, c) if labels is None else labels[:, start:start + chunk]
        Xc = b.embed(c)
        S = scores(b, Xc)
        if b.c0.variant == "value":
            V = Xc @ b.W_V[:, None]
            err = ((S @ V - y.to(b.dtype) @ V) ** 2).sum(-1)
            valid = y.any(-1)
            acc[:, 0] += (err * valid).sum((1, 2)).double()
            acc[:, 1] += valid.sum((1, 2)).double()
        else:
            pred = S > b.tau[:, None, None, None]
            acc[:, 0] += (pred & y).sum((1, 2, 3)).double()
            acc[:, 1] += (pred & ~y).sum((1, 2, 3)).double()
            acc[:, 2] += (~pred & y).sum((1, 2, 3)).double()
    acc = acc.cpu().numpy()
    if b.c0.variant == "value":
        metric = acc[:, 0] / np.maximum(acc[:, 1], 1.0)
    else:
        num = 2 * acc[:, 0]
        den = num + acc[:, 1] + acc[:, 2]
        metric = np.where(den > 0, num / np.maximum(den, 1.0), 1.0)
    return metric, acc


@torch.no_grad()
def evaluate_pairs(b: "Batch", pairs: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Max variant: micro-F1 per run and counts ``[R, 3]`` from pair counts ``[R, 2, M^2]``
    (:func:`~rgr_verify.engine.sampler.pair_counts`). The same numbers as :func:`evaluate` on those contexts: S_max over the
    vertex-pair table X W_Q^(k) (X W_K^(k))^T, thresholded at tau, weighted by how often each pair occurs."""
    R, M = b.theta.shape[0], b.X.shape[1]
    Q, K = qk(b, b.X[:, None])  # [R, 1, H, M, d_k_pad]
    S = aggregate(b, head_scores(b, Q, K))[0][:, 0]  # [R, M, M]
    pred = (S > b.tau[:, None, None]).reshape(R, 1, M * M).double()
    tp_fp = (pairs * pred).sum(-1)  # [R, 2]
    acc = torch.stack((tp_fp[:, 0], tp_fp[:, 1], pairs[:, 0].sum(-1) - tp_fp[:, 0]), dim=1).cpu().numpy()
    num = 2 * acc[:, 0]
    den = num + acc[:, 1] + acc[:, 2]
    return np.where(den > 0, num / np.maximum(den, 1.0), 1.0), acc


def validate(b: "Batch") -> np.ndarray:
    """The validation metric ``[R]`` of the batch's rows (by pair counts when the batch has them)."""
    return (evaluate_pairs(b, b.val_pairs) if b.val_pairs is not None else evaluate(b, b.val, b.val_y))[0]


class EarlyStopping:
    """The stopping rule's state per run (by original index, so it survives rows leaving the batch): the
    validation history, the streak of passing (or, for "value", non-improving) checks, the best validation MSE."""

    def __init__(self, configs: Sequence[RunConfig]):
        self.configs = list(configs)
        R = len(self.configs)
        self.history: list[list[float]] = [[] for _ in range(R)]
        self.streak = np.zeros(R, dtype=np.int64)
        self.best = np.full(R, np.inf)

    def check(self, alive: Sequence[int], metric: np.ndarray, step: int) -> tuple[list, list, list]:
        """Record the check's ``metric [len(alive)]`` of the runs ``alive`` (original indices, in row order) after
        ``step`` steps. Returns the rows that go on, the rows that stop early, and the rows at their cap."""
        keep, done_stop, done_cap = [], [], []
        for row, j in enumerate(alive):
            cfg = self.configs[j]
            v = float(metric[row])
            self.history[j].append(v)
            if cfg.variant == "value":
                improved = v < self.best[j]
                self.best[j] = min(self.best[j], v)
                self.streak[j] = 0 if improved else self.streak[j] + 1
            else:
                self.streak[j] = self.streak[j] + 1 if v > cfg.stop_f1 else 0
            if self.streak[j] >= cfg.patience:
                done_stop.append(row)
            elif step >= cfg.max_steps:
                done_cap.append(row)
            else:
                keep.append(row)
        return keep, done_stop, done_cap


def finish(b: "Batch", rows: Sequence[int], *, stopped: bool, step: int, history: Sequence[Sequence[float]],
           keep_weights: bool) -> list[tuple[int, RunResult]]:
    """(original index, :class:`RunResult`) of the batch rows ``rows`` that finish after ``step`` steps: test
    metric (pair counts or contexts), tau, ``history[j]`` of run j, test counts (and weights if
    ``keep_weights``). ``stopped``: whether they stopped early (else at their cap)."""
    if not rows:
        return []
    sub = b.subset(rows)
    metric, acc = evaluate_pairs(sub, sub.test_pairs) if sub.test_pairs is not None else evaluate(sub, sub.test)
    taus = sub.tau.double().cpu().numpy()  # one copy for all finished rows (float32 -> float64 is exact)
    results = []
    for k, row in enumerate(rows):
        j = b.alive[row]
        cfg = b.configs[j]
        extra = ({"test_sse": float(acc[k, 0]), "test_valid": float(acc[k, 1])} if cfg.variant == "value"
                 else {"tp": int(acc[k, 0]), "fp": int(acc[k, 1]), "fn": int(acc[k, 2])})
        if keep_weights:
            extra["weights"] = b.weights_of(row)
        results.append((j, RunResult(cfg, b.seeds[j], float(metric[k]), step, stopped,
                                     float(taus[k]), tuple(history[j]), extra)))
    return results
