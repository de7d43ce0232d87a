"""What the Sec. 8 claims share: an Algorithm 2 instance, the softmax width, the paper's sizes.

Not a claims module (no ``CLAIMS``).
"""

from __future__ import annotations

import math

import numpy as np

from ...models.constructions import algorithm2
from ...core.embeddings import gaussian_unit_norm_embeddings
from ...core.graphs import random_permutation_graph

from ..tools.builders import with_role

__all__ = ["proof_step", "theorem81_length", "FALSE_ALARM", "PAPER_DIAGONAL", "PAPER_ELL", "algorithm2_instance", "softmax_dk"]


def theorem81_length(pt) -> bool:  # ell >= C_ell max{h, log m} with C_ell >= 8(1 + 2 C_2) >= 8, h >= 1
    """Whether the grid point ``pt`` ({"ell", "m", ...}) meets Theorem 8.1's context length at its smallest constants."""
    return pt["ell"] >= 8 * max(1.0, math.log(pt["m"]))


FALSE_ALARM = 1e-6  # every statistical verdict in this module is taken at this false-alarm rate

# (m, d_model) of the paper's r = m/d_model = 8 diagonal (Sec. 6.1); the softmax experiments use ell = 16 (Sec. 7).
PAPER_DIAGONAL = ((128, 16), (256, 32), (512, 64), (1024, 128), (2048, 256), (4096, 512))

PAPER_ELL = 16


def algorithm2_instance(m: int, d_model: int, d_k: int, rng: np.random.Generator, *, block_size: int | None = None):
    """Algorithm 2 on a random permutation graph of m items with Gaussian unit-norm embeddings (all drawn from
    ``rng``); validation is the builders'."""
    graph = random_permutation_graph(m, rng=rng)
    X = gaussian_unit_norm_embeddings(m, d_model, rng=rng)
    return algorithm2(graph, X, d_k=d_k, rng=rng, block_size=block_size)


def softmax_dk(C: float, m: int) -> int:
    """Theorem 8.1's per-head width d_k = max(1, ceil(C (ln m)^2)); ValueError for C <= 0 or m < 2."""
    if not C > 0 or not m >= 2:
        raise ValueError(f"need C > 0 and m >= 2, got C={C!r}, m={m!r}")
    return max(1, int(math.ceil(C * math.log(m) ** 2)))




def proof_step(claim, serves: str = "Theorem 8.1"):
    """``claim`` declared a step of the proof of ``serves`` (a failing step reads as a proof gap of that result)."""
    return with_role(claim, "proof-step", serves)
