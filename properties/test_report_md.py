# report.md for a terminal and a pull request: header (commit, date, command), a short summary, a table of contents,
# values in words, the ledger next to claims that did not run, and partial runs that never replace a fuller report.
import argparse
import json
import re

from rgr_verify.claims import Claim, Kind, Status, Tier, Verdict, run_claim
from rgr_verify.cli import main
from rgr_verify.audit.report import NOT_RUN, audit_document, command_line, run_meta
from rgr_verify.claims.verdict_store import git_commit
from rgr_verify.audit.report_md import anchor, render_markdown, value_in_words


def test_value_in_words_is_compact_and_readable():
    assert value_in_words(None) == "none"
    assert value_in_words(True) == "yes" and value_in_words(12) == "12"
    assert value_in_words(1.0902345) == "1.09" and value_in_words(0.000123456) == "0.0001235"
    assert value_in_words(1.0107281705237213e-09) == "1.011e-9" and value_in_words(float("nan")) == "nan"
    assert value_in_words("  two\n  lines ") == "two lines"
    assert value_in_words({"slope": 1.0902, "95% profile": [0.88021, 1.3401], "n": 12}) == \
        "slope: 1.09; 95% profile: [0.8802, 1.34]; n: 12"
    assert value_in_words({"ln": {"slope": 1.09, "n": 12}, "ok": False}) == "ln: (slope: 1.09; n: 12); ok: no"
    assert value_in_words(list(range(20))) == "[0, 1, 2, 3, 4, 5, 6, 7, ... (12 more)]"
    assert value_in_words({f"k{i}": i for i in range(10)}).endswith("k7: 7; ... (2 more)")
    assert value_in_words([{"a": 1}, {"b": [1.5, 2]}]) == "[(a: 1), (b: [1.5, 2])]"
    deep = {"a": {"b": {"c": {"d": 1}}}}
    assert value_in_words(deep) == "a: (b: (c: (1 entries)))"
    text = value_in_words({"x": "y" * 500}, limit=50)
    assert len(text) == 50 and text.endswith("…")
    assert "{" not in value_in_words({"a": {"b": 1}}) and '"' not in value_in_words({"a": "b"})


def _holds(ctx):
    return Verdict(Status.VERIFIED, paper_value="D_K = 1.19 m log m", measured_value={"slope": 1.0902, "n": 12},
                   evidence="a proof")


def _refutes(ctx):
    return Verdict(Status.REFUTED, paper_value="x < 1", measured_value={"x": 2.5, "grid": list(range(40))},
                   evidence="a witness", details="d" * 3000)


def _doc(meta=None):
    base = dict(kind=Kind.SYMBOLIC, check=_holds)
    claims = [Claim(id="x-holds", ref="Sec. 3", statement="it holds", tier=Tier.QUICK, **base),
              Claim(id="x-refuted", ref="Sec. 3", statement="it is refuted", tier=Tier.QUICK, kind=Kind.SYMBOLIC,
                    check=_refutes),
              Claim(id="x-gpu", ref="Sec. 3", statement="needs a GPU", tier=Tier.GPU, kind=Kind.EMPIRICAL,
                    check=_holds)]
    results = [run_claim(c, root_seed=1, device="cpu", tier="quick") for c in claims]
    return audit_document(results, tier="quick", root_seed=1, device="cpu", meta=meta)


def test_header_summary_and_contents_come_first_in_order():
    meta = {"command": "rgr-verify audit --only 'x-*'", "commit": "0123abc", "date": "2026-01-02 03:04:05 UTC"}
    doc = _doc(meta)
    assert doc["run"] == meta
    md = render_markdown(doc, ledger={"x-gpu": "refuted"})
    head = md[: md.index("## Summary")]
    assert "`0123abc`" in head and "2026-01-02 03:04:05 UTC" in head and "rgr-verify audit --only 'x-*'" in head
    order = ["## Summary", "### Findings, ranked", "### Counts", "## Contents", "## Claims", "## Details"]
    assert [md.index(h) for h in order] == sorted(md.index(h) for h in order)
    findings = md[md.index("### Findings, ranked"): md.index("### Counts")]
    assert re.search(r"^1\. \[`x-refuted`\]\(#x-refuted\) \*\*\w[\w-]*\*\* .*The paper: x < 1; ours: x: 2\.5; grid: "
                     r"\[0, 1, 2, 3, 4, 5, 6, 7, \.\.\. \(32 more\)\]", findings, re.M)
    counts = md[md.index("### Counts"): md.index("## Contents")]
    assert "Theory and properties" in counts and "Not run here: **1** (ledger: 1 refuted)" in counts
    # every entry of the contents points at a heading of the report
    contents = md[md.index("## Contents"): md.index("\n\n", md.index("## Contents") + 13)]
    links = re.findall(r"\]\(#([^)]+)\)", contents)
    headings = {anchor(h) for h in re.findall(r"^#{2,3} (.+)$", md, re.M)}
    assert links and set(links) <= headings
    # values in words, not JSON; the not-run claim names the ledger; long values cut with a pointer to the JSON
    assert "slope: 1.09; n: 12" in md and '{"slope"' not in md
    assert "not run (ledger: refuted)" in md and md.count(NOT_RUN) >= 1  # the legend still names the raw status
    assert "d" * 3000 not in md and "[report.json]" in md
    assert "| id | ref | status | paper value | measured value |" in md


def test_without_ledger_or_meta_the_report_still_renders():
    md = render_markdown(_doc())
    assert "Commit: `unknown`" in md and "Command: `unknown`" in md
    assert f"| {NOT_RUN} |" in md  # no ledger given: the status as recorded


def test_run_meta_and_command_line():
    meta = run_meta("rgr-verify audit")
    assert set(meta) == {"command", "commit", "date"} and meta["date"].endswith(" UTC")
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", meta["commit"]) and git_commit("/nonexistent") == "unknown"
    assert command_line("audit", argv=["rgr-verify", "audit", "--only", "a b*"]) == "rgr-verify audit --only 'a b*'"

    args = argparse.Namespace(only="x-*", tier="quick", quiet=True, replace=False, json=None, out="rep", _run=None)
    assert command_line("audit", args, argv=["pytest"]) == "rgr-verify audit --only 'x-*' --out rep --quiet --tier quick"


def test_partial_audit_does_not_replace_a_fuller_report(tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["audit", "--only", "sec3-sym-*", "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    full = json.loads((out / "report.json").read_text())
    assert len(full["claims"]) >= 2 and "sec3-sym-*" in full["run"]["command"]
    md_before = (out / "report.md").read_text()
    capsys.readouterr()
    assert main(["audit", "--only", "sec3-sym-dq-plus-dk", "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "report-partial.md" in printed and "--replace" in printed
    assert (out / "report.md").read_text() == md_before
    assert json.loads((out / "report.json").read_text()) == full
    part = json.loads((out / "report-partial.json").read_text())
    assert [r["id"] for r in part["claims"]] == ["sec3-sym-dq-plus-dk"]
    assert "sec3-sym-dq-plus-dk" in (out / "report-partial.md").read_text()
    # --replace overwrites; a run of as many claims overwrites too
    assert main(["audit", "--only", "sec3-sym-dq-plus-dk", "--out", str(out), "--jobs", "1", "--quiet",
                 "--replace"]) == 0
    assert [r["id"] for r in json.loads((out / "report.json").read_text())["claims"]] == ["sec3-sym-dq-plus-dk"]
    assert "report-partial" not in capsys.readouterr().out
