"""Every bound and formula of the paper as a sympy expression (Sec. 4, 5, 6, 8, 9, App. A.3, B, C).

Symbols carry their domains as sympy assumptions (positive, integer) and, where sympy has no assumption for it
(m >= 2, 1 <= m' <= m(m-1), d_model >= 1, ...), in :data:`DOMAINS`, which the claims and the ``bounds``
command use for grids and validation. Functions return expressions in these symbols by default; pass numbers
(or other expressions) to substitute. ``log`` is the natural logarithm unless a function takes ``base``: where the
paper leaves the base unstated (Sec. 6: "m log m / d_model") both readings are available.

Absolute constants the paper leaves unspecified (C, c_0, C_ell, ...) are symbols too; :func:`evaluate` fills
them with the values a caller supplies (the ``bounds`` command prints them as "not measured" unless a measured
value exists).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..basics.checks import check_choice

__all__ = [
    "m", "mp", "d_model", "h", "d_k", "D_K", "ell", "B", "b", "r", "p", "Delta", "gamma", "C", "c0", "C_ell",
    "C1", "C2", "c1", "c2", "c3", "K", "lam", "eps", "t",
    "DOMAINS", "Domain", "LOG_BASES", "log_b",
    # Sec. 9
    "n_ordered_pairs", "n_qk_parameters", "bit_budget", "log_binomial", "log_labelings", "bit_lower_bound_dDK",
    "lower_bound_rate", "margin_constant",
    "lower_bound_permutation", "lower_bound_dense", "lower_bound_sparse", "sigmoid",
    # constructions
    "dk_construction_i", "union_bound_construction_i", "heads_construction_ii", "dk_construction_ii",
    "DK_construction_ii", "DK_construction_iii", "DK_gun", "DK_rbce", "heads_lemma_b8", "DK_construction_iv",
    "DK_construction_iv_rate", "DK_corollary_b10", "DK_softmax",
    # Sec. 5 / 8.2
    "noise_n3", "width_condition", "DK_single_head_sec5", "DK_multi_head_sec5", "dk_softmax_condition",
    "DK_single_softmax", "DK_multi_softmax", "single_multi_ratio",
    # Sec. 8.1
    "calibration_bound", "eq9_bound", "eq10_gamma", "eq11_bound", "delta_tilde", "background_mean",
    "A_true_lower", "A_false_upper", "step5_false_upper", "theorem81_failure_probability",
    # App. B.1
    "b1_mu1", "b1_mu2", "b1_tau", "b1_delta1", "b1_delta2", "b1_c1", "b1_c2", "b1_failure_probability",
    "b1_claimed_C", "b1_sufficient_C",
    # Sec. 6 / App. A.3
    "fit_sec6_DK", "fit_sec6_heads", "fit_a3_DK", "fit_a3_x",
    # App. C
    "cost_projection_flops", "cost_score_flops", "cost_parameters",
    "evaluate",
]

# ---------------------------------------------------------------------------------------------------- symbols
m = sp.Symbol("m", integer=True, positive=True)  # number of items (vertices), m >= 2
mp = sp.Symbol("m'", integer=True, positive=True)  # number of edges m', 1 <= m' <= m(m-1)
d_model = sp.Symbol("d_model", integer=True, positive=True)  # embedding dimension, >= 1
h = sp.Symbol("h", integer=True, positive=True)  # number of heads
d_k = sp.Symbol("d_k", positive=True)  # per-head key width (real so that Theta statements can be taken as limits)
D_K = sp.Symbol("D_K", positive=True)  # total key dimension h d_k
ell = sp.Symbol("ell", integer=True, positive=True)  # context length, 2 <= ell <= m
B = sp.Symbol("B", positive=True)  # block size: targets served by one head
b = sp.Symbol("b", positive=True)  # effective bits per parameter (Sec. 9 warm-up)
r = sp.Symbol("r", integer=True, positive=True)  # out-degree of an r-regular graph (App. A.3)
p = sp.Symbol("p", positive=True)  # Bernoulli signature probability (App. B.1, B.3), 0 < p < 1/2
Delta = sp.Symbol("Delta", integer=True, positive=True)  # max degree (App. B.4)
gamma = sp.Symbol("gamma", positive=True)  # margin (Theorem 9.2) or softmax exponent (Theorem 8.1)
C = sp.Symbol("C", positive=True)  # "sufficiently large absolute constant" of a construction
c0 = sp.Symbol("c_0", positive=True)  # d_model >= c_0 log m
C_ell = sp.Symbol("C_ell", positive=True)  # ell >= C_ell max{h, log m} (Theorem 8.1)
C1 = sp.Symbol("C_1", positive=True)  # softmax floor constant in (19)
C2 = sp.Symbol("C_2", positive=True)  # leakage constant in (19) / Delta-tilde constant in (13)
c1 = sp.Symbol("c_1", positive=True)  # margin fraction in (2)
c2 = sp.Symbol("c_2", positive=True)  # width constant in (2)
c3 = sp.Symbol("c_3", positive=True)  # multi-head width constant of Sec. 5
K = sp.Symbol("K", positive=True)  # the hidden constant of the asymptotic relation (1)
lam = sp.Symbol("lambda", positive=True)  # compression m / d_model (Sec. 6 writes lambda and r)
eps = sp.Symbol("epsilon", positive=True)  # sparse-regime exponent m' = O(m^(2-eps)); or a failure level
t = sp.Symbol("t", positive=True)  # Bernstein deviation parameter in (15)


@dataclass(frozen=True)
class Domain:
    """A symbol's stated domain: ``low <= value <= high`` (high None: unbounded), integrality, and its source."""

    low: float
    high: float | None
    integer: bool
    source: str


DOMAINS = {
    m: Domain(2, None, True, "Sec. 1: a graph on m items; m >= 2 so that log m > 0"),
    mp: Domain(1, None, True, "Theorem 9.2: m' in {0, ..., m(m-1)} (m' >= 1 for the logs)"),
    d_model: Domain(1, None, True, "Sec. 3: embeddings in R^d_model"),
    h: Domain(1, None, True, "Sec. 3"),
    d_k: Domain(1, None, False, "Sec. 3 (integer in the model; real for limits)"),
    D_K: Domain(1, None, False, "Sec. 3: D_K = h d_k"),
    ell: Domain(2, None, True, "Theorem 9.2: contexts of length ell >= 2; ell <= m"),
    B: Domain(1, None, False, "Sec. 5: block size, 1 <= B <= m"),
    b: Domain(1, None, False, "Sec. 9: b = Theta(1) bits per parameter"),
    r: Domain(1, None, True, "App. A.3: r-regular"),
    p: Domain(0, 0.5, False, "Algorithm 3: p in (0, 1/2); Algorithm 4: p <= 1/20"),
    Delta: Domain(1, None, True, "App. B.4: maximum degree"),
    gamma: Domain(0, 1, False, "Theorem 9.2: margin gamma in (0, 1)"),
}

LOG_BASES = ("e", "2")


def log_b(x, base: str = "e") -> sp.Expr:
    """``log x`` in base e (``"e"``) or 2 (``"2"``)."""
    check_choice("base", base, LOG_BASES)
    return sp.log(x) if base == "e" else sp.log(x, 2)


# ------------------------------------------------------------------------------- Sec. 9: lower bounds
def n_ordered_pairs(m_=m) -> sp.Expr:
    """N = m(m-1): ordered loop-free pairs (Sec. 9)."""
    return m_ * (m_ - 1)


def n_qk_parameters(d=d_model, DK=D_K) -> sp.Expr:
    """2 d_model D_K + 1: entries of W_Q, W_K (each d_model x D_K) and the threshold tau."""
    return 2 * d * DK + 1


def bit_budget(b_=b, d=d_model, DK=D_K) -> sp.Expr:
    """B = b (2 d_model D_K + 1) bits (Sec. 9 warm-up)."""
    return b_ * n_qk_parameters(d, DK)


def log_binomial(n, k, base: str = "e") -> sp.Expr:
    """log binom(n, k) through log-gamma (exact for integers, smooth for limits): lgamma(n+1)-lgamma(k+1)-lgamma(n-k+1)."""
    e = sp.loggamma(n + 1) - sp.loggamma(k + 1) - sp.loggamma(n - k + 1)
    return e if base == "e" else e / sp.log(2)


def log_labelings(m_=m, mp_=mp, base: str = "e") -> sp.Expr:
    """log binom(m(m-1), m'): log of the number of graphs in G_{m,m'} (Sec. 9, Eq. (23))."""
    return log_binomial(n_ordered_pairs(m_), mp_, base)


def bit_lower_bound_dDK(b_=b, m_=m, mp_=mp) -> sp.Expr:
    """Rearranged 2^B >= binom(N, m'): d_model D_K >= log2 binom(N, m') / (2b) - 1/2 (Sec. 9 warm-up)."""
    return log_labelings(m_, mp_, "2") / (2 * b_) - sp.Rational(1, 2)


def lower_bound_rate(m_=m, mp_=mp, d=d_model) -> sp.Expr:
    """(m'/d_model) log(m^2/m'): the asymptotic form of the lower bound (Eq. (24), Sec. 1, Sec. 8)."""
    return mp_ / d * sp.log(m_**2 / mp_)


def margin_constant(Cp=C, g=gamma) -> sp.Expr:
    """c(gamma) = 1 / (2 log(C'/gamma)): the constant of (23) from binom <= (C'/gamma)^(2 d D_K + 1)."""
    return 1 / (2 * sp.log(Cp / g))


def lower_bound_permutation(m_=m, d=d_model) -> sp.Expr:
    """m' = m: (m' log m) / d_model (Sec. 9, first regime)."""
    return m_ * sp.log(m_) / d


def lower_bound_dense(mp_=mp, d=d_model) -> sp.Expr:
    """m' = Theta(m^2): m' / d_model (Sec. 9, second regime)."""
    return mp_ / d


def lower_bound_sparse(m_=m, mp_=mp, d=d_model) -> sp.Expr:
    """m' = O(m^(2-eps)): m' log m / d_model (Sec. 9, third regime)."""
    return mp_ * sp.log(m_) / d


def sigmoid(x) -> sp.Expr:
    """sigma(x) = 1 / (1 + e^(-x)); the two-way softmax of Eq. (28)."""
    return 1 / (1 + sp.exp(-x))


# ------------------------------------------------------------------------------- constructions (Sec. 4, 8, B)
def dk_construction_i(Cc=C, m_=m) -> sp.Expr:
    """Construction I / Theorem B.1: d_k = C log m, one head, so D_K = d_k."""
    return Cc * sp.log(m_)


def union_bound_construction_i(m_=m, dk=d_k) -> sp.Expr:
    """Sec. 4, Construction I (Rademacher, tau = d_k/2): m(m-1) * 2 exp(-d_k/8) (Hoeffding at deviation d_k/2)."""
    return n_ordered_pairs(m_) * 2 * sp.exp(-dk / 8)


def heads_construction_ii(m_=m, d=d_model) -> sp.Expr:
    """h = m / d_model (Algorithm 1, Theorem 4.1)."""
    return m_ / d


def dk_construction_ii(Cc=C, m_=m) -> sp.Expr:
    """d_k = C log m (Algorithm 1)."""
    return Cc * sp.log(m_)


def DK_construction_ii(Cc=C, m_=m, d=d_model) -> sp.Expr:
    """D_K = h d_k = (m / d_model) C log m (Theorem 4.1 / B.2)."""
    return heads_construction_ii(m_, d) * dk_construction_ii(Cc, m_)


def DK_construction_iii(Cc=C, m_=m, B_=B) -> sp.Expr:
    """Theorem B.5: h = ceil(m/B) heads of width C log m, D_K = ceil(m/B) C log m = Theta(m log m / B)."""
    return sp.ceiling(m_ / B_) * Cc * sp.log(m_)


def DK_gun(Cc=C, m_=m, d=d_model) -> sp.Expr:
    """Corollary B.6 (Gaussian unit-norm) with B = d_model: D_K = Theta(m log m / d_model)."""
    return DK_construction_iii(Cc, m_, d)


def DK_rbce(Cc=C, m_=m, d=d_model) -> sp.Expr:
    """Corollary B.7 (random binary) with B = d_model / log m: D_K = Theta(m log^2 m / d_model)."""
    return m_ * sp.log(m_) / d * Cc * sp.log(m_)


def heads_lemma_b8(mp_=mp, d=d_model, Delta_=Delta) -> sp.Expr:
    """H = ceil(m'/d_model) + Delta matchings (Lemma B.8, Algorithm 5)."""
    return sp.ceiling(mp_ / d) + Delta_


def DK_construction_iv(Cc=C, m_=m, mp_=mp, d=d_model, Delta_=Delta) -> sp.Expr:
    """D_K = (ceil(m'/d_model) + Delta) C log m (Theorem B.9)."""
    return heads_lemma_b8(mp_, d, Delta_) * Cc * sp.log(m_)


def DK_construction_iv_rate(m_=m, mp_=mp, d=d_model, Delta_=Delta, log_of=None) -> sp.Expr:
    """(m'/d_model + Delta) log X with X = m (Theorem B.9) or X = m' (Sec. 1 states log m')."""
    return (mp_ / d + Delta_) * sp.log(m_ if log_of is None else log_of)


def DK_corollary_b10(Cc=C, m_=m, mp_=mp, d=d_model) -> sp.Expr:
    """Corollary B.10: h_0 = ceil(m'/d_model) heads of width C log m."""
    return sp.ceiling(mp_ / d) * Cc * sp.log(m_)


def DK_softmax(Cc=C, m_=m, d=d_model) -> sp.Expr:
    """Theorem 8.1 / Algorithm 2: h = m/d_model heads, d_k = C (log m)^2, D_K = (m/d_model) C (log m)^2."""
    return m_ / d * Cc * sp.log(m_) ** 2


# ------------------------------------------------------------------------------- Sec. 5 and Sec. 8.2
def noise_n3(B_=B, d=d_model, dk=d_k, m_=m, K_=K) -> sp.Expr:
    """Eq. (1): N_3(B) = K (B / d_model) sqrt(d_k log m), K the constant hidden by the asymptotic sign."""
    return K_ * B_ / d * sp.sqrt(dk * sp.log(m_))


def width_condition(B_=B, d=d_model, m_=m, c1_=c1, K_=K) -> sp.Expr:
    """Eq. (2): N_3(B) <= c_1 d_k  <=>  d_k >= (K/c_1)^2 (B/d_model)^2 log m; returns the right-hand side."""
    return (K_ / c1_) ** 2 * B_**2 / d**2 * sp.log(m_)


def DK_single_head_sec5(m_=m, d=d_model, c2_=c2) -> sp.Expr:
    """Sec. 5, one head (B = m, D_K = d_k): D_K >= c_2 (m^2 / d_model^2) log m."""
    return c2_ * m_**2 / d**2 * sp.log(m_)


def DK_multi_head_sec5(m_=m, d=d_model, c3_=c3) -> sp.Expr:
    """Sec. 5, m/d_model heads with d_k = c_3 log m: D_K = (m / d_model) c_3 log m."""
    return m_ / d * c3_ * sp.log(m_)


def dk_softmax_condition(ell_=ell, B_=B, d=d_model, m_=m, C1_=C1, C2_=C2) -> sp.Expr:
    """Eq. (19): d_k >= max{C_1 (log ell)^2, C_2 (B/d_model)^2 log m}."""
    return sp.Max(C1_ * sp.log(ell_) ** 2, C2_ * B_**2 / d**2 * sp.log(m_))


def DK_single_softmax(m_=m, d=d_model) -> sp.Expr:
    """Eq. (20) without constants: (m^2/d_model^2) log m + (log m)^2."""
    return m_**2 / d**2 * sp.log(m_) + sp.log(m_) ** 2


def DK_multi_softmax(m_=m, d=d_model) -> sp.Expr:
    """Eq. (21) without constants: (m/d_model) (log m)^2."""
    return m_ / d * sp.log(m_) ** 2


def single_multi_ratio(m_=m, d=d_model) -> sp.Expr:
    """Eq. (22): ((m^2/d^2) log m) / ((m/d)(log m)^2), the ratio the paper simplifies to (m/d_model)/log m."""
    return (m_**2 / d**2 * sp.log(m_)) / (m_ / d * sp.log(m_) ** 2)


# ------------------------------------------------------------------------------- Sec. 8.1 (Theorem 8.1)
def calibration_bound(ell_=ell, a=sp.Symbol("a"), b_=sp.Symbol("b_")) -> sp.Expr:
    """Lemma 8.2: softmax mass of the top item >= 1 / (1 + (ell - 1) e^{-(a - b)})."""
    return 1 / (1 + (ell_ - 1) * sp.exp(-(a - b_)))


def eq9_bound(ell_=ell, dk=d_k) -> sp.Expr:
    """Eq. (9): 1 / (1 + (ell - 1) e^{-sqrt(d_k)/2})."""
    return calibration_bound(ell_, sp.Rational(3, 4) * sp.sqrt(dk), sp.Rational(1, 4) * sp.sqrt(dk))


def eq10_gamma(Cc=C) -> sp.Expr:
    """gamma = sqrt(C)/2 - 1 (Step 2 of Theorem 8.1)."""
    return sp.sqrt(Cc) / 2 - 1


def eq11_bound(dk=d_k) -> sp.Expr:
    """Eq. (11): e^{sqrt(d_k)/4} / e^{3 sqrt(d_k)/4} = e^{-sqrt(d_k)/2}."""
    return sp.exp(sp.sqrt(dk) / 4) / sp.exp(3 * sp.sqrt(dk) / 4)


def delta_tilde(ell_=ell, h_=h, m_=m, C2_=C2) -> sp.Expr:
    """Eq. (13): (C_2 / ell)(sqrt(h log m) + log m)."""
    return C2_ / ell_ * (sp.sqrt(h_ * sp.log(m_)) + sp.log(m_))


def background_mean(ell_=ell, h_=h) -> sp.Expr:
    """E[B_ij] = (h - 1) / ell (Eq. (14) summed over the h - 1 non-owner heads)."""
    return (h_ - 1) / ell_


def A_true_lower(m_=m, g=gamma, ell_=ell, h_=h, C2_=C2) -> sp.Expr:
    """Eq. (17): (1 - m^-gamma) + (h-1)/ell - Delta_tilde."""
    return (1 - m_ ** (-g)) + background_mean(ell_, h_) - delta_tilde(ell_, h_, m_, C2_)


def A_false_upper(m_=m, g=gamma, ell_=ell, h_=h, C2_=C2) -> sp.Expr:
    """Eq. (18): m^-gamma + (h-1)/ell + Delta_tilde."""
    return m_ ** (-g) + background_mean(ell_, h_) + delta_tilde(ell_, h_, m_, C2_)


def step5_false_upper(m_=m, g=gamma, Cl=C_ell, C2_=C2) -> sp.Expr:
    """Step 5(ii): m^-gamma + (1 + 2 C_2) / C_ell."""
    return m_ ** (-g) + (1 + 2 * C2_) / Cl


def theorem81_failure_probability(m_=m) -> sp.Expr:
    """Failure events the proof of Theorem 8.1 uses: Step 1 (Theorem 4.1, m^-3) + Step 3 (m^2 pairs x 2 m^-6)."""
    return m_ ** (-3) + m_**2 * 2 * m_ ** (-6)


# ------------------------------------------------------------------------------- App. B.1 (Theorem B.1)
def b1_mu1(p_=p, dk=d_k) -> sp.Expr:
    """mu_1 = d_k p: mean of S_{i,pi(i)} ~ Binomial(d_k, p)."""
    return dk * p_


def b1_mu2(p_=p, dk=d_k) -> sp.Expr:
    """mu_2 = d_k p^2: mean of S_ij ~ Binomial(d_k, p^2)."""
    return dk * p_**2


def b1_tau(p_=p, dk=d_k) -> sp.Expr:
    """tau = (mu_1 + mu_2) / 2."""
    return (b1_mu1(p_, dk) + b1_mu2(p_, dk)) / 2


def b1_delta1(p_=p) -> sp.Expr:
    """delta_1 = 1 - tau / mu_1."""
    return 1 - b1_tau(p_, d_k) / b1_mu1(p_, d_k)


def b1_delta2(p_=p) -> sp.Expr:
    """delta_2 = tau / mu_2 - 1."""
    return b1_tau(p_, d_k) / b1_mu2(p_, d_k) - 1


def b1_c1(p_=p) -> sp.Expr:
    """c_1 = p (1-p)^2 / 8, as the paper states it."""
    return p_ * (1 - p_) ** 2 / 8


def b1_c2(p_=p) -> sp.Expr:
    """c_2 = p (1-p)^2 / (2 (1 + 3p)), as the paper states it."""
    return p_ * (1 - p_) ** 2 / (2 * (1 + 3 * p_))


def b1_failure_probability(m_=m, dk=d_k, p_=p) -> sp.Expr:
    """Union bound of Theorem B.1: m e^{-c_1 d_k} + m^2 e^{-c_2 d_k}."""
    return m_ * sp.exp(-b1_c1(p_) * dk) + m_**2 * sp.exp(-b1_c2(p_) * dk)


def b1_claimed_C(p_=p) -> sp.Expr:
    """The paper's sufficient constant: C > max{3/c_1, 2/c_2}."""
    return sp.Max(3 / b1_c1(p_), 2 / b1_c2(p_))


def b1_sufficient_C(p_=p, m_=m) -> sp.Expr:
    """A constant that does give failure <= m^-3 at d_k = C log m: each term <= m^-3 / 2."""
    slack = sp.log(2) / sp.log(m_)
    return sp.Max((4 + slack) / b1_c1(p_), (5 + slack) / b1_c2(p_))


# ------------------------------------------------------------------------------- Sec. 6 / App. A.3 fits
def fit_sec6_DK(m_=m, d=d_model, base: str = "e", slope=sp.Rational(119, 100)) -> sp.Expr:
    """Sec. 6: D_K* ~ 1.19 m log m / d_model (R^2 0.944); slope 0.966 without the three d_model=16, m>64 points.

    The base of "log" is unstated in Sec. 6: ``base`` selects the reading.
    """
    return slope * m_ * log_b(m_, base) / d


def fit_sec6_heads(m_=m, d=d_model) -> sp.Expr:
    """Sec. 6: h* ~ 1.65 m / d_model - 6.64 (R^2 0.824)."""
    return sp.Rational(165, 100) * m_ / d - sp.Rational(664, 100)


def fit_a3_x(r_=r, m_=m, d=d_model) -> sp.Expr:
    """Eq. (31): x = (m'/d_model) log2 m = (r m / d_model) log2 m."""
    return r_ * m_ / d * sp.log(m_, 2)


def fit_a3_DK(r_=r, m_=m, d=d_model) -> sp.Expr:
    """Eq. (32): D_K* ~ 0.46 x."""
    return sp.Rational(46, 100) * fit_a3_x(r_, m_, d)


# ------------------------------------------------------------------------------- App. C cost model
def cost_projection_flops(ell_=ell, d=d_model, h_=h, dk=d_k) -> sp.Expr:
    """App. C: forming Q_total and K_total costs ell d_model h d_k (per matrix, up to the factor 2 of a MAC)."""
    return ell_ * d * h_ * dk


def cost_score_flops(ell_=ell, h_=h, dk=d_k) -> sp.Expr:
    """App. C: all per-head score matrices cost h ell^2 d_k."""
    return h_ * ell_**2 * dk


def cost_parameters(d=d_model, h_=h, dk=d_k) -> sp.Expr:
    """App. C: W_Q^cat and W_K^cat hold 2 d_model h d_k parameters."""
    return 2 * d * h_ * dk


def evaluate(expr: sp.Expr, values: dict) -> float:
    """``expr`` with ``values`` (symbol or name -> number) substituted, as a float; ValueError if symbols remain."""
    import mpmath

    expr = sp.sympify(expr)
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    given = {(k.name if isinstance(k, sp.Symbol) else str(k)): v for k, v in values.items()}
    missing = [s.name for s in syms if s.name not in given]
    if missing:
        raise ValueError(f"values must give every symbol of the expression; missing {missing}")
    fn = sp.lambdify(syms, expr, modules="mpmath")  # numeric evaluation: no exact log-gamma of huge integers
    with mpmath.workdps(30):
        out = fn(*[mpmath.mpf(given[s.name]) for s in syms])
    return float(mpmath.re(out))
