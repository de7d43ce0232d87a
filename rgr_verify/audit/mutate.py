"""Mutation testing of the audit: can each claim tell the paper's stated values from wrong ones?

A claim declares the values the paper states in :attr:`~rgr_verify.claims.base.Claim.expects` and its check reads
them with ``ctx.expect(name)``. :func:`mutants` derives wrong values from each one (a *mutant*), and
:func:`run_mutation` runs the claim once as declared (the *baseline*) and once per mutant, through
:func:`~rgr_verify.claims.runner.run_claim` with ``expects={name: wrong value}``:

- value / constant: x2 and x1/2 (an int stays an int when the result is integral); exponent: +1 and -1;
  relation: the opposite direction (``<=`` <-> ``>=``, ``<`` <-> ``>``); ``==`` has no opposite direction and gives
  no mutant, nor does a value whose x2 and x1/2 equal it (0): both are listed as *not mutated*;
- a one-sided bound (``Stated.bound`` "upper": a smaller value is the stricter statement; "lower": a larger one)
  runs the side of its two mutants that a correct check can tell from the stated value, decided on the numbers
  (x2 of a negative value is smaller) once the baseline is known: a baseline that passes (verified,
  holds-empirically) runs the stricter mutant only, since the weaker one is implied by the stated value and a
  correct check passes it too; a baseline that fails (refuted, contradicted-empirically) runs the weaker mutant
  only, since the stricter one implies the stated value and fails too; an inconclusive baseline runs both (either
  side may decide). The side left out is listed as *not mutated* with that reason. A check that ignores the value
  keeps its informative mutant as a survivor: the rule never drops a mutant that a correct check could kill;
- a mutant is **killed** when its verdict's status differs from the baseline's, and **survives** when it is the same;
- a mutant whose check breaks (status ``error``) or cannot run here (``Verdict.unavailable``) is **excluded**: it
  counts neither as killed nor in the denominator; a claim whose baseline breaks or cannot run is skipped with its
  reason, and so are its mutants;
- the score is killed / (killed + survived), None when no mutant counts.

A verdict depends only on the root seed, the claim id and the stated values, never on ``jobs`` or run order.
``docs/mutation.md`` tells how to read the score and how a claim declares its stated values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from ..basics.checks import check_choice, check_int
from ..claims.base import DEFAULT_SEED, TIERS, Claim, Status, Verdict, jsonable
from ..claims.stated import STRICTER, WEAKER, shown_value
from .mutate_runner import TaskRunner

__all__ = ["Mutant", "MutantOutcome", "ClaimMutation", "MutationResult", "mutants", "not_mutated", "run_mutation",
           "KILLED", "SURVIVED", "EXCLUDED", "EXCLUSION_RULE"]

KILLED, SURVIVED, EXCLUDED = "killed", "survived", "excluded"
EXCLUSION_RULE = ("a mutant whose check errors or cannot run here is excluded: neither killed nor counted; a claim "
                  "whose baseline errors or cannot run is skipped")
_FLIP = {"<=": ">=", ">=": "<=", "<": ">", ">": "<"}


@dataclass(frozen=True)
class Mutant:
    """One wrong value in place of one stated value of a claim.

    Attributes:
        claim_id: the claim's id.
        name: the stated value's name (a key of ``claim.expects``).
        kind: its :class:`~rgr_verify.claims.base.Stated` kind: value, exponent, constant, relation or table.
        original: the value the paper states.
        mutated: the wrong value the mutant checks instead.
        op: how it was derived: ``*2``, ``/2``, ``+1``, ``-1`` or ``~flip``.
    """

    claim_id: str
    name: str
    kind: str
    original: Any
    mutated: Any
    op: str

    @property
    def id(self) -> str:
        """Stable id ``<claim id>:<name><op>``, e.g. ``thm81-minimal-constants:C*2``."""
        return f"{self.claim_id}:{self.name}{self.op}"

    def to_dict(self) -> dict:
        """JSON-able record of the mutant."""
        return {"id": self.id, "claim": self.claim_id, "name": self.name, "kind": self.kind,
                "original": jsonable(self.original), "mutated": jsonable(self.mutated), "op": self.op}


def _scaled(value, factor: float):
    out = value * factor
    if isinstance(value, int) and float(out).is_integer():
        return int(out)
    return float(out)


_PASSING = (Status.VERIFIED, Status.HOLDS_EMPIRICALLY)
_FAILING = (Status.REFUTED, Status.CONTRADICTED_EMPIRICALLY)


def _side_reason(stated, op: str, new, baseline: Status | None) -> str:
    """Why a mutant of a one-sided bound is not run against ``baseline`` ("" when it is run)."""
    side = stated.side(new)
    head = f"{stated.bound} bound {shown_value(stated.value)}: {op} ({shown_value(new)}) is {side}"
    if side == WEAKER and baseline in _PASSING:
        return (f"{head}: implied by the stated value, which the baseline passes ({baseline.value}): a correct "
                "check passes it too, so no correct check can tell it apart")
    if side == STRICTER and baseline in _FAILING:
        return (f"{head}: it implies the stated value, which the baseline fails ({baseline.value}): a correct "
                "check fails it too, so no correct check can tell it apart")
    return ""


def _plan(claim: Claim, baseline: Status | None = None) -> tuple[list[Mutant], list[tuple[str, str]]]:
    if not isinstance(claim, Claim):
        raise ValueError(f"claim must be a Claim, got {type(claim).__name__}")
    if baseline is not None and not isinstance(baseline, Status):
        raise ValueError(f"baseline must be a Status or None, got {baseline!r}")
    made: list[Mutant] = []
    skipped: list[tuple[str, str]] = []
    for name, stated in claim.expects.items():
        value, kind = stated.value, stated.kind
        if getattr(stated, "unmutated", ""):
            skipped.append((name, f"declared, not mutated: {stated.unmutated}"))
            continue
        if kind == "relation":
            if value not in _FLIP:
                skipped.append((name, f"relation {value!r} has no opposite direction"))
            else:
                made.append(Mutant(claim.id, name, kind, value, _FLIP[value], "~flip"))
            continue
        if kind == "table":
            candidates = [(op, {k: _scaled(v, f) for k, v in value.items()}) for op, f in (("*2", 2), ("/2", 0.5))]
        elif kind == "exponent":
            candidates = [("+1", value + 1), ("-1", value - 1)]
        else:  # value, constant
            candidates = [("*2", _scaled(value, 2)), ("/2", _scaled(value, 0.5))]
        dropped = []
        for op, new in candidates:
            if kind != "table" and not (math.isfinite(new) and new != value):
                dropped.append(op)
            elif why := _side_reason(stated, op, new, baseline):
                skipped.append((name, why))
            else:
                made.append(Mutant(claim.id, name, kind, value if kind != "table" else dict(value), new, op))
        if dropped:
            skipped.append((name, f"{kind} {value!r}: {', '.join(dropped)} would equal it or not be finite"))
    return made, skipped


def mutants(claim: Claim, baseline: Status | None = None) -> list[Mutant]:
    """The mutants of ``claim``'s stated values, in the order of ``claim.expects`` (empty without ``expects``).

    value / constant: x2 then x1/2 (an int stays an int when the result is integral); exponent: +1 then -1;
    relation: the opposite direction; table: every entry x2, then every entry x1/2. A value declared
    ``unmutated`` (with its reason) gives none. ``==`` and a value equal to its own mutants (0) give none
    (see :func:`not_mutated`). A one-sided bound (``Stated.bound``) gives, when ``baseline`` (the claim's status
    at its stated values) passes (verified, holds-empirically), only its stricter mutant; when it fails (refuted,
    contradicted-empirically), only its weaker one; otherwise (inconclusive, or None: not known yet) both.
    ValueError if ``claim`` is not a :class:`~rgr_verify.claims.base.Claim` or ``baseline`` not a Status or None.
    """
    return _plan(claim, baseline)[0]


def not_mutated(claim: Claim, baseline: Status | None = None) -> list[tuple[str, str]]:
    """The stated values of ``claim`` that give fewer mutants than their kind promises, as (name, reason): declared
    ``unmutated``, ``==``, a value equal to its mutants, and the side of a one-sided bound that ``baseline`` decides
    (see :func:`mutants`)."""
    return _plan(claim, baseline)[1]


@dataclass(frozen=True)
class MutantOutcome:
    """A mutant's verdict against its claim's baseline.

    Attributes:
        mutant: the :class:`Mutant`.
        status: the mutant's verdict status.
        outcome: :data:`KILLED`, :data:`SURVIVED` or :data:`EXCLUDED`.
        reason: why it is excluded (the check's error, or why it could not run); empty otherwise.
        seconds: wall time of the mutant's check.
    """

    mutant: Mutant
    status: Status
    outcome: str
    reason: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class ClaimMutation:
    """One claim's mutation run.

    Attributes:
        claim_id: the claim's id.
        baseline: the status of the claim run with the stated values, or None when it was not run (no mutant).
        skipped: why the claim's mutants did not run (baseline errors or cannot run here, no mutant); empty
            when they ran.
        outcomes: one :class:`MutantOutcome` per mutant that ran, in :func:`mutants` order.
        planned: every mutant of the claim that ran, or, for a skipped claim, that would have run (a one-sided
            bound's both sides: its baseline decided none).
        not_mutated: (name, reason) of stated values that gave fewer mutants than their kind promises (a one-sided
            bound's side that its baseline leaves out included).
        seconds: wall time of the baseline and every mutant.
    """

    claim_id: str
    baseline: Status | None
    skipped: str
    outcomes: tuple
    planned: tuple
    not_mutated: tuple
    seconds: float

    def _count(self, outcome: str) -> list[MutantOutcome]:
        return [o for o in self.outcomes if o.outcome == outcome]

    @property
    def killed(self) -> int:
        """Number of killed mutants."""
        return len(self._count(KILLED))

    @property
    def counted(self) -> int:
        """Number of mutants in the score's denominator (killed + survived)."""
        return len(self._count(KILLED)) + len(self._count(SURVIVED))

    @property
    def survivors(self) -> list[MutantOutcome]:
        """The mutants whose status equals the baseline's."""
        return self._count(SURVIVED)

    @property
    def excluded(self) -> list[MutantOutcome]:
        """The mutants whose check errored or could not run."""
        return self._count(EXCLUDED)

    def to_dict(self) -> dict:
        """JSON-able summary row."""
        return {"claim": self.claim_id, "baseline": self.baseline.value if self.baseline else None,
                "skipped": self.skipped, "planned": len(self.planned), "mutants": self.counted,
                "killed": self.killed, "survivors": [o.mutant.id for o in self.survivors],
                "excluded": [o.mutant.id for o in self.excluded],
                "not_mutated": [{"name": n, "reason": r} for n, r in self.not_mutated],
                "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class MutationResult:
    """Outcome of :func:`run_mutation`.

    Attributes:
        rows: one :class:`ClaimMutation` per claim that declares stated values, in input order.
        without_expects: ids of the input claims that declare none (not mutated, not in the score).
        tier, root_seed: what the claims ran at.
    """

    rows: tuple
    without_expects: tuple
    tier: str
    root_seed: int

    @property
    def mutants(self) -> int:
        """Mutants in the denominator: killed + survived (excluded and skipped ones are not)."""
        return sum(r.counted for r in self.rows)

    @property
    def killed(self) -> int:
        """Killed mutants."""
        return sum(r.killed for r in self.rows)

    @property
    def score(self) -> float | None:
        """killed / mutants, None when no mutant counts."""
        return self.killed / self.mutants if self.mutants else None

    def by_baseline(self) -> dict[str, tuple[int, int]]:
        """(killed, counted) by the status of the claims' baselines, in :class:`Status` order: the score's parts. A
        claim inconclusive at the paper's value has no decision to flip, so its mutants are killed only when a wrong
        value makes the check decisive; the headline score counts them all the same."""
        out: dict[str, list[int]] = {}
        for r in self.rows:
            if r.baseline is not None and r.counted:
                k = out.setdefault(r.baseline.value, [0, 0])
                k[0] += r.killed
                k[1] += r.counted
        order = [s.value for s in Status]
        return {b: (out[b][0], out[b][1]) for b in sorted(out, key=order.index)}

    @property
    def survivors(self) -> list[dict]:
        """Each surviving mutant: its record (:meth:`Mutant.to_dict`) with the claim's ``baseline`` status."""
        return [{**o.mutant.to_dict(), "baseline": r.baseline.value} for r in self.rows for o in r.survivors]

    @property
    def excluded(self) -> list[dict]:
        """Everything left out of the score, with its reason: skipped claims (``what``: claim), excluded
        mutants (mutant) and stated values that gave fewer mutants (stated)."""
        out: list[dict] = []
        for r in self.rows:
            if r.skipped:
                out.append({"what": "claim", "id": r.claim_id, "claim": r.claim_id, "reason": r.skipped,
                            "mutants": [m.id for m in r.planned]})
            out += [{"what": "mutant", "id": o.mutant.id, "claim": r.claim_id, "status": o.status.value,
                     "reason": o.reason} for o in r.excluded]
            out += [{"what": "stated", "id": f"{r.claim_id}:{n}", "claim": r.claim_id, "reason": why}
                    for n, why in r.not_mutated]
        return out

    def to_json(self) -> dict:
        """The JSON record: ``score``, ``mutants``, ``killed``, ``survivors`` (the issue's keys), then ``by_claim``,
        ``excluded``, ``claims`` (claims with stated values), ``without_expects`` (count), ``tier``,
        ``root_seed`` and ``rule`` (the exclusion rule in words)."""
        return {"score": self.score, "mutants": self.mutants, "killed": self.killed, "survivors": self.survivors,
                "by_claim": [r.to_dict() for r in self.rows], "excluded": self.excluded, "claims": len(self.rows),
                "without_expects": len(self.without_expects), "tier": self.tier, "root_seed": self.root_seed,
                "rule": EXCLUSION_RULE,
                "by_baseline": {b: {"killed": k, "mutants": n} for b, (k, n) in self.by_baseline().items()}}


def _first_line(text: str) -> str:
    return (str(text).strip().splitlines() or [""])[0][:200]


def _why_not_counted(verdict: Verdict) -> str:
    if verdict.status is Status.ERROR:
        return f"check errors: {_first_line(verdict.details)}"
    if verdict.unavailable:
        return f"not run here: {_first_line(verdict.unavailable)}"
    return ""


def run_mutation(
    claims: Iterable[Claim],
    *,
    tier: str = "quick",
    root_seed: int = DEFAULT_SEED,
    jobs: int = 1,
    device: str | None = None,
    results_dir: Path | None = None,
    evidence_dir: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_claim: Callable[[ClaimMutation], None] | None = None,
) -> MutationResult:
    """Run the baseline and every mutant of each claim that declares stated values, and compare the statuses.

    Args:
        claims: the claims (only those with ``expects`` are mutated; the others are listed in
            ``without_expects``); ids must be distinct.
        tier: "quick", "full" or "gpu": the tier the checks run at (a claim above it is skipped as not run).
        root_seed: the run's root seed, in [0, 2**32 - 1].
        jobs: worker processes in [1, 256] (spawned, one torch/BLAS thread each); 1 runs in this process. The
            result does not depend on it. With ``device="cuda"`` one process runs everything.
        device: "cpu", "cuda", or None (default) for CUDA when available, as ``run_claim``.
        results_dir, evidence_dir: the results store and evidence folder the checks read (see ``run_claim``).
        progress: ``progress(done, total)`` after each check run (total may shrink when a claim is skipped).
        on_claim: ``on_claim(row)`` with a claim's :class:`ClaimMutation` as soon as the claim is finished (its
            baseline and every mutant run, or it is skipped), in finishing order; the rows are also in the result.

    Returns:
        a :class:`MutationResult`. A mutant is killed when its status differs from the baseline's; one whose
        check errors or cannot run is excluded from the score; a claim whose baseline errors or cannot run is
        skipped with its reason.
    """
    check_choice("tier", tier, TIERS)
    root_seed = check_int("root_seed", root_seed, min_value=0, max_value=2**32 - 1)
    jobs = check_int("jobs", jobs, min_value=1, max_value=256)
    if device is not None:
        check_choice("device", device, ("cpu", "cuda"))
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable or None, got {progress!r}")
    if on_claim is not None and not callable(on_claim):
        raise ValueError(f"on_claim must be callable or None, got {on_claim!r}")
    for name, folder in (("results_dir", results_dir), ("evidence_dir", evidence_dir)):
        if folder is not None and not isinstance(folder, (str, Path)):
            raise ValueError(f"{name} must be a path or None, got {folder!r}")
    results_dir = Path(results_dir) if results_dir is not None else None
    evidence_dir = Path(evidence_dir) if evidence_dir is not None else None
    if isinstance(claims, (Claim, str, bytes)):
        raise ValueError("claims must be an iterable of Claim objects")
    claims = list(claims)
    seen: set[str] = set()
    for claim in claims:
        if not isinstance(claim, Claim):
            raise ValueError(f"claims must hold Claim objects, got {type(claim).__name__}")
        if claim.id in seen:
            raise ValueError(f"claims must have distinct ids, {claim.id!r} appears twice")
        seen.add(claim.id)
    if device is None:
        from ..claims.runner import default_device

        device = default_device()
    if device == "cuda":
        jobs = 1  # one process owns the GPU
    kwargs = dict(tier=tier, root_seed=root_seed, device=device, results_dir=results_dir, evidence_dir=evidence_dir)

    with_expects = [c for c in claims if c.expects]
    plans = {c.id: _plan(c) for c in with_expects}
    active = [c for c in with_expects if plans[c.id][0]]
    count = {"done": 0, "total": len(active) + sum(len(plans[c.id][0]) for c in active)}

    def done(_i=None, _res=None) -> None:
        count["done"] += 1
        if progress is not None:
            progress(count["done"], count["total"])

    base: dict = {}
    skipped: dict = {}
    ran: dict = {}

    def row(claim: Claim) -> ClaimMutation:
        planned, unmutated = plans[claim.id]
        if not planned and claim.id not in base:
            return ClaimMutation(claim.id, None, "no mutant: " + "; ".join(r for _, r in unmutated), (), (),
                                 tuple(unmutated), 0.0)
        verdict, seconds = base[claim.id]
        if claim.id in skipped:
            return ClaimMutation(claim.id, verdict.status, f"baseline {skipped[claim.id]}", (), tuple(planned),
                                 tuple(unmutated), seconds)
        outcomes = []
        for m in planned:
            v, s = ran[m.id]
            seconds += s
            why = _why_not_counted(v)
            outcome = EXCLUDED if why else (KILLED if v.status is not verdict.status else SURVIVED)
            outcomes.append(MutantOutcome(m, v.status, outcome, why, s))
        return ClaimMutation(claim.id, verdict.status, "", tuple(outcomes), tuple(planned), tuple(unmutated), seconds)

    if on_claim is not None:
        for claim in with_expects:
            if not plans[claim.id][0]:
                on_claim(row(claim))  # nothing to run
    with TaskRunner(min(jobs, max(1, count["total"])), kwargs) as runner:
        base.update(zip([c.id for c in active], runner.run([(c, None) for c in active], done)))
        skipped.update((cid, _why_not_counted(v)) for cid, (v, _) in base.items() if _why_not_counted(v))
        for claim in active:  # a one-sided bound: the side the baseline leaves open (see the module docstring)
            if claim.id not in skipped:
                plans[claim.id] = _plan(claim, base[claim.id][0].status)
        count["total"] = len(active) + sum(len(plans[c.id][0]) for c in active if c.id not in skipped)
        if on_claim is not None:
            for claim in active:
                if claim.id in skipped:
                    on_claim(row(claim))
        # mutants of the slowest baselines first, so no worker starts a long one at the end (order only)
        runnable = sorted((c for c in active if c.id not in skipped), key=lambda c: -base[c.id][1])
        todo = [(c, m) for c in runnable for m in plans[c.id][0]]
        left = {c.id: len(plans[c.id][0]) for c in runnable}

        def mutant_done(i: int, res: tuple[Verdict, float]) -> None:
            done()
            claim, m = todo[i]
            ran[m.id] = res
            left[claim.id] -= 1
            if on_claim is not None and not left[claim.id]:
                on_claim(row(claim))

        runner.run([(c, {m.name: m.mutated}) for c, m in todo], mutant_done)

    rows = [row(claim) for claim in with_expects]
    return MutationResult(tuple(rows), tuple(c.id for c in claims if not c.expects), tier, root_seed)
