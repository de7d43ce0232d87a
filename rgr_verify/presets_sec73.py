"""The ``sec73`` preset (quick CPU tier and full GPU tier), its result store, sweep runner and Figure 7 plot.

A sweep trains every (D_K, h, seed) of a preset with :func:`rgr_verify.transformer.train_runs` on the frozen table
of its embedding source and appends one JSON line per run to ``<results_dir>/sec73-runs.jsonl``. Each record is
keyed by a hash of the run's full configuration, its seed, the device kind and the code version (a hash of
``transformer.py`` and ``embedding_sources.py``), so a later sweep (or a claim, or another pytest worker) replays
stored runs instead of training them again. The file is a :class:`rgr_verify.store.JsonlStore`, like the engine's
``runs.jsonl``: appends are whole lines under a file lock, a torn line left by a killed writer is skipped and
terminated by the next append. Missing runs train in groups of equal h, each under its own named lock, so
concurrent callers of one sweep (pytest-xdist workers) split the groups between them and then replay.

Seeds come from the root seed only (not from a claim's seed), so every claim of Sec. 7.3 shares one sweep; seed
index i uses the same permutation pi and the same validation/test examples for every (D_K, h), which makes
comparisons between partitions paired by seed. The first ``selection_seeds`` seed indices of a preset only pick
winners (the best h of a D_K); the claims confirm a picked winner on the other seed indices.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ._checks import check_choice, check_int
from .store import RESULTS_ENV, JsonlStore, default_results_dir
from .transformer import RunResult, RunSpec, TaskConfig, TrainConfig

__all__ = [
    "Sec73Preset",
    "SEC73_PRESETS",
    "sec73_preset",
    "Sec73Results",
    "CACHE_ENV",
    "run_sec73",
    "stored_sec73",
    "default_cache_dir",
    "plot_fig7",
    "GPT2_DIR_ENV",
    "STORE_NAME",
]

GPT2_DIR_ENV = "RGR_VERIFY_GPT2_DIR"  # a local Hugging Face GPT-2 snapshot directory, if any
CACHE_ENV = RESULTS_ENV  # shared with the engine's results store
STORE_NAME = "sec73-runs.jsonl"


@dataclass(frozen=True)
class Sec73Preset:
    """One tier of the Sec. 7.3 sweep: embedding source, task sizes, grid and training protocol."""

    name: str  # "quick" or "full"
    source: str  # "minilm", "gpt2" (needs a snapshot dir) or "gaussian"
    task: TaskConfig  # m, l, d_ff
    D_Ks: tuple  # total key widths swept
    heads: tuple  # head counts h (each must divide every D_K and d_model)
    seeds: int  # seeds per (D_K, h)
    train: TrainConfig  # optimisation and evaluation protocol
    device: str  # device the tier is meant for ("cpu" or "cuda")
    gaussian_d_model: int = 768  # d_model of the gaussian control source
    max_batch_runs: int = 64  # runs stacked in one batch
    selection_seeds: int = 0  # leading seed indices that only pick winners; the rest confirm them
    extra_cells: tuple = ()  # (D_K, h) pairs trained besides the D_Ks x heads grid, with the same seeds

    def __post_init__(self):
        check_choice("name", self.name, ("quick", "full"))
        check_choice("source", self.source, ("minilm", "gpt2", "gaussian"))
        check_choice("device", self.device, ("cpu", "cuda"))
        check_int("seeds", self.seeds, min_value=1)
        if not self.D_Ks or not self.heads:
            raise ValueError("D_Ks and heads must be non-empty")
        for D in self.D_Ks:
            for h in self.heads:
                if check_int("D_K", D, min_value=1) % check_int("h", h, min_value=1):
                    raise ValueError(f"every h must divide every D_K, got h = {h}, D_K = {D}")
        check_int("selection_seeds", self.selection_seeds, min_value=0, max_value=max(self.seeds - 2, 0))
        for cell in self.extra_cells:
            if not isinstance(cell, tuple) or len(cell) != 2:
                raise ValueError(f"extra_cells must hold (D_K, h) pairs, got {cell!r}")
            D, h = check_int("extra D_K", cell[0], min_value=1), check_int("extra h", cell[1], min_value=1)
            if D % h:
                raise ValueError(f"an extra cell's h must divide its D_K, got h = {h}, D_K = {D}")
            if D in self.D_Ks and h in self.heads:
                raise ValueError(f"extra_cells must lie outside the D_Ks x heads grid, got (D_K = {D}, h = {h})")

    def cells(self) -> list:
        """Every trained (D_K, h): the grid D_Ks x heads, then the extra cells."""
        return [(D, h) for D in self.D_Ks for h in self.heads] + list(self.extra_cells)

    def with_source(self, source: str) -> "Sec73Preset":
        """The same preset on another embedding source."""
        return dataclasses.replace(self, source=source)


# Quick tier: a scaled-down analogue of Figure 7. Seed index 0 picks winners, indices 1-3 confirm them. D_K = 64
# is trained for h = 4, 8 only: it is the paper's cell of "h = 8 at D_K = 64 (d_k = 8) is counterproductive".
_QUICK = Sec73Preset(
    name="quick",
    source="minilm",
    task=TaskConfig(m=256, ell=4, d_ff=16),
    D_Ks=(8, 32),
    heads=(1, 2, 4, 8),
    seeds=4,
    train=TrainConfig(steps=500, batch_size=48, lr=3e-3, eval_every=100, n_val=512, n_test=1024, mixed_precision=False),
    device="cpu",
    gaussian_d_model=384,
    selection_seeds=1,
    extra_cells=((64, 4), (64, 8)),
)

_FULL = Sec73Preset(
    name="full",
    source="minilm",
    task=TaskConfig(m=6144, ell=16, d_ff=16),
    D_Ks=(64, 128, 256, 512),
    heads=(1, 2, 4, 8),
    seeds=7,
    train=TrainConfig(steps=100_000, batch_size=256, lr=1e-3, eval_every=1000, n_val=4096, n_test=8192,
                      patience=20, mixed_precision=True),
    device="cuda",
    max_batch_runs=28,
    selection_seeds=2,  # 2 seeds pick winners, 5 confirm them (does not change the runs or their keys)
)

SEC73_PRESETS = {"quick": _QUICK, "full": _FULL}


def sec73_preset(tier: str, *, source: str | None = None) -> Sec73Preset:
    """The preset of ``tier`` ("quick"; "full" or "gpu" give the full tier). ``source`` overrides the embedding
    source; by default the full tier uses GPT-2 when ``$RGR_VERIFY_GPT2_DIR`` names a local snapshot, else MiniLM."""
    check_choice("tier", tier, ("quick", "full", "gpu"))
    preset = SEC73_PRESETS["quick" if tier == "quick" else "full"]
    if source is None and preset.name == "full" and os.environ.get(GPT2_DIR_ENV):
        source = "gpt2"
    return preset.with_source(source) if source is not None else preset


def default_cache_dir() -> Path:
    """Where runs are stored when no results dir is given: ``$RGR_VERIFY_RESULTS`` or ``~/.cache/rgr-verify/results``
    (the engine's default store; Sec. 7.3 records live in their own file there)."""
    return default_results_dir()


def _code_version() -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent
    for name in ("transformer.py", "embedding_sources.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()[:12]


def _run_seeds(root_seed: int, n: int) -> list[int]:
    ss = np.random.SeedSequence([int(root_seed), zlib.crc32(b"sec73")])
    return [int(x) for x in ss.generate_state(n, dtype=np.uint32)]


def _source_for(preset: Sec73Preset, *, root_seed: int, gpt2_dir: str | None):
    from . import embedding_sources as es

    if preset.source == "gpt2":
        gpt2_dir = gpt2_dir or os.environ.get(GPT2_DIR_ENV)
        if not gpt2_dir:
            raise ValueError(f"the gpt2 source needs a local snapshot directory (--gpt2-dir or ${GPT2_DIR_ENV})")
        return es.GPT2Source(snapshot_dir=str(gpt2_dir)), None
    if preset.source == "gaussian":
        rng = np.random.default_rng(np.random.SeedSequence([int(root_seed), zlib.crc32(b"sec73-gaussian")]))
        return es.GaussianSource(d_model=preset.gaussian_d_model), rng
    return es.MiniLMSource(), None


@dataclass(frozen=True)
class Sec73Results:
    """The runs of one sweep: ``records`` are dicts with D_K, h, seed_index, seed and the RunResult fields."""

    preset: Sec73Preset
    source_description: str
    device: str
    records: tuple

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
        return {f"D_K={D},h={h}": [round(float(x), 4) for x in self.values(D, h)] for D, h in self.preset.cells()}


def _record_key(preset, spec_cfg: dict, device: str) -> str:
    blob = json.dumps({"code": _code_version(), "device": device, **spec_cfg}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _source_key(preset: Sec73Preset) -> dict:
    """What identifies the embedding table in a record's key (not file paths, so stores move between machines)."""
    if preset.source == "gaussian":
        return {"source": "gaussian", "d_model": preset.gaussian_d_model}
    return {"source": preset.source}


def _plan(preset: Sec73Preset, root_seed: int, device: str):
    seeds = _run_seeds(root_seed, preset.seeds)
    base = {**_source_key(preset), "task": dataclasses.asdict(preset.task), "train": dataclasses.asdict(preset.train)}
    plan = []
    for D, h in preset.cells():
        for i, s in enumerate(seeds):
            cfg = {**base, "D_K": D, "h": h, "seed": s}
            plan.append((_record_key(preset, cfg, device), RunSpec(D, h, s), i))
    return plan


def run_sec73(
    preset: Sec73Preset,
    *,
    root_seed: int,
    results_dir: Path | str | None = None,
    device: str = "cpu",
    gpt2_dir: str | None = None,
    train_missing: bool = True,
    progress: Callable | None = None,
) -> Sec73Results | None:
    """Replay stored runs of ``preset`` and train the missing ones (unless ``train_missing`` is False, in which
    case None is returned when any run is missing). Returns the sweep's :class:`Sec73Results`."""
    from filelock import Timeout

    from .transformer import train_runs

    if not isinstance(preset, Sec73Preset):
        raise ValueError(f"preset must be a Sec73Preset, got {type(preset).__name__}")
    root_seed = check_int("root_seed", root_seed, min_value=0, max_value=2**32 - 1)
    check_choice("device", device, ("cpu", "cuda"))
    store = JsonlStore(results_dir if results_dir is not None else default_cache_dir(), STORE_NAME)
    plan = _plan(preset, root_seed, device)
    stored = store.read()
    missing = [(key, spec, i) for key, spec, i in plan if key not in stored]
    if missing and not train_missing:
        return None
    # Missing runs train in groups of equal h, one lock per group: callers of the same sweep (pytest workers)
    # share the groups between them, and a caller waits only for groups that another caller is training.
    pending = sorted({spec.n_heads for _, spec, _ in missing})
    table = None
    while pending:
        progressed = False
        for h in list(pending):
            lock = store.lock(_group_lock_name(preset, device, h))
            try:
                lock.acquire(timeout=0)
            except Timeout:
                continue
            try:
                stored = store.read()
                todo = [(key, spec, i) for key, spec, i in plan if spec.n_heads == h and key not in stored]
                if todo:
                    if table is None:  # built only when something must train: replay needs no embedding files
                        source, rng = _source_for(preset, root_seed=root_seed, gpt2_dir=gpt2_dir)
                        table = source.table(preset.task.m, rng=rng)
                    results = train_runs(table.E, [spec for _, spec, _ in todo], preset.task, preset.train,
                                         device=device, max_batch_runs=preset.max_batch_runs, progress=progress)
                    store.append([_record(key, spec, i, res, preset, table, device)
                                  for (key, spec, i), res in zip(todo, results)])
            finally:
                lock.release()
            pending.remove(h)
            progressed = True
        if pending and not progressed:  # every remaining group trains elsewhere: wait for the first one
            with store.locked(_group_lock_name(preset, device, pending[0])):
                pass
    stored = store.read()
    records = tuple(stored[key] for key, _, _ in plan)
    return Sec73Results(preset, records[0]["source_description"], device, records)


def _group_lock_name(preset: Sec73Preset, device: str, h: int) -> str:
    """The training lock of the runs with h heads of one sweep."""
    return f"sec73-{preset.name}-{preset.source}-{device}-h{h}"


def _record(key, spec, i, res, preset, table, device) -> dict:
    return {"key": key, "code": _code_version(), "preset": preset.name, "source": table.source,
            "source_description": table.description, "device": device, "D_K": spec.D_K, "h": spec.n_heads,
            "seed": spec.seed, "seed_index": i, "m": preset.task.m, "ell": preset.task.ell,
            **{f.name: getattr(res, f.name) for f in dataclasses.fields(RunResult) if f.name != "spec"}}


def stored_sec73(preset: Sec73Preset, *, root_seed: int, results_dir=None, gpt2_dir=None) -> Sec73Results | None:
    """The complete stored sweep of ``preset`` on any device kind (cuda first), or None when runs are missing."""
    for device in ("cuda", "cpu"):
        res = run_sec73(preset, root_seed=root_seed, results_dir=results_dir, device=device, gpt2_dir=gpt2_dir,
                        train_missing=False)
        if res is not None:
            return res
    return None


def plot_fig7(results: Sec73Results, out_dir: Path | str, *, name: str | None = None,
              collapse_threshold: float = 0.05) -> str:
    """Figure 7: mean test accuracy vs D_K, one line per h, 95% t-intervals over seeds; single-head runs drawn
    as points, with dotted lines at the means of its collapsed (< ``collapse_threshold``) and other runs at the
    upper half of the D_K grid.
    Returns the file name written in ``out_dir``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .stats import t_interval

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    p = results.preset
    name = name or f"fig7-{p.name}-{p.source}.png"
    fig, ax = plt.subplots(figsize=(6, 4))
    colours = {}
    for h in p.heads:
        stats = [t_interval(results.values(D, h)) for D in p.D_Ks]
        mean = np.array([s[0] for s in stats])
        err = np.array([[s[0] - s[1] for s in stats], [s[2] - s[0] for s in stats]])
        colours[h] = ax.errorbar(p.D_Ks, mean, yerr=err, marker="o", capsize=3, label=f"h = {h}")[0].get_color()
        if h == 1:
            for D in p.D_Ks:
                vals = results.values(D, h)
                ax.scatter([D] * len(vals), vals, s=10, color="grey", alpha=0.6, zorder=3)
            # The two modes of the single head at the upper half of the grid (D_K >= 256 in Figure 7).
            ones = np.concatenate([results.values(D, 1) for D in p.D_Ks[len(p.D_Ks) // 2:]])
            for part, what in ((ones[ones < collapse_threshold], "h = 1 collapsed to NULL"),
                               (ones[ones >= collapse_threshold], "h = 1 partial solution")):
                if part.size:
                    ax.axhline(float(part.mean()), ls=":", color="grey", lw=1)
                    ax.annotate(f"{what} ({part.size} runs)", (p.D_Ks[0], float(part.mean())), fontsize=7,
                                color="grey", xytext=(0, 2), textcoords="offset points")
    for D, h in p.extra_cells:  # cells outside the grid: their mean and t-interval, unconnected
        mean, lo, hi = t_interval(results.values(D, h))
        ax.errorbar([D], [mean], yerr=[[mean - lo], [hi - mean]], marker="s", capsize=3, color=colours.get(h),
                    linestyle="none")
    ticks = sorted({D for D, _ in p.cells()})
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks, [str(D) for D in ticks])
    ax.set_xlabel("total key width D_K")
    ax.set_ylabel("test accuracy")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"Sec. 7.3 / Figure 7 ({p.name} tier, {p.source}, m={p.task.m}, l={p.task.ell})", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / name, dpi=120)
    plt.close(fig)
    return name
