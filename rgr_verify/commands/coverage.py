"""``rgr-verify coverage``: which sentences of the paper's experiments (Secs. 6-7, App. A, every caption) the audit
decides, from the paper's text and the coverage data (:mod:`rgr_verify.audit.coverage`).

Prints the counts and every uncovered sentence (by line and key); ``--write PATH`` writes the map as Markdown
(``docs/coverage.md``); ``--check`` exits 1 when a sentence is neither decided by a claim nor given a reason;
``--skeleton`` prints the JSON entries the data lacks (to fill in). Without ``--paper-text`` it reads the v3 text of
this machine (``$RGR_VERIFY_PAPER_TEXT`` or ``shared/paper/``), and without any text it writes the map from the data
alone (the sentences' keys and lines, not their words).
"""

from __future__ import annotations

import json
from pathlib import Path

from ._options import add_paper_text, usage_errors

NAME = "coverage"
HELP = "map the paper's experimental sentences to the claims that decide them (or why none does)"
ORDER = 26


def add_arguments(p):
    add_paper_text(p)
    p.add_argument("--write", metavar="PATH", help="write the map as Markdown to PATH (docs/coverage.md)")
    p.add_argument("--check", action="store_true", help="exit 1 when a sentence is neither covered nor given a reason")
    p.add_argument("--skeleton", action="store_true", help="print the JSON entries the coverage data lacks")


def statuses() -> dict[str, str]:
    """Each claim's recorded status (the ledger's), "not recorded" for a claim the ledger has no line for."""
    from ..claims import all_claims
    from ..claims.ledger import read_ledger

    ledger = read_ledger()
    return {c.id: (ledger[c.id].status.value if c.id in ledger else "not recorded") for c in all_claims()}


def deviations() -> dict:
    """{claim id: [(evidence, how it departs from the paper's protocol)]} of the claims fed by committed evidence
    whose manifest records a departure (``deviations``)."""
    from ..claims import all_claims
    from ..claims.preregistration import fed_claims
    from ..runs.evidence import manifests

    out: dict = {}
    claims = all_claims()
    for man in manifests():
        for c in fed_claims(man, claims) if man.deviations else ():
            out.setdefault(c.id, []).extend((man.name, d) for d in man.deviations)
    return out


def validate(args) -> str | None:
    """Check the options (a ValueError names the option); the paper's text (--paper-text, else this machine's v3
    text, else None)."""
    from ..audit.papertext import default_text_path

    path = args.paper_text if args.paper_text is not None else default_text_path()
    text = path.read_text(encoding="utf-8") if path is not None else None
    if args.write is not None:
        out = Path(args.write)
        if out.is_dir() or not out.parent.is_dir():
            raise ValueError(f"--write must name a file in an existing folder, got {args.write!r}")
    if args.skeleton and text is None:
        raise ValueError("--skeleton needs the paper's text (--paper-text FILE)")
    return text


def run(args) -> int:
    from ..basics.files import atomic_write_text
    from ..audit.coverage import (coverage_markdown, coverage_rows, load_coverage, recorded_rows, result_sentences,
                                  uncovered)

    with usage_errors():
        text = validate(args)
    data = load_coverage()
    known = statuses()
    if text is not None:
        sents = result_sentences(text)
        rows = coverage_rows(sents, data, known, deviations())
    else:
        sents, rows = [], recorded_rows(data, known, deviations())
        print("no text of the paper on this machine: the map as the data records it")
    results = result_rows(text, data)
    missing = uncovered(rows)
    n = {s: sum(r["state"] == s for r in rows) for s in ("covered", "reason", "uncovered")}
    print(f"{len(rows)} sentences: {n['covered']} decided by claims, {n['reason']} with a reason, "
          f"{n['uncovered']} uncovered")
    bare = [r for r in results if r["state"] == "uncovered"]
    print(f"{len(results)} numbered results: {len(results) - len(bare)} with claims, {len(bare)} uncovered")
    for r in missing:
        print(f"uncovered: {r['key']} ({r['label']}; {r['why']})")
    for r in bare:
        print(f"uncovered: {r['label']} (line {r['line']}; no claim bears on it)")
    if args.skeleton:
        print(json.dumps({r["key"]: {"fingerprint": r["fingerprint"], "label": r["label"],
                                     "reason": {"kind": "", "why": ""}} for r in missing}, indent=1))
    if args.write is not None:
        atomic_write_text(Path(args.write), coverage_markdown(rows, results))
        print(f"wrote {args.write}")
    return 1 if args.check and (missing or bare) else 0


def result_rows(text: str | None, data: dict) -> list[dict]:
    """The numbered results of ``text`` (the shipped v3 labels when None) with the claims that bear on them
    (:func:`rgr_verify.audit.coverage.label_rows`; statuses from the ledger)."""
    from ..claims import all_claims
    from ..audit.coverage import label_rows
    from ..audit.papertext import V3_LABELS, find_labels

    return label_rows(find_labels(text) if text is not None else V3_LABELS, all_claims(), statuses(), data)
