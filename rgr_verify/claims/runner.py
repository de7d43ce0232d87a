"""Running claims: seeds, tier gating, error capture and the comparison with the ledger."""

from __future__ import annotations

import dataclasses
import os
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from ..basics.checks import check_choice, check_int
from ..basics.settings import env
from .base import DEFAULT_SEED, SEED_ENV, TIERS, CheckContext, Claim, Status, Tier, Verdict, claim_seed
from .ledger import LedgerEntry

__all__ = ["ClaimResult", "run_claim", "run_claims", "run_claims_parallel", "replayable", "root_seed_from_env", "default_device",
           "spawn_pool"]


@dataclass(frozen=True)
class ClaimResult:
    """A claim, its verdict and how it compares with the ledger.

    Attributes:
        claim: the :class:`Claim`.
        verdict: the computed :class:`Verdict`.
        seed: the claim's seed; root_seed: the run's root seed.
        seconds: wall time of the check.
        expected: the ledger's status, or None if the ledger has no entry.
        stated: the stated values the check read (name -> value): the claim's declared ones, or those a caller
            passed instead (a mutant); the report renders the statement with them.
    """

    claim: Claim
    verdict: Verdict
    seed: int
    root_seed: int
    seconds: float
    expected: Status | None
    stated: dict | None = None  # the stated values the check read (the declared ones, or a mutant's)

    @property
    def ran(self) -> bool:
        """False when the check could not run here (tier not selected, no GPU): not compared with the ledger."""
        return not self.verdict.unavailable

    @property
    def matches(self) -> bool | None:
        """True/False when the claim ran; None when it did not."""
        if not self.ran:
            return None
        return self.expected is not None and self.verdict.status is self.expected


def root_seed_from_env() -> int:
    """The root seed: ``$RGR_VERIFY_SEED`` if set, else :data:`DEFAULT_SEED`."""
    raw = env(SEED_ENV)
    if raw is None:
        return DEFAULT_SEED
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{SEED_ENV} must be an integer in [0, 2**32 - 1], got {raw!r}") from None
    return check_int(SEED_ENV, value, min_value=0, max_value=2**32 - 1)


def default_device() -> str:
    """"cuda" when a CUDA device is usable, else "cpu"."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def run_claim(
    claim: Claim,
    *,
    tier: str = "quick",
    root_seed: int = DEFAULT_SEED,
    device: str | None = None,
    out_dir: Path | None = None,
    results_dir: Path | None = None,
    ledger: dict[str, LedgerEntry] | None = None,
    evidence_dir: Path | None = None,
    expects: dict | None = None,
) -> ClaimResult:
    """Run one claim's check at ``tier`` and return its result; exceptions become ``error`` verdicts.

    ``expects`` (name -> value) replaces some of the claim's stated values (a mutant of ``rgr-verify mutate``); a
    name the claim does not declare is a ValueError.

    A full-tier claim that :func:`replayable` finds complete in the committed evidence runs below its tier too: its
    check replays the evidence on the CPU and trains nothing (``ctx.replay_only``); so does a GPU-tier claim fed by
    the complete committed store of a planned sweep (:attr:`~rgr_verify.runs.evidence.Manifest.plan`, e.g. Sec. 7.3)
    drawn from ``root_seed``; a partial one is named, with its count of runs, in the not-run verdict."""
    check_choice("tier", tier, TIERS)
    root_seed = check_int("root_seed", root_seed, min_value=0, max_value=2**32 - 1)
    device = device if device is not None else default_device()
    check_choice("device", device, ("cpu", "cuda"))
    seed = claim_seed(root_seed, claim.id)
    stated = claim.stated_values()
    if expects is not None:
        unknown = sorted(set(expects) - set(stated))
        if unknown:
            raise ValueError(f"expects names stated values of claim {claim.id} ({sorted(stated) or 'none'}), "
                             f"got {unknown}")
        stated.update(expects)
    ctx = CheckContext(seed=seed, root_seed=root_seed, tier=tier, device=device, out_dir=out_dir,
                       results_dir=results_dir, evidence_dir=evidence_dir, expects=stated)
    start = time.perf_counter()
    swept = _swept(claim, root_seed, evidence_dir) if claim.tier is Tier.GPU else []  # partial: how far it got
    how_far = "".join(f"; committed evidence {m.name} holds {m.runs} of the {m.preset_runs} runs of its sweep "
                      f"({m.plan}), which resumes on a CUDA GPU" for m in swept if not m.complete)
    if claim.tier.rank > Tier(tier).rank and replayable(claim, evidence_dir, root_seed):
        # a paper-scale verdict from the committed evidence alone: the claim's tier's check, replaying, never training
        # (of a partial planned sweep, the check decides if the cells it reads are stored, else says which are not)
        ctx = dataclasses.replace(ctx, tier=claim.tier.value, device="cpu", replay_only=True)
    if claim.tier.rank > Tier(ctx.tier).rank:
        verdict = Verdict.not_run(f"not run at tier {tier}: needs --tier {claim.tier.value}" + how_far)
    else:
        try:
            from .tools.multiverse import run_analyses

            verdict = run_analyses(claim, ctx)
            if not isinstance(verdict, Verdict):
                raise TypeError(f"check returned {type(verdict).__name__}, not Verdict")
            if verdict.unavailable and how_far:  # replayed from a partial sweep that lacks cells this claim reads
                verdict = dataclasses.replace(verdict, details=f"{verdict.details}{how_far}")
            if ctx.provenance and not verdict.unavailable:
                # each source once: a cached measurement hit twice in one check (a memo inside a memo) replays its
                # provenance again
                sources = "; ".join(dict.fromkeys(ctx.provenance))
                verdict = dataclasses.replace(verdict, evidence=f"{verdict.evidence} ({sources})" if verdict.evidence
                                              else sources)
        except Exception as exc:  # the check broke: report it, never count it as evidence
            tb = traceback.format_exc(limit=6)
            verdict = Verdict(status=Status.ERROR, details=f"{type(exc).__name__}: {exc}", witness=tb)
    seconds = time.perf_counter() - start
    entry = (ledger or {}).get(claim.id)
    return ClaimResult(claim, verdict, seed, root_seed, seconds, entry.status if entry is not None else None,
                       stated=stated)


def _swept(claim: Claim, root_seed: int, evidence_dir: Path | None = None) -> list:
    """The committed manifests of planned sweeps (a GPU sweep committed piece by piece, e.g. Sec. 7.3's) that feed
    ``claim`` (a GPU-tier claim) and were drawn from ``root_seed``: a complete one lets the claim replay below its tier; a partial one
    says how far the sweep got."""
    from ..runs.replay import manifests
    from .preregistration import fed_claims

    return [m for m in manifests(evidence_dir)
            if m.plan and m.plan.rsplit(":", 1)[-1] == str(root_seed) and fed_claims(m, [claim])]


def replayable(claim: Claim, evidence_dir: Path | None = None, root_seed: int | None = None) -> bool:
    """Whether the committed evidence lets ``claim`` run below its tier, by replay: it names presets it replays
    and the evidence holds every run of each (at the claim's tier), or it is a GPU-tier claim fed by the store of a
    planned sweep drawn from ``root_seed`` (default: :func:`root_seed_from_env`), complete or partial: the check
    replays the cells it reads and decides when they are all stored, else reports not-run naming those missing."""
    from ..runs.replay import evidence_complete

    if claim.replays and all(evidence_complete(p, claim.tier.value, evidence_dir) for p in claim.replays):
        return True
    if claim.tier is not Tier.GPU:
        return False
    seed = root_seed_from_env() if root_seed is None else root_seed
    return bool(_swept(claim, seed, evidence_dir))


def run_claims(
    claims: Iterable[Claim],
    *,
    progress: Callable[[Claim], None] | None = None,
    on_result: Callable[[ClaimResult], None] | None = None,
    **kwargs,
) -> list[ClaimResult]:
    """Run claims in order; ``progress(claim)`` and ``on_result(result)`` are called after each one."""
    results = []
    for claim in claims:
        results.append(run_claim(claim, **kwargs))
        if progress is not None:
            progress(claim)
        if on_result is not None:
            on_result(results[-1])
    return results


_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _worker_init() -> None:
    import torch

    from .tools import register_profiles

    register_profiles()  # the parent's $HYPOTHESIS_PROFILE, as under pytest
    torch.set_num_threads(1)  # one core a worker: more threads only oversubscribe the machine


def spawn_pool(workers: int):
    """A pool of ``workers`` spawned processes that run checks (the audit's and ``rgr-verify mutate``'s): one
    thread each for numpy and torch (the environment is set while they start, then restored), the parent's
    Hypothesis profile."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    saved = {var: os.environ.get(var) for var in _THREAD_VARS}
    for var in _THREAD_VARS:  # read by numpy / torch when a worker imports them
        os.environ.setdefault(var, "1")
    try:
        return ProcessPoolExecutor(max_workers=workers, initializer=_worker_init,
                                   mp_context=multiprocessing.get_context("spawn"))
    finally:
        for var, value in saved.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value


def _run_by_id(claim_id: str, kwargs: dict) -> tuple:
    from .registry import all_claims

    claim = next(c for c in all_claims() if c.id == claim_id)
    res = run_claim(claim, **kwargs)
    return res.verdict, res.seed, res.root_seed, res.seconds


def _schedule(claims: list[Claim]) -> list[Claim]:
    """Submission order for the worker pool: likely-long checks first (higher tiers, then training), so the last
    worker does not start one at the end; within each group, claims of different modules alternate, because claims
    of one module tend to share a preset, and a worker that starts a claim whose preset another worker is training
    only waits on its lock."""
    groups: dict[tuple, dict[str, list[Claim]]] = {}
    for claim in claims:
        key = (-claim.tier.rank, claim.kind.value not in ("empirical", "qualitative"))
        groups.setdefault(key, {}).setdefault(getattr(claim.check, "__module__", ""), []).append(claim)
    order: list[Claim] = []
    for key in sorted(groups):
        queues = list(groups[key].values())
        while any(queues):
            for queue in queues:
                if queue:
                    order.append(queue.pop(0))
    return order


def run_claims_parallel(
    claims: Iterable[Claim],
    *,
    jobs: int,
    progress: Callable[[Claim], None] | None = None,
    on_result: Callable[[ClaimResult], None] | None = None,
    ledger: dict[str, LedgerEntry] | None = None,
    **kwargs,
) -> list[ClaimResult]:
    """:func:`run_claims` over ``jobs`` worker processes (spawned, one torch/BLAS thread each), results in input
    order; ``progress(claim)`` and ``on_result(result)`` are called as each one finishes (in finishing order). A verdict depends only on the root seed and the claim id, so it is the same as in one process (tested);
    concurrent training of a preset is serialised by the results store's locks. ``jobs=1`` runs in this process."""
    jobs = check_int("jobs", jobs, min_value=1, max_value=256)
    claims = list(claims)
    if jobs == 1 or len(claims) <= 1:
        return run_claims(claims, progress=progress, on_result=on_result, ledger=ledger, **kwargs)
    from concurrent.futures import as_completed

    pool = spawn_pool(min(jobs, len(claims)))
    out: dict[str, ClaimResult] = {}
    with pool:
        order = _schedule(claims)
        futures = {pool.submit(_run_by_id, claim.id, kwargs): claim for claim in order}
        for fut in as_completed(futures):
            claim = futures[fut]
            verdict, seed, root_seed, seconds = fut.result()
            entry = (ledger or {}).get(claim.id)
            out[claim.id] = ClaimResult(claim, verdict, seed, root_seed, seconds,
                                        entry.status if entry is not None else None)
            if progress is not None:
                progress(claim)
            if on_result is not None:
                on_result(out[claim.id])
    return [out[claim.id] for claim in claims]
