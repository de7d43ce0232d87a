"""The seam of the stored-runs layer: the three kinds of training run, and what differs between them as data.

Everything else about a stored run is common and lives once in this package: the append-only store with shards and
the torn-line discipline (:mod:`.store`, :mod:`.store_lines`), the committed evidence with manifests and sha256
(:mod:`.evidence`, joined to a store explicitly: :func:`.evidence.with_evidence`, :func:`.replay.claim_records`),
replay for the claims (:mod:`.replay`), locks (:meth:`.store.JsonlStore.locked`). A kind says:

* ``store``: the file name of its results store (in the results directory, ``$RGR_VERIFY_RESULTS``), which the
  store (:class:`.store.ResultStore`), the line checks (:mod:`.store_lines`), the evidence (:mod:`.evidence`), the
  Sec. 7.3 keys and the facts runs take from here;
* ``fields``: the fields its records carry with their JSON types, which :mod:`.store_lines` checks every line of
  the store against (every record also needs a string ``"key"``);
* ``version``, ``trainer``, ``lock``, ``batch``: where its key's version is declared, which module trains it, the
  granularity of its training lock and how one batch trains - words for the reader (the objects live in those
  modules; importing them here would tie the seam to every trainer).

This module imports nothing of the package, so that every other module of the layer can ask it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["RunKind", "KIND_NAMES", "run_kind", "kind_of_store", "store_of"]


@dataclass(frozen=True)
class RunKind:
    """One kind of stored training run (see the module docstring)."""

    name: str
    store: str
    fields: dict = field(default_factory=dict)
    version: str = ""
    trainer: str = ""
    lock: str = ""
    batch: str = ""


_KINDS = (
    RunKind("engine", "runs.jsonl",
            {"engine_version": "str", "config": "object", "seed": "int", "metric": "number", "steps": "int",
             "stopped_early": "bool", "tau": "number", "val_history": "numbers", "extra": "object"},
            version="rgr_verify.engine.ENGINE_VERSION (a record carries it as engine_version)",
            trainer="rgr_verify.runs.sweeps (units of the batched engine, rgr_verify.engine)",
            lock="per unit (a batch of runs of one shape, rgr_verify.runs.sweeps.units)",
            batch="the batched engine, one stacked model per unit"),
    RunKind("sec73", "sec73-runs.jsonl",
            {"D_K": "int", "h": "int", "seed": "int", "seed_index": "int", "test_acc": "number",
             "best_val_acc": "number", "final_test_acc": "number", "test_null_rate": "number", "best_step": "int",
             "steps": "int", "source_description": "str"},
            version="rgr_verify.runs.sec73_keys.CODE_VERSIONS (declared per trainer, v1 or v3)",
            trainer="rgr_verify.runs.sec73_sweep (the pre-LN block of rgr_verify.models.transformer)",
            lock="per head count (the runs of one h train together)",
            batch="the pre-LN block on frozen embeddings, runs of one h (v1) or of any cells (v3) batched"),
    RunKind("facts", "facts-runs.jsonl",
            {"config": "object", "seed": "int", "epochs": "int", "stopped": "bool", "accuracy": "number map",
             "loss": "number", "min_p": "number", "rank_bound": "int"},
            version="rgr_verify.models.facts_model.FACTS_VERSION",
            trainer="rgr_verify.runs.facts (the attention-layer model of rgr_verify.models.facts_model)",
            lock="per preset", batch="one full-batch model per shape"),
)
_BY_NAME = {k.name: k for k in _KINDS}
KIND_NAMES = tuple(_BY_NAME)


def run_kind(name: str) -> RunKind:
    """The :class:`RunKind` ``name`` (one of :data:`KIND_NAMES`); KeyError naming the kinds for another name."""
    if name not in _BY_NAME:
        raise KeyError(f"no run kind {name!r}; the kinds are {', '.join(KIND_NAMES)}")
    return _BY_NAME[name]


def store_of(name: str) -> str:
    """The results-store file name of the kind ``name``."""
    return run_kind(name).store


def kind_of_store(filename: str) -> RunKind:
    """The kind whose results store is ``filename``; ValueError naming the stores there are."""
    for k in _KINDS:
        if k.store == filename:
            return k
    raise ValueError(f"{filename!r} is not the store of a run kind ({', '.join(k.store for k in _KINDS)})")
