"""Claims of App. C: the computational footprint of the QK channel depends on D_K = h d_k, not on the split.

Counts are measured, not derived: parameter counts from the weight tensors, matrix-multiply flops with
``torch.utils.flop_counter.FlopCounterMode`` while the library's own scoring code runs, activation sizes from
the tensors it produces. The sizes are the paper's experimental ones (ell = 16, d_model in {16, 32, 64, 128},
D_K up to 512) plus Sec. 7.3's (ell = 18 positions, d_model = 768). The cost model is also checked as formulas.
"""

from __future__ import annotations

import sympy as sp
import torch
from torch.utils.flop_counter import FlopCounterMode

from ..core import formulas as F
from ..core.scoring import head_scores
from .base import CheckContext, Claim, Kind, Stated, Tier, Verdict
from .standards.decide import decide_witness
from .symbolic import Var, combine_verdicts, identity_verdict
from .tools import VAR_D_MODEL, symbolic_claim
from .tools.builders import with_role

__all__ = ["CLAIMS", "ORDER"]

ORDER = 120


_SIZES = [(16, 16, 64), (16, 32, 128), (16, 64, 256), (16, 128, 512), (18, 768, 512)]  # (ell, d_model, D_K)


def _splits(D_K: int) -> list[int]:
    return [h for h in range(1, D_K + 1) if D_K % h == 0]


def _measure(ell: int, d_model: int, h: int, d_k: int) -> dict:
    X = torch.zeros(1, ell, d_model, dtype=torch.float32)
    W_Q = torch.zeros(h, d_model, d_k)
    W_K = torch.zeros(h, d_model, d_k)
    with FlopCounterMode(display=False) as proj_fc:
        q = torch.einsum("...bld,...hdk->...bhlk", X, W_Q)
        k = torch.einsum("...bld,...hdk->...bhlk", X, W_K)
    with FlopCounterMode(display=False) as all_fc:
        S = head_scores(X, W_Q, W_K)
    return {
        "params": W_Q.numel() + W_K.numel(),
        "proj_flops": proj_fc.get_total_flops(),
        "total_matmul_flops": all_fc.get_total_flops(),
        "score_flops": all_fc.get_total_flops() - proj_fc.get_total_flops(),
        "qk_entries": q.numel() + k.numel(),
        "per_head_score_entries": S.numel(),  # h * ell^2: what max / softmax aggregation touches
    }


def _check_params(ctx: CheckContext) -> Verdict:
    table, matrices = [], ctx.expect("matrices")
    for ell, d_model, D_K in _SIZES:
        for h in _splits(D_K):
            got = _measure(ell, d_model, h, D_K // h)["params"]
            table.append((d_model, D_K, h, got))
            if got != matrices * d_model * D_K:
                return Verdict(decide_witness(True, exact=True), paper_value="2 d_model D_K parameters for every split",
                               measured_value=got, witness={"d_model": d_model, "D_K": D_K, "h": h},
                               evidence_level="witness")
    return Verdict(decide_witness(False, exact=True), paper_value="O(d_model h d_k) = O(d_model D_K) parameters for W_Q, W_K",
                   measured_value="exactly 2 d_model D_K for every split of every size",
                   params={"sizes_(ell,d_model,D_K)": _SIZES, "splits_checked": len(table)}, evidence_level="grid",
                   evidence="exact count of the weight tensors' entries")


def _cost_model(ctx: CheckContext) -> Verdict:
    V = [Var(F.ell, 2, 1e4, integer=True, log=True), VAR_D_MODEL, Var(F.h, 1, 128, integer=True, log=True), Var(F.d_k, 1, 512, log=True)]
    p_proj, p_score = sp.nsimplify(ctx.expect("projection_ell_power")), sp.nsimplify(ctx.expect("score_ell_power"))
    return combine_verdicts([
        identity_verdict(F.cost_projection_flops(), F.ell ** p_proj * F.d_model * (F.h * F.d_k), variables=V, ctx=ctx),
        identity_verdict(F.cost_score_flops(), F.ell ** p_score * (F.h * F.d_k), variables=V, ctx=ctx),
        identity_verdict(F.cost_parameters(), sp.nsimplify(ctx.expect("matrices")) * F.d_model * (F.h * F.d_k), variables=V, ctx=ctx),
    ], paper_value="App. C: O(ell d_model D_K) projection flops, O(d_model D_K) parameters, O(ell^2 D_K) score flops")


CLAIMS = (
    Claim(
        id="appc-qk-parameters-depend-on-dk-only",
        ref="App. C",
        statement="W_Q and W_K hold 2 d_model D_K parameters whatever the split of D_K into h heads of width d_k.",
        kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_params, role="result",
        expects={"matrices": Stated(2, "value", "App. C: W_Q and W_K hold 2 d_model D_K parameters")}),
    with_role(symbolic_claim("appc-sym-cost-model", "App. C", "Projection flops, parameters and score flops depend on (h, d_k) only "
                   "through D_K = h d_k.", _cost_model, expects={
                       "projection_ell_power": Stated(1, "exponent", "App. C: O(ell d_model D_K) projection flops"),
                       "score_ell_power": Stated(2, "exponent", "App. C: O(ell^2 D_K) score flops"),
                       "matrices": Stated(2, "value", "App. C: W_Q and W_K hold 2 d_model D_K parameters")}), "result"),
)
