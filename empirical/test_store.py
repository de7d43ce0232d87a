# Results stores and presets: atomic appends, torn-line recovery, resume without redoing finished runs.
import json
import threading

import pytest

from rgr_verify.engine import RunConfig, run_key, train_runs
from rgr_verify.runs.presets import PRESET_TIERS as TIERS
from rgr_verify.runs.presets import PRESETS, get_preset, table2_cap
from rgr_verify.runs.store import JsonlStore, ResultStore
from rgr_verify.runs.sweeps import ensure_runs
from rgr_verify.runs.sec73_sweep import STORE_NAME, run_sec73

from ._fixtures import tiny_sec73_preset as _tiny_preset  # the tiny Sec. 7.3 sweep of the sec73 store tests

_TINY = dict(m=20, d_model=8, ell=8, n_val=20, n_test=20, check_every=20, max_steps=40)


def test_append_and_torn_line_recovery(tmp_path):
    store = ResultStore(tmp_path)
    runs = [(RunConfig(n_heads=2, d_k=4, **_TINY), s) for s in range(2)]
    res = train_runs(runs)
    store.append(res[0])
    with open(store.path, "ab") as fh:  # a writer killed mid-record
        fh.write(b'{"key": "abc", "metric": 0.')
    from rgr_verify.runs.store import TornLineWarning

    with pytest.warns(TornLineWarning, match="removed an incomplete last line"):
        store.append(res[1])
    recs = store.records()
    assert set(recs) == {run_key(*runs[0]), run_key(*runs[1])}
    assert recs[run_key(*runs[1])]["metric"] == pytest.approx(res[1].metric)
    assert store.missing(runs) == []


def test_resume_redoes_nothing(tmp_path):
    runs = [(RunConfig(n_heads=h, d_k=4, **_TINY), s) for h in (1, 2) for s in range(2)]
    first, trained = ensure_runs(runs[:2], results_dir=tmp_path)  # an interrupted sweep: half the runs done
    assert trained == 2
    recs, trained = ensure_runs(runs, results_dir=tmp_path)
    assert trained == 2 and [r["key"] for r in recs] == [run_key(c, s) for c, s in runs]
    assert recs[:2] == first  # finished runs are reused verbatim
    _, trained = ensure_runs(runs, results_dir=tmp_path)
    assert trained == 0
    lines = (tmp_path / ResultStore.FILENAME).read_text().splitlines()
    assert len(lines) == 4 and all(json.loads(l)["engine_version"] for l in lines)


def test_presets_are_well_formed():
    for name in PRESETS:
        for tier in TIERS:
            p = get_preset(name, tier)
            assert p.runs and len(set(p.runs)) == len(p.runs)
            assert all(c.D_K % c.n_heads == 0 for c, _ in p.runs)
    full = get_preset("sec6-grid", "full")
    assert {(c.m, c.d_model) for c, _ in full.runs} == {(m, d) for m in (64, 128, 256, 512) for d in (16, 32, 64)}
    assert all(c.max_steps == table2_cap(c.m, c.d_model) for c, _ in full.runs)
    assert table2_cap(512, 16) == 80_000 and table2_cap(4096, 512) == 200_000 and table2_cap(64, 64) == 20_000
    with pytest.raises(ValueError):
        get_preset("sec9-grid")
    with pytest.raises(ValueError):
        get_preset("sec6-grid", "huge")


def test_store_rejects_unwritable_dir(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError):
        ResultStore(blocker / "sub")


def test_jsonl_store_removes_torn_line_and_refuses_junk(tmp_path):
    from rgr_verify.runs.store import StoreError, TornLineWarning

    store = JsonlStore(tmp_path, "x.jsonl")
    assert store.read() == {}
    store.append([{"key": "a", "v": 1}])
    with open(store.path, "ab") as fh:  # a writer killed mid-record
        fh.write(b'{"key": "torn", "v": 0.')
    with pytest.warns(TornLineWarning, match="line 2: incomplete last line"):
        assert store.read() == {"a": {"key": "a", "v": 1}}
    with pytest.warns(TornLineWarning, match="removed an incomplete last line"):
        store.append([{"key": "b", "v": 2}, {"key": "a", "v": 3}])
    store.append([])
    assert store.path.read_bytes().split(b"\n") == [b'{"key": "a", "v": 1}', b'{"key": "b", "v": 2}',
                                                     b'{"key": "a", "v": 3}', b""]
    assert store.read() == {"a": {"key": "a", "v": 3}, "b": {"key": "b", "v": 2}}  # the later record wins
    assert store.read(where=lambda r: r["v"] < 3) == {"a": {"key": "a", "v": 1}, "b": {"key": "b", "v": 2}}
    for junk, what in [(b"[1, 2]", "not a JSON object"), (b'{"v": 4}', 'no "key" field'),
                       (b'{"key": 5}', 'field "key" must be a string'), (b"\xff", "not UTF-8")]:
        with open(store.path, "ab") as fh:
            fh.write(junk + b"\n")
        with pytest.raises(StoreError, match=f"x.jsonl', line 4: {what}"):
            store.read()
        store.path.write_bytes(b"\n".join(store.path.read_bytes().split(b"\n")[:3]) + b"\n")


def test_jsonl_store_rejects_bad_arguments(tmp_path):
    for bad in ("", "a/b", "..", None):
        with pytest.raises(ValueError, match="filename"):
            JsonlStore(tmp_path, bad)
    store = JsonlStore(tmp_path, "x.jsonl")
    for bad in ({"key": "a"}, [{"v": 1}], [{"key": 1}], ["a"]):
        with pytest.raises(ValueError, match="records"):
            store.append(bad)
    with pytest.raises(ValueError, match="where"):
        store.read(where=1)
    with pytest.raises(ValueError, match="lock name"):
        store.lock("")
    assert not store.path.exists()


def test_jsonl_store_concurrent_appends_keep_whole_lines(tmp_path):
    # Writers in threads of one process (as pytest-xdist workers in processes) never interleave within a line.
    def write(t):
        store = JsonlStore(tmp_path, "x.jsonl")
        for i in range(40):
            store.append([{"key": f"{t}-{i}", "pad": "x" * (1000 * t)}, {"key": f"{t}-{i}b"}])

    threads = [threading.Thread(target=write, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = (tmp_path / "x.jsonl").read_text().splitlines()
    assert len(lines) == 320 and len(JsonlStore(tmp_path, "x.jsonl").read()) == 320
    assert all(json.loads(line)["key"] for line in lines)


def test_sec73_store_survives_a_torn_line(tmp_path, monkeypatch):
    # A sweep killed mid-append leaves a torn line in sec73-runs.jsonl: the next sweep's records start on a line
    # of their own, and both sweeps then replay without training.
    first = run_sec73(_tiny_preset(), root_seed=3, results_dir=tmp_path)
    with open(tmp_path / STORE_NAME, "ab") as fh:
        fh.write(b'{"D_K": 2, "key": "')
    from rgr_verify.runs.store import TornLineWarning

    with pytest.warns(TornLineWarning):  # skipped by the reads, removed by the first append
        second = run_sec73(_tiny_preset(), root_seed=4, results_dir=tmp_path)
    lines = (tmp_path / STORE_NAME).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 16 and '{"D_K": 2, "key": "' not in lines
    assert sorted(json.loads(line)["key"] for line in lines[8:]) == sorted(r["key"] for r in second.records)
    monkeypatch.setattr("rgr_verify.models.transformer.train_block_runs", lambda *a, **k: pytest.fail("retrained a stored run"))
    assert run_sec73(_tiny_preset(), root_seed=3, results_dir=tmp_path, train_missing=False).records == first.records
    assert run_sec73(_tiny_preset(), root_seed=4, results_dir=tmp_path, train_missing=False).records == second.records
