# The audit on a CI job's page (rgr_verify.audit.job_summary): the headline's counts (by status, reused against run
# now, mismatches), the ranked findings in words, the mismatches with the ledger, and the command line's exit 2 on a
# file that is not an audit report. Built from a few planted claims: nothing heavy runs.
import dataclasses
import json
import subprocess
import sys

import pytest

from rgr_verify.audit.job_summary import job_summary, main, reuse_counts
from rgr_verify.audit.report import audit_document
from rgr_verify.claims import Claim, Kind, Status, Tier, Verdict, run_claim

REUSED = {"commit": "0123456789abcdef", "date": "2026-01-02 03:04:05 UTC"}


def _holds(ctx):
    return Verdict(Status.VERIFIED, paper_value="D_K = 1.19 m log m", measured_value={"slope": 1.0902, "n": 12},
                   evidence="a proof")


def _refutes(ctx):
    return Verdict(Status.REFUTED, paper_value="x < 1", measured_value={"x": 2.5, "grid": list(range(40))},
                   evidence="a witness | with a pipe")


def _doc(reused: bool = True) -> dict:
    claims = [Claim(id="js-holds", ref="Sec. 3", statement="it holds", tier=Tier.QUICK, kind=Kind.SYMBOLIC,
                    check=_holds),
              Claim(id="js-refuted", ref="Theorem 4.1", statement="it is refuted", tier=Tier.QUICK, kind=Kind.SYMBOLIC,
                    check=_refutes),
              Claim(id="js-gpu", ref="Sec. 7.3", statement="needs a GPU", tier=Tier.GPU, kind=Kind.EMPIRICAL,
                    check=_holds),
              Claim(id="js-drifted", ref="Lemma 5.2", statement="the ledger says refuted", tier=Tier.QUICK,
                    kind=Kind.SYMBOLIC, check=_holds)]
    expected = {"js-holds": Status.VERIFIED, "js-refuted": Status.REFUTED, "js-gpu": Status.VERIFIED,
                "js-drifted": Status.REFUTED}
    results = [dataclasses.replace(run_claim(c, root_seed=1, device="cpu", tier="quick"), expected=expected[c.id])
               for c in claims]
    if reused:  # as a verdict store gives it back: the stored verdict, with the run it came from
        results[0] = dataclasses.replace(results[0], reused=REUSED)
    doc = audit_document(results, tier="quick", root_seed=1, device="cpu",
                         meta={"command": "rgr-verify audit", "commit": "fedcba9876543210", "date": "2026-01-03"})
    for rec, res in zip(doc["claims"], results):  # the report's "reused" field (issue 43), where not yet written
        rec.setdefault("reused", res.reused)
    return doc


@pytest.fixture(scope="module")
def doc():
    return _doc()


def test_the_headline_counts_statuses_reuse_and_mismatches(doc):
    md = job_summary(doc)
    head = md.splitlines()
    assert head[0] == "## rgr-verify audit (tier `quick`, commit `fedcba987654`)"
    line = head[2]
    assert line.startswith("**4 claims**: 1 inconclusive (not run), 1 refuted, 2 verified · ")
    assert "verdicts: 1 reused, 2 run now, 1 not run here (reused from `0123456789ab`)" in line
    assert line.endswith("ledger mismatches: **1**")
    assert reuse_counts(doc) == {"reused": 1, "run": 2, "not_run": 1, "commits": ["0123456789abcdef"]}


def test_the_ranked_finding_is_in_the_table_in_words(doc):
    md = job_summary(doc)
    assert doc["findings"] == ["js-refuted"]
    assert "### Findings, ranked (1)" in md
    row = next(ln for ln in md.splitlines() if ln.startswith("| 1 | `js-refuted` |"))
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[2:4] == ["Theorem 4.1", "refuted"]
    assert cells[4] == doc["claims"][1]["severity"] and cells[4]
    assert cells[5].startswith("paper: x < 1; ours: x: 2.5; grid: [0, 1, 2, 3, 4, 5, 6, 7, ... (32 more)]")
    assert len(cells) == 6  # one row, no stray pipes


def test_the_mismatch_with_the_ledger_is_listed(doc):
    md = job_summary(doc)
    part = md[md.index("### Mismatches with the ledger (1)"):]
    assert "| `js-drifted` | Lemma 5.2 | **verified** | refuted |" in part
    assert "js-holds" not in part and "js-gpu" not in part  # a match, and a claim that did not run


def test_a_reused_verdict_is_counted_and_marked():
    doc = _doc()
    doc["claims"][1]["reused"] = dict(REUSED, commit="aaaa")  # the finding, too, was given back by the store
    md = job_summary(doc)
    assert "verdicts: 2 reused, 1 run now, 1 not run here (reused from `0123456789ab`, `aaaa`)" in md
    assert "| refuted (reused) |" in md
    fresh = _doc(reused=False)
    assert reuse_counts(fresh)["reused"] == 0 and "verdicts: 0 reused, 3 run now" in job_summary(fresh)


def test_no_findings_and_no_mismatches_say_so(doc):
    quiet = dict(doc, findings=[], claims=[dict(r, matches=True if r["ran"] else None) for r in doc["claims"]])
    md = job_summary(quiet)
    assert "No findings." in md and "Every claim that ran matches the ledger." in md
    assert md.splitlines()[2].endswith("ledger mismatches: 0")
    assert job_summary(doc, top=0).count("| `js-refuted` |") == 0 and "... and 1 more" in job_summary(doc, top=0)
    with pytest.raises(ValueError, match="top"):
        job_summary(doc, top=-1)


def test_the_command_line_prints_it_and_exits_2_on_a_bad_file(tmp_path, doc, capsys):
    good = tmp_path / "report.json"
    good.write_text(json.dumps(doc), encoding="utf-8")
    bad = tmp_path / "not-a-report.json"
    bad.write_text('{"schema": "something else"}', encoding="utf-8")
    assert main([str(good)]) == 0
    out = capsys.readouterr()
    assert out.out == job_summary(json.loads(good.read_text())) and out.err == ""
    for argv in ([str(bad)], [str(tmp_path)], [], [str(good), str(good)]):
        assert main(argv) == 2, argv
        out = capsys.readouterr()
        assert out.out == "" and len(out.err.strip().splitlines()) == 1, (argv, out.err)
    # as the workflow runs it (one subprocess: importing the package is most of this file's time)
    missing = tmp_path / "missing" / "report.json"
    proc = subprocess.run([sys.executable, "-m", "rgr_verify.audit.job_summary", str(missing)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert len(proc.stderr.strip().splitlines()) == 1 and str(missing) in proc.stderr, proc.stderr
