"""``rgr-verify claims``: list every claim with its reference, kind, tier and expected (ledger) status."""

from __future__ import annotations

import json

from ..claims import all_claims, read_ledger

NAME = "claims"
HELP = "list every claim with its reference and tier"
ORDER = 20


def add_arguments(p):
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--status", help="only claims whose ledger status is this (e.g. refuted)")
    p.add_argument("--only", metavar="PATTERN", help="comma-separated globs on claim ids or references")


def run(args) -> int:
    from ..claims import Status, select_claims

    if args.status is not None and args.status not in [st.value for st in Status if st is not Status.ERROR]:
        allowed = ", ".join(st.value for st in Status if st is not Status.ERROR)
        raise ValueError(f"--status must be one of {allowed}, got {args.status!r}")
    ledger = read_ledger()
    rows = []
    for c in (select_claims(args.only) if args.only else all_claims()):
        entry = ledger.get(c.id)
        if args.status is not None and (entry is None or entry.status.value != args.status):
            continue
        rows.append({"id": c.id, "ref": c.ref, "kind": c.kind.value, "tier": c.tier.value,
                     "expected": entry.status.value if entry else None, "statement": c.statement, "notes": c.notes})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    w = max([len(r["id"]) for r in rows] + [2])
    wr = max([len(r["ref"]) for r in rows] + [3])
    print(f"{'id':<{w}}  {'ref':<{wr}}  {'kind':<16}  {'tier':<5}  expected")
    for r in rows:
        print(f"{r['id']:<{w}}  {r['ref']:<{wr}}  {r['kind']:<16}  {r['tier']:<5}  {r['expected'] or '(none)'}")
    print(f"{len(rows)} claims")
    return 0
