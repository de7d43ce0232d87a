"""Rules fixed before the evidence: which claims a stored sweep feeds, the rule fingerprints recorded with it, and
whether a claim's rule was fixed before its evidence or revised after it ("post hoc").

An evidence manifest (``evidence/NAME.json``) records, when it is added, the rule fingerprint
(:func:`~rgr_verify.claims.fingerprint.rule_fingerprint`) of every claim it feeds (``rules``) and the date they were
recorded (``rules_date``). A claim fed by a manifest is *post hoc* when its rule is not recorded there, when its
rule has changed since, or when the rules were recorded after any batch of the evidence was run (each batch of
``batches`` is judged by its own date, so a rule written between two batches is post hoc for the earlier one; the
manifests committed before fingerprints existed were given their rules later: their rules were, in fact, written after
the runs).

Which claims a manifest feeds (one place): engine stores feed the claims whose ``replays`` name the manifest's
preset (the adaptive store of a preset feeds the same claims); the Facts store (``facts-runs.jsonl``) feeds the
full-tier empirical claims of arXiv 2502.05076; the Sec. 7.3 store (``sec73-runs.jsonl``) feeds the claims of
Sec. 7.3 (``fig7-*``, ``sec73-*``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re

from .fingerprint import rule_fingerprint

__all__ = ["fed_claims", "fed_by_any", "with_rules", "post_hoc", "count_conflicts"]

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
    for man in sorted(manifests, key=lambda m: m.adaptive):  # a preset's own runs first, its adaptive store after
        if not fed_claims(man, [claim]):
            continue
        now = now or rule_fingerprint(claim)
        recorded = (man.rules or {}).get(claim.id)
        if recorded is None:
            reason = "no rule recorded with the evidence"
        elif recorded != now:
            reason = f"rule revised after the evidence was added (recorded {recorded}, now {now})"
        else:
            late = _late_batch(man)
            if late is None:
                continue
            from ..runs.replay import seed_range

            i, date, seeds = late
            reason = (f"rule recorded on {man.rules_date}, after batch {i} of the evidence "
                      f"({date or 'an unrecorded date'}, seeds {seed_range(seeds)}) was run")
        return {"evidence": man.name, "evidence_date": man.date, "rules_date": man.rules_date, "reason": reason}
    return None


def _late_batch(man):
    """(number, date, seeds) of the first batch of ``man`` trained before its rules were recorded (or on an
    unrecorded date), or None. Every batch is judged: a rule written between two batches is post hoc for the
    earlier one. A manifest without batches is one batch of its own date."""
    batches = [(b.date, b.seeds) for b in man.batches] or [(man.date, man.seeds)]
    for i, (date, seeds) in enumerate(batches, 1):
        if date is None or (man.rules_date or "") > date:
            return i, date, seeds
    return None


_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
          "twenty": 20, "thirty": 30}
# a count of seeds or runs that describes the evidence ("10 seeds", "490 runs"); not a bound or a formula ("= 32 runs",
# "n-1 seeds") and not a measured subset ("in four seeds": where something happened; "120 runs of these curves")
_COUNT = r"(?<!\bin )(?<![-=<>≤≥.\d] )(?<![-=<>≤≥.\d])\b(\d+|" + "|".join(_WORDS) + r")"
# ("N runs of these curves" counts a part of the evidence, not the evidence: not read)
_SEEDS_RE = re.compile(_COUNT + r"\s+(?:(?:confirming|other|more|random|further)\s+)?seeds\b(?! of\b)", re.I)
_RUNS_RE = re.compile(_COUNT + r"\s+(?:(?:committed|stored|paper-scale|doubled-cap|training)\s+)?runs\b(?! of\b)",
                      re.I)


def count_conflicts(claims, manifests, records_of) -> list[str]:
    """The seed and run counts stated in the statements and notes of the full-tier ``claims`` fed by ``manifests``
    that the evidence contradicts: a count of seeds must be the number of seeds of a feeding manifest, of one of its
    batches or of one of its configurations; a count of runs must be a feeding manifest's runs, its preset's, or a
    batch's. ``records_of(manifest)`` gives a manifest's records. One line per conflict (claim, count, what the
    evidence holds)."""
    from ..runs.replay import seed_counts
    from .base import Tier

    seeds_ok: dict = {}
    runs_ok: dict = {}
    for man in manifests:
        seeds_ok[man.name] = ({len(man.seeds)} | {len(b.seeds) for b in man.batches}
                              | seed_counts(records_of(man).values()))
        runs_ok[man.name] = {man.runs, man.preset_runs} | {b.runs for b in man.batches}
    out = []
    for c in claims:
        feeding = [m.name for m in manifests if c.tier is Tier.FULL and fed_claims(m, [c])]
        if not feeding:
            continue
        text = f"{c.statement} {getattr(c, 'notes', '') or ''}"
        for rx, ok, what in ((_SEEDS_RE, seeds_ok, "seeds"), (_RUNS_RE, runs_ok, "runs")):
            allowed = set().union(*(ok[n] for n in feeding))
            for hit in rx.finditer(text):
                raw = hit.group(1).lower()
                n = _WORDS.get(raw) or int(raw)
                if n not in allowed:
                    out.append(f"{c.id}: states {n} {what} ('{hit.group(0)}'); its evidence "
                               f"({', '.join(feeding)}) holds {sorted(allowed)}")
    return out
