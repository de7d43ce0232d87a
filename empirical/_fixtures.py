"""Helpers shared by several test modules of ``empirical/`` (test modules import none from one another)."""

import json
from collections import Counter

from rgr_verify.runs.sec73_presets import Sec73Preset
from rgr_verify.runs.store import ResultStore
from rgr_verify.models.transformer import TaskConfig, TrainConfig


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
