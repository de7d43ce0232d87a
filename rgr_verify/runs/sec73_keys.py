"""The keys and plans of Sec. 7.3's stored runs: the code version, a run's record key, the runs a sweep should store.

Split from :mod:`rgr_verify.runs.sec73_sweep` (which trains and replays them, and re-exports these names) so that the
committed evidence (:mod:`rgr_verify.runs.evidence`), which counts a partial sweep's missing runs by its plan, needs
no import of the sweep, and the sweep, which joins its store with the evidence, none back: no circle.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import zlib
from importlib import resources

import numpy as np

from ..basics.checks import check_choice
from ..models.transformer import RunSpec
from .sec73_presets import Sec73Preset
from .kinds import store_of

__all__ = ["STORE_NAME", "CODE_VERSIONS", "ADOPTED_FILE", "code_version", "code_of", "record_key", "adopted_versions",
           "sweep_plan",
           "plan_name", "planned_runs", "missing_cells"]

STORE_NAME = store_of("sec73")
#: The declared version of each Sec. 7.3 trainer: what a run's key carries, so a changed trainer stops matching old
#: records. Bump it when the arithmetic of a run changes (the task sampler of ``transformer_task.py``, the block,
#: its initialisation, loss, optimiser and evaluation in ``transformer.py`` or ``transformer_v3.py``, the embedding
#: tables of ``embedding_sources.py``), and record the new golden (:mod:`rgr_verify.runs.sec73_golden`, whose test
#: re-executes a short training and fails when the numbers move under an unchanged version). Renaming, moving or
#: refactoring those files changes nothing. Since 2026-11-28; before, the version was a hash of the files' text.
CODE_VERSIONS = {"v1": "v1-1", "v3": "v3-1"}
#: The hashed versions of the era before declared versions, each adopted by the declared version that trains its
#: runs identically, with the reason: a one-time migration, so that committed evidence keeps its keys. No later
#: version adopts any (a test holds the file to the two first declared versions).
ADOPTED_FILE = "sec73-adopted-code-versions.json"
_PLAN_PREFIX = {"v1": "sec73", "v3": "sec73v3"}  # a plan's first field names its engine


def code_version(engine: str = "v1") -> str:
    """The declared version of Sec. 7.3's trainer ``engine`` (:data:`CODE_VERSIONS`), which the keys of its stored
    runs carry."""
    from .sec73_presets import ENGINES

    check_choice("engine", engine, ENGINES)
    return CODE_VERSIONS[engine]


def code_of(engine: str) -> str:
    """code_version of ``engine``, called as ``code_version()`` for v1 (the call tests and tools replace)."""
    return code_version() if engine == "v1" else code_version(engine)


@functools.lru_cache(maxsize=None)
def _adopted() -> dict:
    return json.loads(resources.files("rgr_verify").joinpath("data", ADOPTED_FILE).read_text(encoding="utf-8"))


def adopted_versions(engine: str = "v1") -> tuple:
    """The hashed code versions (before declared versions) whose stored runs replay under ``engine``'s declared
    version, re-keyed (:data:`ADOPTED_FILE`); empty once the declared version has moved past its first."""
    return tuple(_adopted()["adopted"].get(code_of(engine), {}))

def _run_seeds(root_seed: int, n: int) -> list[int]:
    ss = np.random.SeedSequence([int(root_seed), zlib.crc32(b"sec73")])
    return [int(x) for x in ss.generate_state(n, dtype=np.uint32)]


def record_key(spec_cfg: dict, device: str, code: str) -> str:
    """The store key of one Sec. 7.3 run: sha256 of its config, the device kind and the code version."""
    blob = json.dumps({"code": code, "device": device, **spec_cfg}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _source_key(preset: Sec73Preset) -> dict:
    """What identifies the embedding table in a record's key (not file paths, so stores move between machines)."""
    if preset.source == "gaussian":
        return {"source": "gaussian", "d_model": preset.gaussian_d_model}
    return {"source": preset.source}


def sweep_plan(preset: Sec73Preset, root_seed: int, device: str):
    """(key, RunSpec, seed index, keyed configuration) of every run of the sweep. A v3 run's configuration also
    names its engine, so its key differs from the v1 run's even under an equal code hash."""
    code = code_of(preset.engine)
    seeds = _run_seeds(root_seed, preset.seeds)
    base = {**_source_key(preset), "task": dataclasses.asdict(preset.task), "train": dataclasses.asdict(preset.train)}
    if preset.engine != "v1":
        base["engine"] = preset.engine
    plan = []
    for D, h in preset.cells():
        for i, s in enumerate(seeds):
            cfg = {**base, "D_K": D, "h": h, "seed": s}
            plan.append((record_key(cfg, device, code), RunSpec(D, h, s), i, cfg))
    return plan


def plan_name(preset: Sec73Preset, device: str, root_seed: int) -> str:
    """The plan of a sweep (:func:`planned_runs`): "sec73:TIER:SOURCE:DEVICE:ROOT_SEED" for the v1 engine,
    "sec73v3:..." for the v3 engine (e.g. "sec73v3:full:minilm:cuda:20250926")."""
    return f"{_PLAN_PREFIX[preset.engine]}:{preset.name}:{preset.source}:{device}:{int(root_seed)}"


def planned_runs(plan: str, *, adopted: bool = False) -> dict[str, tuple[int, int, int]]:
    """The runs a Sec. 7.3 sweep should store, named by ``plan`` = "sec73:TIER:SOURCE:DEVICE:ROOT_SEED" (e.g.
    "sec73:full:minilm:cuda:20250926"; "sec73v3:..." for the v3 engine's runs, :func:`plan_name`), as
    {key: (D_K, h, seed index)} under the declared code version of the plan's engine, and with ``adopted`` also
    under each hashed version it adopted (:func:`adopted_versions`: the keys its stored records may carry). Evidence that holds part of such a sweep records the plan, so its
    manifest counts (and ``rgr-verify evidence list`` shows) the runs still missing. ValueError on a malformed
    plan."""
    parts = plan.split(":") if isinstance(plan, str) else []
    engines = {prefix: engine for engine, prefix in _PLAN_PREFIX.items()}
    if len(parts) != 5 or parts[0] not in engines or not parts[4].isdigit():
        raise ValueError(f"plan must read sec73:TIER:SOURCE:DEVICE:ROOT_SEED (sec73v3:... for the v3 engine), "
                         f"got {plan!r}")
    from .sec73_presets import sec73_preset

    prefix, tier, source, device, seed = parts
    check_choice("plan's device", device, ("cpu", "cuda"))
    preset = sec73_preset(tier, source=source, engine=engines[prefix])
    out = {}
    for key, spec, i, cfg in sweep_plan(preset, int(seed), device):
        out[key] = (spec.D_K, spec.n_heads, i)
        for code in adopted_versions(preset.engine) if adopted else ():
            out[record_key(cfg, device, code)] = (spec.D_K, spec.n_heads, i)
    return out


def missing_cells(plan: str, keys) -> list[tuple[int, int, int]]:
    """(D_K, h, runs missing) of every cell of ``plan`` (:func:`planned_runs`) not fully among ``keys`` (a run's key
    under the declared or an adopted code version), in the plan's order."""
    every = planned_runs(plan, adopted=True)
    have = {every[k] for k in keys if k in every}
    miss: dict[tuple[int, int], int] = {}
    for D, h, i in planned_runs(plan).values():
        if (D, h, i) not in have:
            miss[(D, h)] = miss.get((D, h), 0) + 1
    return [(D, h, n) for (D, h), n in miss.items()]
