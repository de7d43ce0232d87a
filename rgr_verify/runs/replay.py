"""The claims' feed: the records of a preset for a claim check, replayed from the committed evidence and the
results store, or trained here when the tier allows it (:func:`claim_records`)."""

from __future__ import annotations

from .store import JsonlStore, ResultStore, default_results_dir
from .sweeps.worker import ensure_runs
# The rest of what a claim reads of the stored runs: the claims import rgr_verify.runs through this module only (and
# the presets, which are configuration), so this is the one door between the checks and the stores
# (properties/test_layers.py).
from .adaptive import adaptive_thresholds, records_probe
from .batches import seed_counts, seed_range
from .evidence import PACKAGE_EVIDENCE, default_evidence_dir, evidence_complete, evidence_records, manifests
from .facts import ensure_facts_runs, facts_preset_runs
from .ladder import cells_of
from .sec73_sweep import run_sec73, stored_sec73

__all__ = ["claim_records", "NEEDS_GPU", "SEED_BATCHES", "first_batch", "default_results_dir", "adaptive_thresholds",
           "records_probe", "PACKAGE_EVIDENCE", "evidence_complete", "evidence_records", "manifests",
           "ensure_facts_runs", "facts_preset_runs", "cells_of", "run_sec73", "stored_sec73", "seed_counts", "seed_range",
           "JsonlStore", "default_evidence_dir"]  # the last two: the verdict store's (rgr_verify.claims.verdict_store)

NEEDS_GPU = "needs a CUDA GPU or stored full-tier results (committed evidence/ or --results DIR)"

# The presets whose committed full-tier evidence was trained in seed batches, and the seeds of the first batch (the
# batch the claims' rules were first judged on; later batches added seeds after an inconclusive result). Read off the
# manifests: evidence/sec72-value-full.json ("Seeds 0-2 (144 runs): trained 2026-11-23 ... Seeds 3-9 (336 runs)") and
# evidence/facts-full.json (facts-fig3: seeds 0-9 on 2026-11-23, seeds 10-29 on 2026-11-26). The multiverse's "seed
# batch" dimension judges a claim on the first batch alone (:meth:`rgr_verify.claims.base.CheckContext.keep_records`).
SEED_BATCHES = {"sec72-value": (0, 1, 2), "facts-fig3": tuple(range(10))}


def first_batch(preset: str, tier: str):
    """The seeds of the first training batch of ``preset``'s committed evidence at ``tier`` (:data:`SEED_BATCHES`),
    or None when it came in one batch (or the tier replays none)."""
    return SEED_BATCHES.get(preset) if tier == "full" else None


def _other_reading(recs: list[dict], ctx) -> tuple[list[dict], str]:
    """``recs`` (sec6-grid, full) with the records of every cell trained under ``ctx.reading`` replaced by those runs
    (:data:`rgr_verify.runs.presets.READING_PRESETS`), and a note; ValueError when that reading's runs cannot be had."""
    from .presets import READING_PRESETS

    if ctx.reading not in READING_PRESETS:
        raise ValueError(f"reading must be one of {sorted(READING_PRESETS)}, got {ctx.reading!r}")
    other = READING_PRESETS[ctx.reading]
    sub = ctx.variant(reading=None, leave_out_seed=None, plant=None)
    alt, why = claim_records(other, "full", sub)
    if alt is None:
        raise ValueError(f"reading {ctx.reading!r}: {why}")
    cells = {(r["config"]["m"], r["config"]["d_model"]) for r in alt}
    kept = [r for r in recs if (r["config"]["m"], r["config"]["d_model"]) not in cells]
    ctx.seeds_read["replaced"] = ctx.seeds_read.get("replaced", 0) + len(recs) - len(kept)
    return kept + alt, (f"the {len(recs) - len(kept)} runs of cells {sorted(cells)} replaced by {len(alt)} of {other} "
                        f"({ctx.reading})")


def claim_records(preset: str, tier: str, ctx) -> tuple[list[dict] | None, str]:
    """Records of a preset for a claim check, or (None, reason) when they cannot be had here.

    Quick tier: missing runs are trained on the claim's device (CPU: one torch thread, then restored).
    Full tier: the committed evidence (:mod:`rgr_verify.runs.evidence`) and the results store (with its shards) are
    replayed (the store wins for a run in both); no stored run is retrained. Runs in neither are trained only on
    CUDA and never when ``ctx.replay_only``; otherwise the check cannot run. What was replayed and trained is
    appended to ``ctx.provenance`` and returned as the second element (empty reason = records available).
    """
    from .evidence import evidence_records
    from .presets import preset_keys, preset_runs

    runs = preset_runs(preset, tier)
    store = ResultStore(ctx.results_dir)  # resolved when the context was made
    if tier == "full":
        stored, manifests = evidence_records(preset, tier, ctx.evidence_dir)
        local = store.records()
        have = {**stored, **local}
        keys = preset_keys(preset, tier)
        from_evidence = sum(k in stored and k not in local for k in keys)
        from_store = sum(k in local for k in keys)
        todo = [run for run, k in zip(runs, keys) if k not in have]
        names = ", ".join(f"evidence/{m.records_path_name}" for m in manifests) or "no committed evidence"
        if todo and (ctx.device != "cuda" or ctx.replay_only):
            return None, (f"{NEEDS_GPU} ({len(todo)} of {len(runs)} {preset} full-tier runs are neither in {names} "
                          f"nor in {store.directory})")
        note = f"{preset} [full]: {from_evidence} runs replayed from {names}"
        if from_store:
            note += f", {from_store} from {store.directory}"
        if todo:
            ensure_runs(todo, results_dir=ctx.results_dir, device=ctx.device)
            have.update(store.records())
            note += f", {len(todo)} missing runs trained now on {ctx.device}"
        recs = [have[k] for k in keys]
        if getattr(ctx, "reading", None) is not None and preset == "sec6-grid":
            recs, swapped = _other_reading(recs, ctx)
            note += f"; {swapped}"
        ctx.provenance.append(note)
        return ctx.keep_records(recs, first_batch(preset, tier)), note
    recs, _ = ensure_runs(runs, results_dir=ctx.results_dir, device=ctx.device,
                          threads=1 if ctx.device == "cpu" else None)  # restores the thread count after
    return ctx.keep_records(recs), ""
