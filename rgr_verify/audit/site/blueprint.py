"""The blueprint: the paper's contributions and numbered labels as one dependency graph, drawn as SVG.

Nodes are the contributions (top row) and the labels; edges are *uses* (label -> label, read from the paper's
proofs and statements: :mod:`rgr_verify.audit.site.uses`) and contribution -> core label (the rollup's core labels, else
its numbered results and experiments). The connected part is laid out as a layered graph (Sugiyama style: cycles
broken by reversing DFS back edges, longest-path layers pulled up under their users, one dummy node per layer an
edge spans, barycentre crossing reduction over a few up and down sweeps keeping the ordering with the fewest
crossings, wide layers wrapped into rows, x placed by the neighbours' barycentre with overlaps resolved); labels
with no edge are laid out below in a grid, by part of the paper. A used label sits below the labels that use it.

Each label node has a shape by kind (:func:`kind_of`), its own rolled-up verdict as fill, one dot per claim that
rests on it, and, when a label it uses (directly or along a chain) fails, a hatched outline and
``data-propagated`` naming the failing labels (``data-gap-through`` for a gap). :meth:`Blueprint.svg` renders it
(``g.node[data-label][data-status][data-kind]``, ``path.uses[data-uses="A->B"]``, ``g#bp-legend``); the SVG fits
the page width through its viewBox.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from ...claims.base import FACTS_PAPER, RGR_PAPER
from ...claims.labels import label_part
from ...claims.structure import contributions_of
from .uses import FAILING, V3_USES, propagate

__all__ = ["Node", "Blueprint", "layout", "PART_TITLES", "part_of_label", "label_sort_key", "kind_of", "KIND_SHAPES",
           "layered_layout"]

PART_TITLES = {"abstract": "Abstract", **{f"sec{n}": f"Sec. {n}" for n in range(1, 11)},
               **{f"app{c}": f"App. {c.upper()}" for c in "abcd"}, "facts": "arXiv 2502.05076",
               "xpaper": "Cross-paper", "other": "Other"}
_PART_ORDER = list(PART_TITLES)

# kind of a node -> (what the legend calls it, the label words that have it)
KIND_SHAPES = {
    "definition": ("definition, construction, algorithm (slanted box)", ("Definition", "Construction", "Algorithm")),
    "theorem": ("theorem, proposition (square box, thick outline)", ("Theorem", "Proposition")),
    "lemma": ("lemma (rounded pill)", ("Lemma",)),
    "corollary": ("corollary, remark, example (cut corners)", ("Corollary", "Remark", "Example")),
    "equation": ("equation (ellipse)", ("Eq.",)),
    "experiment": ("experiment: figure, table (folded corner)", ("Figure", "Table")),
    "section": ("section, appendix, abstract (thin box)", ()),
    "contribution": ("contribution (large rounded box)", ()),
}
PAD, CH_W, ROW_GAP, NODE_GAP, DOT, MAX_ROW_W, MARGIN = 8, 6.6, 46, 14, 7, 1500, 12
SHAPE_H, CONTRIB_H, DOTS_PER_ROW = 20, 58, 12


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
    edges: list  # contribution -> label lines (x1, y1, x2, y2, status of the label), for a plain drawing
    columns: list  # (x, title) headings of the grid of labels without edges
    uses: list = field(default_factory=list)  # {"source", "target", "points", "line", "kind"}: A uses B, or
    # contribution -> core label ("kind": "core"); points run from A (above) down to B
    propagated: dict = field(default_factory=dict)  # label -> {"fails": [...], "gaps": [...]}
    grid_top: float = 0.0  # where the grid of labels without edges starts
    headings: list = field(default_factory=list)  # (x, y, title) of the grid's parts

    def svg(self, colors: dict, dark=()) -> Markup:
        """The SVG markup of the blueprint (see the module docstring for the markup it holds); ``colors``: status ->
        fill, ``dark``: statuses drawn with white text."""
        return Markup(_render(self, colors, frozenset(dark)))

    def legend(self, colors: dict, dark=()) -> Markup:
        """The legend alone as an HTML block (``div#blueprint-legend``) for a page that wants it beside the graph."""
        body = _legend_svg(self, colors, frozenset(dark), 0, 0)
        return Markup(f'<div id="blueprint-legend" class="bp-legend"><svg xmlns="http://www.w3.org/2000/svg" '
                      f'viewBox="0 0 {body[1]:.0f} {body[2]:.0f}" width="100%" role="img" '
                      f'aria-label="Legend of the blueprint">{body[0]}</svg></div>')


def part_of_label(label: str) -> str:
    """The part of the paper a label node belongs to (``"other"`` when no part can be read from it)."""
    if label.startswith(FACTS_PAPER + " "):
        return "facts"
    try:
        return label_part(label, RGR_PAPER)
    except ValueError:
        return "other"


def kind_of(label: str) -> str:
    """The shape kind of a label node (:data:`KIND_SHAPES`): "Lemma 8.2" -> "lemma", "Eq. (11)" -> "equation",
    "Figure 3" -> "experiment", "Sec. 6.1" -> "section"."""
    bare = label[len(FACTS_PAPER) + 1:] if label.startswith(FACTS_PAPER + " ") else label
    word = bare.split(" ", 1)[0]
    return next((k for k, (_t, words) in KIND_SHAPES.items() if word in words), "section")


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


# --- the layered layout ------------------------------------------------------------------------------------------

def _acyclic(nodes: list, edges: list) -> tuple[list, set]:
    """Edges oriented downwards with the back edges of a depth-first search (in ``nodes`` order) reversed; returns
    the oriented edges (no duplicates) and the set of original edges that were reversed."""
    succ = {v: [] for v in nodes}
    for a, b in edges:
        succ[a].append(b)
    state, reversed_, stack = {}, set(), []
    for root in nodes:
        if root in state:
            continue
        state[root] = 1
        stack.append((root, iter(succ[root])))
        while stack:
            v, it = stack[-1]
            w = next(it, None)
            if w is None:
                state[v] = 2
                stack.pop()
            elif state.get(w) == 1:
                reversed_.add((v, w))
            elif w not in state:
                state[w] = 1
                stack.append((w, iter(succ[w])))
    oriented = list(dict.fromkeys((b, a) if (a, b) in reversed_ else (a, b) for a, b in edges))
    return oriented, reversed_


def _layers(nodes: list, edges: list, top: set) -> dict:
    """Layer (0 = top) of each node: longest path to a sink, ``top`` nodes on layer 0, nodes used by nobody pulled
    down to just above their highest successor, the others pulled up to just under their lowest predecessor."""
    succ = {v: [] for v in nodes}
    pred = {v: [] for v in nodes}
    for a, b in edges:
        succ[a].append(b)
        pred[b].append(a)
    height: dict = {}

    def h(v):
        if v not in height:
            stack = [v]
            while stack:
                u = stack[-1]
                todo = [w for w in succ[u] if w not in height]
                if todo:
                    stack.extend(todo)
                    continue
                stack.pop()
                height[u] = 1 + max((height[w] for w in succ[u]), default=-1)
        return height[v]

    depth = max((h(v) for v in nodes), default=0)
    layer = {v: 0 if v in top else 1 + depth - h(v) for v in nodes}
    for v in sorted(nodes, key=lambda v: -layer[v]):  # sources down to their successors
        if not pred[v] and succ[v] and v not in top:
            layer[v] = min(layer[w] for w in succ[v]) - 1
    for v in sorted(nodes, key=lambda v: layer[v]):  # the others up under their predecessors
        if pred[v] and v not in top:
            layer[v] = max(layer[p] for p in pred[v]) + 1
    low = min((layer[v] for v in nodes if v not in top), default=1)
    if top:
        return {v: 0 if v in top else layer[v] - low + 1 for v in nodes}
    return {v: layer[v] - low for v in nodes}


def _crossings(order: list, edges_between: list) -> int:
    pos = {v: i for row in order for i, v in enumerate(row)}
    n = 0
    for k, (a1, b1) in enumerate(edges_between):
        for a2, b2 in edges_between[k + 1:]:
            if (pos[a1] - pos[a2]) * (pos[b1] - pos[b2]) < 0:
                n += 1
    return n


def _place_row(row: list, desired: dict, widths: dict, total: float) -> dict:
    """Left x of each node of ``row`` (in order) as near its ``desired`` centre as the order and gaps allow."""
    left, right, prev = {}, {}, -NODE_GAP
    for v in row:
        x = max(desired[v] - widths[v] / 2, prev + NODE_GAP)
        left[v], prev = x, x + widths[v]
    nxt = total + NODE_GAP
    for v in reversed(row):
        x = min(desired[v] - widths[v] / 2, nxt - NODE_GAP - widths[v])
        right[v], nxt = x, x
    out, prev = {}, -NODE_GAP
    for v in row:
        x = max((left[v] + right[v]) / 2, prev + NODE_GAP, 0.0)
        out[v], prev = x, x + widths[v]
    over = prev - total
    if over > 0:
        for v in row:
            out[v] -= over
    return out


def layered_layout(nodes: list, edges: list, widths: dict, heights: dict, *, top=(), sweeps: int = 8) -> dict:
    """A Sugiyama-style layered drawing of the directed graph ``edges`` ((a, b): a is drawn above b) on ``nodes``
    (their order is the initial order within a layer); ``top``: nodes forced onto the first layer. Returns
    ``{"pos": {node: (x, y)} (top-left corners), "routes": {(a, b): [(x, y), ...]} (from a's bottom centre through
    the dummy nodes to b's top centre, whatever the orientation), "width", "height", "crossings"}``. ValueError for
    an edge to a node not in ``nodes``."""
    known = set(nodes)
    for a, b in edges:
        if a not in known or b not in known:
            raise ValueError(f"edge {a!r} -> {b!r} names a node that is not in nodes")
    edges = [(a, b) for a, b in dict.fromkeys(edges) if a != b]
    oriented, _rev = _acyclic(list(nodes), edges)
    layer = _layers(list(nodes), oriented, set(top))
    # dummy nodes: one per layer an edge crosses
    chains, w, h, lay = {}, dict(widths), dict(heights), dict(layer)
    for a, b in oriented:
        chain = [a]
        for k in range(layer[a] + 1, layer[b]):
            d = ("dummy", a, b, k)
            w[d], h[d], lay[d] = 0.0, 0.0, k
            chain.append(d)
        chains[(a, b)] = chain + [b]
    n_layers = 1 + max(lay.values(), default=0)
    rank = {v: i for i, v in enumerate(nodes)}
    order = [[] for _ in range(n_layers)]
    for v in sorted(lay, key=lambda v: (lay[v], rank[v] if v in rank else rank[v[1]] + 0.5)):
        order[lay[v]].append(v)
    segs = [(c[i], c[i + 1]) for c in chains.values() for i in range(len(c) - 1)]
    up = {v: [] for v in lay}
    down = {v: [] for v in lay}
    for a, b in segs:
        down[a].append(b)
        up[b].append(a)
    between = [[(a, b) for a, b in segs if lay[a] == i] for i in range(n_layers)]

    def total_crossings(o):
        return sum(_crossings(o, between[i]) for i in range(n_layers - 1))

    best, best_n = [list(r) for r in order], total_crossings(order)
    for s in range(sweeps):
        rng = range(1, n_layers) if s % 2 == 0 else range(n_layers - 2, -1, -1)
        for i in rng:
            nb = up if s % 2 == 0 else down
            pos = {v: j for j, v in enumerate(order[i - 1 if s % 2 == 0 else i + 1])}
            cur = {v: j for j, v in enumerate(order[i])}

            def bary(v, nb=nb, pos=pos, cur=cur):
                ps = [pos[u] for u in nb[v] if u in pos]
                return sum(ps) / len(ps) if ps else cur[v] * max(1, len(pos)) / max(1, len(cur))

            order[i] = sorted(order[i], key=lambda v: (bary(v), cur[v]))
        n = total_crossings(order)
        if n < best_n:
            best, best_n = [list(r) for r in order], n
    order = best
    # wrap wide layers into rows
    rows, row_layer = [], []
    for i, layer_nodes in enumerate(order):
        row, used = [], 0.0
        for v in layer_nodes:
            if row and used + w[v] > MAX_ROW_W and w[v] > 0:
                rows.append(row)
                row_layer.append(i)
                row, used = [], 0.0
            row.append(v)
            used += w[v] + NODE_GAP
        rows.append(row)
        row_layer.append(i)
    total = max([sum(w[v] + NODE_GAP for v in r) for r in rows] + [200.0])
    xs = {}
    for r in rows:
        packed = sum(w[v] + NODE_GAP for v in r) - NODE_GAP
        x = (total - packed) / 2
        for v in r:
            xs[v], x = x, x + w[v] + NODE_GAP
    for _ in range(6):  # pull each node towards its neighbours' centres
        for r in rows:
            desired = {}
            for v in r:
                nbs = up[v] + down[v]
                desired[v] = (sum(xs[u] + w[u] / 2 for u in nbs) / len(nbs)) if nbs else xs[v] + w[v] / 2
            xs.update(_place_row(r, desired, w, total))
    ys, y = {}, 0.0
    for k, r in enumerate(rows):
        if k and row_layer[k] != row_layer[k - 1]:
            y += ROW_GAP
        elif k:
            y += 10
        row_h = max([h[v] for v in r] + [SHAPE_H])
        for v in r:
            ys[v] = y + (row_h / 2 if v[0] == "dummy" and isinstance(v, tuple) else 0)
        y += row_h
    routes = {}
    for (a, b), chain in chains.items():
        pts = [(xs[a] + w[a] / 2, ys[a] + h[a])]
        pts += [(xs[d], ys[d]) for d in chain[1:-1]]
        pts.append((xs[b] + w[b] / 2, ys[b]))
        routes[(a, b)] = pts
    for a, b in edges:
        if (a, b) not in routes:  # reversed to break a cycle: the route runs from b down to a, give it as a -> b
            routes[(a, b)] = list(reversed(routes[(b, a)])) if (b, a) in routes else []
    pos = {v: (xs[v], ys[v]) for v in nodes}
    return {"pos": pos, "routes": routes, "width": total, "height": y, "crossings": best_n}


# --- the blueprint -------------------------------------------------------------------------------------------------

def _text_w(text: str, size: float = 11) -> float:
    return len(text) * CH_W * size / 11


def _label_text(label: str) -> str:
    return ("[2502.05076] " + label[len(FACTS_PAPER) + 1:]) if label.startswith(FACTS_PAPER + " ") else label


def _shape_w(label: str) -> float:
    extra = {"equation": 18, "lemma": 12, "definition": 12, "experiment": 6}.get(kind_of(label), 0)
    return max(64.0, _text_w(_label_text(label)) + 2 * PAD + extra)


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width)[:3] or [text[:width]]


def layout(labels: dict, contributions: dict, claims: list, *, extra_labels=(), claim_href, label_href,
           status_of, uses: dict | None = None, lines: dict | None = None) -> Blueprint:
    """Lay out the blueprint.

    ``labels``: rolled-up label summaries ({label: {"status", "claims", "summary"}}); ``contributions``: rolled-up
    contributions ({id: {"title", "status", "core", "labels"}}); ``claims``: the audit's claim records;
    ``extra_labels``: numbered labels of the paper that no claim names (drawn as ``no-claims``); ``claim_href(id)``,
    ``label_href(label)``: links; ``status_of(record)``: a claim's shown status; ``uses``: {A: {B: line}} (default
    the v3 edges, :data:`rgr_verify.audit.site.uses.V3_USES`; edges to labels not drawn are left out); ``lines``: {label:
    (first, last)} for the hover text (default the v3 ranges).
    """
    from ..papertext import V3_LABELS

    uses = V3_USES if uses is None else uses
    lines = V3_LABELS if lines is None else lines
    records = {r["id"]: r for r in claims}
    all_labels = dict(labels)
    for lab in extra_labels:
        all_labels.setdefault(lab, {"status": "no-claims", "claims": []})
    statuses = {lab: s["status"] for lab, s in all_labels.items()}
    label_order = sorted(all_labels, key=lambda lab: (_PART_ORDER.index(part_of_label(lab)), label_sort_key(lab)))
    use_edges = [(a, b) for a in label_order for b in (uses.get(a) or {}) if b in all_labels and b != a]
    core_edges = []
    for cid, c in contributions.items():
        core = list((c.get("core") or {}).get("labels") or [])
        if not core:
            core = [lab for lab in c.get("labels") or [lab for lab in all_labels if cid in contributions_of(lab)]
                    if kind_of(lab) not in ("section", "equation")]
        core_edges += [(f"contribution:{cid}", lab) for lab in dict.fromkeys(core) if lab in all_labels]
    prop = propagate({a: {b: 1 for a2, b in use_edges if a2 == a} for a in all_labels}, statuses)

    # sizes: a label is its shape plus rows of claim dots under it
    widths, heights, dots = {}, {}, {}
    for lab in label_order:
        ids = [i for i in all_labels[lab].get("claims", []) if i in records]
        dots[lab] = ids
        w = _shape_w(lab)
        per_row = max(1, min(DOTS_PER_ROW, int((w - 4) // (DOT + 2))))
        widths[lab] = w
        heights[lab] = SHAPE_H + (((len(ids) - 1) // per_row + 1) * (DOT + 2) + 3 if ids else 0)
    contrib_keys = [f"contribution:{cid}" for cid in contributions]
    for cid, c in contributions.items():
        k = f"contribution:{cid}"
        widths[k], heights[k] = 176.0, float(CONTRIB_H)
    connected = set(contrib_keys) | {v for e in use_edges + core_edges for v in e}
    graph_nodes = contrib_keys + [lab for lab in label_order if lab in connected]
    lay = layered_layout(graph_nodes, use_edges + core_edges, widths, heights, top=contrib_keys)
    width = max(lay["width"], 900.0)
    shift_x = (width - lay["width"]) / 2
    legend_h = _legend_svg(None, {}, frozenset(), 0, 0, width=width)[2] + 52  # + the rows of statuses
    top = MARGIN + legend_h + 12
    pos = {v: (x + shift_x + MARGIN, y + top) for v, (x, y) in lay["pos"].items()}

    # the labels with no edge: a grid by part, under the graph
    grid_top = top + lay["height"] + 40
    columns, y = [], grid_top
    loose = [lab for lab in label_order if lab not in connected]
    by_part: dict[str, list] = {}
    for lab in loose:
        by_part.setdefault(part_of_label(lab), []).append(lab)
    x, line_h = MARGIN, 0.0
    for part, labs in by_part.items():  # parts flow left to right, each under its heading
        group_w = sum(widths[lab] + NODE_GAP for lab in labs)
        if x > MARGIN and x + min(group_w, width) > width + MARGIN:
            x, y, line_h = MARGIN, y + line_h + 12, 0.0
        columns.append((x, y, PART_TITLES[part]))
        gx, gy, row_h = x, y + 16, 0.0
        for lab in labs:
            if gx + widths[lab] > width + MARGIN and gx > MARGIN:
                gx, gy, row_h = MARGIN, gy + row_h + 8, 0.0
            pos[lab] = (gx, gy)
            gx += widths[lab] + NODE_GAP
            row_h = max(row_h, heights[lab])
        if gy > y + 16:  # the group wrapped: the next one starts on a new line
            x, y, line_h = MARGIN, gy + row_h + 12, 0.0
        else:
            x, line_h = gx + 10, max(line_h, 16 + row_h)
    y += line_h
    nodes, edges = [], []
    for cid, c in contributions.items():
        k = f"contribution:{cid}"
        x, yy = pos[k]
        nodes.append(Node("contribution", cid, c["title"], c["status"], label_href(k), x, yy, widths[k], CONTRIB_H,
                          {"lines": _wrap(c["title"].split(":")[0], 27)[:2],
                           "summary": c.get("sentence") or c.get("summary") or ""}))
    for lab in label_order:
        x, yy = pos[lab]
        summary = all_labels[lab]
        p = prop.get(lab, {"fails": [], "gaps": []})
        used = [b for a, b in use_edges if a == lab]
        users = [a for a, b in use_edges if b == lab]
        nodes.append(Node("label", lab, _label_text(lab), summary["status"], label_href(lab), x, yy, widths[lab],
                          SHAPE_H, {"shape": kind_of(lab), "lines": lines.get(lab), "uses": used, "used_by": users,
                                    "fails": p["fails"], "gaps": p["gaps"],
                                    "summary": summary.get("summary") or "no claim of this audit checks it",
                                    "claims": len(dots[lab])}))
        per_row = max(1, min(DOTS_PER_ROW, int((widths[lab] - 4) // (DOT + 2))))
        for k, cid in enumerate(dots[lab]):
            r = records[cid]
            nodes.append(Node("claim", cid, f"{cid}: {status_of(r)}", status_of(r), claim_href(cid),
                              x + 2 + (k % per_row) * (DOT + 2), yy + SHAPE_H + 3 + (k // per_row) * (DOT + 2),
                              DOT, DOT))
    for a, b in core_edges:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        edges.append((x1 + widths[a] / 2, y1 + heights[a], x2 + widths[b] / 2, y2, statuses[b]))
    shift = lambda pts: [(px + shift_x + MARGIN, py + top) for px, py in pts]  # noqa: E731
    uses_out = [{"source": a, "target": b, "points": shift(lay["routes"].get((a, b), [])),
                 "line": (uses.get(a) or {}).get(b), "kind": "uses"} for a, b in use_edges]
    uses_out += [{"source": a, "target": b, "points": shift(lay["routes"].get((a, b), [])), "line": None,
                  "kind": "core"} for a, b in core_edges]
    return Blueprint(width + 2 * MARGIN, y + MARGIN, nodes, edges, [], uses_out, prop, grid_top, columns)


# --- SVG -----------------------------------------------------------------------------------------------------------

_STROKE = "#444c56"
_FAIL, _GAP = "#cf222e", "#e8a13b"


def _a(value) -> str:
    return str(escape(str(value)))


def _shape(kind: str, x: float, y: float, w: float, h: float, attrs: str) -> str:
    """One SVG element drawing a node of ``kind`` in the box (x, y, w, h)."""
    r = lambda v: f"{v:.1f}"  # noqa: E731
    if kind == "equation":
        return f'<ellipse cx="{r(x + w / 2)}" cy="{r(y + h / 2)}" rx="{r(w / 2)}" ry="{r(h / 2)}" {attrs}/>'
    if kind in ("lemma", "section", "contribution", "theorem"):
        rx = {"lemma": h / 2, "section": 3, "contribution": 10, "theorem": 0}[kind]
        return f'<rect x="{r(x)}" y="{r(y)}" width="{r(w)}" height="{r(h)}" rx="{r(rx)}" {attrs}/>'
    if kind == "definition":
        pts = [(x + 6, y), (x + w, y), (x + w - 6, y + h), (x, y + h)]
    elif kind == "corollary":
        c = 5
        pts = [(x + c, y), (x + w - c, y), (x + w, y + c), (x + w, y + h - c), (x + w - c, y + h), (x + c, y + h),
               (x, y + h - c), (x, y + c)]
    else:  # experiment: a sheet with a folded corner
        pts = [(x, y), (x + w - 7, y), (x + w, y + 7), (x + w, y + h), (x, y + h)]
    return f'<polygon points="{" ".join(f"{r(px)},{r(py)}" for px, py in pts)}" {attrs}/>'


def _stroke_w(kind: str) -> float:
    return {"theorem": 2.2, "contribution": 1.5, "section": 0.8}.get(kind, 1.2)


def _path(points: list) -> str:
    if len(points) < 2:
        return ""
    (x0, y0), out = points[0], [f"M{points[0][0]:.1f},{points[0][1]:.1f}"]
    for x1, y1 in points[1:]:
        my = (y0 + y1) / 2
        out.append(f"C{x0:.1f},{my:.1f} {x1:.1f},{my:.1f} {x1:.1f},{y1:.1f}")
        x0, y0 = x1, y1
    return " ".join(out)


def _legend_svg(bp, colors: dict, dark: frozenset, x0: float, y0: float, width: float | None = None):
    """(markup, width, height) of the legend: shapes by kind, fills by status, edges and propagation."""
    width = width or (bp.width if bp is not None else 900)
    out, x, y, row_h = [], x0, y0 + 14, 26
    out.append(f'<text x="{x0:.0f}" y="{y0 + 10:.0f}" style="font-size:11px;font-weight:700">Legend</text>')

    def place(w):
        nonlocal x, y
        if x + w > x0 + width and x > x0:
            x, y = x0, y + row_h
        at = x
        x += w + 12
        return at

    for kind, (words, _w) in KIND_SHAPES.items():
        tw = _text_w(words, 10) + 40
        at = place(tw)
        out.append(f'<g class="legend-kind" data-kind="{kind}">' +
                   _shape(kind, at, y + 3, 30, 14, f'style="fill:#fff;stroke:{_STROKE};stroke-width:{_stroke_w(kind)}"')
                   + f'<text x="{at + 36:.0f}" y="{y + 14:.0f}" style="font-size:10px">{_a(words)}</text></g>')
    x, y = x0, y + row_h
    shown = [s for s in colors if bp is None or any(n.status == s for n in bp.nodes)]
    for st in shown:
        at = place(_text_w(st, 10) + 26)
        out.append(f'<g class="legend-status" data-status="{_a(st)}"><rect x="{at:.0f}" y="{y + 4:.0f}" width="16" '
                   f'height="12" style="fill:{colors[st]};stroke:{_STROKE};stroke-width:0.6"/><text x="{at + 20:.0f}" '
                   f'y="{y + 14:.0f}" style="font-size:10px">{_a(st)}</text></g>')
    if shown:
        x, y = x0, y + row_h
    items = [
        ('<path d="M{a},{y16} C{a},{y4} {b},{y16} {b},{y6}" style="fill:none;stroke:%s;stroke-width:1.2" '
         'marker-end="url(#bp-arrow)"/>' % _STROKE, "B \u2192 A: label A uses B (cited in its statement or proof); "
         "A is drawn above B"),
        ('<path d="M{a},{y10} L{b},{y10}" style="fill:none;stroke:%s;stroke-width:1.6" '
         'marker-end="url(#bp-arrow-fail)"/>' % _FAIL, "a used label that fails (broken, contradicted, partly broken)"),
        ('<rect x="{a}" y="{y3}" width="30" height="14" style="fill:#fff;stroke:url(#bp-hatch-fail);stroke-width:4"/>',
         "hatched red outline: fails because a label it uses fails"),
        ('<rect x="{a}" y="{y3}" width="30" height="14" style="fill:#fff;stroke:url(#bp-hatch-gap);stroke-width:4"/>',
         "hatched orange outline: a label it uses has a proof gap"),
        ('<path d="M{a},{y10} L{b},{y10}" style="fill:none;stroke:#8c959f;stroke-width:1;stroke-dasharray:4 3"/>',
         "contribution \u2192 its core results"),
        ('<rect x="{a}" y="{y6}" width="%d" height="%d" style="fill:#fff;stroke:%s;stroke-width:0.6"/>'
         % (DOT, DOT, _STROKE), "one dot per claim, coloured by its status"),
    ]
    for mark, words in items:
        at = place(_text_w(words, 10) + 40)
        marks = mark.format(a=f"{at:.0f}", b=f"{at + 30:.0f}", **{f"y{k}": f"{y + k:.0f}" for k in (3, 4, 6, 10, 16)})
        out.append(f'<g class="legend-mark">{marks}<text x="{at + 36:.0f}" y="{y + 14:.0f}" style="font-size:10px">'
                   f'{_a(words)}</text></g>')
    return "\n".join(out), width, y + row_h - y0


_DEFS = f"""<defs>
<pattern id="bp-hatch-fail" patternUnits="userSpaceOnUse" width="5" height="5" patternTransform="rotate(45)">\
<rect width="2.5" height="5" style="fill:{_FAIL}"/></pattern>
<pattern id="bp-hatch-gap" patternUnits="userSpaceOnUse" width="5" height="5" patternTransform="rotate(45)">\
<rect width="2.5" height="5" style="fill:{_GAP}"/></pattern>
<marker id="bp-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto">\
<path d="M0,0 L8,4 L0,8 z" style="fill:{_STROKE}"/></marker>
<marker id="bp-arrow-fail" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto">\
<path d="M0,0 L8,4 L0,8 z" style="fill:{_FAIL}"/></marker>
</defs>"""


def _label_title(n: Node) -> str:
    ln = n.extra.get("lines")
    head = n.key + (f" (l. {ln[0]}\u2013{ln[1]})" if ln else "") + f": {n.status}"
    parts = [head, n.extra.get("summary") or ""]
    if n.extra.get("uses"):
        parts.append("uses " + ", ".join(n.extra["uses"]))
    if n.extra.get("fails"):
        parts.append("fails because it uses " + ", ".join(n.extra["fails"]))
    if n.extra.get("gaps"):
        parts.append("a label it uses has a proof gap: " + ", ".join(n.extra["gaps"]))
    return "\n".join(p for p in parts if p)


def _render(bp: Blueprint, colors: dict, dark: frozenset) -> str:
    fill = lambda st: colors.get(st, "#ffffff")  # noqa: E731
    ink = lambda st: "#fff" if st in dark else "#1d1d1f"  # noqa: E731
    status = {n.key: n.status for n in bp.nodes if n.kind == "label"}
    legend, _lw, legend_h = _legend_svg(bp, colors, dark, MARGIN, MARGIN, width=bp.width - 2 * MARGIN)
    out = [f'<svg id="blueprint" class="blueprint" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {bp.width:.0f} '
           f'{bp.height:.0f}" width="100%" preserveAspectRatio="xMidYMin meet" role="img" style="max-width:100%;'
           f'height:auto;display:block" aria-label="Dependency blueprint: contributions, the paper\'s numbered labels '
           f'and what each uses, coloured by verdict">', _DEFS, f'<g id="bp-legend" class="legend">{legend}</g>']
    out.append('<g class="edges">')
    for e in bp.uses:
        pts = e["points"]
        if not pts:
            continue
        if e["kind"] == "core":
            cid = e["source"].split(":", 1)[1]
            out.append(f'<path class="core" data-core="{_a(cid)}->{_a(e["target"])}" d="{_path(pts)}" '
                       'style="fill:none;stroke:#8c959f;stroke-width:1;stroke-dasharray:4 3"/>')
            continue
        failing = status.get(e["target"]) in FAILING
        colour = _FAIL if failing else _STROKE
        line = f' data-line="L{e["line"]}"' if e.get("line") else ""
        where = f" (cited at l. {e['line']})" if e.get("line") else ""
        out.append(f'<path class="uses{" fails" if failing else ""}" data-uses="{_a(e["source"])}->{_a(e["target"])}"'
                   f'{line} d="{_path(list(reversed(pts)))}" style="fill:none;stroke:{colour};stroke-width:'
                   f'{1.6 if failing else 1.1};stroke-opacity:0.8" '
                   f'marker-end="url(#bp-arrow{"-fail" if failing else ""})">'
                   f'<title>{_a(e["source"])} uses {_a(e["target"])}{where}</title></path>')
    out.append("</g>")
    for x, y, t in bp.headings:
        out.append(f'<text class="part" x="{x:.0f}" y="{y + 11:.0f}" style="font-size:12px;font-weight:700">'
                   f'{_a(t)}</text>')
    if bp.headings:
        out.append(f'<text x="{bp.width - MARGIN:.0f}" y="{bp.grid_top - 12:.0f}" text-anchor="end" '
                   'style="font-size:11px;fill:#555">Below: labels that use no other label and that no label or '
                   'contribution uses</text>')
    for n in bp.nodes:
        r = lambda v: f"{v:.1f}"  # noqa: E731
        if n.kind == "contribution":
            lines = "".join(f'<text x="{r(n.x + 8)}" y="{r(n.y + 16 + 13 * i)}" style="font-size:11px;fill:'
                            f'{ink(n.status)}">{_a(t)}</text>' for i, t in enumerate(n.extra.get("lines", [])))
            out.append(f'<a href="{_a(n.href)}"><g class="node contribution" data-contribution="{_a(n.key)}" '
                       f'data-status="{_a(n.status)}" data-kind="contribution"><title>{_a(n.title)}: {_a(n.status)}'
                       f'\n{_a(n.extra.get("summary", ""))}</title>' +
                       _shape("contribution", n.x, n.y, n.w, n.h, f'style="fill:{fill(n.status)};stroke:{_STROKE};'
                              'stroke-width:1.5"') + lines +
                       f'<text x="{r(n.x + 8)}" y="{r(n.y + n.h - 8)}" style="font-size:10px;font-weight:700;fill:'
                       f'{ink(n.status)}">{_a(n.status)}</text></g></a>')
        elif n.kind == "label":
            kind = n.extra.get("shape", "section")
            fails, gaps = n.extra.get("fails") or [], n.extra.get("gaps") or []
            attrs = (f' data-propagated="{_a(", ".join(fails))}"' if fails else "") + \
                    (f' data-gap-through="{_a(", ".join(gaps))}"' if gaps else "")
            cls = " propagated" if fails else (" gap-through" if gaps else "")
            ring = ""
            if fails or gaps:
                ring = _shape(kind, n.x - 3, n.y - 3, n.w + 6, n.h + 6, f'class="ring" style="fill:none;stroke:url('
                              f'#bp-hatch-{"fail" if fails else "gap"});stroke-width:4"')
            dash = ";stroke-dasharray:3 2" if n.status in ("no-claims", "not-run") else ""
            tab = ' tabindex="-1"' if n.status == "no-claims" else ""
            out.append(f'<a href="{_a(n.href)}"{tab}><g class="node label kind-{kind}{cls}" data-label="{_a(n.key)}" '
                       f'data-status="{_a(n.status)}" data-kind="{kind}"{attrs}><title>{_a(_label_title(n))}</title>'
                       + ring + _shape(kind, n.x, n.y, n.w, n.h, f'style="fill:{fill(n.status)};stroke:{_STROKE};'
                                       f'stroke-width:{_stroke_w(kind)}{dash}"') +
                       f'<text x="{r(n.x + n.w / 2)}" y="{r(n.y + 14)}" text-anchor="middle" style="font-size:11px;'
                       f'fill:{ink(n.status)}">{_a(n.title)}</text></g></a>')
        else:
            out.append(f'<a href="{_a(n.href)}" tabindex="-1"><g class="node claim" data-claim="{_a(n.key)}" '
                       f'data-status="{_a(n.status)}"><title>{_a(n.title)}</title><rect x="{r(n.x)}" y="{r(n.y)}" '
                       f'width="{n.w}" height="{n.h}" rx="1.5" style="fill:{fill(n.status)};stroke:{_STROKE};'
                       'stroke-width:0.6"/></g></a>')
    out.append("</svg>")
    return "\n".join(out)
