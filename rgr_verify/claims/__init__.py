"""The claims registry: every checkable statement of the paper as a :class:`Claim` with a computed verdict.

Claims live in one place per part of the paper: a module ``paper_<part>.py`` of this package, or a package
``paper_<part>/`` split by topic; each claims module defines a ``CLAIMS`` tuple and an ``ORDER``, and
:func:`all_claims` discovers them. Every claim sits in the part its ``ref`` names and its id starts with the prefix
that label implies (:mod:`.labels`); ``docs/claims-index.md`` (:mod:`.index`) lists every label's claims with the
module and function that check them. What checks share is the toolkit :mod:`.tools` (and :mod:`.symbolic` for
the symbolic ones). The expected verdicts are in ``ledger.txt``.
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
