"""The Sec. 7.3 sweep: training (or replaying) every run of a preset, its result store and record keys.

A sweep trains every (D_K, h, seed) of a :class:`~rgr_verify.runs.sec73_presets.Sec73Preset` with
:func:`rgr_verify.models.transformer.train_block_runs` on the frozen table of its embedding source and appends one JSON line per
run to ``<results_dir>/sec73-runs.jsonl``. Each record is keyed by a hash of the run's full configuration, its
seed, the device kind and the trainer's declared code version (:data:`CODE_VERSIONS`), so a later sweep (or a
claim, or another pytest worker) replays stored runs instead of training them again. Records keyed under a hashed
code version of the era before declared versions replay too when the declared version adopted it
(:func:`adopted_versions`), re-keyed under the declared version. The file is a :class:`rgr_verify.runs.store.JsonlStore`, like the engine's
``runs.jsonl``: appends are whole lines under a file lock, a torn line left by a killed writer is skipped and
terminated by the next append. Missing runs train in groups of equal h, each under its own named lock, so
concurrent callers of one sweep (pytest-xdist workers) split the groups between them and then replay.

A preset's ``engine`` picks the trainer: "v1" (the default) the one above, "v3" the keyless block of
:mod:`rgr_verify.models.transformer_v3` in mixed batches of any (D_K, h) (:func:`mixed_batches`), its records under their
own code version (``code_version("v3")``), keys and plan ("sec73v3:TIER:SOURCE:DEVICE:ROOT_SEED"), so that neither
engine's records replay as the other's.

Seeds come from the root seed only (not from a claim's seed), so every claim of Sec. 7.3 shares one sweep; seed
index i uses the same permutation pi and the same validation/test examples for every (D_K, h), which makes
comparisons between partitions paired by seed. The embedding table of a preset is built (only when something must
train) from its source: MiniLM, a local GPT-2 snapshot, or Gaussian rows drawn from the root seed.
"""

from __future__ import annotations

import dataclasses
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..basics.checks import check_choice, check_int, check_real
from ..basics.settings import GPT2_DIR_ENV, env
from .sec73_presets import Sec73Preset
from .evidence import with_evidence
from .store import JsonlStore
from ..models.transformer import BlockRunResult
from .sec73_keys import (CODE_VERSIONS, STORE_NAME, adopted_versions, code_of, sweep_plan, code_version, missing_cells,
                         plan_name, planned_runs, record_key)

__all__ = [
    "code_version",
    "record_key",
    "Sec73Results",
    "run_sec73",
    "stored_sec73",
    "STORE_NAME",
    "CODE_VERSIONS",
    "adopted_versions",
    "planned_runs",
    "missing_cells",
    "training_groups",
    "mixed_batches",
    "mixed_layout",
    "plan_name",
    "stored_runs",
    "source_table",
]

def _source_for(preset: Sec73Preset, *, root_seed: int, gpt2_dir: str | None):
    """The embedding source of ``preset`` and the generator its table is drawn with (Gaussian rows only)."""
    from ..models import embedding_sources as es

    if preset.source == "gpt2":
        gpt2_dir = gpt2_dir or env(GPT2_DIR_ENV)
        if not gpt2_dir:
            raise ValueError(f"the gpt2 source needs a local snapshot directory (--gpt2-dir or ${GPT2_DIR_ENV})")
        return es.GPT2Source(snapshot_dir=str(gpt2_dir)), None
    if preset.source == "gaussian":
        rng = np.random.default_rng(np.random.SeedSequence([int(root_seed), zlib.crc32(b"sec73-gaussian")]))
        return es.GaussianSource(d_model=preset.gaussian_d_model), rng
    return es.MiniLMSource(), None


def source_table(preset: Sec73Preset, *, root_seed: int, gpt2_dir: str | None = None):
    """The frozen embedding table of ``preset`` (its source at the preset's m; Gaussian rows from the root seed), as
    a sweep that trains builds it."""
    source, rng = _source_for(preset, root_seed=root_seed, gpt2_dir=gpt2_dir)
    return source.table(preset.task.m, rng=rng)


@dataclass(frozen=True)
class Sec73Results:
    """The runs of one sweep: ``records`` are dicts with D_K, h, seed_index, seed and the BlockRunResult fields."""

    preset: Sec73Preset
    source_description: str
    device: str
    records: tuple
    # The (D_K, h) cells the records cover, in the preset's order: None for the whole preset; a sweep replayed for
    # some cells only (``run_sec73(cells=...)``) holds those, so a rule that reads them decides before the rest exist.
    cells: tuple | None = None

    def covered(self) -> list:
        """The (D_K, h) cells these records cover (all of the preset's unless ``cells`` says otherwise)."""
        return list(self.cells) if self.cells is not None else self.preset.cells()

    def values(self, D_K: int, h: int, field: str = "test_acc", *, seeds: str = "all") -> np.ndarray:
        """``field`` of the runs at (D_K, h), ordered by seed index: ``seeds`` = "all" ``[seeds]``, "selection"
        (the first ``preset.selection_seeds`` indices, which pick winners) or "confirmation" (the others)."""
        check_choice("seeds", seeds, ("all", "selection", "confirmation"))
        rows = sorted((r for r in self.records if r["D_K"] == D_K and r["h"] == h), key=lambda r: r["seed_index"])
        if not rows:
            raise ValueError(f"no runs at D_K = {D_K}, h = {h} in this sweep")
        k = self.preset.selection_seeds
        rows = rows[:k] if seeds == "selection" else rows[k:] if seeds == "confirmation" else rows
        return np.array([r[field] for r in rows], dtype=float)

    def table(self) -> dict:
        """{"D_K=..,h=..": [test accuracies by seed]} for verdicts."""
        return {f"D_K={D},h={h}": [round(float(x), 4) for x in self.values(D, h)] for D, h in self.covered()}


def _replayable(stored: dict, plan, device: str, engine: str = "v1") -> dict:
    """The stored records of the plan's runs by their current key; a record stored under a hashed code version the
    engine's declared version adopted (:func:`adopted_versions`) is re-keyed under the declared one."""
    out = {}
    for key, _, _, cfg in plan:
        if key in stored:
            out[key] = stored[key]
            continue
        for code in adopted_versions(engine):
            old = stored.get(record_key(cfg, device, code))
            if old is not None:
                out[key] = {**old, "key": key}
                break
    return out


def run_sec73(
    preset: Sec73Preset,
    *,
    root_seed: int,
    results_dir: Path | str | None = None,
    device: str = "cpu",
    gpt2_dir: str | None = None,
    train_missing: bool = True,
    progress: Callable | None = None,
    stop_after: float | None = None,
    cells=None,
    max_batch_runs: int | None = None,
    note: Callable[[str], None] | None = None,
) -> Sec73Results | None:
    """Replay stored runs of ``preset`` and train the missing ones (unless ``train_missing`` is False, in which
    case None is returned when any run is missing). Returns the sweep's :class:`Sec73Results`.

    ``stop_after`` (seconds) bounds the training: each finished batch is stored as soon as it ends, the batch in
    training at the first evaluation past the deadline is dropped, no batch starts that the last batch's duration
    says would end after the deadline, and None is returned when runs are still missing then; the same call
    resumes (stored runs are replayed, never retrained).

    ``cells``: (D_K, h) cells of the preset to replay or train, the others left alone; the result then covers those
    cells only (:attr:`Sec73Results.cells`). ValueError for a cell outside the preset.

    The preset's ``engine`` picks the trainer. "v3" trains the runs in the mixed batches of :func:`mixed_batches`
    (``max_batch_runs`` overrides the preset's batch size) with :func:`rgr_verify.models.transformer_v3.train_block_runs_v3`;
    a batch whose step rate says it would end after the deadline is dropped at that evaluation and its runs are
    retried in batches of half the size (``note(message)`` is told). The batches change no run's data and no key."""
    from filelock import Timeout

    from ..models.transformer import BatchDeadline, DeadlineReached, train_block_runs

    if not isinstance(preset, Sec73Preset):
        raise ValueError(f"preset must be a Sec73Preset, got {type(preset).__name__}")
    root_seed = check_int("root_seed", root_seed, min_value=0, max_value=2**32 - 1)
    check_choice("device", device, ("cpu", "cuda"))
    if max_batch_runs is not None:
        max_batch_runs = check_int("max_batch_runs", max_batch_runs, min_value=1)
        preset = dataclasses.replace(preset, max_batch_runs=max_batch_runs)  # not keyed: the same runs
    if note is not None and not callable(note):
        raise ValueError(f"note must be callable or None, got {type(note).__name__}")
    deadline = None
    if stop_after is not None:
        # one deadline for every group: the last batch's duration carries over from one group to the next
        deadline = BatchDeadline(time.monotonic() + check_real("stop_after", stop_after, low=0.0, low_open=True))
    # a replay (train_missing False) only reads: it creates no results folder
    store = JsonlStore(results_dir, STORE_NAME, create=train_missing)  # None: the default results folder
    plan = sweep_plan(preset, root_seed, device)
    if cells is not None:
        cells = _check_cells(preset, cells)
        plan = [row for row in plan if (row[1].D_K, row[1].n_heads) in set(cells)]
    engine = preset.engine
    stored = _replayable(with_evidence(store), plan, device, engine)
    missing = [(key, spec, i) for key, spec, i, _ in plan if key not in stored]
    if missing and not train_missing:
        return None
    # Missing runs train in groups: v1, each of the preset's first cells alone and in its order, then the other
    # cells in groups of equal h; v3, the mixed batches. One lock per group, so callers of the same sweep (pytest
    # workers) share the groups between them, and a caller waits only for groups that another caller is training.
    groups = training_groups(preset, device)

    def member(spec, i):  # what a group's members are: v1 cells (D_K, h), v3 runs (D_K, h, seed index)
        return (spec.D_K, spec.n_heads) if engine == "v1" else (spec.D_K, spec.n_heads, i)

    order = plan  # the order runs train in: v3, the batches' order (halved batches keep it)
    if engine != "v1":
        rank = {run: n for n, run in enumerate(run for batch in mixed_batches(preset) for run in batch)}
        order = sorted(plan, key=lambda row: rank[member(row[1], row[2])])

    needed = {member(spec, i) for _, spec, i in missing}
    pending = [g for g in groups if g[1] & needed]
    table = None
    while pending and not (deadline is not None and time.monotonic() > deadline.at):
        progressed = False
        for group in list(pending):
            name, members = group
            lock = store.lock(name)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                continue
            try:
                stored = _replayable(with_evidence(store), plan, device, engine)
                todo = [(key, spec, i) for key, spec, i, _ in order if member(spec, i) in members and key not in stored]
                if todo:
                    if table is None:  # built only when something must train: replay needs no embedding files
                        source, rng = _source_for(preset, root_seed=root_seed, gpt2_dir=gpt2_dir)
                        table = source.table(preset.task.m, rng=rng)
                    try:
                        if engine == "v1":
                            def keep(chunk, results, todo=todo):  # each finished batch is stored at once
                                store.append([_record(*todo[j], res, preset, table, device)
                                              for j, res in zip(chunk, results)])

                            train_block_runs(table.E, [spec for _, spec, _ in todo], preset.task, preset.train,
                                             device=device, max_batch_runs=preset.max_batch_runs, progress=progress,
                                             deadline=deadline, on_batch=keep)
                        else:
                            _train_mixed(todo, preset, table, device, store, progress, deadline, note)
                    except DeadlineReached:
                        return None
            finally:
                lock.release()
            pending.remove(group)
            progressed = True
            if deadline is not None and time.monotonic() > deadline.at:
                break
        if pending and not progressed and deadline is not None:  # another caller trains them: poll until the deadline
            time.sleep(1.0)
        elif pending and not progressed:  # every remaining group trains elsewhere: wait for the first one
            with store.locked(pending[0][0]):
                pass
    stored = _replayable(with_evidence(store), plan, device, engine)
    if any(key not in stored for key, _, _, _ in plan):  # stopped at the deadline, or groups left to other callers
        return None
    records = tuple(stored[key] for key, _, _, _ in plan)
    return Sec73Results(preset, records[0]["source_description"], device, records, cells)


def _train_mixed(todo, preset, table, device, store, progress, deadline, note) -> None:
    """Train the runs ``todo`` of one v3 group in mixed batches of up to ``preset.max_batch_runs`` runs; a batch
    dropped for a projected overrun (:class:`~rgr_verify.models.transformer_v3.BatchOverrun`) is retried in batches of
    half the size; DeadlineReached otherwise (the deadline passed, or no batch can start)."""
    from ..models.transformer_v3 import BatchOverrun, train_block_runs_v3

    size = preset.max_batch_runs
    shape = mixed_layout(preset)  # the batches of one size share one compiled graph
    while todo:
        def keep(chunk, results, todo=todo):  # each finished batch is stored at once
            store.append([_record(*todo[j], res, preset, table, device) for j, res in zip(chunk, results)])

        try:
            train_block_runs_v3(table.E, [spec for _, spec, _ in todo], preset.task, preset.train, device=device,
                                max_batch_runs=size, progress=progress, deadline=deadline, on_batch=keep,
                                shape=shape)
            return
        except BatchOverrun as exc:
            if size == 1:
                raise
            done = {key for key in store.read()}
            todo = [row for row in todo if row[0] not in done]
            size = max(1, size // 2)
            if note is not None:
                note(f"{exc}; its {len(todo)} runs left are retried in batches of {size}")


def stored_runs(preset: Sec73Preset, *, root_seed: int, results_dir=None, device: str = "cuda") -> set:
    """The runs (D_K, h, seed index) of the sweep of ``preset`` (its engine's keys) that the results store in
    ``results_dir`` (None: the default) and the committed evidence already hold: what a sweep would replay, not
    train. Reads only (creates nothing)."""
    root_seed = check_int("root_seed", root_seed, min_value=0, max_value=2**32 - 1)
    check_choice("device", device, ("cpu", "cuda"))
    store = JsonlStore(results_dir, STORE_NAME, create=False)  # None: the default results folder
    plan = sweep_plan(preset, root_seed, device)
    stored = _replayable(with_evidence(store), plan, device, preset.engine)
    return {(spec.D_K, spec.n_heads, i) for key, spec, i, _ in plan if key in stored}


def _check_cells(preset: Sec73Preset, cells) -> tuple:
    """``cells`` as a tuple of distinct (D_K, h) cells of ``preset`` in the preset's order; ValueError otherwise."""
    try:
        wanted = [(int(D), int(h)) for D, h in cells]
    except (TypeError, ValueError):
        raise ValueError(f"cells must be (D_K, h) pairs, got {cells!r}") from None
    outside = [c for c in wanted if c not in preset.cells()]
    if outside or not wanted:
        raise ValueError(f"cells must be a non-empty set of the preset's (D_K, h) cells, got {cells!r}")
    return tuple(c for c in preset.cells() if c in set(wanted))


def _group_lock_name(preset: Sec73Preset, device: str, h: int, D_K: int | None = None) -> str:
    """The training lock of the runs with h heads of one sweep (of its cell (D_K, h) when D_K is given)."""
    return f"sec73-{preset.name}-{preset.source}-{device}" + (f"-D{D_K}" if D_K is not None else "") + f"-h{h}"


def training_groups(preset: Sec73Preset, device: str) -> list[tuple[str, frozenset]]:
    """The training groups of a sweep in training order, as (lock name, members). v1 engine: the members are cells,
    each of ``preset.first_cells`` alone, then the remaining cells by equal h (in increasing h); the groups partition
    the preset's cells. v3 engine: the members are runs (D_K, h, seed index), one group a mixed batch of
    :func:`mixed_batches`; the groups partition the preset's runs."""
    if preset.engine != "v1":
        prefix = f"sec73{preset.engine}-{preset.name}-{preset.source}-{device}-n{preset.max_batch_runs}"
        return [(f"{prefix}-b{k}", frozenset(batch)) for k, batch in enumerate(mixed_batches(preset))]
    first = list(preset.first_cells)
    out = [(_group_lock_name(preset, device, h, D), frozenset([(D, h)])) for D, h in first]
    rest = [c for c in preset.cells() if c not in set(first)]
    for h in sorted({h for _, h in rest}):
        out.append((_group_lock_name(preset, device, h), frozenset(c for c in rest if c[1] == h)))
    return out


def mixed_batches(preset: Sec73Preset) -> list[list[tuple[int, int, int]]]:
    """The v3 engine's batches of ``preset``, in training order: its runs (D_K, h, seed index), cell by cell in the
    order of the v1 groups (``preset.first_cells``, then the other cells by increasing h, in the preset's order
    within an h) and seed by seed within a cell, cut into consecutive batches of ``preset.max_batch_runs`` runs.
    A batch mixes any cells; each run draws from its own generators, so the batches change no run's data."""
    first = list(preset.first_cells)
    rest = [c for c in preset.cells() if c not in set(first)]
    order = first + [c for h in sorted({h for _, h in rest}) for c in rest if c[1] == h]
    runs = [(D, h, i) for D, h in order for i in range(preset.seeds)]
    k = preset.max_batch_runs
    return [runs[lo : lo + k] for lo in range(0, len(runs), k)]


def mixed_layout(preset: Sec73Preset) -> tuple[int, int]:
    """(Dmax, Hmax) every v3 batch of ``preset`` is laid out at: its widest D_K and most heads, so that the batches
    of one size have one shape (one compiled graph)."""
    return max(D for D, _ in preset.cells()), max(h for _, h in preset.cells())


def _record(key, spec, i, res, preset, table, device) -> dict:
    engine = {} if preset.engine == "v1" else {"engine": preset.engine}  # v1 records keep their earlier form
    return {"key": key, "code": code_of(preset.engine), **engine, "preset": preset.name, "source": table.source,
            "source_description": table.description, "device": device, "D_K": spec.D_K, "h": spec.n_heads,
            "seed": spec.seed, "seed_index": i, "m": preset.task.m, "ell": preset.task.ell,
            **{f.name: getattr(res, f.name) for f in dataclasses.fields(BlockRunResult) if f.name != "spec"}}


def stored_sec73(preset: Sec73Preset, *, root_seed: int, results_dir=None, gpt2_dir=None,
                 cells=None) -> Sec73Results | None:
    """The complete stored sweep of ``preset`` (of its ``cells`` only, when given) on any device kind (cuda first),
    or None when runs are missing."""
    for device in ("cuda", "cpu"):
        res = run_sec73(preset, root_seed=root_seed, results_dir=results_dir, device=device, gpt2_dir=gpt2_dir,
                        train_missing=False, cells=cells)
        if res is not None:
            return res
    return None
