# Configuration is read in one place: every environment variable of the project is named and read in
# rgr_verify/basics/settings.py; elsewhere only writes (for child processes) and the documented exceptions remain.
import re
from pathlib import Path

import pytest

from rgr_verify.basics.settings import ENV_VARS, env

PKG = Path(__file__).resolve().parents[1] / "rgr_verify"
# (file, what it reads): a check's own read (its source is part of its rule fingerprint), pytest-xdist's variable,
# and the local executor extending its workers' PYTHONPATH
EXCEPTIONS = {("claims/paper_sec7/sec73.py", "GPT2_DIR_ENV"), ("pytest_plugin.py", '"PYTEST_XDIST_WORKER"'),
              ("runs/sweeps/executors.py", '"PYTHONPATH"')}
_READ = re.compile(r"os\.environ\.get\(([^,)]+)|os\.getenv\(([^,)]+)|os\.environ\[([^\]]+)\](?!\s*=)")


def test_environment_is_read_only_in_settings():
    reads = set()
    for p in PKG.rglob("*.py"):
        rel = p.relative_to(PKG).as_posix()
        if rel == "basics/settings.py":
            continue
        for m in _READ.finditer(p.read_text(encoding="utf-8")):
            reads.add((rel, next(g for g in m.groups() if g).strip()))
    # saving the caller's thread variables around a pool start (written back after) is not configuration
    reads = {(f, v) for f, v in reads if v != "var"}
    assert reads - EXCEPTIONS == set()


def test_env_names_its_variables(monkeypatch):
    monkeypatch.setenv("RGR_VERIFY_RESULTS", "")
    assert env("RGR_VERIFY_RESULTS", "dflt") == "dflt"  # empty counts as unset
    monkeypatch.setenv("RGR_VERIFY_RESULTS", "/x")
    assert env("RGR_VERIFY_RESULTS") == "/x"
    assert len(set(ENV_VARS)) == len(ENV_VARS) == 12
    with pytest.raises(ValueError, match="not an environment variable of rgr-verify"):
        env("HOME")
