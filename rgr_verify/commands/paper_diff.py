"""``rgr-verify paper-diff OLD NEW``: which numbered labels of the paper (theorems, equations, figures, sections, ...)
a change between two plain-text versions touches, and the claims that rest on each.

One line per touched label, ``label (old lines a-b -> new lines c-d, edited): claim ids``, the claims that read the
changed text first (``read the changed text: ...; the rest of the label: ...``), then a count line;
"no numbered statement changed" when none. Then each result sentence of the experiments (Secs. 6-7, App. A,
captions) that NEW adds or rewords and the coverage map (:mod:`rgr_verify.audit.coverage`) does not know. ``--json
PATH`` also writes the list (see :func:`rgr_verify.audit.papertext.paper_diff`).
"""

from __future__ import annotations

import json
from pathlib import Path

from ._options import add_json_path, usage_errors

NAME = "paper-diff"
HELP = "list the paper's numbered labels a text change touches and the claims resting on them"
ORDER = 25


def add_arguments(p):
    p.add_argument("old", metavar="OLD", help="the earlier plain text of the paper (UTF-8)")
    p.add_argument("new", metavar="NEW", help="the later plain text of the paper (UTF-8)")
    add_json_path(p, dest="json", help="also write the touched labels as JSON to PATH")
    p.add_argument("--labels", metavar="FILE", help="the label file of NEW's version (rgr_verify/data/"
                   "labels-2509.22840-<version>.json format): its aliases map labels renumbered in NEW to the "
                   "claims' labels")


def _read(path: str, name: str) -> str:
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{name} must be a readable text file, got {path!r} (no such file)")
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name} must be UTF-8 text, got {path!r} (undecodable byte at offset {exc.start})") from None
    except OSError as exc:
        raise ValueError(f"{name} must be a readable text file, got {path!r} ({exc.strerror})") from None


def _span(lines) -> str:
    return "-" if lines is None else f"{lines[0]}-{lines[1]}"


def validate(args) -> tuple[str, str, dict]:
    """Check the arguments (a ValueError names the argument): the texts OLD and NEW and the aliases of --labels."""
    old, new = _read(args.old, "OLD"), _read(args.new, "NEW")
    aliases = {}
    if args.labels is not None:
        from ..core.paper_versions import load_label_set

        with usage_errors("--labels"):
            aliases = load_label_set(args.labels).aliases
    return old, new, aliases


def run(args) -> int:
    from ..claims import all_claims
    from ..audit.papertext import paper_diff

    with usage_errors():
        old, new, aliases = validate(args)
    rows = paper_diff(old, new, all_claims(), aliases=aliases)
    for r in rows:
        readers = r.get("readers") or []
        rest = [c for c in r["claims"] if c not in readers]
        if readers:
            claims = (f"read the changed text: {', '.join(readers)}" +
                      (f"; the rest of the label: {', '.join(rest)}" if rest else ""))
        else:
            claims = ", ".join(rest) or "(no claim)"
        print(f"{r['label']} (old lines {_span(r['old_lines'])} -> new lines {_span(r['new_lines'])}, "
              f"{r['change']}): {claims}")
    if rows:
        n_claims = len({c for r in rows for c in r["claims"]})
        print(f"{len(rows)} labels touched, {n_claims} claims concerned")
    else:
        print("no numbered statement changed")
    # Result sentences NEW adds (or rewords) in the experiments that the coverage map has not looked at.
    from ..audit.coverage import load_coverage, new_uncovered

    data = load_coverage()
    before = {x.fingerprint for x in new_uncovered(old, data)}
    added = [s for s in new_uncovered(new, data) if s.fingerprint not in before]
    for s in added:
        print(f"new result sentence no claim or reason covers: {s.key} ({s.label})")
    if added:
        print(f"{len(added)} new result sentences uncovered (rgr-verify coverage --paper-text NEW --skeleton)")
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0
