# Sweeps beyond one process, in-process parts: units, shards and their union, compaction, per-unit locks, the
# claims' re-exports, the sweep CLI's plan / status / worker modes and its option checks.
import json
import threading
from collections import Counter

import pytest

from rgr_verify.cli import main
from rgr_verify.engine import run_key
from rgr_verify.runs.presets import preset_runs
from rgr_verify.runs.store import JsonlStore, ResultStore, StoreTail
from rgr_verify.runs.sweeps import (SweepProgress, SweepSpec, format_status, format_units, plan_units, run_inline, unit_id,
                               unit_status, work_units)

from ._fixtures import stored_lines


def test_units_are_planned_over_all_runs_with_stable_ids():
    runs = preset_runs("micro")
    units = plan_units(runs, unit_max_batch=3)
    assert sorted(k for u in units for k in u.keys) == sorted(run_key(c, s) for c, s in runs)
    assert all(len(u.runs) <= 3 and len({c.shape_key() for c, _ in u.runs}) == 1 for u in units)
    assert [u.id for u in plan_units(list(reversed(runs)) + runs[:2], unit_max_batch=3)] == [u.id for u in units]
    assert all(u.id == unit_id(reversed(u.keys)) for u in units)
    costs = [u.capped_cost for u in units]
    assert costs == sorted(costs, reverse=True)  # largest first: the order workers take them
    assert len(plan_units(runs)) == 2 and "d_model=12" in plan_units(runs)[0].shape
    table = format_units(units)
    assert all(u.id in table for u in units) and f"{len(units)} units, 16 runs" in table
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="unit_max_batch"):
            plan_units(runs, unit_max_batch=bad)
    with pytest.raises(ValueError, match="max_waste"):
        plan_units(runs, max_waste=0.5)
    with pytest.raises(ValueError, match="keys"):
        unit_id([])


def test_shards_are_read_as_a_union_and_compacted(tmp_path):
    main_store = JsonlStore(tmp_path, "x.jsonl")
    a, b = JsonlStore(tmp_path, "x.jsonl", shard="a"), JsonlStore(tmp_path, "x.jsonl", shard="b")
    main_store.append([{"key": "k1", "v": 1}, {"key": "k2", "v": 1}])
    a.append([{"key": "k2", "v": 2}, {"key": "k3", "v": 2}])
    with open(a.write_path, "ab") as fh:  # a worker killed mid-record
        fh.write(b'{"key": "k9", "v": ')
    b.append([{"key": "k4", "v": 3}])
    assert a.write_path == tmp_path / "x.jsonl.shards" / "a.jsonl" and main_store.shard_paths() == [a.write_path,
                                                                                                  b.write_path]
    union = {"k1": 1, "k2": 2, "k3": 2, "k4": 3}  # a shard's record wins over the main file's
    assert {k: r["v"] for k, r in JsonlStore(tmp_path, "x.jsonl").read().items()} == union
    tail = StoreTail(main_store)
    assert sorted(r["key"] for r in tail.poll()) == ["k1", "k2", "k2", "k3", "k4"] and tail.poll() == []
    b.append([{"key": "k5", "v": 4}])
    assert [r["key"] for r in tail.poll()] == ["k5"]
    # a shard holding a line identical to the main file's (a compaction killed midway) is merged once
    b.append([{"key": "k1", "v": 1}])
    out = main_store.compact()
    assert out["shards"] == 2 and out["moved"] == 4 and out["duplicates"] == 1 and out["torn"] == 1
    assert main_store.shard_paths() == []
    assert {k: r["v"] for k, r in main_store.read().items()} == {**union, "k5": 4}
    lines = main_store.path.read_text().splitlines()
    assert len(lines) == 6 and Counter(json.loads(line)["key"] for line in lines)["k2"] == 2
    assert main_store.compact()["moved"] == 0  # idempotent
    a.append([{"key": "k6", "v": 5, "pad": "x" * 300}, {"key": "k7", "v": 5}])  # a merged shard's writer starts afresh
    assert main_store.read()["k6"]["v"] == 5 and {"k6", "k7"} <= {r["key"] for r in tail.poll()}
    main_store.compact()
    a.append([{"key": "k8", "v": 6}])  # replaced again between two polls (the inode number may be reused)
    assert {"k6", "k7", "k8"} <= {r["key"] for r in tail.poll()}
    for bad in ("", "a/b", ".hidden", "-x", 3):
        with pytest.raises(ValueError, match="shard"):
            JsonlStore(tmp_path, "x.jsonl", shard=bad)
    with pytest.raises(ValueError, match="store"):
        StoreTail("x.jsonl")


def test_result_store_shard_appends_and_reads_the_union(tmp_path):
    spec = SweepSpec("micro", results_dir=str(tmp_path / "ref"), unit_max_batch=4)
    run_inline(spec, progress=False)
    recs = list(ResultStore(tmp_path / "ref").records().values())
    sharded = ResultStore(tmp_path / "s", shard="w1")
    assert sharded.path.exists()  # the main file exists (empty) even when every record is in shards
    sharded.jsonl.append(recs[:5])
    ResultStore(tmp_path / "s", shard="w2").jsonl.append(recs[5:])
    assert ResultStore(tmp_path / "s").records() == ResultStore(tmp_path / "ref").records()
    assert ResultStore(tmp_path / "s").missing(spec.runs()) == []
    statuses = unit_status(spec.units(), ResultStore(tmp_path / "s").records())
    assert [st.state for st in statuses] == ["done"] * 4
    partial = unit_status(spec.units(), [recs[0]["key"]])
    assert sorted(st.state for st in partial) == ["missing"] * 3 + ["partial"]
    assert "1 partial, 3 missing; 1 of 16 runs stored" in format_status(partial)


def test_workers_sharing_a_store_split_the_units(tmp_path):
    # Two workers (threads here; processes in the executor tests), each with its own shard: every unit is
    # trained by exactly one of them, and a third worker that starts after them trains nothing.
    spec = SweepSpec("micro", results_dir=str(tmp_path), unit_max_batch=2)
    units, trained = spec.units(), {}

    def worker(name):
        trained[name] = work_units(units, ResultStore(tmp_path, shard=name), poll=0.05)

    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys, torn = stored_lines(tmp_path)
    assert set(keys) == {k for u in units for k in u.keys} and max(keys.values()) == 1 and torn == 0
    assert sum(trained.values()) == 16
    assert work_units(units, ResultStore(tmp_path, shard="late")) == 0
    bar = SweepProgress(ResultStore(tmp_path), units, enabled=False)
    assert (bar.done_runs, bar.done_units, bar.partial_units) == (16, 8, 0)


def test_store_does_not_reexport_the_sweeps():
    # the results store sits below the sweeps and the claims' feed, which import it (not the other way round)
    import rgr_verify.runs.store as store

    for name in ("claim_records", "NEEDS_GPU", "ensure_runs", "run_preset"):
        assert not hasattr(store, name)


def test_sweep_spec_validates_and_round_trips(tmp_path):
    spec = SweepSpec("micro", "quick", results_dir=str(tmp_path), device="cpu", threads=2, unit_max_batch=3,
                     dtype="float64")
    assert SweepSpec.from_json(spec.to_json()) == spec
    for kw, name in ((dict(preset="sec9"), "preset"), (dict(tier="huge"), "tier"), (dict(device="tpu"), "device"),
                     (dict(threads=0), "threads"), (dict(unit_max_batch=0), "unit_max_batch"),
                     (dict(max_waste=0.9), "max_waste"), (dict(dtype="float16"), "dtype")):
        with pytest.raises(ValueError, match=name):
            SweepSpec(**{"preset": "micro", **kw})
    for bad in ("[1]", "{", json.dumps({"preset": "micro", "colour": 1})):
        with pytest.raises(ValueError, match="spec"):
            SweepSpec.from_json(bad)


def test_sweep_cli_dry_run_status_worker_and_compact(tmp_path, capsys):
    res = str(tmp_path / "r")
    assert main(["sweep", "micro", "--dry-run", "--unit-max-batch", "2"]) == 0
    out = capsys.readouterr().out
    assert "8 units, 16 runs" in out and "capped cost" in out
    assert main(["sweep", "micro", "--status", "--results", res, "--unit-max-batch", "2"]) == 0
    assert "0 done, 0 partial, 8 missing; 0 of 16 runs stored" in capsys.readouterr().out
    assert main(["sweep", "micro", "--worker", "--results", res, "--unit-max-batch", "2"]) == 0
    assert "16 runs trained" in capsys.readouterr().out
    assert main(["sweep", "micro", "--status", "--results", res, "--unit-max-batch", "2"]) == 0
    assert "8 done, 0 partial, 0 missing; 16 of 16 runs stored" in capsys.readouterr().out
    assert len(ResultStore(res).jsonl.shard_paths()) == 1 and ResultStore(res).path.read_bytes() == b""
    assert main(["store", "compact", "--results", res]) == 0
    assert "1 shards merged, 16 records moved" in capsys.readouterr().out
    assert ResultStore(res).jsonl.shard_paths() == [] and len(ResultStore(res).records()) == 16
    assert main(["store", "compact", "--results", res]) == 0 and "0 shards merged, 0 records" in capsys.readouterr().out
    assert main(["sweep", "micro", "--results", res, "--no-progress"]) == 0
    assert "0 trained now, 16 reused" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--workers", "2"], "--workers and --devices need"),
    (["--executor", "local"], "--workers N"),
    (["--executor", "local", "--workers", "0"], "--workers must be >= 1"),
    (["--executor", "local", "--devices", "0,0"], "--devices must be distinct"),
    (["--executor", "local", "--devices", "0", "--workers", "2"], "not both"),
    (["--executor", "slurm", "--devices", "0"], "--devices is for --executor local"),
    (["--executor", "local", "--workers", "2", "--partition", "gpu"], "--partition is for --executor slurm"),
    (["--executor", "local", "--workers", "2", "--ray-address", "auto"], "--ray-address is for"),
    (["--executor", "slurm", "--time", "0"], "--time must be >= 1"),
    (["--worker", "--executor", "local"], "--worker is the executor-free worker"),
    (["--dry-run", "--executor", "ray"], "take no --executor"),
    (["--unit-max-batch", "0"], "--unit-max-batch must be >= 1"),
    (["--retries", "-1"], "--retries must be >= 0"),
    (["--dry-run", "--status"], "not allowed with"),
    (["--stop-after", "0"], "--stop-after must be a finite real number in (0, inf)"),
    (["--stop-after", "nan"], "--stop-after must be"),
    (["--stop-after", "5", "--executor", "local", "--workers", "1"], "--stop-after is for an inline sweep"),
    (["--stop-after", "5", "--dry-run"], "--stop-after is for an inline sweep"),
])
def test_sweep_cli_rejects_bad_options(argv, message, tmp_path, capsys):
    assert main(["sweep", "micro", "--results", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs.jsonl").exists()


def test_store_cli_rejects_bad_usage(tmp_path, capsys):
    assert main(["store"]) == 2 and "compact" in capsys.readouterr().err
    assert main(["store", "compact", "--results", str(tmp_path / "none")]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["store", "compact", "--results", str(tmp_path)]) == 0 and "no shards" in capsys.readouterr().out


def test_stop_after_starts_no_unit_past_its_deadline_and_resumes(tmp_path, capsys, monkeypatch):
    # A deadline already past when the sweep starts: no unit is started, nothing is lost, the same command resumes.
    res = str(tmp_path / "r")
    spec = SweepSpec("micro", results_dir=res, unit_max_batch=2)
    summary = run_inline(spec, progress=False, stop_after=1e-9)
    assert (summary["complete"], summary["trained"]) == (False, 0)
    assert main(["sweep", "micro", "--worker", "--results", res, "--unit-max-batch", "2", "--stop-after", "1e-9"]) == 0
    assert "misses 16 of 16 runs" in capsys.readouterr().out
    assert main(["sweep", "micro", "--results", res, "--unit-max-batch", "2", "--stop-after", "1e-9",
                 "--no-progress"]) == 0
    assert "stopped after --stop-after: 16 runs left" in capsys.readouterr().out
    # a deadline that passes while the first unit trains: that unit finishes and is stored, no other is started
    from rgr_verify.runs.sweeps import worker

    clock = iter([0.0, 0.0, 10.0])  # start (deadline 5 s), the check before unit 1, the check after it
    monkeypatch.setattr(worker, "_clock", lambda: next(clock, 10.0))
    trained = work_units(spec.units(), ResultStore(res), stop_after=5.0)
    assert trained == len(spec.units()[0].runs) and len(ResultStore(res).records()) == trained
    monkeypatch.undo()
    assert run_inline(spec, progress=False)["complete"]
    with pytest.raises(ValueError, match="stop_after must be"):
        work_units(spec.units(), ResultStore(res), stop_after=-1)
