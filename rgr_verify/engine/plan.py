"""The batch planner: which runs train together (:func:`plan_batches`)."""

from __future__ import annotations

from typing import Iterable

from ..basics.checks import check_int, check_real
from .config import RunConfig

__all__ = ["plan_batches"]


def plan_batches(runs: Iterable[tuple[RunConfig, int]], *, max_batch: int = 256, max_waste: float = 4.0
                 ) -> list[list[tuple[RunConfig, int]]]:
    """Group runs by shape key, then cut each group (sorted by heads, width) into batches whose padded cost
    R * H_max * d_k_max stays within ``max_waste`` times the sum of the runs' own h * d_k."""
    max_batch = check_int("max_batch", max_batch, min_value=1)
    max_waste = check_real("max_waste", max_waste, low=1.0)
    groups: dict[tuple, list] = {}
    for cfg, seed in runs:
        groups.setdefault(cfg.shape_key(), []).append((cfg, int(seed)))
    batches = []
    for key in sorted(groups, key=repr):
        items = sorted(groups[key], key=lambda cs: (cs[0].n_heads, cs[0].d_k, cs[0].max_steps, cs[1]))
        cur: list = []
        for item in items:
            trial = cur + [item]
            H = max(c.n_heads for c, _ in trial)
            d_k_pad = max(c.d_k for c, _ in trial)
            cost = len(trial) * H * d_k_pad
            own = sum(c.n_heads * c.d_k for c, _ in trial)
            if cur and (len(trial) > max_batch or cost > max_waste * own):
                batches.append(cur)
                cur = [item]
            else:
                cur = trial
        if cur:
            batches.append(cur)
    return batches
