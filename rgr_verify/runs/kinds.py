"""The seam of the stored-runs layer: the three kinds of training run, and what differs between them.

Everything else about a stored run is common and lives once in this package: the append-only store with shards and
the torn-line discipline (:mod:`.store`), the committed evidence with manifests and sha256 (:mod:`.evidence`, joined
to a store explicitly: :func:`.evidence.with_evidence`, :func:`.replay.claim_records`), replay for the claims
(:mod:`.replay`), locks (:meth:`.store.JsonlStore.locked`). A kind says only:

* ``store``: the file name of its results store (in the results directory, ``$RGR_VERIFY_RESULTS``);
* ``version``: what versions its keys (a key carries it, so a changed trainer stops matching old records);
* ``presets``: its named experiments, each a list of runs at a tier;
* ``key``: config (and seed) -> the record's key;
* ``lock``: the granularity of its training lock (what two concurrent callers never train twice);
* ``batch``: how one batch of its runs trains;
* ``ensure``: the entry point that trains what is missing into the store and returns the records.

The engine's runs (Secs. 6-7, App. A) are swept in units by :mod:`.sweeps` (executors inline, local, slurm, ray);
Sec. 7.3's pre-LN block runs (:mod:`.sec73_sweep`) and the second paper's model runs (:mod:`.facts`) train in this
process. :data:`KIND_NAMES` and :func:`run_kind` are the registry.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

__all__ = ["RunKind", "KIND_NAMES", "run_kind", "kind_of_store"]


@dataclass(frozen=True)
class RunKind:
    """One kind of stored training run (see the module docstring)."""

    name: str
    store: str
    version: Callable[[], str]
    presets: Callable[[], tuple]
    key: Callable
    lock: str
    batch: str
    ensure: Callable


def _engine() -> RunKind:
    from ..engine import ENGINE_VERSION, run_key
    from .presets import PRESETS
    from .sweeps import ensure_runs

    return RunKind("engine", "runs.jsonl", lambda: ENGINE_VERSION, lambda: tuple(PRESETS), run_key,
                   lock="per unit (a batch of runs of one shape, :mod:`rgr_verify.runs.sweeps.units`)",
                   batch="the batched engine, one stacked model per unit (rgr_verify.engine)", ensure=ensure_runs)


def _sec73() -> RunKind:
    from .sec73_sweep import STORE_NAME, code_version, record_key, run_sec73

    def key(spec_cfg: dict, device: str) -> str:
        return record_key(spec_cfg, device, code_version())

    # its presets are the tiers (rgr_verify.runs.sec73_presets.sec73_preset): quick, full
    return RunKind("sec73", STORE_NAME, code_version, lambda: ("quick", "full"), key,
                   lock="per head count (the runs of one h train together)",
                   batch="the pre-LN block on frozen embeddings, runs of one h batched (rgr_verify.models.transformer)",
                   ensure=run_sec73)


def _facts() -> RunKind:
    from ..models.facts_model import FACTS_VERSION
    from .facts import FACTS_PRESETS, FACTS_STORE, ensure_facts_runs, facts_run_key

    return RunKind("facts", FACTS_STORE, lambda: FACTS_VERSION, lambda: tuple(FACTS_PRESETS), facts_run_key,
                   lock="per preset", batch="one full-batch model per shape (rgr_verify.models.facts_model)",
                   ensure=ensure_facts_runs)


_BUILDERS = {"engine": _engine, "sec73": _sec73, "facts": _facts}
KIND_NAMES = tuple(_BUILDERS)


@functools.lru_cache(maxsize=None)
def run_kind(name: str) -> RunKind:
    """The :class:`RunKind` ``name`` (one of :data:`KIND_NAMES`), built on first use (building one imports its
    trainer); KeyError naming the kinds for another name."""
    if name not in _BUILDERS:
        raise KeyError(f"no run kind {name!r}; the kinds are {', '.join(KIND_NAMES)}")
    return _BUILDERS[name]()


def kind_of_store(filename: str) -> RunKind:
    """The kind whose results store is ``filename``; ValueError naming the stores there are."""
    for name in KIND_NAMES:
        if run_kind(name).store == filename:
            return run_kind(name)
    raise ValueError(f"{filename!r} is not the store of a run kind "
                     f"({', '.join(run_kind(n).store for n in KIND_NAMES)})")
