"""The paper as a graph: its contributions, its numbered results, and the claims that support them.

Nodes are the paper's contributions (the abstract's and Sec. 1's headline statements, :data:`CONTRIBUTIONS`), its
labels ("Theorem 8.1", "Eq. (10)", "Figure 3"; a label of arXiv 2502.05076 is prefixed with its id), and the claims.
A claim supports the label of its ``ref`` and whatever its ``supports`` names; a label belongs to the contributions
whose patterns match it. On the records of an audit (``report.result_record``):

- :func:`severity_of` gives the severity of a finding from its declared slip (class and target) through the one
  table :data:`~rgr_verify.claims.standards.SEVERITY_TABLE`; a finding without one (which the ledger test refuses)
  falls back on its role;
- :func:`landings` says where a finding lands and with what weight, :func:`bearing` which contributions it counts
  against (the one rollup rule, :data:`ROLLUP_RULE`);
- :func:`rollup` rolls the verdicts up per label and per contribution (status, findings by severity, evidence levels,
  and a one-sentence verdict in plain words, :func:`contribution_sentence`);
- :func:`ranked_findings` orders the findings by severity, then refuted before contradicted, then scope, then
  evidence level, then paper order; :func:`scope_of` says a finding's scope in words.

Each ``supports`` edge cites the place of the paper that makes it (:data:`~rgr_verify.claims.labels.SUPPORTS_AT`,
added to each record by :func:`annotate`): a line of the v3 text ("L528", "L995-L999") or, for the other texts, their
label ("OpenReview abstract").
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from dataclasses import dataclass

from .base import FACTS_PAPER, RGR_PAPER, SEVERITIES, label_of_ref, paper_parts
from .labels import place_within, supports_at
from .levels import level_rank
from .standards.severity import SLIP_CLASSES, SLIP_TARGETS, severity_for

__all__ = ["Contribution", "cause_of", "CONTRIBUTIONS", "FINDING_STATUSES", "HOLDING_STATUSES", "ROLLUP_STATUSES",
           "node_of", "claim_nodes", "severity_of", "annotate", "rollup", "ranked_findings", "scope_of",
           "contributions_of", "ROLLUP_RULE", "SUMMARY_LABELS", "landings", "bearing", "SLIP_PHRASES",
           "contribution_sentence"]

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
    core). ``at``: the places of the paper that state it (v3 lines, :func:`~rgr_verify.claims.labels.check_place`)."""

    id: str
    title: str
    where: str
    labels: tuple
    paper: str = RGR_PAPER
    core: tuple = ()
    at: tuple = ()


def _eqs(first: int, last: int) -> tuple:
    return tuple(f"Eq. ({n})" for n in range(first, last + 1))


CONTRIBUTIONS = (
    Contribution("capacity-law", "The headline capacity law: the total key dimension needed grows like "
                 "m' log m' / d_model (m log m / d_model for permutation graphs), matched by a lower bound and "
                 "constructions and followed by trained thresholds",
                 "Abstract; OpenReview abstract; Sec. 1",
                 ("Abstract", "OpenReview abstract", "Sec. 1", "Theorem 4.1", "Theorem 9.2", "Figure 3"),
                 core=("Theorem 4.1", "Theorem 9.2"), at=("L9", "L48", "OpenReview abstract")),
    Contribution("rgr-model", "The RGR task and the max-over-heads / softmax key-query model with D_K = h d_k as the "
                 "budget", "Sec. 1 (formal model and budget); Sec. 3",
                 ("Sec. 3", "Sec. 4", "App. C"), at=("L33",)),
    Contribution("lower-bound", "An information-theoretic lower bound D_K = Omega((m'/d_model) log(m^2/m')) for "
                 "max-over-heads and softmax alike", "Sec. 1 (lower bound); Sec. 9; Sec. 10",
                 ("Sec. 9", "Definition 9.1", "Theorem 9.2", "Lemma 9.3", *_eqs(23, 29), "Sec. 10"),
                 core=("Theorem 9.2",), at=("L35",)),
    Contribution("constructions", "Explicit constructions reaching D_K = O((m'/d_model + Delta) log m') for "
                 "max-over-heads (asymptotically optimal for sparse graphs)", "Sec. 1 (constructions); Sec. 4; App. B",
                 ("Construction *", "Algorithm 1", "Algorithm 3", "Algorithm 4", "Algorithm 5", "Theorem 4.1",
                  "App. B", "App. B.*", "Theorem B.*", "Lemma B.*", "Corollary B.*", "Definition B.*", "Eq. (33)"),
                 core=("Theorem 4.1", "Theorem B.9"), at=("L37",)),
    Contribution("multi-head-rationale", "The multi-head advantage even on permutation graphs: with d_model << m, "
                 "more, smaller heads reduce the interference each head carries", "Sec. 1 (multi-head rationale); Sec. 5",
                 ("Sec. 5", "Eq. (1)", "Eq. (2)", "Sec. 8.2", "Proposition 8.4", *_eqs(19, 22), "Figure 2",
                  "Table 1"),
                 core=("Sec. 5", "Eq. (1)", "Eq. (2)"), at=("L39",)),
    Contribution("softmax-analysis", "The scaled-softmax analysis: a construction for permutation graphs and its "
                 "budget", "Sec. 1 (constructions, softmax); Sec. 8",
                 ("Sec. 8", "Theorem 8.1", "Lemma 8.2", "Lemma 8.3", "Proposition 8.4", "Algorithm 2", *_eqs(5, 22)),
                 core=("Theorem 8.1",), at=("L37",)),
    Contribution("experiments", "Training experiments: sharp transitions in D_K, the D_K* scaling, the optimal head "
                 "count, and robustness to softmax, a value channel and a frozen-embedding Transformer block",
                 "Sec. 1 (empirical validation); Secs. 6-7; App. A",
                 ("Sec. 6", "Sec. 6.*", "Sec. 7", "Sec. 7.*", "Figure *", "Table *", "App. A", "App. A.*",
                  *_eqs(30, 32)), at=("L41-L46",)),
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


# --- the rollup rule, declared once ------------------------------------------------------------------------------

ROLLUP_RULE = """\
Where a finding counts, and how much:

1. A finding weighs on the label of its ``ref`` with its severity (the slip table's): that statement is what it
   decides.
2. Along a ``supports`` edge it weighs by its slip's target: a false proof step is a gap (or an imprecision) of each
   result whose proof it belongs to, at its severity; a false result or experiment is at most a gap of the results
   it serves (their own claims decide whether their conclusions fail); a remark (a summary, an introduction
   sentence) or a comparison (matching bounds, tightness, theory against experiment) weighs on a result it restates
   or compares only where the paper makes it inside that result's own text (the edge's place,
   :data:`~rgr_verify.claims.labels.SUPPORTS_AT`, lies in the label's lines), and then at most as a gap; elsewhere
   the result is not shown wrong by it (Theorem 9.2 stays true when Sec. 9's text before it compares bounds the
   constructions do not meet).
3. A contribution counts the findings on its labels, and a remark or a comparison, with its own severity, also
   through the results it restates or compares: the statement it makes about them is part of that contribution
   ("matched by a lower bound"). A claim whose ``ref`` is a summary place (the abstract, the OpenReview abstract,
   Sec. 1) and that restates results (its ``supports``) counts with the contributions of those results, not with
   every contribution Sec. 1 lists: the summary sentence states that contribution.
4. A contribution is broken (by a refutation) or contradicted (by a fit or an experiment) only when a finding of
   severity breaks-result weighs at that severity on one of its core results (``Contribution.core``; every label
   when it has none). A breaks-result finding anywhere else in it makes it partly-broken at worst. Otherwise it
   stands with gaps (a proof-gap counts: a false step, a hypothesis that does not cover the cases, a tightness or
   "matching bounds" argument that does not cover the cases compared), with imprecisions, or stands; undecided
   when no result claim on its core holds, on analogues when only analogues of ours hold.
"""

SUMMARY_LABELS = ("Abstract", "OpenReview abstract", "Sec. 1")
_SEV_RANK = {s: i for i, s in enumerate(SEVERITIES)}


def _worst(a: str | None, b: str | None) -> str | None:
    """The heavier of two severities (None: no finding)."""
    if a is None or b is None:
        return a if b is None else b
    return a if _SEV_RANK[a] <= _SEV_RANK[b] else b


def _target(record: dict) -> str:
    """What a record's slip falls on (:data:`~rgr_verify.claims.standards.SLIP_TARGETS`); a record without a slip:
    "proof-step" for a proof step, else "result"."""
    slip = record.get("slip")
    if slip:
        return slip["target"]
    return "proof-step" if record.get("role") == "proof-step" else "result"


def _label_supports(record: dict, ids=()) -> list[str]:
    """The label nodes among a record's ``supports`` (claim ids and its own ref label left out)."""
    nodes = claim_nodes(record)
    return [n for n in nodes[1:] if n not in ids and n != nodes[0]]


def landings(record: dict, ids=()) -> dict:
    """{label node: the severity the record weighs with there} by rules 1-2 of :data:`ROLLUP_RULE`; None for a
    label where it is a member without weighing (a claim that is no finding, a remark's restated result). ``ids``:
    the claim ids of the audit (a claim id in ``supports`` is an edge between claims, not a label)."""
    sev = record.get("severity") if _finding(record) else None
    target = _target(record)
    at = record["supports_at"] if "supports_at" in record else supports_at(record)
    out = {claim_nodes(record)[0]: sev}
    for node in _label_supports(record, ids):
        if sev is None or (target in ("remark", "comparison") and not (node in at and place_within(at[node], node))):
            weight = None
        elif target == "proof-step":
            weight = sev
        else:
            weight = "imprecision" if sev == "imprecision" else "proof-gap"  # at most a gap
        out[node] = _worst(out.get(node), weight) if node in out else weight
    return out


def bearing(record: dict, ids=()) -> dict:
    """{contribution id: {"severity", "core", "nodes"}}: the contributions a record counts with (rule 3 of
    :data:`ROLLUP_RULE`), the severity it counts with there (its heaviest over that contribution's labels; a
    remark's or a comparison's results carry its own severity to the contribution, not to the result), whether that
    severity weighs on a core result (rule 4), and the labels through which it counts ({label: weight})."""
    sev = record.get("severity") if _finding(record) else None
    land = landings(record, ids)
    ref = claim_nodes(record)[0]
    sup = _label_supports(record, ids)
    nodes = dict(land)
    if _target(record) in ("remark", "comparison"):
        nodes.update({n: sev for n in sup})  # its own weight, for the contribution whose statement it makes
        # (rule 3), whether or not it lands on the label (rule 2)
    if ref in SUMMARY_LABELS and sup:
        nodes.pop(ref, None)  # rule 3: a summary sentence counts with the contributions of what it restates
    out = {}
    for c in CONTRIBUTIONS:
        hit = {n: w for n, w in nodes.items() if any(fnmatch.fnmatchcase(n, pat) for pat in c.labels)}
        if not hit:
            continue
        core_pats = c.core or c.labels
        on_core = [land[n] for n in hit if n in land and any(fnmatch.fnmatchcase(n, p) for p in core_pats)]
        weight = None
        for w in hit.values():
            weight = _worst(weight, w)
        core_weight = None
        for w in on_core:
            core_weight = _worst(core_weight, w)
        out[c.id] = {"severity": weight, "core": core_weight, "on_core": bool(on_core), "nodes": hit}
    return out


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
    """The records with ``severity``, ``severity_reason``, ``severity_links``, ``nodes`` and ``supports_at`` (the
    place of the paper that makes each supports edge, :func:`supports_at`) filled in (new dicts)."""
    out = []
    for r in records:
        sev = severity_of(r, records)
        out.append({**r, "nodes": list(claim_nodes(r)), "supports_at": supports_at(r),
                    "severity": sev["severity"] if sev else None,
                    "severity_reason": sev["reason"] if sev else None,
                    "severity_computed": sev["computed"] if sev else None,
                    "severity_links": sev["links"] if sev else []})
    return out


def ranked_findings(records: list[dict]) -> list[dict]:
    """The findings (refuted or contradicted records that ran), ranked: severity (breaks-result first), then how
    decisive the evidence is (refuted by a proof, an exhaustive check, a certificate or a witness before contradicted
    by a fit, a sample or an experiment: the latter is the more debatable), then scope (a finding under every reading
    before one scoped to some readings of an ambiguity), then evidence level (strongest first), then paper order.
    ``records`` must be :func:`annotate`'d."""
    order = {r["id"]: i for i, r in enumerate(records)}
    found = [r for r in records if _finding(r)]
    return sorted(found, key=lambda r: (SEVERITIES.index(r["severity"]) if r.get("severity") in SEVERITIES
                                        else len(SEVERITIES), r["status"] != "refuted", _scoped(r),
                                        level_rank(r.get("evidence_level") or ""), order[r["id"]]))


def scope_of(record: dict) -> str:
    """A finding's scope in words: "under a named reading" (``params["refuted_under"]`` names it), "under every
    reading" (its reading record says none escapes it), or "as stated (no other reading recorded)" (the claim
    records no reading of the sentence: it is read one way). Ranking puts the last two together
    (:func:`ranked_findings`); the words keep them apart (second review of 2026-11-28: a finding with no reading
    record was shown as holding under every reading)."""
    if _scoped(record):
        return "under a named reading"
    under = (record.get("params") or {}).get("refuted_under")
    return "under every reading" if under else "as stated (no other reading recorded)"


def _scoped(record: dict) -> bool:
    """Whether a finding stands only under some readings of an ambiguity (``params["refuted_under"]`` names them)."""
    under = (record.get("params") or {}).get("refuted_under")
    return isinstance(under, str) and under.startswith("reading")


_QUICK = "-quick"
_WORDS = {"broken": "conclusion fails", "contradicted": "contradicted by experiment or fit, not refuted",
          "partly-broken": "stands at its core, another of its results fails",
          "stands-with-gaps": "conclusion stands, an argument for it or around it has gaps",
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


def _node_summary(name: str, members: list[dict], weights: dict | None = None, own: set | None = None,
                  need_result: bool = False) -> dict:
    """The rolled-up verdict of a node from its member claims, with what it weighs.

    ``weights``: {claim id: the severity it weighs with here} (:func:`landings`, :func:`bearing`; default: each
    finding's own severity); ``own``: the ids of the members whose own statement this node is (their ref), whose
    result claims decide whether it holds (default, or when none of them is a result: every member);
    ``need_result``: undecided unless a result claim holds (a contribution's core: details and proof steps that hold,
    a formula comparison among them, do not make it stand).

    ``broken``: a result-breaking finding is refuted (proof, exhaustive check, certificate or witness);
    ``contradicted``: result-breaking findings exist but all are empirical (contradicted by a fit or an
    experiment); ``undecided``: nothing holds, or no result claim holds; ``stands-on-analogues``: every result
    claim that holds is an analogue of ours (:func:`_analogue`); then gaps, imprecisions, ``stands``. ``weight`` names
    the claims the status rests on (the breaking findings, else the holding results) and the strongest evidence among
    them."""
    def weight_of(r):
        if not _finding(r):
            return None
        return weights.get(r["id"]) if weights is not None else r.get("severity")

    ran = [r for r in members if r.get("ran")]
    findings = {s: [r["id"] for r in members if weight_of(r) == s] for s in SEVERITIES}
    results = [r for r in members if (r.get("role") or "result") == "result"]  # ran or not: a conclusion not run is
    # not decided by its proof steps
    if own is not None and any(r["id"] in own for r in results):
        results = [r for r in results if r["id"] in own]  # a result served elsewhere is not this node's conclusion
    holding = [r for r in ran if _holds(r)]
    holding_results = [r for r in results if _holds(r)]
    breaks = _strongest([r for r in members if weight_of(r) == "breaks-result"])
    if breaks and any(r["status"] == "refuted" for r in breaks):
        status = "broken"
    elif breaks:
        status = "contradicted"
    elif not holding or ((results or need_result) and not holding_results):
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
    """Verdicts rolled up per label node and per contribution by :data:`ROLLUP_RULE`: ``{"labels": {node: summary},
    "contributions": {id: {title, where, at, labels, core, sentence, ...summary}}}``, each summary with a status of
    :data:`ROLLUP_STATUSES`, the claims, their statuses, findings by the severity they weigh with there, evidence
    levels and the weight of the status (:func:`_node_summary`). A label counts the findings that land on it
    (:func:`landings`); a top-level section ("Sec. 8") whose own claims stand is ``partly-broken`` when a label it
    holds is broken or contradicted. A contribution counts the findings that bear on it (:func:`bearing`): broken or
    contradicted only through a breaks-result finding on a core result (:attr:`Contribution.core`), ``partly-broken``
    when one lands elsewhere in it; ``sentence`` says its verdict in plain words (:func:`contribution_sentence`).
    ``records`` must be :func:`annotate`'d."""
    ids = {x["id"] for x in records}
    by_node: dict[str, list[dict]] = {}
    weights: dict[str, dict] = {}
    for r in records:
        for node, w in landings(r, ids).items():
            by_node.setdefault(node, []).append(r)
            weights.setdefault(node, {})[r["id"]] = w
    own = {node: _node_summary(node, members, weights[node],
                               {r["id"] for r in members if claim_nodes(r)[0] == node})
           for node, members in by_node.items()}
    labels = {node: _with_context(s, node, {n: own[n] for n in _contained(node, by_node)}, "it holds",
                                  "its own claims stand, a result it holds fails") for node, s in own.items()}
    bears = {r["id"]: bearing(r, ids) for r in records}
    contributions = {}
    for c in CONTRIBUTIONS:
        counted = {r["id"]: (r, bears[r["id"]][c.id]) for r in records if c.id in bears[r["id"]]}
        if not counted:
            continue
        members = [r for r, _ in counted.values()]
        nodes = list(dict.fromkeys(n for n in by_node for _, b in counted.values() if n in b["nodes"]))
        nodes += [n for _, b in counted.values() for n in b["nodes"] if n not in nodes]
        short = c.title.split(":")[0]
        whole = _node_summary(short, members, {i: b["severity"] for i, (_, b) in counted.items()})
        pats = c.core or c.labels
        core_nodes = sorted((n for n in nodes if any(fnmatch.fnmatchcase(n, p) for p in pats)),
                            key=lambda n: next(k for k, p in enumerate(pats) if fnmatch.fnmatchcase(n, p)))
        core_members = [r for r, b in counted.values() if b["on_core"]]
        core = _node_summary(short, core_members, {i: b["core"] for i, (_, b) in counted.items()},
                             {r["id"] for r in core_members if claim_nodes(r)[0] in core_nodes},
                             need_result=True)  # no result claim on the core holds: undecided
        breaking = _strongest([r for r, b in counted.values() if b["severity"] == "breaks-result"])
        elsewhere = [r for r in breaking if counted[r["id"]][1]["core"] != "breaks-result"]
        listed = _breaks_text(elsewhere, {i: b["nodes"] for i, (_, b) in counted.items()})
        if core["status"] in ("broken", "contradicted"):
            summary = {**whole, "status": core["status"], "weight": core["weight"],
                       "summary": core["summary"] + (f"; elsewhere in it: {listed}" if elsewhere else "")}
        elif elsewhere:
            summary = {**whole, "status": "partly-broken", "own_status": core["status"],
                       "weight": {"level": elsewhere[0].get("evidence_level") or "none",
                                  "claims": [r["id"] for r in elsewhere],
                                  "analogues_only": all(_analogue(r) for r in elsewhere)},
                       "summary": f"{short}: its core results stand, another of its results fails (elsewhere in it: "
                                  f"{listed}; its own: {core['summary'].split(': ', 1)[-1]})"}
        elif core["status"] == "undecided":
            summary = {**whole, "status": "undecided", "summary": core["summary"], "weight": core["weight"]}
        else:
            summary = dict(whole)
        summary["core"] = {"labels": core_nodes, "status": core["status"], "summary": core["summary"],
                           "weight": core["weight"]}
        entry = {"title": c.title, "where": c.where, "at": list(c.at), "paper": c.paper, "labels": nodes, **summary,
                 "breaking": [r["id"] for r in breaking]}
        entry["sentence"] = contribution_sentence(entry, counted, labels, bool(c.core))
        contributions[c.id] = entry
    return {"labels": labels, "contributions": contributions}


def _breaks_text(breaking: list[dict], nodes_of: dict) -> str:
    """'Sec. 10 broken (witness: sec10-a, sec10-b); Corollary B.6 contradicted (fitted: corb6-a)': the labels on
    which ``breaking`` (strongest first) weigh with breaks-result, each with its status, strongest level and claims."""
    groups: dict[str, list[dict]] = {}
    for r in breaking:
        for node, w in nodes_of[r["id"]].items():
            if w == "breaks-result":
                groups.setdefault(node, []).append(r)
    parts = [f"{n} {'broken' if any(r['status'] == 'refuted' for r in rs) else 'contradicted'} "
             f"({rs[0].get('evidence_level') or 'none'}: {', '.join(r['id'] for r in rs[:2])})"
             for n, rs in groups.items()]
    return "; ".join(parts[:4]) + (f"; {len(parts) - 4} more" if len(parts) > 4 else "")


# --- the one-sentence verdict of a contribution -------------------------------------------------------------------

# What each kind of slip means, in a few plain words (the slip classes of the severity table).
SLIP_PHRASES = {
    "false-for-every-constant": "fails as stated for every admissible constant",
    "contradicted-by-experiment": "is contradicted by the experiment",
    "constant-bookkeeping": "a printed constant is off (the statement holds with other constants)",
    "condition-too-weak": "a condition or regime is stated too weakly",
    "quantity-swapped-in-corner": "one quantity is printed for another where they differ only in a corner",
    "wording-or-count": "a count, a wording or a cross-reference is wrong",
    "proof-step-false": "a proof step is false as written",
    "hypothesis-does-not-cover": "a hypothesis does not cover the cases the text applies the result to",
    "tightness-gap": "the claim that the bounds match rests on a hypothesis the compared cases do not meet",
    "construction-fails-repairable": "the printed construction fails in cases it covers, repairable at a constant "
                                     "factor",
}
_NO_SLIP = {"breaks-result": "fails as stated", "proof-gap": "a step of an argument fails",
            "imprecision": "something printed is off"}
_LEADS = {"broken": "Broken", "contradicted": "Contradicted", "partly-broken": "Partly broken",
          "stands-with-gaps": "Stands with gaps", "stands-with-imprecisions": "Stands with imprecisions",
          "stands": "Stands", "stands-on-analogues": "Stands only on analogues of ours", "undecided": "Undecided"}


def _and(items: list[str]) -> str:
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _phrase(r: dict, severity: str) -> str:
    slip = r.get("slip")
    if slip and slip["class"] == "false-for-every-constant" and slip.get("target") == "remark":
        return "is false as stated"  # a remark states no constant (Sec. 10; fourth review of 2026-11-28)
    return SLIP_PHRASES.get(slip["class"], _NO_SLIP[severity]) if slip else _NO_SLIP[severity]


def _by_phrase(rs: list[dict], severity: str, limit: int = 2, where: dict | None = None) -> tuple[list[str], int]:
    """'<phrase> (on <labels>: <ids>)' for the first ``limit`` kinds of slip among ``rs`` (ranked), and how many
    findings the rest holds. ``where``: {claim id: the labels it weighs on here}."""
    groups: dict[str, list[str]] = {}
    for r in rs:
        groups.setdefault(_phrase(r, severity), []).append(r["id"])
    parts = []
    for ph, i in list(groups.items())[:limit]:
        on = list(dict.fromkeys(n for x in i for n in (where or {}).get(x, ())))
        parts.append(f"{ph} ({'on ' + ', '.join(on[:3]) + (' ...' if len(on) > 3 else '') + ': ' if on else ''}"
                     f"{', '.join(i[:2])}{f' and {len(i) - 2} more' if len(i) > 2 else ''})")
    return parts, sum(len(i) for _, i in list(groups.items())[limit:])


def _readings_with(rs: list[dict], outcome_prefix: str) -> list[str]:
    """'<reading> (<id>)' for each reading of ``rs`` whose recorded outcome starts with ``outcome_prefix`` ("not
    tested", or "holds": a reading of the sentence under which the finding's statement stands)."""
    ids: dict[str, list[str]] = {}  # a reading several findings share is named once, with all of them
    for r in rs:
        readings = (r.get("params") or {}).get("readings")
        for name, outcome in (readings.items() if isinstance(readings, dict) else ()):
            if str(outcome).startswith(outcome_prefix):
                ids.setdefault(name, []).append(r["id"])
    return [f"{name} ({', '.join(i)})" for name, i in ids.items()]


def cause_of(record: dict, nodes) -> tuple:
    """What a finding's slip is, for counting: its slip class and target and the labels it weighs on (``nodes``).
    Several claims that record one slip (a proof step checked symbolically and numerically, a rate checked in m and
    in d_model) share a cause and count once in a contribution's sentence; a finding without a slip is its own."""
    slip = record.get("slip")
    if not slip:
        return ("claim", record["id"])
    return (slip.get("class"), slip.get("target"), tuple(sorted(nodes)))


def contribution_sentence(entry: dict, counted: dict, labels: dict, has_core: bool = True) -> str:
    """One sentence in plain words for a contribution's verdict, generated from its rollup: the status, which core
    results stand or fail, the kinds of slip behind it (:data:`SLIP_PHRASES`) with their claims, what else weighs on
    it, and, for a broken or contradicted core, the readings its breaking findings left untested (their reading
    records, :mod:`rgr_verify.claims.tools.readings`). ``entry``: the contribution's rollup; ``counted``:
    {claim id: (record, its :func:`bearing` there)}; ``labels``: the label rollups; ``has_core``: whether the
    contribution declares core results (else all its results are its core)."""
    status = entry["status"]
    core_nodes = entry["core"]["labels"]
    order = {i: k for k, i in enumerate(counted)}

    def ranked(sev, *, core=False):
        rs = [r for r, b in counted.values() if (b["core"] if core else b["severity"]) == sev and _finding(r)]
        return sorted(rs, key=lambda r: (level_rank(r.get("evidence_level") or ""), order[r["id"]]))

    standing = [n for n in core_nodes if labels.get(n, {}).get("status") not in ("broken", "contradicted",
                                                                                   "undecided")]
    gapped = [n for n in standing if labels.get(n, {}).get("status") in ("stands-with-gaps", "partly-broken")]
    clean = [n for n in standing if n not in gapped]
    open_ = [n for n in core_nodes if labels.get(n, {}).get("status") == "undecided"]
    if not has_core:
        results = [r for r, _ in counted.values() if (r.get("role") or "result") == "result"]
        held = sum(1 for r in results if r.get("status") in HOLDING_STATUSES)
        failed = sum(1 for r in results if _finding(r))
        whose = (f"{held} of its {len(results)} result claims hold"
                 + (f", {failed} fail" if failed else "")
                 + (f", {len(results) - held - failed} are undecided or not run" if len(results) - held - failed
                    else ""))
    elif standing:
        whose = (f"{_and(clean[:3])} {'stands' if len(clean) == 1 else 'stand'}" if clean else "") + (
            f"{', ' if clean else ''}{_and(gapped[:3])} {'stands with a gap' if len(gapped) == 1 else 'stand with gaps'}"
            if gapped else "") + (f" ({_and(open_[:2])} undecided)" if open_ else "")
    else:
        whose = "its core results are undecided"

    def where(sev):
        return {i: [n for n, w in b["nodes"].items() if w == sev] for i, (_, b) in counted.items()}

    deciding: list[dict] = []
    if status in ("broken", "contradicted"):
        deciding = ranked("breaks-result", core=True)
        by_node: dict[str, list[dict]] = {}
        for r in deciding:
            for n, w in counted[r["id"]][1]["nodes"].items():
                if w == "breaks-result" and n in core_nodes:
                    by_node.setdefault(n, []).append(r)
        fails = [f"{n} {_by_phrase(rs, 'breaks-result', 1)[0][0]}" for n, rs in by_node.items()]
        body = _and(fails[:2]) or "its core results fail"
        rest_sevs = ("proof-gap", "imprecision")
    elif status == "partly-broken":
        deciding = [r for r in ranked("breaks-result") if counted[r["id"]][1]["core"] != "breaks-result"]
        by_node = {}
        for r in deciding:
            for n, w in counted[r["id"]][1]["nodes"].items():
                if w == "breaks-result":
                    by_node.setdefault(n, []).append(r)
        fails = [f"{n} {_by_phrase(rs, 'breaks-result', 1)[0][0]}" for n, rs in by_node.items()]
        more = [f"{len(fails) - 2} more result{'s fail' if len(fails) > 3 else ' fails'}"] if len(fails) > 2 else []
        body = f"{whose}, but elsewhere in it {_and(fails[:2] + more)}"
        rest_sevs = ("proof-gap", "imprecision")
    elif status == "stands-with-gaps":
        deciding = ranked("proof-gap")
        parts, more = _by_phrase(deciding, "proof-gap", 3, where("proof-gap"))
        body = f"{whose}, but {_and(parts)}" + (f", and {more} more gap{'s' if more > 1 else ''}" if more else "")
        rest_sevs = ("imprecision",)
    elif status == "stands-with-imprecisions":
        deciding = ranked("imprecision")
        parts, more = _by_phrase(deciding, "imprecision", 2, where("imprecision"))
        body = f"{whose}; where it is off: {_and(parts)}" + (f", and {more} more" if more else "")
        rest_sevs = ()
    elif status == "stands":
        body, rest_sevs = f"{whose}, and no finding bears on it", ()
    elif status == "stands-on-analogues":
        body, rest_sevs = "what holds holds only in quick analogues of ours, not at the paper's scale", ("proof-gap",
                                                                                                        "imprecision")
    else:
        not_run = len(entry["claims"]) - entry["ran"]
        body = ("no result claim on its core holds on the evidence run"
                + (f" ({not_run} of {len(entry['claims'])} claims not run)" if not_run else ""))
        rest_sevs = ("proof-gap", "imprecision")
    shown = {r["id"] for r in deciding}
    rest = [(sev, [r for r in ranked(sev) if r["id"] not in shown]) for sev in rest_sevs]
    words = {"proof-gap": ("gap", "gaps"), "imprecision": ("imprecision", "imprecisions")}

    def counted_once(sev, rs):  # one slip recorded by several claims counts once (:func:`cause_of`)
        causes = len({cause_of(r, counted[r["id"]][1]["nodes"]) for r in rs})
        return f"{causes} {words[sev][causes > 1]}" + (f" ({len(rs)} findings)" if causes != len(rs) else "")

    rest_text = _and([counted_once(sev, rs) for sev, rs in rest if rs]) if any(rs for _, rs in rest) else ""
    # the readings the deciding findings left untested: what could save a broken core, or the result that fails
    # elsewhere in a partly-broken one (a finding refuted under one reading of the sentence says so here)
    breaking = status in ("broken", "contradicted", "partly-broken")
    untested = _readings_with(deciding, "not tested") if breaking else []
    # a breaking finding refuted under one reading of its sentence says under which other reading it stands
    held = _readings_with(deciding, "holds") if breaking else []
    sentence = f"{_LEADS[status]}: {body}"
    if held:
        sentence += f" (under the finding's reading; it stands if read as {'; '.join(held[:2])})"
    elif breaking and any(_scoped(r) for r in deciding):  # the phrase is the finding's, under its named reading
        sentence += " (under the reading its finding names)"
    if rest_text:
        sentence += f"; also {rest_text}"
    if untested:
        # "not tested" records both a reading left untested and one tested without a decision (an interval that
        # straddles its band): the sentence says "not decided under", true of both (fourth review of 2026-11-28)
        sentence += f"; not decided under: {'; '.join(untested[:2])}"
    return sentence + "."
