"""The numbered labels of a text of arXiv 2509.22840: where each is defined, where each is mentioned, an annotated HTML
view, and which claims a change between two texts of the paper touches.

The text is the plain-text rendering of the paper (``shared/paper/003_*.txt`` holds v3). Definitions are recognised
the way that rendering marks them:

* sections and appendices: a heading line ``6.1 Title`` / ``B.2 Title`` (numbers in sequence; appendices after
  the numbered sections); a ``References`` line closes the last numbered section;
* statements: a line opening with ``Theorem 4.1 (...)``, ``Lemma B.3.``, ``Definition 9.1:`` (also Corollary,
  Proposition, Remark, Example) or ``Construction II:`` (also inside a heading, ``B.3 Construction III: ...``);
* floats: ``Figure 3:`` / ``Table 1:`` captions and ``Algorithm 2 Title`` headers;
* equations: a display line carrying ``\\tag{1}``, ``\\quad (12)`` or ending ``(12)$$``.

Line ranges are 1-based and inclusive, trailing blank lines dropped. A section runs to the line before the next
heading of the same or a higher level; a statement to the line before the next statement or heading, or, when a
``Proof``/``Sketch`` paragraph follows it and a QED mark (``\\square``, ``□``) closes it, to the next statement or
heading after that proof, so that the proof's steps are the statement's; a lemma stated inside another's proof is
its own text and displays (or its own proof) only. Floats do not
cut those ranges (the rendering interleaves them with running text): a figure is its caption paragraph, a table its
caption plus the tab-separated rows just above it, an algorithm its header and numbered steps (``- 3: ...``) with
their displays. An equation is the line(s) of its display. The first definition of a label wins.

Labels are spelled as the claims spell them (``Theorem 4.1``, ``Eq. (12)``, ``Figure 3``, ``Sec. 6.1``,
``App. A.3``, ``Algorithm 2``, ``Construction II``, ``Table 1``).
"""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["find_labels", "label_references", "annotate", "slug", "paper_diff", "V3_LABELS", "V3_LABELS_PATH",
           "V3_TEXT_NAME", "default_text_path", "claim_places", "changed_tokens"]

V3_LABELS_PATH = Path(__file__).resolve().parents[1] / "data" / "labels-2509.22840-v3.json"
# The v3 text is not shipped with the package (the project never holds the paper's sentences); it is read from
# $RGR_VERIFY_PAPER_TEXT or from shared/paper/ beside (or inside) the checkout when present.
V3_TEXT_NAME = "003_656413910ed800f8.txt"

_STMT_KINDS = ("Theorem", "Lemma", "Corollary", "Proposition", "Definition", "Remark", "Example")
_ROMAN = r"(?:IV|V|III|II|I)"
_STMT_DEF = re.compile(r"^\**(" + "|".join(_STMT_KINDS) + r") ([0-9A-H]+\.\d+)\**(?=\s*[(.:]|\s*$)")
_CONSTR_DEF = re.compile(r"^\**Construction (" + _ROMAN + r")\b\**\s*[:.]")
_FLOAT_DEF = re.compile(r"^\**(Figure|Table) (\d+)\**\s*[:.]")
_ALG_DEF = re.compile(r"^\**Algorithm (\d+)\**(?=[:.]|\s+[A-Z]|\s*$)")
_SEC_DEF = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,2}) +([A-Z].*)$")
_APP_DEF = re.compile(r"^([A-H](?:\.\d{1,2}){0,2}) +([A-Z].*)$")
_REFERENCES = re.compile(r"^\s*(?:References|Bibliography)\s*$")
_EQ_TAG = re.compile(r"\\tag\{(\d+)\}|\\q?quad\s*(\((\d+)\))|(\((\d+)\))\s*\$\$\s*$")
_ALG_STEP = re.compile(r"^\s*-\s*(?:(\d+):|$)")
_PROOF = re.compile(r"^\**(?:Proof(?: sketch| idea)?|Sketch)\b")
_QED = re.compile(r"\\square|\\blacksquare|\\qed\b|□|∎")

_SEP = r"(?:\s*(?:,|&|–|—|-)\s*|\s+and\s+)"
_NUM = r"[0-9A-H]+\.\d+"
_APPNUM = r"[A-H](?:\.\d+)*(?![A-Za-z0-9])"
_SECNUM = r"\d+(?:\.\d+)*"
_EQNUM = r"\(\d+\)"
_KEYWORDS = [  # (regex of the keyword, regex of one item, label prefix, item -> label suffix)
    (r"\b(?P<kw>Theorems?|Thms?\.|Lemmas?|Corollar(?:y|ies)|Cor\.|Propositions?|Props?\.|Definitions?|Defs?\.|"
     r"Remarks?|Examples?)\s+", _NUM, None),
    (r"\bConstructions?\s+", _ROMAN + r"\b", "Construction "),
    (r"\b(?:Algorithms?|Alg\.)\s+", r"\d+\b", "Algorithm "),
    (r"\b(?:Figures?|Figs?\.)\s*", r"\d+\b", "Figure "),
    (r"\b(?:Tables?|Tabs?\.)\s+", r"\d+\b", "Table "),
    (r"(?:\bSections?|\bSecs?\.|§)\s*", _SECNUM + r"\b", "Sec. "),
    (r"\b(?:Appendix|Appendices|Apps?\.)\s+", _APPNUM, "App. "),
    (r"\b(?:Eqs?\.|Equations?|eqs?\.)\s*", r"\(?\d+\)?", "Eq. "),
]
_KW_RES = [(re.compile(kw + "(?P<items>" + item + "(?:" + _SEP + item + ")*)"), re.compile(item), prefix)
           for kw, item, prefix in _KEYWORDS]
_KIND_WORD = {"Thm": "Theorem", "Cor": "Corollary", "Prop": "Proposition", "Def": "Definition", "Corollaries": "Corollary"}
_BARE_EQ = re.compile(r"(?<![\w)}{^_\\])\((\d{1,2})\)")
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$")


@dataclass(frozen=True)
class _Def:
    label: str
    line: int  # 0-based
    col: tuple  # (start, end) of a heading's number or an equation's tag in the line; (0, 0) for the others
    cls: str  # "head", "stmt", "float", "eq"
    depth: int = 0
    end: int | None = None  # explicit last line (0-based) for floats and equations


def _text_lines(text, what="text") -> list[str]:
    if not isinstance(text, str):
        raise ValueError(f"{what} must be the paper's text as a str, got {type(text).__name__}")
    return text.splitlines()


def _key(number: str) -> tuple:
    return tuple(int(p) if p.isdigit() else ord(p) for p in number.split("."))


def _heading(line: str, state: dict):
    """The (label, depth) a heading line defines, updating ``state`` (last section/appendix numbers); else None."""
    s = line.rstrip()
    if len(s) > 120 or s.endswith((".", ",", ";")):
        return None
    for regex, kind, prefix in ((_SEC_DEF, "sec", "Sec. "), (_APP_DEF, "app", "App. ")):
        m = regex.match(s)
        if m is None or (kind == "sec" and state["app"]) or (kind == "app" and not state["sec"]):
            continue
        key, last = _key(m[1]), state[kind]
        first = ord("A") if kind == "app" else 1
        if _follows(key, last, first):
            state[kind] = key
            return prefix + m[1], len(key)
    return None


def _follows(key: tuple, last: tuple, first: int) -> bool:
    """Whether heading number ``key`` may follow ``last`` (at most one number skipped at its depth)."""
    d = len(key)
    if not last:
        return d == 1 and first <= key[0] <= first + 1
    if key[:d - 1] != last[:d - 1] or d > len(last) + 1:
        return False
    return key[-1] <= 2 if d == len(last) + 1 else last[d - 1] < key[-1] <= last[d - 1] + 2


def _scan(lines: list[str]) -> list[_Def]:
    """Every definition marker of the text, first definition of each label only, in line order."""
    defs, seen, state = [], set(), {"sec": (), "app": ()}

    def add(d):
        if d.label not in seen:
            seen.add(d.label)
            defs.append(d)

    for i, line in enumerate(lines):
        if _REFERENCES.match(line):
            defs.append(_Def("", i, (0, 0), "head", 1))  # a boundary, not a label
            continue
        head = _heading(line, state)
        if head:
            add(_Def(head[0], i, (0, len(head[0].split(" ", 1)[1])), "head", head[1]))
            title = line[len(head[0].split(" ", 1)[1]):].lstrip()
            m = re.match(r"Construction (" + _ROMAN + r")\b", title)
            if m:
                col = len(line) - len(title)
                add(_Def("Construction " + m[1], i, (col, col + m.end()), "stmt"))
            continue
        if m := _STMT_DEF.match(line) or _CONSTR_DEF.match(line):
            label = f"{m[1]} {m[2]}" if m.re is _STMT_DEF else "Construction " + m[1]
            add(_Def(label, i, (0, 0), "stmt"))
        elif m := _FLOAT_DEF.match(line):
            label = f"{m[1]} {m[2]}"
            start = _table_rows_start(lines, i) if m[1] == "Table" else i
            end = next((j - 1 for j in range(i + 1, len(lines)) if not lines[j].strip()), len(lines) - 1)
            add(_Def(label, start, (0, 0), "float", end=end))  # the caption paragraph
        elif m := _ALG_DEF.match(line):
            label = "Algorithm " + m[1]
            add(_Def(label, i, (0, 0), "float", end=_algorithm_end(lines, i)))
        for m in _EQ_TAG.finditer(line):
            if "$$" not in line and "\\]" not in line and "\\end{" not in line:
                continue
            num, col = (m[1], m.span()) if m[1] else (m[3], m.span(2)) if m[3] else (m[5], m.span(4))
            start = i
            while not lines[start].lstrip().startswith(("$$", "\\[", "\\begin")) and start > 0 and \
                    lines[start - 1].strip() and i - start < 20:
                start -= 1
            add(_Def(f"Eq. ({num})", start, col, "eq", end=i))
    return defs


def _table_rows_start(lines, i):
    j = i - 1
    while j >= 0 and not lines[j].strip() and i - j <= 2:
        j -= 1
    if j < 0 or "\t" not in lines[j]:
        return i
    while j - 1 >= 0 and "\t" in lines[j - 1]:
        j -= 1
    return j


def _algorithm_end(lines, i):
    end, last_step, j = i, 0, i + 1
    while j < len(lines):
        s = lines[j].strip()
        step = _ALG_STEP.match(lines[j])
        if not s:
            pass
        elif step:
            end, last_step = j, int(step[1]) if step[1] else last_step
        elif s.startswith("$$"):
            end = j
        else:  # running text: part of the algorithm only if its next step follows
            k = j + 1
            while k < len(lines) and (not lines[k].strip() or lines[k].strip().startswith("$$")):
                k += 1
            nxt = _ALG_STEP.match(lines[k]) if k < len(lines) else None
            if not (nxt and nxt[1] and int(nxt[1]) == last_step + 1):
                break
            end = j
        j += 1
    return end


def _proof_end(lines: list[str], start: int, stop: int) -> int | None:
    """The line (0-based) that closes the proof opened at line ``start`` (a QED mark with every proof opened
    since closed), or None when none does before line ``stop`` (the next heading)."""
    depth = 0
    for j in range(start, stop):
        if _PROOF.match(lines[j]):
            depth += 1
        if _QED.search(lines[j]):
            depth -= 1
            if depth <= 0:
                return j
    return None


def _statement_block_end(lines: list[str], start: int, limit: int) -> int:
    """The last line of a statement's own text: its paragraph and the display paragraphs right after it."""
    j = start
    while j + 1 <= limit and lines[j + 1].strip():
        j += 1
    end = j
    while True:
        k = end + 1
        while k <= limit and not lines[k].strip():
            k += 1
        if k > limit or not lines[k].lstrip().startswith(("$$", "\\[", "\\begin")):
            return end
        end = k
        while end + 1 <= limit and lines[end + 1].strip():
            end += 1


def _with_proofs(lines: list[str], defs: list[_Def], ends: dict) -> dict:
    """Statement ends (0-based, by index into ``defs``) extended over their proofs: a statement whose text is
    followed by a ``Proof`` (or ``Sketch``) paragraph runs past the QED mark that closes it (nested proofs counted)
    to the next statement or heading; a statement
    defined inside another's proof (a lemma stated in a step) is its own text and displays, or its own proof, and
    its lines belong to the enclosing proof too. A proof with no closing mark before the next heading keeps the
    statement's plain range."""
    out = dict(ends)
    heads = [d.line for d in defs if d.cls == "head"]
    enclosing: list[tuple[int, int]] = []  # (first, last line) of the open proofs
    for k, d in enumerate(defs):
        if d.cls != "stmt" or not d.label:
            continue
        stop = next((h for h in heads if h > d.line), len(lines))
        nested = any(a < d.line <= b for a, b in enclosing)
        proof = next((j for j in range(d.line + 1, ends[k] + 1) if _PROOF.match(lines[j])), None)
        closed = _proof_end(lines, proof, stop) if proof is not None else None
        if closed is not None:
            if nested:
                out[k] = closed
            else:  # to the next statement or heading after the proof (those inside it do not cut it)
                cut = next((e.line for e in defs[k + 1:] if e.line > closed and e.cls in ("head", "stmt")), len(lines))
                out[k] = max(ends[k], cut - 1)
            enclosing.append((proof, closed))
        elif nested:
            out[k] = _statement_block_end(lines, d.line, ends[k])
    return out


def _ranges(lines: list[str], defs: list[_Def]) -> dict[str, tuple[int, int]]:
    ends = {}
    for k, d in enumerate(defs):
        if not d.label or d.end is not None:
            continue
        end = len(lines) - 1
        for e in defs[k + 1:]:
            if e.cls == "head" and (d.cls == "stmt" or e.depth <= d.depth) or e.cls == "stmt" and d.cls == "stmt":
                end = e.line - 1
                break
        ends[k] = end
    ends = _with_proofs(lines, defs, ends)
    out = {}
    for k, d in enumerate(defs):
        if not d.label:
            continue
        end = d.end if d.end is not None else ends[k]
        while end > d.line and not lines[end].strip():
            end -= 1
        out[d.label] = (d.line + 1, end + 1)
    return out


def find_labels(text: str) -> dict[str, tuple[int, int]]:
    """Every numbered label defined in ``text`` -> its 1-based inclusive line range (see the module docstring for
    what counts as a definition and where a range ends), in the order of the text. ValueError for a non-str."""
    lines = _text_lines(text)
    return _ranges(lines, _scan(lines))


def _label_of(prefix, kw, item):
    if prefix is None:
        word = kw.rstrip(".")
        word = next((_KIND_WORD.get(w, w) for w in (word, word[:-1]) if w in _STMT_KINDS or w in _KIND_WORD), word)
        return f"{word} {item}"
    return f"Eq. ({item.strip('()')})" if prefix == "Eq. " else prefix + item


def label_references(text: str) -> list[tuple[int, int, int, str]]:
    """Every mention of a numbered label in ``text``: ``(line, col_start, col_end, label)`` with a 1-based line,
    0-based columns (end exclusive) and the label in the claims' spelling. Definitions count (a heading's number, an
    equation's tag, a caption's ``Figure 3``) as do cross references ("Theorem 4.1", "Thm. B.2", "Eqs. (5)-(7)",
    "Fig. 3", "Section 6", "§5", "Appendix A.3", "App. A.1,A.3"); a bare "(12)" counts when equation (12) is
    defined in the text and the mention is outside math and not an enumeration. The first item of a list spans its
    keyword; each further item (a range reports its two ends) spans itself. ValueError for a non-str."""
    lines = _text_lines(text)
    defs = _scan(lines)
    eqs = {d.label for d in defs if d.cls == "eq"}
    out = []
    for d in defs:
        if d.label and d.cls in ("head", "eq") and d.col[1] > d.col[0]:
            out.append((d.line + 1, d.col[0], d.col[1], d.label))
    for i, line in enumerate(lines):
        taken = [(a, b) for (ln, a, b, _l) in out if ln == i + 1]
        for kw_re, item_re, prefix in _KW_RES:
            for m in kw_re.finditer(line):
                if any(a < m.end() and m.start() < b for a, b in taken):
                    continue
                kw = m["kw"] if prefix is None else ""
                base = m.start("items")
                for k, it in enumerate(item_re.finditer(m["items"])):
                    a, b = (m.start() if k == 0 else base + it.start()), base + it.end()
                    out.append((i + 1, a, b, _label_of(prefix, kw, it.group(0))))
                taken.append(m.span())
        math = [mm.span() for mm in _MATH.finditer(line)]
        for m in _BARE_EQ.finditer(line):
            label, before = f"Eq. ({m[1]})", line[:m.start()].rstrip()
            if label not in eqs or not before or before[-1] in ".:!?" or \
                    any(a <= m.start() < b for a, b in math + taken):
                continue
            out.append((i + 1, m.start(), m.end(), label))
    return sorted(out)


def slug(label: str) -> str:
    """A filesystem-safe slug of a label: lower case, runs of other characters as one ``-`` ("Theorem 4.1" ->
    "theorem-4-1", "Eq. (12)" -> "eq-12", "2502.05076 Proposition 2.1" -> "2502-05076-proposition-2-1")."""
    if not isinstance(label, str):
        raise ValueError(f"label must be a str, got {type(label).__name__}")
    out = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    if not out:
        raise ValueError(f"label must contain a letter or a digit, got {label!r}")
    return out


_COLOURS = {"verified": "#2e7d32", "holds-empirically": "#558b2f", "stands": "#2e7d32", "refuted": "#c62828",
            "contradicted-empirically": "#d84315", "broken": "#c62828", "contradicted": "#d84315",
            "partly-broken": "#ad1457", "stands-with-gaps": "#ef6c00", "stands-with-imprecisions": "#f9a825",
            "stands-on-analogues": "#9ccc65", "inconclusive": "#b7bcc2", "undecided": "#757575",
            "not-run": "#ffffff"}


def _status_class(status: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", status.lower()).strip("-") or "unknown"


_KATEX_HEAD = ('<link rel="stylesheet" href="{k}katex.min.css"><script defer src="{k}katex.min.js"></script>'
         '<script defer src="{k}contrib/auto-render.min.js"></script><script>document.addEventListener('
         '"DOMContentLoaded",function(){{if(!window.renderMathInElement){{return;}}'
         'document.querySelectorAll("pre.paper > span").forEach(function(el){{renderMathInElement(el,{{delimiters:['
         '{{left:"$$",right:"$$",display:true}},{{left:"$",right:"$",display:false}}],throwOnError:false,'
         'strict:"ignore",ignoredClasses:["ln"]}});}});}});</script>')


def annotate(text: str, labels_status: dict[str, dict], *, marks: dict | None = None, back: str | None = None,
             math: str | None = None) -> str:
    """A self-contained HTML page of ``text``: each mention of a label in ``labels_status`` (``{label: {"status":
    ..., "href": ...}}``; href defaults to ``labels/<slug>.html``, relative to the page's folder) becomes a link
    ``<a class="ref status-<status>" href=... title=<status>>``; each line holds ``id="L<n>"`` and the line defining
    a label an anchor ``id="<slug>"``; a legend of the statuses heads the page.

    ``marks`` ({line: [{"claim", "status", "href", "finding": bool, "severity"}]}): the claims that are about that
    line (:func:`claim_places`); the line's span gets class ``marked`` (``finding`` too when one of them is a finding)
    and one ``<a class="mark status-<status>" data-claim=...>`` per claim after its number. ``back``: a link to the
    audit's index shown on top. ``math``: the folder (relative to the page) of a bundled KaTeX: the page then renders
    the text's ``$...$`` and ``$$...$$`` formulas, line by line, leaving a formula KaTeX cannot parse as its text
    (no error, no console message). ValueError for a malformed input."""
    lines = _text_lines(text)
    marks = {} if marks is None else marks
    if not isinstance(marks, dict) or not all(isinstance(k, int) and isinstance(v, list) for k, v in marks.items()):
        raise ValueError("marks must be a dict line (int) -> list of {'claim', 'status', 'href', ...}")
    if not isinstance(labels_status, dict):
        raise ValueError(f"labels_status must be a dict label -> {{'status', 'href'}}, got {type(labels_status).__name__}")
    for label, info in labels_status.items():
        if not isinstance(label, str) or not isinstance(info, dict) or not isinstance(info.get("status"), str) or \
                not isinstance(info.get("href", ""), str):
            raise ValueError(f"labels_status[{label!r}] must be a dict with a str 'status' (and a str 'href'), got {info!r}")
    refs: dict[int, list] = {}
    for ln, a, b, label in label_references(text):
        if label in labels_status:
            refs.setdefault(ln, []).append((a, b, label))
    anchors: dict[int, list] = {}
    for label, (first, _last) in find_labels(text).items():
        anchors.setdefault(first, []).append(label)
    statuses = sorted({info["status"] for info in labels_status.values()})
    css = ["body{font-family:sans-serif;margin:1em 2em}",
           "pre.paper{white-space:pre-wrap;overflow-wrap:anywhere;font-size:13px}",
           ".katex-display{overflow-x:auto;overflow-y:hidden;max-width:100%}",
           ".ln{color:#999;display:inline-block;width:4em;user-select:none}",
           "a.ref{text-decoration:none;border-bottom:2px solid #757575;color:inherit}",
           ".legend span{display:inline-block;margin-right:1em;padding:0 .4em;border-bottom:3px solid #757575}",
           ".marked{background:#f6f8fa}.finding{background:#ffebe9;outline:1px solid #ff818266}",
           "a.mark{display:inline-block;width:.8em;height:.8em;border-radius:50%;margin-right:2px;"
           "vertical-align:middle;border:1px solid #555;background:#b7bcc2}", ":target{background:#fff8c5}"]
    for st in statuses:
        colour = _COLOURS.get(st, "#757575")
        css.append(f".status-{_status_class(st)}{{border-bottom-color:{colour}!important;background:{colour}22}}")
    for st in sorted({str(m.get("status", "")) for ms in marks.values() for m in ms}):
        css.append(f"a.mark.status-{_status_class(st)}{{background:{_COLOURS.get(st, '#757575')}}}")
    if math is not None and not isinstance(math, str):
        raise ValueError(f"math must be a folder path (str) or None, got {type(math).__name__}")
    head = _KATEX_HEAD.format(k=html.escape(math, quote=True)) if math is not None else ""
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8"><title>Paper text with claim statuses'
           "</title>", "<style>" + "\n".join(css) + "</style>" + head + "</head><body>",
           '<div class="legend"><strong>Legend</strong> (underline: status of the label\'s claims): ' +
           "".join(f'<span class="status-{_status_class(st)}">{html.escape(st)}</span>' for st in statuses) +
           (" (no label has a status)" if not statuses else "") +
           ('; a dot after a line number is a claim about that line (red background: a finding)' if marks else "")
           + "</div>", '<pre class="paper">']
    if back:
        out.insert(-2, f'<p><a id="back" href="{html.escape(back, quote=True)}">&larr; back to the audit</a></p>')
    for n, line in enumerate(lines, 1):
        parts, pos = [], 0
        for a, b, label in sorted(refs.get(n, [])):
            if a < pos:
                continue
            info = labels_status[label]
            href = info.get("href") or f"labels/{slug(label)}.html"
            parts.append(html.escape(line[pos:a]))
            parts.append(f'<a class="ref status-{_status_class(info["status"])}" href="{html.escape(href, quote=True)}"'
                         f' title="{html.escape(info["status"], quote=True)}">{html.escape(line[a:b])}</a>')
            pos = b
        parts.append(html.escape(line[pos:]))
        ids = "".join(f'<a id="{slug(lb)}"></a>' for lb in anchors.get(n, []))
        here = marks.get(n, [])
        cls = (' class="marked finding"' if any(m.get("finding") for m in here) else ' class="marked"') if here else ""
        dots = "".join(_mark(m) for m in here)
        out.append(f'<span id="L{n}"{cls}><span class="ln">{n}</span>{dots}{ids}{"".join(parts)}</span>')
    out.append("</pre></body></html>")
    return "\n".join(out) + "\n"


def default_text_path() -> Path | None:
    """The v3 text of the paper when this machine has it: ``$RGR_VERIFY_PAPER_TEXT`` (which must then name a file:
    ValueError otherwise), else ``shared/paper/003_*.txt`` next to the checkout or inside it; None when absent."""
    from ..basics.settings import PAPER_TEXT_ENV, env as read_env

    env = read_env(PAPER_TEXT_ENV)
    if env:
        if not Path(env).is_file():
            raise ValueError(f"${PAPER_TEXT_ENV} must name the paper's text file, got {env!r} (no such file)")
        return Path(env)
    root = Path(__file__).resolve().parents[2]
    for cand in (root.parent / "shared" / "paper" / V3_TEXT_NAME, root / "shared" / "paper" / V3_TEXT_NAME):
        if cand.is_file():
            return cand
    return None


def claim_places(record) -> list[tuple[int, int]]:
    """The v3 lines (first, last; 1-based) a claim or claim record is about: the places of its ``supports`` edges
    (:data:`rgr_verify.claims.labels.SUPPORTS_AT`) and lines its stated values' notes cite ("L434", "line 7" of an
    algorithm is not a text line and is ignored), in order, without repeats."""
    from ..claims.labels import place_lines, supports_at

    get = (lambda k, d=None: record.get(k, d)) if isinstance(record, dict) else \
        (lambda k, d=None: getattr(record, k, d))
    at = get("supports_at")
    if at is None:
        try:
            at = supports_at(record)
        except (KeyError, TypeError, ValueError):
            at = {}
    out = [place_lines(p) for p in (at or {}).values() if place_lines(p)]
    stated = get("stated") if isinstance(record, dict) else get("expects")
    for st in (stated or {}).values():
        note = st.get("note") if isinstance(st, dict) else getattr(st, "note", "")
        for m in re.finditer(r"\bL(\d+)(?:-L(\d+))?\b", note or ""):
            out.append((int(m[1]), int(m[2] or m[1])))
    return list(dict.fromkeys(out))


def _mark(m: dict) -> str:
    """The marker of one claim on a line of the annotated paper."""
    esc = lambda v: html.escape(str(v), quote=True)  # noqa: E731
    tip = f"{m['claim']}: {m.get('status', '')}" + (f", {m['severity']}" if m.get("severity") else "")
    return (f'<a class="mark status-{_status_class(str(m.get("status", "")))}" href="{esc(m.get("href") or "")}" '
            f'data-claim="{esc(m["claim"])}" title="{esc(tip)}"></a>')


def _claim_nodes(c) -> tuple[str, set]:
    from ..claims.structure import node_of

    get = (lambda k, d=None: c.get(k, d)) if isinstance(c, dict) else (lambda k, d=None: getattr(c, k, d))
    cid, paper, ref = get("id"), get("paper", "2509.22840"), get("ref")
    if not isinstance(cid, str) or not isinstance(ref, str):
        raise ValueError(f"claims must be Claim objects (or dicts) with a str id and ref, got {c!r}")
    supports = get("supports") or ()
    nodes = {node_of(paper, ref)}
    for s in (supports,) if isinstance(supports, str) else supports:
        try:
            nodes.add(node_of(paper, s))
        except ValueError:
            nodes.add(s)
    return cid, nodes


def _norm(token: str) -> str:
    """A token of text or formula compared loosely: no $ { } \\ spaces or trailing punctuation ("m^{-3}$," ->
    "m^-3")."""
    return re.sub(r"[${}\\\s*]", "", token).strip(".,;:()")


def changed_tokens(old: str, new: str) -> tuple[list[str], list[str]]:
    """The whitespace-separated tokens a change replaces: (those of ``old`` that are gone, those of ``new`` that
    came), by a word-level difflib comparison."""
    a, b = old.split(), new.split()
    gone, came = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            gone += a[i1:i2]
        if tag in ("replace", "insert"):
            came += b[j1:j2]
    return gone, came


def _reads(c, tokens: list[str], numbers: set, lines: set) -> bool:
    """Whether claim ``c`` reads the changed text: a place of it (:func:`claim_places`) is a changed line, a changed
    formula token (3+ characters with a digit, ``^`` or ``_``) occurs in its statement or a stated value's note, or
    a number of the changed text is one of its numeric stated values."""
    get = (lambda k, d=None: c.get(k, d)) if isinstance(c, dict) else (lambda k, d=None: getattr(c, k, d))
    if any(lines & set(range(f, l + 1)) for f, l in claim_places(c)):
        return True
    stated = (get("stated") if isinstance(c, dict) else get("expects")) or {}
    notes, values = [], []
    for st in stated.values():
        notes.append((st.get("note") if isinstance(st, dict) else getattr(st, "note", "")) or "")
        values.append(st.get("value") if isinstance(st, dict) else getattr(st, "value", None))
    text = _norm(" ".join([get("statement") or "", *notes]))
    if any(t in text for t in tokens):
        return True
    return any(isinstance(v, (int, float)) and not isinstance(v, bool) and float(v) in numbers for v in values)


def paper_diff(old: str, new: str, claims, *, aliases: dict | None = None) -> list[dict]:
    """The numbered labels a change from text ``old`` to text ``new`` touches, with the claims bearing on each.

    A label is touched when its range in ``old`` holds a replaced or deleted line or an insertion point (difflib
    over lines), when its text differs from the text of the same label in ``new``, or when it exists in one text
    only. One dict per touched label, in the order of ``old`` (added labels last): ``{"label", "old_lines": [a, b]
    or None, "new_lines": [a, b] or None, "change": "edited" | "removed" | "added", "claims": [ids]}``; the claims
    are those whose ref label (:func:`rgr_verify.claims.structure.node_of`) or ``supports`` is the label (a claim of
    arXiv 2502.05076 never matches), the *readers* of the edit first: ``"readers"`` lists the claims of an edited
    label whose stated values or statements come from the changed text (a place of the claim, :func:`claim_places`,
    among the changed lines of the label; a changed formula token in its statement or a stated value's note; a
    replaced number equal to a stated value), then the others follow, each group sorted. Identical texts -> [].
    ValueError for a non-str text or a malformed claim.

    ``aliases`` (a label of ``new`` -> the claims' label, from the new version's label file,
    :mod:`rgr_verify.core.paper_versions`): labels renumbered in ``new``; their mentions are read as the claims' labels
    first, so that a renumbering alone touches nothing and an edited renumbered statement lists its claims."""
    if aliases:
        from ..core.paper_versions import renumber

        _text_lines(new, "new")  # a non-str is named as NEW
        new = renumber(new, aliases)
    a, b = _text_lines(old, "old"), _text_lines(new, "new")
    nodes = [_claim_nodes(c) for c in claims]
    la, lb = find_labels(old), find_labels(new)
    touched_old, inserts = set(), set()
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            touched_old.update(range(i1 + 1, i2 + 1))
        elif tag == "insert":
            inserts.add(i1)  # between old lines i1 and i1 + 1 (1-based)
    out = []
    by_id = {cid: c for c, (cid, _ns) in zip(claims, nodes)}
    gone, came = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            g, c = changed_tokens("\n".join(a[i1:i2]), "\n".join(b[j1:j2]))
            gone, came = gone + g, came + c
    tokens = sorted({t for t in map(_norm, gone + came) if len(t) >= 3 and re.search(r"[\d^_]", t)})
    numbers = {float(x) for t in gone for x in re.findall(r"-?\d+(?:\.\d+)?", _norm(t))}
    changed_lines = touched_old | {k for k in inserts if k} | {k + 1 for k in inserts}

    def row(label, change):
        ro, rn = la.get(label), lb.get(label)
        ids = sorted(cid for cid, ns in nodes if label in ns)
        here = changed_lines & set(range(ro[0], ro[1] + 1)) if ro else set()
        readers = [cid for cid in ids if _reads(by_id[cid], tokens, numbers, here)] if change == "edited" else []
        return {"label": label, "old_lines": list(ro) if ro else None, "new_lines": list(rn) if rn else None,
                "change": change, "claims": readers + [cid for cid in ids if cid not in readers], "readers": readers}

    for label, (f, l) in la.items():
        if label not in lb:
            out.append(row(label, "removed"))
        elif any(f <= k <= l for k in touched_old) or any(f <= k <= l for k in inserts) or \
                a[f - 1:l] != b[lb[label][0] - 1:lb[label][1]]:
            out.append(row(label, "edited"))
    out.extend(row(label, "added") for label in lb if label not in la)
    return out


def _load_v3() -> dict[str, tuple[int, int]]:
    from ..core.paper_versions import label_set

    # the v3 label file (rgr_verify.core.paper_versions), its lines generated by find_labels from the v3 text
    return {label: rng for label, rng in label_set("v3").lines.items() if rng}


V3_LABELS: dict[str, tuple[int, int]] = _load_v3()
