# The claims machinery: registry, ledger, runner, report, audit command, and reproducibility of verdicts.
import json
import subprocess
import sys

import pytest

from rgr_verify.claims import (
    CheckContext,
    Claim,
    Kind,
    Status,
    Tier,
    Verdict,
    all_claims,
    claim_seed,
    read_ledger,
    run_claim,
    write_ledger,
)
from rgr_verify.cli import main

REPRO_IDS = ["sec3-linear-aggregation-equals-single-head", "sec4-monotonicity-under-context-restriction",
             "appa1-sampler-distinct-vertices", "appc-qk-parameters-depend-on-dk-only"]


def test_every_claim_is_well_formed_and_in_the_ledger():
    # Quick-tier claims run everywhere, so each must have its computed status recorded. A full- or gpu-tier claim
    # gets its entry from its first real run (a status is never written before it is computed); until then it
    # reports "not run" here, and a run that computes a status without an entry counts as a mismatch.
    claims = all_claims()
    assert len({c.id for c in claims}) == len(claims)
    ledger = read_ledger()
    missing = [c.id for c in claims if c.id not in ledger and c.tier is Tier.QUICK]
    assert not missing, f"quick-tier claims without ledger entry: {missing}"
    orphans = sorted(set(ledger) - {c.id for c in claims})
    assert not orphans, f"ledger entries without a claim: {orphans}"


def test_claim_rejects_bad_fields():
    ok = dict(id="x-y", ref="Sec. 3", statement="s", kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=lambda ctx: None)
    Claim(**ok)
    with pytest.raises(ValueError, match="kebab-case"):
        Claim(**{**ok, "id": "Bad Id"})
    with pytest.raises(ValueError, match="paper label"):
        Claim(**{**ok, "ref": "somewhere"})
    with pytest.raises(ValueError):
        Claim(**{**ok, "kind": "guess"})


def test_runner_turns_exceptions_into_error_and_gates_tiers():
    def broken(ctx):
        raise RuntimeError("boom")

    c = Claim(id="t-broken", ref="Sec. 3", statement="s", kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=broken)
    r = run_claim(c)
    assert r.verdict.status is Status.ERROR and "boom" in r.verdict.details and r.matches is False
    slow = Claim(id="t-slow", ref="Sec. 6", statement="s", kind=Kind.EMPIRICAL, tier=Tier.FULL,
                 check=lambda ctx: Verdict(Status.HOLDS_EMPIRICALLY), analyses=())
    r = run_claim(slow, tier="quick")
    assert not r.ran and r.verdict.status is Status.INCONCLUSIVE and r.matches is None
    assert run_claim(slow, tier="full").verdict.status is Status.HOLDS_EMPIRICALLY


def test_claim_seed_is_stable_and_distinct():
    assert claim_seed(1, "a") == claim_seed(1, "a")
    assert len({claim_seed(1, "a"), claim_seed(1, "b"), claim_seed(2, "a")}) == 3
    assert CheckContext(seed=5).rng(1).integers(1 << 30) == CheckContext(seed=5).rng(1).integers(1 << 30)


def test_ledger_round_trip_and_errors(tmp_path):
    path = tmp_path / "ledger.txt"
    write_ledger({"b-claim": Status.REFUTED, "a-claim": Status.VERIFIED}, order=["a-claim", "b-claim"], path=path)
    assert {k: v.status for k, v in read_ledger(path).items()} == {"a-claim": Status.VERIFIED, "b-claim": Status.REFUTED}
    path.write_text("a-claim maybe\n")
    with pytest.raises(ValueError, match="status must be one of"):
        read_ledger(path)
    path.write_text("a-claim verified\na-claim verified\n")
    with pytest.raises(ValueError, match="duplicate"):
        read_ledger(path)
    with pytest.raises(ValueError, match="error"):
        write_ledger({"a": Status.ERROR}, order=[], path=tmp_path / "l2.txt")


def test_write_ledger_drops_entries_of_renamed_claims(tmp_path):
    path = tmp_path / "ledger.txt"
    write_ledger({"old-id": Status.VERIFIED, "kept": Status.REFUTED}, order=["kept", "old-id"], path=path)
    write_ledger({"new-id": Status.VERIFIED}, order=["kept", "new-id"], path=path)
    assert {k: v.status for k, v in read_ledger(path).items()} == {"kept": Status.REFUTED, "new-id": Status.VERIFIED}
    with pytest.raises(ValueError, match="unknown ids"):
        write_ledger({"gone": Status.VERIFIED}, order=["kept"], path=path)
    assert "gone" not in read_ledger(path)


def test_audit_writes_report_and_json(tmp_path, capsys):
    out, js = tmp_path / "rep", tmp_path / "r.json"
    rc = main(["audit", "--only", "appc-qk-parameters-depend-on-dk-only,sec3-linear-aggregation-equals-single-head", "--out", str(out), "--json", str(js)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "appc-qk-parameters-depend-on-dk-only" in printed and "holds-empirically" in printed
    doc = json.loads(js.read_text())
    assert doc["schema"] == "rgr-verify/audit/2" and doc == json.loads((out / "report.json").read_text())
    rec = doc["claims"][0]
    for key in ("id", "ref", "kind", "tier", "status", "paper_value", "measured_value", "witness", "params", "seed",
                "rule_fingerprint", "post_hoc"):
        assert key in rec
    assert doc["summary"]["post_hoc"] == [] and set(doc["summary"]["by_scale"]) == {"theory and properties"}
    md = (out / "report.md").read_text()
    assert "| id | ref | status | paper value | measured value |" in md and "App. C" in md
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "no staging leftovers"


def test_audit_exit_1_on_ledger_mismatch(tmp_path, monkeypatch, capsys):
    import rgr_verify.commands.audit as audit_cmd
    from rgr_verify.claims.ledger import LedgerEntry

    monkeypatch.setattr(audit_cmd, "read_ledger",
                        lambda: {"appc-qk-parameters-depend-on-dk-only": LedgerEntry(Status.REFUTED)})
    assert main(["audit", "--only", "appc-qk-parameters-depend-on-dk-only", "--out", str(tmp_path / "r")]) == 1
    assert "MISMATCH appc-qk-parameters-depend-on-dk-only" in capsys.readouterr().err


def test_claims_command_lists_everything(capsys):
    assert main(["claims", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} == {c.id for c in all_claims()}


def _statuses_in_subprocess(seed: int) -> dict:
    code = ("import json; from rgr_verify.claims import get_claim, run_claim; "
            f"rs = {{i: run_claim(get_claim(i), root_seed={seed}).verdict for i in {REPRO_IDS!r}}}; "
            "print(json.dumps({i: [v.status.value, str(v.witness)] for i, v in rs.items()}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_verdicts_reproducible_in_process_and_across_processes():
    verdicts = {i: run_claim(next(c for c in all_claims() if c.id == i), root_seed=7).verdict for i in REPRO_IDS}
    here = {i: [v.status.value, str(v.witness)] for i, v in verdicts.items()}
    assert here == _statuses_in_subprocess(7) == _statuses_in_subprocess(7)


def test_monte_carlo_verdict_holds_passing_to_the_failing_standard():
    # Exact Clopper-Pearson decisions under one standard: a clean run that cannot certify a tiny rate is inconclusive
    # with its resolution (the rate it does certify, the draws the claimed one would take), never a pass; failures
    # far above the rate refute; a loose rate verifies.
    from rgr_verify.claims.tools import monte_carlo_verdict

    clean = lambda i: (True, {"draw": i})  # noqa: E731
    v = monte_carlo_verdict(clean, n_trials=20, claimed_failure_rate=1e-6)
    assert v.status is Status.INCONCLUSIVE and v.evidence_level == "sampled"
    res = v.params["resolution"]
    assert res["draws_needed_to_certify"] > 1e6 and res["band"] == [0.0, 1e-6] and res["interval"][1] > 0.4
    bad = lambda i: (i % 2 == 0, {"draw": i})  # noqa: E731
    v = monte_carlo_verdict(bad, n_trials=40, claimed_failure_rate=1e-6)
    assert v.status is Status.REFUTED and v.witness[0] == 1
    assert monte_carlo_verdict(clean, n_trials=40, claimed_failure_rate=0.5).status is Status.VERIFIED


def test_scale_separates_paper_scale_experiments_from_quick_analogues():
    from rgr_verify.audit.report import scale_of

    assert scale_of({"id": "fig3-x", "ran": True, "evidence_level": "experiment"}) == "paper-scale experiment"
    assert scale_of({"id": "fig7-x", "ran": False, "tier": "gpu", "kind": "qualitative"}) == "paper-scale experiment"
    assert scale_of({"id": "sec61-x-quick", "ran": True, "evidence_level": "analogue"}) == "quick analogue"
    assert scale_of({"id": "sec61-y-quick", "ran": False, "tier": "quick", "kind": "empirical"}) == "quick analogue"
    assert scale_of({"id": "thm41-x", "ran": True, "evidence_level": "fitted", "tier": "quick",
                     "kind": "asymptotic"}) == "theory and properties"
