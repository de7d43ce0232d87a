"""Units of a sweep: the batches a preset's runs are planned into, each the work of one worker at a time.

A preset is planned over *all* its runs (not only the missing ones), so a unit's id, a hash of its run keys,
stays the same across resumes: :func:`plan_units` cuts the runs with the engine's batch planner
(:func:`rgr_verify.engine.plan_batches`: runs of one shape, at most ``unit_max_batch`` a unit) and orders the units
largest capped cost first, the order workers take them in (longest first balances the workers' finishing times).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Iterable, Sequence

from ...basics.checks import check_int, check_real
from ...engine import RunConfig, plan_batches, run_key

__all__ = ["Unit", "UnitStatus", "plan_units", "unit_id", "unit_status", "format_units", "format_status"]


def unit_id(keys: Iterable[str]) -> str:
    """The id of a unit: the first 16 hex digits of the sha256 of its sorted run keys, one a line."""
    keys = sorted(keys)
    if not keys or not all(isinstance(k, str) and k for k in keys):
        raise ValueError("keys must be a non-empty collection of non-empty strings")
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Unit:
    """A batch of runs of one shape: ``runs`` ((config, seed) pairs), their store ``keys`` and the unit ``id``."""

    id: str
    runs: tuple
    keys: tuple

    @classmethod
    def of(cls, runs: Sequence[tuple[RunConfig, int]]) -> "Unit":
        """The unit of these runs (its keys computed, its id hashed from them)."""
        runs = tuple((c, int(s)) for c, s in runs)
        keys = tuple(run_key(c, s) for c, s in runs)
        return cls(unit_id(keys), runs, keys)

    @property
    def capped_cost(self) -> int:
        """Padded cost of training the unit to its step cap, in (run x head x d_k x d_model x step) units: an upper
        bound (runs that stop early cost less), used to order and compare units."""
        configs = [c for c, _ in self.runs]
        return (len(configs) * max(c.n_heads for c in configs) * max(c.d_k for c in configs)
                * max(c.d_model for c in configs) * max(c.max_steps for c in configs))

    @property
    def shape(self) -> str:
        """One line naming the unit's shape: variant, graph, d_model, and the ranges of m, h, d_k and step caps."""
        configs = [c for c, _ in self.runs]
        c0 = configs[0]

        def span(values) -> str:
            lo, hi = min(values), max(values)
            return str(lo) if lo == hi else f"{lo}-{hi}"

        graph = c0.graph if c0.graph == "permutation" else f"{c0.graph} r={c0.r}"
        return (f"{c0.variant}/{graph} d_model={c0.d_model} m={span([c.m for c in configs])} "
                f"h={span([c.n_heads for c in configs])} d_k={span([c.d_k for c in configs])} "
                f"cap={span([c.max_steps for c in configs])}")


@dataclass(frozen=True)
class UnitStatus:
    """How much of a unit the store holds: ``done`` of its ``total`` runs; ``state`` done / partial / missing."""

    unit: Unit
    done: int

    @property
    def total(self) -> int:
        return len(self.unit.keys)

    @property
    def state(self) -> str:
        return "done" if self.done == self.total else "partial" if self.done else "missing"


def plan_units(runs: Iterable[tuple[RunConfig, int]], *, unit_max_batch: int = 256,
               max_waste: float = 4.0) -> list[Unit]:
    """The units of ``runs`` (duplicates dropped), largest capped cost first (ties: more runs first, then by id).

    ``unit_max_batch`` (>= 1): most runs in a unit; ``max_waste`` (>= 1): the batch planner's largest padded cost
    of a unit over its runs' own cost. The same runs and knobs always give the same units and ids."""
    unit_max_batch = check_int("unit_max_batch", unit_max_batch, min_value=1)
    max_waste = check_real("max_waste", max_waste, low=1.0)
    runs = list(dict.fromkeys((c, int(s)) for c, s in runs))
    units = [Unit.of(batch) for batch in plan_batches(runs, max_batch=unit_max_batch, max_waste=max_waste)]
    return sorted(units, key=lambda u: (-u.capped_cost, -len(u.runs), u.id))


def unit_status(units: Sequence[Unit], have: Iterable[str]) -> list[UnitStatus]:
    """The status of each unit given the keys the store ``have``s."""
    have = set(have)
    return [UnitStatus(u, sum(k in have for k in u.keys)) for u in units]


def format_units(units: Sequence[Unit]) -> str:
    """The table that ``rgr-verify sweep --dry-run`` prints: one line a unit (id, runs, shape, capped cost)."""
    total = sum(u.capped_cost for u in units) or 1
    lines = [f"{'unit':16}  {'runs':>4}  {'capped cost':>11}  {'share':>6}  shape"]
    for u in units:
        lines.append(f"{u.id:16}  {len(u.runs):4d}  {u.capped_cost:11.3e}  {100 * u.capped_cost / total:5.1f}%  "
                     f"{u.shape}")
    lines.append(f"{len(units)} units, {sum(len(u.runs) for u in units)} runs, capped cost {total:.3e}")
    return "\n".join(lines)


def format_status(statuses: Sequence[UnitStatus]) -> str:
    """The table that ``rgr-verify sweep --status`` prints: one line a unit (id, state, runs done of total)."""
    lines = [f"{'unit':16}  {'state':7}  {'runs':>9}  shape"]
    for st in statuses:
        lines.append(f"{st.unit.id:16}  {st.state:7}  {st.done:4d}/{st.total:<4d}  {st.unit.shape}")
    counts = {s: sum(st.state == s for st in statuses) for s in ("done", "partial", "missing")}
    runs_done = sum(st.done for st in statuses)
    runs_total = sum(st.total for st in statuses)
    lines.append(f"{len(statuses)} units: {counts['done']} done, {counts['partial']} partial, {counts['missing']} "
                 f"missing; {runs_done} of {runs_total} runs stored")
    return "\n".join(lines)
