"""The reader's site: ``index.html``, a page per claim and a page per label, written next to report.md.

:func:`write_site` renders an audit document (:func:`rgr_verify.audit.report.audit_document`) with the Jinja2 templates
of this package into ``DIR/index.html`` (the contributions and their rolled-up verdicts, the findings ranked, the
blueprint graph, every claim with filters and search), ``DIR/claims/<id>.html`` and ``DIR/labels/<slug>.html``.
The pages are static and self-contained (inline CSS, SVG and a few lines of script; no server, no network): they
open from the file system. Plots are the audit's own artefacts in ``DIR``, linked from the claim pages.

Markup that tests and tools rely on: the index lists one ``li.finding`` per *cause* (:func:`finding_causes`:
findings whose :func:`rgr_verify.claims.structure.cause_of` is equal, one slip recorded by several claims), ranked by
its most serious member, with ``data-claim`` and ``data-severity`` of that member and ``data-members`` (all member
ids, space-separated, in rank order); a member's status, level, ... that differ from the first member's are in
``data-any-status`` (and so on, space-separated), which the filters read too; every member has an element
``#finding-<id>`` (its claim page's back link); each label node of the blueprint a ``g.node`` with ``data-label`` and
``data-status``; each claim page has ``a#back`` to its place in the index; filters are ``select#filter-status``,
``#filter-severity``, ``#filter-level``, ``#filter-part``, ``#filter-paper`` and ``input#search``, acting on the
``.filterable`` elements through their ``data-*`` attributes; their state is kept in the address as
``#filter:status=refuted&q=...`` and restored on load. The index has ``#glossary`` (every word of the site
explained; each page's header links it, each ``.badge`` carries its meaning as ``title``), ``a.skip`` to
``main#main``, links to report.json and report.md when they exist, and the counts line where "decided" is
:data:`DECIDED`. When both papers are audited, arXiv 2502.05076's contributions and findings are on ``facts.html``
(its claims stay in the index's table too). A claim page's ``h1`` is "<label> (l. <line>): <one line of the
statement>", its id in ``code#claim-id``; its values are tables (:mod:`rgr_verify.audit.site.values`); a claim that did
not run shows the paper's (stated) value, the command at the claim's own tier and ``a.quick-analogue``. Every
finding's page shows ``figure.finding-figure`` (``data-kind`` one of :data:`rgr_verify.audit.site.figures.FIGURE_KINDS`):
``DIR/figures/<id>.png``, the paper's value drawn beside ours, its caption also the image's alt text.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from ...basics.files import atomic_write_text
from ...claims.base import FACTS_PAPER, PAPERS, RGR_PAPER
from ...claims.levels import LEVEL_MEANINGS, LEVELS
from ...claims.structure import cause_of, claim_nodes, scope_of
from ..papertext import V3_LABELS, slug
from ..report import NOT_RUN, paper_title, shown_status
from ..report_md import value_in_words
from .blueprint import PART_TITLES, layout, part_of_label
from .figures import write_figures
from .values import clean_text, is_empty, value_html

__all__ = ["write_site", "STATUS_COLORS", "STATUS_MEANINGS", "SEVERITY_MEANINGS", "TERMS", "DECIDED", "tip",
           "finding_causes"]

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

    return jinja2.Environment(loader=jinja2.PackageLoader("rgr_verify.audit.site", "templates"),
                              autoescape=jinja2.select_autoescape(["html"]), undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True)


def _status_class(record: dict) -> str:
    return "not-run" if shown_status(record) == NOT_RUN else record["status"]


def _attr(value) -> str:
    from markupsafe import escape

    return str(escape(str(value or "")))


_FILTER_KEYS = ("status", "severity", "level", "part", "paper")


def _filter_values(record: dict) -> dict:
    part = part_of_label((record.get("nodes") or [record["ref"]])[0])
    return {"status": _status_class(record), "severity": record.get("severity") or "",
            "level": record.get("evidence_level") or "", "part": part, "paper": record.get("paper") or RGR_PAPER}


def _data(record: dict, members: list | None = None) -> str:
    """The ``data-*`` attributes the filters read. ``members``: the records of a merged finding (the first is
    ``record``): their ids in ``data-members``, their text in ``data-text``, and each filter value some member has
    beside the first's in ``data-any-<key>``."""
    members = members or [record]
    text = " ".join(f"{r['id']} {r['ref']} {r['statement']}" for r in members).lower()
    items = {"claim": record["id"], **_filter_values(record), "text": text}
    if len(members) > 1:
        items["members"] = " ".join(r["id"] for r in members)
        for key in _FILTER_KEYS:
            values = list(dict.fromkeys(_filter_values(r)[key] for r in members))
            if len(values) > 1:
                items[f"any-{key}"] = " ".join(values)
    return " ".join(f'data-{k}="{_attr(v)}"' for k, v in items.items())


def finding_causes(records, finding_ids) -> list[list[str]]:
    """The findings ``finding_ids`` (ranked, most serious first) grouped by cause: findings are one cause when
    :func:`rgr_verify.claims.structure.cause_of` is equal (slip class, slip target and the labels the record weighs
    on: its ``nodes``, else :func:`~rgr_verify.claims.structure.claim_nodes`). One list of ids per cause, in the
    order of each cause's first (so most serious) member, its members in rank order. ``records``: the claim records
    (a list, or a dict by id)."""
    by_id = records if isinstance(records, dict) else {r["id"]: r for r in records}
    groups: dict = {}
    for fid in finding_ids:
        if fid not in by_id:
            raise ValueError(f"finding {fid!r} has no claim record")
        r = by_id[fid]
        groups.setdefault(cause_of(r, r.get("nodes") or claim_nodes(r)), []).append(fid)
    return list(groups.values())


def _cut(text: str, limit: int = 320) -> str:
    """A value shortened for the index (the claim page has it whole)."""
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _short_words(value, limit: int = 320) -> tuple[str, bool]:
    """A value in words for the index, without the "(N more)" cuts of :func:`value_in_words`, and whether it was
    shortened (the index then links the claim page, which has it whole)."""
    text = clean_text(value_in_words(value, max_items=10 ** 6))
    text = re.sub(r"\((\d+) entries\)|\[(\d+) items\]", "…", text)
    cut = _cut(text, limit)
    return cut, cut != text or "…" in text


def _scalar(x) -> bool:
    return x is None or isinstance(x, (bool, int, float, str))


def _index_value(value):
    """What the index shows of a measured value (the claim page has it whole): a dict's scalar entries and short
    lists of scalars, not its nested tables (when it has any such entry); a list of texts with repeats counted
    ("text (x6)"), not six near-identical items."""
    if isinstance(value, dict):
        top = {k: v for k, v in value.items()
               if _scalar(v) or (isinstance(v, (list, tuple)) and len(v) <= 4 and all(_scalar(x) for x in v))}
        return top if top else value
    if isinstance(value, (list, tuple)) and value and all(isinstance(x, dict) and "status" in x for x in value):
        counts = Counter(str(x["status"]) for x in value)  # sub-results: their statuses counted, not dumped
        return f"{len(value)} parts: " + ", ".join(f"{n} {st}" for st, n in counts.most_common())
    if isinstance(value, (list, tuple)) and len(value) > 1 and all(isinstance(x, str) for x in value):
        counts = Counter(value)
        if len(counts) < len(value):
            return [f"{text} (x{n})" if n > 1 else text for text, n in counts.items()]
    return value


# The glossary: what the site's words mean (the index shows it whole; every badge carries its line as a tooltip).
STATUS_MEANINGS = {
    "verified": "shown true exactly: a proof, exact arithmetic or every case checked",
    "holds-empirically": "an experiment, sample or fit agrees with the statement under its declared standard",
    "refuted": "shown false: a proof, an exhaustive check, a certificate or a counterexample (witness)",
    "contradicted-empirically": "an experiment or fit disagrees beyond its uncertainty, under the declared standard",
    "inconclusive": "the evidence does not decide either way (too little resolution, or readings disagree)",
    "not-run": "not run in this audit: it needs another tier (--tier full or gpu) or stored evidence",
    "error": "the check itself broke; no verdict",
    "stands": "every claim that checks it holds",
    "stands-with-gaps": "its result holds, but a step of its proof is false or missing as written",
    "stands-with-imprecisions": "its result holds; a constant, condition or remark is stated loosely",
    "stands-on-analogues": "holds only on scaled-down (quick) analogues of the paper's experiments",
    "partly-broken": "a result elsewhere in it fails, while its central statement stands",
    "broken": "its central result fails as stated",
    "contradicted": "its central result is contradicted by experiment or fit",
    "undecided": "no claim that checks it reached a verdict",
    "no-claims": "no claim of this audit checks it",
}
SEVERITY_MEANINGS = {
    "breaks-result": "a stated result is false (for every admissible constant or under the reading named)",
    "proof-gap": "the result may hold, but a step of the proof is false or unsupported as written",
    "imprecision": "a constant, bound or side remark is off; the result is unaffected",
}
TERMS = {
    "decided": "a verdict either way: verified, holds empirically, refuted or contradicted (inconclusive and not "
               "run are not decided)",
    "finding": "a claim that is refuted or contradicted: something wrong with the paper as written",
    "evidence level": "what a verdict rests on, strongest first: proved, exhaustive, certified, witness, searched, "
                      "sampled, grid, fitted, experiment, analogue",
    "reading": "one way to read a statement the paper leaves open (a constant's range, a hypothesis's scope); a "
               "finding may hold under every reading or under a named one",
    "robustness (multiverse)": "the same verdict re-derived under every reasonable analysis choice (seeds left "
                               "out, test level, fit form); robust when all agree",
    "specification curve": "the estimate under each of those analyses, ranked, with the paper's value beside it",
    "quick analogue": "a scaled-down version of a paper-scale experiment, run in seconds (ids ending in -quick); "
                      "it supports, never replaces, the paper-scale claim",
    "post hoc": "the rule that decides the claim was written or changed after the evidence it reads existed "
                "(the preregistration check of the evidence manifests)",
    "rule fingerprint": "a hash of the analysis code and constants that decide a claim; recorded with the evidence, "
                        "it shows whether the rule changed since",
    "witness": "a concrete instance (numbers) that meets every hypothesis and breaks the conclusion, or that "
               "shows an existence claim",
    "our premise": "a statement the audit formulated, not a sentence of the paper: a premise its text implies, or "
                   "a check of ours; a finding on it weighs on the paper only through that premise",
    "rung / ladder": "the grid of D_K values an experiment scans (a ladder); a rung is one of its steps, and a "
                     "threshold shift is counted in rungs",
    "false-alarm level": "the chance, fixed in advance, that a check of a probability statement fails a statement "
                         "that is true (an exact test's level)",
    "ledger": "the verdicts recorded in the repository; an audit that disagrees with it exits non-zero",
}


def tip(kind: str, value) -> str:
    """The tooltip of a badge: ``kind`` is "status", "severity", "level" or "term"."""
    value = str(value or "")
    if kind == "status":
        base = value.split(" ")[0]
        return f"{value}: {STATUS_MEANINGS.get(base, 'status of the claim')}"
    if kind == "severity":
        return f"{value}: {SEVERITY_MEANINGS.get(value, 'severity of the finding')}"
    if kind == "level":
        return f"evidence level {value}: {LEVEL_MEANINGS.get(value, 'no evidence recorded')}"
    if kind == "term":
        return f"{value}: {TERMS.get(value, '')}"
    raise ValueError(f"tip kind must be status, severity, level or term, got {kind!r}")


def _stated_value(r: dict, claim) -> dict:
    """The claim's stated values: the record's, else the registry's ``expects`` (a claim that did not run)."""
    stated = dict(r.get("stated") or {})
    if not stated and claim is not None:
        for name, st in (getattr(claim, "expects", None) or {}).items():
            stated[name] = {"value": getattr(st, "value", None), "note": getattr(st, "note", "") or "",
                            "unmutated": getattr(st, "unmutated", "") or "", "bound": getattr(st, "bound", "") or ""}
    return stated


def _paper_value(r: dict, stated: dict):
    """The paper's value for a reader: (value, words for when there is none). A claim that did not run shows its
    stated values, else its statement (what the paper says)."""
    if not is_empty(r.get("paper_value")):
        return r["paper_value"], ""
    if stated:
        return {n: st.get("value") for n, st in stated.items()}, ""
    if not r.get("ran"):
        return None, f"stated without a number; the paper says: {clean_text(r['statement'])}"
    return None, "no number: the statement above is what the paper says"


def _label_lines(label: str):
    lines = V3_LABELS.get(label)
    return tuple(lines) if lines else None


def _check_name(claim) -> str:
    fn = claim.check
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', getattr(fn, '__name__', '?'))}"


_TIERS = ("quick", "full", "gpu")


def _command(doc: dict, record: dict) -> str:
    """The command that re-runs the claim: the audit's tier, or the claim's own where it needs a higher one."""
    tier = doc.get("tier") or "quick"
    own = record.get("tier")
    if own in _TIERS and (tier not in _TIERS or _TIERS.index(own) > _TIERS.index(tier)):
        tier = own
    return (f"rgr-verify audit --tier {tier} --only '{record['id']}' --seed "
            f"{doc.get('root_seed')} --out rgr-report-{record['id']}")


def _robustness(record: dict) -> tuple[str, dict]:
    rob = record.get("robustness")
    if not isinstance(rob, dict):
        return "", {}
    dims = {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in (rob.get("dimensions") or {}).items()}
    return clean_text(rob.get("summary") or ""), dims


def _one_line(text: str, limit: int = 150) -> str:
    text = " ".join(clean_text(text).split())
    first = re.split(r"(?<=[a-z0-9)\]}][.;])\s+(?=[A-Z])", text, maxsplit=1)[0]
    first = first.rstrip(".;")
    return first if len(first) <= limit else first[:limit - 1].rsplit(" ", 1)[0].rstrip(",;") + " …"


_BEFORE = re.compile(r"\b(?:rule[^.]{0,60}?fixed (?:before|in advance)|fixed before (?:running|the|any))", re.I)


def _post_hoc(r: dict) -> dict | None:
    """The preregistration check's verdict in words (``post_hoc`` of the record), and what the notes say."""
    ph = r.get("post_hoc")
    if not ph:
        return None
    if not isinstance(ph, dict):
        return {"text": clean_text(value_in_words(ph)), "caveat": ""}
    reason = str(ph.get("reason") or "")
    ev, run, rules = ph.get("evidence") or "its evidence", ph.get("evidence_date"), ph.get("rules_date")
    run_words = f"run {run}" if run else "run on an unrecorded date"
    if reason.startswith("rule revised"):
        text = f"the rule changed after the evidence {ev} ({run_words}) was added: {reason}"
    elif reason.startswith("no rule recorded"):
        text = (f"no rule was recorded with the evidence {ev} ({run_words}; its rules recorded "
                f"{rules or 'never'}), so nothing shows the rule came first")
    else:
        text = f"{reason} (evidence {ev})"
    caveat = ""
    notes = f"{r.get('notes') or ''} {r.get('details') or ''}"
    if _BEFORE.search(notes):
        caveat = ("The notes say the rule was fixed before the runs it reads; the flag stands because the "
                  f"preregistration record of {ev} does not confirm it (a changed fingerprint means the analysis "
                  "code or constants the rule reaches changed after the fingerprint was recorded).")
    return {"text": clean_text(text), "caveat": caveat}



def _batches(r: dict) -> list[dict]:
    """The committed evidence that feeds a claim, in words: per store its seeds, each batch (when, from which
    commit, whether the tree was clean, runs, seeds, why it was added later) and where it departs from the paper."""
    from ...runs.batches import seed_range

    out = []
    for ev in r.get("evidence_batches") or []:
        seeds = ev.get("seeds") or []
        rows = []
        for i, b in enumerate(ev.get("batches") or [], 1):
            clean = {True: "clean tree", False: "uncommitted changes", None: "tree state not recorded"}[b.get("clean")]
            late = bool(ev.get("rules_date") and (b.get("date") is None or ev["rules_date"] > b["date"]))
            rows.append({"n": i, "date": b.get("date") or "not recorded", "commit": (b.get("commit") or "")[:10],
                         "clean": clean, "runs": b.get("runs"), "seeds": seed_range(b.get("seeds") or [], "none recorded"),
                         "after": clean_text(b.get("after") or ""), "notes": clean_text(b.get("notes") or ""),
                         "late": late})
        out.append({"evidence": ev.get("evidence"), "seeds": seed_range(seeds, "none recorded"), "n_seeds": len(seeds),
                    "rules_date": ev.get("rules_date") or "never", "batches": rows,
                    "deviations": [clean_text(d) for d in ev.get("deviations") or []]})
    return out


def _quick_analogue(cid: str, notes: str, ids) -> str:
    """The id of the quick analogue of claim ``cid``: ``cid-quick``, the same name under another section's prefix
    (``fig7-x`` and ``sec73-x-quick``), or a ``-quick`` id its notes name; "" when there is none."""
    if cid.endswith("-quick"):
        return ""
    quick = sorted(i for i in ids if i.endswith("-quick"))
    if f"{cid}-quick" in quick:
        return f"{cid}-quick"
    tail = cid.split("-", 1)[-1]
    for q in quick:
        if q.split("-", 1)[-1] == f"{tail}-quick":
            return q
    for q in quick:
        if re.search(rf"(?<![\w-]){re.escape(q)}(?![\w-])", notes or ""):
            return q
    return ""


def _witness(w):
    """A witness as a reader's table: a sampled check's (trial index, that draw's record) pair becomes the record
    with its trial named, not a two-row table of positions."""
    if isinstance(w, (list, tuple)) and len(w) == 2 and isinstance(w[0], int) and isinstance(w[1], dict):
        return {"trial": w[0], **w[1]}
    return w


def _claim_view(doc: dict, r: dict, claim, ledger: dict) -> dict:
    status = shown_status(r)
    rob, dims = _robustness(r)
    lean = ((r.get("robustness") or {}).get("lean") or {}).get("text") if isinstance(r.get("robustness"), dict) else None
    params = r.get("params") or {}
    readings = [("" if key == "readings" else key.replace("_", " "), value_html(params[key]))
                for key in ("readings", "refuted_under", "per_reading", "hypotheses_checked")
                if not is_empty(params.get(key))]
    stores = sorted(set(re.findall(r"evidence/[\w.+-]+", r.get("evidence") or "")))
    labels = [{"label": n, "slug": slug(n), "lines": _label_lines(n), "at": (r.get("supports_at") or {}).get(n, "")}
              for n in (r.get("nodes") or []) if n not in doc["_ids"]]
    stated = _stated_value(r, claim)
    paper_value, paper_words = _paper_value(r, stated)
    first = labels[0] if labels else None
    where = (first["label"] if first else r["ref"]) + (f" (l. {first['lines'][0]})" if first and first["lines"] else "")
    quick = _quick_analogue(r["id"], r.get("notes") or "", doc["_ids"])
    return {
        "id": r["id"], "ref": r["ref"], "paper": r.get("paper") or RGR_PAPER, "statement": clean_text(r["statement"]),
        "heading": f"{where}: {_one_line(r['statement'])}", "where": where,
        "status": status, "status_class": _status_class(r), "severity": r.get("severity"),
        "severity_reason": clean_text(r.get("severity_reason") or ""), "severity_links": r.get("severity_links") or [],
        "level": r.get("evidence_level") or "none", "level_meaning": LEVEL_MEANINGS.get(r.get("evidence_level") or "", "no evidence recorded"),
        "quick": r["id"].endswith("-quick"), "provenance": r.get("provenance") or "paper",
        "paper_value": paper_value, "paper_words": paper_words,
        "paper_value_html": value_html(paper_value) if paper_value is not None else "",
        "measured_value_html": value_html(r.get("measured_value")) if r.get("ran") else "",
        "ran": bool(r.get("ran")),
        "ledger": (f"not run here; the ledger records {ledger[r['id']]}" if status == NOT_RUN and r["id"] in ledger
                   else ""),
        "robustness": rob, "dimensions": dims, "dimensions_html": value_html(dims) if dims else "",
        "witness_html": value_html(_witness(r.get("witness"))) if not is_empty(r.get("witness")) else "",
        "readings": readings, "evidence": clean_text(r.get("evidence") or ""),
        "details": clean_text(r.get("details") or ""),
        "stores": stores, "rule": r.get("rule_fingerprint") or "", "check": _check_name(claim) if claim else "?",
        "post_hoc": _post_hoc(r), "batches": _batches(r), "command": _command(doc, r), "notes": clean_text(r.get("notes") or ""),
        "tier": r.get("tier") or "", "quick_analogue": quick,
        "seed": r.get("seed"), "seconds": r.get("seconds"), "reused": r.get("reused"), "labels": labels,
        "stated": [{"name": n, "value": value_html(st.get("value")), "note": clean_text(st.get("note") or ""),
                    "unmutated": clean_text(st.get("unmutated") or ""), "bound": st.get("bound") or ""}
                   for n, st in stated.items()],
        "plots": [a for a in r.get("artefacts") or [] if a.lower().endswith((".png", ".svg"))],
        "robustness_short": (rob.split(":")[0] + (f", {lean}" if lean else "")) if rob else "",
        "data": _data(r),
    }


def write_site(doc: dict, out, *, ledger: dict | None = None, paper_html: bool = False,
               coverage: list | None = None, results: list | None = None) -> Path:
    """Write the site of the audit document ``doc`` into the directory ``out`` and return ``out/index.html``.

    ``ledger``: {claim id: recorded status} shown next to claims that did not run; ``paper_html``: whether
    ``out/paper.html`` (the annotated paper) is written too, so the pages link it; ``coverage``: the rows of the
    coverage map (:func:`rgr_verify.audit.coverage.coverage_rows` or ``recorded_rows``), written as ``coverage.html``. The pages are rendered in a
    temporary folder inside ``out`` and moved into place only when all are written."""
    from ...claims import all_claims

    if not isinstance(doc, dict) or "claims" not in doc or "rollup" not in doc:
        raise ValueError("doc must be an audit document (rgr_verify.audit.report.audit_document) with claims and rollup")
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
    by_id = {r["id"]: r for r in records}
    # The main paper's index; the second paper (2502.05076) gets its own page, facts.html, when both are audited.
    own = {r["id"] for r in records if (r.get("paper") or RGR_PAPER) == FACTS_PAPER}
    second = FACTS_PAPER if own and len(own) < len(records) else None
    main_paper = FACTS_PAPER if own and not second else RGR_PAPER
    reports = [(name, name) for name in ("report.json", "report.md") if (out / name).is_file()]
    common = {"has_paper": paper_html, "has_second": bool(second), "tip": tip, "has_coverage": coverage is not None}
    finding_ids = list(doc["findings"])
    run = doc.get("run") or {}
    run_line = clean_text(f"{doc.get('tier')} tier, root seed {doc.get('root_seed')}, device {doc.get('device')}"
                          + (f"; commit {run.get('commit')}" if run.get("commit") else "")
                          + (f"; {run.get('date')}" if run.get("date") else "")
                          + (f"; command: {run.get('command')}" if run.get("command") else ""))
    parts = sorted({part_of_label((r.get("nodes") or [r["ref"]])[0]) for r in records}, key=list(PART_TITLES).index)

    def finding_rows(ids):
        """One row per cause (:func:`finding_causes`): its first member's view, and all its members."""
        rows = []
        for group in finding_causes(by_id, ids):
            fid = group[0]
            v = views[fid]
            pv, pcut = _short_words(v["paper_value"]) if v["paper_value"] is not None else (v["paper_words"], False)
            mv, mcut = (_short_words(_index_value(by_id[fid].get("measured_value"))) if v["ran"]
                        else ("not run in this audit", False))
            rows.append({**v, "paper_short": pv, "paper_cut": pcut, "measured_short": mv, "measured_cut": mcut,
                         "scope": scope_of(by_id[fid]),
                         "data": _data(by_id[fid], [by_id[i] for i in group]),
                         "members": [views[i] for i in group]})
        return rows

    def contribution_rows(of_paper):
        return [{"id": cid, "slug": slug(f"contribution:{cid}"), "short": c["title"].split(":")[0],
                 "where": c["where"], "status": c["status"], "summary": clean_text(c["summary"].split(": ", 1)[-1]),
                 "sentence": clean_text(c.get("sentence") or ""), "at": ", ".join(c.get("at") or []),
                 "core": ", ".join(c.get("core", {}).get("labels", [])), 
                 "breaking": [{"id": i, "level": by_id[i].get("evidence_level") or "none",
                               "status": by_id[i]["status"], "ref": by_id[i]["ref"]}
                              for i in c.get("breaking", []) if i in by_id]}
                for cid, c in contributions.items() if of_paper(c.get("paper") or RGR_PAPER)]

    def in_second(paper):
        return second is not None and paper == second

    main_findings = [f for f in finding_ids if not in_second(by_id[f].get("paper") or RGR_PAPER)]
    claim_rows = [{**views[r["id"]], "robustness": views[r["id"]]["robustness_short"]} for r in records]
    filters = {"statuses": _CLAIM_STATUSES, "severities": ("breaks-result", "proof-gap", "imprecision"),
               "levels": LEVELS, "parts": [(p, PART_TITLES[p]) for p in parts],
               "papers": [(p, "both papers (cross-paper claims)" if "+" in p else p) for p in paper_options]}
    staging = Path(tempfile.mkdtemp(dir=out, prefix=".site-"))
    try:
        (staging / "claims").mkdir()
        (staging / "labels").mkdir()
        (staging / "figures").mkdir()
        # one figure per finding, the paper's value and ours (rgr_verify.audit.site.figures), shown on its claim page
        figures = write_figures(records, staging / "figures")
        for cid, v in views.items():
            v["figure"] = ({"src": f"../figures/{figures[cid]['file']}", "kind": figures[cid]["kind"],
                            "caption": figures[cid]["caption"]} if cid in figures else None)
        main_records = [r for r in records if not in_second(r.get("paper") or RGR_PAPER)]
        atomic_write_text(staging / "index.html", env.get_template("index.html").render(
            title="Audit", root="", paper_title=_paper_heading([main_paper]), run_line=run_line,
            counts_line=_counts_line(main_records, records, second, fed_claim_ids(main_records, registry)),
            contributions=contribution_rows(lambda p: not in_second(p)),
            findings=finding_rows(main_findings), n_findings=len(main_findings), bp=bp, colors=STATUS_COLORS,
            dark=_DARK, claims=claim_rows,
            headline=_headline({"findings": main_findings}, records), reports=reports,
            glossary=_glossary(), second=PAPERS.get(second, paper_title(second)) if second else None,
            **filters, **common))
        if second:
            second_records = [r for r in records if in_second(r.get("paper") or RGR_PAPER)]
            second_findings = [f for f in finding_ids if f not in main_findings]
            atomic_write_text(staging / "facts.html", env.get_template("index.html").render(
                title=f"arXiv {second}", root="", paper_title=_paper_heading([second]), run_line=run_line,
                counts_line=_counts(second_records), contributions=contribution_rows(in_second),
                findings=finding_rows(second_findings), n_findings=len(second_findings), bp=None,
                colors=STATUS_COLORS, dark=_DARK,
                headline=_headline({"findings": second_findings}, records), reports=reports, glossary=None,
                second=None, claims=[row for row in claim_rows if in_second(row["paper"])],
                **filters, **common))
        if coverage is not None:
            atomic_write_text(staging / "coverage.html", _coverage_page(env, coverage, by_id, common, results))
        tpl = env.get_template("claim.html")
        finding_set = set(finding_ids)
        for cid, v in views.items():
            in2 = in_second(v["paper"])
            back = (("facts.html#" if in2 else "index.html#") + (f"finding-{cid}" if cid in finding_set else
                                                                   "claims"))
            atomic_write_text(staging / "claims" / f"{cid}.html", tpl.render(
                title=v["heading"], root="../", c=v, back_href=f"../{back}", **common))
        tpl = env.get_template("label.html")
        for lab in list(labels) + extra:
            summary = labels.get(lab, {"status": "no-claims", "summary": "no claim of this audit checks it",
                                       "claims": []})
            atomic_write_text(staging / "labels" / f"{slug(lab)}.html", tpl.render(
                title=lab, root="../", label=lab, status=summary["status"], summary=clean_text(summary["summary"]),
                lines=_label_lines(lab), title_text="", sublabels=[],
                claims=[views[i] for i in summary["claims"] if i in by_id], **common))
        for cid, c in contributions.items():
            subs = [{"label": lab, "slug": slug(lab), "status": labels[lab]["status"]} for lab in c["labels"]]
            atomic_write_text(staging / "labels" / f"{slug(f'contribution:{cid}')}.html", tpl.render(
                title=c["title"].split(":")[0], root="../", label=c["title"].split(":")[0], status=c["status"],
                summary=clean_text(f"{c['sentence']} In detail: {c['summary']}" if c.get("sentence")
                                   else c["summary"]),
                lines=None, title_text=clean_text(c["where"]), sublabels=subs,
                claims=[views[i] for i in c["claims"] if i in by_id], **common))
        subs = ["claims", "labels", "figures"]
        if paper_html:  # the annotated paper's math renderer, bundled so that the site opens offline
            shutil.copytree(Path(__file__).parent / "static" / "katex", staging / "katex")
            subs.append("katex")
        for sub in subs:
            dest = out / sub
            if dest.exists():
                shutil.rmtree(dest)
            (staging / sub).replace(dest)
        if coverage is not None:
            (staging / "coverage.html").replace(out / "coverage.html")
        elif (out / "coverage.html").is_file():
            (out / "coverage.html").unlink()
        if second:
            (staging / "facts.html").replace(out / "facts.html")
        elif (out / "facts.html").is_file():
            (out / "facts.html").unlink()
        (staging / "index.html").replace(out / "index.html")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out / "index.html"


def _coverage_page(env, rows: list, by_id: dict, common: dict, results: list | None = None) -> str:
    """coverage.html: the coverage map's rows, each claim linked to its page when this audit ran it, then the
    numbered results of the theory sections with the claims that bear on them (``results``:
    :func:`rgr_verify.audit.coverage.label_rows`)."""
    from ..coverage import REASON_KINDS

    shown = []
    for r in rows:
        claims = [{"id": c, "status": st, "status_class": _status_class(by_id[c]) if c in by_id else "not-run",
                   "href": f"claims/{c}.html" if c in by_id else ""} for c, st in r.get("claims") or []]
        shown.append({**r, "claims": claims})
    shown_results = [{**r, "claims": [{"id": c, "status": st, "href": f"claims/{c}.html" if c in by_id else "",
                                       "status_class": _status_class(by_id[c]) if c in by_id else "not-run"}
                                      for c, st in r["claims"]]} for r in results or []]
    n = {s: sum(r["state"] == s for r in rows) for s in ("covered", "reason", "uncovered")}
    gaps = sum(r["state"] == "reason" and r["reason"]["kind"] in ("gap", "quick-only") for r in rows)
    counts = (f"{len(rows)} sentences: {n['covered']} decided by claims at the paper's scale, {n['reason']} with a "
              f"reason no claim decides them ({gaps} of them gaps of the audit: a measurable result no paper-scale "
              f"claim decides yet), {n['uncovered']} uncovered.")
    return env.get_template("coverage.html").render(
        title="Coverage", root="", rows=shown, counts=counts, kinds=REASON_KINDS, results=shown_results,
        has_text=any(r.get("text") for r in rows), **common)


def _glossary() -> dict:
    """The glossary's sections: (word, meaning) pairs."""
    claim_statuses = [(s, STATUS_MEANINGS[s]) for s in _CLAIM_STATUSES]
    rollup = [(s, STATUS_MEANINGS[s]) for s in STATUS_MEANINGS if s not in _CLAIM_STATUSES]
    return {"Verdicts of a claim": claim_statuses, "Verdicts of a label or a contribution": rollup,
            "Severity of a finding": list(SEVERITY_MEANINGS.items()),
            "Evidence levels (strongest first)": [(lv, LEVEL_MEANINGS.get(lv, "")) for lv in LEVELS],
            "Other words": list(TERMS.items())}


def _paper_heading(papers: list) -> str:
    """The index's heading: arXiv 2509.22840 first, then the other paper audited beside it."""
    ordered = sorted(papers or [RGR_PAPER], key=lambda p: (p != RGR_PAPER, p))
    return "Audit of " + " and of ".join(PAPERS[p] if p in PAPERS else paper_title(p) for p in ordered)


DECIDED = ("verified", "holds-empirically", "refuted", "contradicted-empirically")


def _counts(records: list) -> str:
    """The counts line: decided means a verdict either way (:data:`DECIDED`), never inconclusive or not run."""
    ran = [r for r in records if r.get("ran")]
    decided = [r for r in ran if r["status"] in DECIDED]
    paper_scale = [r for r in decided if not r["id"].endswith("-quick")]
    quick = [r for r in decided if r["id"].endswith("-quick")]
    undecided = sum(r["status"] not in DECIDED for r in ran)
    not_run = len(records) - len(ran)
    holding = sum(r["status"] in ("verified", "holds-empirically") for r in decided)
    findings = [r for r in ran if r["status"] in ("refuted", "contradicted-empirically")]
    return (f"{len(records)} claims: {len(decided)} decided ({holding} hold, {len(findings)} fail: the findings), "
            f"{len(paper_scale)} of them decided at the paper's scale or by exact checks, {len(quick)} only on "
            f"scaled-down quick analogues; "
            f"{undecided} inconclusive, {not_run} not run.")


def fed_claim_ids(records: list, registry: dict) -> set:
    """The ids of the claims among ``records`` that a committed evidence manifest feeds (the preregistration
    check's own count: :func:`rgr_verify.claims.preregistration.fed_claims`)."""
    from ...claims.preregistration import fed_by_any
    from ...runs.evidence import manifests

    return set(fed_by_any(manifests(), [registry[r["id"]] for r in records if r["id"] in registry]))


def _counts_line(records: list, all_records: list, second: str | None, fed_ids: set = frozenset()) -> str:
    """:func:`_counts` of this page's claims, saying what the audit's other claims are when the page shows part, and
    how many of the claims that committed evidence feeds are post hoc (their rule written after that evidence)."""
    line = _counts(records)
    fed = [r for r in records if r["id"] in fed_ids]
    late = [r for r in fed if r.get("post_hoc")]
    if late:
        line += (f" Post hoc: {len(late)} of the {len(fed)} claims that committed evidence feeds have a rule written "
                 "after it (a post-hoc badge marks them; their verdicts are not preregistered).")
    rest = len(all_records) - len(records)
    if second and rest:
        line += (f" (This page counts the claims about this paper, cross-paper ones included; the audit's other "
                 f"{rest} are the second paper's, on its own page: {len(all_records)} in all.)")
    return line


def _headline(doc: dict, records: list) -> str:
    """One sentence for the first screen: how many findings of each severity, and how many result-breaking ones
    are refuted (proof, exhaustive check, certificate, witness) rather than contradicted by a fit or experiment."""
    by_id = {r["id"]: r for r in records}
    found = [by_id[i] for i in doc["findings"]]
    causes = len(finding_causes(by_id, doc["findings"]))
    breaks = [r for r in found if r.get("severity") == "breaks-result"]
    refuted = sum(r["status"] == "refuted" for r in breaks)
    gaps = sum(r.get("severity") == "proof-gap" for r in found)
    impr = sum(r.get("severity") == "imprecision" for r in found)
    return (f"{len(found)} findings ({causes} {'cause' if causes == 1 else 'causes'}): {len(breaks)} break a result "
            f"({refuted} refuted outright, "
            f"{len(breaks) - refuted} contradicted by a fit, a sample or an experiment), {gaps} proof gaps, "
            f"{impr} imprecisions.")
