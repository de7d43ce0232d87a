# The reader's site without a browser: the pages an audit of a few fast claims writes, their markup contract
# (ranked findings with data-claim / data-severity, blueprint nodes with data-label / data-status for every
# numbered label of v3, a page per claim and per label), that they are written whole or not at all, and the
# verdict band stamped under each plot. The browser walk is empirical/test_site_browser.py.
import html
import json
import re
from html.parser import HTMLParser

import pytest

from rgr_verify.claims import select_claims
from rgr_verify.claims.runner import run_claims
from rgr_verify.papertext import V3_LABELS, slug
from rgr_verify.report import audit_document, shown_status
from rgr_verify.report_md import value_in_words
from rgr_verify.site import write_site
from rgr_verify.site.stamp import stamp_plots

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
    assert [a["data-claim"] for a in findings] == doc["findings"]  # ranked as the report ranks them
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
    import rgr_verify.site as site

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
