"""The blueprint: the paper's contributions, numbered labels and claims laid out as one SVG graph.

Columns are the parts of the paper (abstract, sections, appendices, the second paper); a column stacks its label
nodes in paper order, each followed by one dot per claim that rests on it. Contributions form a row on top, and an
edge joins each label to the contributions whose patterns match it (:func:`rgr_verify.claims.structure.
contributions_of`). Every node carries its verdict: a label or contribution its rolled-up status
(:data:`rgr_verify.claims.structure.ROLLUP_STATUSES`, or ``no-claims`` for a numbered label that no claim checks), a
claim dot its shown status. The layout is a plain grid, so it needs no layout engine and reads the same offline.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from ..claims.base import FACTS_PAPER, RGR_PAPER
from ..claims.labels import label_part
from ..claims.structure import contributions_of

__all__ = ["Node", "Blueprint", "layout", "PART_TITLES", "part_of_label", "label_sort_key"]

PART_TITLES = {"abstract": "Abstract", **{f"sec{n}": f"Sec. {n}" for n in range(1, 11)},
               **{f"app{c}": f"App. {c.upper()}" for c in "abcd"}, "facts": "arXiv 2502.05076",
               "xpaper": "Cross-paper", "other": "Other"}
_PART_ORDER = list(PART_TITLES)

COL_W, LABEL_H, DOT, GAP, TOP = 150, 18, 9, 6, 150


@dataclass
class Node:
    kind: str  # "contribution", "label" or "claim"
    key: str  # contribution id, label, or claim id
    title: str
    status: str
    href: str
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    extra: dict = field(default_factory=dict)


@dataclass
class Blueprint:
    width: float
    height: float
    nodes: list
    edges: list  # (x1, y1, x2, y2, status of the label)
    columns: list  # (x, title)


def part_of_label(label: str) -> str:
    """The part of the paper a label node belongs to (``"other"`` when no part can be read from it)."""
    if label.startswith(FACTS_PAPER + " "):
        return "facts"
    try:
        return label_part(label, RGR_PAPER)
    except ValueError:
        return "other"


_KIND_ORDER = ("Sec.", "App.", "Abstract", "OpenReview", "Definition", "Theorem", "Lemma", "Corollary",
               "Proposition", "Example", "Remark", "Construction", "Algorithm", "Eq.", "Figure", "Table")
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4}


def label_sort_key(label: str) -> tuple:
    """Paper order within a part: sections first, then results by number, equations, figures, tables."""
    bare = label[len(FACTS_PAPER) + 1:] if label.startswith(FACTS_PAPER + " ") else label
    kind = next((i for i, k in enumerate(_KIND_ORDER) if bare.startswith(k)), len(_KIND_ORDER))
    nums = []
    for tok in re.findall(r"[A-D](?=\.)|\d+|\b(?:IV|III|II|I)\b", bare):
        nums.append(_ROMAN[tok] if tok in _ROMAN else (int(tok) if tok.isdigit() else ord(tok) - 64))
    return (kind if kind > 1 else 0, tuple(nums), bare)


def layout(labels: dict, contributions: dict, claims: list, *, extra_labels=(), claim_href, label_href,
           status_of) -> Blueprint:
    """Lay out the blueprint.

    ``labels``: rolled-up label summaries ({label: {"status", "claims"}}); ``contributions``: rolled-up
    contributions ({id: {"title", "status"}}); ``claims``: the audit's claim records; ``extra_labels``: numbered
    labels of the paper that no claim names (drawn as ``no-claims``); ``claim_href(id)``, ``label_href(label)``:
    links; ``status_of(record)``: a claim's shown status.
    """
    records = {r["id"]: r for r in claims}
    all_labels = dict(labels)
    for lab in extra_labels:
        all_labels.setdefault(lab, {"status": "no-claims", "claims": []})
    parts: dict[str, list] = {}
    for lab in all_labels:
        parts.setdefault(part_of_label(lab), []).append(lab)
    order = [p for p in _PART_ORDER if p in parts]
    nodes, edges, columns = [], [], []
    contrib_nodes = {}
    n_contrib = max(1, len(contributions))
    total_w = max(len(order) * COL_W, n_contrib * 170)
    for i, (cid, c) in enumerate(contributions.items()):
        x = 10 + i * (total_w - 20) / n_contrib
        node = Node("contribution", cid, c["title"], c["status"], label_href(f"contribution:{cid}"), x, 20,
                    (total_w - 20) / n_contrib - 10, 62, {"lines": textwrap.wrap(c["title"].split(":")[0], 28)[:3]})
        contrib_nodes[cid] = node
        nodes.append(node)
    bottom = TOP
    for col, part in enumerate(order):
        x = 10 + col * COL_W
        columns.append((x, PART_TITLES[part]))
        y = TOP + 24
        for lab in sorted(parts[part], key=label_sort_key):
            summary = all_labels[lab]
            node = Node("label", lab, lab, summary["status"], label_href(lab), x, y, COL_W - 14, LABEL_H)
            nodes.append(node)
            for cid in contributions_of(lab):
                if cid in contrib_nodes:
                    c = contrib_nodes[cid]
                    edges.append((c.x + c.w / 2, c.y + c.h, x + (COL_W - 14) / 2, y, summary["status"]))
            y += LABEL_H + 2
            ids = [i for i in summary.get("claims", []) if i in records]
            per_row = max(1, int((COL_W - 14) // (DOT + 2)))
            for k, cid in enumerate(ids):
                r = records[cid]
                nodes.append(Node("claim", cid, f"{cid}: {status_of(r)}", status_of(r), claim_href(cid),
                                  x + (k % per_row) * (DOT + 2), y + (k // per_row) * (DOT + 2), DOT, DOT))
            if ids:
                y += ((len(ids) - 1) // per_row + 1) * (DOT + 2)
            y += GAP
        bottom = max(bottom, y)
    return Blueprint(total_w + 10, bottom + 20, nodes, edges, columns)
