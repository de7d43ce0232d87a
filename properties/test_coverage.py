# The coverage map of the paper's experimental sentences (issue 41): the sentences are found in the text, the
# data maps each to the claims that decide it or to a reason, docs/coverage.md is generated from them, a sentence
# neither covered nor given a reason fails, and paper-diff names result sentences a new version adds. The sentences
# in these tests are ours; the paper's are read only from the user's copy of the text.
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rgr_verify.claims import all_claims
from rgr_verify.commands.coverage import deviations, result_rows, statuses
from rgr_verify.audit.coverage import (REASON_KINDS, coverage_markdown, coverage_rows, load_coverage, new_uncovered,
                                 recorded_rows, result_sentences, split_sentences, states_result, uncovered)
from rgr_verify.audit.papertext import default_text_path

ROOT = Path(__file__).resolve().parents[1]


def test_sentences_split_outside_formulas_and_abbreviations():
    line = ("A single head fails at $D_K = 8. Then$ it recovers (Fig. 3 shows it). More heads help, e.g. h = 4. "
            "The gain is 0.5 on average!")
    assert split_sentences(line) == ["A single head fails at $D_K = 8. Then$ it recovers (Fig. 3 shows it).",
                                     "More heads help, e.g. h = 4.", "The gain is 0.5 on average!"]


def test_a_result_sentence_has_a_word_of_outcome_and_is_not_only_protocol():
    assert states_result("The threshold shifts right as density grows.")
    assert states_result("Multiple heads outperform a single head at every $D_K$.")
    assert not states_result("We train each model for 100 steps with AdamW.")
    assert not states_result("The embeddings are drawn from $\\mathcal{N}(0, 1)$.")
    # protocol at the start, an outcome after the first clause: a result
    assert states_result("We train each model with AdamW; the loss fails to decrease for h = 1.")


def test_the_coverage_data_is_well_formed_and_names_paper_scale_claims():
    data = load_coverage()
    ids = {c.id for c in all_claims()}
    assert len(data["sentences"]) >= 100
    for key, e in data["sentences"].items():
        for cid in e.get("claims", []):
            assert cid in ids, (key, cid)
            assert not cid.endswith("-quick"), f"{key}: a quick analogue decides nothing at the paper's scale ({cid})"
        if "reason" in e:
            assert e["reason"]["kind"] in REASON_KINDS and len(e["reason"]["why"]) <= 240, key
        assert e.get("label"), key
    # the map is generated, not typed: docs/coverage.md equals what the data and the ledger give
    rows = recorded_rows(data, statuses(), deviations())
    assert (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8") == coverage_markdown(rows,
                                                                                           result_rows(None, data))
    # issue 41, item 4: the sentences resting on a sweep that departs from the paper's protocol say so
    devs = deviations()
    assert any(ev == "a3-regular-full" and "5 seeds" in how for ev, how in devs["appa3-edges-not-vertices-set-threshold"])
    a3 = [r for r in rows if any(c in devs and c.startswith("appa3-") for c, _ in r.get("claims", []))]
    assert a3 and all(any(ev == "a3-regular-full" and "5 seeds" in how for ev, how in r["deviations"]) for r in a3)


def test_malformed_coverage_entries_name_their_key(tmp_path):
    good = {"paper": "2509.22840", "sentences": {"L1.s0": {"fingerprint": "ab", "label": "Sec. 6",
                                                           "claims": ["fig3-capacity-law-form"]}}}
    path = tmp_path / "c.json"
    for bad, match in [({"L1.s0": {"fingerprint": "ab", "label": "x"}}, "either 'claims' or 'reason'"),
                       ({"L1": {"fingerprint": "ab", "label": "x", "claims": ["a"]}}, "keyed L<line>"),
                       ({"L1.s0": {"fingerprint": "ab", "label": "x", "reason": {"kind": "nope", "why": "w"}}},
                        "'reason' must be"),
                       ({"L1.s0": {"fingerprint": "ab", "label": "x", "claims": []}}, "non-empty list")]:
        path.write_text(json.dumps({**good, "sentences": bad}))
        with pytest.raises(ValueError, match=match):
            load_coverage(path)
    path.write_text(json.dumps(good))
    assert load_coverage(path)["sentences"]["L1.s0"]["claims"] == ["fig3-capacity-law-form"]


def _toy_text():
    # A toy paper laid out like the v3 text (numbered sections, so that find_labels places Sec. 6): a Sec. 6 with
    # two result sentences and a protocol one, and a caption in Sec. 7.
    head = "\n\n".join(f"{k} Part {k}" for k in range(1, 6)).split("\n")
    return "\n".join(head + ["", "6 Experiments", "", "We train every model with AdamW. The threshold grows with m. A "
                             "single head fails at small D_K.", "", "7 Other results", "",
                             "Figure 4: Heads help more as m grows.", ""])


def test_a_sentence_neither_covered_nor_given_a_reason_is_reported(tmp_path):
    text = _toy_text()
    sents = result_sentences(text)
    assert [s.key for s in sents] == ["L13.s1", "L13.s2", "L17.s0"]
    known = {"fig3-capacity-law-form": "inconclusive"}
    data = {"sentences": {"L13.s1": {"fingerprint": sents[0].fingerprint, "label": "Sec. 6",
                                    "claims": ["fig3-capacity-law-form"]},
                          "L13.s2": {"fingerprint": sents[1].fingerprint, "label": "Sec. 6",
                                    "reason": {"kind": "interpretation", "why": "ours"}},
                          "L17.s0": {"fingerprint": sents[2].fingerprint, "label": "Figure 4",
                                    "reason": {"kind": "gap", "why": "ours"}}}}
    rows = coverage_rows(sents, data, known)
    assert [r["state"] for r in rows] == ["covered", "reason", "reason"] and uncovered(rows) == []
    # planted alternatives: a missing entry, an edited sentence, a claim the audit does not have
    del data["sentences"]["L13.s2"]
    edited = text.replace("fails at small", "fails at tiny")
    rows = coverage_rows(result_sentences(edited), data, known)
    assert [(r["key"], r["why"]) for r in uncovered(rows)] == [("L13.s2", "no entry")]
    data["sentences"]["L13.s1"]["fingerprint"] = "0" * 12
    assert [r["why"] for r in uncovered(coverage_rows(sents, data, known))][0] == \
        "the sentence changed since it was mapped"
    data["sentences"]["L13.s1"] = {"fingerprint": sents[0].fingerprint, "label": "Sec. 6", "claims": ["no-such"]}
    with pytest.raises(ValueError, match="does not have"):
        coverage_rows(sents, data, known)
    # what a new version adds, by the words and not the line: a moved sentence is known, a new one is not
    data = {"sentences": {s.key: {"fingerprint": s.fingerprint} for s in sents}}
    moved = text.replace("6 Experiments\n", "6 Experiments\n\nAn intro line.\n")
    assert new_uncovered(moved, data) == []
    added = text.replace("Figure 4: Heads", "Denser graphs shift the threshold right. Figure 4: Heads")
    assert [s.text for s in new_uncovered(added, data)] == ["Denser graphs shift the threshold right."]


@pytest.mark.skipif(default_text_path() is None, reason="the paper's text is not on this machine (the package ships "
                    "none of its sentences): the map is checked against the recorded data above")
def test_every_result_sentence_of_the_paper_is_covered_or_given_a_reason():
    text = default_text_path().read_text(encoding="utf-8")
    data = load_coverage()
    rows = coverage_rows(result_sentences(text), data, statuses())
    assert uncovered(rows) == [], [(r["key"], r["why"]) for r in uncovered(rows)]
    # and the data maps exactly these sentences: none left over from an earlier reading
    assert {r["key"] for r in rows} == set(data["sentences"])
    labels = {r["key"]: r["label"] for r in rows}
    assert all(data["sentences"][k]["label"] == lab for k, lab in labels.items())


def test_coverage_command_and_paper_diff(tmp_path):
    env_cmd = [sys.executable, "-m", "rgr_verify"]
    out = subprocess.run(env_cmd + ["coverage", "--paper-text", str(tmp_path / "none.txt")], capture_output=True,
                         text=True)
    assert out.returncode == 2 and "--paper-text" in out.stderr
    old = tmp_path / "old.txt"
    new = tmp_path / "new.txt"
    old.write_text(_toy_text())
    new.write_text(_toy_text().replace("Figure 4: Heads", "Denser graphs shift the threshold right. Figure 4: Heads"))
    out = subprocess.run(env_cmd + ["paper-diff", str(old), str(new)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert re.search(r"new result sentence no claim or reason covers: L17\.s0 \(Sec\. 7\)", out.stdout), out.stdout
    written = tmp_path / "cov.md"
    out = subprocess.run(env_cmd + ["coverage", "--paper-text", str(old), "--write", str(written), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "uncovered: L13.s1" in out.stdout  # the toy's sentences are in no map
    assert "**uncovered**" in written.read_text()


def test_every_numbered_result_has_claims_that_bear_on_it():
    # The theory sections, by their numbered results: each theorem, lemma, proposition, corollary, construction and
    # algorithm of the v3 text has paper-scale claims that name it among their supported labels (a construction
    # through the results the map ties it to). Planted: a new theorem in a copy of the label table is uncovered.
    from rgr_verify.claims import all_claims
    from rgr_verify.audit.coverage import label_rows
    from rgr_verify.audit.papertext import V3_LABELS

    data = load_coverage()
    rows = label_rows(V3_LABELS, all_claims(), statuses(), data)
    assert len(rows) >= 25 and [r["label"] for r in rows if r["state"] != "covered"] == []
    assert {r["label"] for r in rows if r["via"]} == set(data["results"])
    assert all(v in V3_LABELS for e in data["results"].values() for v in e["via"])
    planted = {**V3_LABELS, "Theorem 99.1": (5000, 5001)}
    got = label_rows(planted, all_claims(), statuses(), data)
    assert [(r["label"], r["state"]) for r in got if r["state"] != "covered"] == [("Theorem 99.1", "uncovered")]
    no_via = label_rows(V3_LABELS, all_claims(), statuses(), {"results": {}})
    assert {r["label"] for r in no_via if r["state"] == "uncovered"} == set(data["results"])
