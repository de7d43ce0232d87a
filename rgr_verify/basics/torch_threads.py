"""One way to run a block with a given number of torch CPU threads and restore the count after it.

Training is chaotic: another summation order (another CPU thread count) changes every run's numbers, so the audit
trains on one thread where a record must be the same under pytest-xdist, plain pytest and the CLI.
"""

from __future__ import annotations

from contextlib import contextmanager

__all__ = ["torch_threads"]


@contextmanager
def torch_threads(n: int | None):
    """Within the block torch uses ``n`` CPU threads (None: the count as it is); the previous count is restored
    after it, also when the block raises. ValueError for an ``n`` that is not a positive int."""
    import torch

    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"threads must be a positive integer or None, got {n!r}")
    before = torch.get_num_threads()
    if n is not None and n != before:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)
