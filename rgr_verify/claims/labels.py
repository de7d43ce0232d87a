"""Paper labels: the id prefix a claim's reference implies, and the part of the paper that holds the label.

Every claim lives in the part of the paper its ``ref`` names (``paper_<part>.py``, or a ``paper_<part>/`` package
split by topic) and its id starts with the one prefix its label implies. The rule, in :data:`PREFIX_RULE` and in
``docs/claims-index.md``, is checked for every claim by ``properties/test_claims_layout.py``.
"""

from __future__ import annotations

import re

from ..paper_versions import CANONICAL_VERSION, label_set
from .base import FACTS_PAPER, RGR_PAPER, Claim, paper_parts

__all__ = ["label_prefix", "label_part", "module_part", "placement_errors", "PART_TITLES", "PREFIX_RULE"]

_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8}
_KINDS = {"Theorem": "thm", "Lemma": "lem", "Corollary": "cor", "Proposition": "prop", "Definition": "def",
          "Example": "ex", "Remark": "rem"}
# Where each numbered label sits (the part whose text holds or presents it) is data: the canonical version's label
# file (rgr_verify/data/labels-2509.22840-v3.json, read by rgr_verify.paper_versions), not code.

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
(`rgr_verify/data/labels-2509.22840-v3.json`, one file per version, read by `rgr_verify.paper_versions`); a `Remark`
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
    the label file of ``version`` (:mod:`rgr_verify.paper_versions`). ValueError as :func:`label_prefix`, or for
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
