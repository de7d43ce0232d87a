# The reader's site without a browser: the pages an audit of a few fast claims writes, their markup contract
# (ranked findings with data-claim / data-severity, one entry per cause with data-members, blueprint nodes with
# data-label / data-status for every numbered label of v3, a page per claim and per label), that they are written
# whole or not at all, and the verdict band stamped under each plot; the glossary and the badges' tooltips, counts
# that mean what they say, claim pages titled by label and line with values as tables (no repr, no machine path,
# nothing cut without a way to see it all), the second paper on its own page, the not-run page's command and quick
# analogue. The browser walk is empirical/test_site_browser.py.
import html
import json
import re
from html.parser import HTMLParser

import pytest

from rgr_verify.claims import select_claims
from rgr_verify.claims.runner import run_claims
from rgr_verify.audit.papertext import V3_LABELS, slug
from rgr_verify.audit.report import audit_document, shown_status
from rgr_verify.audit.report_md import value_in_words
from rgr_verify.claims.base import FACTS_PAPER
from rgr_verify.audit.site import DECIDED, finding_causes, write_site
from rgr_verify.audit.site.stamp import stamp_plots
from rgr_verify.audit.site.values import clean_text, value_html

ONLY = "thmb5-sym-*,corb7-sym-*,sec3-sym-*"


@pytest.fixture(scope="module")
def doc():
    results = run_claims(select_claims(ONLY, tier="gpu"), tier="quick", device="cpu")
    return audit_document(results, tier="quick", root_seed=20250926, device="cpu")


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.items = []

    def handle_starttag(self, tag, attrs):
        self.items.append((tag, dict(attrs)))


def _elements(path):
    p = _Elements()
    p.feed(path.read_text(encoding="utf-8"))
    return p.items


def test_site_pages_and_markup(doc, tmp_path):
    index = write_site(doc, tmp_path)
    assert index == tmp_path / "index.html"
    els = _elements(index)
    findings = [a for t, a in els if t == "li" and "finding" in (a.get("class") or "").split()]
    # one entry per cause, ranked as the report ranks its first (most serious) member; every finding in one entry
    assert [a["data-claim"] for a in findings] == [g[0] for g in finding_causes(doc["claims"], doc["findings"])]
    assert sorted(i for a in findings for i in (a.get("data-members") or a["data-claim"]).split()) == \
        sorted(doc["findings"])
    ranks = ("breaks-result", "proof-gap", "imprecision")  # ranked worst first: the first has the worst severity
    assert findings and findings[0]["data-severity"] == min((a["data-severity"] for a in findings), key=ranks.index)
    nodes = {a["data-label"]: a["data-status"] for t, a in els if t == "g" and "data-label" in a}
    assert set(V3_LABELS) <= set(nodes)  # a node for every numbered label of the paper
    assert set(doc["rollup"]["labels"]) <= set(nodes)
    assert {nodes[lab] for lab in V3_LABELS if lab not in doc["rollup"]["labels"]} == {"no-claims"}
    for r in doc["claims"]:
        page = tmp_path / "claims" / f"{r['id']}.html"
        text = html.unescape(page.read_text(encoding="utf-8"))
        assert r["id"] in text and f"--only '{r['id']}'" in text  # the command that re-runs it
        assert any(t == "a" and a.get("id") == "back" for t, a in _elements(page))
    for lab in V3_LABELS:
        assert (tmp_path / "labels" / f"{slug(lab)}.html").is_file()
    # every local link of the index resolves
    for t, a in els:
        href = a.get("href") or a.get("src")
        if t in ("a", "img") and href and not re.match(r"^(https?:|#)", href):
            assert (tmp_path / href.split("#")[0]).is_file(), href


def test_site_rejects_a_non_audit_and_leaves_nothing_behind(tmp_path):
    with pytest.raises(ValueError, match="audit document"):
        write_site({"claims": []}, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_site_failure_midway_keeps_the_previous_site(doc, tmp_path, monkeypatch):
    write_site(doc, tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    import rgr_verify.audit.site as site

    def broken(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(site, "_headline", broken)  # raised while the index renders, inside the staging folder
    with pytest.raises(RuntimeError):
        write_site(doc, tmp_path)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # no staging folder left


def test_plots_get_the_verdict_band_once(tmp_path):
    from PIL import Image

    Image.new("RGB", (300, 200), "white").save(tmp_path / "a.png")
    rec = {"id": "x-claim", "status": "refuted", "ran": True, "evidence_level": "proved",
           "paper_value": {"slope": 1.19}, "artefacts": ["a.png", "missing.png"]}
    done = stamp_plots([rec], tmp_path, shown_status=shown_status, in_words=value_in_words)
    assert done == [tmp_path / "a.png"]
    with Image.open(tmp_path / "a.png") as img:
        assert img.size[0] == 300 and img.size[1] > 200
    assert stamp_plots([rec], tmp_path, shown_status=shown_status, in_words=value_in_words) == []  # once only
    assert json.dumps(rec)  # the record is untouched


REPR = re.compile(r"\{'[^']+': |\[\d+\.\d{6,}")
CUT = re.compile(r"\(\d+ (?:more|entries)\)|\[\d+ items\]")
MACHINE_PATH = re.compile(r"(?<![\w.])/(?:tmp|home|root)/|site-packages")


class _Text(HTMLParser):
    """The visible text of a page, and the part of it outside <details> (a cut value must have its whole there)."""

    def __init__(self):
        super().__init__()
        self.all, self.outside, self.depth, self.skip, self.badges = [], [], 0, 0, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.depth += tag == "details"
        self.skip += tag in ("script", "style")
        if tag == "span" and "badge" in (a.get("class") or "").split():
            self.badges.append(a)

    def handle_endtag(self, tag):
        self.depth -= tag == "details"
        self.skip -= tag in ("script", "style")

    def handle_data(self, data):
        if not self.skip:
            self.all.append(data)
            if not self.depth:
                self.outside.append(data)


def _text(path):
    p = _Text()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_values_are_small_tables_with_rounded_numbers():
    out = str(value_html({"slope": 1.1912345678, "interval": [0.0665, 0.0606123456789], "cells": {"h=4": 0.58213}}))
    assert "<table" in out and "1.191" in out and "0.06061" in out and "0.5821" in out
    assert not REPR.search(out) and "{" not in out
    many = str(value_html(list(range(40)), max_items=5))
    assert "<details" in many and ", 39<" in many  # the whole list behind <details>, never "(N more)"
    rows = str(value_html([{"a": i, "b": i / 3} for i in range(30)], max_rows=4))
    assert rows.count("<details") == 1 and "0.3333" in rows and ">29<" in rows
    with pytest.raises(ValueError):
        value_html(1, max_rows=0)


def test_free_text_loses_reprs_and_machine_paths():
    text = clean_text("minimum at the corner {'m': '2', 'gamma': '3'} equals 0; source (/tmp/venv.x/lib/python3.11/"
                      "site-packages/gt_model/model); rate 9.313225746154785e-10, mean [0.123456789, 2.5]")
    assert "m = 2, gamma = 3" in text and "gt_model/model" in text and "9.313×10^-10" in text and "0.1235" in text
    assert not REPR.search(text) and not MACHINE_PATH.search(text)
    assert clean_text("a set {x : x > 0} and [1, 2]") == "a set {x : x > 0} and [1, 2]"  # not a repr: unchanged


def test_site_words_a_referee_reads(doc, tmp_path):
    write_site(doc, tmp_path)
    index = tmp_path / "index.html"
    page = index.read_text(encoding="utf-8")
    els = _elements(index)
    assert any(a.get("id") == "glossary" for t, a in els)
    assert any(t == "a" and a.get("class") == "skip" and a.get("href") == "#main" for t, a in els)
    assert any(t == "main" and a.get("id") == "main" for t, a in els)
    # decided = a verdict either way, never inconclusive or not run
    decided = sum(r["ran"] and r["status"] in DECIDED for r in doc["claims"])
    assert f"{len(doc['claims'])} claims: {decided} decided" in html.unescape(page)
    pages = [index, *sorted((tmp_path / "claims").glob("*.html")), *sorted((tmp_path / "labels").glob("*.html"))]
    for path in pages:
        t = _text(path)
        text = " ".join(t.all)
        assert not REPR.search(text), f"{path.name}: a raw repr: {REPR.search(text).group(0)!r}"
        assert not CUT.search(" ".join(t.outside)), f"{path.name}: a value cut without a way to the whole"
        assert not MACHINE_PATH.search(text), f"{path.name}: a machine path"
        assert all(b.get("title") for b in t.badges), f"{path.name}: a badge without a tooltip"
        assert any(t_ == "a" and "#glossary" in (a.get("href") or "") for t_, a in _elements(path))
    # a claim page is titled by its label and line, then a one-line statement
    r = next(r for r in doc["claims"] if r["ref"].startswith("Theorem B.5"))
    h1 = re.search(r"<h1>(.*?)</h1>", (tmp_path / "claims" / f"{r['id']}.html").read_text()).group(1)
    assert re.match(r"Theorem B\.5 \(l\. \d+\): \S", html.unescape(h1)), h1


def test_second_paper_has_its_own_page_and_not_run_pages_say_how(doc, tmp_path):
    records = [dict(r) for r in doc["claims"]]
    moved = next(r for r in records if r["id"] in doc["findings"])
    moved["paper"] = FACTS_PAPER
    idle = next(r for r in records if r["id"] not in doc["findings"] and r is not moved)
    idle.update(ran=False, tier="gpu", paper_value=None)
    write_site({**doc, "claims": records}, tmp_path)
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    facts = (tmp_path / "facts.html").read_text(encoding="utf-8")
    assert f'id="finding-{moved["id"]}"' in facts and f'id="finding-{moved["id"]}"' not in index
    assert "2502.05076" not in re.search(r"<h1>(.*?)</h1>", index).group(1)
    assert 'href="facts.html"' in index
    assert f'href="claims/{moved["id"]}.html"' in index  # still reachable (and filterable) from the index
    page = html.unescape((tmp_path / "claims" / f"{idle['id']}.html").read_text(encoding="utf-8"))
    assert f"--tier gpu --only '{idle['id']}'" in page and "not run in this audit" in page
    for path in [tmp_path / "index.html", tmp_path / "facts.html", tmp_path / "claims" / f"{idle['id']}.html"]:
        for t, a in _elements(path):
            href = a.get("href") or a.get("src")
            if t in ("a", "img") and href and not re.match(r"^(https?:|#)", href):
                assert (path.parent / href.split("#")[0]).is_file(), (path.name, href)
    # a site written again without the second paper drops its page
    write_site(doc, tmp_path)
    assert not (tmp_path / "facts.html").exists()


def test_findings_with_one_cause_share_one_entry(doc, tmp_path):
    """Two findings that record one slip (class, target, labels: structure.cause_of) are one entry of the index,
    under the more serious one, listing both (each linked, each with its #finding-<id> anchor); the counts say
    findings and causes."""
    records = [dict(r) for r in doc["claims"]]
    by_id = {r["id"]: r for r in records}
    first, second = doc["findings"][:2]
    by_id[second].update(slip=dict(by_id[first]["slip"]), nodes=list(by_id[first]["nodes"]),
                         status="contradicted-empirically", evidence_level="fitted")
    assert finding_causes(records, doc["findings"])[0] == [first, second]
    assert len(finding_causes(records, doc["findings"])) == len(doc["findings"]) - 1
    with pytest.raises(ValueError, match="no claim record"):
        finding_causes(records, ["no-such-claim"])
    write_site({**doc, "claims": records}, tmp_path)
    index = tmp_path / "index.html"
    entries = [a for t, a in _elements(index) if t == "li" and "finding" in (a.get("class") or "").split()]
    assert entries[0]["data-claim"] == first and entries[0]["data-members"] == f"{first} {second}"
    assert second not in [a["data-claim"] for a in entries]
    assert len(entries) == len(doc["findings"]) - 1
    # the filters find the entry by the second member's status and level too
    assert "contradicted-empirically" in entries[0]["data-any-status"].split()
    assert "fitted" in entries[0]["data-any-level"].split()
    assert second in entries[0]["data-text"]
    page = html.unescape(index.read_text(encoding="utf-8"))
    n, k = len(doc["findings"]), len(doc["findings"]) - 1
    assert f"{n} findings ({k} causes)" in page and f"Findings, ranked ({n} findings, {k} causes)" in page
    anchors = {a.get("id"): a.get("href") for t, a in _elements(index) if t == "a" and a.get("id")}
    assert anchors.get(f"finding-{second}") == f"claims/{second}.html"  # its claim page's back link lands here


def test_index_marks_scope_premises_post_hoc_and_pages_say_what_did_not_run(doc, tmp_path, monkeypatch):
    """Second review's two-minute items (2026-11-28): each finding shows its scope, a finding on a premise of ours
    says so, a post-hoc rule is marked on the index; a not-run claim shows no evidence-level badge, no post-hoc badge
    and no empty 'How it was checked'; a sampled check's (trial, record) witness is one labelled table; the counts
    say what the second paper's claims are; repeated texts of a measured value are counted, not repeated."""
    records = [dict(r) for r in doc["claims"]]
    by_id = {r["id"]: r for r in records}
    first, second = doc["findings"][:2]
    by_id[first].update(provenance="ours", post_hoc={"reason": "rule revised after its evidence", "evidence": "x"},
                        witness=[3, {"m": 64, "holds": False}], measured_value=["2/2 failures"] * 5 + ["1/1"])
    by_id[first]["params"] = {k: v for k, v in (by_id[first].get("params") or {}).items() if k != "refuted_under"}
    by_id[second]["params"] = {**(by_id[second].get("params") or {}), "refuted_under": "reading(s): c > 1"}
    idle = next(r for r in records if r["id"] not in doc["findings"])
    idle.update(ran=False, tier="gpu", evidence="", post_hoc={"reason": "rule revised", "evidence": "y"})
    moved = next(r for r in records if r["id"] not in doc["findings"] and r is not idle)
    moved["paper"] = FACTS_PAPER
    import rgr_verify.audit.site as site_module

    monkeypatch.setattr(site_module, "fed_claim_ids", lambda recs, reg: {first, second})  # as if evidence fed them
    write_site({**doc, "claims": records}, tmp_path)
    index = html.unescape((tmp_path / "index.html").read_text(encoding="utf-8"))
    entry = re.search(rf'<li id="finding-{re.escape(first)}".*?</li>', index, re.S).group(0)
    assert "as stated (no other reading recorded)" in entry and "our premise, not the paper's statement" in entry
    assert ">post hoc<" in entry and "2/2 failures (x5)" in entry and entry.count("2/2 failures") == 1
    other = re.search(rf'<li id="finding-{re.escape(second)}".*?</li>', index, re.S).group(0)
    assert "under a named reading" in other and "our premise" not in other and ">post hoc<" not in other
    assert "the audit's other 1 are the second paper's" in index
    assert "Post hoc: 1 of the 2 claims that committed evidence feeds have a rule written after it" in index
    page = html.unescape((tmp_path / "claims" / f"{first}.html").read_text(encoding="utf-8"))
    witness = re.search(r"<dt>Witness</dt><dd>(.*?)</dd>", page, re.S).group(1)
    assert "trial" in witness and ">3<" in witness
    idle_page = html.unescape((tmp_path / "claims" / f"{idle['id']}.html").read_text(encoding="utf-8"))
    badges = re.search(r"<p><span class=\"badge.*?</p>", idle_page, re.S).group(0)
    assert "no evidence yet" in badges and ">none<" not in badges and "post hoc" not in badges
    assert "not checked in this audit" in idle_page
    assert "derived from the audit's root seed" in page


def test_site_bundles_katex_for_the_annotated_paper(doc, tmp_path):
    # The annotated paper's formulas render offline: the site carries KaTeX (its script, auto-render, the CSS and
    # every font the CSS names) when it has paper.html, and nothing of it otherwise; the page loads it relatively.
    from rgr_verify.audit.papertext import annotate

    write_site(doc, tmp_path / "without")
    assert not (tmp_path / "without" / "katex").exists()
    write_site(doc, tmp_path / "with", paper_html=True)
    k = tmp_path / "with" / "katex"
    assert (k / "katex.min.js").is_file() and (k / "contrib" / "auto-render.min.js").is_file()
    fonts = re.findall(r"url\(([^)]+)\)", (k / "katex.min.css").read_text())
    assert fonts and all((k / f).is_file() for f in fonts), [f for f in fonts if not (k / f).is_file()]
    page = annotate("Let $x$ be.\n", {}, math="katex/")
    assert 'src="katex/katex.min.js"' in page and 'href="katex/katex.min.css"' in page
    assert 'src="katex/' not in annotate("Let $x$ be.\n", {})
    with pytest.raises(ValueError, match="math must be"):
        annotate("x\n", {}, math=3)


def test_a_claim_page_shows_its_seeds_batches_and_departures(doc, tmp_path):
    # Issue 41: a claim page shows the seeds and batches of the evidence that feeds it, the seeds added after a first
    # verdict, the batches run before its rules were recorded, and where the sweep departs from the paper's protocol.
    records = [dict(r) for r in doc["claims"]]
    rec = records[0]
    rec["evidence_batches"] = [{"evidence": "planted-full", "seeds": list(range(10)), "rules_date": "2026-11-23",
                                "deviations": ["5 seeds where the paper implies 10"],
                                "batches": [{"date": "2026-11-20", "commit": "a" * 40, "clean": True,
                                             "commands": ["c1"], "runs": 30, "seeds": [0, 1, 2]},
                                            {"date": "2026-11-26", "commit": "b" * 40, "clean": False,
                                             "commands": ["c2"], "runs": 70, "seeds": list(range(3, 10)),
                                             "after": "seeds 3-9 after an inconclusive verdict"}]}]
    write_site({**doc, "claims": records}, tmp_path)
    page = html.unescape((tmp_path / "claims" / f"{rec['id']}.html").read_text(encoding="utf-8"))
    ev = re.search(r"<dt>Evidence <code>planted-full</code></dt><dd>(.*?)</dd>", page, re.S).group(1)
    assert "10 seeds (0-9) in 2 batches; rules recorded 2026-11-23" in ev
    assert "departs from the paper's protocol</strong>: 5 seeds where the paper implies 10" in ev
    rows = re.findall(r"<tr><td>(\d)(.*?)</tr>", ev, re.S)
    assert len(rows) == 2 and "before its rules" in rows[0][1] and "before its rules" not in rows[1][1]
    assert "clean tree" in rows[0][1] and "uncommitted changes" in rows[1][1]
    assert "seeds 3-9 after an inconclusive verdict" in rows[1][1] and "3-9" in rows[1][1]


def test_the_coverage_page_lists_sentences_and_numbered_results(doc, tmp_path):
    # Issue 41: coverage.html shows the map's sentences (with their claims, reasons, and the sweeps that depart from
    # the paper's protocol) and the theory sections' numbered results with the claims that bear on them.
    from rgr_verify.commands.audit import coverage_of, results_of

    rows = coverage_of(doc, None)
    results = results_of(doc, None) + [{"label": "Theorem 99.1", "line": 5000, "state": "uncovered", "via": [],
                                        "claims": []}]
    write_site(doc, tmp_path, coverage=rows, results=results)
    page = html.unescape((tmp_path / "coverage.html").read_text(encoding="utf-8"))
    assert "The theory sections: numbered results" in page and "1 of 26 have none" in page
    planted = re.search(r'<tr id="Theorem-99.1" data-state="uncovered">(.*?)</tr>', page, re.S).group(1)
    assert "<strong>uncovered</strong>" in planted
    thm = re.search(r'<tr id="Theorem-4.1" data-state="covered">(.*?)</tr>', page, re.S).group(1)
    assert "alg1-dk-budget" in thm and "(ledger)" in thm  # not run in this audit: the ledger's status
    ran = next(r for r in results if any(c in {x["id"] for x in doc["claims"]} for c, _ in r["claims"]))
    row = re.search(rf'<tr id="{re.escape(ran["label"].replace(" ", "-"))}" data-state="covered">(.*?)</tr>',
                    page, re.S).group(1)
    assert 'href="claims/' in row
    assert "via Theorem 4.1:" in re.search(r'<tr id="Construction-II".*?</tr>', page, re.S).group(0)
    assert "departs from the paper's protocol" in page and "a3-regular-full" in page
