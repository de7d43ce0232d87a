"""The reader's site: ``index.html``, a page per claim and a page per label, written next to report.md.

:func:`write_site` renders an audit document (:func:`rgr_verify.report.audit_document`) with the Jinja2 templates
of this package into ``DIR/index.html`` (the contributions and their rolled-up verdicts, the findings ranked, the
blueprint graph, every claim with filters and search), ``DIR/claims/<id>.html`` and ``DIR/labels/<slug>.html``.
The pages are static and self-contained (inline CSS, SVG and a few lines of script; no server, no network): they
open from the file system. Plots are the audit's own artefacts in ``DIR``, linked from the claim pages.

Markup that tests and tools rely on: each finding of the index is an ``li.finding`` with ``data-claim`` and
``data-severity``, in ranked order; each label node of the blueprint a ``g.node`` with ``data-label`` and
``data-status``; each claim page has ``a#back`` to its place in the index; filters are ``select#filter-status``,
``#filter-severity``, ``#filter-level``, ``#filter-part``, ``#filter-paper`` and ``input#search``, acting on the
``.filterable`` elements through their ``data-*`` attributes.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from .._files import atomic_write_text
from ..claims.base import PAPERS, RGR_PAPER
from ..claims.levels import LEVEL_MEANINGS, LEVELS
from ..papertext import V3_LABELS, slug
from ..report import NOT_RUN, paper_title, shown_status
from ..report_md import value_in_words
from .blueprint import PART_TITLES, layout, part_of_label

__all__ = ["write_site", "STATUS_COLORS"]

STATUS_COLORS = {
    "verified": "#1a7f37", "stands": "#1a7f37", "holds-empirically": "#8fd19e", "refuted": "#cf222e",
    "broken": "#cf222e", "contradicted-empirically": "#e8743b", "contradicted": "#e8743b",
    "partly-broken": "#9a1b5b", "stands-with-gaps": "#e8a13b", "stands-with-imprecisions": "#f2d45c",
    "stands-on-analogues": "#c9e7b0", "inconclusive": "#b7bcc2", "undecided": "#b7bcc2",
    "not-run": "#ffffff", "no-claims": "#ffffff", "error": "#000000",
}
# Statuses drawn on a dark fill get white text in the blueprint.
_DARK = frozenset({"verified", "stands", "refuted", "broken", "contradicted-empirically", "contradicted",
                   "partly-broken", "error"})
_CLAIM_STATUSES = ("verified", "holds-empirically", "refuted", "contradicted-empirically", "inconclusive",
                   "not-run", "error")


def _env():
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("rgr_verify.site", "templates"),
                              autoescape=jinja2.select_autoescape(["html"]), undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True)


def _status_class(record: dict) -> str:
    return "not-run" if shown_status(record) == NOT_RUN else record["status"]


def _attr(value) -> str:
    from markupsafe import escape

    return str(escape(str(value or "")))


def _data(record: dict) -> str:
    """The ``data-*`` attributes the filters read."""
    part = part_of_label((record.get("nodes") or [record["ref"]])[0])
    text = f"{record['id']} {record['ref']} {record['statement']}".lower()
    items = {"claim": record["id"], "status": _status_class(record), "severity": record.get("severity") or "",
             "level": record.get("evidence_level") or "", "part": part, "paper": record.get("paper") or RGR_PAPER,
             "text": text}
    return " ".join(f'data-{k}="{_attr(v)}"' for k, v in items.items())


def _cut(text: str, limit: int = 320) -> str:
    """A value shortened for the index (the claim page has it whole)."""
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "… (whole on its page)"


def _paper_value(r: dict) -> str:
    """The paper's value for a reader: in words, or why there is none to show."""
    if r.get("paper_value") not in (None, "", [], {}):
        return value_in_words(r["paper_value"])
    if not r.get("ran"):
        return "not shown: the claim did not run in this audit"
    return "no number: the statement above is what the paper says"


def _label_lines(label: str):
    lines = V3_LABELS.get(label)
    return tuple(lines) if lines else None


def _check_name(claim) -> str:
    fn = claim.check
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', getattr(fn, '__name__', '?'))}"


def _command(doc: dict, record: dict) -> str:
    return (f"rgr-verify audit --tier {doc.get('tier', 'quick')} --only '{record['id']}' --seed "
            f"{doc.get('root_seed')} --out rgr-report-{record['id']}")


def _robustness(record: dict) -> tuple[str, str]:
    rob = record.get("robustness")
    if not isinstance(rob, dict):
        return "", ""
    dims = rob.get("dimensions") or {}
    words = "; ".join(f"{k}: {len(v) if isinstance(v, (list, tuple)) else v} values" for k, v in dims.items())
    return str(rob.get("summary") or ""), words


def _claim_view(doc: dict, r: dict, claim, ledger: dict) -> dict:
    status = shown_status(r)
    rob, dims = _robustness(r)
    lean = ((r.get("robustness") or {}).get("lean") or {}).get("text") if isinstance(r.get("robustness"), dict) else None
    params = r.get("params") or {}
    readings = []
    for key in ("readings", "refuted_under", "per_reading", "hypotheses_checked"):
        if params.get(key) not in (None, "", [], {}):
            readings.append(f"{key.replace('_', ' ')}: {value_in_words(params[key])}")
    post = r.get("post_hoc")
    stores = sorted(set(re.findall(r"evidence/[\w.+-]+", r.get("evidence") or "")))
    labels = [{"label": n, "slug": slug(n), "lines": _label_lines(n), "at": (r.get("supports_at") or {}).get(n, "")}
              for n in (r.get("nodes") or []) if n not in doc["_ids"]]
    return {
        "id": r["id"], "ref": r["ref"], "paper": r.get("paper") or RGR_PAPER, "statement": r["statement"],
        "status": status, "status_class": _status_class(r), "severity": r.get("severity"),
        "severity_reason": r.get("severity_reason") or "", "severity_links": r.get("severity_links") or [],
        "level": r.get("evidence_level") or "none", "level_meaning": LEVEL_MEANINGS.get(r.get("evidence_level") or "", "no evidence recorded"),
        "quick": r["id"].endswith("-quick"), "provenance": r.get("provenance") or "paper",
        "paper_value": _paper_value(r),
        "measured_value": (value_in_words(r.get("measured_value")) if r.get("ran") else "not run in this audit"),
        "ledger": (f"not run here; the ledger records {ledger[r['id']]}" if status == NOT_RUN and r["id"] in ledger
                   else ""),
        "robustness": rob, "dimensions": dims, "witness": value_in_words(r.get("witness")) if r.get("witness") else "",
        "readings": "; ".join(readings), "evidence": r.get("evidence") or "", "details": r.get("details") or "",
        "stores": stores, "rule": r.get("rule_fingerprint") or "", "check": _check_name(claim) if claim else "?",
        "post_hoc": value_in_words(post) if post else "", "command": _command(doc, r), "notes": r.get("notes") or "",
        "seed": r.get("seed"), "seconds": r.get("seconds"), "labels": labels,
        "stated": [{"name": n, "value": value_in_words(st.get("value")), "note": st.get("note") or "",
                    "unmutated": st.get("unmutated") or "", "bound": st.get("bound") or ""}
                   for n, st in (r.get("stated") or {}).items()],
        "plots": [a for a in r.get("artefacts") or [] if a.lower().endswith((".png", ".svg"))],
        "robustness_short": (rob.split(":")[0] + (f", {lean}" if lean else "")) if rob else "",
        "data": _data(r),
    }


def write_site(doc: dict, out, *, ledger: dict | None = None, paper_html: bool = False) -> Path:
    """Write the site of the audit document ``doc`` into the directory ``out`` and return ``out/index.html``.

    ``ledger``: {claim id: recorded status} shown next to claims that did not run; ``paper_html``: whether
    ``out/paper.html`` (the annotated paper) is written too, so the pages link it. The pages are rendered in a
    temporary folder inside ``out`` and moved into place only when all are written."""
    from ..claims import all_claims

    if not isinstance(doc, dict) or "claims" not in doc or "rollup" not in doc:
        raise ValueError("doc must be an audit document (rgr_verify.report.audit_document) with claims and rollup")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ledger = dict(ledger or {})
    registry = {c.id: c for c in all_claims()}
    records = doc["claims"]
    doc = {**doc, "_ids": {r["id"] for r in records}}
    env = _env()
    views = {r["id"]: _claim_view(doc, r, registry.get(r["id"]), ledger) for r in records}
    labels = doc["rollup"]["labels"]
    contributions = doc["rollup"]["contributions"]
    papers_in = sorted({(r.get("paper") or RGR_PAPER).split("+")[0] for r in records})
    paper_options = sorted({r.get("paper") or RGR_PAPER for r in records}, key=lambda p: ("+" in p, p))
    extra = [lab for lab in V3_LABELS if lab not in labels] if RGR_PAPER in papers_in else []
    bp = layout(labels, contributions, records, extra_labels=extra, claim_href=lambda i: f"claims/{i}.html",
                label_href=lambda lab: f"labels/{slug(lab)}.html", status_of=_status_class)
    common = {"has_paper": paper_html}
    counts = _counts(records)
    findings = []
    for fid in doc["findings"]:
        v = views[fid]
        findings.append({**v, "paper_value": _cut(v["paper_value"]), "measured_value": _cut(v["measured_value"])})
    by_id = {r["id"]: r for r in records}
    run = doc.get("run") or {}
    run_line = (f"{doc.get('tier')} tier, root seed {doc.get('root_seed')}, device {doc.get('device')}"
                + (f"; commit {run.get('commit')}" if run.get("commit") else "")
                + (f"; {run.get('date')}" if run.get("date") else "")
                + (f"; command: {run.get('command')}" if run.get("command") else ""))
    parts = sorted({part_of_label((r.get("nodes") or [r["ref"]])[0]) for r in records}, key=list(PART_TITLES).index)
    contrib_rows = [{"id": cid, "slug": slug(f"contribution:{cid}"), "short": c["title"].split(":")[0],
                     "where": c["where"], "status": c["status"], "summary": c["summary"].split(": ", 1)[-1],
                     "sentence": c.get("sentence") or "", "at": ", ".join(c.get("at") or []),
                     "core": ", ".join(c.get("core", {}).get("labels", [])[:4]),
                     "breaking": [{"id": i, "level": by_id[i].get("evidence_level") or "none",
                                   "status": by_id[i]["status"], "ref": by_id[i]["ref"]}
                                  for i in c.get("breaking", [])[:3]],
                     "more": max(0, len(c.get("breaking", [])) - 3)}
                    for cid, c in contributions.items()]
    staging = Path(tempfile.mkdtemp(dir=out, prefix=".site-"))
    try:
        (staging / "claims").mkdir()
        (staging / "labels").mkdir()
        atomic_write_text(staging / "index.html", env.get_template("index.html").render(
            title="Audit", root="", paper_title=_paper_heading(papers_in), run_line=run_line,
            counts_line=counts, contributions=contrib_rows, findings=findings, bp=bp, colors=STATUS_COLORS, dark=_DARK,
            claims=[{**views[r["id"]], "robustness": views[r["id"]]["robustness_short"]} for r in records],
            statuses=_CLAIM_STATUSES, severities=("breaks-result", "proof-gap", "imprecision"), levels=LEVELS,
            parts=[(p, PART_TITLES[p]) for p in parts],
            papers=[(p, "both papers (cross-paper claims)" if "+" in p else p) for p in paper_options],
            headline=_headline(doc, records), **common))
        tpl = env.get_template("claim.html")
        finding_ids = set(doc["findings"])
        for cid, v in views.items():
            back = f"finding-{cid}" if cid in finding_ids else "claims"
            atomic_write_text(staging / "claims" / f"{cid}.html", tpl.render(title=cid, root="../", c=v,
                                                                              back_anchor=back, **common))
        tpl = env.get_template("label.html")
        for lab in list(labels) + extra:
            summary = labels.get(lab, {"status": "no-claims", "summary": "no claim of this audit checks it",
                                       "claims": []})
            atomic_write_text(staging / "labels" / f"{slug(lab)}.html", tpl.render(
                title=lab, root="../", label=lab, status=summary["status"], summary=summary["summary"],
                lines=_label_lines(lab), title_text="", sublabels=[],
                claims=[views[i] for i in summary["claims"] if i in by_id], **common))
        for cid, c in contributions.items():
            subs = [{"label": lab, "slug": slug(lab), "status": labels[lab]["status"]} for lab in c["labels"]]
            atomic_write_text(staging / "labels" / f"{slug(f'contribution:{cid}')}.html", tpl.render(
                title=c["title"].split(":")[0], root="../", label=c["title"].split(":")[0], status=c["status"],
                summary=(f"{c['sentence']} In detail: {c['summary']}" if c.get("sentence") else c["summary"]),
                lines=None, title_text=c["where"], sublabels=subs,
                claims=[views[i] for i in c["claims"] if i in by_id], **common))
        for sub in ("claims", "labels"):
            dest = out / sub
            if dest.exists():
                shutil.rmtree(dest)
            (staging / sub).replace(dest)
        (staging / "index.html").replace(out / "index.html")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out / "index.html"


def _paper_heading(papers: list) -> str:
    """The index's heading: arXiv 2509.22840 first, then the other paper audited beside it."""
    ordered = sorted(papers or [RGR_PAPER], key=lambda p: (p != RGR_PAPER, p))
    return "Audit of " + " and of ".join(PAPERS[p] if p in PAPERS else paper_title(p) for p in ordered)


def _counts(records: list) -> str:
    ran = [r for r in records if r.get("ran")]
    paper_scale = [r for r in ran if not r["id"].endswith("-quick")]
    quick = [r for r in ran if r["id"].endswith("-quick")]
    not_run = len(records) - len(ran)
    findings = [r for r in ran if r["status"] in ("refuted", "contradicted-empirically")]
    return (f"{len(records)} claims: {len(paper_scale)} decided at the paper's scale or exactly, {len(quick)} quick "
            f"analogues, {not_run} not run; {len(findings)} findings.")



def _headline(doc: dict, records: list) -> str:
    """One sentence for the first screen: how many findings of each severity, and how many result-breaking ones
    are refuted (proof, exhaustive check, certificate, witness) rather than contradicted by a fit or experiment."""
    by_id = {r["id"]: r for r in records}
    found = [by_id[i] for i in doc["findings"]]
    breaks = [r for r in found if r.get("severity") == "breaks-result"]
    refuted = sum(r["status"] == "refuted" for r in breaks)
    gaps = sum(r.get("severity") == "proof-gap" for r in found)
    impr = sum(r.get("severity") == "imprecision" for r in found)
    return (f"{len(found)} findings: {len(breaks)} break a result ({refuted} refuted outright, "
            f"{len(breaks) - refuted} contradicted by a fit or an experiment), {gaps} proof gaps, {impr} imprecisions.")
