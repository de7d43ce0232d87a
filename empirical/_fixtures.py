"""Helpers shared by several test modules of ``empirical/`` (test modules import none from one another)."""

import json
from collections import Counter

import numpy as np

from rgr_verify.models.embedding_sources import GaussianSource
from rgr_verify.runs.sec73_presets import Sec73Preset
from rgr_verify.runs.store import ResultStore
from rgr_verify.models.transformer import RunSpec, TaskConfig, TrainConfig

# The v3 gpu tests' one shape (test_sec73_v3_trainer, test_sec73_v3_compile): the loss compiled at it once serves
# them all in the first minute of a device call (Dynamo's cache; a cold compile is tens of seconds on a device).
V3_GPU_SPECS = [RunSpec(8, 1, 1), RunSpec(32, 4, 2), RunSpec(16, 8, 3), RunSpec(64, 2, 4), RunSpec(32, 1, 5)]
V3_GPU_TASK = TaskConfig(200, 4, d_ff=16)
V3_GPU_CFG = TrainConfig(steps=40, batch_size=32, lr=3e-3, eval_every=10, n_val=128, n_test=128,
                         mixed_precision=True)


def v3_gpu_table():
    """The v3 gpu tests' table: 200 Gaussian rows of width 64 (and NULL)."""
    return GaussianSource(64).table(200, rng=np.random.default_rng(3)).E


def tiny_sec73_preset() -> Sec73Preset:
    """A Sec. 7.3 preset small enough to train on a CPU in seconds: Gaussian rows, m = 12, 2 x 2 cells, 2 seeds."""
    return Sec73Preset(name="quick", source="gaussian", task=TaskConfig(m=12, ell=2, d_ff=4), D_Ks=(2, 4),
                       heads=(1, 2), seeds=2, train=TrainConfig(steps=4, batch_size=8, eval_every=2, n_val=16,
                                                                n_test=16), device="cpu", gaussian_d_model=8)


def stored_lines(directory):
    """(complete records' keys as a Counter, torn-line count) over runs.jsonl and its shards."""
    store = ResultStore(directory)
    keys, torn = Counter(), 0
    for path in store.jsonl.files():
        if not path.exists():
            continue
        for raw in path.read_bytes().split(b"\n"):
            if not raw.strip():
                continue
            try:
                keys[json.loads(raw)["key"]] += 1
            except (ValueError, KeyError):
                torn += 1
    return keys, torn
