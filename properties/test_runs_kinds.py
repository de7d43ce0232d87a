# The stored-runs layer: three kinds behind one seam, each joined to its committed evidence explicitly (a store read
# is the store alone), and the keys of the committed evidence unchanged by the move into rgr_verify.runs.
import pytest

from rgr_verify.runs import KIND_NAMES, kind_of_store, run_kind, store_of
from rgr_verify.runs.evidence import manifests, read_evidence, with_evidence
from rgr_verify.runs.store import JsonlStore


def test_three_kinds_one_seam():
    assert KIND_NAMES == ("engine", "sec73", "facts")
    assert [run_kind(n).store for n in KIND_NAMES] == ["runs.jsonl", "sec73-runs.jsonl", "facts-runs.jsonl"]
    for n in KIND_NAMES:
        k = run_kind(n)
        assert k.fields and k.version and k.trainer and k.lock and k.batch
    assert kind_of_store("facts-runs.jsonl").name == "facts"
    with pytest.raises(ValueError, match="not the store of a run kind"):
        kind_of_store("other.jsonl")
    with pytest.raises(KeyError, match="no run kind"):
        run_kind("nope")


def test_the_layer_asks_the_seam():
    # The store, its line checks, the evidence, the Sec. 7.3 keys and the facts runs take each kind's store file and
    # fields from runs.kinds; no module of the package outside the claims spells a store's file name, and the seam
    # imports nothing of the package (so every module of the layer can ask it without a circle).
    import ast
    from pathlib import Path

    from rgr_verify.runs import evidence, facts, kinds, sec73_keys, store, store_lines

    assert store.ResultStore.FILENAME == evidence.ENGINE_STORE == store_of("engine")
    assert sec73_keys.STORE_NAME == store_of("sec73") and facts.FACTS_STORE == store_of("facts")
    assert store_lines.STORE_FIELDS == {run_kind(n).store: run_kind(n).fields for n in KIND_NAMES}
    pkg = Path(kinds.__file__).resolve().parents[1]
    names = {run_kind(n).store for n in KIND_NAMES}
    spelled = []
    for p in sorted(pkg.rglob("*.py")):
        if p.name == "kinds.py" or "claims" in p.relative_to(pkg).parts:  # a claim's literal is part of its rule
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                spelled.append(f"{p.relative_to(pkg)}:{node.lineno}")
    assert spelled == []
    tree = ast.parse(Path(kinds.__file__).read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.level or "rgr_verify" in
                                                                                 (n.module or ""))]


def test_a_store_read_is_the_store_alone_and_the_join_is_explicit(tmp_path):
    store = JsonlStore(tmp_path, "facts-runs.jsonl")
    assert store.read() == {}  # the committed facts evidence is not mixed in silently
    joined = with_evidence(store)
    assert len(joined) == sum(m.runs for m in manifests() if m.store == "facts-runs.jsonl") > 0
    k = next(iter(joined))
    mine = {**joined[k], "loss": -1.0}
    store.append([mine])
    assert with_evidence(store)[k]["loss"] == -1.0  # the store's own record wins over the evidence
    assert with_evidence(store, directory=tmp_path / "no-evidence") == {k: mine}


def test_committed_facts_keys_are_recomputed_exactly():
    from rgr_verify.models.facts_model import FactsConfig
    from rgr_verify.runs.facts import facts_run_key

    man = next(m for m in manifests() if m.store == "facts-runs.jsonl")
    recs = read_evidence(man)
    assert recs and all(facts_run_key(FactsConfig(**r["config"]), r["seed"]) == k for k, r in recs.items())
