"""Adaptive D_K threshold search per (m, d_model, h) cell (Sec. 6 / App. A.2), as an alternative to the full ladder.

A *cell* is every protocol field of a run except its per-head width: one :class:`~rgr_verify.engine.RunConfig`
whose ``d_k`` is free, trained at several total key dimensions D_K = h d_k (a *ladder*, multiples of h) with the
same seeds at every D_K. The ladder threshold of a cell is the App. A.2 central rule of
:func:`rgr_verify.analysis.capacity.threshold` (used by :mod:`rgr_verify.claims.paper_sec6` and :mod:`rgr_verify.analysis.fits`)
restricted to one head count: the smallest ladder D_K whose **mean test micro-F1 over the seeds is >= 0.99**
(``target``). The same pass rule decides every probe here.

The search (:func:`adaptive_threshold`) has three phases:

1. **Bracket on the ladder.** ``bracket="scan"`` (default) probes the rungs from the bottom up and stops at the first
   that passes, so it finds the ladder threshold exactly, monotone curve or not, and skips every rung above it.
   ``bracket="bisect"`` bisects the rung indices instead (fewer probes), which finds the ladder threshold only when
   pass/fail is monotone in D_K on the ladder. No passing rung: the cell is **censored** (D_K* > the top rung).
2. **Bisect on multiples of h** strictly between the last failing rung below the first passing one (0 when the
   lowest rung passes, so widths down to d_k = 1 are tried) and that passing rung. This assumes that pass/fail is
   monotone in D_K between the two rungs: it returns the smallest passing multiple of h there under that assumption.
3. **Check.** When the bisection ends on a multiple T below the passing rung, T + h is probed too (unless it is
   that rung): a failure there shows pass/fail is not monotone inside the bracket, so the bisection's answer is
   not the smallest passing width; the cell is then reported **non-monotone** (no D_K*, with the probes), never
   bisected through. An unknown check leaves the result exact (unchecked, as before).

A *probe* evaluates one D_K of a cell for all its seeds at once: it is called with a list of requests
``[(config, seeds), ...]`` (``config`` the cell's run at that D_K: only ``d_k`` differs from the cell's ladder
runs, so stored ladder results are the same keys; ``seeds`` a tuple) and returns, per request, the per-seed test
metrics (``None`` for a seed it cannot answer) or a :class:`ProbeOutcome` that also counts the runs it trained.
:func:`adaptive_thresholds` runs many cells in lockstep, one request per unfinished cell per call, so an engine
probe trains all of them in one batch. Probes: :func:`records_probe` (stored records as an oracle, unknown where
a run is not stored), :func:`engine_probe` (trains with :func:`rgr_verify.engine.train_runs`), :func:`store_probe`
(the results store and committed records first, then trains and stores what is missing).

An unknown probe ends a search: during the bracket it is reported as ``"unknown"``, during the bisect as
``"bracket-only"`` with the tightest interval known. Every probe made is recorded with the runs it trained.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable, Generator, Iterable, Mapping, Sequence

import numpy as np

from ..basics.checks import check_choice, check_int, check_probability
from ..engine import RunConfig, run_key
from .ladder import CandidateRuns, cells_of

__all__ = ["BRACKETS", "STATUSES", "ProbeOutcome", "ProbeRecord", "AdaptiveResult", "adaptive_threshold",
           "adaptive_thresholds", "cells_of", "CandidateRuns", "records_probe", "engine_probe", "store_probe"]

BRACKETS = ("scan", "bisect")
# exact: bisect complete; bracket-only: a bisect probe was unknown; censored: no rung passes; unknown: a rung was;
# non-monotone: a width just above the bisection's answer fails (pass/fail not monotone inside the bracket).
STATUSES = ("exact", "bracket-only", "censored", "unknown", "non-monotone")


@dataclass(frozen=True)
class ProbeOutcome:
    """A probe's answer for one request: per-seed test metrics (None: unknown) and the runs trained for it."""

    metrics: tuple
    trained: int = 0


@dataclass(frozen=True)
class ProbeRecord:
    """One probe made by a search: D_K, phase, per-seed metrics and pass/fail, the mean rule's verdict."""

    D_K: int
    phase: str  # "bracket", "bisect" or "check"
    metrics: tuple  # per seed (None: unknown)
    seed_passed: tuple  # per seed: metric >= target (None: unknown)
    mean: float | None  # mean over the seeds (None when any is unknown)
    passed: bool | None  # mean >= target (None: unknown)
    trained: int  # runs trained to answer it

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class AdaptiveResult:
    """Outcome of the search on one cell.

    ``low``/``high``: the largest D_K known to fail (0: none) and the smallest known to pass (None: none), so
    D_K* lies in (low, high]; ``ladder_dk``: the ladder threshold found by the bracket (None: censored/unknown).
    """

    cell: RunConfig  # the cell's run at its lowest rung
    ladder: tuple
    seeds: tuple
    bracket: str
    target: float
    status: str  # one of STATUSES
    ladder_dk: int | None
    low: int
    high: int | None
    probes: tuple  # ProbeRecord, in the order made

    @property
    def h(self) -> int:
        return self.cell.n_heads

    @property
    def dk_star(self) -> int | None:
        """The adaptive D_K* (the smallest passing multiple of h), when the search completed."""
        return self.high if self.status == "exact" else None

    @property
    def mean_at_star(self) -> float | None:
        """Mean test F1 over the seeds at D_K* (App. A.2's tie-break between head counts), when known."""
        means = [p.mean for p in self.probes if p.D_K == self.dk_star and p.mean is not None]
        return means[0] if self.dk_star is not None and means else None

    @property
    def width(self) -> float | None:
        """Per-head width d_k* = D_K* / h, when the search completed."""
        return None if self.dk_star is None else self.dk_star / self.h

    @property
    def runs_probed(self) -> int:
        """Runs the search's probes comprise (what it trains from scratch)."""
        return len(self.probes) * len(self.seeds)

    @property
    def runs_trained(self) -> int:
        """Runs trained to answer the probes (the rest were stored)."""
        return sum(p.trained for p in self.probes)

    @property
    def runs_unknown(self) -> int:
        """Runs asked for that the probe could not answer (not stored, nothing trained)."""
        return sum(v is None for p in self.probes for v in p.metrics)

    @property
    def ladder_runs(self) -> int:
        """Runs of the full ladder of the cell."""
        return len(self.ladder) * len(self.seeds)

    def as_dict(self) -> dict:
        c = self.cell
        return {"m": c.m, "d_model": c.d_model, "h": c.n_heads, "variant": c.variant, "graph": c.graph, "r": c.r,
                "ladder": list(self.ladder), "seeds": list(self.seeds), "bracket": self.bracket,
                "target": self.target, "status": self.status, "ladder_dk": self.ladder_dk,
                "dk_star": self.dk_star, "width": self.width, "low": self.low, "high": self.high,
                "runs_probed": self.runs_probed, "runs_trained": self.runs_trained,
                "runs_unknown": self.runs_unknown, "ladder_runs": self.ladder_runs,
                "probes": [p.as_dict() for p in self.probes]}


# ---------------------------------------------------------------------------------------------------------------
# The search, as a generator: yields (D_K, phase), receives the probe's verdict (True, False or None).

_Search = Generator[tuple, "bool | None", tuple]


def _first_pass(values: Sequence[int], phase: str, scan: bool, seen: list | None = None) -> Generator:
    """Index of the first passing value (len(values): none passes), or None if a probe was unknown. ``scan``:
    bottom-up (exact without monotonicity); else bisection (assumes pass/fail monotone in the values)."""
    if scan:
        for i, D in enumerate(values):
            verdict = yield (D, phase)
            if verdict is None:
                return None, i - 1, len(values)
            if verdict:
                return i, i - 1, i
        return len(values), len(values) - 1, len(values)
    fail, ok = -1, len(values)  # fail: an index known failing (-1: none); ok: known passing (len: none)
    while ok - fail > 1:
        mid = (fail + ok) // 2
        verdict = yield (values[mid], phase)
        if seen is not None:
            seen.append(values[mid])
        if verdict is None:
            return None, fail, ok
        if verdict:
            ok = mid
        else:
            fail = mid
    return ok, fail, ok


def _search(h: int, ladder: tuple, bracket: str) -> _Search:
    """(status, ladder_dk, low, high) of one cell; see the module docstring."""
    found, fail, ok = yield from _first_pass(ladder, "bracket", bracket == "scan")
    low = ladder[fail] if fail >= 0 else 0
    high = ladder[ok] if ok < len(ladder) else None
    if found is None:
        return "unknown", None, low, high
    if found == len(ladder):
        return "censored", None, low, None
    ladder_dk = ladder[found]
    between = tuple(k * h for k in range(low // h + 1, ladder_dk // h))
    probed: list = []
    got, fail, ok = yield from _first_pass(between, "bisect", False, probed)
    low = between[fail] if fail >= 0 else low
    high = between[ok] if ok < len(between) else ladder_dk
    if got is None:
        return "bracket-only", ladder_dk, low, high
    if high + h < ladder_dk and high + h not in probed:  # the check: does the width just above the answer pass?
        above = yield (high + h, "check")
        if above is False:
            return "non-monotone", ladder_dk, low, high
    return "exact", ladder_dk, low, high


# ---------------------------------------------------------------------------------------------------------------
# Drivers


def _check_cell(cell, ladder, seeds) -> tuple[RunConfig, tuple, tuple]:
    if not isinstance(cell, RunConfig):
        raise ValueError(f"cell must be a RunConfig, got {type(cell).__name__}")
    if cell.variant not in ("max", "softmax"):
        raise ValueError(f"cell.variant must be 'max' or 'softmax' (an F1 threshold), got {cell.variant!r}")
    h = cell.n_heads
    if isinstance(ladder, (str, bytes)) or not isinstance(ladder, Iterable):
        raise ValueError(f"ladder must be a sequence of D_K values, got {type(ladder).__name__}")
    rungs = sorted({check_int("ladder value", D, min_value=1) for D in ladder})
    if not rungs:
        raise ValueError("ladder must hold at least one D_K")
    bad = [D for D in rungs if D % h]
    if bad:
        raise ValueError(f"ladder values must be multiples of h = {h}, got {bad}")
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise ValueError(f"seeds must be a sequence of integers >= 0, got {type(seeds).__name__}")
    seeds = tuple(check_int("seed", s, min_value=0, max_value=2**63 - 1) for s in seeds)
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be non-empty and distinct, got {list(seeds)}")
    return dataclasses.replace(cell, d_k=rungs[0] // h), tuple(rungs), seeds


def _outcome(raw, n: int) -> ProbeOutcome:
    out = raw if isinstance(raw, ProbeOutcome) else ProbeOutcome(tuple(raw) if isinstance(raw, Iterable) else ())
    if len(out.metrics) != n:
        raise ValueError(f"probe must return {n} metrics per request (one per seed), got {len(out.metrics)}")
    metrics = tuple(None if v is None else float(v) for v in out.metrics)
    if any(v is not None and not math.isfinite(v) for v in metrics):
        raise ValueError(f"probe metrics must be finite numbers or None, got {metrics}")
    return ProbeOutcome(metrics, check_int("probe trained", out.trained, min_value=0, max_value=n))


def adaptive_thresholds(cells: Sequence[tuple], probe: Callable, *, bracket: str = "scan",
                        target: float | None = None) -> list[AdaptiveResult]:
    """:func:`adaptive_threshold` for many ``(cell, ladder, seeds)`` triples in lockstep: each call of ``probe``
    gets one request per unfinished cell (so a training probe trains them as one batch). Results in input order.
    ``target`` None: App. A.2's F1 bar in force (:func:`rgr_verify.analysis.capacity.f1_target`: the multiverse's "F1 target"
    when an analysis sets one)."""
    from ..analysis.capacity import f1_target

    check_choice("bracket", bracket, BRACKETS)
    target = check_probability("target", f1_target() if target is None else target)
    if not callable(probe):
        raise ValueError(f"probe must be callable, got {type(probe).__name__}")
    if isinstance(cells, (str, bytes)) or not isinstance(cells, Iterable):
        raise ValueError("cells must be a sequence of (cell, ladder, seeds) triples")
    cells = list(cells)
    if any(not isinstance(t, tuple) or len(t) != 3 for t in cells):
        raise ValueError("cells must be a sequence of (cell, ladder, seeds) triples")
    checked = [_check_cell(*t) for t in cells]
    searches = [_search(c.n_heads, ladder, bracket) for c, ladder, _ in checked]
    probes: list[list[ProbeRecord]] = [[] for _ in checked]
    outcome: dict[int, tuple] = {}
    pending = {i: s.send(None) for i, s in enumerate(searches)}  # every search probes at least one rung
    while pending:
        order = sorted(pending)
        requests = [(dataclasses.replace(checked[i][0], d_k=pending[i][0] // checked[i][0].n_heads), checked[i][2])
                    for i in order]
        answers = probe(requests)
        if isinstance(answers, (str, bytes)) or not isinstance(answers, Sequence) or len(answers) != len(requests):
            raise ValueError(f"probe must return one answer per request ({len(requests)})")
        for i, raw in zip(order, answers):
            got = _outcome(raw, len(checked[i][2]))
            known = all(v is not None for v in got.metrics)
            mean = float(np.mean(got.metrics)) if known else None
            passed = None if mean is None else bool(mean >= target)
            D, phase = pending.pop(i)
            probes[i].append(ProbeRecord(D, phase, got.metrics, tuple(None if v is None else bool(v >= target)
                                                                      for v in got.metrics), mean, passed,
                                         got.trained))
            try:
                pending[i] = searches[i].send(passed)
            except StopIteration as stop:
                outcome[i] = stop.value
    return [AdaptiveResult(c, ladder, seeds, bracket, target, *outcome[i], tuple(probes[i]))
            for i, (c, ladder, seeds) in enumerate(checked)]


def adaptive_threshold(cell: RunConfig, ladder: Sequence[int], seeds: Sequence[int], probe: Callable, *,
                       bracket: str = "scan", target: float | None = None) -> AdaptiveResult:
    """Adaptive D_K* of one (m, d_model, h) cell: bracket on ``ladder``, then bisect on multiples of h.

    ``cell``: any run of the cell (its ``d_k`` is ignored); ``ladder``: the D_K values of the full ladder
    (multiples of ``cell.n_heads``); ``seeds``: the seeds every probe trains; ``probe``: called with a list of
    ``(config, seeds)`` requests (here one at a time), returns per request the per-seed metrics or a
    :class:`ProbeOutcome`. Pass rule, bracket modes, monotonicity and statuses: see the module docstring.
    """
    return adaptive_thresholds([(cell, ladder, seeds)], probe, bracket=bracket, target=target)[0]


# ---------------------------------------------------------------------------------------------------------------
# Probes


def _by_key(records) -> dict[str, dict]:
    if isinstance(records, Mapping):
        return dict(records)
    if isinstance(records, (str, bytes)) or not isinstance(records, Iterable):
        raise ValueError("records must be a mapping key -> record or an iterable of records")
    out = {}
    for rec in records:
        if not isinstance(rec, dict) or "config" not in rec or "seed" not in rec:
            raise ValueError("records must be engine run records (dicts with 'config' and 'seed')")
        out[run_key(RunConfig.from_dict(rec["config"]), rec["seed"])] = rec
    return out


def records_probe(records) -> Callable:
    """A probe answering from stored run records (a mapping run key -> record, or records): each seed's test
    metric, None where the run is not stored. Trains nothing."""
    have = _by_key(records)

    def probe(requests):
        return [ProbeOutcome(tuple(None if (r := have.get(run_key(c, s))) is None else float(r["metric"])
                                   for s in seeds)) for c, seeds in requests]

    return probe


def engine_probe(*, device: str = "cpu", dtype=None, on_result: Callable | None = None) -> Callable:
    """A probe that trains every requested run (all requests of a call in one :func:`rgr_verify.engine.train_runs`
    call, float32 unless ``dtype``) and answers with their test metrics; ``on_result`` gets each RunResult."""
    import torch

    from ..engine import train_runs

    dtype = torch.float32 if dtype is None else dtype
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype!r}")
    if on_result is not None and not callable(on_result):
        raise ValueError(f"on_result must be callable or None, got {type(on_result).__name__}")

    def probe(requests):
        runs = [(c, s) for c, seeds in requests for s in seeds]
        results = train_runs(runs, device=device, dtype=dtype, on_result=on_result)
        got = {(r.config, r.seed): r.metric for r in results}
        return [ProbeOutcome(tuple(got[(c, s)] for s in seeds), len(seeds)) for c, seeds in requests]

    return probe


def store_probe(results_dir=None, *, stored=None, train: bool = True, device: str | None = None,
                threads: int | None = None) -> Callable:
    """A probe backed by the results store (:class:`rgr_verify.runs.store.ResultStore` in ``results_dir``) and by
    ``stored`` records (e.g. the committed evidence): a run found in either is reused; with ``train``, the
    missing runs of a call are trained together by :func:`rgr_verify.runs.sweeps.ensure_runs` (and so stored) and
    counted as trained; without, they are unknown."""
    from .store import ResultStore
    from .sweeps import ensure_runs

    if not isinstance(train, bool):
        raise ValueError(f"train must be a bool, got {train!r}")
    extra = _by_key(stored or {})
    store = ResultStore(results_dir)

    def probe(requests):
        have = {**extra, **store.records()}
        missing = [(c, s) for c, seeds in requests for s in seeds if run_key(c, s) not in have]
        trained: set = set()
        if missing and train:  # trained (and stored) together; a run a concurrent caller stored meanwhile is reused
            recs, _ = ensure_runs(missing, results_dir=results_dir, device=device, threads=threads)
            have.update({run_key(c, s): r for (c, s), r in zip(missing, recs)})
            trained = {run_key(c, s) for c, s in missing}
        out = []
        for c, seeds in requests:
            keys = [run_key(c, s) for s in seeds]
            out.append(ProbeOutcome(tuple(float(have[k]["metric"]) if k in have else None for k in keys),
                                    sum(k in trained for k in keys)))
        return out

    return probe
