"""Paper labels: the id prefix a claim's reference implies, and the part of the paper that holds the label.

Every claim lives in the part of the paper its ``ref`` names (``paper_<part>.py``, or a ``paper_<part>/`` package
split by topic) and its id starts with the one prefix its label implies. The rule, in :data:`PREFIX_RULE` and in
``docs/claims-index.md``, is checked for every claim by ``properties/test_claims_layout.py``.

Where the paper makes each ``supports`` edge of a claim (the sentence that relates the claim's statement to the
label it supports) is :data:`SUPPORTS_AT`: a line of the v3 text, never the paper's words.
"""

from __future__ import annotations

import re

from ..core.paper_versions import CANONICAL_VERSION, label_set
from .base import FACTS_PAPER, RGR_PAPER, Claim, paper_parts

__all__ = ["label_prefix", "label_part", "module_part", "placement_errors", "PART_TITLES", "PREFIX_RULE",
           "SUPPORTS_AT", "OTHER_PLACES", "check_place", "place_lines", "place_within", "supports_at"]

_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8}
_KINDS = {"Theorem": "thm", "Lemma": "lem", "Corollary": "cor", "Proposition": "prop", "Definition": "def",
          "Example": "ex", "Remark": "rem"}
# Where each numbered label sits (the part whose text holds or presents it) is data: the canonical version's label
# file (rgr_verify/data/labels-2509.22840-v3.json, read by rgr_verify.core.paper_versions), not code.

PART_TITLES = {"abstract": "Abstracts", "sec1": "Sec. 1", "sec2": "Sec. 2", "sec3": "Sec. 3", "sec4": "Sec. 4",
               "sec5": "Sec. 5", "sec6": "Sec. 6", "sec7": "Sec. 7", "sec8": "Sec. 8", "sec9": "Sec. 9",
               "sec10": "Sec. 10", "appa": "App. A", "appb": "App. B", "appc": "App. C", "appd": "App. D",
               "facts": "arXiv 2502.05076 (Paying Attention to Facts)", "xpaper": "Cross-paper"}

PREFIX_RULE = """\
A claim's id starts with the prefix its `ref` (the paper's label) implies, and the claim lives in the part of the
paper that holds that label: `rgr_verify/claims/paper_<part>.py`, or a package `paper_<part>/` split by topic.

| label | id prefix | part |
| --- | --- | --- |
| `Sec. 5`, `Sec. 6.1` | `sec5-`, `sec61-` | the section (`sec5`, `sec6`) |
| `App. C`, `App. B.2` | `appc-`, `appb2-` | the appendix (`appc`, `appb`) |
| `Theorem 4.1`, `Lemma B.3`, `Corollary B.6`, `Proposition 8.4`, `Definition 9.1` | `thm41-`, `lemb3-`, `corb6-`, `prop84-`, `def91-` | the section or appendix of the number (`sec4`, `appb`, ...) |
| `Eq. (22)`, `Eqs. (15)-(16)` | `eq22-`, `eq15-` (first number) | where the equation is (in v3: (1)-(2) `sec5`, (3)-(4) `sec7`, (5)-(22) `sec8`, (23)-(29) `sec9`, (30)-(32) `appa`, (33) `appb`) |
| `Figure 3`, `Figures 3-4` | `fig3-` (first number) | where the figure is presented (in v3: 1-4 `sec6`, 5-7 `sec7`, 8-13 `appa`) |
| `Table 2` | `table2-` | in v3: 1-2 `appa` (App. A.2) |
| `Algorithm 1` | `alg1-` | in v3: 1 `sec4`, 2 `sec8`, 3-5 `appb` |
| `Construction I` | `constr1-` (Roman numeral as a number) | in v3: I-II `sec4`, III-IV `appb` |
| `Abstract`, `OpenReview abstract` | `abstract-`, `openreview-` | `abstract` |
| arXiv 2502.05076: `Proposition 2.1`, `Example 2.4`, `Eq. (9)`, `Figure 4`; `Summary` | `facts-prop21-`, `facts-ex24-`, `facts-eq9-`, `facts-fig4-`; `facts-` | `facts` (one part, split by topic) |
| cross-paper claims (`paper` names both papers) | `xpaper-` | `xpaper` |

The part of every numbered label is data, not code: the label file of the canonical version
(`rgr_verify/data/labels-2509.22840-v3.json`, one file per version, read by `rgr_verify.core.paper_versions`); a `Remark`
takes the prefix `rem`, an appendix E-H `appe`-`apph`. The rest of an id is free kebab-case words (`-sym-` marks a symbolic check by convention). A renamed id changes its
seed (`claim_seed` hashes the id), so ids are renamed only to follow this rule.
"""

_LABEL = re.compile(
    r"^(?:(?P<sec>Sec)\. (?P<secnum>\d+(?:\.\d+)*)|(?P<app>App)\. (?P<applet>[A-H])(?:\.(?P<appnum>\d+(?:\.\d+)*))?|"
    r"(?P<kind>Theorem|Lemma|Corollary|Proposition|Definition|Remark|Example) (?P<major>[0-9A-H]+)\.(?P<minor>\d+)|"
    r"Eqs?\. \((?P<eq>\d+)\)|Figures? (?P<fig>\d+)|Table (?P<table>\d+)|Algorithm (?P<alg>\d+)|"
    r"Construction (?P<constr>VIII|VII|VI|IV|V|III|II|I)\b|(?P<openreview>OpenReview abstract)|"
    r"(?P<abstract>Abstract)|(?P<summary>Summary))")


def _parse(ref: str):
    if not isinstance(ref, str):
        raise ValueError(f"ref must be a paper label such as 'Sec. 3' or 'Theorem 4.1', got {ref!r}")
    m = _LABEL.match(ref)
    if m is None:
        raise ValueError(f"ref must start with a paper label such as 'Sec. 3' or 'Theorem 4.1', got {ref!r}")
    return m


def _single_paper(paper: str) -> str | None:
    parts = paper_parts(paper)
    return parts[0] if len(parts) == 1 else None


def label_prefix(ref: str, paper: str = RGR_PAPER) -> str:
    """The id prefix (without its trailing ``-``) that a claim with reference ``ref`` about ``paper`` must carry.

    Examples: ``"Theorem 4.1"`` -> ``"thm41"``, ``"Eqs. (15)-(16)"`` -> ``"eq15"``, ``"App. B.2"`` -> ``"appb2"``,
    ``"Construction I"`` -> ``"constr1"``; a claim of arXiv 2502.05076 -> ``"facts-<label prefix>"`` (``"facts"`` for
    ``"Summary"``); a cross-paper claim -> ``"xpaper"``. ValueError for an unknown paper or a ref without a label.
    """
    single = _single_paper(paper)
    if single is None:
        return "xpaper"
    m = _parse(ref)
    if single == FACTS_PAPER:
        return "facts" if m["summary"] else "facts-" + _prefix(m)
    if m["summary"]:
        raise ValueError(f"'Summary' is a label of {FACTS_PAPER} only, got it for {paper}")
    return _prefix(m)


def _prefix(m) -> str:
    if m["sec"]:
        return "sec" + m["secnum"].replace(".", "")
    if m["app"]:
        return "app" + m["applet"].lower() + (m["appnum"] or "").replace(".", "")
    if m["kind"]:
        return _KINDS[m["kind"]] + m["major"].lower() + m["minor"]
    for key, word in (("eq", "eq"), ("fig", "fig"), ("table", "table"), ("alg", "alg")):
        if m[key]:
            return word + m[key]
    if m["constr"]:
        return f"constr{_ROMAN[m['constr']]}"
    return "openreview" if m["openreview"] else "abstract"


def label_part(ref: str, paper: str = RGR_PAPER, *, version: str = CANONICAL_VERSION) -> str:
    """The part of the paper that holds the label of ``ref``: ``"sec4"``, ``"appb"``, ``"abstract"``, ``"facts"``
    (every label of arXiv 2502.05076) or ``"xpaper"`` (a cross-paper claim); for arXiv 2509.22840 it is read from
    the label file of ``version`` (:mod:`rgr_verify.core.paper_versions`). ValueError as :func:`label_prefix`, or for
    a label that version does not have."""
    single = _single_paper(paper)
    if single is None:
        return "xpaper"
    m = _parse(ref)
    if single == FACTS_PAPER:
        return "facts"
    if m["summary"]:
        raise ValueError(f"'Summary' is a label of {FACTS_PAPER} only, got it for {paper}")
    if m["openreview"] or m["abstract"]:
        return "abstract"
    return label_set(version).part(_node(m))


def _node(m) -> str:
    """The label a parsed reference names, spelled as the label files spell it."""
    if m["eq"]:
        return f"Eq. ({m['eq']})"
    if m["fig"]:
        return f"Figure {m['fig']}"
    return m.group(0)


def module_part(module: str) -> str | None:
    """The part a claims module belongs to: ``rgr_verify.claims.paper_sec4.theorem41`` -> ``"sec4"``,
    ``rgr_verify.claims.xpaper`` -> ``"xpaper"``; None for a module outside the claims modules."""
    if not isinstance(module, str):
        raise ValueError(f"module must be a dotted module name, got {module!r}")
    prefix = __package__ + "."
    if not module.startswith(prefix):
        return None
    top = module[len(prefix):].split(".")[0]
    if top == "xpaper":
        return "xpaper"
    return top[len("paper_"):] if top.startswith("paper_") else None


def placement_errors(claims) -> list[str]:
    """One line per claim whose id does not carry its label's prefix or whose check lives outside its part."""
    errors = []
    for c in claims:
        if not isinstance(c, Claim):
            raise ValueError(f"claims must hold Claim objects, got {c!r}")
        prefix = label_prefix(c.ref, c.paper)
        if not c.id.startswith(prefix + "-"):
            errors.append(f"{c.id}: ref {c.ref!r} needs the id prefix {prefix + '-'!r}")
        elif prefix == "facts" and re.match(r"^facts-(prop|ex|def|eq|fig|sec)\d", c.id):
            errors.append(f"{c.id}: ref 'Summary' has no label, but the id names one")
        part = label_part(c.ref, c.paper)
        where = module_part(getattr(c.check, "__module__", "") or "")
        if where != part:
            errors.append(f"{c.id}: ref {c.ref!r} belongs to part {part!r}, but its check is in "
                          f"{getattr(c.check, '__module__', '?')}")
    return errors


# --- where the paper makes each supports edge -------------------------------------------------------------------

_PLACE = re.compile(r"^L(\d+)(?:-L(\d+))?$")
# Places in the other texts of shared/paper, named by their label (they have no line numbers of the v3 text).
OTHER_PLACES = ("OpenReview abstract", "Summary")

# claim id -> {label it supports: the place of the paper that makes the edge}. A place is a line of the v3 text
# ("L528") or a range ("L995-L999"), never the paper's words. Filled for every supports edge of a finding and of the
# claims whose edges the review of 2026-11-28 questioned; properties/test_rollups.py checks each place against the
# text (inside the label, its section, or the claim's own label, or mentioning the label).
SUPPORTS_AT = {
    # findings
    "sec1-sym-intro-general-graphs-log": {"Theorem B.9": "L37"},  # Sec. 1's constructions paragraph restates B.9
    "sec1-softmax-length2-construction": {"Theorem 8.1": "L37"},  # Sec. 1 calls Sec. 8's budget sufficient for RGR
    "constr1-normalised-margin-26": {"Definition 9.1": "L528", "Theorem 9.2": "L528"},  # "upper bounds ... constant
    # margins, so the comparison is like for like"
    "def91-constructions-normalised-margin": {"Theorem 9.2": "L528"},
    "thm41-hypotheses-at-paper-sizes": {"Sec. 6.1": "L190"},  # Sec. 6.1 explains its deviations by the
    # constructions' precondition d_model >~ c0 log m (Theorem 4.1 itself, asymptotic, is not touched: second review
    # of 2026-11-28)
    "thm41-fixed-points-self-pair": {"Theorem B.2": "L946"},  # App. B.2 restates Theorem 4.1 as Theorem B.2
    "eq1-n3-sqrt-dk": {"Sec. 5": "L150", "Proposition 8.4": "L508"},  # Sec. 5 plugs B = d_model into (1);
    # Proposition 8.4's sketch takes N_3 from (1)
    "thm81-eq11-target-absent": {"Theorem 8.1": "L388"},  # Step 2, Eq. (11)
    "eq11-sym-target-absent": {"Theorem 8.1": "L388"},
    "thm81-step3-exchangeability": {"Theorem 8.1": "L404"},  # Step 3(i), Eq. (14)
    "lem83-application-exp-logits": {"Theorem 8.1": "L424"},  # Step 3 applies Lemma 8.3 to exp(L)
    "thm81-step3-background-concentration": {"Theorem 8.1": "L436"},  # Eq. (16)
    "thm81-sym-failure-probability": {"Theorem 8.1": "L434"},  # Step 3's union bound to 1 - m^-3
    "prop84-sym-uniform-over-contexts": {"Proposition 8.4": "L490"},  # "uniformly over all contexts"
    "eq22-sym-single-larger-compressive": {"Proposition 8.4": "L504-L506"},
    "sec9-sym-binomial-rate-equivalence": {"Theorem 9.2": "L544"},  # Eq. (24)'s rewrite
    "sec9-sym-regime-dense": {"Theorem 9.2": "L603"},  # the dense-regime bullet
    "thmb1-sym-union-constant": {"Theorem B.1": "L940"},
    "thmb2-n1-mean-zero": {"Theorem B.2": "L999"},
    "thmb2-n2-mean-zero": {"Theorem B.2": "L1003"},
    "thmb2-sym-n1-n2-means": {"Theorem B.2": "L999-L1003"},
    "lemb3-sym-leakage-identity": {"Lemma B.3": "L971"},
    "lemb3-fixed-points-self-correlation": {"Theorem B.2": "L995"},  # B.2's proof applies Lemma B.3 to the noise
    "corb7-sym-square-le-sum": {"Corollary B.7": "L1132"},
    "corb7-sym-expectations": {"Corollary B.7": "L1136"},
    "corb10-sym-heads-from-theorem-b9": {"Corollary B.10": "L1201"},  # "immediate from Theorem B.9"
    "thmb9-sym-union-event-count": {"Theorem B.9": "L1191"},
    "appb1-softmax-threshold-identical": {"App. B.1": "L942"},  # App. B.1 points to App. C for softmax
    # formula comparisons that the paper states as tightness (what def91 undercuts)
    "thmb2-sym-budget-matches-lower-bound": {"Theorem 9.2": "L1047"},
    "corb10-sym-matches-lower-bound": {"Theorem 9.2": "L1201"},
    "openreview-sym-theta": {"Theorem 9.2": "OpenReview abstract"},
}


def check_place(place: str) -> str:
    """``place`` when it names a place of the paper: a line of the v3 text ("L528"), a range of lines ("L995-L999",
    first < last) or the label of another text (:data:`OTHER_PLACES`); ValueError otherwise."""
    if not isinstance(place, str):
        raise ValueError(f"a place must be a v3 line such as 'L528', got {place!r}")
    if place in OTHER_PLACES:
        return place
    m = _PLACE.match(place)
    if m is None or int(m[1]) < 1 or (m[2] is not None and int(m[2]) <= int(m[1])):
        raise ValueError(f"a place must be a v3 line 'L<n>' (n >= 1), a range 'L<a>-L<b>' (a < b) or one of "
                         f"{', '.join(OTHER_PLACES)}, got {place!r}")
    return place


def place_lines(place: str) -> tuple | None:
    """The first and last v3 line of a place (:func:`check_place`); None for a place in another text."""
    check_place(place)
    m = _PLACE.match(place)
    return None if m is None else (int(m[1]), int(m[2] or m[1]))


def supports_at(record) -> dict:
    """{label: place} for the ``supports`` edges of a claim or claim record that cite their place (a label without one
    is left out). ValueError for a place that is not one, or for an edge to a label the claim does not support."""
    cid = record["id"] if isinstance(record, dict) else record.id
    supports = (record.get("supports") or ()) if isinstance(record, dict) else record.supports
    out = {}
    for label, place in SUPPORTS_AT.get(cid, {}).items():
        if label not in supports:
            raise ValueError(f"{cid}: SUPPORTS_AT cites a place for {label!r}, which it does not support "
                             f"({', '.join(supports) or 'nothing'})")
        out[label] = check_place(place)
    return out


def place_within(place: str, label: str, *, version: str = CANONICAL_VERSION) -> bool:
    """Whether ``place`` (:func:`check_place`) lies inside the text of ``label`` in ``version``'s label file (the
    label's statement, its proof, or a section's lines): False for a place in another text or a label the version
    does not number."""
    lines = place_lines(place)
    rng = label_set(version).lines.get(label) if lines is not None else None
    return bool(rng) and rng[0] <= lines[0] and lines[1] <= rng[1]
