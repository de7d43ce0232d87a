# One standard of judgment: severity from one table (slip class x target), identical slips with identical severities,
# rollups that break a contribution only through its core results, and one mapping from a sub-verdict to a reading's
# outcome.
import re
from pathlib import Path

import pytest

from rgr_verify.claims import all_claims
from rgr_verify.claims.base import SEVERITIES, Status, Verdict
from rgr_verify.claims.ledger import read_ledger
from rgr_verify.claims.standards import SEVERITY_TABLE, SLIP_CLASSES, SLIP_TARGETS, Slip, severity_for
from rgr_verify.claims.structure import annotate, rollup
from rgr_verify.claims.tools import FAILS, HOLDS, NOT_TESTED, outcome_word

_ROOT = Path(__file__).resolve().parents[1]
_FINDINGS = ("refuted", "contradicted-empirically")

# Pairs the review of 2026-11-28 (section 1) names as the same slip: they must carry the same class, so the same
# severity.
SAME_SLIP = [
    ("sec1-sym-intro-general-graphs-log", "corb10-sym-theta-log-m-prime"),
    ("thm81-sym-failure-probability", "thmb1-sym-union-constant"),
    ("sec9-sym-binomial-rate-equivalence", "corb10-sym-theta-log-m-prime"),
    ("def91-constructions-normalised-margin", "constr1-normalised-margin-26"),
    ("corb7-sym-block-conditions", "corb6-sym-hypotheses"),  # Theorem B.5 applied beyond gamma <= c_3 / log m
]


def _findings():
    ledger = read_ledger()
    return [c for c in all_claims() if c.id in ledger and ledger[c.id].status.value in _FINDINGS]


def test_the_table_covers_every_pair_and_nothing_else():
    assert set(SEVERITY_TABLE) == {(c, t) for c in SLIP_CLASSES for t in SLIP_TARGETS}
    assert set(SEVERITY_TABLE.values()) <= set(SEVERITIES)
    with pytest.raises(ValueError, match="no severity for slip class"):
        severity_for("typo", "result")


def test_every_finding_declares_a_slip_and_its_severity_is_the_tables():
    findings = _findings()
    assert findings, "the ledger has findings"
    assert [c.id for c in findings if c.slip is None] == []
    for c in findings:
        assert c.slip.severity == SEVERITY_TABLE[(c.slip.kind, c.slip.target)]


def test_identical_slips_get_identical_severities():
    by_id = {c.id: c for c in all_claims()}
    for a, b in SAME_SLIP:
        assert by_id[a].slip.kind == by_id[b].slip.kind, (a, b)
        assert by_id[a].slip.severity == by_id[b].slip.severity, (a, b)


def _rec(cid, ref, status, slip=None, role="result", level="proved"):
    return {"id": cid, "paper": "2509.22840", "ref": ref, "status": status, "ran": True, "role": role,
            "supports": [], "evidence_level": level, "provenance": "paper",
            "slip": Slip(*slip).as_record() if slip else None}


def test_a_tightness_gap_leaves_the_capacity_law_standing_with_gaps():
    # The case of the review: a fitted finding that the constructions do not meet Theorem 9.2's hypothesis is a gap
    # in the "bounds match" argument, not a break of Theorem 9.2 or of the headline law.
    base = [_rec("thm41-a", "Theorem 4.1", "verified"), _rec("thm92-a", "Theorem 9.2", "verified")]
    gap = _rec("def91-x", "Theorem 9.2", "contradicted-empirically", level="fitted",
               slip=("tightness-gap", "comparison", "the constructions' margin is below (26)'s"))
    con = rollup(annotate(base + [gap]))["contributions"]
    assert con["capacity-law"]["status"] == "stands-with-gaps"
    assert con["lower-bound"]["status"] == "stands-with-gaps"
    # the planted alternative: the same finding declared as a false conclusion of Theorem 9.2 contradicts both
    broken = {**gap, "slip": Slip("false-for-every-constant", "result", "planted").as_record()}
    con = rollup(annotate(base + [broken]))["contributions"]
    assert con["capacity-law"]["status"] == "contradicted" and con["lower-bound"]["status"] == "contradicted"


def test_a_break_outside_the_core_is_partly_broken_not_broken():
    recs = [_rec("thm41-a", "Theorem 4.1", "verified"), _rec("thmb9-a", "Theorem B.9", "verified"),
            _rec("corb6-a", "Corollary B.6", "refuted",
                 slip=("false-for-every-constant", "result", "the rate fails for every constant"))]
    assert rollup(annotate(recs))["contributions"]["constructions"]["status"] == "partly-broken"


def test_a_reading_outcome_follows_the_sub_verdict():
    """The bug of the review: a sub-verdict that holds empirically was recorded as "fails"."""
    assert outcome_word(Verdict("holds-empirically", evidence_level="sampled")) == HOLDS
    assert outcome_word(Verdict("verified", evidence_level="proved")) == HOLDS
    assert outcome_word(Verdict("refuted", evidence_level="proved")) == FAILS
    assert outcome_word(Verdict("contradicted-empirically", evidence_level="fitted")) == FAILS
    assert outcome_word(Verdict(Status.INCONCLUSIVE)) == NOT_TESTED


def test_no_reading_outcome_is_written_by_hand_from_verified_alone():
    pattern = re.compile(r"HOLDS if \w+\.status is Status\.VERIFIED else FAILS")
    hits = [str(p.relative_to(_ROOT)) for p in (_ROOT / "rgr_verify").rglob("*.py") if pattern.search(p.read_text())]
    assert hits == []


def test_the_probability_standard_passes_and_fails_alike():
    from rgr_verify.claims.standards.probability import decide_failure_rate

    # 0 of 20 cannot certify m^-3 at m = 512: inconclusive with the rate it does certify (~0.5), not a pass
    d = decide_failure_rate(0, 20, 512.0 ** -3)
    assert d["status"] == "inconclusive" and 0.4 < d["upper"] < 0.6 and d["resolution"]["certified_rate"] == d["upper"]
    assert decide_failure_rate(0, 3000, 1e-2)["status"] == "verified"  # inside: certified
    assert decide_failure_rate(3, 3, 1e-6)["status"] == "refuted"  # wholly outside
    assert decide_failure_rate(1, 20, 1e-2)["status"] == "inconclusive"  # straddles
    with pytest.raises(ValueError, match="rate must be in"):
        decide_failure_rate(0, 20, 0.0)


def test_no_monte_carlo_pass_on_a_sample_that_cannot_resolve_it():
    """No check may pass a probability bound on zero failures alone (the removed clean_holds route)."""
    hits = [str(p.relative_to(_ROOT)) for p in (_ROOT / "rgr_verify").rglob("*.py") if "clean_holds" in p.read_text()]
    assert hits == []
