# Evidence that cannot go missing quietly: the committed evidence is package data (a wheel ships it and replays
# it), and a claim whose evidence is missing altogether stops the audit (exit 1, one line naming the store) and
# fails its test, unless the user says --allow-missing-evidence.
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from rgr_verify.claims import all_claims
from rgr_verify.runs.evidence import PACKAGE_EVIDENCE, default_evidence_dir, manifests, missing_evidence

ROOT = Path(__file__).resolve().parent.parent


def _cli(*args, env_extra=None, cwd=None, exe=None):
    env = {**os.environ, **(env_extra or {})}
    cmd = [exe or sys.executable, "-m", "rgr_verify", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=600)


def test_the_package_ships_its_evidence_and_every_replaying_claim_finds_it():
    assert default_evidence_dir() == PACKAGE_EVIDENCE or os.environ.get("RGR_VERIFY_EVIDENCE")
    assert PACKAGE_EVIDENCE.is_dir() and len(manifests(PACKAGE_EVIDENCE)) >= 10
    assert (ROOT / "evidence").resolve() == PACKAGE_EVIDENCE  # the repository's evidence/ is a link to it
    assert missing_evidence(all_claims(), PACKAGE_EVIDENCE) == {}


def test_missing_evidence_names_every_store_and_its_claims(tmp_path):
    missing = missing_evidence(all_claims(), tmp_path / "nowhere")
    assert {"preset sec6-grid", "preset a3-regular", "store facts-runs.jsonl", "store sec73-runs.jsonl"} <= set(missing)
    assert "fig3-dkstar-scaling-slope" in missing["preset sec6-grid"]
    # a manifest whose records file is gone does not count as evidence
    ev = tmp_path / "ev"
    ev.mkdir()
    man = next(p for p in PACKAGE_EVIDENCE.glob("a3-regular*.json"))
    (ev / man.name).write_text(man.read_text())
    assert "preset a3-regular" in missing_evidence(all_claims(), ev)


def test_audit_stops_on_missing_evidence_unless_allowed(tmp_path):
    env = {"RGR_VERIFY_EVIDENCE": str(tmp_path / "nonexistent")}
    out = tmp_path / "report"
    proc = _cli("audit", "--only", "fig3-*", "--out", str(out), env_extra=env)
    assert proc.returncode == 1, proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "preset sec6-grid" in lines[0] and "--allow-missing-evidence" in lines[0], lines
    assert not out.exists()  # nothing written
    proc = _cli("audit", "--only", "appa3-edges-not-vertices-set-threshold", "--allow-missing-evidence", "--jobs", "1",
                "--quiet", "--out", str(out), env_extra=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "inconclusive (not run)" in (out / "report.md").read_text()


def test_a_claim_test_fails_when_its_evidence_is_missing(tmp_path):
    env = {"RGR_VERIFY_EVIDENCE": str(tmp_path / "nonexistent"), "PYTHONPATH": str(ROOT)}
    test = ROOT / "empirical" / "test_claims.py"
    args = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", str(test), "-k",
            "appa3-edges-not-vertices-set-threshold and not quick"]
    proc = subprocess.run(args, capture_output=True, text=True, env={**os.environ, **env}, cwd=ROOT, timeout=600)
    assert proc.returncode == 1 and "committed evidence missing" in proc.stdout, proc.stdout[-2000:]
    proc = subprocess.run(args + ["--allow-missing-evidence"], capture_output=True, text=True,
                          env={**os.environ, **env}, cwd=ROOT, timeout=600)
    assert proc.returncode == 0 and "skipped" in proc.stdout, proc.stdout[-2000:]


def _wheel(tmp_path) -> Path:
    dest = tmp_path / "wheel"
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                           str(dest), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return next(dest.glob("rgr_verify-*.whl"))


def test_a_wheel_contains_the_evidence_templates_and_label_data(tmp_path):
    names = set(zipfile.ZipFile(_wheel(tmp_path)).namelist())
    for man in manifests(PACKAGE_EVIDENCE):
        assert f"rgr_verify/data/evidence/{man.name}.json" in names
        assert f"rgr_verify/data/evidence/{man.records_path_name}" in names
    assert "rgr_verify/audit/site/templates/index.html" in names
    assert "rgr_verify/data/labels-2509.22840-v3.json" in names
    assert "rgr_verify/claims/ledger.txt" in names


@pytest.mark.slow
def test_a_non_editable_install_replays_the_fig3_slope(tmp_path):
    # A wheel installed into a fresh environment (the build's dependencies come from this one) replays the
    # committed evidence of sec6-grid from its own package data, run from a folder outside the checkout.
    whl = _wheel(tmp_path)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    py = env_dir / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(whl)], check=True, timeout=600)
    where = subprocess.run([str(py), "-c", "import rgr_verify.runs.evidence as e; print(e.default_evidence_dir())"],
                           capture_output=True, text=True, cwd=tmp_path, check=True).stdout.strip()
    assert where.startswith(str(env_dir))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RGR_VERIFY_EVIDENCE")}
    proc = subprocess.run([str(py), "-m", "rgr_verify", "audit", "--only", "fig3-dkstar-scaling-slope", "--jobs",
                           "1", "--quiet", "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = (tmp_path / "out" / "report.md").read_text()
    assert "4790 runs replayed" in report or "4790 runs" in report
