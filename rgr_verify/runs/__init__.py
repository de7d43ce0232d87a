"""Stored training runs: one layer for everything about them, for the three kinds of run the audit trains.

- :mod:`.store`, :mod:`.store_lines`: the append-only JSONL results store (per-writer shards, union reads, the
  torn-line discipline, compaction; each line checked against its store's fields);
- :mod:`.evidence`: the committed paper-scale evidence (manifests, sha256, golden re-execution), joined to a store
  explicitly (:func:`.evidence.with_evidence`);
- :mod:`.replay`: the records a claim reads (evidence, then the results store, then training where allowed);
- :mod:`.presets`, :mod:`.sec73_presets`: the experiments (quick analogues and paper-scale grids);
- :mod:`.ladder`, :mod:`.adaptive`: a preset's D_K ladder and the adaptive D_K* search between its rungs;
- :mod:`.sweeps`: units, the self-scheduling worker, executors (inline, local, slurm, ray), progress;
- :mod:`.sec73_sweep`: the Sec. 7.3 sweep (pre-LN block on frozen embeddings); :mod:`.facts`: the second paper's runs;
- :mod:`.kinds`: the seam, what differs between the kinds as data (store file, record fields, where the version is
  declared, trainer, lock, batch), asked by the store, its line checks, the evidence and the kinds' own modules.

This layer sits above the models (the engine, the transformer block, the facts model) and below the claims; the
claims reach it through :mod:`.replay` and the kind-specific entry points.
"""

from .kinds import KIND_NAMES, RunKind, kind_of_store, run_kind, store_of

__all__ = ["KIND_NAMES", "RunKind", "kind_of_store", "run_kind", "store_of"]
