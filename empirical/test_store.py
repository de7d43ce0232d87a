# Results store and presets: atomic appends, torn-line recovery, resume without redoing finished runs.
import json

import pytest

from rgr_verify.engine import RunConfig, run_key, train_runs
from rgr_verify.presets import PRESETS, TIERS, get_preset, table2_cap
from rgr_verify.store import ResultStore, ensure_runs

_TINY = dict(m=20, d_model=8, ell=8, n_val=20, n_test=20, check_every=20, max_steps=40)


def test_append_and_torn_line_recovery(tmp_path):
    store = ResultStore(tmp_path)
    runs = [(RunConfig(n_heads=2, d_head=4, **_TINY), s) for s in range(2)]
    res = train_runs(runs)
    store.append(res[0])
    with open(store.path, "ab") as fh:  # a writer killed mid-record
        fh.write(b'{"key": "abc", "metric": 0.')
    store.append(res[1])
    recs = store.records()
    assert set(recs) == {run_key(*runs[0]), run_key(*runs[1])}
    assert recs[run_key(*runs[1])]["metric"] == pytest.approx(res[1].metric)
    assert store.missing(runs) == []


def test_resume_redoes_nothing(tmp_path):
    runs = [(RunConfig(n_heads=h, d_head=4, **_TINY), s) for h in (1, 2) for s in range(2)]
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
