"""Re-record the rule fingerprints of one scheme under the next, once per step (issue 42): 1 -> 2, then 2 -> 3.

The ledger's ``rule=`` column and the evidence manifests' ``rules`` hold fingerprints of the ledger's scheme
(:mod:`rgr_verify.claims.fingerprint`). A recorded fingerprint that equals the claim's fingerprint under that scheme
now is the same rule: :func:`migrate` re-records it with the claim's fingerprint under the next scheme and keeps the
pair ``[old scheme, new scheme]``. A recorded fingerprint that does not equal it belongs to a rule revised since (or
to a claim that no longer exists): it is left as is, and stays a revision under the new scheme. The ledger's
``# rule-scheme:`` line moves to the new scheme. Nothing else changes: the ledger
keeps its statuses, notes and layout, a manifest keeps every other field and its ``rules_date`` (the rule was
recorded then; only its name changes), and the pairs are written once to :data:`PAIRS_PATH`, so that the old
fingerprint of every migrated rule stays known (``properties/test_fingerprint_scheme.py`` checks each old scheme
against it).

Run once per step, after review, with ``python -m rgr_verify.claims.fingerprint_migration --to N --write`` (without
``--write`` it only reports what it would change), in the same change that sets
:data:`rgr_verify.claims.fingerprint.ACTIVE_SCHEME` to N.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Mapping

from ..basics.files import atomic_write_text
from .fingerprint import rule_fingerprint

__all__ = ["migrate", "run", "read_pairs", "pairs_file", "PAIRS_PATH"]


def pairs_file(to_scheme: int) -> Path:
    """The pairs file of the migration to ``to_scheme`` (from the scheme before it)."""
    return Path(__file__).resolve().parents[1] / "data" / f"rule-fingerprints-scheme-{to_scheme - 1}-to-{to_scheme}.json"


PAIRS_PATH = pairs_file(2)  # the first migration's


def read_pairs(path: Path | str | None = None, *, to_scheme: int = 2) -> dict[str, list[str]]:
    """{claim id: [old fingerprint, new fingerprint]} of the migration to ``to_scheme`` ({} before it ran)."""
    path = Path(path) if path is not None else pairs_file(to_scheme)
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("from_scheme") != to_scheme - 1 or data.get("to_scheme") != to_scheme or \
            not isinstance(data.get("pairs"), dict):
        raise ValueError(f"{path}: not the pairs of the scheme {to_scheme - 1} -> {to_scheme} migration")
    return {cid: list(p) for cid, p in data["pairs"].items()}


def migrate(ledger_text: str, manifests: Mapping[str, str], claims=None, *, to_scheme: int = 2) \
        -> tuple[str, dict[str, str], dict]:
    """``(new ledger text, {name: new manifest text}, pairs)``: every recorded fingerprint (a ledger line's
    ``rule=``, a manifest's ``rules`` entry) equal to its claim's fingerprint under scheme ``to_scheme - 1``
    replaced by the one under ``to_scheme``; the others (a rule revised since, an unknown claim) left as they are.
    ``manifests`` maps a manifest's name to its JSON text; only the fingerprints change in it (the text is edited in
    place, so the layout stays). ``pairs``: {claim id: [old, new]} of every claim re-recorded somewhere. The ledger's
    ``# rule-scheme:`` line is set to ``to_scheme``. Running it again on its own output changes nothing where the
    two fingerprints of a rule differ (a new fingerprint is no claim's old one)."""
    if claims is None:
        from .registry import all_claims

        claims = all_claims()
    by_id = {c.id: c for c in claims}
    known: dict = {}
    pairs: dict = {}

    def same_rule(cid: str, recorded: str) -> str | None:
        """The scheme-2 fingerprint to record instead of ``recorded``, or None to leave it."""
        if cid not in by_id:
            return None
        if cid not in known:
            known[cid] = (rule_fingerprint(by_id[cid], scheme=to_scheme - 1),
                          rule_fingerprint(by_id[cid], scheme=to_scheme))
        old, new = known[cid]
        if recorded != old:
            return None
        pairs[cid] = [old, new]
        return new

    lines = []
    for raw in ledger_text.splitlines(keepends=True):
        if raw.startswith(f"# rule-scheme: {to_scheme - 1} "):
            raw = raw.replace(f"# rule-scheme: {to_scheme - 1} ", f"# rule-scheme: {to_scheme} ", 1)
        line, sep, note = raw.partition("#")
        parts = line.split()
        if len(parts) == 3 and parts[2].startswith("rule="):
            new = same_rule(parts[0], parts[2][len("rule="):])
            if new is not None:
                raw = line.replace(parts[2], f"rule={new}", 1) + sep + note
        lines.append(raw)

    out = {}
    for name, text in manifests.items():
        data = json.loads(text)
        rules = dict(data.get("rules") or {})
        for cid, recorded in sorted((data.get("rules") or {}).items()):
            new = same_rule(cid, recorded)
            if new is None:
                continue
            needle = f"{json.dumps(cid)}: {json.dumps(recorded)}"
            if text.count(needle) != 1:
                raise ValueError(f"manifest {name}: the rule of {cid} ({recorded}) is not written once as {needle}")
            text = text.replace(needle, f"{json.dumps(cid)}: {json.dumps(new)}")
            rules[cid] = new
        check = json.loads(text)
        if check.get("rules", {}) != rules or {k: v for k, v in check.items() if k != "rules"} != \
                {k: v for k, v in data.items() if k != "rules"}:
            raise ValueError(f"manifest {name}: the migration would change more than its rules")
        out[name] = text
    return "".join(lines), out, dict(sorted(pairs.items()))


def run(*, write: bool = False, ledger_path: Path | str | None = None, evidence_dir: Path | str | None = None,
        pairs_path: Path | str | None = None, date: str | None = None, to_scheme: int = 2) -> dict:
    """Migrate the ledger and the evidence manifests (default: the package's own), and with ``write`` write them
    and the pairs (once: an existing pairs file is a ValueError). Returns a summary: how many recorded fingerprints
    were re-recorded and which were left (claim id, where, recorded fingerprint)."""
    from .ledger import LEDGER_PATH
    from ..runs.replay import PACKAGE_EVIDENCE

    ledger_path = Path(ledger_path) if ledger_path is not None else LEDGER_PATH
    evidence_dir = Path(evidence_dir) if evidence_dir is not None else PACKAGE_EVIDENCE
    pairs_path = Path(pairs_path) if pairs_path is not None else pairs_file(to_scheme)
    if write and pairs_path.exists():
        raise ValueError(f"{pairs_path} exists: the migration ran already (it is written once)")
    ledger_text = ledger_path.read_text(encoding="utf-8")
    paths = {p.stem: p for p in sorted(evidence_dir.glob("*.json"))}
    texts = {name: p.read_text(encoding="utf-8") for name, p in paths.items()}
    new_ledger, new_texts, pairs = migrate(ledger_text, texts, to_scheme=to_scheme)
    migrated = {p[0] for p in pairs.values()}
    left = []
    for raw in new_ledger.splitlines():
        parts = raw.partition("#")[0].split()
        if len(parts) == 3 and parts[2].startswith("rule=") and parts[0] not in pairs:
            left.append((parts[0], "ledger", parts[2][len("rule="):]))
    for name, text in new_texts.items():
        for cid, fp in sorted((json.loads(text).get("rules") or {}).items()):
            if pairs.get(cid, [None, None])[1] != fp:
                left.append((cid, name, fp))
    summary = {"ledger_rules": sum(a != b and "rule=" in a for a, b in zip(ledger_text.splitlines(), new_ledger.splitlines())),
               "manifest_rules": {n: sum(1 for cid, fp in (json.loads(t).get("rules") or {}).items()
                                         if pairs.get(cid, [None, None])[1] == fp) for n, t in new_texts.items()},
               "pairs": len(pairs), "left": left, "written": False}
    if to_scheme == 2 and migrated & {p[1] for p in pairs.values()}:
        raise ValueError("a scheme-1 fingerprint equals a scheme-2 one")
    if write:
        atomic_write_text(pairs_path, json.dumps({
            "from_scheme": to_scheme - 1, "to_scheme": to_scheme, "date": date or _dt.date.today().isoformat(),
            "about": "rule fingerprints re-recorded by rgr_verify.claims.fingerprint_migration: claim id -> "
                     f"[scheme {to_scheme - 1}, scheme {to_scheme}] of the same rule",
            "pairs": pairs}, indent=2, sort_keys=False) + "\n")
        if new_ledger != ledger_text:
            atomic_write_text(ledger_path, new_ledger)
        for name, text in new_texts.items():
            if text != texts[name]:
                atomic_write_text(paths[name], text)
        summary["written"] = True
    return summary


def _main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m rgr_verify.claims.fingerprint_migration",
                                 description="Re-record rule fingerprints under the next scheme (once per step).")
    ap.add_argument("--to", type=int, choices=(2, 3), default=2, help="the scheme to migrate to (from the one before)")
    ap.add_argument("--write", action="store_true", help="write the ledger, the manifests and the pairs file")
    args = ap.parse_args(argv)
    s = run(write=args.write, to_scheme=args.to)
    print(f"ledger lines re-recorded: {s['ledger_rules']}")
    for name, n in s["manifest_rules"].items():
        print(f"  {name}: {n} rules re-recorded")
    print(f"pairs: {s['pairs']}{' (written to ' + str(pairs_file(args.to)) + ')' if s['written'] else ' (dry run)'}")
    for cid, where, fp in s["left"]:
        print(f"left as recorded (rule revised since, or unknown claim): {cid} in {where}: {fp}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
