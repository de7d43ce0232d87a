"""rgr-verify: an executable audit of "A Capacity-Based Rationale for Multi-Head Attention" (arXiv 2509.22840),
and of "Paying Attention to Facts" (arXiv 2502.05076, from a summary) beside it.

The library holds the RGR task (graphs, embeddings, contexts), the scoring models, the claims registry and the
tools that checks are built from. Public names are re-exported here.
"""

from .basics.version import VERSION
from .models.constructions import (Construction, algorithm1, algorithm2, algorithm3, algorithm4, algorithm5, build,
                                   construction1)
from .models.edge_coloring import konig_edge_coloring
from .core.contexts import context_labels, in_context_neighbours, sample_context, sample_contexts, validate_context
from .core.embeddings import (
    binary_compressive_embeddings,
    embeddings_from_matrix,
    gaussian_unit_norm_embeddings,
    one_hot_embeddings,
)
from .models.facts_model import FactsConfig, circuit_rank_bound, circuit_tensor, train_facts_batch
from .runs.facts import ensure_facts_runs
from .models.facts_tensors import Database, database_from_triples, permutation_database, rank_bounds
from .core.graphs import Digraph, digraph_from_edges, permutation_graph, random_permutation_graph, random_regular_graph
from .analysis.measurements import noise_terms, normalised_margin, restricted_self_incoherence, separation_margins
from .core.metrics import confusion_counts, micro_f1
from .core.scoring import (
    AGGREGATIONS,
    aggregate_scores,
    concat_heads,
    context_embeddings,
    head_scores,
    linear_sum_scores,
    max_over_heads_scores,
    predict_edges,
    softmax_sum_scores,
    split_heads,
    value_readout,
)

__version__ = VERSION

__all__ = [
    "AGGREGATIONS",
    "Construction",
    "algorithm1",
    "algorithm2",
    "algorithm3",
    "algorithm4",
    "algorithm5",
    "build",
    "construction1",
    "konig_edge_coloring",
    "noise_terms",
    "normalised_margin",
    "restricted_self_incoherence",
    "separation_margins",
    "Digraph",
    "Database",
    "FactsConfig",
    "circuit_rank_bound",
    "circuit_tensor",
    "database_from_triples",
    "ensure_facts_runs",
    "permutation_database",
    "rank_bounds",
    "train_facts_batch",
    "aggregate_scores",
    "binary_compressive_embeddings",
    "concat_heads",
    "confusion_counts",
    "context_embeddings",
    "context_labels",
    "digraph_from_edges",
    "embeddings_from_matrix",
    "gaussian_unit_norm_embeddings",
    "head_scores",
    "in_context_neighbours",
    "linear_sum_scores",
    "max_over_heads_scores",
    "micro_f1",
    "one_hot_embeddings",
    "permutation_graph",
    "predict_edges",
    "random_permutation_graph",
    "random_regular_graph",
    "sample_context",
    "sample_contexts",
    "softmax_sum_scores",
    "split_heads",
    "validate_context",
    "value_readout",
]
