"""The keys and plans of Sec. 7.3's stored runs: the code version, a run's record key, the runs a sweep should store.

Split from :mod:`rgr_verify.runs.sec73_sweep` (which trains and replays them, and re-exports these names) so that the
committed evidence (:mod:`rgr_verify.runs.evidence`), which counts a partial sweep's missing runs by its plan, needs
no import of the sweep, and the sweep, which joins its store with the evidence, none back: no circle.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import zlib
from pathlib import Path

import numpy as np

from .._checks import check_choice
from ..transformer import RunSpec
from .sec73_presets import Sec73Preset

__all__ = ["STORE_NAME", "EQUIVALENT_CODE_VERSIONS", "V3_EQUIVALENT_CODE_VERSIONS", "code_version", "code_of", "record_key",
           "equivalents_of", "sweep_plan",
           "plan_name", "planned_runs", "missing_cells"]

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
# a2b370c2c23b: the sources before the graphed step's warm-up, capture and replay moved into
# engine.capture.graphed_step (2026-11-28, 13th session, shared with the v3 trainer); the step's kernels are the same
# and the eager step is unchanged; the cells (64, 4), (64, 8) and (256, 1) were trained under it.
EQUIVALENT_CODE_VERSIONS = ("cfd1c392b7c3", "94b55fb122c1", "e9cdb88f25e3", "d82a1fb65e48", "a2b370c2c23b")
# The same for the v3 engine's records (code_version("v3")): none yet.
V3_EQUIVALENT_CODE_VERSIONS: tuple = ()
# The sources each engine's code version hashes (in rgr_verify/). v3 hashes transformer.py too: its trainer runs
# block_inputs, the configurations and the deadline of that module.
_SOURCES = {"v1": ("transformer.py", "transformer_task.py", "embedding_sources.py"),
            "v3": ("transformer_v3.py", "transformer.py", "transformer_task.py", "embedding_sources.py")}
_PLAN_PREFIX = {"v1": "sec73", "v3": "sec73v3"}  # a plan's first field names its engine


def code_version(engine: str = "v1") -> str:
    """The version of Sec. 7.3's stored runs of ``engine``: a hash of the trainer's sources (the block, its task
    sampler, the embedding sources; for "v3" also the keyless block of ``transformer_v3.py``), so a changed trainer
    stops matching old records. v1's hash is unchanged by the v3 engine."""
    from .sec73_presets import ENGINES

    check_choice("engine", engine, ENGINES)
    h = hashlib.sha256()
    here = Path(__file__).resolve().parents[1]  # rgr_verify/
    for name in _SOURCES[engine]:
        h.update((here / name).read_bytes())
    return h.hexdigest()[:12]


def code_of(engine: str) -> str:
    """code_version of ``engine``, called as ``code_version()`` for v1 (the call tests and tools replace)."""
    return code_version() if engine == "v1" else code_version(engine)


def equivalents_of(engine: str) -> tuple:
    return EQUIVALENT_CODE_VERSIONS if engine == "v1" else V3_EQUIVALENT_CODE_VERSIONS


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


def planned_runs(plan: str, *, equivalents: bool = False) -> dict[str, tuple[int, int, int]]:
    """The runs a Sec. 7.3 sweep should store, named by ``plan`` = "sec73:TIER:SOURCE:DEVICE:ROOT_SEED" (e.g.
    "sec73:full:minilm:cuda:20250926"; "sec73v3:..." for the v3 engine's runs, :func:`plan_name`), as
    {key: (D_K, h, seed index)} under the current code version of the plan's engine, and with ``equivalents`` also
    under each of its equivalent versions (:data:`EQUIVALENT_CODE_VERSIONS`, :data:`V3_EQUIVALENT_CODE_VERSIONS`:
    the keys its stored records may carry). Evidence that holds part of such a sweep records the plan, so its
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
        for code in equivalents_of(preset.engine) if equivalents else ():
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
