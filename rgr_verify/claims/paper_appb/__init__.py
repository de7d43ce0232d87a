"""Claims of App. B (further details on the explicit constructions), by topic: one module per construction.

- :mod:`.construction1`: App. B.1, Construction I with Bernoulli signatures (Algorithm 3, Theorem B.1);
- :mod:`.construction1_softmax`: App. B.1's remark that the threshold proof carries over to softmax;
- :mod:`.construction2`: App. B.2, Construction II (Algorithm 1, Theorem B.2: the score decomposition and its noise
  terms);
- :mod:`.lemma_b3`: Lemma B.3 (leakage and cross-correlations of Gaussian unit-norm embeddings);
- :mod:`.construction3`: App. B.3, Construction III (Definition B.4, Algorithm 4, Theorem B.5, Corollaries B.6-B.7);
- :mod:`.construction4`: App. B.4, Construction IV (Lemma B.8, Algorithm 5, Theorem B.9, condition (33),
  Corollary B.10) and the construction cost stated at the start of App. B.

Readings shared by all checks (docs/theorems.md): natural logarithms; d_k = ceil(C ln m); "separation" is over
every ordered pair of V including the self-pairs (i, i); a "sufficiently large constant" is measured as the
smallest value at which every one of n independent draws separates. Rates "with probability >= 1 - m^-3" are
certified exactly (exact binomial tails and a union bound, one-hot constructions) or by Monte Carlo at the smallest
rate the sample size certifies at false-alarm 1e-6; each claim's statement names the rate it checks. Rate
statements ("<~", "for an absolute constant") are checked by a size sweep and a fitted exponent with its 95%
interval (:func:`rgr_verify.claims.tools.exponent_verdict`). Exact expectations over random signatures or binary
embeddings are computed by enumerating every outcome of a small instance (sympy polynomials in p), so they are
proofs for that instance, not samples.
"""
