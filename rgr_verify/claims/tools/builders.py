"""Claim builders and the variable domains the symbolic claims share.

:func:`symbolic_claim` builds a quick-tier symbolic :class:`~rgr_verify.claims.base.Claim` (the one builder every
part's symbolic claims use). The ``VAR_*`` domains are the default boxes of the paper's variables for
:mod:`rgr_verify.claims.symbolic` (a part that needs another box defines its own :class:`Var`).
"""

from __future__ import annotations

import dataclasses

from ...core import formulas as F
from ..base import Claim, Kind, Tier
from ..symbolic import Var

__all__ = ["symbolic_claim", "with_role", "VAR_M", "VAR_D_MODEL", "VAR_D_K", "VAR_P", "VAR_ELL"]

VAR_M = Var(F.m, 2, 1e6, integer=True, log=True)  # graph size m
VAR_D_MODEL = Var(F.d_model, 1, 4096, integer=True, log=True)  # embedding width d_model
VAR_D_K = Var(F.d_k, 1, 1e4, log=True)  # per-head key width d_k
VAR_P = Var(F.p, 0.01, 0.49)  # Bernoulli signature rate p (Algorithm 3)
VAR_ELL = Var(F.ell, 2, 1e5, integer=True, log=True)  # context length ell


def symbolic_claim(id_: str, ref: str, statement: str, check, notes: str = "", expects: dict | None = None, *,
                   role: str = "", supports: tuple = (), provenance: str = "paper", slip=None) -> Claim:
    """A quick-tier symbolic claim (kind ``symbolic``): ``Claim(id_, ref, statement, symbolic, quick, check, notes,
    expects)``; ``expects`` the values the paper states (see :attr:`~rgr_verify.claims.base.Claim.expects`).
    ``role``, ``supports``, ``provenance`` and ``slip`` are :class:`~rgr_verify.claims.base.Claim`'s.

    Validation is :class:`~rgr_verify.claims.base.Claim`'s (id, reference, callable check).
    """
    return Claim(id=id_, ref=ref, statement=statement, kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=check, notes=notes,
                 expects=expects or {}, role=role, supports=tuple(supports), provenance=provenance,
                 slip=slip)


def with_role(claim: Claim, role: str, *supports: str) -> Claim:
    """``claim`` with its role and the labels it supports declared (the one helper every part uses; validation is
    the Claim's)."""
    return dataclasses.replace(claim, role=role, supports=tuple(supports))
