"""The stored runs of the second paper's model (arXiv 2502.05076): its presets, store keys and the training of
missing runs into ``facts-runs.jsonl``.

The model itself (configs, parameters, training) is :mod:`rgr_verify.models.facts_model`; this module is its kind of
stored run (:mod:`rgr_verify.runs.kinds`): a key is the sha256 of (config, seed, :data:`FACTS_VERSION`), one
training lock per preset, a batch is one shape (:meth:`FactsConfig.shape_key`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Sequence

from ..basics.checks import check_choice
from ..models.facts_model import FACTS_VERSION, FactsConfig, train_facts_batch
from .evidence import with_evidence
from .kinds import store_of
from .store import JsonlStore

__all__ = ["FACTS_STORE", "FACTS_PRESETS", "facts_run_key", "facts_preset_runs", "ensure_facts_runs"]

FACTS_STORE = store_of("facts")


def facts_run_key(config: FactsConfig, seed: int) -> str:
    """Store key: sha256 of (config, seed, FACTS_VERSION)."""
    payload = json.dumps({"config": config.to_dict(), "seed": int(seed), "v": FACTS_VERSION}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _fig4(tier: str) -> list[tuple[FactsConfig, int]]:
    # d_qk x d_vo grid at d_model 8, one head; (a, b) and (b, a) have the same parameter count.
    n_seeds = 4 if tier == "quick" else 10
    dims = (1, 2, 4, 8)
    base = dict(n_keys=20, n_queries=10, n_values=20, d_model=8, n_heads=1, epochs=600 if tier == "quick" else 2000)
    return [(FactsConfig(**base, d_qk=a, d_vo=b), s) for a in dims for b in dims for s in range(n_seeds)]


def _fig3(tier: str) -> list[tuple[FactsConfig, int]]:
    # rank-80 database (20 keys x 4 queries, a value each); layers with rank bound 4 d_model around 80. Full tier: 30
    # seeds (10 until 2026-11-26; the criteria comparisons weigh only the runs where two criteria disagree).
    n_seeds = 3 if tier == "quick" else 30
    ds = (2, 3, 4, 8, 16, 24) if tier == "quick" else (2, 3, 4, 6, 8, 12, 16, 20, 24, 32)
    return [(FactsConfig(n_keys=20, n_queries=4, n_values=80, database="distinct", d_model=d, n_heads=1, d_qk=d,
                         d_vo=d, epochs=1000 if tier == "quick" else 2000), s) for d in ds for s in range(n_seeds)]


def _rank80(tier: str) -> list[tuple[FactsConfig, int]]:
    # a layer whose circuit tensor has rank <= 10 (|Q| = 2, d_model = 5) on a rank-80 database (40 keys x 2 queries)
    n_seeds = 4 if tier == "quick" else 10
    return [(FactsConfig(n_keys=40, n_queries=2, n_values=80, database="distinct", d_model=5, n_heads=1, d_qk=5,
                         d_vo=5, epochs=2000, lr=3e-2), s) for s in range(n_seeds)]


FACTS_PRESETS = {"facts-fig4": _fig4, "facts-fig3": _fig3, "facts-rank80": _rank80}


def facts_preset_runs(name: str, tier: str = "quick") -> list[tuple[FactsConfig, int]]:
    """The (config, seed) pairs of a facts preset at ``tier`` ("quick" or "full")."""
    check_choice("preset", name, tuple(FACTS_PRESETS))
    check_choice("tier", tier, ("quick", "full"))
    return FACTS_PRESETS[name](tier)


def ensure_facts_runs(runs: Sequence[tuple[FactsConfig, int]], *, results_dir=None, lock_name: str = "facts"
                      ) -> list[dict]:
    """A record for every run, training the missing ones (grouped by shape, one batch each) into
    ``<results_dir>/facts-runs.jsonl`` under a named training lock (one per preset); the committed evidence of that
    store is joined explicitly (:func:`rgr_verify.runs.evidence.with_evidence`). Records in input order."""
    store = JsonlStore(results_dir, FACTS_STORE)
    runs = [(c, int(s)) for c, s in runs]
    for c, _ in runs:
        if not isinstance(c, FactsConfig):
            raise ValueError(f"runs must hold (FactsConfig, seed) pairs, got {type(c).__name__}")
    keys = [facts_run_key(c, s) for c, s in runs]
    with store.locked(lock_name):
        have = with_evidence(store)
        groups: dict[tuple, dict[str, tuple[FactsConfig, int]]] = {}
        for (c, s), k in zip(runs, keys):
            if k not in have:
                groups.setdefault(c.shape_key(), {})[k] = (c, s)
        for todo in groups.values():
            recs = train_facts_batch(list(todo.values()))
            store.append([{**r, "key": k} for k, r in zip(todo, recs)])
        have = with_evidence(store)
    return [have[k] for k in keys]
