"""The Sec. 7.3 sweep: training (or replaying) every run of a preset, its result store and record keys.

A sweep trains every (D_K, h, seed) of a :class:`~rgr_verify.runs.sec73_presets.Sec73Preset` with
:func:`rgr_verify.transformer.train_block_runs` on the frozen table of its embedding source and appends one JSON line per
run to ``<results_dir>/sec73-runs.jsonl``. Each record is keyed by a hash of the run's full configuration, its
seed, the device kind and the code version (a hash of ``transformer.py`` and ``embedding_sources.py``), so a later
sweep (or a claim, or another pytest worker) replays stored runs instead of training them again. Records of a code
version in :data:`EQUIVALENT_CODE_VERSIONS` (earlier sources of those two files that train the same runs) replay
too, re-keyed under the current version. The file is a :class:`rgr_verify.runs.store.JsonlStore`, like the engine's
``runs.jsonl``: appends are whole lines under a file lock, a torn line left by a killed writer is skipped and
terminated by the next append. Missing runs train in groups of equal h, each under its own named lock, so
concurrent callers of one sweep (pytest-xdist workers) split the groups between them and then replay.

Seeds come from the root seed only (not from a claim's seed), so every claim of Sec. 7.3 shares one sweep; seed
index i uses the same permutation pi and the same validation/test examples for every (D_K, h), which makes
comparisons between partitions paired by seed. The embedding table of a preset is built (only when something must
train) from its source: MiniLM, a local GPT-2 snapshot, or Gaussian rows drawn from the root seed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from .._checks import check_choice, check_int, check_real
from ..settings import GPT2_DIR_ENV, env
from .sec73_presets import Sec73Preset
from .evidence import with_evidence
from .store import RESULTS_ENV, JsonlStore, default_results_dir
from ..transformer import BlockRunResult, RunSpec

__all__ = [
    "code_version",
    "record_key",
    "Sec73Results",
    "run_sec73",
    "stored_sec73",
    "default_cache_dir",
    "CACHE_ENV",
    "STORE_NAME",
    "EQUIVALENT_CODE_VERSIONS",
    "planned_runs",
    "missing_cells",
    "training_groups",
]

CACHE_ENV = RESULTS_ENV  # shared with the engine's results store
STORE_NAME = "sec73-runs.jsonl"
# Code versions (hashes of transformer.py, transformer_task.py (since 2026-11-26) and embedding_sources.py) whose runs this code trains identically, so
# their stored records replay. cfd1c392b7c3: the sources of commit b368e18, which trained the committed Gaussian
# control (evidence/sec73-gaussian-control); they differ from these in imports, names and input checks only.
# Retraining its h = 1 and h = 2 groups (16 runs) reproduced every stored field on the CPU that trained them; on
# another CPU (2026-11-26: an AVX-512 Xeon, MKL 2024.2) the sources of b368e18 and of today give each other's
# numbers bit for bit but not the stored ones (53 of 96 fields differ by a few hundredths of accuracy; no setting of
# ATEN_CPU_CAPABILITY, MKL_ENABLE_INSTRUCTIONS or MKL_CBWR restores them): CPU training is reproducible on one
# kind of CPU only, and keys do not name the CPU. The control's verdict is the same on both sets of numbers (robust
# in 4 of 4 seed rotations); the audit replays the committed records. 94b55fb122c1: the sources before train_block_runs
# took a deadline (2026-11-26); the training arithmetic is unchanged (the deadline is read only at evaluations),
# and test_sec73_stop_after_keeps_finished_batches_and_resumes compares a resumed sweep with one trained in a single
# sitting. The batched sampler of 2026-11-26 draws every run's examples bitwise as before (tested) and retrains the
# control's 16 runs to the same numbers as 46acc63's sources on one machine, so no older version needs listing.
# e9cdb88f25e3: the sources before the block's RunResult and train_runs were renamed BlockRunResult and
# train_block_runs (2026-11-27, so that they no longer collide with the engine's names); names only, and the H200
# records of evidence/sec73-minilm-full were trained under it. d82a1fb65e48: the sources before the training step
# could be replayed as a CUDA graph (2026-11-27, 9th session); the eager step is unchanged, and on an H200 the graph
# gave every parameter bit for bit equal to the eager loop's after 3000 full-tier steps for (D_K 512, h 1) and
# (D_K 256, h 4), 7 runs each (docs/engine.md); the cell (D_K 128, h 1) was trained under it. The sources
# between it and today's (72ace67 to the shared BatchDeadline) trained no record, so none of their versions needs listing.
EQUIVALENT_CODE_VERSIONS = ("cfd1c392b7c3", "94b55fb122c1", "e9cdb88f25e3", "d82a1fb65e48")


def default_cache_dir() -> Path:
    """Where runs are stored when no results dir is given: ``$RGR_VERIFY_RESULTS`` or ``~/.cache/rgr-verify/results``
    (the engine's default store; Sec. 7.3 records live in their own file there)."""
    return default_results_dir()


def code_version() -> str:
    """The version of Sec. 7.3's stored runs: a hash of the trainer's sources (the block, its task sampler, the
    embedding sources), so a changed trainer stops matching old records."""
    h = hashlib.sha256()
    here = Path(__file__).resolve().parents[1]  # rgr_verify/
    for name in ("transformer.py", "transformer_task.py", "embedding_sources.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()[:12]


def _run_seeds(root_seed: int, n: int) -> list[int]:
    ss = np.random.SeedSequence([int(root_seed), zlib.crc32(b"sec73")])
    return [int(x) for x in ss.generate_state(n, dtype=np.uint32)]


def _source_for(preset: Sec73Preset, *, root_seed: int, gpt2_dir: str | None):
    """The embedding source of ``preset`` and the generator its table is drawn with (Gaussian rows only)."""
    from .. import embedding_sources as es

    if preset.source == "gpt2":
        gpt2_dir = gpt2_dir or env(GPT2_DIR_ENV)
        if not gpt2_dir:
            raise ValueError(f"the gpt2 source needs a local snapshot directory (--gpt2-dir or ${GPT2_DIR_ENV})")
        return es.GPT2Source(snapshot_dir=str(gpt2_dir)), None
    if preset.source == "gaussian":
        rng = np.random.default_rng(np.random.SeedSequence([int(root_seed), zlib.crc32(b"sec73-gaussian")]))
        return es.GaussianSource(d_model=preset.gaussian_d_model), rng
    return es.MiniLMSource(), None


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


def record_key(spec_cfg: dict, device: str, code: str) -> str:
    """The store key of one Sec. 7.3 run: sha256 of its config, the device kind and the code version."""
    blob = json.dumps({"code": code, "device": device, **spec_cfg}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _source_key(preset: Sec73Preset) -> dict:
    """What identifies the embedding table in a record's key (not file paths, so stores move between machines)."""
    if preset.source == "gaussian":
        return {"source": "gaussian", "d_model": preset.gaussian_d_model}
    return {"source": preset.source}


def _plan(preset: Sec73Preset, root_seed: int, device: str):
    """(key, RunSpec, seed index, keyed configuration) of every run of the sweep."""
    code = code_version()
    seeds = _run_seeds(root_seed, preset.seeds)
    base = {**_source_key(preset), "task": dataclasses.asdict(preset.task), "train": dataclasses.asdict(preset.train)}
    plan = []
    for D, h in preset.cells():
        for i, s in enumerate(seeds):
            cfg = {**base, "D_K": D, "h": h, "seed": s}
            plan.append((record_key(cfg, device, code), RunSpec(D, h, s), i, cfg))
    return plan


def planned_runs(plan: str, *, equivalents: bool = False) -> dict[str, tuple[int, int, int]]:
    """The runs a Sec. 7.3 sweep should store, named by ``plan`` = "sec73:TIER:SOURCE:DEVICE:ROOT_SEED" (e.g.
    "sec73:full:minilm:cuda:20250926"), as {key: (D_K, h, seed index)} under the current code version, and with
    ``equivalents`` also under each of :data:`EQUIVALENT_CODE_VERSIONS` (the keys its stored records may carry).
    Evidence that holds part of such a sweep records the plan, so its manifest counts (and ``rgr-verify evidence
    list`` shows) the runs still missing. ValueError on a malformed plan."""
    parts = plan.split(":") if isinstance(plan, str) else []
    if len(parts) != 5 or parts[0] != "sec73" or not parts[4].isdigit():
        raise ValueError(f"plan must read sec73:TIER:SOURCE:DEVICE:ROOT_SEED, got {plan!r}")
    from .sec73_presets import sec73_preset

    _, tier, source, device, seed = parts
    check_choice("plan's device", device, ("cpu", "cuda"))
    preset = sec73_preset(tier, source=source)
    out = {}
    for key, spec, i, cfg in _plan(preset, int(seed), device):
        out[key] = (spec.D_K, spec.n_heads, i)
        for code in EQUIVALENT_CODE_VERSIONS if equivalents else ():
            out[record_key(cfg, device, code)] = (spec.D_K, spec.n_heads, i)
    return out


def missing_cells(plan: str, keys) -> list[tuple[int, int, int]]:
    """(D_K, h, runs missing) of every cell of ``plan`` (:func:`planned_runs`) not fully among ``keys`` (a run's key
    under the current or an equivalent code version), in the plan's order."""
    every = planned_runs(plan, equivalents=True)
    have = {every[k] for k in keys if k in every}
    miss: dict[tuple[int, int], int] = {}
    for D, h, i in planned_runs(plan).values():
        if (D, h, i) not in have:
            miss[(D, h)] = miss.get((D, h), 0) + 1
    return [(D, h, n) for (D, h), n in miss.items()]


def _replayable(stored: dict, plan, device: str) -> dict:
    """The stored records of the plan's runs by their current key; a record stored under an equivalent code version
    (:data:`EQUIVALENT_CODE_VERSIONS`) is re-keyed under the current one."""
    out = {}
    for key, _, _, cfg in plan:
        if key in stored:
            out[key] = stored[key]
            continue
        for code in EQUIVALENT_CODE_VERSIONS:
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
) -> Sec73Results | None:
    """Replay stored runs of ``preset`` and train the missing ones (unless ``train_missing`` is False, in which
    case None is returned when any run is missing). Returns the sweep's :class:`Sec73Results`.

    ``stop_after`` (seconds) bounds the training: each finished batch is stored as soon as it ends, the batch in
    training at the first evaluation past the deadline is dropped, no batch starts that the last batch's duration
    says would end after the deadline, and None is returned when runs are still missing then; the same call
    resumes (stored runs are replayed, never retrained).

    ``cells``: (D_K, h) cells of the preset to replay or train, the others left alone; the result then covers those
    cells only (:attr:`Sec73Results.cells`). ValueError for a cell outside the preset."""
    from filelock import Timeout

    from ..transformer import BatchDeadline, DeadlineReached, train_block_runs

    if not isinstance(preset, Sec73Preset):
        raise ValueError(f"preset must be a Sec73Preset, got {type(preset).__name__}")
    root_seed = check_int("root_seed", root_seed, min_value=0, max_value=2**32 - 1)
    check_choice("device", device, ("cpu", "cuda"))
    deadline = None
    if stop_after is not None:
        # one deadline for every group: the last batch's duration carries over from one group to the next
        deadline = BatchDeadline(time.monotonic() + check_real("stop_after", stop_after, low=0.0, low_open=True))
    # a replay (train_missing False) only reads: it creates no results folder
    store = JsonlStore(results_dir if results_dir is not None else default_cache_dir(), STORE_NAME,
                       create=train_missing)
    plan = _plan(preset, root_seed, device)
    if cells is not None:
        cells = _check_cells(preset, cells)
        plan = [row for row in plan if (row[1].D_K, row[1].n_heads) in set(cells)]
    stored = _replayable(with_evidence(store), plan, device)
    missing = [(key, spec, i) for key, spec, i, _ in plan if key not in stored]
    if missing and not train_missing:
        return None
    # Missing runs train in groups: each of the preset's first cells alone and in its order, then the other cells in
    # groups of equal h; one lock per group, so callers of the same sweep (pytest workers) share the groups between
    # them, and a caller waits only for groups that another caller is training.
    groups = training_groups(preset, device)
    needed = {(spec.D_K, spec.n_heads) for _, spec, _ in missing}
    pending = [g for g in groups if g[1] & needed]
    table = None
    while pending and not (deadline is not None and time.monotonic() > deadline.at):
        progressed = False
        for group in list(pending):
            name, group_cells = group
            lock = store.lock(name)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                continue
            try:
                stored = _replayable(with_evidence(store), plan, device)
                todo = [(key, spec, i) for key, spec, i, _ in plan
                        if (spec.D_K, spec.n_heads) in group_cells and key not in stored]
                if todo:
                    if table is None:  # built only when something must train: replay needs no embedding files
                        source, rng = _source_for(preset, root_seed=root_seed, gpt2_dir=gpt2_dir)
                        table = source.table(preset.task.m, rng=rng)

                    def keep(chunk, results, todo=todo):  # each finished batch is stored at once
                        store.append([_record(*todo[j], res, preset, table, device) for j, res in zip(chunk, results)])

                    try:
                        train_block_runs(table.E, [spec for _, spec, _ in todo], preset.task, preset.train, device=device,
                                   max_batch_runs=preset.max_batch_runs, progress=progress, deadline=deadline,
                                   on_batch=keep)
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
    stored = _replayable(with_evidence(store), plan, device)
    if any(key not in stored for key, _, _, _ in plan):  # stopped at the deadline, or groups left to other callers
        return None
    records = tuple(stored[key] for key, _, _, _ in plan)
    return Sec73Results(preset, records[0]["source_description"], device, records, cells)


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
    """The training groups of a sweep in training order, as (lock name, cells): each of ``preset.first_cells`` alone,
    then the remaining cells by equal h (in increasing h). The groups partition the preset's cells."""
    first = list(preset.first_cells)
    out = [(_group_lock_name(preset, device, h, D), frozenset([(D, h)])) for D, h in first]
    rest = [c for c in preset.cells() if c not in set(first)]
    for h in sorted({h for _, h in rest}):
        out.append((_group_lock_name(preset, device, h), frozenset(c for c in rest if c[1] == h)))
    return out


def _record(key, spec, i, res, preset, table, device) -> dict:
    return {"key": key, "code": code_version(), "preset": preset.name, "source": table.source,
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
