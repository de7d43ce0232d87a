"""Root conftest: Hypothesis profiles and per-worker thread limits.

Profiles (select with HYPOTHESIS_PROFILE): ``ci`` (default: bounded examples, no deadline, derandomized so a
rerun gives the same verdicts), ``dev`` (same, fewer examples), ``thorough`` (10x examples, for long runs).
Reusable strategies live in :mod:`rgr_verify.strategies`, not here.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", max_examples=30, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    # One torch thread per xdist worker: workers already use every core, and oversubscription only slows them.
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch

        torch.set_num_threads(1)
