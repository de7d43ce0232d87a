"""The audit in a few lines for a CI job's page (``$GITHUB_STEP_SUMMARY``): GitHub-flavoured Markdown.

:func:`job_summary` renders an audit document (:func:`rgr_verify.audit.report.audit_document`, read back from
``report.json``): a headline (the claims, their counts by shown status, how many verdicts a verdict store gave back
and how many checks ran now, the mismatches with the ledger), the top findings in the order the report ranks them
(``doc["findings"]``, :func:`rgr_verify.claims.structure.ranked_findings`) with the paper's value and ours in words
(:func:`rgr_verify.audit.report_md.value_in_words`), and every mismatch with the ledger. report.md keeps the rest.
``python -m rgr_verify.audit.job_summary rgr-report/report.json`` prints it; a file that cannot be read as an audit
document is one line on stderr, exit 2. The workflow of ``docs/github-actions-audit.yml`` appends it to the job's page.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from .report import short_text, shown_status
from .report_md import value_in_words

__all__ = ["job_summary", "reuse_counts", "TOP_FINDINGS"]

TOP_FINDINGS = 10  # findings in the table; the rest are counted (report.md lists them all)


def _cell(value, width: int) -> str:
    """``value`` (text) as one table cell: one line, at most ``width`` characters, pipes escaped."""
    return short_text(value, width).replace("|", "\\|")


def reuse_counts(doc: dict) -> dict:
    """How the verdicts of ``doc`` came about: ``reused`` (given back by a verdict store: the record's ``reused`` is
    {commit, date}), ``run`` (checked now) and ``not_run`` (could not run here), and ``commits``, the commits the
    reused verdicts were computed at (in order of first appearance). A record without ``reused`` (a report written
    before the verdict store) counts as run."""
    reused = [r for r in doc["claims"] if r.get("reused")]
    commits = list(dict.fromkeys(str(r["reused"].get("commit") or "unknown") for r in reused))
    return {"reused": len(reused), "run": sum(1 for r in doc["claims"] if r["ran"] and not r.get("reused")),
            "not_run": sum(1 for r in doc["claims"] if not r["ran"]), "commits": commits}


def _headline(doc: dict) -> list[str]:
    recs = doc["claims"]
    by_status = (doc.get("summary") or {}).get("by_status") or dict(sorted(Counter(map(shown_status, recs)).items()))
    mismatches = [r for r in recs if r.get("matches") is False]
    use = reuse_counts(doc)
    run = doc.get("run") or {}
    where = ", ".join(part for part in (f"tier `{doc['tier']}`" if doc.get("tier") else "",
                                        f"commit `{str(run['commit'])[:12]}`" if run.get("commit") else "") if part)
    came = f"{use['reused']} reused, {use['run']} run now" + (f", {use['not_run']} not run here" if use["not_run"]
                                                               else "")
    if use["commits"]:
        shown = ", ".join(f"`{c[:12]}`" for c in use["commits"][:3])
        came += f" (reused from {shown}" + (f" and {len(use['commits']) - 3} more" if len(use["commits"]) > 3
                                             else "") + ")"
    return ["## rgr-verify audit" + (f" ({where})" if where else ""), "",
            f"**{len(recs)} claims**: " + (", ".join(f"{n} {k}" for k, n in by_status.items()) or "none")
            + f" · verdicts: {came} · ledger mismatches: " + (f"**{len(mismatches)}**" if mismatches else "0"), ""]


def _findings(doc: dict, top: int) -> list[str]:
    by_id = {r["id"]: r for r in doc["claims"]}
    ranked = [by_id[i] for i in doc.get("findings") or [] if i in by_id]
    if not ranked:
        return ["No findings.", ""]
    out = [f"### Findings, ranked ({len(ranked)})", "",
           "| # | id | reference | status | severity | the paper vs ours |", "| --- | --- | --- | --- | --- | --- |"]
    for i, r in enumerate(ranked[:top], 1):
        words = (f"paper: {value_in_words(r.get('paper_value'), 90)}; "
                 f"ours: {value_in_words(r.get('measured_value'), 100)}")
        reused = " (reused)" if r.get("reused") else ""
        out.append(f"| {i} | `{r['id']}` | {_cell(r.get('ref') or '', 40)} | {_cell(shown_status(r), 40)}{reused} | "
                   f"{r.get('severity') or '—'} | {_cell(words, 200)} |")
    if len(ranked) > top:
        out += ["", f"... and {len(ranked) - top} more (report.md, *Findings, ranked*)."]
    return out + [""]


def _mismatches(doc: dict) -> list[str]:
    bad = [r for r in doc["claims"] if r.get("matches") is False]
    if not bad:
        return ["Every claim that ran matches the ledger.", ""]
    out = [f"### Mismatches with the ledger ({len(bad)})", "", "| id | reference | computed | ledger |",
           "| --- | --- | --- | --- |"]
    out += [f"| `{r['id']}` | {_cell(r.get('ref') or '', 40)} | **{r['status']}**"
            + (" (reused)" if r.get("reused") else "") + f" | {r.get('expected') or 'no entry'} |" for r in bad]
    return out + [""]


def job_summary(doc: dict, *, top: int = TOP_FINDINGS) -> str:
    """The job page's Markdown of the audit document ``doc``: the headline, the ``top`` findings ranked (id,
    reference, status, severity, the paper's value and ours in words; a verdict given back by a verdict store is
    marked *reused*) and every mismatch with the ledger (computed status, the ledger's)."""
    if top < 0:
        raise ValueError(f"top must be >= 0, got {top}")
    return "\n".join(_headline(doc) + _findings(doc, top) + _mismatches(doc))


def _read(path: str) -> dict:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read {path}: {e}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("claims"), list) or not all(
            isinstance(r, dict) and {"id", "status", "ran"} <= r.keys() for r in doc["claims"]):
        raise ValueError(f"{path} is not an audit report (report.json of rgr-verify audit)")
    return doc


def main(argv: list[str] | None = None) -> int:
    """``python -m rgr_verify.audit.job_summary REPORT_JSON``: print the summary; 2 (one line on stderr) when the
    file is missing or not an audit report."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m rgr_verify.audit.job_summary REPORT_JSON", file=sys.stderr)
        return 2
    try:
        doc = _read(argv[0])
    except ValueError as e:
        print(f"job_summary: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(job_summary(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
