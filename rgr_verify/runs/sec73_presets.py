"""The Sec. 7.3 presets: the quick CPU tier and the full GPU tier of the frozen-embedding experiment.

A :class:`Sec73Preset` fixes the embedding source, the task sizes (m, ell, d_ff), the (D_K, h) grid, the seeds and
the training protocol; :func:`sec73_preset` picks the preset of a tier (and the full tier's source). The first
``selection_seeds`` seed indices of a preset only pick winners (the best h of a D_K); the claims confirm a picked
winner on the other seed indices. The sweep that trains or replays a preset's runs is
:mod:`rgr_verify.runs.sec73_sweep`; Figure 7 is :func:`rgr_verify.analysis.plots.plot_fig7`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..basics.checks import check_choice, check_int
from ..models.embedding_sources import SOURCE_NAMES
from ..models.transformer import TaskConfig, TrainConfig
from ..basics.settings import GPT2_DIR_ENV, env  # GPT2_DIR_ENV: a local Hugging Face GPT-2 snapshot, if any

__all__ = [
    "Sec73Preset",
    "SEC73_PRESETS",
    "SEC73_V3_PRESETS",
    "ENGINES",
    "sec73_preset",
    "GPT2_DIR_ENV",
]

ENGINES = ("v1", "v3")  # today's block (batched by h) and the keyless block (mixed cells), issue 38



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
    # (D_K, h) cells trained first, one at a time and in this order, before the remaining cells (in groups of equal
    # h): the cells that decide a claim soonest. The order changes no run and no key, only when each is trained.
    # Under engine "v3" they lead the mixed batches instead (rgr_verify.runs.sec73_sweep.mixed_batches).
    first_cells: tuple = ()
    # The trainer: "v1", today's block (rgr_verify.models.transformer.train_block_runs: runs of one h a batch), or "v3",
    # the keyless block (rgr_verify.models.transformer_v3.train_block_runs_v3: runs of any (D_K, h) in one batch of up
    # to max_batch_runs). The engine keys the records: v3 runs are stored under their own declared code version and
    # plan (rgr_verify.runs.sec73_keys.CODE_VERSIONS), so neither engine's records replay as the other's.
    engine: str = "v1"

    def __post_init__(self):
        check_choice("name", self.name, ("quick", "full"))
        check_choice("source", self.source, SOURCE_NAMES)
        check_choice("device", self.device, ("cpu", "cuda"))
        check_choice("engine", self.engine, ENGINES)
        check_int("max_batch_runs", self.max_batch_runs, min_value=1)
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

        cells = set(self.cells())
        for cell in self.first_cells:
            if cell not in cells:
                raise ValueError(f"first_cells must be cells of the preset, got {cell!r}")
        if len(set(self.first_cells)) != len(self.first_cells):
            raise ValueError("first_cells must not repeat a cell")

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
    # One (D_K, h) cell's 7 seeds a batch: no padding, and a batch of up to 100k updates fits one 10-minute
    # device call, so a sweep advances by whole batches across calls (a batch cut at a deadline is dropped).
    max_batch_runs=7,
    selection_seeds=2,  # 2 seeds pick winners, 5 confirm them (does not change the runs or their keys)
    # The cells that decide a claim soonest, after the committed (64, 1) and (128, 1): (64, 4) and (64, 8) decide
    # fig7-h8-counterproductive-dk64 alone; (256, 1) and (512, 1) complete the single-head row.
    first_cells=((64, 4), (64, 8), (256, 1), (512, 1)),
)

SEC73_PRESETS = {"quick": _QUICK, "full": _FULL}

# The same tiers trained by the v3 engine (issue 38): the same task, grid, seeds and protocol (so the same runs, by
# their own generators), other batches and other record keys. The full tier's first cells are the 5 cells the v1
# engine committed (35 runs: retrained first, so the two engines can be compared seed by seed), then (512, 1); the
# rest follow by h, as v1's groups. 56 runs a batch: 8 cells of 7 seeds, so the 112 runs are two batches.
SEC73_V3_PRESETS = {
    "quick": dataclasses.replace(_QUICK, engine="v3"),
    "full": dataclasses.replace(_FULL, engine="v3", max_batch_runs=56,
                                first_cells=((64, 1), (128, 1), (64, 4), (64, 8), (256, 1), (512, 1))),
}


def sec73_preset(tier: str, *, source: str | None = None, engine: str = "v1") -> Sec73Preset:
    """The preset of ``tier`` ("quick"; "full" or "gpu" give the full tier) for ``engine`` ("v1", today's trainer,
    or "v3", :data:`SEC73_V3_PRESETS`). ``source`` overrides the embedding source; by default the full tier uses
    GPT-2 when ``$RGR_VERIFY_GPT2_DIR`` names a local snapshot, else MiniLM."""
    check_choice("tier", tier, ("quick", "full", "gpu"))
    check_choice("engine", engine, ENGINES)
    preset = (SEC73_PRESETS if engine == "v1" else SEC73_V3_PRESETS)["quick" if tier == "quick" else "full"]
    if source is None and preset.name == "full" and env(GPT2_DIR_ENV):
        source = "gpt2"
    return preset.with_source(source) if source is not None else preset
