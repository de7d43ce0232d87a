"""``rgr-verify claims``: list every claim with its reference, kind, tier and expected (ledger) status."""

from __future__ import annotations

import json

from ..claims import all_claims, read_ledger

NAME = "claims"
HELP = "list every claim with its reference and tier"
ORDER = 20


def add_arguments(p):
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args) -> int:
    ledger = read_ledger()
    rows = []
    for c in all_claims():
        entry = ledger.get(c.id)
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
