# A GPU sweep committed piece by piece (Sec. 7.3 at paper scale: 112 runs, one 7-run batch per device call): the
# manifest of a partial store names its plan and counts the plan's runs, so it says how far the sweep got; a record
# outside the plan is refused; the fig7-* claims name the partial store in their not-run verdict, and once the store
# is complete they are decided by replay on a CPU, below their tier, training nothing.
import json

import pytest

from rgr_verify.claims.base import Status
from rgr_verify.claims.registry import get_claim
from rgr_verify.claims.runner import replayable, run_claim
from rgr_verify.cli import main
from rgr_verify.runs.evidence import add_store_evidence, manifests, verify_evidence
from rgr_verify.runs.sec73_sweep import STORE_NAME, missing_cells, planned_runs
from rgr_verify.runs.store import JsonlStore

ROOT = 20250926
PLAN = f"sec73:full:minilm:cuda:{ROOT}"


def _records(keys_cells, acc=lambda D, h, i: 0.5):
    return [{"key": k, "code": "test", "preset": "full", "source": "minilm", "source_description": "synthetic",
             "device": "cuda", "D_K": D, "h": h, "seed": 1000 + i, "seed_index": i, "m": 6144, "ell": 16,
             "test_acc": acc(D, h, i), "final_test_acc": acc(D, h, i), "best_val_acc": acc(D, h, i),
             "best_step": 1000, "steps": 2000, "seconds": 1.0, "test_null_rate": 0.0}
            for k, (D, h, i) in keys_cells]


def test_the_plan_is_the_preset_grid():
    plan = planned_runs(PLAN)
    assert len(plan) == 4 * 4 * 7
    assert {(D, h) for D, h, _ in plan.values()} == {(D, h) for D in (64, 128, 256, 512) for h in (1, 2, 4, 8)}
    assert planned_runs(f"sec73:full:minilm:cpu:{ROOT}").keys().isdisjoint(plan)  # the device kind is keyed
    assert planned_runs(f"sec73:full:minilm:cuda:{ROOT + 1}").keys().isdisjoint(plan)  # so is the root seed
    first = [k for k, (D, h, _) in plan.items() if (D, h) == (64, 1)]
    old = {c: k for k, c in planned_runs(PLAN, adopted=True).items() if k not in plan}
    assert missing_cells(PLAN, [old[c] for c in plan.values() if c[:2] == (64, 1)]) == missing_cells(PLAN, first)
    assert missing_cells(PLAN, first) == [(D, h, 7) for D in (64, 128, 256, 512) for h in (1, 2, 4, 8)][1:]


@pytest.mark.parametrize("bad", ["", "sec73:full:minilm:cuda", "sec6:full:minilm:cuda:1", "sec73:full:minilm:tpu:1",
                                 "sec73:huge:minilm:cuda:1", "sec73:full:minilm:cuda:x", None])
def test_a_malformed_plan_is_refused(bad):
    with pytest.raises(ValueError):
        planned_runs(bad)


def test_a_partial_planned_store_says_how_far_it_got(tmp_path, capsys):
    plan = planned_runs(PLAN)
    batch = [(k, c) for k, c in plan.items() if c[:2] == (64, 1)]
    src, ev = tmp_path / "src", tmp_path / "ev"
    JsonlStore(src, STORE_NAME).append(_records(batch))
    man = add_store_evidence(src, STORE_NAME, name="sec73-minilm-full", label="sec73 full", directory=ev, plan=PLAN)
    assert (man.runs, man.preset_runs, man.complete, man.plan) == (7, 112, False, PLAN)
    assert json.loads((ev / "sec73-minilm-full.json").read_text())["plan"] == PLAN
    assert manifests(ev)[0] == man
    assert [(r["ok"], r["complete"]) for r in verify_evidence(ev)] == [(True, False)]
    assert len(planned_runs(PLAN, adopted=True)) > len(plan)
    with pytest.raises(ValueError, match="whose store is"):  # only Sec. 7.3's store has plans
        JsonlStore(src, "toy-runs.jsonl").append(_records(batch))
        add_store_evidence(src, "toy-runs.jsonl", name="toy", label="x", directory=ev, plan=PLAN)
    # a record that is not a run of the plan is refused, nothing is written
    JsonlStore(src, STORE_NAME).append(_records([("f" * 64, (64, 1, 0))]))
    with pytest.raises(ValueError, match="not runs of the plan"):
        add_store_evidence(src, STORE_NAME, name="other", label="x", directory=ev, plan=PLAN)
    assert not (ev / "other.json").exists()
    # a run stored under an equivalent earlier code version belongs to the plan; the same run twice does not count twice
    old_keys = {c: k for k, c in planned_runs(PLAN, adopted=True).items() if k not in plan}
    JsonlStore(tmp_path / "src3", STORE_NAME).append(_records([(old_keys[(64, 2, 0)], (64, 2, 0))]))
    assert add_store_evidence(tmp_path / "src3", STORE_NAME, name="old", label="x", directory=ev, plan=PLAN).runs == 1
    JsonlStore(tmp_path / "src3", STORE_NAME).append(_records([(k, c) for k, c in plan.items() if c == (64, 2, 0)]))
    with pytest.raises(ValueError, match="two code versions"):
        add_store_evidence(tmp_path / "src3", STORE_NAME, name="old2", label="x", directory=ev, plan=PLAN)
    # without a plan the manifest keeps its earlier form
    man2 = add_store_evidence(src, STORE_NAME, name="noplan", label="x", directory=ev)
    assert man2.complete and "plan" not in json.loads((ev / "noplan.json").read_text())
    # the command line: --plan, --trained-on; bad values are one line naming the option, exit 2
    out = tmp_path / "ev2"
    JsonlStore(tmp_path / "src2", STORE_NAME).append(_records(batch))
    assert main(["evidence", "add", str(tmp_path / "src2"), "--store", STORE_NAME, "--preset", "sec73 full",
                 "--name", "s", "--plan", PLAN, "--trained-on", "NVIDIA H200", "--trained-with", "2.9.0+12.8",
                 "--evidence", str(out), "--command", "rgr-verify sec73 --tier full"]) == 0
    assert "7 of 112 runs" in capsys.readouterr().out
    m = manifests(out)[0]
    assert (m.device, m.torch, m.cuda) == ("NVIDIA H200", "2.9.0", "12.8")
    assert main(["evidence", "list", "--evidence", str(out)]) == 0  # the cells still missing, by name
    listed = capsys.readouterr().out
    assert f"misses runs of its plan {PLAN} in cells (D_K, h): (64, 2): 7," in listed and "(64, 1)" not in listed
    JsonlStore(tmp_path / "src2", "toy-runs.jsonl").append(_records(batch))
    assert main(["evidence", "add", str(tmp_path / "src2"), "--store", "toy-runs.jsonl", "--preset", "p",
                 "--name", "t", "--evidence", str(out), "--plan", PLAN]) == 2
    assert "--plan" in capsys.readouterr().err
    for argv, opt in [(["--plan", "sec73:x"], "--plan"), (["--trained-with", "2.9.0"], "--trained-with"),
                      (["--trained-on", " "], "--trained-on")]:
        assert main(["evidence", "add", str(tmp_path / "src2"), "--store", STORE_NAME, "--preset", "p",
                     "--name", "t", "--evidence", str(out), *argv]) == 2
        err = capsys.readouterr().err
        assert opt in err and len(err.strip().splitlines()) == 1
    assert main(["evidence", "add", str(tmp_path / "src2"), "--preset", "a3-regular", "--plan", PLAN,
                 "--evidence", str(out)]) == 2
    assert "--plan" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["s.json", "s.jsonl.gz"]  # nothing written by a refusal


def test_fig7_claims_name_a_partial_store_and_replay_a_complete_one(tmp_path, monkeypatch):
    plan = planned_runs(PLAN)
    claim = get_claim("fig7-accuracy-grows-with-dk")
    src, ev = tmp_path / "src", tmp_path / "ev"
    monkeypatch.setenv("RGR_VERIFY_EVIDENCE", str(ev))  # the Sec. 7.3 store joins the evidence of this folder
    batch = [(k, c) for k, c in plan.items() if c[:2] == (64, 1)]
    JsonlStore(src, STORE_NAME).append(_records(batch))
    add_store_evidence(src, STORE_NAME, name="part", label="sec73 full", directory=ev, plan=PLAN)
    r = run_claim(claim, tier="full", root_seed=ROOT, evidence_dir=ev, results_dir=tmp_path / "res", device="cpu")
    assert r.verdict.status is Status.INCONCLUSIVE and r.verdict.unavailable
    assert "part holds 7 of the 112 runs" in r.verdict.details and PLAN in r.verdict.details
    assert "missing (64, 2)," in r.verdict.details  # the cells it reads that are not stored, named
    # partial: replayed, and a rule whose cells are all stored decides on them alone (fig7-h8 reads (64, 4), (64, 8))
    assert replayable(claim, ev, ROOT)
    h8 = get_claim("fig7-h8-counterproductive-dk64")
    assert run_claim(h8, tier="full", root_seed=ROOT, evidence_dir=ev, results_dir=tmp_path / "res",
                     device="cpu").verdict.unavailable  # (64, 4) and (64, 8) not stored yet
    cells = [(k, c) for k, c in plan.items() if c[:2] in ((64, 4), (64, 8))]
    JsonlStore(src, STORE_NAME).append(_records(cells, acc=lambda D, h, i: 0.364 + 0.001 * i - 0.01 * (h == 8)))
    add_store_evidence(src, STORE_NAME, name="part", label="sec73 full", directory=ev, plan=PLAN, replace=True)
    first = run_claim(h8, tier="full", root_seed=ROOT, evidence_dir=ev, results_dir=tmp_path / "res", device="cpu")
    assert first.verdict.status is Status.HOLDS_EMPIRICALLY and "the 2 cells (D_K, h) this rule reads" in \
        first.verdict.details and first.verdict.params["cells_read"] == [[64, 4], [64, 8]]
    other = run_claim(claim, tier="full", root_seed=ROOT + 1, evidence_dir=ev, results_dir=tmp_path / "res",
                      device="cpu")
    assert "holds" not in other.verdict.details  # drawn from another root seed: not this sweep
    control = run_claim(get_claim("sec73-gaussian-control-multihead-advantage"), tier="quick", root_seed=ROOT,
                        evidence_dir=ev, results_dir=tmp_path / "res", device="cpu")
    assert "holds" not in control.verdict.details  # a full-tier claim on another source: the GPU sweep is not its
    # complete: decided by replay on the CPU (accuracy grows with D_K for every h >= 2 in this synthetic store)
    rest = [(k, c) for k, c in plan.items() if c[:2] not in ((64, 1), (64, 4), (64, 8))]
    JsonlStore(src, STORE_NAME).append(_records(rest, acc=lambda D, h, i: 0.3 + D / 1000 + 0.001 * i))
    add_store_evidence(src, STORE_NAME, name="part", label="sec73 full", directory=ev, plan=PLAN, replace=True)
    assert replayable(claim, ev, ROOT) and not replayable(claim, ev, ROOT + 1)
    done = run_claim(claim, tier="full", root_seed=ROOT, evidence_dir=ev, results_dir=tmp_path / "res", device="cpu")
    assert not done.verdict.unavailable and done.verdict.status is Status.HOLDS_EMPIRICALLY, done.verdict.details
    assert "112 runs" in done.verdict.evidence
    again = run_claim(h8, tier="full", root_seed=ROOT, evidence_dir=ev, results_dir=tmp_path / "res", device="cpu")
    assert again.verdict.measured_value == first.verdict.measured_value  # the rest of the grid changes nothing
    assert not (tmp_path / "res").exists() or not any((tmp_path / "res").rglob("*.jsonl"))  # nothing trained


def test_another_engines_plan_feeds_no_claim():
    # v3 records (plan sec73v3:...) are keyed by their own engine: the claims read v1 keys, so such a store feeds
    # none of them (not their not-run texts, not their replay below tier); the v1 plan feeds the Sec. 7.3 claims
    import dataclasses

    from rgr_verify.claims.preregistration import fed_claims
    from rgr_verify.runs.evidence import manifests

    v1 = next(m for m in manifests() if m.plan and m.plan.startswith("sec73:"))
    assert {c.id for c in fed_claims(v1)} >= {"fig7-h8-counterproductive-dk64", "sec73-accuracy-grows-with-dk-quick"}
    v3 = dataclasses.replace(v1, plan=v1.plan.replace("sec73:", "sec73v3:", 1))
    assert fed_claims(v3) == []
