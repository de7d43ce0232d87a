"""The Sec. 7.3 sweep trains a preset's ``first_cells`` first, one cell at a time and in their order, then the rest
in groups of equal h; the order changes no run and no record (issue 38: the cells that decide a claim soonest)."""

import dataclasses
import json

import pytest

from rgr_verify.runs.sec73_presets import sec73_preset
from rgr_verify.runs.sec73_sweep import STORE_NAME, run_sec73, training_groups

from ._fixtures import tiny_sec73_preset


def _trained_order(monkeypatch, preset, results_dir):
    import rgr_verify.models.transformer as tr

    real, started = tr._train_group, []
    monkeypatch.setattr(tr, "_train_group",
                        lambda E, specs, *a, **k: started.append(sorted({(s.D_K, s.n_heads) for s in specs}))
                        or real(E, specs, *a, **k))
    res = run_sec73(preset, root_seed=3, results_dir=results_dir)
    monkeypatch.undo()
    return res, started


def test_sec73_first_cells_train_first_and_change_no_record(tmp_path, monkeypatch):
    plain = tiny_sec73_preset()
    first = dataclasses.replace(plain, first_cells=((4, 2), (2, 1)))
    res, started = _trained_order(monkeypatch, first, tmp_path / "first")
    assert started[:2] == [[(4, 2)], [(2, 1)]]  # the first cells alone, in their order
    assert started[2:] == [[(4, 1)], [(2, 2)]]  # then the rest by h
    ref, plain_order = _trained_order(monkeypatch, plain, tmp_path / "plain")
    assert plain_order == [[(2, 1), (4, 1)], [(2, 2), (4, 2)]]  # the planted alternative: no first cells
    strip = lambda recs: sorted((r["key"], r["test_acc"], r["best_val_acc"], r["steps"]) for r in recs)  # noqa: E731
    assert strip(res.records) == strip(ref.records)
    kept = [json.loads(x)["D_K"] for x in (tmp_path / "first" / STORE_NAME).read_text().splitlines()]
    assert kept[:4] == [4, 4, 2, 2]


def test_sec73_groups_partition_the_cells_and_the_full_plan_leads_with_the_deciding_cells():
    full = sec73_preset("full", source="minilm")
    groups = training_groups(full, "cuda")
    cells = [c for _, g in groups for c in sorted(g)]
    assert sorted(cells) == sorted(full.cells()) and len(cells) == len(set(cells))
    assert [sorted(g) for _, g in groups[:4]] == [[(64, 4)], [(64, 8)], [(256, 1)], [(512, 1)]]
    assert len({name for name, _ in groups}) == len(groups)  # one lock per group


@pytest.mark.parametrize("bad", [((3, 1),), ((2, 1), (2, 1)), ((64, 4),)])
def test_sec73_first_cells_must_be_distinct_cells_of_the_preset(bad):
    with pytest.raises(ValueError, match="first_cells"):
        dataclasses.replace(tiny_sec73_preset(), first_cells=bad)


def test_sec73_cells_restrict_a_sweep_and_the_rules_read_only_their_cells(tmp_path):
    from rgr_verify.claims.paper_sec7.sec73_rules import (cells_read, decide_advantage, decide_h8,
                                                           decide_near_perfect, decide_plateau)

    preset = tiny_sec73_preset()
    part = run_sec73(preset, root_seed=3, results_dir=tmp_path, cells=[(4, 2), (2, 1)])
    assert part.cells == ((2, 1), (4, 2)) and part.covered() == [(2, 1), (4, 2)]  # the preset's order
    assert sorted({(r["D_K"], r["h"]) for r in part.records}) == [(2, 1), (4, 2)]
    assert set(part.table()) == {"D_K=2,h=1", "D_K=4,h=2"}
    whole = run_sec73(preset, root_seed=3, results_dir=tmp_path)  # trains the other two cells, replays these
    assert whole.cells is None and len(whole.records) == 8
    assert {r["key"]: r["test_acc"] for r in part.records}.items() <= {r["key"]: r["test_acc"]
                                                                     for r in whole.records}.items()
    for bad in ([(3, 1)], [], [("x", 1)], 7):
        with pytest.raises(ValueError, match="cells"):
            run_sec73(preset, root_seed=3, results_dir=tmp_path, cells=bad)
    full = sec73_preset("full", source="minilm")
    assert cells_read(decide_h8, full) == [(64, 4), (64, 8)]
    assert cells_read(decide_plateau, full) == [(256, 1), (512, 1)]
    assert cells_read(decide_near_perfect, full) == [(512, 2), (512, 4), (512, 8)]
    assert cells_read(decide_advantage, full) == full.cells()
    assert cells_read(decide_h8, preset) == preset.cells()  # no (64, 4), (64, 8): the rule reads (and lacks) all
