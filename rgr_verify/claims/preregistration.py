"""Rules fixed before the evidence: which claims a stored sweep feeds, the rule fingerprints recorded with it, and
whether a claim's rule was fixed before its evidence or revised after it ("post hoc").

An evidence manifest (``evidence/NAME.json``) records, when it is added, the rule fingerprint
(:func:`~rgr_verify.claims.fingerprint.rule_fingerprint`) of every claim it feeds (``rules``) and the date they were
recorded (``rules_date``). A claim fed by a manifest is *post hoc* when its rule is not recorded there, when its
rule has changed since, or when the rules were recorded after the evidence's own date (the manifests committed
before fingerprints existed were given their rules later: their rules were, in fact, written after the runs).

Which claims a manifest feeds (one place): engine stores feed the claims whose ``replays`` name the manifest's
preset (the adaptive store of a preset feeds the same claims); the Facts store (``facts-runs.jsonl``) feeds the
full-tier empirical claims of arXiv 2502.05076; the Sec. 7.3 store (``sec73-runs.jsonl``) feeds the claims of
Sec. 7.3 (``fig7-*``, ``sec73-*``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt

from .fingerprint import rule_fingerprint

__all__ = ["fed_claims", "fed_by_any", "with_rules", "post_hoc"]

FACTS_PAPER = "2502.05076"


def fed_by_any(manifests, claims) -> dict:
    """{claim id: claim} of the ``claims`` that some manifest of ``manifests`` feeds (:func:`fed_claims`)."""
    return {c.id: c for m in manifests for c in fed_claims(m, claims)}


def fed_claims(manifest, claims=None) -> list:
    """The claims that read ``manifest``'s records (see the module docstring for the rule)."""
    from .base import Tier
    from .registry import all_claims

    claims = all_claims() if claims is None else claims
    if manifest.engine:
        return [c for c in claims if manifest.preset in c.replays]
    if manifest.store == "facts-runs.jsonl":
        return [c for c in claims if c.paper == FACTS_PAPER and c.tier is Tier.FULL and c.marker == "empirical"]
    if manifest.store == "sec73-runs.jsonl":
        if manifest.plan and manifest.plan.split(":")[0] != "sec73":
            return []  # another engine's plan (sec73v3:...): its records are no runs the claims read (v1 keys)
        return [c for c in claims if c.id.startswith(("fig7-", "sec73-"))]
    return []


def with_rules(manifest, claims=None, *, date: str | None = None):
    """``manifest`` with the rule fingerprints of the claims it feeds, recorded on ``date`` (default today)."""
    if date is not None:
        try:
            _dt.date.fromisoformat(date)
        except (TypeError, ValueError):
            raise ValueError(f"date must be an ISO date (YYYY-MM-DD), got {date!r}") from None
    rules = {c.id: rule_fingerprint(c) for c in fed_claims(manifest, claims)}
    return dataclasses.replace(manifest, rules=dict(sorted(rules.items())),
                               rules_date=date or _dt.date.today().isoformat())


def post_hoc(claim, manifests) -> dict | None:
    """Why ``claim``'s rule is post hoc with respect to the first manifest feeding it that makes it so, or None
    when every manifest feeding it recorded its current rule no later than its own date (or none feeds it)."""
    now = None
    for man in manifests:
        if not fed_claims(man, [claim]):
            continue
        now = now or rule_fingerprint(claim)
        recorded = (man.rules or {}).get(claim.id)
        if recorded is None:
            reason = "no rule recorded with the evidence"
        elif recorded != now:
            reason = f"rule revised after the evidence was added (recorded {recorded}, now {now})"
        elif man.date is None or (man.rules_date or "") > man.date:
            reason = (f"rule recorded on {man.rules_date}, after the evidence of {man.date or 'an unrecorded date'} "
                      "was run")
        else:
            continue
        return {"evidence": man.name, "evidence_date": man.date, "rules_date": man.rules_date, "reason": reason}
    return None
