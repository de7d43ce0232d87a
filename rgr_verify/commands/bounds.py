"""``rgr-verify bounds``: every bound of the paper evaluated at given sizes, side by side; ``--sheet`` writes a
markdown sheet of every formula (LaTeX via sympy) with its paper reference and ledger verdict.

Without ``--m`` the table covers the sizes of the paper's experiments (Sec. 6.1 grid, the lambda = 8 diagonal,
the r = 32 points, App. A.3's r-regular graphs at (128, 32), Sec. 7.3's GPT-2 setting). Unknown absolute
constants are set to 1 and labelled; where the theorem checker (:mod:`rgr_verify.analysis.minimal_constants`) certifies a
constant exactly and cheaply (Construction I, Theorem B.1) it is used and labelled "certified". Logs are natural
unless marked log2.
"""

from __future__ import annotations

import math
from pathlib import Path

import sympy as sp

from ..core import formulas as F
from ..basics.checks import check_int
from ._options import UsageError, add_d_k, add_d_model, add_heads, add_m, usage_errors, writable_file_target

NAME = "bounds"
HELP = "evaluate every bound and fit of the paper at given sizes (or the paper's experiment sizes)"
ORDER = 40

# Experiment sizes: (m, m', d_model, label).
_PAPER_SIZES = (
    [(mm, mm, dd, "Sec. 6 grid") for mm in (64, 128, 256, 512) for dd in (16, 32, 64)]
    + [(mm, mm, mm // 8, "Sec. 6 diag") for mm in (1024, 2048, 4096)]
    + [(1024, 1024, 32, "Sec. 6 r=32")]
    + [(128, 128 * r, 32, f"A.3 r={r}") for r in (2, 4, 8, 16)]
    + [(6144, 6144, 768, "Sec. 7.3")]
)


def add_arguments(parser) -> None:
    add_m(parser, help="number of items m (>= 2); omit for the paper's experiment sizes")
    parser.add_argument("--edges", type=int, help="number of edges m' (1 <= m' <= m(m-1)); default m (permutation)")
    add_d_model(parser, help="embedding dimension d_model (>= 1)")
    add_heads(parser, help="heads h of a configuration to compare with the bounds")
    add_d_k(parser, help="per-head width d_k of that configuration")
    parser.add_argument("--max-degree", type=int, dest="max_degree",
                        help="maximum degree Delta for Theorem B.9 (default: ceil(m'/m))")
    parser.add_argument("--sheet", type=Path, help="write a markdown sheet of every formula to this path and exit")


def validate(args) -> None:
    """Check the options (a ValueError names the option): sizes in range, given together where they go together."""
    if args.sheet is not None:
        writable_file_target(str(args.sheet), "--sheet")  # refused before any folder is made
        return
    if args.m is None:
        if args.edges is not None or args.d_model is not None or args.heads is not None or args.d_k is not None:
            raise ValueError("m must be given (an integer >= 2) when edges, d_model, heads or d_k are")
        return
    m = check_int("--m", args.m, min_value=2)
    if args.d_model is None:
        raise ValueError("d_model must be given with --m (an integer >= 1)")
    if args.edges is not None:
        check_int("--edges", args.edges, min_value=1, max_value=m * (m - 1))
    if args.max_degree is not None:
        check_int("--max-degree", args.max_degree, min_value=1)
    if (args.heads is None) != (args.d_k is None):
        raise ValueError("heads and d_k must be given together (integers >= 1)")


def _certified(m: int) -> dict:
    """Exact constants from the theorem checker, or {} where it is not available."""
    try:
        from ..analysis import minimal_constants as K
    except ImportError:  # the theorem checker is optional
        return {}
    out = {}
    try:
        out["construction-i"] = K.certified_c_construction1(m)["C"]
        out["theorem-b1"] = K.certified_c_algorithm3(m, 0.25)["C"]
    except (ValueError, AttributeError):
        pass
    return out


def bound_rows(m: int, mp: int, d: int, delta: int | None = None) -> list[tuple[str, str, float | None, str]]:
    """(name, paper reference, value, note) for every bound and fit at (m, m', d_model)."""
    m = check_int("m", m, min_value=2)
    d = check_int("d_model", d, min_value=1)
    mp = check_int("edges", mp, min_value=1, max_value=m * (m - 1))
    delta = max(1, math.ceil(mp / m)) if delta is None else check_int("max_degree", delta, min_value=1)
    vals = {"m": m, "m'": mp, "d_model": d, "Delta": delta, "C": 1, "r": max(1, round(mp / m))}
    ev = lambda e: F.evaluate(e, vals)
    cert = _certified(m)
    rows = [
        ("lower bound rate (m'/d) ln(m^2/m')", "Eq. (24)", ev(F.lower_bound_rate()), "constant c(gamma) not fixed"),
        ("lower bound log2 binom(m(m-1),m')/(2d) - 1/(2d)", "Sec. 9", ev(F.bit_lower_bound_dDK(b_=1) / F.d_model),
         "bit budget, b = 1 bit/parameter"),
        ("Construction I: d_k = C ln m (needs d = m)", "Sec. 4", ev(F.dk_construction_i()) *
         cert.get("construction-i", 1.0), f"C = {cert['construction-i']:.2f} (certified)" if "construction-i" in cert else "C = 1 (not measured)"),
        ("Algorithm 3 (Bernoulli p=1/4): d_k = C ln m", "Theorem B.1", ev(F.dk_construction_i()) *
         cert.get("theorem-b1", 1.0), f"C = {cert['theorem-b1']:.2f} (certified)" if "theorem-b1" in cert else "C = 1 (not measured)"),
        ("Construction II: (m/d) C ln m", "Theorem 4.1", ev(F.DK_construction_ii()), "C = 1 (not measured)"),
        ("Construction III (RBCE): (m ln m/d) C ln m", "Corollary B.7", ev(F.DK_rbce()), "C = 1 (not measured)"),
        ("Construction IV: (ceil(m'/d) + Delta) C ln m", "Theorem B.9", ev(F.DK_construction_iv()),
         f"Delta = {delta}; C = 1 (not measured)"),
        ("Corollary B.10: ceil(m'/d) C ln m", "Corollary B.10", ev(F.DK_corollary_b10()),
         "needs (33): Delta <= m'/d" + ("" if delta <= mp / d else " (fails here)")),
        ("softmax: (m/d) C (ln m)^2", "Theorem 8.1", ev(F.DK_softmax()), "C >= 64 for gamma >= 3; shown with C = 1"),
        ("single head, Sec. 5: (m/d)^2 ln m", "Sec. 5", ev(F.DK_single_head_sec5(c2_=1)), "c_2 = 1"),
        ("single head, softmax (20)", "Eq. (20)", ev(F.DK_single_softmax()), "constants 1"),
        ("ratio (22): (m/d)/ln m", "Eq. (22)", ev(F.single_multi_ratio()), "> 1 iff single-head bound larger"),
        ("fit D_K* = 1.19 m ln m/d", "Sec. 6", ev(F.fit_sec6_DK(base="e")), "log read as natural"),
        ("fit D_K* = 1.19 m log2 m/d", "Sec. 6", ev(F.fit_sec6_DK(base="2")), "log read as base 2"),
        ("fit D_K* = 0.966 m ln m/d", "Sec. 6", ev(F.fit_sec6_DK(base="e", slope=sp.Rational(966, 1000))),
         "fit without the three d=16 points"),
        ("fit D_K* = 0.46 (m'/d) log2 m", "App. A.3", ev(F.fit_a3_DK()), "r = m'/m"),
        ("fit h* = 1.65 m/d - 6.64", "Sec. 6", ev(F.fit_sec6_heads()), "clipped at h >= 1 in the paper"),
    ]
    return rows


def _config_rows(m: int, mp: int, d: int, h: int, d_k: int) -> list[tuple[str, str, float | None, str]]:
    h = check_int("heads", h, min_value=1)
    d_k = check_int("d_k", d_k, min_value=1)
    DK = h * d_k
    B = math.ceil(m / h)
    n3 = F.evaluate(F.noise_n3(B, F.d_model, d_k, K_=1), {"m": m, "d_model": d})  # (B, d_model, d_k)
    lb = F.evaluate(F.lower_bound_rate(), {"m": m, "m'": mp, "d_model": d})
    return [
        ("configuration D_K = h d_k", "Sec. 3", float(DK), f"h = {h}, d_k = {d_k}"),
        ("D_K / lower-bound rate", "Eq. (24)", DK / lb if lb > 0 else None, "constant-free ratio"),
        ("block size B = ceil(m/h)", "Sec. 5", float(B), "targets per head"),
        ("N_3(B)/d_k = (B/d) sqrt(ln m / d_k)", "Eq. (1)", n3 / d_k, "K = 1; Eq. (2) asks this <= c_1"),
        ("d_k / (ln m)^2", "Theorem 8.1", d_k / math.log(m) ** 2, "Theorem 8.1 asks >= C (C >= 64)"),
    ]


def _fmt(v) -> str:
    if v is None:
        return "-"
    if abs(v) >= 1e5 or (0 < abs(v) < 1e-2):
        return f"{v:.3e}"
    return f"{v:.2f}"


def _print_single(args) -> int:
    m = args.m
    mp = m if args.edges is None else args.edges
    rows = bound_rows(m, mp, args.d_model, args.max_degree)
    if args.heads is not None:
        rows += _config_rows(m, mp, args.d_model, args.heads, args.d_k)
    print(f"Bounds at m = {m}, m' = {mp}, d_model = {args.d_model} (natural log unless marked)")
    w = max(len(r[0]) for r in rows)
    print(f"{'quantity':<{w}}  {'paper':<15} {'value':>11}  note")
    for name, ref, val, note in rows:
        print(f"{name:<{w}}  {ref:<15} {_fmt(val):>11}  {note}")
    return 0


def _print_paper_sizes() -> int:
    cols = [("lower", lambda v: F.evaluate(F.lower_bound_rate(), v)),
            ("bits/2d", lambda v: F.evaluate(F.bit_lower_bound_dDK(b_=1) / F.d_model, v)),
            ("II (C=1)", lambda v: F.evaluate(F.DK_construction_ii(Cc=1), v)),
            ("IV (C=1)", lambda v: F.evaluate(F.DK_construction_iv(Cc=1), v)),
            ("soft (C=1)", lambda v: F.evaluate(F.DK_softmax(Cc=1), v)),
            ("(22)", lambda v: F.evaluate(F.single_multi_ratio(), v)),
            ("fit6 ln", lambda v: F.evaluate(F.fit_sec6_DK(base="e"), v)),
            ("fit6 log2", lambda v: F.evaluate(F.fit_sec6_DK(base="2"), v)),
            ("fitA3", lambda v: F.evaluate(F.fit_a3_DK(), v)),
            ("h* fit", lambda v: F.evaluate(F.fit_sec6_heads(), v))]
    print("Bounds at the paper's experiment sizes (natural log; constants C = 1 where unmeasured; lower = (m'/d) ln(m^2/m'))")
    head = f"{'setting':<12} {'m':>5} {'m_prime':>7} {'d':>4} " + " ".join(f"{c:>10}" for c, _ in cols)
    print(head)
    for mm, mp, dd, label in _PAPER_SIZES:
        v = {"m": mm, "m'": mp, "d_model": dd, "Delta": max(1, mp // mm), "r": max(1, mp // mm)}
        vals = " ".join(f"{_fmt(fn(v)):>10}" for _, fn in cols)
        print(f"{label:<12} {mm:>5} {mp:>7} {dd:>4} {vals}")
    print("II: Theorem 4.1; IV: Theorem B.9 (Delta = m'/m); soft: Theorem 8.1; (22): single/multi ratio of Sec. 8.2; "
          "fit6: Sec. 6 (two log readings); fitA3: App. A.3 (32).")
    return 0


def sheet_entries() -> list[tuple[str, str, sp.Expr, tuple[str, ...]]]:
    """(name, paper reference, formula, claim ids) for the formula sheet."""
    return [
        ("ordered pairs N", "Sec. 9", F.n_ordered_pairs(), ()),
        ("bit budget B", "Sec. 9", F.bit_budget(), ("sec9-sym-parameter-count",)),
        ("bit lower bound on d_model D_K", "Sec. 9", F.bit_lower_bound_dDK(), ("sec9-sym-bit-budget-rearrangement",)),
        ("lower-bound rate", "Eq. (24)", F.lower_bound_rate(),
         ("sec9-sym-binomial-rate-equivalence", "sec9-sym-binomial-rate-half-domain", "eq24-sym-first-member-rate")),
        ("margin constant c(gamma)", "Eq. (23)", F.margin_constant(), ("eq23-sym-margin-constant",)),
        ("two-way softmax", "Eq. (28)", F.sigmoid(sp.Symbol("L_ij") - sp.Symbol("L_ii")), ("eq28-sym-two-way-softmax",)),
        ("permutation regime", "Sec. 9", F.lower_bound_permutation(), ("sec9-sym-regime-permutation",)),
        ("dense regime", "Sec. 9", F.lower_bound_dense(), ("sec9-sym-regime-dense",)),
        ("sparse regime", "Sec. 9", F.lower_bound_sparse(), ("sec9-sym-regime-sparse",)),
        ("Construction I union bound", "Sec. 4", F.union_bound_construction_i(), ("sec4-sym-construction1-union-bound",)),
        ("Theorem 4.1 budget", "Theorem 4.1", F.DK_construction_ii(), ("thm41-sym-budget-rate",)),
        ("N_3(B)", "Eq. (1)", F.noise_n3(), ("eq1-sym-noise-at-block-dmodel",)),
        ("width condition", "Eq. (2)", F.width_condition(), ("eq2-sym-width-condition",)),
        ("single head (Sec. 5)", "Sec. 5", F.DK_single_head_sec5(), ("sec5-sym-single-head-budget",)),
        ("multi head (Sec. 5)", "Sec. 5", F.DK_multi_head_sec5(),
         ("sec5-sym-multi-head-budget", "sec5-sym-multi-head-c3-condition", "sec5-sym-single-vs-multi-ratio")),
        ("calibration bound", "Lemma 8.2", F.calibration_bound(), ("lem82-sym-calibration",)),
        ("owner-head mass (9)", "Eq. (9)", F.eq9_bound(), ("eq9-sym-owner-head-mass",)),
        ("gamma", "Eq. (10)", F.eq10_gamma(), ("eq10-sym-exponent", "thm81-sym-gamma-feasible")),
        ("non-target mass (11)", "Eq. (11)", F.eq11_bound(), ("eq11-sym-owner-head-nontarget", "eq11-sym-target-absent")),
        ("Delta-tilde (13)", "Eq. (13)", F.delta_tilde(), ("eq15-sym-bernstein-deviation", "eq16-sym-union-bound")),
        ("A true lower (17)", "Eq. (17)", F.A_true_lower(), ("eq17-sym-aggregated-bounds", "thm81-sym-step5-true-target")),
        ("A false upper (18)", "Eq. (18)", F.A_false_upper(), ("eq17-sym-aggregated-bounds", "thm81-sym-step5-nontarget")),
        ("failure probability", "Theorem 8.1", F.theorem81_failure_probability(), ("thm81-sym-failure-probability",)),
        ("softmax budget", "Theorem 8.1", F.DK_softmax(), ("thm81-sym-step6-budget",)),
        ("width condition (19)", "Eq. (19)", F.dk_softmax_condition(), ("eq19-sym-max-vs-sum",)),
        ("single head (20)", "Eq. (20)", F.DK_single_softmax(), ("eq20-sym-single-head",)),
        ("multi head (21)", "Eq. (21)", F.DK_multi_softmax(), ("eq21-sym-multi-head",)),
        ("ratio (22)", "Eq. (22)", F.single_multi_ratio(), ("eq22-sym-ratio-identity", "eq22-sym-single-larger-compressive")),
        ("Theorem B.1 c_1", "Theorem B.1", F.b1_c1(), ("thmb1-sym-chernoff-exponents",)),
        ("Theorem B.1 c_2", "Theorem B.1", F.b1_c2(), ("thmb1-sym-chernoff-exponents",)),
        ("Theorem B.1 failure probability", "Theorem B.1", F.b1_failure_probability(),
         ("thmb1-sym-union-constant", "thmb1-sym-union-constant-corrected")),
        ("Theorem B.5 budget", "Theorem B.5", F.DK_construction_iii(), ("thmb5-sym-budget",)),
        ("Corollary B.7 budget", "Corollary B.7", F.DK_rbce(), ("corb7-sym-budget",)),
        ("Lemma B.8 heads", "Lemma B.8", F.heads_lemma_b8(), ("lemb8-sym-counting", "lemb8-sym-budget")),
        ("Theorem B.9 budget", "Theorem B.9", F.DK_construction_iv(), ("thmb9-sym-event-count",)),
        ("Corollary B.10 budget", "Corollary B.10", F.DK_corollary_b10(),
         ("corb10-sym-theta-log-m-prime", "corb10-sym-matches-lower-bound")),
        ("Sec. 6 fit (D_K*)", "Sec. 6", F.fit_sec6_DK(), ("sec6-sym-fits-sec6-vs-a3",)),
        ("Sec. 6 fit (h*)", "Sec. 6", F.fit_sec6_heads(), ("sec6-sym-heads-fit-range",)),
        ("App. A.3 fit", "App. A.3", F.fit_a3_DK(), ("sec6-sym-fits-sec6-vs-a3",)),
        ("App. C projection cost", "App. C", F.cost_projection_flops(), ("appc-sym-cost-model",)),
        ("App. C score cost", "App. C", F.cost_score_flops(), ("appc-sym-cost-model",)),
    ]


def write_sheet(path: Path) -> Path:
    """Write the markdown formula sheet (LaTeX, reference, ledger verdicts of the linked claims) to ``path``."""
    from ..claims import read_ledger

    ledger = read_ledger()
    lines = ["# Formula sheet (rgr-verify bounds --sheet)", "",
             "Every formula of `rgr_verify/core/formulas.py` rendered by sympy, with its paper reference and the ledger "
             "verdict of each claim that checks it. Natural log unless marked.", "",
             "| formula | paper | LaTeX | claims (ledger verdict) |", "| --- | --- | --- | --- |"]
    for name, ref, expr, ids in sheet_entries():
        verdicts = ", ".join(f"`{cid}`: {ledger[cid].status.value if cid in ledger else 'not in ledger'}" for cid in ids) or "-"
        lines.append(f"| {name} | {ref} | ${sp.latex(expr)}$ | {verdicts} |")
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"sheet: cannot write {path}: {exc.strerror}") from None
    return path


def run(args) -> int:
    with usage_errors():
        validate(args)
    if args.sheet is not None:
        try:
            out = write_sheet(args.sheet)
        except ValueError as exc:  # writable when checked, not now ("sheet: cannot write ...")
            raise UsageError(f"--{exc}") from None
        print(f"wrote {out} ({len(sheet_entries())} formulas)")
        return 0
    if args.m is None:
        return _print_paper_sizes()
    return _print_single(args)
