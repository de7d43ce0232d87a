# The rgr_verify pytest plugin: --tier gating of slow/gpu tests, the seed header, and the verdict summary.
import json

pytest_plugins = ["pytester"]

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


def test_quick_tier_skips_slow_and_gpu_and_summarises(pytester):
    pytester.makepyfile(test_x=_TESTS)
    result = pytester.runpytest("-p", "no:benchmark", "-rs")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(["*rgr-verify: tier=quick root seed=*", "*rgr-verify claim verdicts*", "*1 refuted*",
                                 "*MISMATCH x-claim (Sec. 3): computed refuted, ledger verified*"])
    result.stdout.fnmatch_lines(["*slow test: run with --tier full*"])


def test_full_tier_runs_slow_tests(pytester):
    pytester.makepyfile(test_x=_TESTS)
    result = pytester.runpytest("-p", "no:benchmark", "--tier", "full")
    result.assert_outcomes(passed=2, skipped=1)


def test_gpu_tier_without_cuda_skips_with_reason(pytester):
    import torch

    pytester.makepyfile(test_x=_TESTS)
    result = pytester.runpytest("-p", "no:benchmark", "--tier", "gpu", "-rs")
    if torch.cuda.is_available():
        result.assert_outcomes(passed=3)
    else:
        result.assert_outcomes(passed=2, skipped=1)
        result.stdout.fnmatch_lines(["*no CUDA device here (claim is inconclusive)*"])


def test_bad_tier_is_a_usage_error(pytester):
    pytester.makepyfile(test_x=_TESTS)
    result = pytester.runpytest("-p", "no:benchmark", "--tier", "medium")
    assert result.ret == 4  # pytest usage error
    assert json  # keep import used for readability of _TESTS
