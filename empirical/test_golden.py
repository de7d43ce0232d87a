# App. A.1 protocol, Sec. 7.1, App. A.3: the engine that ships reproduces the committed full-tier evidence.
#
# Store keys carry a semantic engine version (rgr_verify.engine.ENGINE_VERSION), not a hash of the sources, so a
# refactor keeps the evidence. These tests are what makes that safe: a fixed sample of stored runs (the earliest
# stoppers of every kind of run in the complete stores: max/permutation, max/regular, softmax, value) is retrained on this
# CPU in float32 and must reproduce the stored test metric, tau and stop step within
# rgr_verify.runs.golden.GOLDEN_TOLERANCE (its comment justifies the numbers: CUDA float32 vs CPU float32). A change
# to what the engine computes fails here until ENGINE_VERSION is bumped and the evidence regenerated.
import pytest
import torch

import rgr_verify.engine.optim as optim
from rgr_verify.engine import ENGINE_VERSION, EQUIVALENT_ENGINE_VERSIONS, RunConfig, train_runs
from rgr_verify.runs.evidence import manifests, verify_evidence
from rgr_verify.runs.golden import golden_mismatches, golden_sample


def _retrain(records):
    runs = [(RunConfig.from_dict(r["config"]), r["seed"]) for r in records]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return train_runs(runs, device="cpu")
    finally:
        torch.set_num_threads(threads)


def test_committed_evidence_matches_its_manifests_and_presets():
    rows = verify_evidence()
    assert rows, "no committed evidence (evidence/*.json)"
    bad = [f"{r['name']}: {r['problem']}" for r in rows if not r["ok"]]
    assert not bad, "\n".join(bad)
    replayed = {ENGINE_VERSION, *EQUIVALENT_ENGINE_VERSIONS}
    assert all(set(m.engine_versions) <= replayed for m in manifests())


def test_golden_sample_covers_every_variant():
    sample = golden_sample()
    kinds = {(r["config"]["variant"], r["config"]["graph"]) for r in sample}
    assert kinds == {("max", "permutation"), ("max", "regular"), ("softmax", "permutation"), ("value", "permutation")}
    assert 20 <= len(sample) <= 30


def test_engine_reproduces_the_stored_evidence():
    sample = golden_sample()
    problems = golden_mismatches(sample, _retrain(sample))
    assert not problems, ("the engine no longer reproduces the committed evidence; if the change is meant to alter "
                          "results, bump ENGINE_VERSION and regenerate evidence/:\n" + "\n".join(problems))


def test_a_planted_change_to_the_engine_arithmetic_is_caught(monkeypatch):
    # A learning rate 10 % off inside the engine's optimiser (the config still says 1e-3): the retrained runs must
    # leave the stored ones beyond tolerance, so the golden test cannot pass a changed engine. (Planted in the
    # optimiser module, whose StackedAdamW, the default Optimiser, looks both steps up there at every call.)
    plain, on_device = optim.stacked_adamw_step, optim.stacked_adamw_step_on_device

    def off_lr(*args, lr, **kwargs):
        return plain(*args, lr=lr * 1.1, **kwargs)

    def off_lr_device(*args, lr, **kwargs):
        return on_device(*args, lr=lr * 1.1, **kwargs)

    monkeypatch.setattr(optim, "stacked_adamw_step", off_lr)
    monkeypatch.setattr(optim, "stacked_adamw_step_on_device", off_lr_device)
    sample = golden_sample(per_kind=2)
    problems = golden_mismatches(sample, _retrain(sample))
    assert problems


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_golden_sample_rejects_bad_sizes(bad):
    with pytest.raises(ValueError, match="per_kind"):
        golden_sample(per_kind=bad)
