# The 2502.05076 attention-only facts model: circuit tensor, exact padding of batched runs, store, presets.
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rgr_verify.claims.xpaper import circle_facts_layer
from rgr_verify.models.facts_model import (
    FactsConfig,
    circuit_rank_bound,
    circuit_tensor,
    forward_logits,
    init_params,
    run_database,
    train_facts,
    train_facts_batch,
)
from rgr_verify.runs.facts import ensure_facts_runs
from rgr_verify.runs.facts import facts_preset_runs as preset_runs
from rgr_verify.models.facts_tensors import permutation_database
from rgr_verify.models.facts_inflation import fibre_argmax_accuracy

_TINY = dict(n_keys=5, n_queries=2, n_values=6, epochs=30, check_every=10)


@settings(max_examples=20)
@given(st.integers(1, 3), st.integers(0, 3), st.integers(1, 3), st.integers(0, 2**31))
def test_circuit_tensor_equals_forward_logits(n_heads, d_qk, d_vo, seed):
    c = FactsConfig(**_TINY, d_model=4, n_heads=n_heads, d_qk=d_qk, d_vo=d_vo)
    p = init_params(c, [seed], dtype=torch.float64)
    L = circuit_tensor(p, c.n_keys)[0]  # [K, Q, V]
    k, q = torch.meshgrid(torch.arange(c.n_keys), torch.arange(c.n_queries), indexing="ij")
    lg = forward_logits(p, k.reshape(1, -1), (q + c.n_keys).reshape(1, -1))[0]
    assert torch.allclose(L.reshape(-1, c.values), lg, atol=1e-12, rtol=0)


def test_zero_padding_is_exact_in_float64():
    # a run alone and the same run batched with larger d_model, d_qk, d_vo give bitwise-equal records
    small = FactsConfig(**_TINY, d_model=3, d_qk=1, d_vo=1)
    big = FactsConfig(**_TINY, d_model=6, d_qk=4, d_vo=3)
    alone = train_facts_batch([(small, 3)], dtype=torch.float64)[0]
    batched = train_facts_batch([(small, 3), (big, 4), (big, 5)], dtype=torch.float64)[0]
    assert alone["loss"] == batched["loss"] and alone["accuracy"] == batched["accuracy"]


def test_train_records_and_early_stop():
    c = FactsConfig(n_keys=4, n_queries=2, n_values=4, d_model=8, d_qk=4, d_vo=4, epochs=400, lr=3e-2,
                    check_every=20)
    recs = train_facts(c, [0, 1])
    assert [r["seed"] for r in recs] == [0, 1]
    for r in recs:
        assert r["stopped"] and r["accuracy"]["argmax"] == 1.0 and r["min_p"] >= c.stop_tau
        assert r["rank_bound"] == circuit_rank_bound(d_model=8, n_heads=1, d_vo=4, n_queries=2, n_keys=4, n_values=4)


def test_store_resumes_without_retraining(tmp_path):
    runs = [(FactsConfig(**_TINY, d_model=3), s) for s in (0, 1)]
    first = ensure_facts_runs(runs, results_dir=tmp_path)
    lines = (tmp_path / "facts-runs.jsonl").read_text().splitlines()
    again = ensure_facts_runs(runs, results_dir=tmp_path)
    assert first == again and (tmp_path / "facts-runs.jsonl").read_text().splitlines() == lines


def test_database_depends_on_seed_only():
    a = run_database(FactsConfig(**_TINY, d_model=2), 7)
    b = run_database(FactsConfig(**_TINY, d_model=9, d_vo=4), 7)
    assert (a.triples == b.triples).all()


def test_circle_layer_memorises_permutation_at_d_model_3():
    perm = torch.randperm(50, generator=torch.Generator().manual_seed(0)).numpy()
    L = circuit_tensor(circle_facts_layer(perm), 50)[0].numpy()
    assert fibre_argmax_accuracy(permutation_database(perm), L) == 1.0


def test_presets_are_valid():
    for name in ("facts-fig4", "facts-fig3", "facts-rank80"):
        for tier in ("quick", "full"):
            runs = preset_runs(name, tier)
            assert runs and all(c.n_triples <= 200 and c.epochs <= 2000 for c, _ in runs)


@pytest.mark.parametrize("kwargs, name", [
    (dict(n_keys=30, n_queries=10, n_values=3), "200 triples"),
    (dict(n_keys=3, n_queries=1, n_values=3, epochs=2001), "epochs"),
    (dict(n_keys=3, n_queries=1, n_values=3, database="graph"), "database"),
    (dict(n_keys=3, n_queries=1, n_values=3, d_vo=0), "d_vo"),
    (dict(n_keys=3, n_queries=1, n_values=3, stop_tau=1.0), "stop_tau"),
])
def test_bad_config_raises_value_error_naming_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        FactsConfig(**kwargs)


def test_bad_batch_inputs():
    with pytest.raises(ValueError, match="shape_key"):
        train_facts_batch([(FactsConfig(**_TINY), 0), (FactsConfig(**{**_TINY, "epochs": 31}), 0)])
    with pytest.raises(ValueError, match="preset"):
        preset_runs("fig9")
    with pytest.raises(ValueError, match="n_queries"):
        circuit_rank_bound(d_model=2, n_heads=1, d_vo=1, n_queries=0)


def test_forward_and_helpers_validate_inputs():
    from rgr_verify.claims.paper_facts import certified_matrix_rank, random_layer

    c = FactsConfig(**_TINY, d_model=3)
    p = init_params(c, [0])
    with pytest.raises(ValueError, match="keys"):
        forward_logits(p, torch.zeros(2, 3, dtype=torch.long), torch.zeros(1, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="queries"):
        forward_logits(p, torch.zeros(1, 3, dtype=torch.long), torch.full((1, 3), 99))
    with pytest.raises(ValueError, match="config"):
        run_database("not a config", 0)
    with pytest.raises(ValueError, match="d_vo"):
        random_layer(n_keys=2, n_queries=1, n_values=2, d_model=2, n_heads=1, d_qk=1, d_vo=0, seed=0)
    with pytest.raises(ValueError, match="r must"):
        certified_matrix_rank([[1.0]], 0)
