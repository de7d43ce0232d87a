"""The claims index: every paper label, its claims, and the module and function that check each one.

:func:`render_index` renders ``docs/claims-index.md`` from the registry (``rgr-verify claims --index`` prints it);
``properties/test_claims_layout.py`` regenerates it and compares it with the committed file.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from .base import PAPERS
from .labels import PART_TITLES, PREFIX_RULE, label_part
from .registry import all_claims

__all__ = ["render_index", "INDEX_PATH", "check_location"]

INDEX_PATH = Path(__file__).resolve().parents[2] / "docs" / "claims-index.md"
_REPO = Path(__file__).resolve().parents[2]


def check_location(claim) -> tuple[str, str]:
    """(repository-relative path of the file that defines ``claim.check``, the function's name)."""
    fn = getattr(claim, "check", None)
    if fn is None or not callable(fn):
        raise ValueError(f"claim must have a callable check, got {claim!r}")
    fn = inspect.unwrap(fn)  # a check wrapped (functools.wraps) to add a record is indexed where it is defined
    path = Path(inspect.getsourcefile(fn)).resolve()
    try:
        rel = path.relative_to(_REPO)
    except ValueError:
        rel = path
    return rel.as_posix(), fn.__name__


def render_index() -> str:
    """The Markdown index of every registered claim: per part of the paper, per label in paper order, the claim
    ids with the file and function that check them (deterministic: the same registry gives the same text)."""
    claims = all_claims()
    lines = ["# Claims index", "",
             "Generated from the claims registry by `rgr-verify claims --index > docs/claims-index.md` "
             "(`rgr_verify/claims/index.py`); `properties/test_claims_layout.py` regenerates it and fails when this "
             "file differs. Do not edit it by hand.", "",
             f"{len(claims)} claims. Each row: the paper's label, the claim id, and the module and function that "
             "check it.", "", "## Where a claim lives and how its id starts", "", PREFIX_RULE.rstrip(), ""]
    parts: dict[str, list] = {}
    for c in claims:
        parts.setdefault(label_part(c.ref, c.paper), []).append(c)
    for part, members in parts.items():
        paper = members[0].paper
        title = PART_TITLES.get(part, part)
        if part not in ("facts", "xpaper"):
            title += f" (arXiv {paper})"
        mods = sorted({check_location(c)[0] for c in members})
        lines += [f"## {title}", "", "Modules: " + ", ".join(f"`{m}`" for m in mods) + ".", "",
                  "| label | claim | module | function |", "| --- | --- | --- | --- |"]
        by_label: dict[str, list] = {}
        for c in members:
            by_label.setdefault(c.ref, []).append(c)
        for ref, group in by_label.items():
            for i, c in enumerate(group):
                path, fn = check_location(c)
                lines.append(f"| {ref if i == 0 else ''} | `{c.id}` | `{path}` | `{fn}` |")
        lines.append("")
    known = ", ".join(f"{k} ({v})" for k, v in PAPERS.items())
    lines += [f"Papers: {known}.", ""]
    return "\n".join(lines)
