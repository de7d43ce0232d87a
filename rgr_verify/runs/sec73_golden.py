"""Golden re-execution of Sec. 7.3's trainers: the numbers a declared code version stands for.

A run's key carries its trainer's declared version (:data:`rgr_verify.runs.sec73_keys.CODE_VERSIONS`), not a hash
of its source text, so a rename or a move keeps the stored runs. What keeps the declaration honest is this module:
:func:`golden_trace` re-executes a short, fixed piece of each trainer on the CPU, and
``empirical/test_sec73_golden.py`` compares it with the trace recorded for the declared version in
:data:`GOLDEN_FILE`. A change of arithmetic under an unchanged version fails there; after bumping the version,
``python -m rgr_verify.runs.sec73_golden`` records the new trace.

A trace has three parts, each compared at the resolution that survives a change of machine:

* ``sampled``: sha256 of the integers the task sampler draws (a permutation, training examples, the batched
  sampler's draws) - exact on every machine, so compared exactly;
* ``logits``: the block's first-batch logits at initialisation and after a fixed number of full-batch AdamW steps
  (from the trainer's own functions) - float32, so compared within :data:`GOLDEN_TOLERANCE` ``logits_abs``;
  a changed LayerNorm, activation, scaling or initialisation moves them by far more;
* ``accuracy``: every run's validation accuracy at every evaluation of a short training by the trainer itself
  (sampler, step, optimiser, evaluation) - counts of examples, which another summation order can flip one by
  one; compared by the mean absolute difference in examples per evaluation, within ``accuracy_examples``.

Only the Gaussian embedding source enters (its rows are drawn by numpy, the same everywhere); the MiniLM and GPT-2
tables are checked against their digests elsewhere (:mod:`rgr_verify.runs.sec73_carry`).
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path

import numpy as np
import torch

from ..basics.checks import check_choice
from ..basics.files import atomic_write_text
from ..models.embedding_sources import GaussianSource
from ..models.transformer import (RunSpec, TaskConfig, TrainConfig, block_inputs, block_logits, head_layout, init_block_params,
                           train_block_runs)
from ..models.transformer_task import pack_runs, moved_items, run_generator, sample_examples, sample_permutation, stack_examples
from ..models.transformer_v3 import block_logits_v3, init_block_params_v3, layout_v3, train_block_runs_v3
from .sec73_keys import code_version
from .sec73_presets import ENGINES

__all__ = ["GOLDEN_FILE", "GOLDEN_TOLERANCE", "GOLDEN_TASK", "GOLDEN_TRAIN", "GOLDEN_SPECS", "golden_trace",
           "stored_golden", "golden_mismatches", "record_golden"]

GOLDEN_FILE = "sec73-golden.json"
GOLDEN_D_MODEL = 32
GOLDEN_TASK = TaskConfig(m=48, ell=4, d_ff=32)
GOLDEN_TRAIN = TrainConfig(steps=300, batch_size=64, lr=3e-3, eval_every=20, n_val=512, n_test=512,
                           mixed_precision=False)
GOLDEN_SPECS = (RunSpec(16, 1, 1), RunSpec(16, 2, 2), RunSpec(32, 4, 3))
_LOGIT_STEPS = 5  # full-batch AdamW steps before the second logits
#: Measured (2026-11-28, the planted alternatives of empirical/test_sec73_golden.py among them): two summation orders of the same function - the v1
#: and v3 blocks on the same runs, over three Gaussian tables - differ by at most 1.4e-5 in the logits and 0.09
#: examples per evaluation in accuracy; GELU's tanh approximation in place of the exact one moves the accuracy by
#: 0.78 examples (the logits by only 6e-6), AdamW's learning rate x 1.02 by 4.4 examples and the logits by 2e-2.
GOLDEN_TOLERANCE = {"logits_abs": 1e-4, "accuracy_examples": 0.5}


def _table() -> torch.Tensor:
    E = GaussianSource(d_model=GOLDEN_D_MODEL).table(GOLDEN_TASK.m, rng=np.random.default_rng(20251128)).E
    return torch.as_tensor(E, dtype=torch.float32)


def _sampled_digest() -> str:
    h = hashlib.sha256()
    perms, moved = [], []
    for s in GOLDEN_SPECS:
        perm = sample_permutation(GOLDEN_TASK.m, generator=run_generator(s.seed, 2))
        perms.append(perm)
        moved.append(moved_items(perm))
        for t in sample_examples(perm, 32, GOLDEN_TASK.ell, generator=run_generator(s.seed, 3)):
            h.update(t.numpy().astype(np.int64).tobytes())
    gens = [run_generator(s.seed, 4) for s in GOLDEN_SPECS]
    for t in stack_examples(pack_runs(perms, moved), 32, GOLDEN_TASK.ell, gens):
        h.update(t.numpy().astype(np.int64).tobytes())
    return h.hexdigest()[:16]


def _first_batch(E):
    perm = sample_permutation(GOLDEN_TASK.m, generator=run_generator(0, 2))
    pairs, query, label = sample_examples(perm, 64, GOLDEN_TASK.ell, generator=run_generator(0, 3))
    return block_inputs(E, pairs, query), label


def _logits(engine: str, E) -> list:
    """The first batch's logits (rounded to 1e-6) at initialisation and after full-batch AdamW steps."""
    X, label = _first_batch(E)
    out = []
    for spec in GOLDEN_SPECS:
        specs = [spec]
        if engine == "v1":
            params = init_block_params(specs, GOLDEN_D_MODEL, GOLDEN_TASK.d_ff)
            G, scale = head_layout(specs, spec.D_K, "cpu")

            def logits():
                return block_logits(params, X[None], E, G, scale)[0]
        else:
            params = init_block_params_v3(specs, GOLDEN_D_MODEL, GOLDEN_TASK.d_ff, spec.D_K, spec.n_heads)
            layout = layout_v3(specs, spec.D_K, spec.n_heads, GOLDEN_D_MODEL)

            def logits():
                return block_logits_v3(params, X[None], E, layout)[0]
        opt = torch.optim.AdamW(list(params.values()), lr=GOLDEN_TRAIN.lr, weight_decay=GOLDEN_TRAIN.weight_decay)
        for p in params.values():
            p.requires_grad_(True)
        with torch.no_grad():
            first = logits()[:4, :8]
        for _ in range(_LOGIT_STEPS):
            loss = torch.nn.functional.cross_entropy(logits(), label)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        with torch.no_grad():
            last = logits()[:4, :8]
        out.append([[round(float(x), 6) for x in row] for row in torch.cat([first, last])])
    return out


def golden_trace(engine: str = "v1") -> dict:
    """Re-execute the fixed piece of Sec. 7.3's trainer ``engine`` ("v1" or "v3") on the CPU: {"version",
    "sampled", "logits", "accuracy"} (the module docstring). About 5 s for v1, 2 s for v3."""
    check_choice("engine", engine, ENGINES)
    E = _table()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        logits = _logits(engine, E)
    finally:
        torch.set_num_threads(threads)
    acc: dict = {s: [] for s in GOLDEN_SPECS}

    def progress(step, specs, val_acc, test_acc):
        for s, v in zip(specs, val_acc):
            acc[s].append(round(float(v) * GOLDEN_TRAIN.n_val))

    train = train_block_runs if engine == "v1" else train_block_runs_v3
    train(E, list(GOLDEN_SPECS), GOLDEN_TASK, GOLDEN_TRAIN, device="cpu", progress=progress)
    return {"version": code_version(engine), "sampled": _sampled_digest(), "logits": logits,
            "accuracy": [acc[s] for s in GOLDEN_SPECS]}


def _golden_path() -> Path:
    return Path(str(resources.files("rgr_verify").joinpath("data", GOLDEN_FILE)))


def stored_golden(path=None) -> dict:
    """{engine: trace} as recorded in :data:`GOLDEN_FILE` (or ``path``)."""
    path = Path(path) if path is not None else _golden_path()
    return json.loads(path.read_text(encoding="utf-8"))["traces"]


def golden_mismatches(trace: dict, stored: dict, tolerance: dict | None = None) -> list[str]:
    """Where ``trace`` (:func:`golden_trace`) leaves ``stored`` (the recorded trace of the same engine) beyond
    ``tolerance`` (default :data:`GOLDEN_TOLERANCE`); empty when the trainer reproduces it. A different
    ``version`` is one mismatch (record the golden of the new version)."""
    tol = {**GOLDEN_TOLERANCE, **(tolerance or {})}
    if trace["version"] != stored["version"]:
        return [f"the golden was recorded for version {stored['version']}, the trainer declares {trace['version']}: "
                f"record the new golden (python -m rgr_verify.runs.sec73_golden)"]
    problems = []
    if trace["sampled"] != stored["sampled"]:
        problems.append(f"the task sampler draws other integers (digest {trace['sampled']}, recorded "
                        f"{stored['sampled']})")
    d = float(np.max(np.abs(np.asarray(trace["logits"]) - np.asarray(stored["logits"]))))
    if d > tol["logits_abs"]:
        problems.append(f"the block's logits moved by up to {d:.2e} (tolerance {tol['logits_abs']:.0e})")
    a, b = np.asarray(trace["accuracy"], dtype=float), np.asarray(stored["accuracy"], dtype=float)
    if a.shape != b.shape:
        problems.append(f"the training evaluated {a.shape} (runs, evaluations), recorded {b.shape}")
    else:
        mean = float(np.mean(np.abs(a - b)))
        if mean > tol["accuracy_examples"]:
            problems.append(f"the training's validation accuracy moved by {mean:.2f} examples per evaluation on "
                            f"average (tolerance {tol['accuracy_examples']})")
    return problems


def record_golden(path=None) -> dict:
    """Record the traces of every engine under their declared versions in :data:`GOLDEN_FILE` (or ``path``);
    returns them. Run after bumping a version in :data:`CODE_VERSIONS`, never to make a failing test pass
    under an unchanged version."""
    traces = {engine: golden_trace(engine) for engine in ENGINES}
    text = json.dumps({"schema": "rgr-verify/sec73-golden/1", "traces": traces}, indent=1) + "\n"
    atomic_write_text(Path(path) if path is not None else _golden_path(), text)
    return traces


if __name__ == "__main__":  # pragma: no cover - the recording command
    for name, tr in record_golden().items():
        print(f"{name}: version {tr['version']}, sampled {tr['sampled']}")
