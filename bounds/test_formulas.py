# Sec. 5, 8, 9, App. B, App. C: unit tests of rgr_verify.core.formulas, the symbolic verdict helpers and `rgr-verify bounds`.
import math

import pytest
import sympy as sp

from rgr_verify.core import formulas as F
from rgr_verify.claims.base import CheckContext, Status
from rgr_verify.claims.symbolic import (
    Var,
    combine_verdicts,
    exhaustive_verdict,
    grid_points,
    identity_verdict,
    inequality_verdict,
    limit_verdict,
    prove_by_monotonicity,
    prove_nonnegative,
    values_verdict,
)
from rgr_verify.cli import main

CTX = CheckContext(seed=12345)
M = Var(F.m, 2, 1e4, integer=True, log=True)


# --------------------------------------------------------------------------------------------- formulas
def test_bit_budget_hand_case():
    # Sec. 9: b = 2 bits, d_model = 3, D_K = 4 -> 2 (2*3*4 + 1) = 50 bits.
    assert F.evaluate(F.bit_budget(), {"b": 2, "d_model": 3, "D_K": 4}) == 50


def test_log_labelings_matches_math_comb():
    for mm, k in [(2, 1), (5, 7), (10, 45), (30, 100)]:
        exact = math.log(math.comb(mm * (mm - 1), k))
        assert F.evaluate(F.log_labelings(), {"m": mm, "m'": k}) == pytest.approx(exact, rel=1e-12)
        assert F.evaluate(F.log_labelings(base="2"), {"m": mm, "m'": k}) == pytest.approx(exact / math.log(2), rel=1e-12)


def test_lower_bound_rate_permutation():
    # Eq. (24) at m' = m: (m/d) ln m.
    assert F.evaluate(F.lower_bound_rate(), {"m": 64, "m'": 64, "d_model": 16}) == pytest.approx(4 * math.log(64))


def test_theorem_b1_constants_at_p_quarter():
    # Theorem B.1 with p = 1/4: c_1 = 9/512, c_2 = 9/224, C_paper = 512/3.
    assert sp.nsimplify(F.b1_c1(sp.Rational(1, 4))) == sp.Rational(9, 512)
    assert sp.nsimplify(F.b1_c2(sp.Rational(1, 4))) == sp.Rational(9, 224)
    assert F.b1_claimed_C(sp.Rational(1, 4)) == sp.Rational(512, 3)


def test_fits_hand_values():
    # Sec. 6 and App. A.3 fits at (m, d_model) = (128, 32), r = 1.
    assert F.evaluate(F.fit_sec6_DK(base="2"), {"m": 128, "d_model": 32}) == pytest.approx(1.19 * 4 * 7)
    assert F.evaluate(F.fit_sec6_DK(base="e"), {"m": 128, "d_model": 32}) == pytest.approx(1.19 * 4 * math.log(128))
    assert F.evaluate(F.fit_a3_DK(), {"r": 1, "m": 128, "d_model": 32}) == pytest.approx(0.46 * 4 * 7)
    assert F.evaluate(F.fit_sec6_heads(), {"m": 512, "d_model": 16}) == pytest.approx(1.65 * 32 - 6.64)


def test_lemma_b8_heads_and_softmax_budget():
    assert F.evaluate(F.heads_lemma_b8(), {"m'": 100, "d_model": 16, "Delta": 3}) == 7 + 3
    assert F.evaluate(F.DK_softmax(), {"C": 2, "m": 64, "d_model": 16}) == pytest.approx(4 * 2 * math.log(64) ** 2)


def test_log_b_rejects_unknown_base():
    with pytest.raises(ValueError, match="base"):
        F.log_b(F.m, "10")


def test_evaluate_names_missing_symbols():
    with pytest.raises(ValueError, match="missing"):
        F.evaluate(F.lower_bound_rate(), {"m": 4})


# --------------------------------------------------------------------------------------------- helpers
def test_identity_verdict_proves_and_refutes():
    ok = identity_verdict(F.single_multi_ratio(), (F.m / F.d_model) / sp.log(F.m),
                          variables=[M, Var(F.d_model, 1, 100, integer=True)], ctx=CTX)
    assert ok.status is Status.VERIFIED and ok.evidence_level == "proved"
    bad = identity_verdict(F.m**2, F.m**2 + 1, variables=[M], ctx=CTX)
    assert bad.status is Status.REFUTED and bad.witness == {"m": 2}


def test_inequality_verdict_smallest_witness_and_proof():
    bad = inequality_verdict(F.m, ">=", 10, variables=[M], ctx=CTX)
    assert bad.status is Status.REFUTED and bad.witness == {"m": 2}
    u = sp.Symbol("u", nonnegative=True)
    good = inequality_verdict(1 / (1 + u), ">=", 1 - u, variables=[Var(u, 0, 100)], ctx=CTX)
    assert good.status is Status.VERIFIED and good.evidence_level == "proved"


def test_inequality_verdict_rejects_bad_relation():
    with pytest.raises(ValueError, match="rel"):
        inequality_verdict(F.m, "==", 1, variables=[M], ctx=CTX)


def test_prove_helpers():
    assert prove_nonnegative(F.m**2 - 2 * F.m + 2, [M]) is not None
    assert prove_nonnegative(F.m - 3, [M]) is None
    g = [M, Var(F.gamma, 3, 20)]
    assert prove_by_monotonicity(1 - F.m ** -F.gamma - sp.Rational(7, 8), g) is not None
    assert prove_by_monotonicity(F.m ** -F.gamma - sp.Rational(1, 100), g) is None


def test_limit_verdict_expectations():
    assert limit_verdict(sp.log(F.m) / F.m, F.m, expect="zero", ctx=CTX).status is Status.VERIFIED
    assert limit_verdict(sp.log(F.m), F.m, expect="bounded", ctx=CTX).status is Status.REFUTED
    with pytest.raises(ValueError, match="expect"):
        limit_verdict(F.m, F.m, expect="big", ctx=CTX)


def test_exhaustive_values_and_combine():
    ex = exhaustive_verdict(lambda c: c["n"] ** 2 <= c["n"], ({"n": n} for n in range(5)))
    assert ex.status is Status.REFUTED and ex.witness == {"n": 2}
    vv = values_verdict({"a": 11, "b": 8}, rtol=0)
    assert vv.status is Status.REFUTED
    both = combine_verdicts([values_verdict({"a": 1, "b": 1}, rtol=0), ex])
    assert both.status is Status.REFUTED and both.witness == {"n": 2}
    with pytest.raises(ValueError, match="at least two"):
        values_verdict({"a": 1}, rtol=0)


def test_var_and_grid_validation():
    with pytest.raises(ValueError, match="low"):
        Var(F.m, 0, 10, log=True)
    pts = grid_points([Var(F.m, 2, 6, integer=True), Var(F.mp, 1, 30, integer=True)],
                      [lambda pt: pt["m'"] <= pt["m"] * (pt["m"] - 1)], max_points=400)
    assert all(p["m'"] <= p["m"] * (p["m"] - 1) for p in pts) and {"m": 2, "m'": 2} in pts


def test_helpers_are_seeded():
    a = identity_verdict(F.m, F.m, variables=[M], ctx=CheckContext(seed=7))
    b = identity_verdict(F.m, F.m, variables=[M], ctx=CheckContext(seed=7))
    assert a == b


# --------------------------------------------------------------------------------------------- command
def test_bounds_command_paper_sizes(capsys):
    assert main(["bounds"]) == 0
    out = capsys.readouterr().out
    assert "Sec. 6 grid" in out and "Sec. 7.3" in out and "fit6 ln" in out


def test_bounds_command_single_with_config(capsys):
    assert main(["bounds", "--m", "64", "--d-model", "16", "--heads", "4", "--d-k", "5"]) == 0
    out = capsys.readouterr().out
    assert "Theorem 4.1" in out and "configuration D_K = h d_k" in out and "20.00" in out


@pytest.mark.parametrize("argv, word", [
    (["bounds", "--m", "1", "--d-model", "4"], "m must be"),
    (["bounds", "--m", "5", "--edges", "21", "--d-model", "4"], "edges"),
    (["bounds", "--m", "8"], "d_model"),
    (["bounds", "--m", "8", "--d-model", "4", "--heads", "2"], "heads and d_k"),
    (["bounds", "--edges", "4"], "m must be given"),
])
def test_bounds_command_bad_input(argv, word, capsys):
    assert main(argv) == 2
    assert word in capsys.readouterr().err


def test_bounds_sheet(tmp_path, capsys):
    out = tmp_path / "sheet.md"
    assert main(["bounds", "--sheet", str(out)]) == 0
    text = out.read_text()
    assert "| ratio (22) | Eq. (22) |" in text and "\\frac" in text


def test_formula_sheet_links_only_registered_claims():
    # The formula sheet (rgr-verify bounds --sheet) shows the ledger verdicts of the claims each formula links to:
    # every linked id must be a registered claim (ids change when claims move between parts of the paper).
    from rgr_verify.claims.registry import all_claims
    from rgr_verify.commands.bounds import sheet_entries

    ids = {c.id for c in all_claims()}
    missing = sorted({cid for *_, linked in sheet_entries() for cid in linked} - ids)
    assert not missing, f"formula sheet links unknown claim ids: {missing}"


def test_limit_verdict_numeric_grid_does_not_take_slow_growth_for_a_limit(monkeypatch):
    # When sympy cannot take the limit, the numeric grid must not read a slowly diverging ratio (log-like) as a
    # finite limit, nor a ratio that has not settled as one (log log m), nor a slow decay (1/log m) as positive.
    import sympy as sp

    from rgr_verify.claims.base import Status
    from rgr_verify.claims.symbolic import verdicts as V

    def no_limit(*args, **kwargs):
        raise NotImplementedError

    monkeypatch.setattr(V.sp, "limit", no_limit)
    m = sp.Symbol("m", positive=True)
    ctx = CheckContext(seed=3)
    # a numeric grid is finite evidence: holds- / contradicted-empirically, never verified / refuted
    assert V.limit_verdict(sp.log(m), m, expect="finite-positive", ctx=ctx).status is Status.CONTRADICTED_EMPIRICALLY
    assert V.limit_verdict(sp.log(m), m, expect="infinity", ctx=ctx).status is Status.HOLDS_EMPIRICALLY
    assert V.limit_verdict(1 / sp.log(m), m, expect="zero", ctx=ctx).status is Status.HOLDS_EMPIRICALLY
    assert V.limit_verdict(sp.log(sp.log(m)), m, expect="finite-positive", ctx=ctx).status is Status.INCONCLUSIVE
    assert V.limit_verdict(2 + 1 / m, m, expect="finite-positive", ctx=ctx).status is Status.HOLDS_EMPIRICALLY
