"""``report.md``: the audit for a terminal and a pull request, and values in words.

:func:`render_markdown` renders an audit document (:func:`rgr_verify.audit.report.audit_document`): a header (commit,
date, command), a short summary (contributions and their rolled-up verdicts, the findings ranked, counts by scale),
a table of contents, then the table and one section per claim. :func:`value_in_words` writes a paper value or a
measured value as text (the JSON keeps the structures); the site uses it too.
"""

from __future__ import annotations

import math
from collections import Counter

from ..claims.base import RGR_PAPER, SEVERITIES, Status, jsonable
from ..claims.structure import HOLDING_STATUSES
from .report import (NOT_RUN, SCALES, findings_by_scope, group_by_paper, paper_title, scale_of, short_text,
                     shown_status)

__all__ = ["render_markdown", "value_in_words", "anchor"]


def _md_cell(value, width: int = 120) -> str:
    return short_text(value, width).replace("|", "\\|")


def _num(x) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = f"{x:.4g}"
    return text if "e" not in text else text.replace("e+0", "e").replace("e-0", "e-").replace("e+", "e")


def _words(value, depth: int, max_items: int) -> str:
    if value is None:
        return "none"
    if isinstance(value, (bool, int, float)):
        return _num(value)
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, dict):
        if not value:
            return "(none)"
        if depth >= 3:
            return f"({len(value)} entries)"
        items = list(value.items())
        shown = [f"{k}: {_nested(v, depth + 1, max_items)}" for k, v in items[:max_items]]
        if len(items) > max_items:
            shown.append(f"... ({len(items) - max_items} more)")
        return "; ".join(shown)
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        if depth >= 3 and any(isinstance(v, (dict, list, tuple, set, frozenset)) for v in items):
            return f"[{len(items)} items]"
        shown = [_nested(v, depth + 1, max_items) for v in items[:max_items]]
        if len(items) > max_items:
            shown.append(f"... ({len(items) - max_items} more)")
        return "[" + ", ".join(shown) + "]"
    return _words(jsonable(value), depth, max_items) if jsonable(value) is not value else " ".join(str(value).split())


def _nested(value, depth: int, max_items: int) -> str:
    text = _words(value, depth, max_items)
    return f"({text})" if isinstance(value, dict) and value and depth < 3 else text


def value_in_words(value, limit: int | None = None, *, max_items: int = 8) -> str:
    """A paper or measured value for a reader: numbers to 4 significant digits, a dict as ``key: value; key:
    value`` (nested dicts in parentheses), lists in brackets cut after ``max_items`` with ``... (N more)``, strings
    with their whitespace collapsed, None as "none"; the whole cut to ``limit`` characters (ending in "…")."""
    text = _words(value, 0, max_items)
    return text if limit is None or len(text) <= limit else text[: max(1, limit - 1)].rstrip() + "…"


# Where report.md cuts a long value, it says where the whole one is.
_CUT = " [report.json]"


def _md_words(value, limit: int, *, pointer: bool = False) -> str:
    text = value_in_words(value) if value is not None else "—"
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…" + (_CUT if pointer else "")
    return text.replace("|", "\\|")


def anchor(title: str) -> str:
    """The anchor GitHub (and most renderers) give a heading: lower case, punctuation dropped, spaces as hyphens."""
    out = "".join(ch for ch in title.strip().lower() if ch.isalnum() or ch in " -_")
    return out.replace(" ", "-")


def _status_words(r: dict, ledger: dict | None) -> str:
    """A record's status for report.md; a claim that did not run names the ledger's recorded status."""
    status = shown_status(r)
    if status != NOT_RUN:
        return status
    recorded = (ledger or {}).get(r["id"]) or r.get("expected")
    if ledger is None and not recorded:
        return status
    return f"inconclusive, not run (ledger: {recorded or 'no entry'})"


def _counts(counter) -> str:
    return ", ".join(f"{n} {k}" for k, n in sorted(counter.items())) or "none"


def _summary_counts(doc: dict, ledger: dict | None) -> list[str]:
    """Counts that keep paper-scale verdicts, quick analogues, theory and the claims that did not run apart."""
    recs = doc["claims"]
    ran = [r for r in recs if r["ran"]]
    not_run = [r for r in recs if not r["ran"]]
    lines = []
    for scale, what in ((SCALES[0], "Paper-scale experiments (verdicts at the paper's scale)"),
                        (SCALES[1], "Quick analogues (ids ending -quick, or evidence level `analogue`): "
                                    "small stand-ins, not the paper's experiment"),
                        (SCALES[2], "Theory and properties (symbolic, exhaustive, property and statistical checks)")):
        group = [r for r in ran if scale_of(r) == scale]
        if group:
            lines.append(f"- {what}: **{len(group)}**: {_counts(Counter(r['status'] for r in group))}.")
    if not_run:
        recorded = Counter(((ledger or {}).get(r["id"]) or r.get("expected") or "no entry") for r in not_run)
        lines.append(f"- Not run here: **{len(not_run)}**" + (f" (ledger: {_counts(recorded)})" if ledger is not None
                                                              else "") + ": "
                     + ", ".join(f"[`{r['id']}`](#{r['id']})" for r in not_run[:12])
                     + (f", ... ({len(not_run) - 12} more)" if len(not_run) > 12 else "") + ".")
    s = doc["summary"]
    lines.append(f"- All {s['claims']} claims: " + ", ".join(f"**{n}** {k}" for k, n in s["by_status"].items())
                 + f". Ledger mismatches: {len(s['mismatches'])}"
                 + (": " + ", ".join(f"`{m}`" for m in s["mismatches"]) if s["mismatches"] else "") + ".")
    return lines


def _finding_line(i: int, r: dict) -> str:
    scope = (r.get("params") or {}).get("refuted_under", "")
    scope = f" (refuted under {scope})" if str(scope).startswith("reading") else ""
    ours = {"ours": " Statement ours, not the paper's.",
            "summary": " Statement the summary's, not the paper's."}.get(r.get("provenance"), "")
    return (f"{i}. [`{r['id']}`](#{r['id']}) **{r['severity']}** ({r['ref']}, {shown_status(r)}, evidence "
            f"`{r.get('evidence_level') or 'none'}`): {_md_words(r['statement'], 160)} The paper: "
            f"{_md_words(r['paper_value'], 140)}; ours: {_md_words(r['measured_value'], 180)}.{scope}{ours}")


def _header(doc: dict) -> list[str]:
    run = doc.get("run") or {}
    papers = doc.get("papers", {})
    return [
        "# rgr-verify audit report",
        "",
        f"- Commit: `{run.get('commit') or 'unknown'}`",
        f"- Date: {run.get('date') or 'unknown'}",
        f"- Command: `{run.get('command') or 'unknown'}`",
        f"- Tier `{doc['tier']}`, root seed `{doc['root_seed']}`, device `{doc['device']}`; "
        f"{', '.join(f'{k} {v}' for k, v in doc['versions'].items())}",
        "- " + (f"Paper: {doc['paper']}." if len(papers) <= 1 or set(papers) == {RGR_PAPER} else
                "Papers: " + "; ".join(f"{t}" for t in papers.values()) + "."),
        "",
    ]


def render_markdown(doc: dict, ledger: dict | None = None) -> str:
    """``report.md``: a header (commit, date, command), a short summary (the contributions' verdicts, the findings
    ranked, the counts), a table of contents, then the labels with findings, the counts in detail, the claims table,
    the findings by reading scope and one section per claim with its evidence and plots. Values are in words
    (:func:`value_in_words`); long ones are cut, with a pointer to report.json, which keeps everything.

    ``ledger``: {claim id: recorded status}, named next to each claim that did not run here."""
    s = doc["summary"]
    roll = doc.get("rollup") or {}
    by_id = {r["id"]: r for r in doc["claims"]}
    groups = group_by_paper(doc["claims"])
    out = _header(doc)
    reused = [r for r in doc["claims"] if r.get("reused")]
    if reused:
        commits = sorted({r["reused"]["commit"][:12] for r in reused})
        out += [f"{len(reused)} of the {len(doc['claims'])} verdicts were reused from the verdict store (nothing "
                f"they depend on changed since the audit of {', '.join(f'`{c}`' for c in commits)}); "
                "`rgr-verify audit --fresh` runs every claim.", ""]
    toc: list[tuple[int, str]] = []

    def section(level: int, title: str) -> list[str]:
        toc.append((level, title))
        return ["#" * level + " " + title, ""]

    out += section(2, "Summary")
    if roll.get("contributions"):
        out += section(3, "The paper's contributions")
        out += ["| contribution | where | verdict | in plain words | what breaks it (strongest evidence first) | "
                "findings | evidence of what holds |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for cid, c in roll["contributions"].items():
            f = c["findings"]
            counts = ", ".join(f"{len(f[sv])} {sv}" for sv in SEVERITIES if f.get(sv)) or "none"
            levels = ", ".join(f"{n} {k}" for k, n in c["evidence_levels"].items())
            breaks = ", ".join(f"[`{i}`](#{i}) ({by_id[i].get('evidence_level') or 'none'})"
                               for i in (c.get("breaking") or [])[:3] if i in by_id) or "nothing"
            more = len(c.get("breaking") or []) - 3
            breaks += f" and {more} more" if more > 0 else ""
            at = f" ({', '.join(c['at'])})" if c.get("at") else ""
            out.append(f"| **{cid}**: {_md_cell(c['title'], 160)} | {c['where']}{at} | **{c['status']}** | "
                       f"{_md_cell(c.get('sentence') or '', 700)} | {breaks} | {counts} | {levels} |")
        out += ["", "*broken*: refuted by proof, exhaustive check, certificate or witness; *contradicted*: only by a "
                "fit or an experiment; both only through a finding that breaks one of its core results; "
                "*partly-broken*: the core theorem stands, another result of it fails; *stands-with-gaps*: an "
                "argument for it or around it fails (a proof step, a hypothesis, a matching-bounds argument) while no "
                "finding shows its conclusion false; *stands-on-analogues*: holds only in analogues of ours. Where a "
                "finding counts is one rule (rgr_verify.claims.structure.ROLLUP_RULE)."]
        out.append("")
    if doc.get("findings"):
        out += section(3, "Findings, ranked")
        out += ["Severity first (*breaks-result*, then *proof-gap*, then *imprecision*), then refuted outright before "
                "contradicted by a fit, a sample or an experiment, then scope (a finding under every reading before "
                "one under some readings only), then evidence level (strongest first); "
                "each claim's section below gives the reason for its severity.", ""]
        out += [_finding_line(i, by_id[fid]) for i, fid in enumerate(doc["findings"], 1)]
        out.append("")
    out += section(3, "Counts")
    out += _summary_counts(doc, ledger)
    out.append("")
    body: list[str] = []
    labels = {k: v for k, v in (roll.get("labels") or {}).items() if v["status"] != "stands"}
    if labels:
        body += section(2, "Results with findings or undecided")
        body += ["| label | verdict | summary |", "| --- | --- | --- |"]
        body += [f"| {name} | {v['status']} | {_md_cell(v['summary'], 240)} |" for name, v in labels.items()]
        body.append("")
    body += section(2, "Counts in detail")
    body += [f"{s['claims']} claims. " + ", ".join(f"**{n}** {k}" for k, n in s["by_status"].items()) + ".", ""]
    if s.get("by_provenance"):
        body += ["By whose statement: " + "; ".join(f"{'the paper' if p == 'paper' else 'ours (not the paper)'}: "
                                                    + ", ".join(f"{n} {k}" for k, n in c.items())
                                                    for p, c in s["by_provenance"].items()) + ".", ""]
    if s.get("by_scale"):
        body += ["Paper-scale experiments and quick analogues apart: " + "; ".join(
            f"{scale}: " + ", ".join(f"{n} {k}" for k, n in c.items()) for scale, c in s["by_scale"].items()) + ".",
            ""]
    if s.get("by_level"):
        body += ["By evidence level (claims that ran): " + "; ".join(
            f"`{lvl}`: " + ", ".join(f"{n} {k}" for k, n in c.items()) for lvl, c in s["by_level"].items()) + ".", ""]
    if "post_hoc" in s:
        body += [f"Rules fixed after their evidence (**post hoc**): {len(s['post_hoc'])} of the claims fed by "
                 "committed evidence" + (": " + ", ".join(f"`{m}`" for m in s["post_hoc"]) if s["post_hoc"] else "")
                 + ".", ""]
    body += ["Statuses: *verified* / *refuted* only on decisive evidence (a proof, an exhaustive check, exact "
             "statistics, a witness meeting every hypothesis); *holds-empirically* / *contradicted-empirically* on "
             "finite evidence (samples, a grid, a search, a fitted rate, an experiment, a quick analogue); "
             "*inconclusive* where the evidence cannot decide or the check could not run here (*inconclusive (not "
             "run)*, with the reason and the ledger's recorded status); *error* when a check broke. Every verdict "
             "names its evidence level.", ""]
    body += section(2, "Claims")
    for paper, recs in groups:
        if len(groups) > 1:
            counts = s.get("by_paper", {}).get(paper, {})
            body += section(3, paper_title(paper))
            body += [f"{len(recs)} claims. " + ", ".join(f"**{n}** {k}" for k, n in counts.items()) + ".", ""]
        body += ["| id | ref | status | paper value | measured value |", "| --- | --- | --- | --- | --- |"]
        for r in recs:
            status = _status_words(r, ledger)
            if r["matches"] is False:
                status = f"**{status}** (ledger: {r['expected'] or 'no entry'})"
            body.append(f"| [`{r['id']}`](#{r['id']}) | {r['ref']} | {status} | {_md_words(r['paper_value'], 60)} | "
                        f"{_md_words(r['measured_value'], 64)} |")
        body.append("")
    findings = [r for r in doc["claims"] if r["ran"] and
                r["status"] in (Status.REFUTED.value, Status.CONTRADICTED_EMPIRICALLY.value)]
    if findings:
        body += section(2, "Findings by reading scope")
        for title, group in findings_by_scope(findings):
            body.append(f"- **{title}** ({len(group)}): " + ", ".join(
                f"[`{r['id']}`](#{r['id']})" + (f" (under {r['params']['refuted_under']})" if str(
                    (r.get("params") or {}).get("refuted_under", "")).startswith("reading") else "")
                for r in group))
        body.append("")
    body += section(2, "Details")
    body += ["One section per claim. Long values are cut here (ending \"… [report.json]\"), and for a claim that "
             "holds the witness, details, reading notes and parameters are left out: report.json keeps every claim's whole record "
             "(`claims`, by `id`): values, witnesses, parameters, readings, robustness flips.", ""]
    for r in doc["claims"]:
        body += _claim_section(r, ledger)
    contents = ["## Contents", ""]
    for level, title in toc:
        contents.append("  " * (level - 2) + f"- [{title}](#{anchor(title)})")
    contents.append("")
    # the table of contents comes after the summary: the summary's own entries lead it
    return "\n".join(out + contents + body) + "\n"


# How many characters of each field a claim's section in report.md shows (the rest: report.json). A finding or an
# undecided claim, which a reviewer reads closely, gets longer cuts than a claim that holds, whose witness, details,
# reading notes and parameters are in report.json only (None: not shown).
_LIMITS = {"paper_value": 400, "measured_value": 300, "evidence": 300, "witness": 160, "details": 260, "notes": 260,
           "params": 160}
_LIMITS_HOLDS = {"paper_value": 160, "measured_value": 120, "evidence": 120, "witness": None, "details": None,
                 "notes": None, "params": None}


def _claim_section(r: dict, ledger: dict | None) -> list[str]:
    weight = f" (`{r.get('evidence_level') or 'no evidence level'}`)"
    if r.get("severity"):
        weight += f" · severity **{r['severity']}**"
    if r.get("provenance") == "ours":
        weight += " · statement **ours** (not the paper's)"
    elif r.get("provenance") == "summary":
        weight += " · statement **the summary's** (a gloss or suggestion, not the paper's)"
    role = f" · role `{r['role']}`" if r.get("role") not in (None, "result") else ""
    paper = f" ({r['paper']})" if r.get("paper") not in (None, RGR_PAPER) else ""
    out = [f"### {r['id']}", "",
           f"*{r['ref']}*{paper} · {r['kind']}, {r['tier']} tier · **{_status_words(r, ledger)}**{weight}{role} · "
           f"seed {r['seed']} · {_num(float(r['seconds']))} s"
           + (f" · reused from `{r['reused']['commit'][:12]}` ({r['reused']['date']})" if r.get("reused") else ""),
           "", " ".join(r["statement"].split()), ""]
    holds = r["ran"] and r["status"] in HOLDING_STATUSES
    limits = _LIMITS_HOLDS if holds else _LIMITS
    if holds:  # one line: the paper's value, ours and the evidence
        parts = [f"**{label}:** {_md_words(r[key], limits[key], pointer=True)}"
                 for key, label in (("paper_value", "Paper"), ("measured_value", "Measured"), ("evidence", "Evidence"))
                 if r[key] not in (None, "", [], {})]
        if parts:
            out.append("- " + " · ".join(parts))
    else:
        for key, label in (("paper_value", "Paper"), ("measured_value", "Measured")):
            if r[key] not in (None, "", [], {}):
                out.append(f"- **{label}:** {_md_words(r[key], limits[key], pointer=True)}")
    if r.get("stated"):  # the values the paper states, as declared in the claim's expects (what the check read)
        out.append("- **Stated values (declared):** " + "; ".join(
            f"{name} = {_md_words(st['value'], 120)}" + (f" ({st['note']})" if st.get("note") else "")
            for name, st in r["stated"].items()))
    if r.get("severity_reason"):
        out.append(f"- **Severity:** {r['severity']}: {r['severity_reason']}")
    if r.get("supports"):
        at = r.get("supports_at") or {}
        out.append("- **Bears on:** " + "; ".join(f"{s} (the paper makes the edge at {at[s]})" if s in at else s
                                                 for s in r["supports"]))
    if r.get("robustness"):
        rob = r["robustness"]
        counts = ", ".join(f"{n} {s}" for s, n in (rob.get("by_status") or {}).items() if n)
        out.append(f"- **Robustness:** {rob['summary']} (dimensions: "
                   + "; ".join(f"{d}: {len(v)}" for d, v in rob["dimensions"].items()) + ")"
                   + (f"; by status: {counts}" if counts else ""))
    if r.get("post_hoc"):
        ph = r["post_hoc"]
        out.append(f"- **Rule post hoc:** {ph['reason']} (evidence `{ph['evidence']}` of "
                   f"{ph['evidence_date'] or 'an unrecorded date'})")
    for key, label in (("evidence", "Evidence"), ("witness", "Witness"), ("details", "Details"),
                       ("notes", "Reading / notes")):
        limit = limits[key]
        if limit is None or (holds and key == "evidence"):
            continue
        if r[key] not in (None, "", [], {}):
            out.append(f"- **{label}:** {_md_words(r[key], limit, pointer=True)}")
    params = r.get("params")
    if params and limits["params"] is not None:
        if isinstance(params, dict):
            # the readings first: they say under which reading a finding holds
            first = {k: params[k] for k in ("refuted_under", "readings", "hypotheses_checked") if k in params}
            rest = {k: v for k, v in params.items() if k not in first and k not in ("per_reading", "robustness")}
            moved = [k for k in ("per_reading", "robustness") if k in params]
            text = _md_words({**first, **rest}, limits["params"], pointer=True) if first or rest else ""
            if moved:
                text += ("; " if text else "") + ", ".join(f"`{k}`" for k in moved) + " in report.json"
            out.append(f"- **Parameters:** {text}")
        else:
            out.append(f"- **Parameters:** {_md_words(params, limits['params'], pointer=True)}")
    for art in r["artefacts"]:
        if str(art).lower().endswith((".png", ".svg", ".jpg")):
            out += ["", f"![{r['id']}]({art})"]
        else:
            out.append(f"- artefact: [{art}]({art})")
    out.append("")
    return out
