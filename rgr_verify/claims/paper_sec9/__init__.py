"""Claims of Sec. 9 (lower bounds on relational graph recognition), by topic.

- :mod:`.counting`: the counting argument of Theorem 9.2 (parameter count, bit budget, binomial rates, Eqs.
  (23)-(24), the three regimes), symbolic;
- :mod:`.theorem92`: Definition 9.1, Theorem 9.2's computable steps, Lemma 9.3 and the two-way softmax of
  Eqs. (28)-(29).
"""
