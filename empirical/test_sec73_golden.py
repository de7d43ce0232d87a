"""Sec. 7.3's trainers carry declared code versions; the golden re-execution holds each to its recorded numbers
(:mod:`rgr_verify.runs.sec73_golden`), and the one-time adoption of the hashed versions stays one-time."""

import gzip
import json
from importlib import resources
from pathlib import Path

import pytest
import torch

from rgr_verify.runs.sec73_golden import golden_mismatches, golden_trace, record_golden, stored_golden
from rgr_verify.runs.sec73_keys import ADOPTED_FILE, CODE_VERSIONS, adopted_versions, code_version

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("engine", ["v1", "v3"])
def test_sec73_trainer_reproduces_its_golden(engine):
    # Fails when the arithmetic of a run changes under an unchanged declared version: bump CODE_VERSIONS, then
    # record the new golden (python -m rgr_verify.runs.sec73_golden).
    assert golden_mismatches(golden_trace(engine), stored_golden()[engine]) == []


def test_sec73_golden_catches_a_changed_optimiser_step(monkeypatch):
    # Planted: AdamW's learning rate 2 % higher inside the trainer (and the logits' steps) under the same version.
    base = torch.optim.AdamW

    class Faster(base):
        def __init__(self, params, lr, **kw):
            super().__init__(params, lr=lr * 1.02, **kw)

    monkeypatch.setattr(torch.optim, "AdamW", Faster)
    problems = golden_mismatches(golden_trace("v3"), stored_golden()["v3"])
    assert any("logits moved" in p for p in problems) and any("accuracy moved" in p for p in problems)


def test_sec73_golden_catches_each_part_and_a_new_version():
    stored = stored_golden()["v1"]
    same = json.loads(json.dumps(stored))
    assert golden_mismatches(same, stored) == []
    assert "sampler" in golden_mismatches({**same, "sampled": "0" * 16}, stored)[0]
    moved = {**same, "logits": [[[x + 1e-3 for x in row] for row in run] for run in same["logits"]]}
    assert "logits moved" in golden_mismatches(moved, stored)[0]
    flipped = {**same, "accuracy": [[a + 1 for a in run] for run in same["accuracy"]]}  # one example everywhere
    assert "accuracy moved" in golden_mismatches(flipped, stored)[0]
    within = {**same, "accuracy": [[a + (i % 4 == 0) for i, a in enumerate(run)] for run in same["accuracy"]]}
    assert golden_mismatches(within, stored) == []  # a flipped example in a quarter of the evaluations: noise
    assert "record the new golden" in golden_mismatches({**same, "version": "v1-2"}, stored)[0]


def test_record_golden_writes_every_engine(tmp_path, monkeypatch):
    monkeypatch.setattr("rgr_verify.runs.sec73_golden.golden_trace",
                        lambda engine: {**stored_golden()[engine], "version": code_version(engine)})
    record_golden(tmp_path / "g.json")
    assert stored_golden(tmp_path / "g.json") == stored_golden()


def test_adopted_hashed_versions_are_a_one_time_migration():
    adopted = json.loads(resources.files("rgr_verify").joinpath("data", ADOPTED_FILE).read_text())["adopted"]
    assert set(adopted) == {"v1-1", "v3-1"}  # the first declared versions; no later one adopts any
    assert set(adopted_versions("v1")) == set(adopted["v1-1"]) if code_version() == "v1-1" else adopted_versions() == ()
    assert all(len(h) == 12 and int(h, 16) >= 0 for v in adopted.values() for h in v)
    assert set(CODE_VERSIONS) == {"v1", "v3"}
    # every committed Sec. 7.3 record carries the declared version or one it adopted
    for path in sorted((ROOT / "evidence").glob("sec73-*.jsonl.gz")):
        with gzip.open(path, "rt") as f:
            codes = {json.loads(line)["code"] for line in f if line.strip()}
        assert codes <= {code_version(), *adopted_versions()}, path.name
