# `rgr-verify audit` with the verdict store (issue 43): by default a claim whose key and recorded files are unchanged
# is reused (its line and its record say from which commit and date); --fresh reruns every claim and records it;
# --no-store neither reuses nor records; --changed-since REV runs only the claims a change since REV may touch.
import json

import pytest

from rgr_verify.cli import main
from rgr_verify.claims import verdict_store as vs

IDS = ("sec1-sym-softmax-budget", "openreview-sym-uncompressed-single-head")  # two fast symbolic claims


def _audit(tmp_path, *extra, out="out"):
    rc = main(["audit", "--tier", "quick", "--only", ",".join(IDS), "--out", str(tmp_path / out), "--results",
               str(tmp_path / "results"), "--jobs", "1", "--quiet", "--replace", *extra])
    doc = json.loads((tmp_path / out / "report.json").read_text())
    return rc, {r["id"]: r for r in doc["claims"]}


def test_the_audit_reuses_reruns_fresh_and_runs_without_a_store(tmp_path, capsys):
    rc, first = _audit(tmp_path)
    assert rc == 0 and all(r["reused"] is None for r in first.values())
    assert "2 run, 0 verdicts reused" in capsys.readouterr().err
    rc, second = _audit(tmp_path)
    err = capsys.readouterr().err
    assert rc == 0 and all(set(r["reused"]) == {"commit", "date"} for r in second.values())
    assert "0 run, 2 verdicts reused" in err and "(reused: " in err
    page = (tmp_path / "out" / "claims" / f"{IDS[0]}.html").read_text()
    assert "this verdict was reused from the audit of commit" in page
    report_md = (tmp_path / "out" / "report.md").read_text()
    assert "2 of the 2 verdicts were reused from the verdict store" in report_md and " · reused from `" in report_md
    for cid in IDS:  # the report holds the same verdicts
        assert {k: v for k, v in second[cid].items() if k not in ("reused", "seconds")} == \
               {k: v for k, v in first[cid].items() if k not in ("reused", "seconds")}
    lines = (tmp_path / "results" / vs.FILENAME).read_text().splitlines()
    rc, fresh = _audit(tmp_path, "--fresh")
    assert rc == 0 and all(r["reused"] is None for r in fresh.values())
    assert len((tmp_path / "results" / vs.FILENAME).read_text().splitlines()) == len(lines) + 2  # recorded again
    capsys.readouterr()
    rc, plain = _audit(tmp_path, "--no-store")
    assert rc == 0 and all(r["reused"] is None for r in plain.values())
    assert len((tmp_path / "results" / vs.FILENAME).read_text().splitlines()) == len(lines) + 2  # nothing recorded
    assert "verdicts reused" not in capsys.readouterr().err


def test_changed_since_selects_the_claims_whose_files_changed(tmp_path, capsys, monkeypatch):
    _audit(tmp_path)
    recs = [json.loads(line) for line in (tmp_path / "results" / vs.FILENAME).read_text().splitlines()]
    deps = {r["claim"]: set(r["deps"]) for r in recs}
    only_first = sorted(deps[IDS[0]] - deps[IDS[1]])
    assert only_first, "the two claims read the same files: pick two that differ"
    monkeypatch.setattr(vs, "changed_files", lambda rev, root=None: {only_first[0]})
    capsys.readouterr()
    rc, ran = _audit(tmp_path, "--changed-since", "HEAD", out="changed")
    assert rc == 0 and set(ran) == {IDS[0]}
    assert "1 of 2 claims selected (1 depend on a changed file, 0 have no stored verdict" in capsys.readouterr().out
    monkeypatch.setattr(vs, "changed_files", lambda rev, root=None: {"README.md"})
    rc, ran = _audit(tmp_path, "--changed-since", "HEAD", out="none")
    assert rc == 0 and ran == {}


def test_changed_since_usage_errors(tmp_path, capsys):
    assert main(["audit", "--only", IDS[0], "--changed-since", "no-such-rev-here", "--results",
                 str(tmp_path / "r")]) == 2
    assert "--changed-since" in capsys.readouterr().err
    assert main(["audit", "--only", IDS[0], "--changed-since", "HEAD", "--fresh"]) == 2
    assert main(["audit", "--fresh", "--no-store"]) == 2  # mutually exclusive
    with pytest.raises(ValueError, match="rev"):
        vs.changed_files("--all")
    assert isinstance(vs.changed_files("HEAD"), set)


def test_the_overhead_measurement_runs_each_claim_three_ways(capsys):
    from rgr_verify.audit.trace_overhead import main, trace_overhead
    from rgr_verify.claims import get_claim

    out = trace_overhead([get_claim(IDS[0])])
    assert out["claims"] == 1 and out["ratio"] > 0 and set(out["rows"][0]) == {"claim", "plain", "traced",
                                                                                "plain again"}
    with pytest.raises(ValueError, match="tier"):
        trace_overhead([get_claim(IDS[0])], tier="medium")
    assert main(["--only", "no-such-claim-*"]) == 2
    assert "trace_overhead: error" in capsys.readouterr().err
