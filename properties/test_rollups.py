# Rollups that weigh what bears on them: the one rule of rgr_verify.claims.structure.ROLLUP_RULE over the real claims
# (ledger statuses and declared slips, no check run), planted cases that show the rule can give every rollup status,
# the contribution's sentence in plain words, and the place of the paper behind each supports edge.
"""Rollup rule, contribution sentences and supports places (:mod:`rgr_verify.claims.structure`)."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

import pytest

from rgr_verify.claims import all_claims
from rgr_verify.claims.ledger import read_ledger
from rgr_verify.claims.standards import Slip, severity_for
from rgr_verify.claims.labels import SUPPORTS_AT, check_place, place_lines, supports_at
from rgr_verify.claims.structure import (CONTRIBUTIONS, ROLLUP_STATUSES, SLIP_PHRASES, annotate, bearing, claim_nodes,
                                         landings, node_of, rollup)
from rgr_verify.claims.standards.severity import SLIP_CLASSES

FINDING = ("refuted", "contradicted-empirically")


def _ledger_records() -> list[dict]:
    """Every claim as a record with its ledger status (ran when the ledger has it) and declared slip: the rollup of
    the recorded verdicts, without running a check."""
    ledger = read_ledger()
    out = []
    for c in all_claims():
        entry = ledger.get(c.id)
        out.append({"id": c.id, "paper": c.paper, "ref": c.ref, "statement": c.statement, "ran": entry is not None,
                    "status": entry.status.value if entry else "inconclusive", "role": c.role or "result",
                    "supports": list(c.supports), "slip": c.slip.as_record() if c.slip else None,
                    "evidence_level": None, "params": {}, "provenance": c.provenance})
    return annotate(out)


@pytest.fixture(scope="module")
def recorded():
    recs = _ledger_records()
    return recs, rollup(recs)


def _rec(cid, ref, status, slip=None, role="result", supports=(), level="proved", ran=True, params=None):
    return {"id": cid, "paper": "2509.22840", "ref": ref, "status": status, "ran": ran, "role": role,
            "supports": list(supports), "evidence_level": level, "provenance": "paper", "params": params or {},
            "slip": Slip(*slip).as_record() if slip else None}


BREAKS = ("false-for-every-constant", "result", "planted: false for every constant")
GAP = ("proof-step-false", "proof-step", "planted: a step is false")
IMPRECISE = ("constant-bookkeeping", "result", "planted: a constant is off")
TIGHT = ("tightness-gap", "comparison", "planted: the bounds are compared outside the hypothesis")
REMARK = ("quantity-swapped-in-corner", "remark", "planted: the summary prints the wrong quantity")


# --- the rule over the real claims --------------------------------------------------------------------------------

def test_no_contribution_is_broken_without_a_breaks_result_finding_on_a_core_result(recorded):
    recs, roll = recorded
    by_id = {c.id: c for c in CONTRIBUTIONS}
    for cid, c in roll["contributions"].items():
        if c["status"] not in ("broken", "contradicted"):
            continue
        core = by_id[cid].core or by_id[cid].labels
        # independently of bearing(): a finding whose slip is breaks-result by the table, on its own ref's label
        # (the only place a breaks-result weighs at full severity), that label a core result
        found = [r for r in recs if r["ran"] and r["status"] in FINDING and r["slip"]
                 and severity_for(r["slip"]["class"], r["slip"]["target"]) == "breaks-result"
                 and any(fnmatch.fnmatchcase(node_of(r["paper"], r["ref"]), p) for p in core)]
        assert found, f"{cid} is {c['status']} without a breaks-result finding on a core result"
        assert set(c["breaking"]) >= {r["id"] for r in found}
        want = "broken" if any(r["status"] == "refuted" for r in found) else "contradicted"
        assert c["status"] == want, cid


def test_a_gap_never_contradicts_and_findings_off_the_core_at_worst_partly_break(recorded):
    recs, roll = recorded
    for cid, c in roll["contributions"].items():
        counted = [r for r in recs if cid in bearing(r)]
        if c["status"] in ("broken", "contradicted", "partly-broken"):
            assert any(bearing(r)[cid]["severity"] == "breaks-result" for r in counted), cid
        for r in counted:  # a tightness gap or any proof-gap finding never weighs as a break
            if r["slip"] and r["slip"]["class"] == "tightness-gap":
                assert bearing(r)[cid]["severity"] != "breaks-result"


def test_the_reviews_rollups_under_the_rule(recorded):
    recs, roll = recorded
    con = roll["contributions"]
    # the tightness gap (def91) leaves the capacity law and the lower bound's core standing; it weighs on the
    # capacity law (its statement says the bounds match), and Theorem 9.2's own label is not touched by it
    assert con["capacity-law"]["status"] not in ("broken", "contradicted")
    assert con["lower-bound"]["core"]["status"] not in ("broken", "contradicted")
    def91 = next(r for r in recs if r["id"] == "def91-constructions-normalised-margin")
    assert bearing(def91)["capacity-law"]["severity"] == "proof-gap"
    assert landings(def91)["Theorem 9.2"] is None
    assert "def91-constructions-normalised-margin" not in roll["labels"]["Theorem 9.2"]["findings"]["proof-gap"]
    # a log m' for log m slip says nothing about heads: Corollary B.10 is no label of the multi-head rationale
    corb10 = next(r for r in recs if r["id"] == "corb10-sym-theta-log-m-prime")
    assert "multi-head-rationale" not in bearing(corb10) and "constructions" in bearing(corb10)
    # the formula comparisons are details: they never count as results confirming the tightness
    for cid in ("thmb2-sym-budget-matches-lower-bound", "corb10-sym-matches-lower-bound", "openreview-sym-theta"):
        r = next(x for x in recs if x["id"] == cid)
        assert r["role"] == "detail" and r["statement"].startswith("As formulas") and "Theorem 9.2" in r["supports"]
        assert all(cid not in c["weight"]["claims"] and cid not in c["core"]["weight"]["claims"] for c in con.values())


def test_the_length2_finding_is_sec1_against_theorem_81_not_theorem_92(recorded):
    recs, _ = recorded
    ids = {r["id"] for r in recs}
    assert "thm92-softmax-length2-construction" not in ids
    r = next(x for x in recs if x["id"] == "sec1-softmax-length2-construction")
    assert r["ref"] == "Sec. 1" and r["supports"] == ["Theorem 8.1"] and "Theorem 9.2" not in claim_nodes(r)
    assert r["status"] == "refuted" and r["severity"] == "proof-gap"
    assert set(bearing(r)) == {"softmax-analysis"}  # rule 3: Sec. 1's softmax sentence states that contribution
    assert landings(r) == {"Sec. 1": "proof-gap", "Theorem 8.1": None}  # Theorem 8.1 stands as stated
    eq1 = next(x for x in recs if x["id"] == "eq1-n3-sqrt-dk")
    assert set(eq1["supports"]) == {"Sec. 5", "Proposition 8.4"} and "Theorem 4.1" not in claim_nodes(eq1)


# --- planted cases: the rule can give every status ------------------------------------------------------------------

def _con(recs, cid):
    return rollup(annotate(recs))["contributions"][cid]


def test_planted_cases_give_every_rollup_status():
    holds = _rec("thm81-holds", "Theorem 8.1", "verified")
    cases = {
        "broken": [holds, _rec("thm81-x", "Theorem 8.1", "refuted", BREAKS)],
        "contradicted": [holds, _rec("thm81-x", "Theorem 8.1", "contradicted-empirically", BREAKS, level="fitted")],
        "partly-broken": [holds, _rec("lem83-x", "Lemma 8.3", "refuted", BREAKS)],
        "stands-with-gaps": [holds, _rec("thm81-x", "Theorem 8.1", "refuted", GAP, role="proof-step",
                                         supports=("Theorem 8.1",))],
        "stands-with-imprecisions": [holds, _rec("thm81-x", "Theorem 8.1", "refuted", IMPRECISE, role="detail")],
        "stands": [holds, _rec("lem82-x", "Lemma 8.2", "verified")],
        "stands-on-analogues": [_rec("thm81-x-quick", "Theorem 8.1", "holds-empirically", level="analogue")],
        "undecided": [_rec("thm81-x", "Theorem 8.1", "inconclusive"),
                      _rec("thm81-step", "Theorem 8.1", "verified", role="proof-step", supports=("Theorem 8.1",))],
    }
    assert set(cases) == set(ROLLUP_STATUSES)
    for status, recs in cases.items():
        c = _con(recs, "softmax-analysis")
        assert c["status"] == status, (status, c["summary"])
        assert c["sentence"].startswith(("Broken", "Contradicted", "Partly broken", "Stands", "Undecided"))


def test_a_break_reaches_a_contribution_only_through_its_core():
    holds = _rec("thm81-holds", "Theorem 8.1", "verified")
    # a false lemma that Theorem 8.1's proof uses: partly broken, Theorem 8.1 itself gets a gap, not a break
    lemma = _rec("lem83-x", "Lemma 8.3", "refuted", BREAKS, supports=("Theorem 8.1",))
    roll = rollup(annotate([holds, lemma]))
    assert roll["contributions"]["softmax-analysis"]["status"] == "partly-broken"
    assert roll["labels"]["Theorem 8.1"]["status"] == "stands-with-gaps"
    assert roll["labels"]["Lemma 8.3"]["status"] == "broken"
    # the planted alternative: the same finding declared on Theorem 8.1's own statement breaks the contribution
    own = _rec("thm81-x", "Theorem 8.1", "refuted", BREAKS)
    assert _con([holds, own], "softmax-analysis")["status"] == "broken"


def test_a_tightness_gap_is_a_gap_of_who_claims_the_match_never_a_break():
    base = [_rec("thm41-a", "Theorem 4.1", "verified"), _rec("thm92-a", "Theorem 9.2", "verified")]
    gap = _rec("def91-x", "Definition 9.1", "contradicted-empirically", TIGHT, supports=("Theorem 9.2",),
               level="fitted")
    roll = rollup(annotate(base + [gap]))
    assert roll["contributions"]["capacity-law"]["status"] == "stands-with-gaps"
    assert roll["labels"]["Theorem 9.2"]["status"] == "stands"  # compared, not shown wrong
    sentence = roll["contributions"]["capacity-law"]["sentence"]
    assert sentence.startswith("Stands with gaps: Theorem 4.1 and Theorem 9.2 stand, but the claim that the bounds "
                               "match") and "def91-x" in sentence
    # planted alternatives: the same comparison false for every constant weighs as a break on no core result
    # (partly broken at worst); declared as Theorem 9.2's own false conclusion, it contradicts
    broken_cmp = {**gap, "slip": Slip("false-for-every-constant", "comparison", "planted").as_record()}
    assert _con(base + [broken_cmp], "capacity-law")["status"] == "partly-broken"
    broken_own = _rec("thm92-x", "Theorem 9.2", "contradicted-empirically", BREAKS, level="fitted")
    assert _con(base + [broken_own], "capacity-law")["status"] == "contradicted"


def test_a_summary_sentence_counts_with_the_contribution_it_states():
    base = [_rec("thm41-a", "Theorem 4.1", "verified"), _rec("thm92-a", "Theorem 9.2", "verified"),
            _rec("thmb9-a", "Theorem B.9", "verified")]
    remark = _rec("sec1-x", "Sec. 1", "refuted", REMARK, role="detail", supports=("Theorem B.9",))
    roll = rollup(annotate(base + [remark]))
    assert "sec1-x" not in roll["contributions"]["capacity-law"]["claims"]
    assert roll["contributions"]["constructions"]["status"] == "stands-with-imprecisions"
    assert roll["labels"]["Theorem B.9"]["status"] == "stands"  # the restated theorem is not shown wrong
    # the planted alternative: a Sec. 1 sentence that restates nothing counts with the headline it sits in
    alone = {**remark, "supports": []}
    roll = rollup(annotate(base + [alone]))
    assert "sec1-x" in roll["contributions"]["capacity-law"]["claims"]
    assert roll["contributions"]["constructions"]["status"] == "stands"


def test_landings_along_supports_follow_the_slip_target():
    ids = set()
    step = annotate([_rec("a", "Lemma B.3", "refuted", GAP, role="proof-step", supports=("Theorem B.2",))])[0]
    assert landings(step, ids) == {"Lemma B.3": "proof-gap", "Theorem B.2": "proof-gap"}
    res = annotate([_rec("b", "Lemma B.3", "refuted", BREAKS, supports=("Theorem B.2",))])[0]
    assert landings(res, ids) == {"Lemma B.3": "breaks-result", "Theorem B.2": "proof-gap"}
    imp = annotate([_rec("c", "Lemma B.3", "refuted", IMPRECISE, supports=("Theorem B.2",))])[0]
    assert landings(imp, ids) == {"Lemma B.3": "imprecision", "Theorem B.2": "imprecision"}
    held = annotate([_rec("d", "Lemma B.3", "verified", supports=("Theorem B.2",))])[0]
    assert landings(held, ids) == {"Lemma B.3": None, "Theorem B.2": None}


# --- the sentence ---------------------------------------------------------------------------------------------------

def test_every_slip_class_has_plain_words():
    assert set(SLIP_PHRASES) == set(SLIP_CLASSES)


def test_the_sentence_is_generated_from_the_findings(recorded):
    _, roll = recorded
    leads = {"broken": "Broken:", "contradicted": "Contradicted:", "partly-broken": "Partly broken:",
             "stands-with-gaps": "Stands with gaps:", "stands-with-imprecisions": "Stands with imprecisions:",
             "stands": "Stands:", "stands-on-analogues": "Stands only on analogues", "undecided": "Undecided:"}
    for cid, c in roll["contributions"].items():
        s = c["sentence"]
        assert s.startswith(leads[c["status"]]) and s.endswith(".") and "\n" not in s, cid
        for fid in c["breaking"][:1]:
            assert fid in s, (cid, s)
    # an untested reading of a deciding finding is said, from its reading record
    untested = _rec("thm81-x", "Theorem 8.1", "refuted", BREAKS, params={
        "readings": {"as printed": "fails: witness", "d_k = C (log m)^2 with c0 >> C": "not tested: too large"}})
    s = _con([_rec("thm81-holds", "Theorem 8.1", "verified"), untested], "softmax-analysis")["sentence"]
    assert s.startswith("Broken: Theorem 8.1 fails as stated for every admissible constant (thm81-x)")
    assert "not decided under: d_k = C (log m)^2 with c0 >> C (thm81-x)" in s
    # and only then: without the not-tested reading the sentence says nothing is untested
    tested = {**untested, "params": {"readings": {"as printed": "fails: witness"}}}
    assert "not decided under" not in _con([tested], "softmax-analysis")["sentence"]
    # a result that fails off the core under one reading only says so too (review RP4: Sec. 10), the reading named
    # once for the two findings that share it
    off = [_rec(f"lem83-{k}", "Lemma 8.3", "refuted", BREAKS, params={
        "readings": {"graph-dependent": "fails: witness", "graph-independent": "not tested: Theorem stands"}})
        for k in "ab"]
    s = _con([_rec("thm81-holds", "Theorem 8.1", "verified")] + off, "softmax-analysis")["sentence"]
    assert s.startswith("Partly broken:") and "not decided under: graph-independent (lem83-a, lem83-b)" in s
    # a reading under which the sentence stands is named as such (third review of 2026-11-28: Sec. 10)
    held = [{**r, "params": {"readings": {"graph-dependent": "fails: witness", "graph-independent": "holds: Thm"}}}
            for r in off]
    s = _con([_rec("thm81-holds", "Theorem 8.1", "verified")] + held, "softmax-analysis")["sentence"]
    assert "it stands if read as graph-independent (lem83-a, lem83-b)" in s and "not decided under" not in s, s
    # one slip recorded by three claims counts once among the rest; another slip of the same label counts apart
    gaps = [_rec(f"lem83-g{k}", "Lemma 8.3", "refuted", GAP) for k in range(3)]
    other = _rec("lem83-imp", "Lemma 8.3", "refuted", IMPRECISE)
    s = _con([_rec("thm81-holds", "Theorem 8.1", "verified")] + off + gaps + [other], "softmax-analysis")["sentence"]
    assert "also 1 gap (3 findings) and 1 imprecision" in s, s


def test_the_sentence_reaches_report_json_md_and_the_site(tmp_path):
    from rgr_verify.claims import Claim, Kind, Status, Tier, Verdict, run_claim
    from rgr_verify.audit.report import audit_document
    from rgr_verify.audit.report_md import render_markdown
    from rgr_verify.audit.site import write_site

    def holds(ctx):
        return Verdict(Status.VERIFIED, paper_value="p", measured_value="m", evidence="a proof",
                       evidence_level="proved")

    def refutes(ctx):
        return Verdict(Status.REFUTED, paper_value="p", measured_value="m", evidence="a witness",
                       evidence_level="witness")

    claims = [Claim(id="thm81-holds", ref="Theorem 8.1", statement="it holds", kind=Kind.SYMBOLIC, tier=Tier.QUICK,
                    check=holds, role="result"),
              Claim(id="thm81-step", ref="Theorem 8.1", statement="a step", kind=Kind.SYMBOLIC, tier=Tier.QUICK,
                    check=refutes, role="proof-step", supports=("Theorem 8.1",), slip=GAP)]
    doc = audit_document([run_claim(c, root_seed=1, device="cpu", tier="quick") for c in claims], tier="quick",
                         root_seed=1, device="cpu")
    sentence = doc["rollup"]["contributions"]["softmax-analysis"]["sentence"]
    assert sentence.startswith("Stands with gaps: Theorem 8.1 stands with a gap, but a proof step is false as written "
                               "(on Theorem 8.1: thm81-step)")
    assert sentence in render_markdown(doc)
    index = write_site(doc, tmp_path).read_text(encoding="utf-8")
    assert re.search(r'<td class="sentence">Stands with gaps: Theorem 8\.1 stands', index)


# --- where the paper makes each supports edge ----------------------------------------------------------------------

def test_every_findings_supports_edge_cites_a_place():
    ledger = read_ledger()
    ids = {c.id for c in all_claims()}
    missing = []
    for c in all_claims():
        if c.id not in ledger or ledger[c.id].status.value not in FINDING:
            continue
        labels = [s for s in c.supports if s not in ids and node_of(c.paper, s) != c.label]
        at = supports_at(c)
        missing += [(c.id, s) for s in labels if s not in at]
    assert missing == []
    for cid in ("eq1-n3-sqrt-dk", "sec1-softmax-length2-construction", "thmb2-sym-budget-matches-lower-bound",
                "corb10-sym-matches-lower-bound", "openreview-sym-theta"):  # the edges the review questioned
        assert supports_at(next(c for c in all_claims() if c.id == cid)), cid


def test_supports_places_name_real_claims_and_edges():
    by_id = {c.id: c for c in all_claims()}
    for cid, edges in SUPPORTS_AT.items():
        assert cid in by_id, f"SUPPORTS_AT names {cid}, which is no claim"
        assert supports_at(by_id[cid]) == edges  # raises for an edge the claim does not have or a bad place


@pytest.mark.parametrize("bad", ["L0", "L12-L12", "L30-L10", "528", "line 528", "L5a", "", None, 528, "Sec. 9"])
def test_a_bad_place_raises(bad):
    with pytest.raises(ValueError):
        check_place(bad)


def test_contributions_cite_where_the_paper_states_them():
    for c in CONTRIBUTIONS:
        assert all(check_place(at) for at in c.at), c.id
    assert {c.id for c in CONTRIBUTIONS if not c.at} == {"facts-capacity"}  # the other paper has no v3 lines


def test_good_places():
    assert check_place("L528") == "L528" and place_lines("L995-L999") == (995, 999)
    assert place_lines("OpenReview abstract") is None
    with pytest.raises(ValueError, match="does not support"):
        supports_at({"id": "def91-constructions-normalised-margin", "supports": ["Theorem 4.1"]})


_V3 = Path(os.environ.get("RGR_VERIFY_PAPER_TEXT") or
           Path(__file__).resolve().parents[2] / "shared" / "paper" / "003_656413910ed800f8.txt")


@pytest.mark.skipif(not _V3.is_file(), reason="the paper's v3 text is not here; the project does not ship it")
def test_each_place_is_where_the_paper_makes_the_edge():
    """A place lies in the text and inside the supported label, the section that holds it, or the claim's own label
    or section, or the line mentions the supported label or its section."""
    from rgr_verify.claims.labels import PART_TITLES, label_part
    from rgr_verify.audit.papertext import V3_LABELS, label_references

    text = _V3.read_text(encoding="utf-8")
    n_lines = len(text.splitlines())
    refs: dict[int, set] = {}
    for line, _a, _b, lab in label_references(text):
        refs.setdefault(line, set()).add(lab)
    by_id = {c.id: c for c in all_claims()}

    def around(label):
        out = [label]
        try:
            out.append(PART_TITLES[label_part(label)])
        except (ValueError, KeyError):
            pass
        return [V3_LABELS[x] for x in out if x in V3_LABELS], set(out)

    for cid, edges in SUPPORTS_AT.items():
        c = by_id[cid]
        for label, place in edges.items():
            lines = place_lines(place)
            if lines is None:
                continue
            first, last = lines
            assert last <= n_lines, (cid, place)
            ranges, names = around(label)
            own_ranges, _ = around(c.label)
            inside = any(a <= first and last <= b for a, b in ranges + own_ranges)
            mentions = any(refs.get(k, set()) & names for k in range(first, last + 1))
            assert inside or mentions, f"{cid}: {place} is not where the paper relates it to {label}"


def test_a_contribution_without_claims_on_its_core_is_never_broken():
    # the case of an audit of a few claims: a break off the core, nothing on the core: partly broken, not broken
    c = _con([_rec("thmb5-x", "Theorem B.5", "refuted", BREAKS)], "constructions")
    assert c["status"] == "partly-broken" and c["core"]["status"] == "undecided"
    assert c["sentence"].startswith("Partly broken: its core results are undecided, but elsewhere in it Theorem B.5 "
                                    "fails as stated")
    assert _con([_rec("thmb5-x", "Theorem B.5", "verified")], "constructions")["status"] == "undecided"


def test_a_comparison_lands_on_a_compared_result_only_where_the_paper_makes_it_inside_that_result():
    ids = set()
    cmp_ = annotate([_rec("c", "Theorem 4.1", "refuted", ("hypothesis-does-not-cover", "comparison", "planted"),
                          supports=("Sec. 6.1", "Theorem 9.2"))])[0]
    assert landings(cmp_, ids) == {"Theorem 4.1": "proof-gap", "Sec. 6.1": None, "Theorem 9.2": None}  # no place
    placed = {**cmp_, "supports_at": {"Sec. 6.1": "L190", "Theorem 9.2": "L528"}}  # L528 is before Theorem 9.2
    assert landings(placed, ids) == {"Theorem 4.1": "proof-gap", "Sec. 6.1": "proof-gap", "Theorem 9.2": None}
    # the contribution counts it either way (rule 3): Sec. 6.1's comparison is the experiments' statement
    assert bearing(cmp_, ids)["experiments"]["severity"] == "proof-gap"


def test_details_alone_never_make_a_contribution_stand():
    # a formula comparison (a detail) that holds is not a result: the capacity law's core is undecided on it alone
    cmp_ = _rec("thmb2-x", "Theorem B.2", "verified", role="detail", supports=("Theorem 9.2",))
    assert _con([cmp_], "capacity-law")["status"] == "undecided"
    assert _con([cmp_, _rec("thm92-a", "Theorem 9.2", "verified")], "capacity-law")["status"] == "stands"
