"""Worst cases of Lemma 9.3's (27) and Eq. (29) by search over inputs.

Not a claims module (no ``CLAIMS``). The measurement (the largest Lipschitz ratio an optimiser finds) does not depend
on the paper's stated constants; it is cached per (seed, tier, map), so ``rgr-verify mutate`` only re-judges it.

Search space: two parameter settings (U, V, tau), (U~, V~, tau~) inside the normalisation ball (26) (each of U, V, U~,
V~ projected onto ||.||_F <= 1, |tau| <= 1) and two embeddings with ||x||_2 <= 1; U~ = P(U + dU) for a direction dU
the optimiser chooses as well. Objective: |f(U, V, tau) - f(U~, V~, tau~)| / (||U - U~||_F + ||V - V~||_F
+ |tau - tau~|), maximised by L-BFGS-B (numeric gradients) from several random starts and shapes.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import optimize, special

from ...analysis.lower_bound import decision_function, two_way_softmax_score
from ..base import CheckContext, Status, Verdict
from ..standards.decide import decide

__all__ = ["MAPS", "TIGHT", "lipschitz_verdict", "worst_ratio"]

MAPS = ("max", "sum", "logsumexp", "two-way-softmax", "one-head")

_SHAPES = ((2, 2, 1), (1, 1, 1), (2, 1, 2))  # (d_model, h, d_k)


def _ball(a: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(a))
    return a / n if n > 1.0 else a


def _heads(U, V, a, b, h, d_k):
    return np.array([a @ U[:, k * d_k:(k + 1) * d_k] @ V[:, k * d_k:(k + 1) * d_k].T @ b for k in range(h)])


def _value(name: str, U, V, tau, xa, xb, h, d_k) -> float:
    if name == "two-way-softmax":  # Eq. (28): sum_k sigma(L_ij - L_ii), L = S / sqrt(d_k)
        z = (_heads(U, V, xa, xb, h, d_k) - _heads(U, V, xa, xa, h, d_k)) / math.sqrt(d_k)
        return float(special.expit(z).sum())
    s = _heads(U, V, xa, xb, h, d_k)
    if name == "one-head":  # the sketch's per-head step: head 1 alone (h = 1 shapes: |s_1 - s~_1| vs ||dU_1|| + ||dV_1||)
        return float(s[0] - tau)
    agg = s.max() if name == "max" else s.sum() if name == "sum" else float(special.logsumexp(s))
    return float(agg - tau)


def _unpack(z, d_model, h, d_k, with_tau):
    n = d_model * h * d_k
    parts, o = [], 0
    for size in (n, n, n, n, d_model, d_model, 1, 1):
        parts.append(z[o:o + size])
        o += size
    U = _ball(parts[0].reshape(d_model, h * d_k))
    V = _ball(parts[1].reshape(d_model, h * d_k))
    U2 = _ball(U + 1e-3 * parts[2].reshape(d_model, h * d_k))
    V2 = _ball(V + 1e-3 * parts[3].reshape(d_model, h * d_k))
    xa, xb = _ball(parts[4]), _ball(parts[5])
    tau = float(np.clip(parts[6][0], -1, 1))
    tau2 = float(np.clip(tau + 1e-3 * parts[7][0], -1, 1)) if with_tau else tau
    return U, V, tau, U2, V2, tau2, xa, xb


def _ratio(name, z, shape, with_tau):
    d_model, h, d_k = shape
    U, V, tau, U2, V2, tau2, xa, xb = _unpack(z, d_model, h, d_k, with_tau)
    den = float(np.linalg.norm(U - U2) + np.linalg.norm(V - V2) + abs(tau - tau2))
    if den < 1e-12:
        return 0.0
    return abs(_value(name, U, V, tau, xa, xb, h, d_k) - _value(name, U2, V2, tau2, xa, xb, h, d_k)) / den


@functools.lru_cache(maxsize=32)
def worst_ratio(name: str, seed: int, starts: int, with_tau: bool = False) -> dict:
    """Largest |f - f~| / (||dU||_F + ||dV||_F + |d tau|) found for decision map ``name`` (one of :data:`MAPS`).

    ``starts`` random starts per shape of :data:`_SHAPES`, seeded by ``seed``; ``with_tau`` lets the optimiser move
    tau as well (otherwise tau~ = tau, the part of (27) that is not trivially tight). Returns the worst ratio, the
    best ratio among the random starting points (what random sampling sees), and the witness (all inputs).
    """
    if not isinstance(name, str) or name not in MAPS:
        raise ValueError(f"name must be one of {', '.join(MAPS)}, got {name!r}")
    if isinstance(starts, bool) or not isinstance(starts, int) or starts < 1:
        raise ValueError(f"starts must be an integer >= 1, got {starts!r}")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), MAPS.index(name), int(with_tau)]))
    best, best_z, best_shape, random_best, evals = -1.0, None, None, 0.0, 0
    for shape in _SHAPES:
        d_model, h, d_k = shape
        if name == "one-head" and h != 1:
            continue
        dim = 4 * d_model * h * d_k + 2 * d_model + 2
        for _ in range(starts):
            z0 = rng.standard_normal(dim)
            random_best = max(random_best, _ratio(name, z0, shape, with_tau))
            res = optimize.minimize(lambda z: -_ratio(name, z, shape, with_tau), z0, method="L-BFGS-B",
                                    options={"maxiter": 150})
            evals += int(res.nfev)
            r = _ratio(name, res.x, shape, with_tau)
            if r > best:
                best, best_z, best_shape = r, res.x, shape
    d_model, h, d_k = best_shape
    U, V, tau, U2, V2, tau2, xa, xb = _unpack(best_z, d_model, h, d_k, with_tau)
    witness = {"d_model": d_model, "h": h, "d_k": d_k, "U": U.tolist(), "V": V.tolist(), "tau": tau,
               "U~": U2.tolist(), "V~": V2.tolist(), "tau~": tau2, "x_a": xa.tolist(), "x_b": xb.tolist(),
               "norms": {"U": float(np.linalg.norm(U)), "V": float(np.linalg.norm(V)), "U~": float(np.linalg.norm(U2)),
                         "V~": float(np.linalg.norm(V2)), "x_a": float(np.linalg.norm(xa)),
                         "x_b": float(np.linalg.norm(xb))}}
    return {"worst_ratio": best, "random_start_best_ratio": random_best, "witness": witness,
            "search": {"optimiser": "scipy L-BFGS-B, numeric gradients", "shapes_(d_model,h,d_k)": list(_SHAPES),
                       "starts_per_shape": starts, "function_evaluations": evals, "tau_moves": with_tau}}


TIGHT = 0.6  # the search must reach this fraction of the stated constant before "no violation found" counts


def lipschitz_verdict(name: str, ctx: CheckContext, *, paper_value: str) -> Verdict:
    """Judge the worst ratio :func:`worst_ratio` finds for ``name`` against the stated constant ``lipschitz``.

    Refuted when a witness in the ball (26) exceeds it (re-evaluated with :mod:`rgr_verify.analysis.lower_bound`), verified
    when none does and the search reached :data:`TIGHT` of it, inconclusive otherwise.
    """
    L = ctx.expect("lipschitz")
    starts = 1 if ctx.tier == "quick" else 3
    uv = worst_ratio(name, ctx.seed, starts, False)
    full = worst_ratio(name, ctx.seed, starts, True) if name not in ("two-way-softmax", "one-head") else uv
    worst = max(uv["worst_ratio"], full["worst_ratio"])
    w = uv if uv["worst_ratio"] >= full["worst_ratio"] else full
    # cross-check the witness with the library's decision maps (torch path)
    wt = w["witness"]
    U, V, U2, V2 = (np.array(wt[k]) for k in ("U", "V", "U~", "V~"))
    xa, xb = np.array(wt["x_a"]), np.array(wt["x_b"])
    if name == "one-head":
        fa = decision_function(U[:, :wt["d_k"]], V[:, :wt["d_k"]], wt["tau"], xa, xb, d_k=wt["d_k"])
        fb = decision_function(U2[:, :wt["d_k"]], V2[:, :wt["d_k"]], wt["tau~"], xa, xb, d_k=wt["d_k"])
    elif name == "two-way-softmax":
        fa = two_way_softmax_score(U, V, xa, xb, d_k=wt["d_k"])
        fb = two_way_softmax_score(U2, V2, xa, xb, d_k=wt["d_k"])
    else:
        fa = decision_function(U, V, wt["tau"], xa, xb, d_k=wt["d_k"], aggregation=name)
        fb = decision_function(U2, V2, wt["tau~"], xa, xb, d_k=wt["d_k"], aggregation=name)
    den = np.linalg.norm(U - U2) + np.linalg.norm(V - V2) + abs(wt["tau"] - wt["tau~"])
    lib_ratio = float(abs(fa - fb) / den)
    exceeds = worst > L * (1 + 1e-6) and lib_ratio > L * (1 + 1e-6)
    status = decide(not exceeds and uv["worst_ratio"] >= TIGHT * L, exceeds, exact=True)
    return Verdict(
        status=status, paper_value=paper_value,
        measured_value={"worst_ratio_found": worst, "worst_ratio_U_V_only": uv["worst_ratio"],
                        "worst_ratio_with_tau": full["worst_ratio"], "worst_over_stated_constant": worst / L,
                        "best_random_start_ratio": uv["random_start_best_ratio"],
                        "witness_ratio_library": lib_ratio},
        witness=w["witness"] if status is Status.REFUTED else None,
        params={"stated_constant": L, "tightness_bar": TIGHT, "relative_tolerance": 1e-6, **uv["search"]},
        evidence="worst case by search: L-BFGS-B over both settings, the perturbation direction and the embeddings "
                 "inside the ball (26); witness re-evaluated with rgr_verify.analysis.lower_bound",
        evidence_level="witness" if status is Status.REFUTED else "searched",
        details=("verified: no ratio above the stated constant, and the search reached at least "
                 f"{TIGHT} of it (so it would have found a violation of a constant half as large; the bound is "
                 "attained in the limit); inconclusive: the search stayed below that bar; refuted: a witness in the "
                 "ball (26) exceeds the constant."),
    )
