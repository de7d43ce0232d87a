# The rgr_verify pytest plugin: --tier gating of slow/gpu tests, the seed header, and the verdict summary.
#
# The inner runs load the plugin through $PYTEST_PLUGINS, set by the ``rgr_pytester`` fixture below. It is a fixture
# of its own, not an override of ``pytester`` in the root conftest: from pytest 9.2 on (pytest-dev/pytest#14984,
# fixtures registered per collection node), the ``pytester`` plugin, registered when this module's
# ``pytest_plugins`` is read, sits on the same node as the root conftest's fixtures and, being registered later,
# wins over a conftest override of the same name, so that override was silently not used and the inner runs had no
# plugin ("unrecognized arguments: --tier", "Unknown pytest.mark.slow"). Each check below is also run on a plain
# ``pytester`` (the plugin not loaded, the planted alternative) and must fail there.
import pytest

pytest_plugins = ["pytester"]

_PLUGIN = "rgr_verify.pytest_plugin"

_TESTS = '''
import json
import pytest

@pytest.mark.slow
def test_slow():
    pass

@pytest.mark.gpu
def test_gpu():
    pass

def test_records_verdict(request):
    request.node.user_properties.append(("rgr_verdict", json.dumps(
        {"id": "x-claim", "ref": "Sec. 3", "status": "refuted", "expected": "verified", "ran": True})))
'''


@pytest.fixture
def rgr_pytester(pytester, monkeypatch):
    """``pytester`` whose inner runs (in-process or not) load the rgr-verify plugin, as this suite does: no entry
    point loads it, ``$PYTEST_PLUGINS`` does, for the test's duration."""
    monkeypatch.setenv("PYTEST_PLUGINS", _PLUGIN)
    return pytester


@pytest.fixture
def bare_pytester(pytester, monkeypatch):
    """``pytester`` with the plugin not loaded (the planted alternative)."""
    monkeypatch.delenv("PYTEST_PLUGINS", raising=False)
    return pytester


def _quick_tier_skips_slow_and_gpu_and_summarises(pytester):
    pytester.makepyfile(test_x=_TESTS)
    result = pytester.runpytest("-p", "no:benchmark", "-rs")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(["*rgr-verify: tier=quick root seed=*", "*rgr-verify claim verdicts*", "*1 refuted*",
                                 "*MISMATCH x-claim (Sec. 3): computed refuted, ledger verified*"])
    result.stdout.fnmatch_lines(["*slow test: run with --tier full*"])


def _full_tier_runs_slow_tests(pytester):
    pytester.makepyfile(test_x=_TESTS)
    result = pytester.runpytest("-p", "no:benchmark", "--tier", "full")
    result.assert_outcomes(passed=2, skipped=1)


def _gpu_tier_without_cuda_skips_with_reason(pytester):
    import torch

    pytester.makepyfile(test_x=_TESTS)
    result = pytester.runpytest("-p", "no:benchmark", "--tier", "gpu", "-rs")
    if torch.cuda.is_available():
        result.assert_outcomes(passed=3)
    else:
        result.assert_outcomes(passed=2, skipped=1)
        result.stdout.fnmatch_lines(["*no CUDA device here (claim is inconclusive)*"])


_CHECKS = [_quick_tier_skips_slow_and_gpu_and_summarises, _full_tier_runs_slow_tests,
           _gpu_tier_without_cuda_skips_with_reason]


def test_quick_tier_skips_slow_and_gpu_and_summarises(rgr_pytester):
    _quick_tier_skips_slow_and_gpu_and_summarises(rgr_pytester)


def test_full_tier_runs_slow_tests(rgr_pytester):
    _full_tier_runs_slow_tests(rgr_pytester)


def test_gpu_tier_without_cuda_skips_with_reason(rgr_pytester):
    _gpu_tier_without_cuda_skips_with_reason(rgr_pytester)


@pytest.mark.parametrize("check", _CHECKS, ids=lambda f: f.__name__.strip("_"))
def test_checks_fail_without_the_plugin(bare_pytester, check):
    # The alternative each check must be able to see: the same inner run with the plugin not loaded.
    with pytest.raises((AssertionError, ValueError)):
        check(bare_pytester)


def test_bad_tier_is_a_usage_error(rgr_pytester):
    rgr_pytester.makepyfile(test_x=_TESTS)
    result = rgr_pytester.runpytest("-p", "no:benchmark", "--tier", "medium")
    assert result.ret == 4  # pytest usage error
