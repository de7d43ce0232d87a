"""The claims registry: every checkable statement of the paper as a :class:`Claim` with a computed verdict.

Claims live in ``paper_<part>.py`` modules of this package (one per part of the paper), each defining a
``CLAIMS`` tuple and an ``ORDER``; :func:`all_claims` discovers them. The expected verdicts are in
``ledger.txt``.
"""

from .base import (
    DEFAULT_SEED,
    SEED_ENV,
    TIERS,
    CheckContext,
    Claim,
    Kind,
    Status,
    Tier,
    Verdict,
    claim_seed,
    jsonable,
)
from .ledger import LEDGER_PATH, read_ledger, write_ledger
from .registry import all_claims, claim_modules, get_claim, select_claims
from .runner import ClaimResult, default_device, root_seed_from_env, run_claim, run_claims

__all__ = [
    "DEFAULT_SEED",
    "SEED_ENV",
    "TIERS",
    "CheckContext",
    "Claim",
    "ClaimResult",
    "Kind",
    "LEDGER_PATH",
    "Status",
    "Tier",
    "Verdict",
    "all_claims",
    "claim_modules",
    "claim_seed",
    "default_device",
    "get_claim",
    "jsonable",
    "read_ledger",
    "root_seed_from_env",
    "run_claim",
    "run_claims",
    "select_claims",
    "write_ledger",
]
