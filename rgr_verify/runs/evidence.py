"""Stored full-tier evidence: the paper-scale training runs that decide the full-tier claims, committed with the code.

The top-level ``evidence/`` folder of the repository holds, per stored sweep, ``NAME.jsonl.gz`` (the engine's run
records, one JSON line each, as :class:`rgr_verify.runs.store.ResultStore` writes them) and ``NAME.json``, its manifest:
preset, tier, run count against the preset's, engine version(s), commit, torch / CUDA versions, device, date, the
exact command(s) and the sha256 of the ``.jsonl.gz``. Full-tier claims replay it by default
(:func:`rgr_verify.runs.replay.claim_records`): no stored run is ever retrained, and a store that lacks runs of its
preset trains only those, where a GPU is at hand, and says so.

Records are replayed when their ``engine_version`` is :data:`rgr_verify.engine.ENGINE_VERSION` or one of
:data:`rgr_verify.engine.EQUIVALENT_ENGINE_VERSIONS` (then re-keyed under the current version); the golden
re-execution test (``empirical/test_golden.py``) retrains a sample of them and ties the two together.

Where: ``$RGR_VERIFY_EVIDENCE`` if set, else ``rgr_verify/data/evidence``, package data that a wheel installs too
(the repository's top-level ``evidence`` is a link to it, so the paths ``evidence/NAME`` of the docs hold).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import gzip
import hashlib
import io
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..basics.checks import check_choice
from ..basics.files import atomic_write_bytes, atomic_write_text
from ..basics.settings import EVIDENCE_ENV, env
from .kinds import store_of
from .batches import Batch, batch_problems, seeds_of

__all__ = ["EVIDENCE_ENV", "ENGINE_STORE", "MANIFEST_SCHEMA", "store_evidence", "with_evidence", "add_store_evidence", "Manifest", "default_evidence_dir", "manifests", "read_evidence",
           "evidence_records", "evidence_complete", "add_evidence", "verify_evidence", "missing_evidence",
           "missing_evidence_message", "PACKAGE_EVIDENCE"]

ENGINE_STORE = store_of("engine")
MANIFEST_SCHEMA = "rgr-verify/evidence/1"
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9.-]*$")


PACKAGE_EVIDENCE = Path(__file__).resolve().parents[1] / "data" / "evidence"  # package data: a wheel ships it


def default_evidence_dir() -> Path:
    """``$RGR_VERIFY_EVIDENCE`` if set, else the evidence the package ships (:data:`PACKAGE_EVIDENCE`; the
    repository's top-level ``evidence`` is a link to it)."""
    raw = env(EVIDENCE_ENV)
    return Path(raw) if raw else PACKAGE_EVIDENCE


def _resolve(directory) -> Path:
    return Path(directory) if directory is not None else default_evidence_dir()


@dataclass(frozen=True)
class Manifest:
    """What one stored sweep is and where it came from (``evidence/NAME.json``)."""

    name: str  # file stem: NAME.jsonl.gz holds the records
    preset: str  # experiment preset (rgr_verify.runs.presets)
    tier: str  # preset tier, "full" for paper-scale evidence
    runs: int  # records of the preset's runs in the store
    preset_runs: int  # runs of the preset at this tier when the store was added
    engine_versions: tuple  # engine versions of the records
    commit: str  # commit of the code that trained them
    torch: str  # torch version
    cuda: str | None  # CUDA version (None: a CPU run)
    device: str  # the device, in words
    date: str | None  # when the store was added (ISO date), None when not recorded
    commands: tuple  # the exact commands that produced the records
    sha256: str  # of NAME.jsonl.gz
    notes: str = ""  # anything a reader must know (resumed runs, batching options, ...)
    schema: str = MANIFEST_SCHEMA
    store: str = ENGINE_STORE  # the results-store file the records belong to ("runs.jsonl": the engine's)
    # "preset": runs of the preset (its ladder); "adaptive": the runs an adaptive D_K* search trained beyond it
    # (multiples of h between rungs, rgr_verify.runs.adaptive.CandidateRuns), never replayed by the claims
    runs_of: str = "preset"
    # rule fingerprints of the claims this store feeds, recorded when it was added (rgr_verify.claims.preregistration)
    rules: dict = dataclasses.field(default_factory=dict)
    rules_date: str | None = None  # when ``rules`` were recorded (ISO date)
    # for a store other than the engine's: the sweep whose runs it should hold (e.g. "sec73:full:minilm:cuda:20250926",
    # rgr_verify.runs.sec73_keys.planned_runs), so that ``preset_runs`` counts them and a partial store says so
    plan: str = ""
    seeds: tuple = ()  # the seeds of its records (rgr_verify.runs.batches.record_seed), sorted
    batches: tuple = ()  # its sittings (rgr_verify.runs.batches.Batch): date, commit, clean tree, commands, runs, seeds
    # where the sweep departs from the paper's protocol (e.g. fewer seeds than the paper's), in words, one per entry
    deviations: tuple = ()

    @property
    def engine(self) -> bool:
        """Engine run records (replayed through :func:`evidence_records`); otherwise records of another results
        store (``facts-runs.jsonl``, ``sec73-runs.jsonl``), read under that store by :func:`store_evidence`."""
        return self.store == ENGINE_STORE

    @property
    def complete(self) -> bool:
        """Every run of the preset is stored (for adaptive evidence: every candidate run, which no search needs)."""
        return self.runs == self.preset_runs

    @property
    def adaptive(self) -> bool:
        """Runs of an adaptive D_K* search beyond the preset's ladder (read by ``rgr-verify adaptive`` only)."""
        return self.runs_of == "adaptive"

    @property
    def records_path_name(self) -> str:
        return f"{self.name}.jsonl.gz"

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["engine_versions"] = list(self.engine_versions)
        d["commands"] = list(self.commands)
        d["rules"] = dict(self.rules)
        d["seeds"] = list(self.seeds)
        d["batches"] = [b.to_dict() for b in self.batches]
        d["deviations"] = list(self.deviations)
        if not self.deviations:
            del d["deviations"]
        if not self.plan:  # manifests without a plan keep their earlier form
            del d["plan"]
        return d

    @classmethod
    def from_dict(cls, data: dict) -> "Manifest":
        if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
            raise ValueError(f"not an evidence manifest of schema {MANIFEST_SCHEMA!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in data.items() if k in names}
        kw["engine_versions"] = tuple(kw.get("engine_versions", ()))
        kw["commands"] = tuple(kw.get("commands", ()))
        kw["seeds"] = tuple(kw.get("seeds", ()))
        kw["batches"] = tuple(Batch.from_dict(b) for b in kw.get("batches", ()))
        kw["deviations"] = tuple(kw.get("deviations", ()))
        if not isinstance(kw.get("rules", {}), dict):
            raise ValueError(f"rules must map claim ids to rule fingerprints, got {kw['rules']!r}")
        if kw.get("runs_of", "preset") not in ("preset", "adaptive"):
            raise ValueError(f"runs_of must be 'preset' or 'adaptive', got {kw['runs_of']!r}")
        return cls(**kw)


def manifests(directory=None) -> list[Manifest]:
    """Every manifest in the evidence folder (none if the folder does not exist), sorted by name."""
    d = _resolve(directory)
    if not d.is_dir():
        return []
    out = []
    for path in sorted(d.glob("*.json")):
        try:
            out.append(Manifest.from_dict(json.loads(path.read_text())))
        except (ValueError, TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"evidence manifest {str(path)!r} is malformed: {exc}") from None
    return out


def read_evidence(manifest: Manifest, directory=None) -> dict[str, dict]:
    """The replayable records of one stored sweep, keyed under the current engine version.

    Raises ValueError if the file is missing or its sha256 differs from the manifest's (a store is never replayed
    unverified)."""
    path = _resolve(directory) / manifest.records_path_name
    if not path.is_file():
        raise ValueError(f"evidence store {str(path)!r} named by manifest {manifest.name!r} is missing")
    stat = path.stat()
    key = (str(path.resolve()), manifest.sha256, manifest.engine, stat.st_mtime_ns, stat.st_size)
    if key in _READ_CACHE:  # verified when read; re-read (and re-verified) whenever the file changes
        return dict(_READ_CACHE[key])
    _READ_CACHE[key] = _read_verified(path, manifest)
    return dict(_READ_CACHE[key])


# The stored sweeps read in this process (a multiverse replays one preset once per analysis): (path, sha256, engine,
# mtime, size) -> records. The records are shared: callers copy before changing one.
_READ_CACHE: dict = {}


def _read_verified(path, manifest: Manifest) -> dict[str, dict]:
    from .store import replayable_records

    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != manifest.sha256:
        raise ValueError(f"evidence store {str(path)!r} has sha256 {digest[:12]}..., its manifest says "
                         f"{manifest.sha256[:12]}...: refusing to replay it")
    with gzip.open(io.BytesIO(raw), "rb") as fh:  # a malformed line: StoreError naming the file and the line
        if manifest.engine:
            return replayable_records(fh, source=path)
        from .store import parse_records

        return parse_records(fh, source=path, store=manifest.store)


def store_evidence(store: str, directory=None) -> dict[str, dict]:
    """The committed records of a results store other than the engine's (by file name, e.g. ``facts-runs.jsonl``),
    by key; :func:`with_evidence` reads them under a store's own records."""
    recs: dict[str, dict] = {}
    if store == ENGINE_STORE:
        return recs
    for man in manifests(directory):
        if man.store == store:
            recs.update(read_evidence(man, directory))
    return recs


def with_evidence(store, directory=None, where=None) -> dict[str, dict]:
    """The records of a :class:`~rgr_verify.runs.store.JsonlStore` other than the engine's joined with the
    committed evidence of its file name: the evidence first, the store's own records over it (a run in both is the
    store's). The one place such a store meets its evidence (the engine's store meets it in
    :func:`rgr_verify.runs.replay.claim_records`)."""
    out = {k: r for k, r in store_evidence(store.path.name, directory).items() if where is None or where(r)}
    out.update(store.read(where))
    return out


def evidence_records(preset: str, tier: str, directory=None, *, adaptive: bool = False
                     ) -> tuple[dict[str, dict], list[Manifest]]:
    """The union of the stored records of ``preset`` at ``tier`` (by key; a later store wins) and the manifests
    they came from. ``adaptive``: also the adaptive-search evidence of the preset (runs between its rungs)."""
    if not isinstance(adaptive, bool):
        raise ValueError(f"adaptive must be a bool, got {adaptive!r}")
    recs: dict[str, dict] = {}
    used = []
    for man in manifests(directory):
        if man.engine and man.preset == preset and man.tier == tier and (adaptive or not man.adaptive):
            recs.update(read_evidence(man, directory))
            used.append(man)
    return recs, used


def evidence_complete(preset: str, tier: str, directory=None) -> bool:
    """Whether the committed evidence holds every run of ``preset`` at ``tier`` (from the manifests alone: cheap;
    the sha256 and the run keys are verified when the records are read, and by the evidence tests)."""
    from .presets import preset_runs

    total = len(preset_runs(preset, tier))
    return any(m.engine and not m.adaptive and m.preset == preset and m.tier == tier
               and m.runs == total == m.preset_runs for m in manifests(directory))


def missing_evidence(claims, directory=None) -> dict[str, list[str]]:
    """The committed evidence that ``claims`` read and the evidence folder lacks altogether: ``{what: [claim ids]}``
    with ``what`` naming the store ("preset sec6-grid", "store facts-runs.jsonl"). A claim reads the full-tier
    evidence of each preset in its ``replays`` and the evidence of each store file in its ``stores``; evidence is
    missing when no manifest of the folder names it, or its records file is absent. Evidence that is present but
    incomplete is not missing: the claim then says which runs it lacks."""
    d = _resolve(directory)
    mans = [m for m in manifests(d) if (d / m.records_path_name).is_file()]
    presets = {m.preset for m in mans if m.engine and not m.adaptive and m.tier == "full"}
    stores = {m.store for m in mans}
    out: dict[str, list[str]] = {}
    for claim in claims:
        for preset in getattr(claim, "replays", ()):
            if preset not in presets:
                out.setdefault(f"preset {preset}", []).append(claim.id)
        for store in getattr(claim, "stores", ()):
            if store not in stores:
                out.setdefault(f"store {store}", []).append(claim.id)
    return out


def missing_evidence_message(missing: dict, directory=None, *, option: str = "--allow-missing-evidence") -> str:
    """One line naming the missing evidence, the folder and the way out."""
    d = _resolve(directory)
    what = "; ".join(f"{name} (read by {ids[0]}" + (f" and {len(ids) - 1} more)" if len(ids) > 1 else ")")
                     for name, ids in sorted(missing.items()))
    return (f"committed evidence missing in {d}: {what}; point ${EVIDENCE_ENV} at the evidence folder, or pass "
            f"{option} to report these claims as not run")


def verify_evidence(directory=None) -> list[dict]:
    """Check every stored sweep against its manifest and its preset: sha256, record count, run keys, versions.
    Returns one row per manifest: name, preset, tier, runs, preset_runs, complete, ok, problem."""
    from ..engine import ENGINE_VERSION, EQUIVALENT_ENGINE_VERSIONS, run_key
    from .presets import preset_runs

    rows = []
    for man in manifests(directory):
        problem = ""
        try:
            recs = read_evidence(man, directory)
            if man.adaptive:
                from .ladder import CandidateRuns

                cands = CandidateRuns(preset_runs(man.preset, man.tier))
                n_keys, what = len(cands), "adaptive-search runs"
                stray = {k for k, r in recs.items() if not cands.stores(k, r)}
            elif man.plan:  # records may carry the keys of a hashed code version the declared one adopted
                what, n_keys = "runs", len(_planned(man.plan))
                stray = set(recs) - set(_planned(man.plan, adopted=True))
            else:
                keys = {run_key(c, s) for c, s in preset_runs(man.preset, man.tier)} if man.engine else set(recs)
                n_keys, what = len(keys), "runs"
                stray = set(recs) - keys
            if stray:
                problem = f"{len(stray)} records are not {what} of {man.preset} [{man.tier}]"
            elif len(recs) != man.runs:
                problem = f"{len(recs)} (replayable) records, manifest says {man.runs}"
            elif n_keys != man.preset_runs:
                problem = f"the preset now has {n_keys} {what}, the manifest {man.preset_runs}"
            elif not set(man.engine_versions) <= {ENGINE_VERSION, *EQUIVALENT_ENGINE_VERSIONS}:
                problem = f"engine versions {list(man.engine_versions)} are not replayed by {ENGINE_VERSION}"
            elif batch_problems(man.batches, recs.values(), man.seeds):
                problem = "batches: " + "; ".join(batch_problems(man.batches, recs.values(), man.seeds))
        except ValueError as exc:
            problem = str(exc)
        rows.append({"name": man.name, "preset": man.preset, "tier": man.tier, "runs": man.runs,
                     "preset_runs": man.preset_runs, "complete": man.complete, "ok": not problem,
                     "problem": problem})
    return rows


def _default_commit() -> str:
    import subprocess

    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True,
                             text=True, timeout=10, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _default_clean() -> bool | None:
    """Whether this checkout has no uncommitted change (None when git cannot tell)."""
    import subprocess

    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                             cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=10,
                             check=True)
        return not out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _batches(manifest_path: Path, records_path: Path, chosen, *, date, commit, clean, commands) -> tuple:
    """The batches of a store being written: those of the manifest it replaces (when there is one: a sweep resumed
    into the same evidence), then one batch of the records that manifest's store did not hold (none when it held
    them all)."""
    earlier: tuple = ()
    old_keys: set = set()
    if manifest_path.is_file() and records_path.is_file():
        try:
            old = Manifest.from_dict(json.loads(manifest_path.read_text()))
            with gzip.open(records_path, "rt") as fh:
                old_keys = {json.loads(line)["key"] for line in fh if line.strip()}
        except (ValueError, KeyError, OSError, json.JSONDecodeError):
            old, old_keys = None, set()
        if old is not None:
            kept = [rec for key, rec in chosen if key in old_keys]
            earlier = old.batches or ((Batch(date=old.date, commit=old.commit, clean=None, commands=old.commands or
                                             ("not recorded",), runs=len(kept), seeds=seeds_of(kept)),) if kept else ())
    new = [rec for key, rec in chosen if key not in old_keys]
    if not new:
        return earlier
    return earlier + (Batch(date=date, commit=commit, clean=clean, commands=tuple(commands) or ("not recorded",),
                            runs=len(new), seeds=seeds_of(new), after="added to earlier batches" if earlier else ""),)


def _environment() -> tuple[str, str | None, str]:
    import torch

    cuda = torch.version.cuda if torch.cuda.is_available() else None
    if torch.cuda.is_available():
        device = torch.cuda.get_device_name(0)
    else:
        import platform

        device = f"CPU ({platform.machine() or 'unknown'}, {os.cpu_count() or '?'} cores), torch {torch.__version__}"
    return torch.__version__, cuda, device


def add_evidence(results_dir, preset: str, *, tier: str = "full", directory=None, name: str | None = None,
                 commands: tuple | list = (), notes: str = "", replace: bool = False,
                 provenance: dict | None = None, adaptive: bool = False, rules=None) -> Manifest:
    """Copy the records of ``preset`` at ``tier`` from the results store in ``results_dir`` into the evidence
    folder as ``NAME.jsonl.gz`` (records as stored, sorted by key, gzip without a timestamp) with its manifest.

    ``adaptive``: copy instead the runs an adaptive D_K* search trained beyond the preset's ladder
    (:class:`rgr_verify.runs.adaptive.CandidateRuns`; default name ``PRESET-adaptive-TIER``). They are read only by
    ``rgr-verify adaptive`` (:func:`evidence_records` with ``adaptive=True``), never by the claims.

    ``commands``: the exact commands that trained them (recorded, not run). ``provenance``: overrides of the
    manifest's commit / torch / cuda / device / date (default: this checkout's HEAD and this machine, today).
    ``rules``: a function that records in the manifest the rule fingerprints of the claims it feeds
    (:func:`rgr_verify.claims.preregistration.with_rules`, which ``rgr-verify evidence add`` passes; the claims are a
    layer above the stored runs, so they are handed in, not imported); None records none, and the claims it feeds
    are then marked post hoc. Refuses (ValueError) a store with no record of the preset, an existing NAME unless ``replace``, and bad names.
    Nothing partial is written: the records, then the manifest, each by an atomic rename.
    """
    from ..engine import run_key
    from .presets import PRESET_TIERS, PRESETS, preset_runs
    from .store import ResultStore

    check_choice("preset", preset, tuple(PRESETS))
    check_choice("tier", tier, PRESET_TIERS)
    src = Path(results_dir)
    if not (src / ResultStore.FILENAME).is_file():
        raise ValueError(f"results_dir must hold a results store ({ResultStore.FILENAME}), none in {str(src)!r}")
    if not isinstance(adaptive, bool):
        raise ValueError(f"adaptive must be a bool, got {adaptive!r}")
    name = name if name is not None else f"{preset}-adaptive-{tier}" if adaptive else f"{preset}-{tier}"
    runs = preset_runs(preset, tier)
    raw = ResultStore(src).raw_records()
    if adaptive:
        from .ladder import CandidateRuns

        cands = CandidateRuns(runs)
        n_keys = len(cands)
        chosen = sorted((k, rec) for k, rec in raw.items() if cands.stores(k, rec))
        what = "adaptive-search run beyond the ladder"
    else:
        keys = {run_key(c, s) for c, s in runs}
        n_keys = len(keys)
        chosen = sorted((k, rec) for k, rec in raw.items() if k in keys)
        what = "record"
    if not chosen:
        raise ValueError(f"results_dir {str(src)!r} holds no {what} of {preset} [{tier}] for this engine version")
    return _write_evidence(chosen, name=name, preset=preset, tier=tier, preset_runs=n_keys,
                           engine_versions=tuple(sorted({rec.get("engine_version") for _, rec in chosen})),
                           store=ENGINE_STORE, directory=directory, commands=commands, notes=notes, replace=replace,
                           provenance=provenance, runs_of="adaptive" if adaptive else "preset", rules=rules)


def _write_evidence(chosen, *, name, preset, tier, preset_runs, engine_versions, store, directory, commands, notes,
                    replace, provenance, runs_of: str = "preset", rules=None, plan: str = "") -> Manifest:
    if name is None or not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(f"name must match [a-z0-9][a-z0-9.-]*, got {name!r}")
    if isinstance(commands, str) or not all(isinstance(c, str) and c for c in commands):
        raise ValueError("commands must be a list of non-empty strings")
    provenance = dict(provenance or {})
    unknown = set(provenance) - {"commit", "torch", "cuda", "device", "date", "clean"}
    if unknown:
        raise ValueError(f"provenance keys must be among commit, torch, cuda, device, date, clean; "
                         f"got {sorted(unknown)}")
    dest = _resolve(directory)
    if (dest / f"{name}.json").exists() and not replace:
        raise ValueError(f"evidence {name!r} exists in {str(dest)!r}; pass replace=True (--replace) to overwrite it")
    lines = "".join(json.dumps(rec, sort_keys=True) + "\n" for _, rec in chosen).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        gz.write(lines)
    data = buf.getvalue()
    torch_v, cuda_v, device = _environment()
    date = provenance.get("date", _dt.date.today().isoformat())
    commit = provenance.get("commit", _default_commit())
    batches = _batches(dest / f"{name}.json", dest / f"{name}.jsonl.gz", chosen, date=date, commit=commit,
                       clean=provenance.get("clean", _default_clean()), commands=commands)
    man = Manifest(
        name=name, preset=preset, tier=tier, runs=len(chosen), preset_runs=preset_runs,
        engine_versions=tuple(engine_versions), store=store,
        commit=commit, torch=provenance.get("torch", torch_v),
        cuda=provenance.get("cuda", cuda_v), device=provenance.get("device", device),
        date=date, commands=tuple(commands),
        sha256=hashlib.sha256(data).hexdigest(), notes=notes, runs_of=runs_of, plan=plan,
        seeds=seeds_of(rec for _, rec in chosen), batches=batches)
    if rules is not None:
        man = rules(man)  # the rules of the claims it feeds, fixed now, before any claim reads the records
    dest.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(dest / man.records_path_name, data)
    atomic_write_text(dest / f"{name}.json", json.dumps(man.to_dict(), indent=2) + "\n")
    return man

def add_store_evidence(results_dir, store: str, *, name: str, label: str, tier: str = "full", directory=None,
                       commands: tuple | list = (), notes: str = "", replace: bool = False,
                       provenance: dict | None = None, where=None, rules=None, plan: str = "") -> Manifest:
    """Commit every record of the results store ``results_dir / store`` (a :class:`~rgr_verify.runs.store.JsonlStore`
    file other than the engine's, e.g. ``facts-runs.jsonl`` or ``sec73-runs.jsonl``) as ``NAME.jsonl.gz`` with its
    manifest (only the records for which ``where(record)`` holds, if given; ``rules`` as in :func:`add_evidence`);
    ``label`` names what was swept (e.g.
    the presets). ``plan`` (e.g. "sec73:full:minilm:cuda:20250926") names the sweep the store belongs to: only
    records of its runs are committed (ValueError on any other), the manifest counts its runs as ``preset_runs`` and
    records the plan, so a partial store (a sweep resumed across GPU sessions) says how many runs it lacks. Its
    records are then read under that store
    wherever it is opened, so the claims that use it replay them; the store's own keys decide whether they still
    apply (a key that carries a code or version hash simply stops matching when that changes)."""
    if not isinstance(store, str) or store == ENGINE_STORE or "/" in store or not store.endswith(".jsonl"):
        raise ValueError(f"store must be the file name of a results store other than {ENGINE_STORE!r} "
                         f"(*.jsonl), got {store!r}; use add_evidence for engine runs")
    if not isinstance(label, str) or not label:
        raise ValueError(f"label must be a non-empty string, got {label!r}")
    from .store import parse_records

    path = Path(results_dir) / store
    if not path.is_file():
        raise ValueError(f"results_dir must hold the store {store!r}, none in {str(results_dir)!r}")
    if where is not None and not callable(where):
        raise ValueError(f"where must be None or a callable taking a record, got {type(where).__name__}")
    with open(path, "rb") as fh:  # a malformed line: StoreError naming the file and the line
        recs = parse_records(fh, where, source=path, store=store)
    if not recs:
        raise ValueError(f"{str(path)!r} holds no record" + (" that where() selects" if where is not None else ""))
    n_runs = len(recs)
    if plan:
        from .sec73_keys import STORE_NAME  # the one store whose sweeps have plans

        if store != STORE_NAME:
            raise ValueError(f"plan names a Sec. 7.3 sweep, whose store is {STORE_NAME!r}; got store {store!r}")
        planned = _planned(plan, adopted=True)  # a run's key under the declared or an adopted code version
        stray = sorted(set(recs) - set(planned))
        if stray:
            raise ValueError(f"{len(stray)} records of {str(path)!r} are not runs of the plan {plan!r} "
                             f"(first key {stray[0][:12]}...)")
        if len({planned[k] for k in recs}) < len(recs):
            raise ValueError(f"{str(path)!r} holds one run of the plan {plan!r} under two code versions; keep one")
        n_runs = len(_planned(plan))
    return _write_evidence(sorted(recs.items()), name=name, preset=label, tier=tier, preset_runs=n_runs,
                           engine_versions=(), store=store, directory=directory, commands=commands, notes=notes,
                           replace=replace, provenance=provenance, rules=rules, plan=plan)


def _planned(plan: str, *, adopted: bool = False) -> dict:
    """The runs of a store's plan by key (only Sec. 7.3 sweeps have plans: "sec73:TIER:SOURCE:DEVICE:ROOT_SEED")."""
    from .sec73_keys import planned_runs

    return planned_runs(plan, adopted=adopted)
