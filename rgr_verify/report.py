"""Audit reports: the claims table for the terminal, ``report.md`` and the JSON record of every verdict.

JSON schema (``schema = "rgr-verify/audit/2"``): a header (tier, root_seed, device, versions, summary counts by
status, paper, provenance, evidence level and severity), ``findings`` (ids ranked by severity, then evidence level),
``rollup`` (per label and per contribution, :func:`rgr_verify.claims.structure.rollup`) and ``claims``, one record
per claim with ``id, paper, ref, statement, kind, tier, status, expected, matches, ran, paper_value, measured_value,
witness, params, seed, evidence, details, notes, artefacts, seconds, evidence_level, role, supports, provenance,
nodes, severity, severity_reason, severity_links``.
Files are written to a temporary name and renamed into place, so a report is either whole or absent.
"""

from __future__ import annotations

import json
import platform
from collections import Counter
from pathlib import Path
from typing import Iterable

from ._files import atomic_write_text
from .claims.base import PAPERS, PROVENANCES, RGR_PAPER, SEVERITIES, Status, jsonable, paper_parts
from .claims.levels import LEVELS
from .claims.runner import ClaimResult
from .claims.structure import annotate, ranked_findings, rollup

__all__ = ["SCHEMA", "NOT_RUN", "shown_status", "paper_title", "group_by_paper", "result_record", "audit_document", "render_table", "render_markdown",
           "atomic_write_text", "findings_by_scope"]

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
        "statement": c.statement,
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
        "declared_severity": list(c.severity) if c.severity else None,
        "robustness": jsonable((v.params or {}).get("robustness")) if isinstance(v.params, dict) else None,
    }


def audit_document(results: Iterable[ClaimResult], *, tier: str, root_seed: int, device: str) -> dict:
    """The whole JSON document of an audit."""
    import numpy
    import sympy
    import torch

    from . import __version__

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
        "versions": {"rgr_verify": __version__, "python": platform.python_version(), "torch": torch.__version__,
                     "numpy": numpy.__version__, "sympy": sympy.__version__},
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
    """Each record's rule fingerprint, and whether its rule was fixed after its evidence (``post_hoc``: None, or
    the manifest, dates and reason; :mod:`rgr_verify.claims.preregistration`)."""
    from .claims.fingerprint import rule_fingerprint
    from .claims.preregistration import post_hoc
    from .evidence import manifests

    mans = manifests()
    for rec, res in zip(records, results):
        rec["rule_fingerprint"] = rule_fingerprint(res.claim)
        rec["post_hoc"] = post_hoc(res.claim, mans)


def _short(value, width: int) -> str:
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
        lines.append(f"{_short(cid, w_id):<{w_id}}  {_short(ref, w_ref):<{w_ref}}  {_short(st, w_st):<{w_st}}  "
                     f"{_short(pv, w_pv):<{w_pv}}  {_short(mv, w_mv)}".rstrip())
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


def _md_cell(value, width: int = 120) -> str:
    return _short(value, width).replace("|", "\\|")


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


def _rollup_markdown(doc: dict) -> list[str]:
    """report.md's opening: the contributions rolled up, the findings ranked, the labels with findings."""
    roll = doc.get("rollup") or {}
    by_id = {r["id"]: r for r in doc["claims"]}
    out = []
    if roll.get("contributions"):
        out += ["## The paper's contributions", "", "| contribution | where | verdict | findings | evidence of what holds |",
                "| --- | --- | --- | --- | --- |"]
        for cid, c in roll["contributions"].items():
            f = c["findings"]
            counts = ", ".join(f"{len(f[s])} {s}" for s in SEVERITIES if f.get(s)) or "none"
            levels = ", ".join(f"{n} {k}" for k, n in c["evidence_levels"].items())
            out.append(f"| **{cid}**: {_md_cell(c['title'], 160)} | {c['where']} | **{c['status']}** | {counts} | "
                       f"{levels} |")
        out.append("")
    if doc.get("findings"):
        out += ["## Findings, ranked", "", "Severity first (*breaks-result*, then *proof-gap*, then *imprecision*), "
                "then evidence level (strongest first).", ""]
        for i, fid in enumerate(doc["findings"], 1):
            r = by_id[fid]
            scope = (r.get("params") or {}).get("refuted_under", "")
            scope = f"; refuted under {scope}" if str(scope).startswith("reading") else ""
            ours = "; statement ours" if r.get("provenance") == "ours" else ""
            out.append(f"{i}. **{r['severity']}** · `{r.get('evidence_level') or 'none'}` · [`{fid}`](#{fid}) "
                       f"({r['ref']}): {r['statement']} — paper: {_md_cell(r['paper_value'], 160)}; measured: "
                       f"{_md_cell(r['measured_value'], 220)}{scope}{ours}. *{r['severity_reason']}*")
        out.append("")
    labels = {k: v for k, v in (roll.get("labels") or {}).items() if v["status"] != "stands"}
    if labels:
        out += ["## Results with findings or undecided", "", "| label | verdict | summary |", "| --- | --- | --- |"]
        for name, v in labels.items():
            out.append(f"| {name} | {v['status']} | {_md_cell(v['summary'], 240)} |")
        out.append("")
    return out


def render_markdown(doc: dict) -> str:
    """``report.md``: summary, the claims table, then one section per claim with its evidence and plots."""
    s = doc["summary"]
    out = [
        "# rgr-verify audit report",
        "",
        (f"Paper: {doc['paper']}.  " if len(doc.get("papers", {})) <= 1 or set(doc["papers"]) == {RGR_PAPER} else
         "Papers: " + "; ".join(f"{t}" for t in doc["papers"].values()) + ".  "),
        f"Tier: `{doc['tier']}`, root seed: `{doc['root_seed']}`, device: `{doc['device']}`, "
        f"versions: {', '.join(f'{k} {v}' for k, v in doc['versions'].items())}.",
        "",
        *_rollup_markdown(doc),
        "## Summary",
        "",
        f"{s['claims']} claims. " + ", ".join(f"**{n}** {k}" for k, n in s["by_status"].items()) + ".",
        "",
        *(["By whose statement: " + "; ".join(f"{'the paper' if p == 'paper' else 'ours (not the paper)'}: "
                                             + ", ".join(f"{n} {k}" for k, n in c.items())
                                             for p, c in s.get("by_provenance", {}).items()) + ".", ""]
          if s.get("by_provenance") else []),
        *(["Paper-scale experiments and quick analogues apart: " + "; ".join(
            f"{scale}: " + ", ".join(f"{n} {k}" for k, n in c.items()) for scale, c in s["by_scale"].items()) + ".",
           ""] if s.get("by_scale") else []),
        *(["By evidence level (claims that ran): " + "; ".join(
            f"`{lvl}`: " + ", ".join(f"{n} {k}" for k, n in c.items()) for lvl, c in s["by_level"].items()) + ".", ""]
          if s.get("by_level") else []),
        "",
        f"Ledger mismatches: {len(s['mismatches'])}" + (": " + ", ".join(f"`{m}`" for m in s["mismatches"])
                                                     if s["mismatches"] else "."),
        "",
        *([f"Rules fixed after their evidence (**post hoc**): {len(s['post_hoc'])} of the claims fed by committed "
           "evidence" + (": " + ", ".join(f"`{m}`" for m in s["post_hoc"]) if s["post_hoc"] else "") + ".", ""]
          if "post_hoc" in s else []),
        "Statuses: *verified* / *refuted* only on decisive evidence (a proof, an exhaustive check, exact statistics, "
        "a witness meeting every hypothesis); *holds-empirically* / *contradicted-empirically* on finite evidence "
        "(samples, a grid, a search, a fitted rate, an experiment, a quick analogue); *inconclusive* where the "
        "evidence cannot decide or the check could not run here (*inconclusive (not run)*, with the reason); *error* "
        "when a check broke. Every verdict names its evidence level.",
        "",
        "## Claims",
        "",
    ]
    groups = group_by_paper(doc["claims"])
    for paper, recs in groups:
        if len(groups) > 1:
            counts = s.get("by_paper", {}).get(paper, {})
            out += [f"### {paper_title(paper)}", "",
                    f"{len(recs)} claims. " + ", ".join(f"**{n}** {k}" for k, n in counts.items()) + ".", ""]
        out += ["| id | ref | status | paper value | measured value |", "| --- | --- | --- | --- | --- |"]
        for r in recs:
            status = shown_status(r)
            if r["matches"] is False:
                status = f"**{status}** (ledger: {r['expected']})"
            out.append(f"| [`{r['id']}`](#{r['id']}) | {r['ref']} | {status} | {_md_cell(r['paper_value'])} | "
                       f"{_md_cell(r['measured_value'])} |")
        out.append("")
    findings = [r for r in doc["claims"] if r["ran"] and
                r["status"] in (Status.REFUTED.value, Status.CONTRADICTED_EMPIRICALLY.value)]
    if findings:
        out += ["", "## Findings by reading scope", ""]
        for title, group in findings_by_scope(findings):
            out += [f"### {title}", ""]
            for r in group:
                scope = (r.get("params") or {}).get("refuted_under", "")
                scope = f" [refuted under {scope}]" if str(scope).startswith("reading") else ""
                out.append(f"- [`{r['id']}`](#{r['id']}) ({r['ref']}): {r['statement']}{scope} — measured: "
                           f"{_md_cell(r['measured_value'], 300)}")
            out.append("")
    out += ["", "## Details", ""]
    for r in doc["claims"]:
        weight = f" · evidence `{r.get('evidence_level') or 'none'}`"
        if r.get("severity"):
            weight += f" · severity **{r['severity']}**"
        if r.get("provenance") == "ours":
            weight += " · statement **ours** (not the paper's)"
        out += [f"### {r['id']}", "", f"*{r['ref']}* ({r.get('paper') or RGR_PAPER}) · kind `{r['kind']}` · tier `{r['tier']}` · "
                f"status **{shown_status(r)}**{weight} · role `{r.get('role') or 'result'}` · seed `{r['seed']}` · "
                f"{r['seconds']} s", "", r["statement"], ""]
        if r.get("severity_reason"):
            out.append(f"- **Severity:** {r['severity']}: {r['severity_reason']}")
        if r.get("robustness"):
            out.append(f"- **Robustness:** {r['robustness']['summary']} (dimensions: "
                       + "; ".join(f"{d}: {len(v)}" for d, v in r["robustness"]["dimensions"].items()) + ")")
        if r.get("post_hoc"):
            ph = r["post_hoc"]
            out.append(f"- **Rule post hoc:** {ph['reason']} (evidence `{ph['evidence']}` of "
                       f"{ph['evidence_date'] or 'an unrecorded date'}; rule `{r.get('rule_fingerprint')}`)")
        for key, label in (("paper_value", "Paper"), ("measured_value", "Measured"), ("evidence", "Evidence"),
                           ("witness", "Witness"), ("details", "Details"), ("notes", "Reading / notes")):
            val = r[key]
            if val in (None, "", [], {}):
                continue
            out.append(f"- **{label}:** {_md_cell(val, 2000)}")
        if r["params"]:
            out.append(f"- **Parameters:** `{_md_cell(r['params'], 2000)}`")
        for art in r["artefacts"]:
            if str(art).lower().endswith((".png", ".svg", ".jpg")):
                out += ["", f"![{r['id']}]({art})"]
            else:
                out.append(f"- artefact: [{art}]({art})")
        out.append("")
    return "\n".join(out) + "\n"
