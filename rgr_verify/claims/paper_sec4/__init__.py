"""Claims of Sec. 4 (explicit constructions for RGR), by topic.

- :mod:`.constructions`: the monotonicity paragraph (generic max-over-heads and on constructed weights),
  Construction I (one-hot, Rademacher) and Algorithm 1's layout and budget;
- :mod:`.theorem41`: Theorem 4.1 (compressive embeddings): its minimal constants, its hypotheses at the paper's
  sizes, its separation in the d_k -> infinity limit and with high probability, and its budget.

Readings: natural log; d_k = ceil(C ln m); self-pairs (i, i) count as non-edges (docs/theorems.md).
"""
