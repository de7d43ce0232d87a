"""The paper as a graph: its contributions, its numbered results, and the claims that support them.

Nodes are the paper's contributions (the abstract's and Sec. 1's headline statements, :data:`CONTRIBUTIONS`), its
labels ("Theorem 8.1", "Eq. (10)", "Figure 3"; a label of arXiv 2502.05076 is prefixed with its id), and the claims.
A claim supports the label of its ``ref`` and whatever its ``supports`` names; a label belongs to the contributions
whose patterns match it. On the records of an audit (``report.result_record``):

- :func:`severity_of` gives the severity of a finding from its declared slip (class and target) through the one
  table :data:`~rgr_verify.claims.standards.SEVERITY_TABLE`; a finding without one (which the ledger test refuses)
  falls back on its role;
- :func:`rollup` rolls the verdicts up per label and per contribution (status, findings by severity, evidence levels);
- :func:`ranked_findings` orders the findings by severity, then evidence level, then paper order.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from dataclasses import dataclass

from .base import FACTS_PAPER, RGR_PAPER, SEVERITIES, label_of_ref, paper_parts
from .levels import level_rank
from .standards.severity import SLIP_CLASSES, SLIP_TARGETS, severity_for

__all__ = ["Contribution", "CONTRIBUTIONS", "FINDING_STATUSES", "HOLDING_STATUSES", "ROLLUP_STATUSES", "node_of",
           "claim_nodes", "severity_of", "annotate", "rollup", "ranked_findings", "contributions_of"]

FINDING_STATUSES = ("refuted", "contradicted-empirically")
HOLDING_STATUSES = ("verified", "holds-empirically")
# A node's rolled-up status, worst first.
ROLLUP_STATUSES = ("broken", "contradicted", "partly-broken", "stands-with-gaps", "stands-with-imprecisions", "stands",
                   "stands-on-analogues", "undecided")


@dataclass(frozen=True)
class Contribution:
    """A headline contribution of a paper (the abstract's and Sec. 1's list), in our words.

    ``labels`` are glob patterns over label nodes (:func:`node_of`); ``where`` says where the paper states it;
    ``core`` the patterns of its central results (the theorem that states it), whose verdict is the
    contribution's: a finding elsewhere in it makes it ``partly-broken``, not ``broken`` (empty: every label is
    core)."""

    id: str
    title: str
    where: str
    labels: tuple
    paper: str = RGR_PAPER
    core: tuple = ()


def _eqs(first: int, last: int) -> tuple:
    return tuple(f"Eq. ({n})" for n in range(first, last + 1))


CONTRIBUTIONS = (
    Contribution("capacity-law", "The headline capacity law: the total key dimension needed grows like "
                 "m' log m' / d_model (m log m / d_model for permutation graphs), matched by a lower bound and "
                 "constructions and followed by trained thresholds",
                 "Abstract; OpenReview abstract; Sec. 1",
                 ("Abstract", "OpenReview abstract", "Sec. 1", "Theorem 4.1", "Theorem 9.2", "Figure 3"),
                 core=("Theorem 4.1", "Theorem 9.2")),
    Contribution("rgr-model", "The RGR task and the max-over-heads / softmax key-query model with D_K = h d_k as the "
                 "budget", "Sec. 1 (formal model and budget); Sec. 3",
                 ("Sec. 3", "Sec. 4", "App. C")),
    Contribution("lower-bound", "An information-theoretic lower bound D_K = Omega((m'/d_model) log(m^2/m')) for "
                 "max-over-heads and softmax alike", "Sec. 1 (lower bound); Sec. 9; Sec. 10",
                 ("Sec. 9", "Definition 9.1", "Theorem 9.2", "Lemma 9.3", *_eqs(23, 29), "Sec. 10"),
                 core=("Theorem 9.2",)),
    Contribution("constructions", "Explicit constructions reaching D_K = O((m'/d_model + Delta) log m') for "
                 "max-over-heads (asymptotically optimal for sparse graphs)", "Sec. 1 (constructions); Sec. 4; App. B",
                 ("Construction *", "Algorithm 1", "Algorithm 3", "Algorithm 4", "Algorithm 5", "Theorem 4.1",
                  "App. B", "App. B.*", "Theorem B.*", "Lemma B.*", "Corollary B.*", "Definition B.*", "Eq. (33)"),
                 core=("Theorem 4.1", "Theorem B.9")),
    Contribution("multi-head-rationale", "The multi-head advantage even on permutation graphs: with d_model << m, "
                 "more, smaller heads reduce the interference each head carries", "Sec. 1 (multi-head rationale); Sec. 5",
                 ("Sec. 5", "Eq. (1)", "Eq. (2)", "Corollary B.10", "Figure 2", "Table 1"),
                 core=("Sec. 5", "Eq. (1)", "Eq. (2)")),
    Contribution("softmax-analysis", "The scaled-softmax analysis: a construction for permutation graphs and its "
                 "budget", "Sec. 1 (constructions, softmax); Sec. 8",
                 ("Sec. 8", "Theorem 8.1", "Lemma 8.2", "Lemma 8.3", "Proposition 8.4", "Algorithm 2", *_eqs(5, 22)),
                 core=("Theorem 8.1",)),
    Contribution("experiments", "Training experiments: sharp transitions in D_K, the D_K* scaling, the optimal head "
                 "count, and robustness to softmax, a value channel and a frozen-embedding Transformer block",
                 "Sec. 1 (empirical validation); Secs. 6-7; App. A",
                 ("Sec. 6", "Sec. 6.*", "Sec. 7", "Sec. 7.*", "Figure *", "Table *", "App. A", "App. A.*",
                  *_eqs(30, 32))),
    Contribution("facts-capacity", "Paying Attention to Facts: the knowledge capacity of one attention layer measured "
                 "by the tensor rank of the fact database", "arXiv 2502.05076 (summary)",
                 (f"{FACTS_PAPER} *",), paper=FACTS_PAPER),
)

_FACTS_FIRST = ("Proposition", "Example", "Summary")


def node_of(paper: str, ref: str) -> str:
    """The label node of a reference: the label itself for arXiv 2509.22840 ("Theorem 8.1"), the label prefixed
    with the paper id for arXiv 2502.05076 ("2502.05076 Proposition 2.1"). A cross-paper claim's label is read as
    2502.05076's when it is a proposition, an example or "Summary", else as 2509.22840's."""
    parts = paper_parts(paper)
    label = label_of_ref(ref)
    if parts == (RGR_PAPER,):
        return label
    if parts == (FACTS_PAPER,) or label.startswith(_FACTS_FIRST):
        return f"{FACTS_PAPER} {label}"
    return label


def claim_nodes(record: dict) -> tuple:
    """The label nodes (and claim ids) a claim record supports: its ref's label, then its ``supports``."""
    paper = record.get("paper") or RGR_PAPER
    out = [node_of(paper, record["ref"])]
    for s in record.get("supports") or ():
        try:
            out.append(node_of(paper, s))
        except ValueError:
            out.append(s)
    return tuple(dict.fromkeys(out))


def contributions_of(node: str) -> tuple:
    """The ids of the contributions whose label patterns match ``node``."""
    return tuple(c.id for c in CONTRIBUTIONS if any(fnmatch.fnmatchcase(node, pat) for pat in c.labels))


def _holds(r: dict) -> bool:
    return bool(r.get("ran")) and r.get("status") in HOLDING_STATUSES


def _finding(r: dict) -> bool:
    return bool(r.get("ran")) and r.get("status") in FINDING_STATUSES


def severity_of(record: dict, records: list[dict]) -> dict | None:
    """The severity of a finding (None for a record that is not one): ``{"severity", "reason", "computed",
    "links"}``. ``links`` are the ids of the claims showing the served result's conclusion holds (a proof gap's
    "the conclusion survives"), for a proof step."""
    if not _finding(record):
        return None
    slip = record.get("slip")
    if slip:
        return {"severity": severity_for(slip["class"], slip["target"]), "computed": True, "links": [],
                "slip": slip["class"], "target": slip["target"],
                "reason": f"{SLIP_CLASSES[slip['class']]}, on {SLIP_TARGETS[slip['target']]}: {slip['why']}"}
    role = record.get("role") or "result"
    if role == "detail":
        return {"severity": "imprecision", "computed": True, "links": [],
                "reason": "a stated constant, count, wording or cross-reference is wrong; the result it sits in is "
                          "not touched by it"}
    if role == "result":
        return {"severity": "breaks-result", "computed": True, "links": [],
                "reason": "the statement's conclusion does not hold as stated"}
    served = [n for n in claim_nodes(record)[1:]] or list(claim_nodes(record))
    survive = [r["id"] for r in records if r is not record and (r.get("role") or "result") == "result" and _holds(r)
               and set(claim_nodes(r)) & set(served)]
    broken = [r["id"] for r in records if r is not record and (r.get("role") or "result") == "result" and _finding(r)
              and set(claim_nodes(r)) & set(served)]
    if survive and not broken:
        reason = f"a step of the proof of {', '.join(served)} fails; the conclusion still holds ({', '.join(survive)})"
    elif broken:
        reason = (f"a step of the proof of {', '.join(served)} fails; the conclusion itself fails too "
                  f"({', '.join(broken)})")
    else:
        reason = f"a step of the proof of {', '.join(served)} fails; no claim decides whether the conclusion survives"
    return {"severity": "proof-gap", "computed": True, "links": survive, "reason": reason}


def annotate(records: list[dict]) -> list[dict]:
    """The records with ``severity``, ``severity_reason``, ``severity_links`` and ``nodes`` filled in (new dicts)."""
    out = []
    for r in records:
        sev = severity_of(r, records)
        out.append({**r, "nodes": list(claim_nodes(r)), "severity": sev["severity"] if sev else None,
                    "severity_reason": sev["reason"] if sev else None,
                    "severity_computed": sev["computed"] if sev else None,
                    "severity_links": sev["links"] if sev else []})
    return out


def ranked_findings(records: list[dict]) -> list[dict]:
    """The findings (refuted or contradicted records that ran), ranked: severity (breaks-result first), then
    scope (a finding under every reading before one scoped to some readings of an ambiguity), then evidence level
    (strongest first), then paper order. ``records`` must be :func:`annotate`'d."""
    order = {r["id"]: i for i, r in enumerate(records)}
    found = [r for r in records if _finding(r)]
    return sorted(found, key=lambda r: (SEVERITIES.index(r["severity"]) if r.get("severity") in SEVERITIES
                                        else len(SEVERITIES), _scoped(r), level_rank(r.get("evidence_level") or ""),
                                        order[r["id"]]))


def _scoped(record: dict) -> bool:
    """Whether a finding stands only under some readings of an ambiguity (``params["refuted_under"]`` names them)."""
    under = (record.get("params") or {}).get("refuted_under")
    return isinstance(under, str) and under.startswith("reading")


_QUICK = "-quick"
_WORDS = {"broken": "conclusion fails", "contradicted": "contradicted by experiment or fit, not refuted",
          "partly-broken": "stands at its core, another of its results fails",
          "stands-with-gaps": "conclusion stands, its proof has gaps",
          "stands-with-imprecisions": "stands, with imprecisions", "stands": "stands",
          "stands-on-analogues": "stands only in analogues of ours, not decided at the paper's scale",
          "undecided": "undecided on the evidence run"}


def _analogue(r: dict) -> bool:
    """Whether a claim is an analogue of ours (a quick analogue, or evidence level "analogue"), not the paper's
    experiment at its scale."""
    return r["id"].endswith(_QUICK) or r.get("evidence_level") == "analogue"


def _strongest(rs: list[dict]) -> list[dict]:
    return sorted(rs, key=lambda r: level_rank(r.get("evidence_level") or ""))


def _levels_text(rs: list[dict]) -> str:
    """'proved (2), fitted (1)': the evidence levels of ``rs``, strongest first, with counts."""
    counts = Counter(r.get("evidence_level") or "none" for r in rs)
    return ", ".join(f"{lv} ({n})" for lv, n in sorted(counts.items(), key=lambda kv: level_rank(kv[0])))


def _node_summary(name: str, members: list[dict]) -> dict:
    """The rolled-up verdict of a node from its member claims, with what it weighs.

    ``broken``: a result-breaking finding is refuted (proof, exhaustive check, certificate or witness);
    ``contradicted``: result-breaking findings exist but all are empirical (contradicted by a fit or an
    experiment); ``undecided``: nothing holds, or no result claim holds; ``stands-on-analogues``: every result
    claim that holds is an analogue of ours (:func:`_analogue`); then gaps, imprecisions, ``stands``. ``weight`` names the claims
    the status rests on (the breaking findings, else the holding results) and the strongest evidence among them."""
    ran = [r for r in members if r.get("ran")]
    findings = {s: [r["id"] for r in members if _finding(r) and r.get("severity") == s] for s in SEVERITIES}
    results = [r for r in members if (r.get("role") or "result") == "result"]  # ran or not: a conclusion not run is
    # not decided by its proof steps
    holding = [r for r in ran if _holds(r)]
    holding_results = [r for r in results if _holds(r)]
    breaks = _strongest([r for r in members if _finding(r) and r.get("severity") == "breaks-result"])
    if breaks and any(r["status"] == "refuted" for r in breaks):
        status = "broken"
    elif breaks:
        status = "contradicted"
    elif not holding or (results and not holding_results):
        status = "undecided"
    elif results and all(_analogue(r) for r in holding_results):
        status = "stands-on-analogues"
    elif findings["proof-gap"]:
        status = "stands-with-gaps"
    elif findings["imprecision"]:
        status = "stands-with-imprecisions"
    else:
        status = "stands"
    deciding = breaks or _strongest(holding_results or holding)
    weight = {"level": (deciding[0].get("evidence_level") or "none") if deciding else "none",
              "claims": [r["id"] for r in deciding],
              "analogues_only": bool(deciding) and all(_analogue(r) for r in deciding)}
    parts = [f"{name}: {_WORDS[status]}"]
    if breaks:
        parts.append(f"{'broken' if status == 'broken' else 'contradicted'} by {len(breaks)} "
                     f"finding{'s' if len(breaks) > 1 else ''} resting on "
                     f"{_levels_text(breaks)}; strongest: {breaks[0]['id']}")
    for sev, label in (("proof-gap", "proof gap"), ("imprecision", "imprecision")):
        if findings[sev]:
            parts.append(f"{len(findings[sev])} {label}{'s' if len(findings[sev]) > 1 else ''}")
    if holding:
        parts.append("holding claims rest on " + _levels_text(holding)
                     + (f", {sum(r['id'].endswith(_QUICK) for r in holding)} of them quick analogues"
                        if any(r["id"].endswith(_QUICK) for r in holding) else ""))
    not_run = len(members) - len(ran)
    if not_run:
        parts.append(f"{not_run} of {len(members)} claims not run")
    return {
        "status": status,
        "claims": [r["id"] for r in members],
        "ran": len(ran),
        "statuses": dict(sorted(Counter(r["status"] if r.get("ran") else "inconclusive (not run)"
                                        for r in members).items())),
        "findings": findings,
        "evidence_levels": dict(sorted(Counter(r.get("evidence_level") or "none" for r in ran).items(),
                                       key=lambda kv: level_rank(kv[0]))),
        "weight": weight,
        "summary": "; ".join(parts[:1]) + (" (" + "; ".join(parts[1:]) + ")" if parts[1:] else ""),
    }


def _contained(node: str, nodes) -> list[str]:
    """The label nodes a top-level section or appendix node ("Sec. 8", "App. B") holds: the labels of its part
    (Theorem 8.1, Sec. 8.2, Eq. (12) for Sec. 8); [] for any other node."""
    from .labels import label_part

    if not (node.startswith(("Sec. ", "App. ")) and "." not in node.split(" ", 1)[1]):
        return []
    try:
        part = label_part(node)
    except ValueError:
        return []
    out = []
    for n in nodes:
        if n == node:
            continue
        try:
            if label_part(n) == part:
                out.append(n)
        except ValueError:
            continue
    return out


def _with_context(summary: dict, name: str, inner: dict, what: str, words: str) -> dict:
    """``summary`` with the ``inner`` nodes (name -> summary) that are broken or contradicted named in it (``what``
    introduces them); a summary that stands or is undecided becomes ``partly-broken``, said in ``words``."""
    known = set(summary["weight"]["claims"]) if summary["status"] in ("broken", "contradicted") else set()
    bad = [(n, s) for n, s in inner.items() if s["status"] in ("broken", "contradicted")
           and not set(s["weight"]["claims"]) <= known]
    if not bad:
        return summary
    bad.sort(key=lambda ns: (ns[1]["status"] != "broken", level_rank(ns[1]["weight"]["level"])))
    listed = "; ".join(f"{n} {s['status']} ({s['weight']['level']}: {', '.join(s['weight']['claims'][:2])})"
                       for n, s in bad[:4]) + (f"; {len(bad) - 4} more" if len(bad) > 4 else "")
    if summary["status"] in ("broken", "contradicted"):
        return {**summary, "summary": f"{summary['summary']}; {what}: {listed}"}
    return {**summary, "status": "partly-broken", "own_status": summary["status"],
            "summary": f"{name}: {words} ({what}: {listed}; its own: {summary['summary'].split(': ', 1)[-1]})"}


def rollup(records: list[dict]) -> dict:
    """Verdicts rolled up per label node and per contribution: ``{"labels": {node: summary}, "contributions":
    {id: {title, where, labels, core, ...summary}}}``, each summary with a status of :data:`ROLLUP_STATUSES`, the
    claims, their statuses, findings by severity, evidence levels and the weight of the status (:func:`_node_summary`).
    A top-level section ("Sec. 8") whose own claims stand is ``partly-broken`` when a label it holds is broken
    or contradicted; a contribution takes the status of its core results (:attr:`Contribution.core`) and is
    ``partly-broken`` when only another of its labels is broken or contradicted. ``records`` must be
    :func:`annotate`'d."""
    ids = {x["id"] for x in records}
    by_node: dict[str, list[dict]] = {}
    for r in records:
        for node in r.get("nodes") or claim_nodes(r):
            if node in ids:
                continue  # a claim id named in supports: an edge between claims, not a label node
            by_node.setdefault(node, []).append(r)
    own = {node: _node_summary(node, members) for node, members in by_node.items()}
    labels = {node: _with_context(s, node, {n: own[n] for n in _contained(node, by_node)}, "it holds",
                                  "its own claims stand, a result it holds fails") for node, s in own.items()}
    contributions = {}
    for c in CONTRIBUTIONS:
        nodes = [n for n in by_node if c.id in contributions_of(n)]
        members = list({r["id"]: r for n in nodes for r in by_node[n]}.values())
        if not members:
            continue
        short = c.title.split(":")[0]
        core_nodes = [n for n in nodes if any(fnmatch.fnmatchcase(n, pat) for pat in c.core)] if c.core else nodes
        whole = _node_summary(short, members)
        if c.core and core_nodes:
            core_members = list({r["id"]: r for n in core_nodes for r in by_node[n]}.values())
            core = _node_summary(short, core_members)
            ctx = _with_context(core, short, {n: own[n] for n in nodes if n not in core_nodes},
                                "elsewhere in it", "its core results stand, another of its results fails")
            if ctx["status"] == core["status"] and core["status"] not in ("broken", "contradicted", "undecided"):
                ctx = whole  # the core stands and nothing else is broken: the whole contribution's verdict
            summary = {**whole, "status": ctx["status"], "summary": ctx["summary"], "weight": ctx["weight"]}
        else:
            core_nodes, core = nodes, whole
            summary = dict(whole)
        summary["core"] = {"labels": core_nodes, "status": core["status"], "summary": core["summary"],
                           "weight": core["weight"]}
        breaking = _strongest([r for r in members if _finding(r) and r.get("severity") == "breaks-result"])
        contributions[c.id] = {"title": c.title, "where": c.where, "paper": c.paper, "labels": nodes,
                               **summary, "breaking": [r["id"] for r in breaking]}
    return {"labels": labels, "contributions": contributions}
