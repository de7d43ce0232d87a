# The rgr-verify pytest plugin stays home: a foreign project where rgr-verify is installed keeps its own markers,
# options and tests (no pytest11 entry point); it gets the plugin only when it asks with -p.
import os
import subprocess
import sys

_FOREIGN_TEST = '''
import pytest


@pytest.mark.slow
def test_own_slow():
    pass
'''

_FOREIGN_CONFTEST = '''
def pytest_configure(config):
    config.addinivalue_line("markers", "slow: the foreign project's own slow marker")
'''


def _pytest(cwd, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "RGR_VERIFY_TIER"))}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-rs", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_plugin_acts_only_where_asked_for(tmp_path):
    project = tmp_path / "foreign"
    project.mkdir()
    (project / "test_own.py").write_text(_FOREIGN_TEST)
    (project / "conftest.py").write_text(_FOREIGN_CONFTEST)

    plain = _pytest(project, ".")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "1 passed" in plain.stdout and "skipped" not in plain.stdout, plain.stdout
    assert "rgr-verify" not in plain.stdout  # no seed header, no verdict summary

    tier = _pytest(project, "--tier", "quick", ".")
    assert tier.returncode == 4, tier.stdout + tier.stderr  # usage error: the option is unknown here
    assert "--tier" in tier.stderr

    asked = _pytest(project, "-p", "rgr_verify.pytest_plugin", "--tier", "quick", ".")
    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert "rgr-verify: tier=quick" in asked.stdout
    assert "1 skipped" in asked.stdout and "slow test: run with --tier full" in asked.stdout, asked.stdout
