"""How ``rgr-verify mutate`` runs its checks: (claim, expects) tasks in this process, or in a pool of spawned workers
like :func:`rgr_verify.claims.runner.run_claims_parallel`, results in task order (:class:`TaskRunner`)."""

from __future__ import annotations

import pickle
from typing import Callable

from ..claims.base import Claim, Verdict
from ..claims.runner import run_claim

__all__ = ["TaskRunner", "claim_ref", "run_ref"]


def claim_ref(claim: Claim) -> bytes | str:
    """What a worker needs to rebuild the claim: the pickled claim, or its registry id when it cannot be pickled
    (a check defined in a function)."""
    try:
        return pickle.dumps(claim)
    except Exception:
        from ..claims.registry import all_claims

        if any(c is claim for c in all_claims()):  # the worker finds this very claim in its registry
            return claim.id
        raise ValueError(f"claims: {claim.id} is neither registered nor picklable, so it cannot run with jobs > 1 "
                         "(use jobs=1)") from None


def run_ref(ref: bytes | str, expects: dict | None, kwargs: dict) -> tuple[Verdict, float]:
    """In a worker: rebuild the claim from :func:`claim_ref`'s ``ref`` and run it with ``expects``."""
    if isinstance(ref, bytes):
        claim = pickle.loads(ref)
    else:
        from ..claims.registry import get_claim

        claim = get_claim(ref)
    res = run_claim(claim, expects=expects, **kwargs)
    return res.verdict, res.seconds


class TaskRunner:
    """Runs (claim, expects) tasks in this process or in a pool of spawned workers, results in task order."""

    def __init__(self, jobs: int, kwargs: dict):
        self.jobs, self.kwargs, self.pool, self.refs = jobs, kwargs, None, {}

    def __enter__(self):
        if self.jobs > 1:
            from ..claims.runner import spawn_pool

            self.pool = spawn_pool(self.jobs)
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def run(self, tasks: list[tuple[Claim, dict | None]],
            done: Callable[[int, tuple[Verdict, float]], None]) -> list[tuple[Verdict, float]]:
        """Run the tasks; ``done(i, (verdict, seconds))`` as task ``i`` finishes. Results in task order."""
        if self.pool is None:
            out = []
            for i, (claim, expects) in enumerate(tasks):
                res = run_claim(claim, expects=expects, **self.kwargs)
                out.append((res.verdict, res.seconds))
                done(i, out[-1])
            return out
        from concurrent.futures import as_completed

        for claim, _ in tasks:  # every claim checked before any work starts
            if claim.id not in self.refs:
                self.refs[claim.id] = claim_ref(claim)
        futures = {self.pool.submit(run_ref, self.refs[claim.id], expects, self.kwargs): i
                   for i, (claim, expects) in enumerate(tasks)}
        results: dict[int, tuple[Verdict, float]] = {}
        for fut in as_completed(futures):
            i = futures[fut]
            results[i] = fut.result()
            done(i, results[i])
        return [results[i] for i in range(len(tasks))]
