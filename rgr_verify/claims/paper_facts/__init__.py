"""Claims of "Paying Attention to Facts" (arXiv 2502.05076), audited from a summary of the paper, by topic.

Only a summary is available (``shared/paper/004_*.txt``): each claim paraphrases it, quotes the label it names
(Proposition 2.1, Example 2.4, Propositions 3.5-3.7, Eq. (9), Figures 3-4) or ``Summary`` where it names none, and
records its reading. Where the summary leaves the wording open and the reading decides, the status is
inconclusive, never refuted.

- :mod:`.tensors`: database tensors (:mod:`rgr_verify.models.facts_tensors`): rank bounds with exact certificates
  (explicit decompositions above, flattening ranks over GF(p) below), slice ranks vs tensor rank in the 2x2x2 case
  over R and C, effective (argmax) rank;
- :mod:`.layer`: the attention-only layer (:mod:`rgr_verify.models.facts_model`): its circuit tensor, the rank bound of
  Eq. (9), Propositions 3.5-3.7, argmax/softmax rank inflation and its precision limits;
- :mod:`.training`: training analogues of the summary's experiments (ids ending ``-quick``, and the full tier),
  each rule fixed before running, with its chance of passing under a null.
"""

from .layer import certified_matrix_rank, random_layer

__all__ = ["certified_matrix_rank", "random_layer"]
