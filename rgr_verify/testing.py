"""Test support: one pytest test per claim, compared with the ledger (used by the tier folders' test_claims.py).

A claim's test runs its check with the session's root seed at the session's tier, records the verdict for the
terminal summary, skips when the check could not run here (tier not selected, no GPU), and fails when the
computed status differs from the ledger. A refuted statement whose refutation is in the ledger passes.
"""

from __future__ import annotations

import json

import pytest

from .claims import all_claims, read_ledger, run_claim
from .claims.runner import replayable
from .claims.base import Claim, Tier

__all__ = ["claim_params", "check_claim_against_ledger", "weight_problems", "rule_problem"]


def claim_params(*markers: str) -> list:
    """``pytest.param`` objects, one per claim whose marker is in ``markers``, id'd by claim id, with marks
    ``symbolic``/``property``/``empirical`` plus ``slow`` (full tier) or ``gpu`` (gpu tier), unless the claim
    replays complete committed evidence (:func:`~rgr_verify.claims.runner.replayable`): then it runs in every tier."""
    from .runs.evidence import missing_evidence

    params = []
    # A claim whose committed evidence is missing altogether is not "slow": it runs, and fails (unless allowed)
    without = {cid for ids in missing_evidence(all_claims()).values() for cid in ids}
    for claim in all_claims():
        if claim.marker not in markers:
            continue
        marks = [getattr(pytest.mark, claim.marker)]
        if claim.tier is Tier.FULL and not replayable(claim) and claim.id not in without:
            marks.append(pytest.mark.slow)  # a full-tier claim with complete committed evidence replays in any tier
        elif claim.tier is Tier.GPU and not replayable(claim):  # a complete planned GPU sweep replays anywhere
            marks.append(pytest.mark.gpu)
        params.append(pytest.param(claim, id=claim.id, marks=marks))
    return params


def check_claim_against_ledger(claim: Claim, request) -> None:
    """Run ``claim`` and assert its status equals the ledger's; skip if it could not run here. A claim whose
    committed evidence is missing altogether fails, naming the store (``--allow-missing-evidence``: not run)."""
    config = request.config
    if not config.getoption("--allow-missing-evidence", default=False):
        from .runs.evidence import missing_evidence, missing_evidence_message

        missing = missing_evidence([claim])
        if missing:
            pytest.fail(f"{claim.id}: " + missing_evidence_message(missing), pytrace=False)
    tier = config.getoption("--tier", default="quick")
    root_seed = config.rgr_root_seed
    ledger = read_ledger()
    from .pytest_plugin import verdict_store

    result = run_claim(claim, tier=tier, root_seed=root_seed, ledger=ledger, store=verdict_store(config))
    verdict = result.verdict
    request.node.user_properties.append(
        ("rgr_verdict", json.dumps({"id": claim.id, "ref": claim.ref, "status": verdict.status.value,
                                    "expected": result.expected.value if result.expected else None,
                                    "ran": result.ran, "evidence_level": verdict.evidence_level,
                                    "provenance": claim.provenance, "tier": claim.tier.value,
                                    "kind": claim.kind.value, "reused": result.reused}))
    )
    if not result.ran:
        pytest.skip(f"{claim.id}: {verdict.unavailable}")
    where = f"claim {claim.id} ({claim.ref}), seed {result.seed} (root {root_seed})"
    problems = weight_problems(claim, verdict)
    if problems:
        pytest.fail(f"{where}: " + "; ".join(problems), pytrace=False)
    if result.expected is None:
        pytest.fail(f"{where}: no ledger entry; computed {verdict.status.value}. Review it, then record it with "
                    f"`rgr-verify audit --only {claim.id} --update-ledger`.\n{_explain(verdict)}", pytrace=False)
    if verdict.status is not result.expected:
        pytest.fail(f"{where}: computed {verdict.status.value}, ledger expects {result.expected.value}.\n"
                    f"{_explain(verdict)}", pytrace=False)
    problem = rule_problem(claim, ledger.get(claim.id))
    if problem:
        pytest.fail(f"{where}: {problem}", pytrace=False)


def rule_problem(claim: Claim, entry) -> str | None:
    """Why the ledger's recorded rule does not cover ``claim``'s current rule (None when it does): a rule changed
    without the ledger's review, or none recorded."""
    from .claims.fingerprint import rule_fingerprint

    now = rule_fingerprint(claim)
    if entry is None or entry.rule == now:
        return None
    if not entry.rule:
        return (f"the ledger records no rule fingerprint (now rule={now}); record it with "
                f"`rgr-verify audit --only {claim.id} --update-ledger`")
    return (f"the claim's rule changed since the ledger recorded its status (ledger rule={entry.rule}, now "
            f"rule={now}): review the verdict under the new rule, then `rgr-verify audit --only {claim.id} "
            "--update-ledger`")


def weight_problems(claim: Claim, verdict) -> list[str]:
    """What a verdict that ran lacks to carry its weight: an evidence level, a status the level allows
    (:data:`rgr_verify.claims.levels.ALLOWED`), and for a finding a declared role (its severity is computed from it)."""
    from .claims.levels import ALLOWED

    if verdict.status.value == "error":
        return []
    problems = []
    if not verdict.evidence_level:
        problems.append("the verdict records no evidence_level")
    elif verdict.evidence_level not in ALLOWED[verdict.status.value]:
        problems.append(f"status {verdict.status.value} may not rest on {verdict.evidence_level} evidence")
    if verdict.status.value in ("refuted", "contradicted-empirically") and claim.slip is None:
        problems.append("a finding must declare its slip (class, target, why): its severity comes from the table in "
                        "rgr_verify/claims/standards/severity.py")
    return problems


def _explain(verdict) -> str:
    parts = [f"measured: {verdict.measured_value}", f"paper: {verdict.paper_value}"]
    if verdict.witness is not None:
        parts.append(f"witness: {verdict.witness}")
    if verdict.details:
        parts.append(f"details: {verdict.details}")
    return "\n".join(parts)
