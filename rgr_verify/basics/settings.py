"""Every environment variable the project reads, read here and nowhere else.

| variable | what it sets | default |
| --- | --- | --- |
| ``RGR_VERIFY_RESULTS`` | the results directory (stores of trained runs) | ``~/.cache/rgr-verify/results`` |
| ``RGR_VERIFY_EVIDENCE`` | the committed evidence folder to replay | the package's ``data/evidence`` |
| ``RGR_VERIFY_SEED`` | the root seed of an audit or a test run | 20250926 |
| ``RGR_VERIFY_TIER`` | pytest's default ``--tier`` | quick |
| ``RGR_VERIFY_GPT2_DIR`` | a local snapshot of GPT-2's token embeddings (Sec. 7.3) | none |
| ``RGR_VERIFY_CUDA_GRAPHS`` | ``0`` turns CUDA graph capture off in the engine | on |
| ``RGR_VERIFY_COMPILE`` | ``1`` / ``0``: the Sec. 7.3 v3 step's loss through ``torch.compile`` (eager fallback) | on CUDA only |
| ``RGR_VERIFY_PAPER_TEXT`` | the paper's v3 text, annotated as the site's ``paper.html`` | ``shared/paper/`` beside the checkout |
| ``HYPOTHESIS_PROFILE`` | ci, dev, thorough or default: the property checks' example counts | ci |
| ``RGR_VERIFY_SWEEP_PARENT`` | set by the local executor for its workers (die with the parent) | — |
| ``RGR_VERIFY_TEST_KILL_AFTER``, ``RGR_VERIFY_TEST_KILL_ONCE`` | test hooks: a worker kills itself after N appends | — |

The one read left outside is inside a check (``rgr_verify/claims/paper_sec7/sec73.py``, whether a GPT-2 snapshot is
set): a check's source is part of its rule fingerprint, and moving the read would re-key the ``fig7-*`` rules.
pytest-xdist's own ``PYTEST_XDIST_WORKER`` is read by the pytest plugin. :func:`env` returns the raw text (or None when unset or empty) unless it says otherwise; the module that uses a
value checks it and names the variable in its error.
"""

from __future__ import annotations

import os

__all__ = ["RESULTS_ENV", "EVIDENCE_ENV", "SEED_ENV", "TIER_ENV", "GPT2_DIR_ENV", "CUDA_GRAPHS_ENV", "COMPILE_ENV",
           "PAPER_TEXT_ENV", "HYPOTHESIS_PROFILE_ENV", "PARENT_ENV", "KILL_AFTER_ENV", "KILL_ONCE_ENV", "ENV_VARS", "env"]

RESULTS_ENV = "RGR_VERIFY_RESULTS"
EVIDENCE_ENV = "RGR_VERIFY_EVIDENCE"
SEED_ENV = "RGR_VERIFY_SEED"
TIER_ENV = "RGR_VERIFY_TIER"
GPT2_DIR_ENV = "RGR_VERIFY_GPT2_DIR"
CUDA_GRAPHS_ENV = "RGR_VERIFY_CUDA_GRAPHS"
COMPILE_ENV = "RGR_VERIFY_COMPILE"
PAPER_TEXT_ENV = "RGR_VERIFY_PAPER_TEXT"
HYPOTHESIS_PROFILE_ENV = "HYPOTHESIS_PROFILE"
PARENT_ENV = "RGR_VERIFY_SWEEP_PARENT"
KILL_AFTER_ENV = "RGR_VERIFY_TEST_KILL_AFTER"
KILL_ONCE_ENV = "RGR_VERIFY_TEST_KILL_ONCE"
ENV_VARS = (RESULTS_ENV, EVIDENCE_ENV, SEED_ENV, TIER_ENV, GPT2_DIR_ENV, CUDA_GRAPHS_ENV, COMPILE_ENV, PAPER_TEXT_ENV,
            HYPOTHESIS_PROFILE_ENV, PARENT_ENV, KILL_AFTER_ENV, KILL_ONCE_ENV)


def env(name: str, default: str | None = None) -> str | None:
    """The value of the project's environment variable ``name`` (one of :data:`ENV_VARS`); ``default`` when it is
    unset or empty. ValueError for a name the project does not read (so that every variable is listed here)."""
    if name not in ENV_VARS:
        raise ValueError(f"{name!r} is not an environment variable of rgr-verify (see rgr_verify.basics.settings)")
    raw = os.environ.get(name)
    return default if raw is None or raw == "" else raw
