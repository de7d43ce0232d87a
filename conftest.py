"""Root conftest: Hypothesis profiles and per-worker thread limits.

Profiles (select with HYPOTHESIS_PROFILE): ``ci`` (default: bounded examples, no deadline, derandomized so a
rerun gives the same verdicts), ``dev`` (fewer examples), ``thorough`` (10x examples, for long runs). They are
registered by the library (:func:`rgr_verify.claims.tools.register_profiles`) so that claim checks scale their
example counts with the same profile under pytest and under ``rgr-verify audit``. Reusable strategies live in
:mod:`rgr_verify.core.strategies`, not here.

The pytest plugin (markers, ``--tier``, seed header, verdict summary) is loaded here, for this project's own suite
only: rgr-verify registers no ``pytest11`` entry point, so other projects that install it keep their markers,
options and tests (they may ask for it with ``-p rgr_verify.pytest_plugin``). The inner runs of the plugin's own
tests load it through ``$PYTEST_PLUGINS`` (``properties/test_plugin.py``, fixture ``rgr_pytester``).
"""

import os

from rgr_verify.claims.tools import register_profiles

_PLUGIN = "rgr_verify.pytest_plugin"
pytest_plugins = [_PLUGIN]

register_profiles()


def pytest_configure(config):
    # One torch thread per xdist worker: workers already use every core, and oversubscription only slows them.
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch

        torch.set_num_threads(1)
