"""``rgr-verify claims``: list every claim with its reference, kind, tier and expected (ledger) status.

``rgr-verify claims --index`` prints the claims index instead (Markdown: per paper label, its claims and the module
and function that check them); ``docs/claims-index.md`` is its output.
"""

from __future__ import annotations

import json

from ..claims import all_claims, read_ledger
from ..claims.fingerprint import rule_fingerprint
from ..claims.base import RGR_PAPER
from ..audit.report import paper_title as _paper_title
from ._options import add_json_flag, add_only, add_paper, usage_errors

NAME = "claims"
HELP = "list every claim with its reference and tier"
ORDER = 20


def add_arguments(p):
    add_json_flag(p)
    p.add_argument("--status", help="only claims whose ledger status is this (e.g. refuted)")
    add_only(p)
    add_paper(p)
    p.add_argument("--index", action="store_true",
                   help="print the claims index (Markdown: label -> claims -> module and function; docs/claims-index.md)")


def validate(args) -> list | None:
    """Check the options (a ValueError names the option); the claims --only and --paper select (None: every one)."""
    from ..claims import Status, select_claims

    if args.index:
        used = [opt for opt, val in (("--json", args.json), ("--status", args.status), ("--only", args.only),
                                     ("--paper", args.paper)) if val]
        if used:
            raise ValueError(f"--index lists every claim and takes no {', '.join(used)}")
        return None
    if args.status is not None and args.status not in [st.value for st in Status if st is not Status.ERROR]:
        allowed = ", ".join(st.value for st in Status if st is not Status.ERROR)
        raise ValueError(f"--status must be one of {allowed}, got {args.status!r}")
    return select_claims(args.only, paper=args.paper) if args.only or args.paper else None


def run(args) -> int:
    with usage_errors():
        selected = validate(args)
    if args.index:
        from ..claims.index import render_index

        print(render_index(), end="")
        return 0
    ledger = read_ledger()
    rows = []
    for c in (selected if selected is not None else all_claims()):
        entry = ledger.get(c.id)
        if args.status is not None and (entry is None or entry.status.value != args.status):
            continue
        rows.append({"id": c.id, "paper": c.paper, "ref": c.ref, "kind": c.kind.value, "tier": c.tier.value,
                     "expected": entry.status.value if entry else None, "statement": c.rendered_statement(), "notes": c.notes,
                     "role": c.role or "result", "supports": list(c.supported), "provenance": c.provenance,
                     "slip": c.slip.as_record() if c.slip else None,
                     "standard": c.standard.as_record() if c.standard else None,
                     "rule_fingerprint": rule_fingerprint(c), "ledger_rule": entry.rule if entry else None})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    w = max([len(r["id"]) for r in rows] + [2])
    wr = max([len(r["ref"]) for r in rows] + [3])
    print(f"{'id':<{w}}  {'ref':<{wr}}  {'kind':<16}  {'tier':<5}  expected")
    papers = list(dict.fromkeys(r["paper"] for r in rows))
    for paper in papers:
        if len(papers) > 1 or paper != RGR_PAPER:
            print(f"-- {_paper_title(paper)}")
        for r in rows:
            if r["paper"] == paper:
                print(f"{r['id']:<{w}}  {r['ref']:<{wr}}  {r['kind']:<16}  {r['tier']:<5}  {r['expected'] or '(none)'}")
    print(f"{len(rows)} claims")
    return 0
