# Evidence levels, the status table, the equivalence standard for rates, readings, severity and rollups.
from pathlib import Path

import numpy as np
import pytest

from rgr_verify.claims import all_claims
from rgr_verify.claims.base import Claim, Status, Verdict
from rgr_verify.claims.levels import ALLOWED, DECISIVE, LEVELS, bounded_status, level_of, status_table_markdown
from rgr_verify.claims.structure import (CONTRIBUTIONS, annotate, contributions_of, node_of, ranked_findings,
                                         rollup, scope_of)
from rgr_verify.claims.tools import exponent_verdict, verdict_over_readings
from rgr_verify.claims.standards import SEVERITY_TABLE, SLIP_CLASSES, SLIP_TARGETS, Slip, severity_for

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_status_table_is_the_levels_table():
    text = README.read_text(encoding="utf-8")
    start = text.index("<!-- status-table")
    body = text[text.index("\n", start) + 1: text.index("<!-- /status-table -->")].strip()
    assert body == status_table_markdown()


def test_levels_are_one_list_and_every_status_has_a_row():
    assert len(set(LEVELS)) == len(LEVELS) == 10
    assert set(ALLOWED) == {s.value for s in Status}
    for status in ("verified", "refuted"):
        assert ALLOWED[status] == DECISIVE
        assert not ALLOWED[status] & {"fitted", "experiment", "analogue", "sampled", "grid", "searched"}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("status", ["verified", "refuted", "holds-empirically", "contradicted-empirically",
                                    "inconclusive"])
def test_a_verdict_never_claims_more_than_its_level(status, level):
    v = Verdict(status, evidence_level=level)
    assert v.evidence_level == level
    assert level in ALLOWED[v.status.value]
    # the direction is kept: a holding verdict never becomes a finding, nor the reverse
    holding = {"verified", "holds-empirically"}
    assert (status in holding) == (v.status.value in holding)


def test_legacy_level_names_are_read_and_bad_ones_rejected():
    assert Verdict("verified", params={"evidence_level": "numeric-grid"}).status is Status.HOLDS_EMPIRICALLY
    assert Verdict("verified", params={"evidence_level": "symbolic-proof"}).evidence_level == "proved"
    assert level_of("exact comparison") == "proved"
    with pytest.raises(ValueError, match="evidence_level must be one of"):
        Verdict("verified", evidence_level="gut feeling")
    assert bounded_status("verified", "") == "verified"  # no level: the per-claim test catches it


def test_claim_fields_are_validated():
    ok = dict(id="thm81-x", ref="Theorem 8.1", statement="s", kind="symbolic", tier="quick", check=lambda ctx: None)
    with pytest.raises(ValueError, match="role must be one of"):
        Claim(**ok, role="lemma")
    with pytest.raises(ValueError, match="proof-step claim must name the result"):
        Claim(**ok, role="proof-step")
    with pytest.raises(ValueError, match="provenance must be one of"):
        Claim(**ok, provenance="theirs")
    with pytest.raises(ValueError, match="slip class must be one of"):
        Claim(**ok, slip=("fatal", "result", "why"))
    with pytest.raises(ValueError, match="slip target must be one of"):
        Claim(**ok, slip=("tightness-gap", "the abstract", "why"))
    with pytest.raises(ValueError, match="needs its reason"):
        Claim(**ok, slip=("tightness-gap", "comparison", " "))
    c = Claim(**ok, role="proof-step", supports="Lemma 8.3")
    assert c.supported == ("Theorem 8.1", "Lemma 8.3")


def _power(exponent, m=(256, 512, 1024, 2048, 4096), noise=0.0, seed=0):
    rng = np.random.default_rng(seed)
    x = np.asarray(m, float)
    return x, x ** exponent * np.exp(noise * rng.standard_normal(len(x)))


def test_exponent_rule_passes_only_an_interval_inside_the_band():
    x, y = _power(1.0, noise=0.01)
    v = exponent_verdict(x, y, claimed=1, tol=0.2, paper_value="", what="y", params={})
    assert v.status is Status.HOLDS_EMPIRICALLY and v.evidence_level == "fitted"
    # the planted alternative: exponent 2 is contradicted by the same rule
    x, y = _power(2.0, noise=0.01)
    assert exponent_verdict(x, y, claimed=1, tol=0.2, paper_value="", what="y", params={}).status \
        is Status.CONTRADICTED_EMPIRICALLY
    # a point slope inside the band with a wide interval does not pass: inconclusive, with what would decide
    x, y = _power(1.0, m=(512, 640, 768, 1024), noise=0.15, seed=3)
    v = exponent_verdict(x, y, claimed=1, tol=0.2, paper_value="", what="y", params={})
    assert v.status is Status.INCONCLUSIVE
    assert v.params["resolution"]["half_width"] > v.params["resolution"]["half_width_to_decide"]
    assert "to_decide" in v.params


def test_upper_bound_rule_cannot_pass_growth_like_log_m():
    # "c0 stays bounded" against the alternative c0 ~ ln m, fitted against ln m: exponent 1 must not pass
    m = np.array([2.0 ** k for k in range(6, 14)])
    v = exponent_verdict(np.log(m), 3 * np.log(m), claimed=0, tol=0.5, upper=True, paper_value="", what="c0",
                         params={})
    assert v.status is Status.CONTRADICTED_EMPIRICALLY
    v = exponent_verdict(np.log(m), np.full_like(m, 40.0) * (1 + 0.01 * np.sin(m)), claimed=0, tol=0.5, upper=True,
                         paper_value="", what="c0", params={})
    assert v.status is Status.HOLDS_EMPIRICALLY


def _v(status, level="sampled", measured=None):
    return Verdict(status, evidence_level=level, measured_value=measured)


def test_readings_never_hold_if_only_one_holds():
    holds, fails = _v("holds-empirically", measured=1), _v("contradicted-empirically", measured=2)
    v = verdict_over_readings({"ln": holds, "log2": fails}, hypotheses=["h"])
    assert v.status is Status.INCONCLUSIVE and "disagree" in v.details
    v = verdict_over_readings({"ln": holds, "log2": fails}, hypotheses=["h"], printed="log2")
    assert v.status is Status.CONTRADICTED_EMPIRICALLY and v.params["refuted_under"] == "reading(s): log2"
    v = verdict_over_readings({"ln": holds, "log2": fails}, hypotheses=["h"], printed="ln")
    assert v.status is Status.INCONCLUSIVE
    both = verdict_over_readings({"a": _v("verified", "proved"), "b": holds}, hypotheses=["h"])
    assert both.status is Status.HOLDS_EMPIRICALLY and both.evidence_level == "sampled"  # the weakest level
    assert verdict_over_readings({"a": fails, "b": fails}, hypotheses=["h"]).params["refuted_under"] == "every reading"


def test_readings_keep_structured_details():
    """A fit's structured details (exponent_verdict's) survive the readings rule, with the rule's words added."""
    fit = Verdict("contradicted-empirically", evidence_level="fitted", details={"fit": {"slope": 1.0}})
    v = verdict_over_readings({"whole": fit, "part": _v("holds-empirically")}, hypotheses=["h"], printed="whole")
    assert v.status is Status.CONTRADICTED_EMPIRICALLY and v.details["fit"] == {"slope": 1.0}
    assert "fails as printed" in v.details["readings"]


def _record(cid, ref, status, role="result", supports=(), level="proved", ran=True, slip=None):
    return {"id": cid, "paper": "2509.22840", "ref": ref, "status": status, "ran": ran, "role": role,
            "supports": list(supports), "evidence_level": level, "provenance": "paper",
            "slip": Slip(*slip).as_record() if slip else None}


def test_severity_follows_the_structure():
    recs = annotate([
        _record("thm81-conclusion", "Theorem 8.1", "refuted", level="witness"),
        _record("thm81-step3", "Theorem 8.1", "refuted", role="proof-step", supports=("Theorem 8.1",)),
        _record("thmb1-conclusion", "Theorem B.1", "verified"),
        _record("thmb1-step", "Lemma B.3", "refuted", role="proof-step", supports=("Theorem B.1",), level="sampled"),
        _record("thmb1-constant", "Theorem B.1", "refuted", role="detail"),
        _record("thm41-slip", "Theorem 4.1", "refuted", slip=("constant-bookkeeping", "result", "a factor 2")),
    ])
    sev = {r["id"]: r["severity"] for r in recs}
    assert sev == {"thm81-conclusion": "breaks-result", "thm81-step3": "proof-gap", "thmb1-conclusion": None,
                   "thmb1-step": "proof-gap", "thmb1-constant": "imprecision", "thm41-slip": "imprecision"}
    step = next(r for r in recs if r["id"] == "thmb1-step")
    assert step["severity_links"] == ["thmb1-conclusion"] and "still holds" in step["severity_reason"]
    ranked = [r["id"] for r in ranked_findings(recs)]
    assert ranked[0] == "thm81-conclusion" and ranked.index("thm81-step3") < ranked.index("thmb1-step")
    roll = rollup(recs)
    assert roll["labels"]["Theorem 8.1"]["status"] == "broken"
    assert roll["labels"]["Theorem B.1"]["status"] == "stands-with-gaps"
    assert roll["labels"]["Theorem B.1"]["findings"]["proof-gap"] == ["thmb1-step"]
    assert roll["contributions"]["softmax-analysis"]["status"] == "broken"
    assert roll["contributions"]["constructions"]["findings"]["proof-gap"] == ["thmb1-step"]


def test_a_rollup_says_what_it_weighs():
    # A break by a fit is "contradicted", by a proof "broken"; a result held only by analogues of ours
    # "stands-on-analogues"; a contribution whose core theorem stands while another result fails "partly-broken";
    # a section whose own claims stand while a result it holds fails "partly-broken", naming it.
    recs = annotate([
        _record("thm92-bound", "Theorem 9.2", "verified"),
        _record("thm92-margin", "Theorem 9.2", "contradicted-empirically", level="fitted"),
        _record("sec10-violation", "Sec. 10", "refuted", level="witness"),
        _record("sec73-grows-quick", "Sec. 7.3", "holds-empirically", level="analogue"),
        _record("sec73-full", "Sec. 7.3", "inconclusive", ran=False, level="experiment"),
        _record("thmb9-general", "Theorem B.9", "verified"),
        _record("corb6-rate", "Corollary B.6", "refuted"),
        _record("sec8-floor", "Sec. 8", "verified"),
        _record("thm81-conclusion", "Theorem 8.1", "refuted", level="certified"),
    ])
    roll = rollup(recs)
    lab, con = roll["labels"], roll["contributions"]
    assert lab["Theorem 9.2"]["status"] == "contradicted" and "fitted" in lab["Theorem 9.2"]["summary"]
    assert lab["Theorem 9.2"]["weight"] == {"level": "fitted", "claims": ["thm92-margin"], "analogues_only": False}
    assert lab["Sec. 10"]["status"] == "broken" and lab["Sec. 10"]["weight"]["level"] == "witness"
    assert lab["Sec. 7.3"]["status"] == "stands-on-analogues" and "1 of 2 claims not run" in lab["Sec. 7.3"]["summary"]
    assert lab["Sec. 8"]["status"] == "partly-broken" and "Theorem 8.1 broken" in lab["Sec. 8"]["summary"]
    assert lab["Sec. 8"]["own_status"] == "stands"
    assert con["constructions"]["status"] == "partly-broken" and con["constructions"]["core"]["status"] == "stands"
    assert "Corollary B.6 broken" in con["constructions"]["summary"]
    assert con["lower-bound"]["status"] == "contradicted"  # its core, Theorem 9.2, by a fit
    assert "Sec. 10 broken" in con["lower-bound"]["summary"]  # and what else in it fails
    assert con["lower-bound"]["breaking"] == ["sec10-violation", "thm92-margin"]  # strongest evidence first
    assert con["softmax-analysis"]["status"] == "broken"
    # the planted alternative: the same break by a proof is "broken"
    recs[1] = {**recs[1], "status": "refuted", "evidence_level": "proved"}
    assert rollup(recs)["labels"]["Theorem 9.2"]["status"] == "broken"


def test_a_finding_under_every_reading_ranks_before_a_reading_scoped_one():
    scoped = _record("eq22-scoped", "Eq. (22)", "refuted", level="proved")
    scoped["params"] = {"refuted_under": "reading(s): m = omega(d_model)"}
    whole = _record("thm81-whole", "Theorem 8.1", "refuted", level="witness")
    whole["params"] = {"refuted_under": "every reading"}
    ranked = [r["id"] for r in ranked_findings(annotate([scoped, whole]))]
    assert ranked == ["thm81-whole", "eq22-scoped"]


def test_a_result_that_did_not_run_is_undecided_not_standing():
    recs = annotate([_record("thm41-a", "Theorem 4.1", "inconclusive", ran=False),
                     _record("thm41-b", "Theorem 4.1", "verified", role="proof-step", supports=("Theorem 4.1",))])
    assert rollup(recs)["labels"]["Theorem 4.1"]["status"] == "undecided"


def test_every_label_in_use_belongs_to_a_contribution_and_nodes_are_qualified():
    assert node_of("2502.05076", "Proposition 2.1") == "2502.05076 Proposition 2.1"
    assert node_of("2509.22840+2502.05076", "Theorem 9.2") == "Theorem 9.2"
    assert node_of("2509.22840+2502.05076", "Proposition 3.5") == "2502.05076 Proposition 3.5"
    assert len({c.id for c in CONTRIBUTIONS}) == len(CONTRIBUTIONS)
    orphans = sorted({node_of(c.paper, c.ref) for c in all_claims()} - {n for c in all_claims()
                                                                         for n in [node_of(c.paper, c.ref)]
                                                                         if contributions_of(n)})
    assert orphans == []


def test_proof_steps_name_a_result_and_findings_declare_a_slip():
    """Every finding of the ledger declares its slip (class and target), so its severity comes from the one table."""
    from rgr_verify.claims.ledger import read_ledger

    ledger = read_ledger()
    undeclared = [c.id for c in all_claims() if c.id in ledger
                  and ledger[c.id].status.value in ("refuted", "contradicted-empirically") and c.slip is None]
    assert undeclared == []
    for c in all_claims():
        if c.role == "proof-step":
            assert c.supports, c.id


def test_every_claim_declares_a_role_and_proof_steps_are_not_results():
    """Every claim says what it weighs (result, proof-step or detail); a statement that presents itself as a step
    of a proof ("Proof step ...", "Step 3 of ...") is never a result."""
    import re

    claims = all_claims()
    assert [c.id for c in claims if not c.role] == []
    step = re.compile(r"^\s*(proof step|step \d|in the proof)", re.IGNORECASE)
    assert [c.id for c in claims if step.match(c.statement) and c.role == "result"] == []


def test_a_refuted_finding_ranks_before_a_contradicted_one_of_its_severity():
    # A certified refutation under a named reading before a fitted contradiction under every reading: the fit is
    # the more debatable evidence (review of 2026-11-28: corb7's fitted rates headed the list above Theorem 8.1's
    # certified refutation). Planted alternative: the old order (scope before decisiveness) puts the fit first.
    scoped = _record("thm81-certified", "Theorem 8.1", "refuted", level="certified")
    scoped["params"] = {"refuted_under": "reading(s): d_k >= C (log m)^2"}
    fitted = _record("corb7-fitted", "Corollary B.7", "contradicted-empirically", level="fitted")
    recs = annotate([fitted, scoped])
    ranked = [r["id"] for r in ranked_findings(recs)]
    assert [r["severity"] for r in recs] == ["breaks-result", "breaks-result"]
    assert ranked == ["thm81-certified", "corb7-fitted"]
    old = sorted(recs, key=lambda r: ((r.get("params") or {}).get("refuted_under", "").startswith("reading"),))
    assert [r["id"] for r in old] == ["corb7-fitted", "thm81-certified"]
    assert scope_of(scoped) == "under a named reading"
    assert scope_of(fitted) == "as stated (no other reading recorded)"
    assert scope_of({**fitted, "params": {"refuted_under": "every reading"}}) == "under every reading"
