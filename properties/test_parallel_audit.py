# Reproducibility: `rgr-verify audit --jobs N` gives the verdicts of one process (a verdict depends only on the
# root seed and the claim id).
import pytest

from rgr_verify.claims import all_claims, select_claims
from rgr_verify.claims.runner import run_claims, run_claims_parallel
from rgr_verify.cli import main


def _summary(results):
    return [(r.claim.id, r.verdict.status, str(r.verdict.measured_value), r.seed) for r in results]


def test_parallel_claims_match_one_process():
    claims = [c for c in select_claims("sec3-*", tier="quick")][:4]
    assert len(claims) >= 2
    one = run_claims(claims, tier="quick", root_seed=7, device="cpu")
    two = run_claims_parallel(claims, jobs=2, tier="quick", root_seed=7, device="cpu")
    assert _summary(two) == _summary(one)
    assert [r.claim for r in two] == claims


@pytest.mark.parametrize("jobs", ["0", "-2", "300"])
def test_audit_rejects_bad_jobs(jobs, tmp_path, capsys):
    assert main(["audit", "--only", "sec3-*", "--jobs", jobs, "--out", str(tmp_path / "r")]) == 2
    assert "--jobs" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_run_claims_parallel_validates_jobs():
    with pytest.raises(ValueError, match="jobs"):
        run_claims_parallel(all_claims()[:1], jobs=0)
