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
        reused: with a verdict store, {"commit", "date"} of the run whose stored verdict this is (its check did not
            run now; ``seconds`` is that run's); None when the check ran.
    """

    claim: Claim
    verdict: Verdict
    seed: int
    root_seed: int
    seconds: float
    expected: Status | None
    stated: dict | None = None  # the stated values the check read (the declared ones, or a mutant's)
    reused: dict | None = None  # {commit, date} of the stored verdict reused (a verdict store), None when it ran

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
    store=None,
) -> ClaimResult:
    """Run one claim's check at ``tier`` and return its result; exceptions become ``error`` verdicts.

    ``expects`` (name -> value) replaces some of the claim's stated values (a mutant of ``rgr-verify mutate``); a
    name the claim does not declare is a ValueError.

    A full-tier claim that :func:`replayable` finds complete in the committed evidence runs below its tier too: its
    check replays the evidence on the CPU and trains nothing (``ctx.replay_only``); so does a GPU-tier claim fed by
    the complete committed store of a planned sweep (:attr:`~rgr_verify.runs.evidence.Manifest.plan`, e.g. Sec. 7.3)
    drawn from ``root_seed``; a partial one is named, with its count of runs, in the not-run verdict.

    ``store`` (a :class:`~rgr_verify.claims.verdict_store.VerdictStore`, or None): a claim whose key and dependencies
    are unchanged since its verdict was stored is not run; its result carries the stored verdict and ``reused``
    ({commit, date}). Otherwise the check runs under :func:`~rgr_verify.claims.verdict_store.traced_files` and its
    verdict is recorded (not an error, nor one that could not run here). Without a store nothing is traced."""
    ctx = _context(claim, tier=tier, root_seed=root_seed, device=device, out_dir=out_dir, results_dir=results_dir,
                   evidence_dir=evidence_dir, expects=expects)
    entry = (ledger or {}).get(claim.id)
    expected = entry.status if entry is not None else None
    if store is None:
        from .verdict_store import mark_untraced

        mark_untraced()  # what it leaves in the caches was computed untraced
        verdict, seconds, _ = _verdict(claim, ctx, tier, evidence_dir)
        return ClaimResult(claim, verdict, ctx.seed, ctx.root_seed, seconds, expected, stated=ctx.expects)
    key = _key(claim, ctx, evidence_dir)
    hit = store.lookup(key, out_dir=out_dir)
    if hit is not None:
        return ClaimResult(claim, hit.verdict, ctx.seed, ctx.root_seed, hit.seconds, expected, stated=ctx.expects,
                           reused=hit.reused)
    verdict, seconds, deps = _traced(claim, ctx, tier, evidence_dir, store.root)
    store.record(key, claim, deps, verdict, seconds, out_dir=out_dir)
    return ClaimResult(claim, verdict, ctx.seed, ctx.root_seed, seconds, expected, stated=ctx.expects)


def _context(claim: Claim, *, tier: str = "quick", root_seed: int = DEFAULT_SEED, device: str | None = None,
             out_dir: Path | None = None, results_dir: Path | None = None, evidence_dir: Path | None = None,
             expects: dict | None = None) -> CheckContext:
    """The checked arguments of :func:`run_claim` as the context its check runs under (its ``expects``: the stated
    values the check reads)."""
    check_choice("tier", tier, TIERS)
    root_seed = check_int("root_seed", root_seed, min_value=0, max_value=2**32 - 1)
    device = device if device is not None else default_device()
    check_choice("device", device, ("cpu", "cuda"))
    stated = claim.stated_values()
    if expects is not None:
        unknown = sorted(set(expects) - set(stated))
        if unknown:
            raise ValueError(f"expects names stated values of claim {claim.id} ({sorted(stated) or 'none'}), "
                             f"got {unknown}")
        stated.update(expects)
    return CheckContext(seed=claim_seed(root_seed, claim.id), root_seed=root_seed, tier=tier, device=device,
                        out_dir=out_dir, results_dir=results_dir, evidence_dir=evidence_dir, expects=stated)


def _key(claim: Claim, ctx: CheckContext, evidence_dir: Path | None) -> str:
    """The verdict store's key of running ``claim`` under ``ctx``
    (:func:`~rgr_verify.claims.verdict_store.verdict_key`)."""
    from .verdict_store import verdict_key

    return verdict_key(claim, tier=ctx.tier, root_seed=ctx.root_seed, device=ctx.device, expects=ctx.expects,
                       out_dir=ctx.out_dir, results_dir=ctx.results_dir, evidence_dir=evidence_dir)


def _traced(claim: Claim, ctx: CheckContext, tier: str, evidence_dir: Path | None, root: Path) -> tuple:
    """(verdict, seconds, dependencies) of :func:`_verdict` run under
    :func:`~rgr_verify.claims.verdict_store.traced_files` (the files under ``root``; dependencies None when one
    changed while it ran, :func:`~rgr_verify.claims.verdict_store.dependencies`)."""
    from .verdict_store import before_traced_run, dependencies, note_files, traced_files, with_cache_fills

    before_traced_run(root)
    started = note_files(root, evidence_dir)
    with traced_files(root) as files:
        verdict, seconds, ran = _verdict(claim, ctx, tier, evidence_dir)
    deps = dependencies(with_cache_fills(files, root), root=root, evidence_dir=evidence_dir, results_dir=ctx.results_dir,
                        stores=ran.tier != "quick", since_ns=started, claim_id=claim.id)
    return verdict, seconds, deps


def _verdict(claim: Claim, ctx: CheckContext, tier: str, evidence_dir: Path | None) -> tuple:
    """(verdict, seconds, the context the check ran under) of :func:`run_claim`: tier gating, replay below the
    claim's tier, the multiverse, provenance, and exceptions as ``error`` verdicts."""
    start, root_seed = time.perf_counter(), ctx.root_seed
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
    return verdict, time.perf_counter() - start, ctx


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


def _run_by_id(claim_id: str, kwargs: dict, trace_root: str | None = None) -> tuple:
    """(verdict, seed, root seed, seconds, dependencies) of a claim run in a worker; with
    ``trace_root`` the check runs traced and its dependencies are returned for the parent to record (else None)."""
    from .registry import all_claims

    claim = next(c for c in all_claims() if c.id == claim_id)
    if trace_root is None:
        res = run_claim(claim, **kwargs)
        return res.verdict, res.seed, res.root_seed, res.seconds, None
    ctx = _context(claim, **kwargs)
    verdict, seconds, deps = _traced(claim, ctx, ctx.tier, kwargs.get("evidence_dir"), Path(trace_root))
    return verdict, ctx.seed, ctx.root_seed, seconds, deps


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
    store=None,
    **kwargs,
) -> list[ClaimResult]:
    """:func:`run_claims` over ``jobs`` worker processes (spawned, one torch/BLAS thread each), results in input
    order; ``progress(claim)`` and ``on_result(result)`` are called as each one finishes (in finishing order). A verdict depends only on the root seed and the claim id, so it is the same as in one process (tested);
    concurrent training of a preset is serialised by the results store's locks. ``jobs=1`` runs in this process.
    ``store``: as in :func:`run_claim`; this process looks each claim up (a reused one is reported at once), the
    workers run the others traced and this process records their verdicts."""
    jobs = check_int("jobs", jobs, min_value=1, max_value=256)
    claims = list(claims)
    if jobs == 1 or len(claims) <= 1:
        return run_claims(claims, progress=progress, on_result=on_result, ledger=ledger, store=store, **kwargs)
    from concurrent.futures import as_completed

    out: dict[str, ClaimResult] = {}

    def done(result: ClaimResult) -> None:
        out[result.claim.id] = result
        if progress is not None:
            progress(result.claim)
        if on_result is not None:
            on_result(result)

    pool = spawn_pool(min(jobs, len(claims)))
    with pool:
        futures, keys = {}, {}
        trace_root = str(store.root) if store is not None else None
        for claim in _schedule(claims):
            entry = (ledger or {}).get(claim.id)
            expected = entry.status if entry is not None else None
            if store is not None:
                ctx = _context(claim, **kwargs)
                keys[claim.id] = _key(claim, ctx, kwargs.get("evidence_dir"))
                hit = store.lookup(keys[claim.id], out_dir=ctx.out_dir)
                if hit is not None:
                    done(ClaimResult(claim, hit.verdict, ctx.seed, ctx.root_seed, hit.seconds, expected,
                                     stated=ctx.expects, reused=hit.reused))
                    continue
            futures[pool.submit(_run_by_id, claim.id, kwargs, trace_root)] = (claim, expected)
        for fut in as_completed(futures):
            claim, expected = futures[fut]
            verdict, seed, root_seed, seconds, deps = fut.result()
            if store is not None:
                store.record(keys[claim.id], claim, deps, verdict, seconds, out_dir=kwargs.get("out_dir"))
            done(ClaimResult(claim, verdict, seed, root_seed, seconds, expected))
    return [out[claim.id] for claim in claims]
