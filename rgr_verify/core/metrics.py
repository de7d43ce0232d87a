"""Micro-F1 over all ordered pairs of all contexts (App. A.1), optionally per run.

micro-F1 = 2 TP / (2 TP + FP + FN), counting every ordered pair (p, q) of every context, diagonal included
(the loss of App. A.1 sums over all ell^2 pairs). When there is no positive label and no positive prediction the
F1 is defined as 1 (nothing to find, nothing claimed).
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["confusion_counts", "micro_f1"]


def confusion_counts(pred, labels, *, run_dims: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """TP, FP, FN summed over all but the first ``run_dims`` axes.

    Args:
        pred, labels: boolean (or 0/1) tensors of the same shape ``[*run, ...]``.
        run_dims: how many leading axes index independent runs (0 or 1).
    Returns:
        three int64 tensors of shape ``[*run]``.
    """
    pred_t = _as_bool("pred", pred)
    lab_t = _as_bool("labels", labels).to(pred_t.device)
    if pred_t.shape != lab_t.shape:
        raise ValueError(f"pred and labels must have the same shape, got {tuple(pred_t.shape)} and {tuple(lab_t.shape)}")
    if isinstance(run_dims, bool) or run_dims not in (0, 1) or run_dims > pred_t.ndim:
        raise ValueError(f"run_dims must be 0 or 1 (and at most pred.ndim), got {run_dims!r}")
    dims = tuple(range(run_dims, pred_t.ndim))
    tp = (pred_t & lab_t).sum(dim=dims) if dims else (pred_t & lab_t).long()
    fp = (pred_t & ~lab_t).sum(dim=dims) if dims else (pred_t & ~lab_t).long()
    fn = (~pred_t & lab_t).sum(dim=dims) if dims else (~pred_t & lab_t).long()
    return tp, fp, fn


def micro_f1(pred, labels, *, run_dims: int = 0) -> torch.Tensor:
    """Micro-F1 = 2TP / (2TP + FP + FN) over all pairs of all contexts; 1.0 when 2TP + FP + FN = 0.

    Returns a float64 tensor of shape ``[*run]`` (a 0-d tensor when ``run_dims == 0``).
    """
    tp, fp, fn = confusion_counts(pred, labels, run_dims=run_dims)
    num = 2.0 * tp.double()
    den = num + fp.double() + fn.double()
    return torch.where(den > 0, num / den.clamp_min(1.0), torch.ones_like(num))


def _as_bool(name: str, value) -> torch.Tensor:
    t = value if isinstance(value, torch.Tensor) else torch.as_tensor(np.asarray(value))
    if t.dtype == torch.bool:
        return t
    if t.is_floating_point() and not bool(torch.isfinite(t).all()):
        raise ValueError(f"{name} must contain only 0/1 or boolean values")
    if not bool(((t == 0) | (t == 1)).all()):
        raise ValueError(f"{name} must contain only 0/1 or boolean values")
    return t.bool()
