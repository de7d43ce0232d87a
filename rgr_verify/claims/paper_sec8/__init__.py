"""Claims of Sec. 8 (softmax model variant): Algorithm 2, Theorem 8.1 step by step, Lemmas 8.2-8.3 and
Sec. 8.2 (Proposition 8.4, Eqs. (19)-(22)), by topic.

- :mod:`.steps12`: Steps 1-2 of Theorem 8.1 (Eqs. (7)-(11), Lemma 8.2);
- :mod:`.step3`: Step 3 (Eqs. (14)-(16), Lemma 8.3) and the failure probability;
- :mod:`.conclusion`: Steps 4-6 (Eqs. (17)-(18)), the conclusion, its minimal constants and certificate;
- :mod:`.heads`: Sec. 8.2, the multi-head advantage under softmax (Proposition 8.4, Eqs. (19)-(22));
- :mod:`.common`: the Algorithm 2 instance and the paper's sizes they share.

Numeric checks run on the actual Algorithm 2 construction (``constructions.algorithm2``), on random draws, or on
generated inputs; the algebra of the proof (1/(1+u) >= 1-u, the exponent bookkeeping, ...) is checked
symbolically next to them. Readings: log is the natural log; a context holds its source i (queries are context
items), items are distinct, and Theorem 8.1's "for any fixed context" is read per fixed context (the union bound
of Step 3 runs over pairs (i, j), not contexts).

Findings recorded here:
- Eq. (11) fails for contexts that do not hold pi(i): the owner head's masses still sum to 1 over ell items.
- Eq. (14) (non-owner masses have conditional mean 1/ell) is false: given X, head k's logits have the
  non-exchangeable means sqrt(d_k) sum_{s in V_k} u_i(s) u_t(pi(s)) (App. B.2's E[S | X]).
- Lemma 8.3 is applied to Z = exp(L) with L sub-Gaussian, but exp of a Gaussian has infinite psi_1 norm.
- The background B_ij does not concentrate at an absolute C_2: the needed C_2 grows with d_k.
- Theorem 8.1's conclusion is not monotone in d_k: as d_k grows each non-owner head turns into an argmax over the
  context and puts mass ~1 on a wrong item, so "d_k >= C (log m)^2" cannot be sufficient.
"""
