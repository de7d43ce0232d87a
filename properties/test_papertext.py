"""rgr_verify.audit.papertext: labels defined in a text of the paper, their mentions, the annotated HTML view, slugs and
the claims a text change touches; ``rgr-verify paper-diff``.

Synthetic texts always run; the tests on the real v3 text read ``shared/paper/003_*.txt`` (or
``$RGR_VERIFY_PAPER_TEXT``) and skip when it is absent (CI has no copy of the paper).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from rgr_verify import cli
from rgr_verify.claims import all_claims
from rgr_verify.claims.structure import node_of
from rgr_verify.audit.papertext import (V3_LABELS, V3_LABELS_PATH, annotate, changed_tokens, claim_places,
                                  default_text_path, find_labels, label_references, paper_diff, slug)

# A small stand-in of the paper's plain-text layout (our own words): headings, statements, floats, equations.
SYNTH = """Title

1 Introduction

We recall Theorem 2.1 and Eqs. (1)-(2); see Fig. 1, Table 1 and App. A.1.

2 Results

Construction I: a toy scheme. Nothing here.

Theorem 2.1 (Toy bound). *For all n the score exceeds the threshold.*

$$a_n > b_n. \\quad (1)$$

Proof. Apply (1) and Lemma 2.2, then Section 1.

Algorithm 1 Toy Procedure

- 1: **Input:** a graph.
- 2: **Output:** a score.

Lemma 2.2 (Helper). Scores are bounded.

$$|a_n| \\leq 1 \\tag{2}$$

Figure 1: **Toy curves.** Caption text.

2.1 Details

Some details. (1) We enumerate, not an equation.

References

- A reference, 2(4):303.

A Extra material

A.1 Setup

x\ty
1\t2

Table 1: Toy table.

B Proofs

More proofs.
"""

# A statement runs to the next statement or heading (the algorithm, a float, does not cut Theorem 2.1); "References"
# closes Sec. 2; the table takes the tab-separated rows above its caption.
SYNTH_LABELS = {"Sec. 1": (3, 5), "Sec. 2": (7, 30), "Construction I": (9, 9), "Theorem 2.1": (11, 20),
                "Eq. (1)": (13, 13), "Algorithm 1": (17, 20), "Lemma 2.2": (22, 26), "Eq. (2)": (24, 24),
                "Figure 1": (26, 26), "Sec. 2.1": (28, 30), "App. A": (36, 43), "App. A.1": (38, 43),
                "Table 1": (40, 43), "App. B": (45, 47)}


class _C:
    def __init__(self, id, ref, paper="2509.22840", supports=()):
        self.id, self.ref, self.paper, self.supports = id, ref, paper, supports


CLAIMS = [_C("thm21-a", "Theorem 2.1"), _C("thm21-b", "Theorem 2.1, Step 2"), _C("lem22-a", "Lemma 2.2"),
          _C("sec2-step", "Sec. 2"), _C("eq1-x", "Eq. (1)"), _C("fig1-x", "Figure 1"),
          _C("step-for-thm", "Sec. 1", supports=("Theorem 2.1",)), _C("facts-prop21-x", "Proposition 2.1", "2502.05076"),
          _C("facts-thm", "Figure 1", "2502.05076")]


def test_find_labels_synthetic_ranges():
    assert find_labels(SYNTH) == SYNTH_LABELS


def test_find_labels_bad_input_and_empty():
    with pytest.raises(ValueError, match="str"):
        find_labels(b"Theorem 1.1")
    assert find_labels("") == {}
    # a heading out of sequence and a mid-sentence mention define nothing
    assert find_labels("1 Intro\n\n7 Not a heading\n\nAs Theorem 1.1 (ours) says.") == {"Sec. 1": (1, 5)}


def test_references_normalised():
    refs = label_references(SYNTH)
    first = [(c0, c1, lb) for ln, c0, c1, lb in refs if ln == 5]
    assert [lb for _a, _b, lb in first] == ["Theorem 2.1", "Eq. (1)", "Eq. (2)", "Figure 1", "Table 1", "App. A.1"]
    line5 = SYNTH.splitlines()[4]
    assert [line5[a:b] for a, b, _ in first] == ["Theorem 2.1", "Eqs. (1)", "(2)", "Fig. 1", "Table 1", "App. A.1"]
    labels = {(ln, lb) for ln, _a, _b, lb in refs}
    assert {(15, "Eq. (1)"), (15, "Lemma 2.2"), (15, "Sec. 1"), (13, "Eq. (1)"), (24, "Eq. (2)"), (28, "Sec. 2.1")} <= labels
    assert not any(ln in (30, 34) for ln, *_ in refs)  # an enumeration "(1) We" and a bibliography "2(4)" are not Eq.
    more = label_references("Thm. B.2, Sections 3 and 8, §5, Appendix C, App. A.1,A.3, Figures 3–4, Construction II.")
    assert [lb for *_s, lb in more] == ["Theorem B.2", "Sec. 3", "Sec. 8", "Sec. 5", "App. C", "App. A.1", "App. A.3",
                                        "Figure 3", "Figure 4", "Construction II"]
    with pytest.raises(ValueError):
        label_references(None)


def test_annotate_escapes_and_links_known_labels_only():
    text = SYNTH.replace("Nothing here.", "<script>alert('x')</script> & Theorem 2.1")
    page = annotate(text, {"Theorem 2.1": {"status": "verified", "href": "labels/theorem-2-1.html"},
                           "Eq. (9)": {"status": "refuted", "href": "labels/eq-9.html"}})
    assert "<script>" not in page and "&lt;script&gt;" in page and "&amp; " in page
    links = re.findall(r'<a class="ref status-([a-z-]+)" href="([^"]+)" title="([^"]+)">([^<]*)</a>', page)
    assert links and all(l == ("verified", "labels/theorem-2-1.html", "verified", "Theorem 2.1") for l in links)
    assert len(links) == 3  # line 5, the definition (line 11) and the inserted mention
    assert 'id="theorem-2-1"' in page and 'id="eq-1"' in page and 'id="L11"' in page
    assert "legend" in page.lower() and "http" not in page and "<link" not in page and "<style>" in page
    with pytest.raises(ValueError, match="labels_status"):
        annotate(SYNTH, {"Theorem 2.1": "verified"})
    with pytest.raises(ValueError):
        annotate(SYNTH, [])


def test_slug_examples_and_injective():
    assert slug("Theorem 4.1") == "theorem-4-1"
    assert slug("Eq. (12)") == "eq-12"
    assert slug("2502.05076 Proposition 2.1") == "2502-05076-proposition-2-1"
    assert slug("App. A.3") == "app-a-3"
    for bad in ("", "...", None, 3):
        with pytest.raises(ValueError):
            slug(bad)
    labels = set(V3_LABELS) | set(SYNTH_LABELS) | {node_of(c.paper, c.ref) for c in all_claims()}
    labels |= {s for c in all_claims() for s in c.supports}
    slugs = {slug(lb) for lb in labels}
    assert len(slugs) == len(labels)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", s) for s in slugs)


def test_paper_diff_identical_is_empty():
    assert paper_diff(SYNTH, SYNTH, CLAIMS) == []
    assert paper_diff("", "", []) == []


def _by_label(rows):
    return {r["label"]: r for r in rows}


def test_paper_diff_edited_theorem_statement():
    new = SYNTH.replace("the score exceeds the threshold", "the score exceeds twice the threshold")
    rows = _by_label(paper_diff(SYNTH, new, CLAIMS))
    assert set(rows) == {"Theorem 2.1", "Sec. 2"}
    thm = rows["Theorem 2.1"]
    assert thm == {"label": "Theorem 2.1", "old_lines": [11, 20], "new_lines": [11, 20], "change": "edited",
                   "claims": ["step-for-thm", "thm21-a", "thm21-b"], "readers": []}
    assert rows["Sec. 2"]["claims"] == ["sec2-step"]


def test_paper_diff_renumbered_removed_and_added():
    new = SYNTH.replace("Lemma 2.2", "Lemma 2.3")
    rows = _by_label(paper_diff(SYNTH, new, CLAIMS))
    assert rows["Lemma 2.2"]["change"] == "removed" and rows["Lemma 2.2"]["new_lines"] is None
    assert rows["Lemma 2.2"]["claims"] == ["lem22-a"]
    assert rows["Lemma 2.3"]["change"] == "added" and rows["Lemma 2.3"]["old_lines"] is None
    assert rows["Lemma 2.3"]["new_lines"] == [22, 26]
    assert rows["Theorem 2.1"]["change"] == "edited"  # its proof mentions the lemma
    # a deleted equation: the equation and everything holding it
    rows = _by_label(paper_diff(SYNTH, SYNTH.replace("$$a_n > b_n. \\quad (1)$$\n", ""), CLAIMS))
    assert rows["Eq. (1)"]["change"] == "removed" and rows["Eq. (1)"]["claims"] == ["eq1-x"]
    # a claim of the other paper never matches, even with the same label
    rows = _by_label(paper_diff(SYNTH, SYNTH.replace("Toy curves", "Toy lines"), CLAIMS))
    assert rows["Figure 1"]["claims"] == ["fig1-x"]


def _rec(cid, ref, statement="", stated=None, supports=(), supports_at=None):
    return {"id": cid, "ref": ref, "paper": "2509.22840", "statement": statement, "supports": supports,
            "stated": stated or {}, "supports_at": supports_at or {}}


def test_paper_diff_lists_the_readers_of_the_changed_line_first():
    text = SYNTH.replace("*For all n the score exceeds the threshold.*",
                         "*For all n the score exceeds the threshold w.p. 1 - n^{-3}.*")
    claims = [_rec("a-other", "Theorem 2.1", "Scores are finite."),
              _rec("b-formula", "Theorem 2.1", "Fails w.p. at most n^-3."),
              _rec("c-value", "Theorem 2.1", "The exponent.", {"fail_exponent": {"value": -3, "note": "Thm 2.1"}}),
              _rec("d-line", "Sec. 1", "Restated.", supports=("Theorem 2.1",), supports_at={"Theorem 2.1": "L11"}),
              _rec("e-elsewhere", "Sec. 1", "Other line.", supports=("Theorem 2.1",),
                   supports_at={"Theorem 2.1": "L15"})]
    new = text.replace("n^{-3}", "n^{-2}")
    thm = _by_label(paper_diff(text, new, claims))["Theorem 2.1"]
    assert thm["readers"] == ["b-formula", "c-value", "d-line"]
    assert thm["claims"] == ["b-formula", "c-value", "d-line", "a-other", "e-elsewhere"]
    assert changed_tokens("w.p. 1 - n^{-3}.*", "w.p. 1 - n^{-2}.*") == (["n^{-3}.*"], ["n^{-2}.*"])


def test_claim_places_read_supports_at_and_note_lines():
    assert claim_places(_rec("x", "Theorem 8.1", supports_at={"Theorem 8.1": "L434", "Eq. (1)": "L995-L999"})) == \
        [(434, 434), (995, 999)]
    assert claim_places(_rec("y", "Theorem 8.1", stated={"v": {"value": 1, "note": "Step 3 at L12-L14"}})) == [(12, 14)]
    assert claim_places(_rec("z", "Theorem 8.1", supports_at={"Theorem 8.1": "OpenReview abstract"})) == []


def test_annotate_marks_the_lines_claims_are_about():
    marks = {11: [{"claim": "thm21-a", "status": "refuted", "href": "claims/thm21-a.html", "finding": True,
                   "severity": "breaks-result"}],
             15: [{"claim": "thm21-b", "status": "verified", "href": "claims/thm21-b.html", "finding": False}]}
    page = annotate(SYNTH, {"Theorem 2.1": {"status": "broken"}}, marks=marks, back="index.html")
    assert re.search(r'<span id="L11" class="marked finding"><span class="ln">11</span><a class="mark status-refuted" '
                     r'href="claims/thm21-a.html" data-claim="thm21-a"', page)
    assert '<span id="L15" class="marked"><span class="ln">15</span><a class="mark status-verified"' in page
    assert '<span id="L12"><span class="ln">12</span>' in page and 'id="back" href="index.html"' in page
    with pytest.raises(ValueError, match="marks"):
        annotate(SYNTH, {}, marks={"L11": []})


def test_default_text_path_reads_the_environment(tmp_path, monkeypatch):
    f = tmp_path / "v3.txt"
    f.write_text("1 Intro\n", encoding="utf-8")
    monkeypatch.setenv("RGR_VERIFY_PAPER_TEXT", str(f))
    assert default_text_path() == f
    monkeypatch.setenv("RGR_VERIFY_PAPER_TEXT", str(tmp_path / "missing.txt"))
    with pytest.raises(ValueError, match="RGR_VERIFY_PAPER_TEXT"):
        default_text_path()


def test_paper_diff_bad_input():
    with pytest.raises(ValueError, match="old"):
        paper_diff(None, SYNTH, [])
    with pytest.raises(ValueError, match="claims"):
        paper_diff(SYNTH, SYNTH, [object()])


def test_committed_data_file_shape():
    data = json.loads(V3_LABELS_PATH.read_text(encoding="utf-8"))
    assert data["version"] == "v3" and data["aliases"] == {}
    rows = data["labels"]
    assert rows and all(len(v["lines"]) == 2 and 1 <= v["lines"][0] <= v["lines"][1] for v in rows.values())
    assert V3_LABELS == {k: tuple(v["lines"]) for k, v in rows.items()}


# --- the real v3 text (skipped without it) -------------------------------------------------------------------------

_V3 = Path(os.environ.get("RGR_VERIFY_PAPER_TEXT") or
           Path(__file__).resolve().parents[2] / "shared" / "paper" / "003_656413910ed800f8.txt")
needs_v3 = pytest.mark.skipif(not _V3.is_file(), reason="the paper's v3 text (shared/paper/003_*.txt or "
                              "$RGR_VERIFY_PAPER_TEXT) is not here; the project does not ship the paper's text")
NUMBERED = re.compile(r"^(Theorem|Lemma|Corollary|Proposition|Definition|Remark|Construction|Algorithm|Eq\.|Figure|"
                      r"Table|Sec\.|App\.) ")
# Claim labels of 2509.22840 that are genuinely not numbered in its text: none so far (abstracts are not numbered
# and are not matched by NUMBERED).
NOT_NUMBERED_IN_V3: dict[str, str] = {}


@pytest.fixture(scope="module")
def v3():
    return _V3.read_text(encoding="utf-8")


@needs_v3
def test_v3_labels_match_committed_file(v3):
    assert find_labels(v3) == V3_LABELS


@needs_v3
def test_every_numbered_claim_label_is_in_v3():
    missing = set()
    for c in all_claims():
        if c.paper == "2502.05076":
            continue
        for ref in (c.ref, *c.supports):
            try:
                node = node_of(c.paper, ref)
            except ValueError:
                continue  # a claim id in supports
            if NUMBERED.match(node) and node not in V3_LABELS and node not in NOT_NUMBERED_IN_V3:
                missing.add((c.id, node))
    assert not missing


@needs_v3
def test_v3_diff_identical_and_one_edit_in_theorem_41(v3):
    claims = all_claims()
    assert paper_diff(v3, str(v3), claims) == []
    first, last = V3_LABELS["Theorem 4.1"]
    lines = v3.splitlines(keepends=True)
    k = next(i for i in range(first - 1, last) if "embeddings" in lines[i])
    lines[k] = lines[k].replace("embeddings", "embedding vectors", 1)
    rows = paper_diff(v3, "".join(lines), claims)
    touched = {r["label"] for r in rows}
    assert "Theorem 4.1" in touched and touched <= {"Theorem 4.1", "Sec. 4", "Algorithm 1"}
    thm_claims = {c.id for c in claims if node_of(c.paper, c.ref) == "Theorem 4.1" or "Theorem 4.1" in c.supports}
    ids = {i for r in rows for i in r["claims"]}
    assert thm_claims <= ids and len(ids - thm_claims) < 15


@needs_v3
def test_v3_an_edit_in_a_proof_step_touches_the_theorem_not_only_the_lemma_stated_in_it(v3):
    # Theorem 8.1's proof states Lemma 8.2 in Step 2 and Lemma 8.3 in Step 3: an edit in Step 3 is an edit of the
    # theorem (and of Lemma 8.3's statement only where it falls inside it).
    lines = v3.splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith("Step 3:"))
    lines[k] = lines[k].replace("Background", "Foreground", 1)
    touched = {r["label"] for r in paper_diff(v3, "".join(lines), all_claims())}
    assert "Theorem 8.1" in touched and not {"Lemma 8.2", "Lemma 8.3"} & touched
    assert V3_LABELS["Theorem 8.1"][1] > V3_LABELS["Lemma 8.3"][1] > V3_LABELS["Lemma 8.3"][0]
    assert V3_LABELS["Lemma 8.2"][1] - V3_LABELS["Lemma 8.2"][0] < 5  # its statement and display only


def test_a_proof_owns_its_steps_and_a_lemma_stated_inside_it_only_its_text():
    text = "\n".join([
        "1 Intro", "", "Theorem 1.1 (Main). *It holds.*", "", "Proof. Two steps.", "",
        "Step 1: first.", "", "Lemma 1.2 (Aux). *A fact*", "", "$$x \\leq y$$", "", "Using Lemma 1.2 we get z.", "",
        "Lemma 1.3 (Tail). *Another.*", "", "Proof. Short. \\square", "", "Step 2: second. \\square", "",
        "Remarks on Theorem 1.1.", "", "Lemma 1.4 (Later). *Standalone.*", "", "Its text.", "", "2 Next", "", "Body."])
    got = find_labels(text)
    assert got["Theorem 1.1"] == (3, 21) and got["Lemma 1.2"] == (9, 11) and got["Lemma 1.3"] == (15, 17)
    assert got["Lemma 1.4"] == (23, 25)
    # a proof that never closes keeps the plain range (to the next statement)
    open_proof = text.replace("Step 2: second. \\square", "Step 2: second.")
    assert find_labels(open_proof)["Theorem 1.1"] == (3, 7)


@needs_v3
def test_v3_annotate_links_claim_labels(v3):
    status = {lb: {"status": "verified", "href": f"labels/{slug(lb)}.html"} for lb in ("Theorem 4.1", "Eq. (12)", "App. A.3")}
    page = annotate(v3, status)
    for lb in status:
        assert f'href="labels/{slug(lb)}.html"' in page and f'id="{slug(lb)}"' in page
    assert page.count('<a class="ref ') >= 10 and f'id="L{len(v3.splitlines())}"' in page


@needs_v3
def test_cli_exit_codes(tmp_path, capsys):
    copy = tmp_path / "v3.txt"
    copy.write_text(_V3.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "d.json"
    assert cli.main(["paper-diff", str(_V3), str(copy), "--json", str(out)]) == 0
    assert "no numbered statement changed" in capsys.readouterr().out and json.loads(out.read_text()) == []
    assert cli.main(["paper-diff", str(_V3), str(tmp_path / "absent.txt")]) == 2
    assert "NEW" in capsys.readouterr().err


def test_cli_synthetic(tmp_path, capsys):
    old, new, binary = tmp_path / "old.txt", tmp_path / "new.txt", tmp_path / "bin.txt"
    old.write_text(SYNTH, encoding="utf-8")
    new.write_text(SYNTH.replace("Scores are bounded", "Scores are small"), encoding="utf-8")
    binary.write_bytes(b"\xff\xfe\x00bad")
    assert cli.main(["paper-diff", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "Lemma 2.2 (old lines 22-26 -> new lines 22-26, edited)" in out and "labels touched" in out
    assert cli.main(["paper-diff", str(tmp_path / "nope.txt"), str(new)]) == 2
    assert "OLD" in capsys.readouterr().err
    assert cli.main(["paper-diff", str(old), str(binary)]) == 2
    assert "UTF-8" in capsys.readouterr().err
    assert cli.main(["paper-diff", str(old), str(old), "--json", str(tmp_path / "no" / "d.json")]) == 2


@needs_v3
def test_v3_failure_probability_edit_names_its_readers_first(v3, tmp_path, capsys):
    # issue 40: a one-token edit of Theorem 8.1's failure probability lists the claims that read that value first
    first, _last = V3_LABELS["Theorem 8.1"]
    lines = v3.splitlines(keepends=True)
    assert "m^{-3}" in lines[first - 1]
    lines[first - 1] = lines[first - 1].replace("m^{-3}", "m^{-2}", 1)
    new = "".join(lines)
    thm = {r["label"]: r for r in paper_diff(v3, new, all_claims())}["Theorem 8.1"]
    assert {"thm81-sym-failure-probability", "eq16-sym-union-bound"} <= set(thm["readers"])
    assert len(thm["readers"]) <= 4 < len(thm["claims"])
    assert thm["claims"][:len(thm["readers"])] == thm["readers"]
    f = tmp_path / "v3-edited.txt"
    f.write_text(new, encoding="utf-8")
    assert cli.main(["paper-diff", str(_V3), str(f)]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("Theorem 8.1 "))
    assert "read the changed text: " in line and line.index("thm81-sym-failure-probability") < \
        line.index("the rest of the label")
