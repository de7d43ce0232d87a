"""Audit reports: the claims table for the terminal and the JSON record of every verdict (report.md: :mod:`rgr_verify.audit.report_md`).

JSON schema (``schema = "rgr-verify/audit/2"``): a header (tier, root_seed, device, versions, ``run`` (the command
line, the commit of the checkout and the UTC date, when the caller passes them: :func:`run_meta`), summary counts by
status, paper, provenance, evidence level and severity), ``findings`` (ids ranked by
:func:`rgr_verify.claims.structure.ranked_findings`),
``rollup`` (per label and per contribution, :func:`rgr_verify.claims.structure.rollup`; each contribution with its
verdict in one plain sentence, ``sentence``) and ``claims``, one record per claim with ``id, paper, ref, statement,
kind, tier, status, expected, matches, ran, paper_value, measured_value, witness, params, seed, evidence, details,
notes, artefacts, seconds, evidence_level, role, supports, supports_at (the place of the paper behind each supports
edge), provenance, nodes, severity, severity_reason, severity_links``.
Files are written to a temporary name and renamed into place, so a report is either whole or absent.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from ..claims.base import PAPERS, PROVENANCES, RGR_PAPER, SEVERITIES, Status, jsonable, paper_parts
from ..claims.levels import LEVELS
from ..claims.runner import ClaimResult
from ..claims.structure import annotate, ranked_findings, rollup
from ..claims.verdict_store import git_commit, library_versions  # what a stored verdict records and is keyed by

__all__ = ["SCHEMA", "NOT_RUN", "SCALES", "shown_status", "paper_title", "group_by_paper", "result_record",
           "audit_document", "render_table", "short_text", "findings_by_scope", "scale_of", "run_meta",
           "command_line"]

# How a claim that could not run here (no GPU, tier not selected) is shown: its status is inconclusive.
NOT_RUN = "inconclusive (not run)"


def shown_status(record: dict) -> str:
    """A record's status as reports show it: its status, or :data:`NOT_RUN` when the check could not run here."""
    return record["status"] if record["ran"] else NOT_RUN


SCHEMA = "rgr-verify/audit/2"


def paper_title(paper: str) -> str:
    """The heading of a paper group: the paper's title, or "Cross-paper claims (A x B)" for a joined id."""
    parts = paper_parts(paper)
    return PAPERS[paper] if len(parts) == 1 else "Cross-paper claims (" + " x ".join(f"arXiv {p}" for p in parts) + ")"


def group_by_paper(records: list[dict]) -> list[tuple[str, list[dict]]]:
    """Records grouped by their ``paper`` (missing: the RGR paper), groups in order of first appearance."""
    groups: dict[str, list[dict]] = {}
    for r in records:
        groups.setdefault(r.get("paper") or RGR_PAPER, []).append(r)
    return list(groups.items())


def result_record(result: ClaimResult) -> dict:
    """The JSON record of one claim's result."""
    c, v = result.claim, result.verdict
    return {
        "id": c.id,
        "paper": c.paper,
        "ref": c.ref,
        "statement": c.rendered_statement(result.stated),
        "stated": {name: {"value": jsonable((result.stated or {}).get(name, st.value)), "kind": st.kind,
                          "note": st.note, **({"unmutated": st.unmutated} if st.unmutated else {}),
                          **({"bound": st.bound} if getattr(st, "bound", "") else {})}
                   for name, st in c.expects.items()},
        "kind": c.kind.value,
        "tier": c.tier.value,
        "status": v.status.value,
        "expected": result.expected.value if result.expected is not None else None,
        "matches": result.matches,
        "ran": result.ran,
        "paper_value": jsonable(v.paper_value),
        "measured_value": jsonable(v.measured_value),
        "witness": jsonable(v.witness),
        "params": jsonable(v.params),
        "seed": result.seed,
        "evidence": v.evidence,
        "details": v.details,
        "notes": c.notes,
        "artefacts": list(v.artefacts),
        "seconds": round(result.seconds, 3),
        "evidence_level": v.evidence_level or None,
        "role": c.role or "result",
        "role_declared": bool(c.role),
        "supports": list(c.supports),
        "provenance": c.provenance,
        "slip": c.slip.as_record() if c.slip else None,
        "standard": c.standard.as_record() if c.standard else None,
        "robustness": jsonable((v.params or {}).get("robustness")) if isinstance(v.params, dict) else None,
        "reused": dict(result.reused) if result.reused else None,  # {commit, date}: a stored verdict, not run now
    }


def command_line(name: str, args=None, argv: list[str] | None = None) -> str:
    """The command line of a ``rgr-verify name`` run: ``argv`` (default ``sys.argv``) as typed when it names the
    command, else rebuilt from the parsed ``args`` (every option that is set, defaults included)."""
    argv = sys.argv if argv is None else argv
    if len(argv) > 1 and argv[1] == name:
        return shlex.join(["rgr-verify", *argv[1:]])
    parts = ["rgr-verify", name]
    for key, val in sorted(vars(args).items()) if args is not None else ():
        if key.startswith("_") or key == "command" or val is None or val is False:
            continue
        flag = "--" + key.replace("_", "-")
        parts += [flag] if val is True else [flag, str(val)]
    return shlex.join(parts)


def run_meta(command: str, *, root: Path | None = None) -> dict:
    """The ``meta`` of :func:`audit_document`: the command line, the commit of the checkout and the date (UTC)."""
    return {"command": command, "commit": git_commit(root),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")}


def audit_document(results: Iterable[ClaimResult], *, tier: str, root_seed: int, device: str,
                   meta: dict | None = None) -> dict:
    """The whole JSON document of an audit. ``meta`` (:func:`run_meta`): {command, commit, date} of the run, kept
    in the header as ``run``."""
    from ..basics.version import VERSION as __version__

    results = list(results)
    records = annotate([result_record(r) for r in results])
    _add_rules(records, results)
    counts = Counter(shown_status(r) for r in records)
    ranked = ranked_findings(records)
    return {
        "schema": SCHEMA,
        "paper": "arXiv 2509.22840 v3, 'A Capacity-Based Rationale for Multi-Head Attention'",
        "tier": tier,
        "root_seed": root_seed,
        "device": device,
        **({"run": {k: meta.get(k) for k in ("command", "commit", "date")}} if meta is not None else {}),
        "versions": {"rgr_verify": __version__, **library_versions()},  # the ones a stored verdict is keyed by
        "summary": {
            "claims": len(records),
            "by_status": dict(sorted(counts.items())),
            "mismatches": [r["id"] for r in records if r["matches"] is False],
            "findings_by_scope": {title: [r["id"] for r in group] for title, group in findings_by_scope(
                [r for r in records if r["status"] in (Status.REFUTED.value, Status.CONTRADICTED_EMPIRICALLY.value)])},
            "by_paper": {paper: dict(sorted(Counter(shown_status(r) for r in recs).items()))
                         for paper, recs in group_by_paper(records)},
            "by_provenance": {prov: dict(sorted(Counter(shown_status(r) for r in records
                                                        if r["provenance"] == prov).items()))
                              for prov in PROVENANCES if any(r["provenance"] == prov for r in records)},
            "by_level": {lvl: dict(sorted(Counter(r["status"] for r in records
                                                  if r["ran"] and r["evidence_level"] == lvl).items()))
                         for lvl in LEVELS if any(r["ran"] and r["evidence_level"] == lvl for r in records)},
            "findings_by_severity": {sev: [r["id"] for r in ranked if r["severity"] == sev] for sev in SEVERITIES},
            "post_hoc": [r["id"] for r in records if r["post_hoc"]],
            "by_scale": {scale: dict(sorted(Counter(shown_status(r) for r in records if scale_of(r) == scale).items()))
                         for scale in SCALES if any(scale_of(r) == scale for r in records)},
        },
        "findings": [r["id"] for r in ranked],
        "rollup": rollup(records),
        "papers": {paper: paper_title(paper) for paper, _ in group_by_paper(records)},
        "claims": records,
    }


SCALES = ("paper-scale experiment", "quick analogue", "theory and properties")


def scale_of(rec: dict) -> str:
    """Which of :data:`SCALES` a verdict record belongs to: a paper-scale experiment (level ``experiment``, or an
    experimental full/gpu-tier claim that did not run), a quick analogue (level ``analogue`` or an id ending in
    ``-quick``), or theory and properties (symbolic, property and statistical checks)."""
    lvl = rec.get("evidence_level")
    if lvl == "experiment":
        return SCALES[0]
    if lvl == "analogue" or str(rec.get("id", "")).endswith("-quick"):
        return SCALES[1]
    if not rec.get("ran") and rec.get("tier") in ("full", "gpu") and rec.get("kind") in ("empirical", "qualitative"):
        return SCALES[0]
    return SCALES[2]


def _add_rules(records: list[dict], results: list[ClaimResult]) -> None:
    """Each record's rule fingerprint, whether its rule was fixed after its evidence (``post_hoc``: None, or
    the manifest, dates and reason; :mod:`rgr_verify.claims.preregistration`), and the committed evidence that feeds
    it (``evidence_batches``: per manifest its seeds, its batches and where it departs from the paper's protocol)."""
    from ..claims.fingerprint import rule_fingerprint
    from ..claims.preregistration import fed_claims, post_hoc
    from ..runs.evidence import manifests

    mans = manifests()
    for rec, res in zip(records, results):
        rec["rule_fingerprint"] = rule_fingerprint(res.claim)
        rec["post_hoc"] = post_hoc(res.claim, mans)
        rec["evidence_batches"] = [{"evidence": m.name, "seeds": list(m.seeds), "rules_date": m.rules_date,
                                    "batches": [b.to_dict() for b in m.batches], "deviations": list(m.deviations)}
                                   for m in mans if fed_claims(m, [res.claim])]


def short_text(value, width: int) -> str:
    """``value`` as one line of at most ``width`` characters (cut with an ellipsis)."""
    text = value if isinstance(value, str) else json.dumps(jsonable(value), separators=(",", ":"))
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def render_table(doc: dict, *, width: int = 160) -> str:
    """A plain-text table: id, reference, status (with ledger mark), paper value, measured value."""
    rows = [("id", "ref", "status", "paper value", "measured value")]
    groups = group_by_paper(doc["claims"])
    for paper, recs in groups:
        if len(groups) > 1:
            rows.append((f"== {paper_title(paper)}", "", "", "", ""))
        for r in recs:
            status = shown_status(r)
            if r["matches"] is False:
                status += f" (ledger: {r['expected'] or 'no entry'})"
            rows.append((r["id"], r["ref"], status, r["paper_value"], r["measured_value"]))
    w_id = min(48, max(len(str(r[0])) for r in rows if not str(r[0]).startswith("== ")))
    w_ref = min(16, max(len(str(r[1])) for r in rows))
    w_st = min(34, max(len(str(r[2])) for r in rows))
    rest = max(20, width - w_id - w_ref - w_st - 8)
    w_pv, w_mv = rest // 2, rest - rest // 2
    lines = []
    for i, (cid, ref, st, pv, mv) in enumerate(rows):
        if str(cid).startswith("== "):
            lines.append(str(cid))
            continue
        lines.append(f"{short_text(cid, w_id):<{w_id}}  {short_text(ref, w_ref):<{w_ref}}  {short_text(st, w_st):<{w_st}}  "
                     f"{short_text(pv, w_pv):<{w_pv}}  {short_text(mv, w_mv)}".rstrip())
        if i == 0:
            lines.append("-" * min(width, len(lines[0]) + 10))
    s = doc["summary"]
    by = ", ".join(f"{n} {k}" for k, n in s["by_status"].items())
    lines.append("")
    lines.append(f"{s['claims']} claims: {by}. Ledger mismatches: {len(s['mismatches'])}"
                 + (f" ({', '.join(s['mismatches'])})" if s["mismatches"] else ""))
    if len(s.get("by_paper", {})) > 1:
        for paper, counts in s["by_paper"].items():
            lines.append(f"  {paper}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    return "\n".join(lines)


def findings_by_scope(findings: list[dict]) -> list[tuple[str, list[dict]]]:
    """Findings split by the scope their check recorded (``params["refuted_under"]``, see
    ``claims.tools.reading_record``): under every reading, under a named reading, and without a reading record."""
    groups = {"every": [], "named": [], "unrecorded": []}
    for r in findings:
        scope = str((r.get("params") or {}).get("refuted_under", "unrecorded"))
        key = "every" if scope == "every reading" else ("named" if scope.startswith("reading") else "unrecorded")
        groups[key].append(r)
    titles = {"every": "Refuted under every reading", "named": "Refuted under a named reading",
              "unrecorded": "Refuted (no reading record)"}
    return [(titles[k], v) for k, v in groups.items() if v]
