"""Which sentences of the paper's experiments the audit decides: a coverage map derived from the paper's text.

:func:`result_sentences` reads the v3 text (the user's file: the package ships no sentence of the paper) and returns
every sentence of Secs. 6 and 7 and App. A, and of every figure and table caption, that states a result or a trend
(:func:`states_result`: a sentence with a word of outcome or comparison, not one that only describes the protocol).
Each has a key, ``L<line>.s<k>`` (its line in the v3 text and its place in that line), and a fingerprint of its
normalised words, so that an edited sentence is seen as a new one.

The map itself is data, ``rgr_verify/data/coverage-2509.22840-v3.json``: for each key its fingerprint and either the
claims that decide it at the paper's scale (``claims``) or why no claim does (``reason``, one of
:data:`REASON_KINDS` with a sentence). :func:`coverage_rows` joins the two: each sentence with its claims and their
statuses, or its reason, or "uncovered" when the data says nothing of it (a new sentence, or an edited one, whose
fingerprint no longer matches). :func:`coverage_markdown` writes ``docs/coverage.md``, which names sentences by line
and key only; the site's coverage page shows the sentences themselves when the text is on the machine.

The theory sections are mapped by their numbered results (:func:`label_rows`): every theorem, lemma, proposition,
corollary, construction and algorithm of the text (:data:`RESULT_KINDS`; the labels of
:func:`rgr_verify.audit.papertext.find_labels`, or the shipped v3 label table when the text is not on the machine) with the
claims that bear on it (a claim's ``supported`` labels) and their statuses, or "uncovered".
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources

__all__ = ["Sentence", "SCOPE", "REASON_KINDS", "COVERAGE_FILE", "split_sentences", "states_result",
           "result_sentences", "load_coverage", "coverage_rows", "recorded_rows", "coverage_markdown", "uncovered",
           "new_uncovered", "RESULT_KINDS", "label_rows"]

COVERAGE_FILE = "coverage-2509.22840-v3.json"
# The parts of the paper whose sentences are mapped: the experiments and their appendix, and every caption.
SCOPE = ("Sec. 6", "Sec. 7", "App. A")
REASON_KINDS = {
    "protocol": "describes the set-up or the method; it states no result",
    "pointer": "points at a figure, table or section that states the result (mapped there)",
    "repeats": "repeats a result stated (and mapped) elsewhere; the key of that sentence is given",
    "not-reproducible": "needs what the audit cannot run or obtain (the reason says what)",
    "interpretation": "an explanation or a conjecture, not a measurable statement",
    "quick-only": "decided by a quick analogue only; the paper-scale claim is missing (the reason says why)",
    "gap": "a measurable result no claim decides yet; the reason names the claim that would (a gap of the audit)",
}

_ABBREV = re.compile(r"\b(?:Figs?|Eqs?|Secs?|App|Apps|Tab|Thm|Lem|Cor|Prop|Def|Alg|e\.g|i\.e|vs|cf|resp|approx|"
                     r"et al|resp|No|Ref|Refs)\.$")
_MATHSPAN = re.compile(r"\$\$.*?\$\$|\$[^$]*\$")
# Words of an outcome or a comparison: a sentence with none of them does not state a result or a trend.
_CUE = re.compile(
    r"\b(?:increas\w*|decreas\w*|grow\w*|grew|shrink\w*|shift\w*|outperform\w*|exceed\w*|surpass\w*|succeed\w*|"
    r"fail\w*|achiev\w*|reach\w*|match\w*|consistent|confirm\w*|agree\w*|indicat\w*|suggest\w*|reveal\w*|"
    r"show\w*|observe\w*|find|found|scal\w*|linear\w*|logarithm\w*|sublinear\w*|superlinear\w*|quadratic\w*|"
    r"higher|lower|larger|smaller|more|fewer|less|better|worse|best|worst|advantage\w*|benefit\w*|improv\w*|"
    r"degrad\w*|sharp\w*|transition\w*|plateau\w*|saturat\w*|perfect\w*|near-perfect|bimodal\w*|"
    r"counterproductive|depend\w*|independent\w*|robust\w*|stable|unstable|collapse\w*|peak\w*|optimal\w*|"
    r"requir\w*|need\w*|necessar\w*|sufficient|insufficient|tracks?|tracked|fits?|fitted|"
    r"correlat\w*|trend\w*|monoton\w*|roughly|approximately|consistently|clearly|significant\w*|"
    r"beneficial|govern\w*|artifacts?|discrepanc\w*|appears?|slopes?)\b",
    re.I)
# Sentences that only say what was done: the protocol's verbs at the start, with no outcome word after them.
_PROTOCOL_START = re.compile(r"^(?:We (?:train|use|set|fix|sweep|run|draw|sample|define|report|evaluate|vary|"
                             r"probe|include|consider|measure|compute|initiali[sz]e|instantiate|conduct)|Each |"
                             r"For each |Training |All runs )", re.I)


@dataclass(frozen=True)
class Sentence:
    """One sentence of the v3 text: its line (1-based), its place in the line (0-based), its key ``L<line>.s<k>``,
    the fingerprint of its normalised words (12 hex digits), the label it lies in, and its text."""

    line: int
    index: int
    key: str
    fingerprint: str
    label: str
    text: str


def split_sentences(line: str) -> list[str]:
    """The sentences of one line of the text: split after ".", "!" or "?" followed by a space and a capital letter,
    a parenthesis or a formula, except after an abbreviation (Fig., Eq., e.g., ...) or inside a formula."""
    masked, spans = [], []
    pos = 0
    for m in _MATHSPAN.finditer(line):
        masked.append(line[pos:m.start()])
        masked.append("\0" * (m.end() - m.start()))
        spans.append(m.span())
        pos = m.end()
    masked.append(line[pos:])
    flat = "".join(masked)
    out, start = [], 0
    for m in re.finditer(r"[.!?](?=\s+[A-Z(\0*])", flat):
        head = flat[start:m.end()]
        if _ABBREV.search(head) or re.search(r"\d\.$", head) and re.search(r"\d$", flat[:m.start()]) is None:
            continue
        piece = line[start:m.end()].strip()
        if piece:
            out.append(piece)
        start = m.end()
    rest = line[start:].strip()
    if rest:
        out.append(rest)
    return out


def _fingerprint(text: str) -> str:
    words = re.sub(r"\s+", " ", re.sub(r"[*_`]", "", text)).strip().lower()
    return hashlib.sha256(words.encode("utf-8")).hexdigest()[:12]


def states_result(sentence: str) -> bool:
    """Whether a sentence states a result or a trend: it has a word of outcome or comparison (increases, shifts,
    outperforms, fails, sharp, near-perfect, requires, ...) outside its formulas, and it is not a sentence that
    only says what was done ("We train ...", "Each configuration ...") with no such word after its first clause; or
    it is a displayed fit (a ``$$...$$`` line with an approximation: the fitted laws of Sec. 6 and App. A.3)."""
    if sentence.strip().startswith("$$") and "\\approx" in sentence:
        return True  # a displayed fit (D_K* ~ 1.19 m log m / d_model): its numbers are a result
    words = _MATHSPAN.sub(" ", sentence)
    if not _CUE.search(words):
        return False
    if _PROTOCOL_START.search(words.strip("* ")):
        tail = re.split(r"[;:,]", words, maxsplit=1)
        return len(tail) > 1 and bool(_CUE.search(tail[1]))
    return True


def _scope_ranges(text: str) -> list[tuple[str, int, int]]:
    from .papertext import find_labels

    labels = find_labels(text)
    out = [(lab, *labels[lab]) for lab in SCOPE if lab in labels]
    out += [(lab, *rng) for lab, rng in labels.items() if lab.startswith(("Figure ", "Table "))]
    return out


def result_sentences(text: str) -> list[Sentence]:
    """Every sentence in :data:`SCOPE` and every caption that :func:`states_result`, in line order. A sentence in
    two ranges (a caption inside Sec. 6) is listed once, under the narrower label (the caption)."""
    if not isinstance(text, str):
        raise ValueError(f"text must be the paper's text (str), got {type(text).__name__}")
    lines = text.splitlines()
    where: dict[int, tuple[str, int]] = {}
    for lab, first, last in _scope_ranges(text):
        for n in range(first, last + 1):
            if n not in where or (last - first) < where[n][1]:
                where[n] = (lab, last - first)
    out = []
    for n in sorted(where):
        if n > len(lines):
            continue
        for k, s in enumerate(split_sentences(lines[n - 1])):
            if states_result(s):
                out.append(Sentence(n, k, f"L{n}.s{k}", _fingerprint(s), where[n][0], s))
    return out


def load_coverage(path=None) -> dict:
    """The coverage data (``{"paper": ..., "sentences": {key: {"fingerprint", "claims" | "reason", ...}}}``):
    the package's file, or ``path``. ValueError naming the key of a malformed entry."""
    if path is None:
        raw = resources.files("rgr_verify").joinpath("data", COVERAGE_FILE).read_text(encoding="utf-8")
    else:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
    data = json.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("sentences"), dict):
        raise ValueError(f"{COVERAGE_FILE}: must hold a 'sentences' object")
    for key, e in data["sentences"].items():
        if not re.fullmatch(r"L\d+\.s\d+", key) or not isinstance(e, dict):
            raise ValueError(f"{COVERAGE_FILE}: entry {key!r} must be keyed L<line>.s<k> and be an object")
        if not isinstance(e.get("fingerprint"), str):
            raise ValueError(f"{COVERAGE_FILE}: entry {key!r} has no fingerprint")
        claims, reason = e.get("claims"), e.get("reason")
        if (claims is None) == (reason is None):
            raise ValueError(f"{COVERAGE_FILE}: entry {key!r} must have either 'claims' or 'reason'")
        if claims is not None and (not isinstance(claims, list) or not claims or
                                   not all(isinstance(c, str) for c in claims)):
            raise ValueError(f"{COVERAGE_FILE}: entry {key!r}: 'claims' must be a non-empty list of claim ids")
        if reason is not None and (not isinstance(reason, dict) or reason.get("kind") not in REASON_KINDS
                                   or not isinstance(reason.get("why"), str) or not reason["why"].strip()):
            raise ValueError(f"{COVERAGE_FILE}: entry {key!r}: 'reason' must be {{'kind': one of "
                             f"{', '.join(REASON_KINDS)}, 'why': a sentence}}")
    results = data.get("results", {})
    if not isinstance(results, dict) or not all(
            isinstance(e, dict) and isinstance(e.get("via"), list) and e["via"] and isinstance(e.get("why"), str)
            for e in results.values()):
        raise ValueError(f"{COVERAGE_FILE}: 'results' must map a numbered result to {{'via': [labels], 'why': "
                         "a sentence}}")
    return data


def coverage_rows(sentences: list[Sentence], data: dict, statuses: dict[str, str],
                  deviations: dict | None = None) -> list[dict]:
    """One row per sentence: key, line, label, and either its claims (``[(id, status)]``; a claim id the audit does
    not know is an error), its reason, or ``uncovered`` (no entry, or the entry's fingerprint is another
    sentence's: the text changed). ``deviations`` ({claim id: [(evidence, how it departs from the paper's
    protocol)]}): a covered row lists those of its claims (``deviations``), so the map marks the sentences that rest
    on such a sweep."""
    rows = []
    for s in sentences:
        e = data["sentences"].get(s.key)
        row = {"key": s.key, "line": s.line, "label": s.label, "fingerprint": s.fingerprint, "text": s.text}
        if e is None or e["fingerprint"] != s.fingerprint:
            row["state"] = "uncovered"
            row["why"] = "no entry" if e is None else "the sentence changed since it was mapped"
        else:
            row.update(_decided(s.key, e, statuses, deviations))
        rows.append(row)
    return rows


def _decided(key: str, e: dict, statuses: dict, deviations: dict | None = None) -> dict:
    """A mapped entry's part of a row: its claims with their statuses (a claim the audit does not have is an
    error), or its reason."""
    if "claims" not in e:
        return {"state": "reason", "reason": e["reason"]}
    unknown = [c for c in e["claims"] if c not in statuses]
    if unknown:
        raise ValueError(f"{COVERAGE_FILE}: entry {key!r} names claims the audit does not have: {unknown}")
    devs = sorted({d for c in e["claims"] for d in (deviations or {}).get(c, ())})
    return {"state": "covered", "claims": [(c, statuses[c]) for c in e["claims"]], "deviations": devs}


def recorded_rows(data: dict, statuses: dict[str, str], deviations: dict | None = None) -> list[dict]:
    """The rows of the map as the data records them (key, line, label, claims or reason), without the paper's text:
    what ``docs/coverage.md`` is generated from on a machine without the text."""
    rows = []
    for key, e in sorted(data["sentences"].items(), key=lambda kv: tuple(map(int, re.findall(r"\d+", kv[0])))):
        line = int(key[1:].split(".")[0])
        rows.append({"key": key, "line": line, "label": e.get("label") or "?", "fingerprint": e["fingerprint"],
                     "text": None, **_decided(key, e, statuses, deviations)})
    return rows


def new_uncovered(text: str, data: dict) -> list[Sentence]:
    """The sentences of ``text`` that state a result and whose words no entry of the map has (by fingerprint, so
    moved lines do not count): what a new version of the paper adds that the audit has not looked at."""
    known = {e["fingerprint"] for e in data["sentences"].values()}
    return [s for s in result_sentences(text) if s.fingerprint not in known]


def uncovered(rows: list[dict]) -> list[dict]:
    """The rows neither covered by a claim nor given a reason."""
    return [r for r in rows if r["state"] == "uncovered"]


# The numbered results of the paper (labels by their first word): mapped by the claims that bear on them.
RESULT_KINDS = ("Theorem", "Lemma", "Proposition", "Corollary", "Construction", "Algorithm")


def label_rows(labels: dict, claims, statuses: dict[str, str], data: dict | None = None) -> list[dict]:
    """One row per numbered result of ``labels`` ({label: (first line, last line)}, in text order): its label, first
    line, and the paper-scale claims (not ``-quick``) whose ``supported`` labels include it, with their statuses
    (``state`` "covered"), or ``state`` "uncovered" when none does. A result the map's ``results`` entry ties to
    others (a construction stated with the theorems that give its guarantee) is covered by their claims, and says
    ``via`` which."""
    by_label: dict = {}
    for c in claims:
        if not c.id.endswith("-quick"):
            for lab in c.supported:
                by_label.setdefault(lab, []).append(c.id)
    rows = []
    for lab, (first, _last) in sorted(labels.items(), key=lambda kv: kv[1][0]):
        if lab.split(" ")[0] not in RESULT_KINDS:
            continue
        ids = by_label.get(lab, [])
        via = [] if ids else ((data or {}).get("results", {}).get(lab, {}).get("via") or [])
        for other in via:
            ids += [c for c in by_label.get(other, []) if c not in ids]
        rows.append({"label": lab, "line": first, "state": "covered" if ids else "uncovered", "via": via,
                     "claims": [(c, statuses.get(c, "not recorded")) for c in ids]})
    return rows


def coverage_markdown(rows: list[dict], results: list[dict] | None = None) -> str:
    """``docs/coverage.md``: the counts, then one table per label, each sentence by line and key (never its text)
    with its claims and their statuses, or its reason."""
    n = len(rows)
    counts = {s: sum(r["state"] == s for r in rows) for s in ("covered", "reason", "uncovered")}
    out = ["# Coverage of the paper's experimental statements (generated)", "",
           "Generated by `rgr-verify coverage --write docs/coverage.md` from the v3 text and "
           f"`rgr_verify/data/{COVERAGE_FILE}`; do not edit by hand. Every sentence of Secs. 6 and 7 and App. A, "
           "and of every figure and table caption, that states a result or a trend (`rgr_verify.audit.coverage."
           "states_result`), by its line in the v3 text and its place in the line (`L<line>.s<k>`); the sentences "
           "themselves are in the paper (the site's coverage page shows them where the text is on the machine).",
           "", f"{n} sentences: {counts['covered']} decided by claims, {counts['reason']} with a reason no claim "
           f"decides them, {counts['uncovered']} uncovered.", "",
           "Reasons: " + "; ".join(f"*{k}*: {v}" for k, v in REASON_KINDS.items()) + ".", ""]
    by_label: dict[str, list] = {}
    for r in rows:
        by_label.setdefault(r["label"], []).append(r)
    for label, rs in by_label.items():
        out += [f"## {label}", "", "| sentence | decided by (status) / reason |", "| --- | --- |"]
        for r in rs:
            if r["state"] == "covered":
                what = ", ".join(f"`{c}` ({st})" for c, st in r["claims"])
                if r.get("deviations"):
                    what += "; rests on a sweep that departs from the paper's protocol: " + "; ".join(
                        f"`{ev}`, {how}" for ev, how in r["deviations"])
            elif r["state"] == "reason":
                what = f"*{r['reason']['kind']}*: {r['reason']['why']}"
            else:
                what = f"**uncovered** ({r['why']})"
            out.append(f"| {r['key']} | {what} |")
        out.append("")
    if results:
        n_cov = sum(r["state"] == "covered" for r in results)
        out += ["## Numbered results (theory)", "",
                f"{len(results)} numbered results (theorems, lemmas, propositions, corollaries, constructions, algorithms): {n_cov} with "
                f"claims that bear on them, {len(results) - n_cov} uncovered. A claim bears on a result when the "
                "result is among its supported labels: it checks the result, a step of its proof, a formula or a "
                "construction it states.", "", "| result | line | claims (status) |", "| --- | --- | --- |"]
        for r in results:
            what = (", ".join(f"`{c}` ({st})" for c, st in r["claims"]) if r["claims"] else "**uncovered**")
            if r.get("via"):
                what = f"via {', '.join(r['via'])}: " + what
            out.append(f"| {r['label']} | {r['line']} | {what} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"
