"""The paper's label -> label "uses" edges (read from its proofs and statements), their check against the claims'
``supports`` edges, and the propagation of a failing label to the labels that use it.

A statement of arXiv 2509.22840 (theorem, lemma, corollary, proposition, definition, remark, example, construction,
algorithm) *uses* another statement or an equation when its line range (:func:`rgr_verify.audit.papertext.find_labels`:
the statement and its proof) mentions it (:func:`rgr_verify.audit.papertext.label_references`): "by Lemma 8.2", "from
Theorem B.9", "Eq. (22)", an equation displayed in the proof. Sections, appendices, figures and tables are never
used (a pointer "see App. B" is not a step of an argument). The edges of v3 are committed as label names and line
numbers only (``data/uses-2509.22840-v3.json``, no words of the paper) and re-derived from the text when it is
present (properties/test_blueprint_uses.py).

Propagation, as Lean blueprints show "ancestors done": a label *fails through* a used label (directly or along a
chain of uses) whose own rolled-up status is a failure (:data:`FAILING`), and *has a gap through* one whose status is
``stands-with-gaps``.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["SOURCE_KINDS", "TARGET_KINDS", "FAILING", "GAPS", "uses_edges", "V3_USES", "V3_USES_PATH", "propagate",
           "supports_disagreements", "write_uses_file"]

V3_USES_PATH = Path(__file__).resolve().parents[2] / "data" / "uses-2509.22840-v3.json"

SOURCE_KINDS = ("Theorem", "Lemma", "Corollary", "Proposition", "Definition", "Remark", "Example", "Construction",
                "Algorithm")
TARGET_KINDS = SOURCE_KINDS + ("Eq.",)
FAILING = ("broken", "contradicted", "partly-broken")
GAPS = ("stands-with-gaps",)


def _kind(label: str) -> str:
    return label.split(" ", 1)[0]


def uses_edges(text: str) -> dict[str, dict[str, int]]:
    """``{A: {B: line}}``: statement A of ``text`` uses label B, first mentioned at 1-based ``line`` of A's range
    (sources and targets as in the module docstring; no self edges; only labels the text defines). Sources in the
    order of the text, targets by line. ValueError for a non-str."""
    from ..papertext import find_labels, label_references

    ranges = find_labels(text)
    refs = label_references(text)
    out: dict[str, dict[str, int]] = {}
    for a, (first, last) in ranges.items():
        if _kind(a) not in SOURCE_KINDS:
            continue
        used: dict[str, int] = {}
        for line, _c0, _c1, b in refs:
            if first <= line <= last and b != a and b in ranges and _kind(b) in TARGET_KINDS:
                used.setdefault(b, line)
        if used:
            out[a] = dict(sorted(used.items(), key=lambda kv: (kv[1], kv[0])))
    return out


def write_uses_file(text: str, path=V3_USES_PATH) -> Path:
    """Write the uses edges of ``text`` (v3) as the committed data file (label names and lines only)."""
    from ...basics.files import atomic_write_text

    data = {"paper": "2509.22840", "version": "v3", "uses": uses_edges(text)}
    atomic_write_text(Path(path), json.dumps(data, indent=1) + "\n")
    return Path(path)


def _load_v3() -> dict[str, dict[str, int]]:
    data = json.loads(V3_USES_PATH.read_text(encoding="utf-8"))
    return {a: dict(bs) for a, bs in data["uses"].items()}


V3_USES: dict[str, dict[str, int]] = _load_v3()


def _check_uses(uses) -> None:
    if not isinstance(uses, dict) or not all(isinstance(a, str) and isinstance(bs, dict) for a, bs in uses.items()):
        raise ValueError(f"uses must be a dict label -> {{used label: line}}, got {uses!r}"[:300])


def _reach(uses: dict, start: str) -> list[str]:
    """Every label reachable from ``start`` along uses edges (breadth first, ``start`` excluded)."""
    seen, order, todo = {start}, [], [start]
    while todo:
        nxt = []
        for a in todo:
            for b in uses.get(a, {}):
                if b not in seen:
                    seen.add(b)
                    order.append(b)
                    nxt.append(b)
        todo = nxt
    return order


def propagate(uses: dict, statuses: dict) -> dict[str, dict[str, list]]:
    """``{label: {"fails": [...], "gaps": [...]}}`` for every label of ``statuses`` ({label: rolled-up status}) that
    uses, directly or along a chain, a label whose own status is in :data:`FAILING` ("fails") or :data:`GAPS`
    ("gaps"); those ancestors are listed nearest first. Labels with neither are left out. ValueError for a
    malformed input."""
    _check_uses(uses)
    if not isinstance(statuses, dict):
        raise ValueError(f"statuses must be a dict label -> status, got {type(statuses).__name__}")
    out = {}
    for label in statuses:
        ancestors = _reach(uses, label)
        fails = [b for b in ancestors if statuses.get(b) in FAILING]
        gaps = [b for b in ancestors if statuses.get(b) in GAPS]
        if fails or gaps:
            out[label] = {"fails": fails, "gaps": gaps}
    return out


def supports_disagreements(records, uses: dict | None = None, *, labels=None) -> list[dict]:
    """Where the claims' ``supports`` edges and the paper's uses edges disagree.

    A claim whose ref label R supports a label S says that S rests on R; the text agrees when S uses R directly or
    along a chain, or R's lines lie inside S's range (``labels``: {label: (first, last)}, default the v3 ranges).
    Only pairs of labels the uses graph can hold are compared (both of :data:`TARGET_KINDS`, S of
    :data:`SOURCE_KINDS`, both defined in the text). One dict per disagreeing pair: ``{"claim", "ref", "supports",
    "why"}`` with why ``"reversed"`` (the text has R use S) or ``"no uses path"``. ``records``: claim records
    (dicts with id, ref, paper, supports) or :class:`rgr_verify.claims.base.Claim` objects."""
    from ...claims.base import RGR_PAPER
    from ...claims.structure import node_of

    uses = V3_USES if uses is None else uses
    _check_uses(uses)
    if labels is None:
        from ..papertext import V3_LABELS as labels
    out = []
    for r in records:
        get = (lambda k, d=None: r.get(k, d)) if isinstance(r, dict) else (lambda k, d=None: getattr(r, k, d))
        paper = get("paper") or RGR_PAPER
        if paper != RGR_PAPER:
            continue
        ref = node_of(paper, get("ref"))
        for s in get("supports") or ():
            try:
                sup = node_of(paper, s)
            except ValueError:
                continue
            if sup == ref or sup not in labels or ref not in labels or _kind(sup) not in SOURCE_KINDS or \
                    _kind(ref) not in TARGET_KINDS:
                continue
            (f1, l1), (f2, l2) = labels[ref], labels[sup]
            if ref in _reach(uses, sup) or f2 <= f1 and l1 <= l2:
                continue
            why = "reversed" if sup in _reach(uses, ref) else "no uses path"
            out.append({"claim": get("id"), "ref": ref, "supports": sup, "why": why})
    return out
