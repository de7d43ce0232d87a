"""Claims and verdicts: the one idea of rgr-verify.

Every checkable statement of the paper is a :class:`Claim` (stable id, the paper's own label, a paraphrase,
its kind and tier, and a check). Running the check returns a :class:`Verdict` computed at run time. A check
never hard-codes its outcome: it measures, and the status follows from the measurement.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..basics.settings import SEED_ENV
from .levels import bounded_status, level_of
from .stated import STATED_KINDS, Stated, as_stated, shown_value
from .standards.severity import as_slip
from .standards.decide import as_standard
from .status import Status

__all__ = [
    "Status",
    "Kind",
    "Tier",
    "TIERS",
    "Claim",
    "Verdict",
    "CheckContext",
    "claim_seed",
    "jsonable",
    "DEFAULT_SEED",
    "SEED_ENV",
    "PAPERS",
    "RGR_PAPER",
    "FACTS_PAPER",
    "paper_parts",
    "Stated",
    "STATED_KINDS",
    "ROLES",
    "SEVERITIES",
    "PROVENANCES",
    "label_of_ref",
]

DEFAULT_SEED = 20250926


class Kind(str, enum.Enum):
    """What sort of statement a claim is; decides which test tier and statistics apply."""

    SYMBOLIC = "symbolic"  # identity or inequality between formulas (sympy)
    DETERMINISTIC = "deterministic"  # property that holds for every input (Hypothesis)
    HIGH_PROBABILITY = "high-probability"  # "with probability at least 1 - delta" (Monte Carlo + exact bounds)
    ASYMPTOTIC = "asymptotic"  # Theta / O / Omega rate (size sweep, fitted exponent)
    EMPIRICAL = "empirical"  # empirical threshold or fit (training)
    QUALITATIVE = "qualitative"  # qualitative empirical statement (training)

    def __str__(self) -> str:
        return self.value


class Tier(str, enum.Enum):
    """Cost tier. quick: default CPU test run; full: long CPU runs; gpu: needs CUDA."""

    QUICK = "quick"
    FULL = "full"
    GPU = "gpu"

    def __str__(self) -> str:
        return self.value

    @property
    def rank(self) -> int:
        return TIERS.index(self.value)


TIERS = ("quick", "full", "gpu")
# The runner's multiverse dimensions a claim may name in Claim.analyses (described in
# rgr_verify.claims.tools.multiverse.RUNNER_DIMENSIONS).
RUNNER_ANALYSES = ("leave one seed out", "readings of App. A.1", "F1 target", "threshold rule", "tolerance", "test level",
                   "seed batch")
# The presets a claim judged under "readings of App. A.1" also replays (rgr_verify.runs.presets.READING_PRESETS' values).
READING_REPLAYS = ("sec6-grid-init-variance", "sec6-grid-protected")
# The presets whose records are judged at App. A.2's F1 bar: a claim replaying one is judged under "F1 target" too.
F1_REPLAYS = ("sec6-grid", "sec6-diagonal", "sec71-softmax", "a3-regular", "table2-cap2x", "sec6-grid-protected",
              "sec6-grid-init-variance")
# The presets whose committed evidence was trained in seed batches (rgr_verify.runs.replay.SEED_BATCHES): a claim
# replaying one is judged under "seed batch" too.
BATCHED_REPLAYS = ("sec72-value",)

_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_REF_RE = re.compile(
    r"^(Sec\. \d+(\.\d+)*|App\. [A-D](\.\d+)*|Theorem [0-9A-D]+\.\d+|Lemma [0-9A-D]+\.\d+|"
    r"Corollary [0-9A-D]+\.\d+|Proposition [0-9A-D]+\.\d+|Definition [0-9A-D]+\.\d+|Algorithm \d+|"
    r"Eqs?\. \(\d+\)(\s*[-–,]\s*\(\d+\))*|Table \d+|Figures? \d+(\s*[-–,]\s*\d+)*|Abstract|OpenReview abstract|"
    r"Construction [IV]+)"
)
RGR_PAPER = "2509.22840"  # "A Capacity-Based Rationale for Multi-Head Attention": the default paper of a claim
FACTS_PAPER = "2502.05076"  # "Paying Attention to Facts" (a summary only): its own labels
# A claim concerns one paper, or several joined by "+" (cross-paper claims); its ref must be a label of one of them.
PAPERS = {
    RGR_PAPER: "arXiv 2509.22840 v3, 'A Capacity-Based Rationale for Multi-Head Attention'",
    FACTS_PAPER: "arXiv 2502.05076, 'Paying Attention to Facts: Quantifying the Knowledge Capacity of Attention "
                 "Layers' (audited from a summary)",
}
_PAPER_REF_RE = {
    RGR_PAPER: _REF_RE,
    FACTS_PAPER: re.compile(r"^(Proposition \d+\.\d+|Example \d+\.\d+|Definition \d+\.\d+|Eqs?\. \(\d+\)|"
                            r"Figures? \d+(\s*[-–,]\s*\d+)*|Sec\. \d+(\.\d+)*|Summary)"),
}


def paper_parts(paper: str) -> tuple[str, ...]:
    """The paper ids a claim's ``paper`` names ("A+B" for a cross-paper claim); ValueError for an unknown id."""
    if not isinstance(paper, str) or not paper:
        raise ValueError(f"paper must be a non-empty string of paper ids joined by '+', got {paper!r}")
    parts = tuple(paper.split("+"))
    for part in parts:
        if part not in PAPERS:
            raise ValueError(f"paper must name known papers ({', '.join(PAPERS)}) joined by '+', got {paper!r}")
    return parts


# What a claim is to the result it serves; how bad a finding is; whose statement it is.
ROLES = ("result", "proof-step", "detail")
SEVERITIES = ("breaks-result", "proof-gap", "imprecision")
PROVENANCES = ("paper", "summary", "ours")


def label_of_ref(ref: str) -> str:
    """The paper label at the start of a reference: "Theorem 8.1, Step 3" -> "Theorem 8.1", "Eqs. (15)-(16)" ->
    "Eq. (15)", "Figures 3-4" -> "Figure 3"; the whole ref when no label pattern matches."""
    for part in PAPERS:
        m = _PAPER_REF_RE[part].match(ref)
        if m:
            label = m.group(0)
            label = re.sub(r"^Eqs\. \((\d+)\).*", r"Eq. (\1)", label)
            label = re.sub(r"^Figures (\d+).*", r"Figure \1", label)
            return label
    return ref


@dataclass(frozen=True)
class CheckContext:
    """What a check may use: its seed, the tier and device it runs at, and where it may write artefacts.

    Attributes:
        seed: the claim's own seed (derived from the root seed and the claim id, see :func:`claim_seed`).
        root_seed: the run's root seed, recorded in verdicts.
        tier: the tier the audit runs at ("quick", "full" or "gpu").
        device: "cpu" or "cuda".
        out_dir: a directory for plots and artefacts, or None when nothing should be written.
        results_dir: where empirical results are stored and replayed from; None is resolved when the context is
            made (``$RGR_VERIFY_RESULTS``, else ``~/.cache/rgr-verify/results``), so every reader sees one folder.
        evidence_dir: the committed evidence folder to replay (None: :func:`rgr_verify.runs.evidence.default_evidence_dir`).
        replay_only: never train: stored records decide, or the check does not run (a full-tier claim replayed in
            the quick tier's test run).
        provenance: where the check's records came from, appended by :func:`rgr_verify.runs.replay.claim_records` and
            added to the verdict's evidence by the runner.
        expects: the paper's stated values the check compares against (name -> value), from the claim's
            :attr:`Claim.expects`, or a mutated copy under ``rgr-verify mutate``; read with :meth:`expect`.
        leave_out_seed: one analysis of the multiverse (:mod:`rgr_verify.claims.tools.multiverse`): the stored
            records of this training seed are left out wherever the check reads records; None keeps every seed.
        seeds_read: the training seeds of the records the check read, and how many records were left out, filled
            by the record readers (``{"seeds": set, "left out": int}``).
        plant: a planted alternative (tests): a named function mapping the records a check reads to records where
            the alternative its rule must reject holds (``records -> records``, new dicts); None reads them as stored.
        reading: one analysis of the multiverse: a reading of App. A.1 other than the engine's (a key of
            :data:`rgr_verify.runs.presets.READING_PRESETS`); the sec6-grid (full) records of the cells trained under it
            are replaced by those runs wherever the check reads them (the count lands in ``seeds_read["replaced"]``).
            None: the engine's readings.
        f1_target: one analysis of the multiverse: App. A.2's F1 bar (None: 0.99, or the claim's stated bar), read
            by the threshold code (:func:`rgr_verify.analysis.capacity.f1_target`) while :meth:`applied` is in force.
        threshold_rule: one analysis of the multiverse: App. A.2's conservative or optimistic D_K* rule in place of
            its central one (None), read by :func:`rgr_verify.analysis.capacity.threshold` while :meth:`applied` is in force.
        tolerance_scale: one analysis of the multiverse: the factor on the half-width of every tolerance band of our
            own the check judges (None: 1; read by :func:`rgr_verify.claims.tools.multiverse.tolerance`, on the log
            scale for a factor band).
        level_scale: one analysis of the multiverse: the factor on the significance level of every test the check
            makes (None: 1; read by :func:`rgr_verify.claims.tools.multiverse.significance`).
        seed_batch: one analysis of the multiverse: "first batch" keeps only the records of the first training
            batch of evidence that came in batches (:data:`rgr_verify.runs.replay.SEED_BATCHES`) wherever the check
            reads them (the count left out lands in ``seeds_read["batch left out"]``); None keeps every batch.
        The reads of ``f1_target``, ``threshold_rule``, ``tolerance_scale`` and ``level_scale`` are counted in
        ``seeds_read["reads"]`` ({dimension: count}), so that the runner can tell a dimension the check never reads.
    """

    seed: int
    root_seed: int = DEFAULT_SEED
    tier: str = "quick"
    device: str = "cpu"
    out_dir: Path | None = None
    results_dir: Path | None = None
    evidence_dir: Path | None = None
    replay_only: bool = False
    provenance: list = field(default_factory=list, compare=False)
    expects: dict = field(default_factory=dict, compare=False)
    leave_out_seed: int | None = None
    seeds_read: dict = field(default_factory=lambda: _fresh_reads(), compare=False)
    plant: Callable | None = field(default=None, compare=False)
    reading: str | None = None
    f1_target: float | None = None
    threshold_rule: str | None = None
    tolerance_scale: float | None = None
    level_scale: float | None = None
    seed_batch: str | None = None

    def __post_init__(self):
        if self.results_dir is None:  # resolved once, here: every reader of the context sees the same folder
            from ..runs.replay import default_results_dir

            object.__setattr__(self, "results_dir", default_results_dir())
        if self.f1_target is not None and not (isinstance(self.f1_target, (int, float)) and 0 < self.f1_target < 1):
            raise ValueError(f"f1_target must be a number in (0, 1) or None, got {self.f1_target!r}")
        if self.threshold_rule not in (None, "central", "conservative", "optimistic"):
            raise ValueError(f"threshold_rule must be None, 'central', 'conservative' or 'optimistic', got "
                             f"{self.threshold_rule!r}")
        for name in ("tolerance_scale", "level_scale"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < math.inf):
                raise ValueError(f"{name} must be a positive number or None, got {v!r}")
        if self.seed_batch not in (None, "first batch"):
            raise ValueError(f"seed_batch must be None or 'first batch', got {self.seed_batch!r}")

    @property
    def default_analysis(self) -> bool:
        """Whether this context is the multiverse's default analysis (no seed left out, the engine's readings, every
        choice at its default)."""
        return (self.leave_out_seed is None and self.reading is None and self.f1_target is None
                and self.threshold_rule is None and self.tolerance_scale is None and self.level_scale is None
                and self.seed_batch is None)

    def applied(self):
        """A context manager in force while a check runs: the threshold, tolerance and test code reads this
        analysis's choices (:attr:`f1_target`, :attr:`tolerance_scale`, :attr:`level_scale`) and counts the reads in
        ``seeds_read["reads"]``."""
        from ..analysis.capacity import analysis_choices

        return analysis_choices({"F1 target": self.f1_target, "threshold rule": self.threshold_rule,
                                 "tolerance": self.tolerance_scale, "test level": self.level_scale},
                                self.seeds_read.setdefault("reads", {}))

    def variant(self, **changes) -> "CheckContext":
        """A copy for one analysis of the multiverse (or a nested read): ``changes`` applied, nothing written
        (``out_dir`` None) and its own, empty provenance and read bookkeeping."""
        return dataclasses.replace(self, **{"out_dir": None, "provenance": [], "seeds_read": _fresh_reads(),
                                            **changes})

    def keep_records(self, records: list, first_batch=None) -> list:
        """``records`` (through :attr:`plant` when one is set) without those of :attr:`leave_out_seed`, and, when
        :attr:`seed_batch` is "first batch" and ``first_batch`` (the seeds of the first training batch of these
        records' evidence) is given, without the records of later batches; notes their seeds and the counts left
        out."""
        if self.plant is not None:
            records = list(self.plant(list(records)))
        if self.seed_batch is not None and first_batch is not None:
            first = {int(s) for s in first_batch}
            kept = [r for r in records if r.get("seed") is None or int(r["seed"]) in first]
            self.seeds_read["batch left out"] = self.seeds_read.get("batch left out", 0) + len(records) - len(kept)
            records = kept
        self.seeds_read["seeds"].update(int(r["seed"]) for r in records if r.get("seed") is not None)
        if self.leave_out_seed is None:
            return records
        kept = [r for r in records if r.get("seed") != self.leave_out_seed]
        self.seeds_read["left out"] += len(records) - len(kept)
        return kept

    def expect(self, name: str) -> Any:
        """The stated value ``name`` of the claim (KeyError naming the declared ones when it is not declared)."""
        try:
            return self.expects[name]
        except KeyError:
            raise KeyError(f"no stated value {name!r}; the claim declares {sorted(self.expects) or 'none'}") from None

    def rng(self, *extra: int) -> np.random.Generator:
        """A numpy Generator for this claim, optionally split further by integer keys."""
        return np.random.default_rng(np.random.SeedSequence([self.seed, *extra]))


@dataclass(frozen=True)
class Verdict:
    """The computed outcome of a claim's check.

    Attributes:
        status: the :class:`Status`.
        paper_value: what the paper states (a number, a formula, a sentence).
        measured_value: what the check measured.
        witness: counterexample or supporting witness (JSON-able), if any.
        params: the parameters the check used (sizes, constants, sample counts).
        evidence: how the status was established ("sympy proof", "exhaustive", "Hypothesis, 200 examples",
            "Monte Carlo n=..., Clopper-Pearson 1-1e-6", "training sweep", ...).
        details: free-text explanation.
        artefacts: paths of plots or files the check wrote (relative to the out dir).
        unavailable: non-empty when the check could not run here (its reason); such a verdict is
            inconclusive and is not compared with the ledger.
        evidence_level: what the status rests on, one of :data:`rgr_verify.claims.levels.LEVELS` (a legacy name in
            ``params["evidence_level"]`` is read when the field is not given). The status is bounded by it
            (:func:`rgr_verify.claims.levels.bounded_status`): verified / refuted only on decisive evidence.
    """

    status: Status
    paper_value: Any = None
    measured_value: Any = None
    witness: Any = None
    params: dict = field(default_factory=dict)
    evidence: str = ""
    details: str = ""
    artefacts: tuple = ()
    unavailable: str = ""
    evidence_level: str = ""

    def __post_init__(self):
        object.__setattr__(self, "status", Status(self.status))
        if self.unavailable and self.status is not Status.INCONCLUSIVE:
            raise ValueError("a verdict marked unavailable must have status inconclusive")
        level = level_of(self.evidence_level) or level_of((self.params or {}).get("evidence_level"))
        object.__setattr__(self, "evidence_level", level)
        if (self.params or {}).get("evidence_level") not in (None, level):
            object.__setattr__(self, "params", {**self.params, "evidence_level": level})
        object.__setattr__(self, "status", Status(bounded_status(self.status.value, level)))

    @classmethod
    def not_run(cls, reason: str, **kwargs) -> "Verdict":
        """An inconclusive verdict for a check that could not run here (no GPU, tier not selected, ...).

        Such a verdict is reported but never compared with the ledger.
        """
        return cls(status=Status.INCONCLUSIVE, unavailable=reason, details=reason, **kwargs)


@dataclass(frozen=True)
class Claim:
    """One checkable statement of the paper.

    Attributes:
        id: stable kebab-case id, e.g. ``"sec3-linear-aggregation-equals-single-head"``.
        ref: the paper's own label, e.g. ``"Sec. 3"``, ``"Theorem 4.1"``, ``"Eq. (22)"``, ``"App. C"``.
        statement: one-line paraphrase in our words.
        kind: a :class:`Kind`.
        tier: a :class:`Tier`.
        check: ``check(ctx: CheckContext) -> Verdict``.
        notes: readings chosen where the paper is ambiguous, and other caveats.
        paper: the arXiv id of the paper it concerns (default the RGR paper), or ids joined by "+" for a
            cross-paper claim; ``ref`` must be a label of (one of) them.
        replays: the presets whose stored full-tier evidence (``evidence/``) the check reads through
            :func:`rgr_verify.runs.replay.claim_records`; a full-tier claim that names them runs in the quick tier's test
            run too, by replay alone, whenever that evidence is complete.
        stores: the results-store files besides the engine's (``facts-runs.jsonl``, ``sec73-runs.jsonl``) whose
            committed evidence the check reads; like ``replays``, evidence that is missing altogether stops the run
            (:func:`rgr_verify.runs.evidence.missing_evidence`).
        expects: the values the paper states that the check compares against, name -> :class:`Stated` (a plain
            number is a "value", a string a "relation"); the check reads them with ``ctx.expect(name)``, never as
            literals, so that ``rgr-verify mutate`` can tell whether the check distinguishes them from wrong ones.
        role: what the statement is to the result it serves (:data:`ROLES`): "result" (the conclusion of a numbered
            result, a stated law or an experimental finding), "proof-step" (a step of the proof of a result named in
            ``supports``), "detail" (a stated constant, count, wording or cross-reference). A refuted "result" breaks
            the result, a refuted "proof-step" is a proof gap, a refuted "detail" an imprecision
            (:mod:`rgr_verify.claims.structure`).
        supports: the paper's labels (or claim ids) the claim bears on beyond its own ``ref``: for a proof step, the
            result it serves ("Theorem 8.1"). The label of ``ref`` is always included (:attr:`supported`).
        provenance: "paper" (the statement is the paper's, paraphrased), "summary" (for arXiv 2502.05076, read
            through a summary: a gloss or a suggested experiment of the summary's own, not a result it reports of the
            paper) or "ours" (a statement of this audit: an exploratory prediction, a summary of our own, a formula
            or construction of ours); counted apart.
        slip: what a finding shows, a :class:`~rgr_verify.claims.standards.Slip` (or ``(class, target, why)``):
            its severity comes from :data:`~rgr_verify.claims.standards.SEVERITY_TABLE` alone. Every claim whose
            ledger status is refuted or contradicted declares one (a test enforces it); None otherwise.
        analyses: the shared multiverse dimensions its verdict is computed over besides those its check declares
            itself (:data:`rgr_verify.claims.tools.multiverse.RUNNER_DIMENSIONS`); None: "leave one seed out" for
            a full-tier empirical or qualitative claim, and "readings of App. A.1" too when it replays the base
            grid alone (``replays == ("sec6-grid",)``: a claim that compares the base grid with runs trained under
            one reading only, e.g. the softmax sweep, would mix readings), "F1 target" and "threshold rule" when
            it replays a sweep of :data:`F1_REPLAYS`, "seed batch" when it replays one of :data:`BATCHED_REPLAYS`,
            none otherwise ("tolerance" and "test level" are declared by the claims that judge a tolerance band of
            ours or make tests). A claim judged under the readings replays their sweeps too (:data:`READING_REPLAYS`
            are added to ``replays``).
        standard: how the claim is judged, a :class:`~rgr_verify.claims.standards.Standard` (or a dict of its
            fields): the kind of statement (:data:`~rgr_verify.claims.standards.STANDARD_KINDS`), the estimand, the
            tolerance and its source, the primary analysis and the dimensions its multiverse varies. None: the
            default of its Kind where the Kind fixes the standard (symbolic, deterministic, high-probability,
            asymptotic); an experimental claim (empirical, qualitative) declares its own (a test enforces it).
    """

    id: str
    ref: str
    statement: str
    kind: Kind
    tier: Tier
    check: Callable[[CheckContext], Verdict] = field(repr=False, compare=False)
    notes: str = ""
    paper: str = RGR_PAPER
    replays: tuple = ()
    stores: tuple = ()
    expects: dict = field(default_factory=dict, compare=False)
    role: str = ""
    supports: tuple = ()
    provenance: str = "paper"
    slip: object = None
    analyses: tuple | None = None
    standard: object = None

    def __post_init__(self):
        if not _ID_RE.match(self.id):
            raise ValueError(f"claim id must be kebab-case ([a-z0-9-]), got {self.id!r}")
        parts = paper_parts(self.paper)
        if not any(_PAPER_REF_RE[part].match(self.ref) for part in parts):
            raise ValueError(f"claim ref must start with a paper label of {self.paper} such as 'Sec. 3' or "
                             f"'Theorem 4.1' (2502.05076: 'Proposition 2.1', 'Example 2.4', 'Figure 4'), got {self.ref!r}")
        object.__setattr__(self, "kind", Kind(self.kind))
        object.__setattr__(self, "tier", Tier(self.tier))
        if not callable(self.check):
            raise ValueError(f"claim {self.id}: check must be callable")
        if isinstance(self.replays, str) or not all(isinstance(p, str) and p for p in self.replays):
            raise ValueError(f"claim {self.id}: replays must be a tuple of preset names, got {self.replays!r}")
        object.__setattr__(self, "replays", tuple(self.replays))
        if isinstance(self.stores, str) or not all(isinstance(p, str) and p.endswith(".jsonl") for p in self.stores):
            raise ValueError(f"claim {self.id}: stores must be a tuple of store file names (NAME.jsonl), got "
                             f"{self.stores!r}")
        object.__setattr__(self, "stores", tuple(self.stores))
        if not isinstance(self.expects, dict):
            raise ValueError(f"claim {self.id}: expects must be a dict of stated values, got {self.expects!r}")
        object.__setattr__(self, "expects", {k: as_stated(k, v) for k, v in self.expects.items()})
        if self.replays and self.tier is not Tier.FULL:
            raise ValueError(f"claim {self.id}: only full-tier claims replay stored evidence (tier {self.tier.value})")
        if self.role not in ("", *ROLES):
            raise ValueError(f"claim {self.id}: role must be one of {', '.join(ROLES)} (or '' while undeclared: read "
                             f"as result; a finding must declare it), got {self.role!r}")
        if self.provenance not in PROVENANCES:
            raise ValueError(f"claim {self.id}: provenance must be one of {', '.join(PROVENANCES)}, "
                             f"got {self.provenance!r}")
        if self.provenance == "summary" and self.paper != FACTS_PAPER:
            raise ValueError(f"claim {self.id}: provenance 'summary' is for {FACTS_PAPER}, read through its summary; "
                             f"this claim is of {self.paper}")
        supports = (self.supports,) if isinstance(self.supports, str) else tuple(self.supports)
        if not all(isinstance(s, str) and s for s in supports):
            raise ValueError(f"claim {self.id}: supports must be a tuple of paper labels or claim ids, got "
                             f"{self.supports!r}")
        object.__setattr__(self, "supports", supports)
        if self.role == "proof-step" and not supports:
            raise ValueError(f"claim {self.id}: a proof-step claim must name the result it serves in supports")
        if self.analyses is None:
            experimental = self.tier is Tier.FULL and self.kind in (Kind.EMPIRICAL, Kind.QUALITATIVE)
            # a claim on the base grid alone is also judged on the cells trained under App. A.1's other readings; one
            # that replays F1 sweeps under other F1 bars; one that replays batched evidence on its first batch alone
            default = (RUNNER_ANALYSES[0],) + ((RUNNER_ANALYSES[1],) if self.replays == ("sec6-grid",) else ()) + (
                ("F1 target", "threshold rule") if set(self.replays) & set(F1_REPLAYS) else ()) + (
                ("seed batch",) if set(self.replays) & set(BATCHED_REPLAYS) else ())
            object.__setattr__(self, "analyses", default if experimental else ())
        if (isinstance(self.analyses, str) or not isinstance(self.analyses, tuple)
                or any(a not in RUNNER_ANALYSES for a in self.analyses)):
            raise ValueError(f"claim {self.id}: analyses must be a tuple of {RUNNER_ANALYSES}, got "
                             f"{self.analyses!r}")
        if RUNNER_ANALYSES[1] in self.analyses:  # its verdict also reads the other readings' sweeps
            object.__setattr__(self, "replays",
                               self.replays + tuple(p for p in READING_REPLAYS if p not in self.replays))
        try:
            object.__setattr__(self, "slip", as_slip(self.slip))
            object.__setattr__(self, "standard", as_standard(self.standard, self.kind.value))
        except ValueError as e:
            raise ValueError(f"claim {self.id}: {e}") from None

    @property
    def label(self) -> str:
        """The paper label of ``ref`` ("Theorem 8.1" for "Theorem 8.1, Step 3")."""
        return label_of_ref(self.ref)

    @property
    def supported(self) -> tuple:
        """Every label or claim id the claim bears on: the label of its ``ref``, then ``supports``."""
        return tuple(dict.fromkeys((self.label, *self.supports)))

    def stated_values(self) -> dict:
        """The stated values as the check reads them (name -> value; a table as a fresh dict)."""
        return {name: dict(st.value) if st.kind == "table" else st.value for name, st in self.expects.items()}

    def rendered_statement(self, values: dict | None = None) -> str:
        """The statement with its ``{name}`` fields filled from the stated values (``values`` overriding them: the
        values a run used), so that a changed declaration shows in the report; other braces are left as they are."""
        if "{" not in self.statement:
            return self.statement
        vals = {**self.stated_values(), **(values or {})}
        return re.sub(r"\{(\w+)\}", lambda m: shown_value(vals[m[1]]) if m[1] in vals else m[0], self.statement)

    @property
    def marker(self) -> str:
        """The pytest marker of the claim's test: symbolic, property or empirical."""
        if self.kind is Kind.SYMBOLIC:
            return "symbolic"
        if self.kind in (Kind.EMPIRICAL, Kind.QUALITATIVE):
            return "empirical"
        return "property"


def _fresh_reads() -> dict:
    """The read bookkeeping of a fresh :class:`CheckContext` (see its ``seeds_read``)."""
    return {"seeds": set(), "left out": 0, "replaced": 0, "batch left out": 0, "reads": {}}


def claim_seed(root_seed: int, claim_id: str) -> int:
    """A claim's seed: a stable function of the root seed and the claim id (not of run order or worker)."""
    ss = np.random.SeedSequence([int(root_seed), zlib.crc32(claim_id.encode())])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def jsonable(value: Any) -> Any:
    """Convert numpy/torch scalars and arrays, enums, paths, tuples and dataclasses to JSON-able values."""
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "check"}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return v if math.isfinite(v) else str(v)
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if hasattr(value, "detach") and hasattr(value, "tolist"):  # torch tensor
        return jsonable(value.detach().cpu().tolist())
    if value is None or isinstance(value, (str, int)):
        return value
    try:
        json.dumps(value)
        return value
    except TypeError:
        return str(value)
