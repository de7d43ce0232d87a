"""The registry: every claim of every claims module of this package, in paper order.

A claims module is a module that defines ``CLAIMS`` (a tuple of :class:`~rgr_verify.claims.base.Claim`) and
``ORDER`` (an int placing it in the paper's order): ``rgr_verify/claims/paper_<part>.py``, any module of a package
``rgr_verify/claims/paper_<part>/`` (a part split by topic), or ``xpaper.py`` (the cross-paper claims). Adding a
module is all it takes to add claims; nothing else needs editing. Where a claim belongs and how its id starts is
:mod:`rgr_verify.claims.labels`'s rule.
"""

from __future__ import annotations

import fnmatch
import importlib
import pkgutil

from ..basics.checks import check_choice
from .base import TIERS, Claim, Tier, paper_parts

__all__ = ["all_claims", "get_claim", "select_claims", "claim_modules"]


def claim_modules() -> list:
    """The imported claims modules (``paper_*`` modules, the modules of ``paper_*`` packages, ``xpaper``) that
    define ``CLAIMS``, sorted by their ``ORDER`` (then by name)."""
    from pathlib import Path

    pkg_path = [str(Path(__file__).resolve().parent)]  # this package's folder (not an import of the package itself)
    mods = []
    for info in pkgutil.iter_modules(pkg_path):
        if not (info.name.startswith("paper_") or info.name == "xpaper"):
            continue
        mod = importlib.import_module(f"{__package__}.{info.name}")
        found = [mod]
        if info.ispkg:
            found += [importlib.import_module(sub.name)
                      for sub in pkgutil.walk_packages(mod.__path__, prefix=f"{mod.__name__}.")]
        mods += [m for m in found if "CLAIMS" in vars(m)]
    return sorted(mods, key=lambda mod: (getattr(mod, "ORDER", 1000), mod.__name__))


def all_claims() -> tuple[Claim, ...]:
    """Every registered claim; raises if two claims share an id."""
    claims: list[Claim] = []
    seen: dict[str, str] = {}
    for mod in claim_modules():
        for claim in getattr(mod, "CLAIMS", ()):
            if not isinstance(claim, Claim):
                raise TypeError(f"{mod.__name__}.CLAIMS holds a non-Claim: {claim!r}")
            if claim.id in seen:
                raise ValueError(f"duplicate claim id {claim.id!r} in {mod.__name__} and {seen[claim.id]}")
            seen[claim.id] = mod.__name__
            claims.append(claim)
    return tuple(claims)


def get_claim(claim_id: str) -> Claim:
    """The claim with this id; ValueError naming the id if there is none."""
    for claim in all_claims():
        if claim.id == claim_id:
            return claim
    raise ValueError(f"unknown claim id {claim_id!r} (see `rgr-verify claims` for the list)")


def select_claims(only: str | None = None, tier: str = "gpu", paper: str | None = None) -> tuple[Claim, ...]:
    """Claims whose id or reference matches ``only``, that concern ``paper`` and whose tier is at most ``tier``.

    Args:
        only: comma-separated glob patterns matched against ids and references (e.g. ``"sec3-*,App. C"``);
            None selects every claim. A pattern that matches nothing raises ValueError.
        tier: "quick", "full" or "gpu" (each includes the cheaper ones).
        paper: an arXiv id of :data:`~rgr_verify.claims.base.PAPERS` (e.g. ``"2502.05076"``): only claims that
            concern it, cross-paper claims included; None: every paper.
    """
    check_choice("tier", tier, TIERS)
    claims = all_claims()
    if paper is not None:
        (paper,) = paper_parts(paper) if "+" not in str(paper) else (None,)
        if paper is None:
            raise ValueError("paper must be a single paper id (cross-paper claims are listed under each of their papers)")
        claims = tuple(c for c in claims if paper in paper_parts(c.paper))
    if only is not None:
        if not isinstance(only, str) or not only.strip():
            raise ValueError("only must be a non-empty pattern of claim ids or references")
        patterns = [p.strip() for p in only.split(",") if p.strip()]
        picked = []
        for pattern in patterns:
            hits = [c for c in claims if fnmatch.fnmatchcase(c.id, pattern) or fnmatch.fnmatchcase(c.ref, pattern)]
            if not hits:
                raise ValueError(f"only: no claim id or reference matches {pattern!r} (see `rgr-verify claims`)")
            picked.extend(hits)
        ids = {c.id for c in picked}
        claims = tuple(c for c in claims if c.id in ids)
    rank = Tier(tier).rank
    return tuple(c for c in claims if c.tier.rank <= rank)
