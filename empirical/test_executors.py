# Sweep executors on 2 cores, no cluster: the micro preset through local worker processes, submitit's
# LocalExecutor (the slurm executor's job array as local processes) and a local Ray (when installed) gives the
# inline sweep's keys and float64 metrics; a worker that SIGKILLs itself (the test-only fault hook) costs only
# its in-flight runs; a local sweep killed as a process group resumes without redoing anything.
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rgr_verify.runs.store import ResultStore
from rgr_verify.runs.sweeps import SweepSpec, run_inline, run_sweep
from rgr_verify.runs.sweeps.worker import KILL_AFTER_ENV, KILL_ONCE_ENV

from ._fixtures import stored_lines

ROOT = Path(__file__).resolve().parents[1]
MICRO = dict(preset="micro", tier="quick", device="cpu", threads=1, unit_max_batch=2, dtype="float64")
FIELDS = ("metric", "steps", "stopped_early", "tau", "val_history", "extra", "config", "seed")


def _executor_options(executor, folder):
    if executor == "slurm":
        pytest.importorskip("submitit")
        return {"cluster": "local", "folder": str(folder / "submitit"), "time_min": 10}
    if executor == "ray":
        pytest.importorskip("ray")
    return {}


@pytest.fixture(scope="module")
def inline_float64(tmp_path_factory):
    directory = tmp_path_factory.mktemp("inline64")
    run_inline(SweepSpec(results_dir=str(directory), **MICRO), progress=False)
    return ResultStore(directory).records()


def _same_results(directory, reference, exact=True):
    recs = ResultStore(directory).records()
    assert set(recs) == set(reference)
    for key, ref in reference.items():
        got = {f: recs[key][f] for f in FIELDS}
        want = {f: ref[f] for f in FIELDS}
        if exact:
            assert got == want, key
        else:  # a unit retrained after a kill batches its remaining runs differently: equal up to rounding
            assert got["steps"] == want["steps"] and got["val_history"] == pytest.approx(want["val_history"], abs=1e-9)
            assert got["metric"] == pytest.approx(want["metric"], abs=1e-9) and got["tau"] == pytest.approx(
                want["tau"], abs=1e-9)


@pytest.mark.parametrize("executor", ["local", "slurm", pytest.param("ray", marks=pytest.mark.slow)])
def test_executors_give_the_inline_results(executor, tmp_path, inline_float64):
    options = _executor_options(executor, tmp_path)
    spec = SweepSpec(results_dir=str(tmp_path / "res"), **MICRO)
    summary = run_sweep(spec, executor, workers=2, progress=False, **options)
    assert summary["complete"] and summary["trained"] == 16 and summary["units"] == 8
    keys, torn = stored_lines(tmp_path / "res")
    assert len(keys) == 16 and max(keys.values()) == 1 and torn == 0
    assert len(ResultStore(tmp_path / "res").jsonl.shard_paths()) >= 1  # workers wrote shards, not the main file
    _same_results(tmp_path / "res", inline_float64)


@pytest.mark.parametrize("executor, kill, workers", [
    ("local", "3", 1), ("local", "3:torn", 2), ("slurm", "3:torn", 1),
    pytest.param("ray", "3:torn", 1, marks=pytest.mark.slow)])
def test_a_killed_worker_costs_only_its_in_flight_runs(executor, kill, workers, tmp_path, monkeypatch,
                                                       inline_float64):
    # One worker: only the executor's retry can finish the sweep. Two: the survivor takes over the dead worker's
    # unit as soon as the operating system drops its lock (the dead worker is restarted if runs are still missing).
    options = _executor_options(executor, tmp_path)
    once = tmp_path / "killed.json"
    monkeypatch.setenv(KILL_AFTER_ENV, kill)
    monkeypatch.setenv(KILL_ONCE_ENV, str(once))
    res = tmp_path / "res"
    summary = run_sweep(SweepSpec(results_dir=str(res), **MICRO), executor, workers=workers, retries=2,
                        progress=False, **options)
    assert summary["complete"] and once.exists()  # a worker died, and the sweep finished all the same
    retried = {"local": "restarts", "slurm": "resubmitted"}.get(executor)
    if retried and workers == 1:
        assert summary[retried] == 1
    keys, torn = stored_lines(res)
    assert len(keys) == 16 and max(keys.values()) == 1  # every run once: nothing redone
    assert torn == (1 if kill.endswith("torn") else 0)  # the torn line, skipped by readers
    dead = json.loads(once.read_text())
    for rel, (size, digest) in dead["files"].items():  # what the store held at the kill is still there, unchanged
        assert hashlib.sha256((res / rel).read_bytes()[:size]).hexdigest() == digest, rel
    dead_shard = f"runs.jsonl.shards/{dead['shard']}.jsonl"
    complete = 2 if kill.endswith("torn") else 3  # the dead worker's records before its kill (torn: the 3rd half)
    assert dead["files"][dead_shard][0] == (res / dead_shard).stat().st_size  # never written again
    assert sum(1 for line in (res / dead_shard).read_bytes().split(b"\n")[:-1] if line) == complete
    _same_results(res, inline_float64, exact=False)


def _cli(results, executor, *extra):
    local = ["--submitit-cluster", "local", "--time", "10"] if executor == "slurm" else []
    return [sys.executable, "-m", "rgr_verify.cli", "sweep", *extra, "--executor", executor, "--workers", "2", *local,
            "--results", str(results), "--no-progress"]


def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}


def _kill_group_then_resume(results, argv, kill_at, total, timeout):
    proc = subprocess.Popen(argv, cwd=ROOT, env=_env(), start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline and len(stored_lines(results)[0]) < kill_at:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = {p: p.read_bytes() for p in ResultStore(results).jsonl.files() if p.exists()}
    time.sleep(0.5)  # the workers died with the group: nothing writes any more
    assert {p: p.read_bytes() for p in before} == before and len(ResultStore(results).jsonl.files()) == len(before)
    done = subprocess.run(argv, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    keys, torn = stored_lines(results)
    assert len(keys) == total and max(keys.values()) == 1 and torn <= 2  # at most one torn line per killed worker
    for path, data in before.items():  # what was stored before the kill is unchanged
        assert path.read_bytes()[: len(data)] == data
    return done.stdout


@pytest.mark.parametrize("executor", ["local", pytest.param("slurm", marks=pytest.mark.slow)])
def test_a_sweep_killed_as_a_process_group_resumes(executor, tmp_path):
    # rgr-verify sweep --executor local / slurm (submitit's LocalExecutor), SIGKILLed with its process group (the
    # executor, its workers, submitit's job controllers) once a record is stored, then run again.
    if executor == "slurm":
        pytest.importorskip("submitit")
    argv = _cli(tmp_path, executor, "micro", "--unit-max-batch", "1")
    out = _kill_group_then_resume(tmp_path, argv, kill_at=1, total=16, timeout=300)
    assert "micro [quick]: 16 runs in 16 units" in out


@pytest.mark.slow
def test_quick_sec6_grid_killed_as_a_process_group_resumes(tmp_path):
    # The acceptance run: the quick sec6-grid (192 runs) through --executor local --workers 2, killed with
    # SIGKILL (process group) partway and started again, ends with all 192 runs and no key twice.
    out = _kill_group_then_resume(tmp_path, _cli(tmp_path, "local", "sec6-grid", "--tier", "quick"), kill_at=40,
                                  total=192, timeout=1800)
    assert "sec6-grid [quick]: 192 runs" in out


def test_sweep_bench_rejects_bad_options(tmp_path, capsys):
    from rgr_verify.cli import main

    for argv, message in ((["--workers", "0"], "--workers must be >= 1"),
                          (["--unit-max-batch", "0"], "--unit-max-batch must be >= 1"),
                          (["--json", str(tmp_path)], "is a directory")):
        assert main(["sweep-bench", "micro", *argv]) == 2
        assert message in capsys.readouterr().err
    (tmp_path / "keep" / "local").mkdir(parents=True)
    assert main(["sweep-bench", "micro", "--keep", str(tmp_path / "keep")]) == 2
    assert "already holds" in capsys.readouterr().err


@pytest.mark.slow
def test_sweep_bench_times_both_sides(tmp_path, capsys):
    from rgr_verify.cli import main

    assert main(["sweep-bench", "micro", "--workers", "2", "--unit-max-batch", "2", "--keep", str(tmp_path / "k"),
                 "--json", str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "inline, 1 process x 1 thread" in out and "speed-up (inline / local)" in out and "same run keys: True" in out
    result = json.loads((tmp_path / "b.json").read_text())
    assert result["runs"] == 16 and result["units"] == 8 and result["same_keys"]
    assert result["ratio"] == pytest.approx(result["inline_s"] / result["local_s"])
    assert len(ResultStore(tmp_path / "k" / "local").records()) == 16
