# A version of the paper is data: its numbered labels, their line ranges and parts in one file per version
# (rgr_verify/data/labels-2509.22840-<version>.json). A v4 with App. E, Remark 4.2, Eq. (40) and Figure 14 is
# accepted; a bad file is a one-line error naming the file and the entry; a renumbered label keeps its claims
# (ids, seeds, ledger lines) through the alias table, and a renumbering alone touches nothing in paper-diff.
import json
import re
from pathlib import Path

import pytest

from rgr_verify import cli
from rgr_verify.claims import all_claims, read_ledger, select_claims
from rgr_verify.claims.labels import label_part, label_prefix
from rgr_verify.claims.runner import run_claims
from rgr_verify.claims.structure import node_of
from rgr_verify.core.paper_versions import (CANONICAL_VERSION, DATA_DIR, known_versions, label_set, load_label_set, renumber,
                                       write_label_file)
from rgr_verify.audit.papertext import V3_LABELS, find_labels, paper_diff

_V3 = Path(__file__).resolve().parents[2] / "shared" / "paper" / "003_656413910ed800f8.txt"
needs_v3 = pytest.mark.skipif(not _V3.is_file(), reason="the paper's v3 text (shared/paper/003_*.txt) is not here")


def test_the_canonical_version_is_data_and_gives_every_part():
    assert CANONICAL_VERSION in known_versions()
    v3 = label_set("v3")
    assert {k: v for k, v in v3.lines.items() if v} == V3_LABELS
    assert v3.part("Eq. (22)") == "sec8" and v3.part("Figure 4") == "sec6" and v3.part("Table 1") == "appa"
    assert label_part("Eq. (33)") == "appb" and label_part("Construction III") == "appb"
    with pytest.raises(ValueError, match="not a label of arXiv 2509.22840 v3"):
        label_part("Eq. (40)")
    with pytest.raises(ValueError, match="known: .*v3"):
        label_set("v9")


def test_a_v4_label_list_with_new_labels_is_accepted(tmp_path):
    lines = {"Sec. 4": (90, 140), "Remark 4.2": (130, 134), "Eq. (40)": (900, 900), "Figure 14": (950, 952),
             "App. E": (1400, 1500), "Lemma E.1": (1410, 1420), "Theorem 9.1": (520, 600)}
    parts = {"Sec. 4": "sec4", "Remark 4.2": "sec4", "Eq. (40)": "appb", "Figure 14": "appa", "App. E": "appe",
             "Lemma E.1": "appe", "Theorem 9.1": "sec9"}
    path = write_label_file(tmp_path / "labels-2509.22840-v4.json", "v4", lines, parts,
                            aliases={"Theorem 9.1": "Theorem 9.2"})
    v4 = load_label_set(path)
    assert v4.version == "v4" and v4.part("App. E") == "appe" and v4.part("Eq. (40)") == "appb"
    assert v4.canonical("Theorem 9.1") == "Theorem 9.2" and v4.local("Theorem 9.2") == "Theorem 9.1"
    assert [label_prefix(x) for x in ("Remark 4.2", "App. E", "Eq. (40)", "Figure 14", "Lemma E.1")] == \
        ["rem42", "appe", "eq40", "fig14", "leme1"]


@pytest.mark.parametrize("change,match", [
    (lambda d: d["labels"].update({"Theorem 99": {"lines": None, "part": "sec9"}}), "'Theorem 99' is not a numbered"),
    (lambda d: d["labels"]["Sec. 1"].update(part="chapter1"), "'Sec. 1' needs a 'part'"),
    (lambda d: d["labels"]["Sec. 1"].update(lines=[48, 11]), "'Sec. 1': 'lines' must be"),
    (lambda d: d.update(aliases={"Theorem 9.9": "Theorem 9.2"}), "alias 'Theorem 9.9' is not one of"),
    (lambda d: d.update(version="v 4"), "'version' must be a word"),
])
def test_a_bad_label_file_names_the_file_and_the_entry(tmp_path, change, match):
    data = json.loads((DATA_DIR / "labels-2509.22840-v3.json").read_text())
    change(data)
    bad = tmp_path / "labels-2509.22840-v4.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=re.escape(str(bad)) + ".*" + match):
        load_label_set(bad)
    with pytest.raises(ValueError, match="nothing|needs a 'part'|no part"):
        write_label_file(tmp_path / "w.json", "v4", {"Sec. 1": (1, 2)}, {})
    assert not (tmp_path / "w.json").exists()


def test_renumber_swaps_all_mentions_at_once():
    text = "Theorem 8.2 (X). By Thm. 8.1 and Eq. (5): $$y \\tag{5}$$ as in (5).\n8.2 Heading Title\n"
    got = renumber(text, {"Theorem 8.2": "Theorem 8.1", "Theorem 8.1": "Theorem 8.2", "Eq. (5)": "Eq. (4)",
                          "Sec. 8.2": "Sec. 8.3"})
    assert got == "Theorem 8.1 (X). By Thm. 8.2 and Eq. (4): $$y \\tag{4}$$ as in (4).\n8.3 Heading Title\n"
    with pytest.raises(ValueError, match="kind"):
        renumber(text, {"Theorem 8.2": "Lemma 8.2"})


@needs_v3
def test_a_renumbered_theorem_keeps_its_claims_and_their_verdicts(tmp_path, capsys):
    v3 = _V3.read_text(encoding="utf-8")
    v4 = re.sub(r"\bTheorem 8\.1\b", "Theorem 8.5", v3)  # v4 renumbers Theorem 8.1 and changes nothing else
    labels = find_labels(v4)
    assert "Theorem 8.5" in labels and "Theorem 8.1" not in labels
    aliases = {"Theorem 8.5": "Theorem 8.1"}
    claims = all_claims()
    # without the alias: the theorem looks removed and another added; with it, nothing changed
    plain = {(r["label"], r["change"]) for r in paper_diff(v3, v4, claims)}
    assert ("Theorem 8.1", "removed") in plain and ("Theorem 8.5", "added") in plain
    assert paper_diff(v3, v4, claims, aliases=aliases) == []
    # an edit of the renumbered statement lists the claims of Theorem 8.1
    edited = v4.replace("Softmax analogue of Construction II", "Softmax version of Construction II", 1)
    rows = paper_diff(v3, edited, claims, aliases=aliases)
    ids = {i for r in rows if r["label"] == "Theorem 8.1" for i in r["claims"]}
    assert {"thm81-conclusion-large-dk", "thm81-sym-step6-budget"} <= ids
    # the CLI reads the aliases from the new version's label file
    parts = {lab: label_part(aliases.get(lab, lab)) if lab in V3_LABELS or lab in aliases else "sec8"
             for lab in labels}
    f = write_label_file(tmp_path / "labels-2509.22840-v4.json", "v4", labels, parts, aliases=aliases)
    (tmp_path / "v3.txt").write_text(v3, encoding="utf-8")
    (tmp_path / "v4.txt").write_text(v4, encoding="utf-8")
    assert cli.main(["paper-diff", str(tmp_path / "v3.txt"), str(tmp_path / "v4.txt"), "--labels", str(f)]) == 0
    assert "no numbered statement changed" in capsys.readouterr().out
    assert cli.main(["paper-diff", str(tmp_path / "v3.txt"), str(tmp_path / "v4.txt"), "--labels",
                     str(tmp_path / "none.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    # the claims reached through the alias keep their ids, hence their seeds and ledger lines: same verdicts
    through = [c for c in claims if node_of(c.paper, c.ref) == aliases["Theorem 8.5"] and c.id.startswith("thm81-sym-")]
    assert through
    ledger = read_ledger()
    results = run_claims(select_claims(",".join(c.id for c in through[:3]), tier="quick"), tier="quick", device="cpu")
    assert all(r.verdict.status.value == ledger[r.claim.id].status.value for r in results)
