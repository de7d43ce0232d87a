# The paper field of claims: per-paper refs, --paper selection, reports and summary grouped by paper.
import json

import pytest

from rgr_verify.claims import Claim, Kind, Status, Tier, Verdict, all_claims, run_claim, select_claims
from rgr_verify.claims.base import FACTS_PAPER, PAPERS, RGR_PAPER, paper_parts
from rgr_verify.cli import main
from rgr_verify.pytest_plugin import records_by_paper
from rgr_verify.audit.report import audit_document, render_table
from rgr_verify.audit.report_md import render_markdown


def _verified(ctx):
    return Verdict(Status.VERIFIED, paper_value="p", measured_value="m")


_BASE = dict(statement="s", kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=_verified)


def test_default_paper_is_rgr_and_no_existing_claim_changed_paper():
    assert Claim(id="x-y", ref="Sec. 3", **_BASE).paper == RGR_PAPER
    papers = {c.paper for c in all_claims()}
    assert papers <= {RGR_PAPER, FACTS_PAPER, f"{RGR_PAPER}+{FACTS_PAPER}"}
    assert all(c.paper == RGR_PAPER for c in all_claims() if not c.id.startswith(("facts-", "xpaper-")))


def test_refs_are_validated_per_paper():
    Claim(id="x-y", ref="Example 2.4", paper=FACTS_PAPER, **_BASE)
    Claim(id="x-y", ref="Theorem 9.2", paper=f"{RGR_PAPER}+{FACTS_PAPER}", **_BASE)
    with pytest.raises(ValueError, match="paper label"):
        Claim(id="x-y", ref="Example 2.4", **_BASE)  # not an RGR label
    with pytest.raises(ValueError, match="paper label"):
        Claim(id="x-y", ref="Theorem 4.1", paper=FACTS_PAPER, **_BASE)
    with pytest.raises(ValueError, match="paper"):
        Claim(id="x-y", ref="Sec. 3", paper="1234.5678", **_BASE)
    assert paper_parts(f"{RGR_PAPER}+{FACTS_PAPER}") == (RGR_PAPER, FACTS_PAPER)


def test_select_by_paper_includes_cross_paper_claims():
    facts = select_claims(paper=FACTS_PAPER)
    ids = {c.id for c in facts}
    assert any(i.startswith("facts-") for i in ids) and any(i.startswith("xpaper-") for i in ids)
    assert not any(c.paper == RGR_PAPER for c in facts)
    assert len([c for c in facts if c.paper == FACTS_PAPER]) >= 15
    with pytest.raises(ValueError, match="paper"):
        select_claims(paper="nope")


def test_claims_command_paper_option(capsys):
    assert main(["claims", "--paper", FACTS_PAPER, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(FACTS_PAPER in r["paper"] for r in rows)
    assert main(["claims", "--paper", FACTS_PAPER]) == 0
    text = capsys.readouterr().out
    assert "Paying Attention to Facts" in text and "Cross-paper claims" in text
    assert main(["claims", "--paper", "0000.00000"]) == 2


def test_report_groups_by_paper():
    claims = [Claim(id="x-rgr", ref="Sec. 3", **_BASE), Claim(id="x-facts", ref="Figure 4", paper=FACTS_PAPER, **_BASE)]
    results = [run_claim(c, root_seed=1, device="cpu") for c in claims]
    doc = audit_document(results, tier="quick", root_seed=1, device="cpu")
    assert [r["paper"] for r in doc["claims"]] == [RGR_PAPER, FACTS_PAPER]
    assert set(doc["papers"]) == {RGR_PAPER, FACTS_PAPER} and doc["papers"][FACTS_PAPER] == PAPERS[FACTS_PAPER]
    assert doc["summary"]["by_paper"] == {RGR_PAPER: {"verified": 1}, FACTS_PAPER: {"verified": 1}}
    table = render_table(doc)
    assert f"== {PAPERS[FACTS_PAPER]}" in table and table.index("x-rgr") < table.index("x-facts")
    md = render_markdown(doc)
    assert f"### {PAPERS[FACTS_PAPER]}" in md and "Papers:" in md


def test_pytest_summary_groups_by_paper():
    recs = [{"id": "facts-prop21-slice-bound", "status": "verified", "ran": True},
            {"id": "sec3-linear-aggregation-equals-single-head", "status": "verified", "ran": True}]
    groups = records_by_paper(recs)
    assert set(groups) == {RGR_PAPER, FACTS_PAPER}
