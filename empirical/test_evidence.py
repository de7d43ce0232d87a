# App. A.1 / Sec. 6-7 evidence: the committed stores, their manifests, replay by default, and `rgr-verify evidence`.
import gzip
import json

import pytest

from rgr_verify.claims.base import CheckContext, Claim, Status, Verdict
from rgr_verify.claims.runner import replayable, run_claim
from rgr_verify.cli import main
from rgr_verify.engine import ENGINE_VERSION, RunConfig, run_key
from rgr_verify.runs.evidence import (add_evidence, default_evidence_dir, evidence_complete, evidence_records,
                                     manifests, read_evidence, verify_evidence)
from rgr_verify.runs.replay import claim_records
from rgr_verify.runs.store import ResultStore


def _a3_records(n):
    man = next(m for m in manifests() if m.preset == "a3-regular")
    recs = sorted(read_evidence(man).values(), key=lambda r: r["key"])[:n]
    return recs


def _store_with(tmp_path, recs, *, legacy=True):
    d = tmp_path / "res"
    d.mkdir()
    lines = []
    for rec in recs:
        if not legacy:  # written by the current engine version under its own key
            rec = {**rec, "engine_version": ENGINE_VERSION,
                   "key": run_key(RunConfig.from_dict(rec["config"]), rec["seed"])}
        lines.append(json.dumps(rec))
    (d / ResultStore.FILENAME).write_text("\n".join(lines) + "\n")
    return d


def test_equivalent_engine_versions_replay_under_the_current_key(tmp_path):
    recs = _a3_records(3)
    store = ResultStore(_store_with(tmp_path, recs))
    got = store.records()
    assert set(got) == {run_key(RunConfig.from_dict(r["config"]), r["seed"]) for r in recs}
    raw = store.raw_records()
    assert {r["engine_version"] for r in raw.values()} == {recs[0]["engine_version"]}  # stored as made


def test_add_evidence_round_trip_and_partial_store(tmp_path):
    recs = _a3_records(3)
    src = _store_with(tmp_path, recs)
    ev = tmp_path / "evidence"
    man = add_evidence(src, "a3-regular", directory=ev, commands=["rgr-verify sweep a3-regular --tier full"],
                       provenance={"commit": "abc", "device": "test", "date": "2026-01-01"})
    assert (man.runs, man.preset_runs, man.complete) == (3, 1410, False)
    assert json.loads((ev / "a3-regular-full.json").read_text())["sha256"] == man.sha256
    assert gzip.decompress((ev / "a3-regular-full.jsonl.gz").read_bytes()).count(b"\n") == 3
    got, used = evidence_records("a3-regular", "full", ev)
    assert len(got) == 3 and [m.name for m in used] == ["a3-regular-full"]
    assert not evidence_complete("a3-regular", "full", ev)
    # a partial store replays on a CPU only if nothing is missing: here the check cannot run, and says why
    ctx = CheckContext(seed=1, tier="full", device="cpu", results_dir=tmp_path / "empty", evidence_dir=ev)
    recs_out, why = claim_records("a3-regular", "full", ctx)
    assert recs_out is None and "1407 of 1410" in why
    with pytest.raises(ValueError, match="exists"):
        add_evidence(src, "a3-regular", directory=ev)
    assert [r["ok"] for r in verify_evidence(ev)] == [True]


def test_every_committed_manifest_lists_its_seeds_and_batches():
    # Issue 41: each sitting of a stored sweep is on record (date or null, commit, clean-tree flag or null, commands,
    # runs, seeds); verify_evidence (test_golden) checks that they add up to the records.
    for man in manifests():
        raw = json.loads((default_evidence_dir() / f"{man.name}.json").read_text())
        assert isinstance(raw.get("seeds"), list) and raw["seeds"], man.name
        assert isinstance(raw.get("batches"), list) and raw["batches"], man.name
        for b in raw["batches"]:
            assert {"date", "commit", "clean", "commands", "runs", "seeds"} <= set(b), (man.name, b)
        assert max(b.date or "" for b in man.batches) <= (man.date or ""), man.name  # its date: the last batch's


def test_batches_that_do_not_add_up_are_reported():
    from rgr_verify.runs.batches import Batch, batch_problems

    recs = [{"seed": s, "config": {"m": m}} for s in (0, 1) for m in (64, 128)]
    ok = (Batch(date="2026-11-20", commit="a", clean=True, commands=("c",), runs=2, seeds=(0,)),
          Batch(date=None, commit="b", clean=None, commands=("c",), runs=2, seeds=(1,)))
    assert batch_problems(ok, recs, (0, 1)) == []
    assert batch_problems((), recs, (0, 1)) == ["no batches recorded"]
    short = (ok[0], Batch(date=None, commit="b", clean=None, commands=("c",), runs=1, seeds=(1,)))
    assert any("hold 3 runs" in p for p in batch_problems(short, recs, (0, 1)))
    assert any("seeds [0]" in p for p in batch_problems(ok, recs, (0,)))
    by_cell = (Batch(date=None, commit="a", clean=None, commands=("c",), runs=2, seeds=(0, 1), where={"m": [64]}),
               Batch(date=None, commit="a", clean=None, commands=("c",), runs=2, seeds=(0, 1), where={"m": [64]}))
    assert any("no batch or by two" in p for p in batch_problems(by_cell, recs, (0, 1)))
    with pytest.raises(ValueError, match="ISO date"):
        Batch(date="28/11/2026", commit="a", clean=True, commands=("c",), runs=1, seeds=(0,))


def test_a_store_added_again_keeps_its_batches_and_adds_one(tmp_path):
    recs = _a3_records(5)
    ev = tmp_path / "evidence"
    first = add_evidence(_store_with(tmp_path, recs[:3]), "a3-regular", directory=ev, commands=["c1"],
                         provenance={"commit": "abc", "device": "test", "date": "2026-01-01", "clean": True})
    assert [(b.date, b.runs, b.clean) for b in first.batches] == [("2026-01-01", 3, True)]
    (tmp_path / "res").rename(tmp_path / "res1")
    again = add_evidence(_store_with(tmp_path, recs), "a3-regular", directory=ev, commands=["c2"], replace=True,
                         provenance={"commit": "def", "device": "test", "date": "2026-01-05", "clean": False})
    assert [(b.date, b.commit, b.runs, b.clean, b.commands) for b in again.batches] == [
        ("2026-01-01", "abc", 3, True, ("c1",)), ("2026-01-05", "def", 2, False, ("c2",))]
    assert again.batches[1].after and again.seeds == tuple(sorted({r["seed"] for r in recs}))
    assert [r["ok"] for r in verify_evidence(ev)] == [True]


def test_a_tampered_store_is_refused(tmp_path):
    src = _store_with(tmp_path, _a3_records(2))
    ev = tmp_path / "evidence"
    add_evidence(src, "a3-regular", directory=ev)
    path = ev / "a3-regular-full.jsonl.gz"
    path.write_bytes(gzip.compress(gzip.decompress(path.read_bytes()).replace(b'"metric": ', b'"metric": 0', 1)))
    with pytest.raises(ValueError, match="sha256"):
        evidence_records("a3-regular", "full", ev)
    assert not verify_evidence(ev)[0]["ok"]


@pytest.mark.parametrize("kwargs, match", [({"preset": "nope"}, "preset"), ({"preset": "a3-regular", "tier": "x"}, "tier"),
                                           ({"preset": "a3-regular", "name": "Bad Name"}, "name"),
                                           ({"preset": "a3-regular", "commands": "one string"}, "commands"),
                                           ({"preset": "a3-regular", "provenance": {"host": "x"}}, "provenance"),
                                           ({"preset": "sec6-grid"}, "no record")])
def test_add_evidence_rejects_bad_input(tmp_path, kwargs, match):
    src = _store_with(tmp_path, _a3_records(1))
    with pytest.raises(ValueError, match=match):
        add_evidence(src, directory=tmp_path / "ev", **kwargs)
    assert not (tmp_path / "ev").exists() or not any((tmp_path / "ev").iterdir())  # nothing partial


def _count_records(ctx):
    recs, why = claim_records("a3-regular", "full", ctx)
    if recs is None:
        return Verdict.not_run(why)
    return Verdict(status=Status.VERIFIED, measured_value=len(recs), evidence="count")


def test_a_full_claim_with_complete_evidence_runs_in_the_quick_tier_by_replay(tmp_path, monkeypatch):
    monkeypatch.setenv("RGR_VERIFY_RESULTS", str(tmp_path / "empty"))
    claim = Claim(id="test-replay", ref="App. A.3", statement="s", kind="empirical", tier="full",
                  check=_count_records, replays=("a3-regular",), analyses=("leave one seed out",),
                  standard={"kind": "count", "estimand": "the records replayed"})
    assert replayable(claim)
    res = run_claim(claim, tier="quick", device="cpu")
    assert res.ran and res.verdict.measured_value == 1410
    assert "replayed from evidence/a3-regular-full.jsonl.gz" in res.verdict.evidence
    # without complete evidence the same claim does not run below its tier
    empty = tmp_path / "no-evidence"
    assert not replayable(claim, empty)
    assert not run_claim(claim, tier="quick", device="cpu", evidence_dir=empty).ran
    with pytest.raises(ValueError, match="only full-tier claims replay"):
        Claim(id="x", ref="App. A.3", statement="s", kind="empirical", tier="quick", check=_count_records,
              replays=("a3-regular",))


def test_evidence_command(tmp_path, capsys):
    assert main(["evidence", "list"]) == 0
    out = capsys.readouterr().out
    assert "sec6-grid-full" in out and "ok" in out
    src = _store_with(tmp_path, _a3_records(2))
    assert main(["evidence", "add", str(src), "--preset", "a3-regular", "--evidence", str(tmp_path / "ev"),
                 "--command", "rgr-verify sweep a3-regular --tier full --device cuda"]) == 0
    assert "2 of 1410 runs" in capsys.readouterr().out
    assert main(["evidence", "add", str(tmp_path / "missing"), "--preset", "a3-regular"]) == 2
    assert main(["evidence", "add", str(src), "--preset", "nope"]) == 2
    assert "preset must be one of" in capsys.readouterr().err


def test_store_evidence_is_read_under_its_store(tmp_path, monkeypatch):
    # Evidence of another results store (facts-runs.jsonl, sec73-runs.jsonl) is joined to that store explicitly
    # (with_evidence), under the store's own records; a plain read is the store alone; the engine's runs.jsonl is
    # never mixed this way.
    from rgr_verify.runs.evidence import add_store_evidence, with_evidence
    from rgr_verify.runs.store import JsonlStore

    src = tmp_path / "src"
    JsonlStore(src, "toy-runs.jsonl").append([{"key": "a", "v": 1}, {"key": "b", "v": 2}])
    ev = tmp_path / "ev"
    with pytest.raises(ValueError, match="store must be"):
        add_store_evidence(src, "runs.jsonl", name="x", label="toy", directory=ev)
    with pytest.raises(ValueError, match="no record"):
        add_store_evidence(src, "toy-runs.jsonl", name="x", label="toy", directory=ev, where=lambda r: False)
    man = add_store_evidence(src, "toy-runs.jsonl", name="toy-full", label="toy", directory=ev,
                             where=lambda r: r["key"] == "a")
    assert (man.runs, man.store, man.engine) == (1, "toy-runs.jsonl", False)
    monkeypatch.setenv("RGR_VERIFY_EVIDENCE", str(ev))
    fresh = JsonlStore(tmp_path / "fresh", "toy-runs.jsonl")
    assert fresh.read() == {} and with_evidence(fresh) == {"a": {"key": "a", "v": 1}}
    fresh.append([{"key": "a", "v": 9}])
    assert with_evidence(fresh)["a"]["v"] == 9  # the local record wins
    assert with_evidence(JsonlStore(tmp_path / "fresh", "other.jsonl")) == {}
    assert [r["ok"] for r in verify_evidence(ev)] == [True]
    assert evidence_records("toy", "full", ev) == ({}, [])  # not an engine store


def _adaptive_store(tmp_path):
    """A results store holding one sec6-grid ladder run and, made from it, two runs between its cell's rungs
    (candidate widths of an adaptive search) and one width above the cell's top rung (no candidate)."""
    import dataclasses

    man = next(m for m in manifests() if m.preset == "sec6-grid" and not m.adaptive)
    rec = next(r for r in read_evidence(man).values() if r["config"]["n_heads"] == 2)
    cfg = RunConfig.from_dict(rec["config"])
    made = []
    for d_k in (cfg.d_k + 1, cfg.d_k - 1, 10_000):  # a rung is a multiple of 4 or 6 here: +-1 is between rungs
        new = dataclasses.replace(cfg, d_k=d_k)
        made.append({**rec, "config": new.to_dict(), "engine_version": ENGINE_VERSION,
                     "key": run_key(new, rec["seed"])})
    return _store_with(tmp_path, [rec, *made], legacy=False), made


def test_adaptive_evidence_is_kept_apart_from_the_presets(tmp_path, capsys):
    from rgr_verify.runs.adaptive import CandidateRuns
    from rgr_verify.runs.presets import preset_runs

    src, made = _adaptive_store(tmp_path)
    cands = CandidateRuns(preset_runs("sec6-grid", "full"))
    assert [(RunConfig.from_dict(r["config"]), r["seed"]) in cands for r in made] == [True, True, False]
    ev = tmp_path / "ev"
    man = add_evidence(src, "sec6-grid", directory=ev, adaptive=True, commands=["rgr-verify adaptive sec6-grid"])
    assert (man.name, man.runs, man.runs_of, man.adaptive, man.preset_runs) == (
        "sec6-grid-adaptive-full", 2, "adaptive", True, len(cands))
    assert [r["ok"] for r in verify_evidence(ev)] == [True]
    assert evidence_records("sec6-grid", "full", ev)[0] == {}  # the claims never see them
    assert set(evidence_records("sec6-grid", "full", ev, adaptive=True)[0]) == {r["key"] for r in made[:2]}
    assert not evidence_complete("sec6-grid", "full", ev)
    with pytest.raises(ValueError, match="adaptive must be a bool"):
        evidence_records("sec6-grid", "full", ev, adaptive="yes")
    # a record that is no candidate, slipped into the stored file, is found by verify
    path = ev / man.records_path_name
    lines = gzip.decompress(path.read_bytes()) + (json.dumps(made[2]) + "\n").encode()
    path.write_bytes(gzip.compress(lines))
    meta = json.loads((ev / f"{man.name}.json").read_text())
    import hashlib

    meta["sha256"], meta["runs"] = hashlib.sha256(path.read_bytes()).hexdigest(), 3
    (ev / f"{man.name}.json").write_text(json.dumps(meta))
    assert "not adaptive-search runs" in verify_evidence(ev)[0]["problem"]
    # the command
    assert main(["evidence", "add", str(src), "--preset", "sec6-grid", "--adaptive", "--evidence",
                 str(tmp_path / "ev2"), "--command", "rgr-verify adaptive sec6-grid --tier full"]) == 0
    assert "adaptive-search runs between the rungs" in capsys.readouterr().out
    assert main(["evidence", "add", str(src), "--preset", "sec6-grid", "--adaptive", "--store", "x-runs.jsonl"]) == 2
    (tmp_path / "l").mkdir()
    only_ladder = _store_with(tmp_path / "l", [next(r for r in read_evidence(
        next(m for m in manifests() if m.preset == "a3-regular")).values())])
    with pytest.raises(ValueError, match="no adaptive-search run"):
        add_evidence(only_ladder, "a3-regular", directory=ev, adaptive=True)


def test_no_statement_or_note_states_a_seed_or_run_count_its_evidence_contradicts():
    # Issue 41: a statement or note that says "3 seeds" where the evidence holds 10 is stale. Each count of seeds
    # must be the seeds of a feeding manifest, of a batch or of a configuration; each count of runs a manifest's or a
    # batch's. Planted: a statement saying 5 seeds and a note saying 500 runs, on the evidence of 10 seeds (3 in the
    # first batch, 7 in the second), 480 runs.
    import dataclasses

    from rgr_verify.claims import all_claims, get_claim
    from rgr_verify.claims.preregistration import count_conflicts

    mans = manifests()
    assert count_conflicts(all_claims(), mans, read_evidence) == []
    claim = get_claim("fig6-value-multihead-advantage")
    stale = dataclasses.replace(claim, statement=claim.statement + " (5 seeds)", notes="On 500 runs.")
    got = count_conflicts([stale], mans, read_evidence)
    assert len(got) == 2 and "states 5 seeds" in got[0] and "states 500 runs" in got[1], got
    fine = dataclasses.replace(claim, notes="10 seeds: 0-2 the first batch (3 seeds), 7 seeds added; 480 runs; "
                                            "h = 1 wins in four seeds; r = 32 runs; n-1 seeds; all 40 runs of these cells")
    assert count_conflicts([fine], mans, read_evidence) == []
