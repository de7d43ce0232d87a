"""The cells of a preset's D_K ladder: runs that differ only in their per-head width ``d_k`` (:func:`cells_of`), and
the runs an adaptive D_K* search may train between a cell's rungs (:class:`CandidateRuns`). Used by
:mod:`rgr_verify.runs.adaptive` (the search) and :mod:`rgr_verify.runs.evidence` (which checks committed adaptive evidence
against :class:`CandidateRuns`); depends on the engine's configs only.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable

from ..basics.checks import check_int
from ..engine import RunConfig, run_key

__all__ = ["cells_of", "CandidateRuns"]


def cells_of(runs: Iterable[tuple[RunConfig, int]]) -> list[tuple[RunConfig, tuple, tuple]]:
    """The (cell, ladder, seeds) triples of a preset's runs: runs that differ only in ``d_k`` form a cell (the
    cell is its run at the lowest rung). Every rung of a cell must have the same seeds. Sorted by (m, d_model, h)."""
    groups: dict[RunConfig, dict[int, set]] = {}
    cell_of: dict[RunConfig, RunConfig] = {}  # a config's cell, built once per config (its seeds share it)
    for item in runs:
        if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[0], RunConfig):
            raise ValueError("runs must be (RunConfig, seed) pairs")
        cfg, seed = item
        seed = check_int("seed", seed, min_value=0)
        cell = cell_of.get(cfg)
        if cell is None:
            cell = cell_of[cfg] = dataclasses.replace(cfg, d_k=1)
        groups.setdefault(cell, {}).setdefault(cfg.D_K, set()).add(seed)
    out = []
    for key, rungs in groups.items():
        seed_sets = {frozenset(s) for s in rungs.values()}
        if len(seed_sets) != 1:
            raise ValueError(f"runs of the cell (m={key.m}, d_model={key.d_model}, h={key.n_heads}) have different "
                             f"seeds at different D_K")
        ladder = tuple(sorted(rungs))
        out.append((dataclasses.replace(key, d_k=ladder[0] // key.n_heads), ladder, tuple(sorted(seed_sets.pop()))))
    return sorted(out, key=lambda t: (t[0].m, t[0].d_model, t[0].n_heads, repr(t[0])))


class CandidateRuns:
    """The runs an adaptive search of a preset can train beyond the preset's own: per cell (:func:`cells_of`), every
    multiple of h from h to the cell's top rung that is not a rung, at every seed of the cell. The committed
    adaptive evidence (:func:`rgr_verify.runs.evidence.add_evidence` with ``adaptive=True``) holds only such runs."""

    def __init__(self, runs: Iterable[tuple[RunConfig, int]]):
        self._cells = {dataclasses.replace(c, d_k=1): (frozenset(ladder), ladder[-1], frozenset(seeds))
                       for c, ladder, seeds in cells_of(runs)}

    def __len__(self) -> int:
        return sum((top // cell.n_heads - len(rungs)) * len(seeds) for cell, (rungs, top, seeds) in self._cells.items())

    def __contains__(self, run) -> bool:
        """Whether ``run`` = (config, seed) is a candidate (a bisect run, not a rung of the preset)."""
        if not isinstance(run, tuple) or len(run) != 2 or not isinstance(run[0], RunConfig):
            return False
        config, seed = run
        got = self._cells.get(dataclasses.replace(config, d_k=1))
        if got is None:
            return False
        rungs, top, seeds = got
        return seed in seeds and config.D_K <= top and config.D_K not in rungs

    def stores(self, key: str, record: dict) -> bool:
        """Whether ``record``, stored under ``key``, is a candidate run keyed as
        :func:`~rgr_verify.engine.run_key` keys it now (what committed adaptive evidence may hold)."""
        cfg = record.get("config") if isinstance(record, dict) else None
        if not isinstance(cfg, dict):
            return False
        config, seed = RunConfig.from_dict(cfg), record.get("seed")
        return (config, seed) in self and run_key(config, seed) == key
