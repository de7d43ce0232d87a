# The paper's values in one place: every stated number, and whole tables (Table 1, Table 2), is declared in the
# claim's `expects`; the check reads it from there; the statement the report shows is rendered from the declaration
# (so an author who changes one value sees it in the report, and the verdict recomputed); `rgr-verify mutate`
# mutates tables as a whole and lists a value declared `unmutated` with its reason.
import pytest

from rgr_verify.claims import all_claims, get_claim
from rgr_verify.claims.base import Stated
from rgr_verify.claims.runner import run_claim
from rgr_verify.claims.tools import TABLE1
from rgr_verify.audit.mutate import mutants, not_mutated
from rgr_verify.audit.report import result_record


def test_a_table_is_a_stated_value():
    st = Stated({(64, 16): 5, (64, 32): 6}, "table", "Table 1")
    assert st.value == {(64, 16): 5, (64, 32): 6}
    for bad in ({}, {(1, 2): "five"}, {(1, 2): float("nan")}, [5, 6], {(1, 2): True}):
        with pytest.raises(ValueError, match="table"):
            Stated(bad, "table")


def test_tables_1_and_2_are_declared_where_checks_compare_against_them():
    declared = {c.id: {n for n, s in c.expects.items() if s.kind == "table"} for c in all_claims()}
    assert declared["sec6-sym-table1-range"] == {"table1"}
    assert declared["table1-per-head-width-cell-by-cell"] == {"table1"}
    assert declared["table1-per-head-width-adaptive"] == {"table1"}
    assert declared["table2-sym-coverage"] == {"table2"}
    assert get_claim("sec6-sym-table1-range").expects["table1"].value == TABLE1


def test_table_mutants_scale_the_whole_table_and_unmutated_values_say_why():
    c = get_claim("sec6-sym-table1-range")
    ms = {m.id: m for m in mutants(c)}
    m2 = ms["sec6-sym-table1-range:table1*2"]
    assert m2.mutated == {k: 2 * v for k, v in TABLE1.items()} and m2.original == TABLE1
    assert "sec6-sym-table1-range:table1/2" in ms
    why = dict(not_mutated(get_claim("sec6-sym-table1-median")))
    assert set(why) == {"median", "table1"} and all(w.startswith("declared, not mutated: ") for w in why.values())


def test_a_changed_declaration_shows_in_the_statement_and_recomputes_the_verdict():
    c = get_claim("sec6-sym-table1-range")
    base = run_claim(c, tier="quick", device="cpu")
    assert base.verdict.status.value == "verified"
    rec = result_record(base)
    assert rec["statement"] == "Sec. 6's range d_k* in [5, 24] matches Table 1."
    assert rec["stated"]["lo"]["value"] == 5 and rec["stated"]["table1"]["kind"] == "table"
    moved = run_claim(c, tier="quick", device="cpu", expects={"lo": 6})  # an author edits one stated value
    rec = result_record(moved)
    assert rec["statement"] == "Sec. 6's range d_k* in [6, 24] matches Table 1."
    assert rec["stated"]["lo"]["value"] == 6 and moved.verdict.status.value == "refuted"


def test_rendered_statements_have_no_unfilled_field():
    import re

    for c in all_claims():
        fields = re.findall(r"\{(\w+)\}", c.statement)
        assert set(fields) <= set(c.expects), (c.id, fields)
        assert not re.findall(r"\{(\w+)\}", c.rendered_statement()), c.id
