"""The Sec. 7.3 task's sampling: permutations, examples, and the batched sampler of the training loop.

Each run draws from its own generators (:func:`run_generator`, keyed by its seed and a purpose), so its examples do
not depend on which runs share its batch. :func:`stack_examples` draws R runs' examples at once: only the random
draws are per run (each from its run's generator, in a fixed order), the selection, shuffle and labels run once
for all runs. :mod:`rgr_verify.models.transformer` trains on them. A change of what they draw needs a new declared code
version of the Sec. 7.3 trainers (:data:`rgr_verify.runs.sec73_keys.CODE_VERSIONS`; the golden test says so).
"""

from __future__ import annotations

import numpy as np
import torch

from ..basics.checks import check_int

__all__ = ["run_generator", "sample_permutation", "sample_examples", "moved_items", "pack_runs", "stack_examples",
           "check_generator"]


def run_generator(seed: int, *keys: int, device="cpu") -> torch.Generator:
    state = np.random.SeedSequence([int(seed), *keys]).generate_state(2, dtype=np.uint32)
    g = torch.Generator(device=device)
    g.manual_seed(int(state[0]) << 32 | int(state[1]))
    return g


def sample_permutation(m: int, *, generator: torch.Generator) -> torch.Tensor:
    """A uniform random permutation pi of [m] as an int64 tensor ``[m]`` (pi[q] is q's successor), drawn on the
    CPU from ``generator`` (a CPU generator) so that pi does not depend on the training device."""
    m = check_int("m", m, min_value=3)
    check_generator(generator)
    return torch.randperm(m, generator=generator)


def sample_examples(perm: torch.Tensor, n: int, ell: int, *, generator: torch.Generator):
    """n examples of the permutation->matching task (Sec. 7.3) for the permutation ``perm`` ``[m]``.

    q is uniform over the non-fixed points of pi (rejecting pi(q) = q), s = pi(q); S holds 2l-1 distinct items
    other than q and s; the 2l items S + {s} are shuffled and paired (2i, 2i+1); the label is s's partner.

    Returns ``(pairs [n, l, 2], query [n], label [n])``, int64 item indices in [0, m), on perm's device
    (``generator`` must live on that device).
    """
    if not isinstance(perm, torch.Tensor) or perm.ndim != 1:
        raise ValueError("perm must be a 1-d torch tensor holding a permutation of [m]")
    m = perm.numel()
    n = check_int("n", n, min_value=1)
    ell = check_int("ell", ell, min_value=1)
    if 2 * ell + 1 > m:
        raise ValueError(f"ell must satisfy 2*ell + 1 <= m = {m}, got {ell}")
    check_generator(generator)
    dev = perm.device
    if generator.device.type != dev.type:
        raise ValueError(f"generator must live on perm's device ({dev.type}), got {generator.device.type}")
    moved = moved_items(perm)
    if moved.numel() == 0:
        raise ValueError("perm must move at least one item (pi(q) = q for every q leaves no valid query)")
    return _sample_from(perm, moved, n, ell, generator)


def moved_items(perm: torch.Tensor) -> torch.Tensor:
    """The valid queries ``[k]``: items q with pi(q) != q (``nonzero`` waits for the device: call it once per run)."""
    return torch.nonzero(perm != torch.arange(perm.numel(), device=perm.device)).flatten()


def _sample_from(perm, moved, n, ell, generator):
    """:func:`sample_examples` given the valid queries ``moved`` (unchecked); never waits for the device."""
    return tuple(t[0] for t in stack_examples(pack_runs([perm], [moved]), n, ell, [generator]))


def pack_runs(perms, moved):
    """R runs' permutations and valid queries as ``(perms [R, m], valid [R, m] zero-padded, counts)``, on their
    device (built once per batch of runs; ``counts[r]`` = the number of run r's valid queries)."""
    valid = torch.zeros(len(perms), perms[0].numel(), dtype=torch.int64, device=perms[0].device)
    for r, q in enumerate(moved):
        valid[r, : q.numel()] = q
    return torch.stack(perms), valid, [q.numel() for q in moved]


def stack_examples(packed, n, ell, gens):
    """n examples for each of R runs: pairs ``[R, n, l, 2]``, query and label ``[R, n]``, on the perms' device.

    Run r draws from its own generator ``gens[r]``, in this order: n query indices (uniform over ``moved[r]``), an
    ``[n, m]`` block of uniform keys, an ``[n, 2l]`` block of uniform shuffle keys. Only these draws are per run;
    the selection (the 2l - 1 smallest keys other than q and s), the shuffle and the labels run once for all R
    runs, so a step launches a few kernels per run instead of a dozen (each run's examples are those it would
    draw alone: its generator's stream is the same, and the selection acts row by row).
    """
    perms, valid, counts = packed  # from _pack
    (R, m), dev = perms.shape, perms.device
    idx = torch.empty(R, n, dtype=torch.int64, device=dev)
    keys = torch.empty(R, n, m, device=dev)
    shuffle = torch.empty(R, n, 2 * ell, device=dev)
    for r, (k, g) in enumerate(zip(counts, gens)):
        torch.randint(k, (n,), generator=g, device=dev, out=idx[r])
        torch.rand(n, m, generator=g, device=dev, out=keys[r])
        torch.rand(n, 2 * ell, generator=g, device=dev, out=shuffle[r])
    query = torch.gather(valid, 1, idx)  # [R, n]
    succ = torch.gather(perms, 1, query)  # [R, n]
    keys.scatter_(2, query[..., None], 2.0)  # q and s are never distractors
    keys.scatter_(2, succ[..., None], 2.0)
    others = torch.topk(keys, 2 * ell - 1, dim=2, largest=False).indices  # [R, n, 2l-1], distinct
    items = torch.cat([succ[..., None], others], dim=2)  # [R, n, 2l]
    order = torch.argsort(shuffle, dim=2)
    items = torch.gather(items, 2, order)  # shuffled; pairs are (2i, 2i+1)
    pos = torch.argmax((order == 0).to(torch.int64), dim=2, keepdim=True)  # where s landed
    label = torch.gather(items, 2, pos ^ 1)[..., 0]  # its partner
    return items.view(R, n, ell, 2), query, label


def check_generator(generator) -> None:
    """ValueError unless ``generator`` is a torch.Generator."""
    if not isinstance(generator, torch.Generator):
        raise ValueError(f"generator must be a torch.Generator, got {type(generator).__name__}")
