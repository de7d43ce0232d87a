"""RGR itself: graphs, embeddings, contexts, scores, micro-F1, statistics, the formula sheet, Hypothesis strategies,
and the versions of the paper's text. Imports only ``basics``."""
