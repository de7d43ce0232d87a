"""Results stores: append-only JSON-lines files of keyed records, shared by concurrent writers.

:class:`JsonlStore` is the generic part: ``<results_dir>/<filename>`` holds one JSON record (a dict with a string
``"key"``) a line, ``<filename>.lock`` is the :mod:`filelock` lock that serialises writers (several sweeps or
pytest-xdist workers may share a directory), and named training locks let concurrent callers split the work of a
sweep. An append writes complete lines with a single ``write`` and ``fsync``; if a previous writer was killed
mid-line, the next append first terminates the torn line, and readers skip lines that do not parse. So a sweep
killed at any moment loses at most the runs still training, and a resumed sweep redoes none of the finished ones.

:class:`ResultStore` keeps the engine's runs in ``runs.jsonl``, keyed by a hash of (config, seed, engine version);
the Sec. 7.3 sweep (:mod:`rgr_verify.presets_sec73`) keeps its runs in ``sec73-runs.jsonl`` of the same directory.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from filelock import FileLock

from ._checks import check_int
from .engine import ENGINE_VERSION, EQUIVALENT_ENGINE_VERSIONS, RunConfig, RunResult, run_key

__all__ = ["JsonlStore", "ResultStore", "parse_records", "replayable_records", "default_results_dir", "RESULTS_ENV", "ensure_runs", "run_preset"]

RESULTS_ENV = "RGR_VERIFY_RESULTS"


def default_results_dir() -> Path:
    """``$RGR_VERIFY_RESULTS`` if set, else ``~/.cache/rgr-verify/results``."""
    raw = os.environ.get(RESULTS_ENV)
    return Path(raw) if raw else Path.home() / ".cache" / "rgr-verify" / "results"


def parse_records(lines: Iterable[bytes], where: Callable[[dict], bool] | None = None) -> dict[str, dict]:
    """The keyed records of JSON lines (bytes), by key, a later record for a key winning; lines that do not parse
    (torn by a killed writer) or are not keyed records (dicts with a string ``"key"``) are skipped."""
    out: dict[str, dict] = {}
    for raw in lines:
        try:
            rec = json.loads(raw.decode())
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue  # a torn line from a killed writer
        if isinstance(rec, dict) and isinstance(rec.get("key"), str) and (where is None or where(rec)):
            out[rec["key"]] = rec
    return out


def replayable_records(lines: Iterable[bytes]) -> dict[str, dict]:
    """The engine run records among JSON lines that this engine replays, keyed under :data:`ENGINE_VERSION`.

    A record of :data:`ENGINE_VERSION` keeps its key; one of :data:`EQUIVALENT_ENGINE_VERSIONS` (an earlier version
    string shown to compute the same results) is re-keyed from its config and seed; any other is skipped."""
    return {key: rec if rec["engine_version"] == ENGINE_VERSION else {**rec, "key": key}
            for key, rec in _rekeyed(parse_records(lines, where=_replayed_version)).items()}


def _replayed_version(rec: dict) -> bool:
    return rec.get("engine_version") in (ENGINE_VERSION, *EQUIVALENT_ENGINE_VERSIONS)


def _rekeyed(records: dict[str, dict]) -> dict[str, dict]:
    """Records of replayed versions, unchanged, keyed under :data:`ENGINE_VERSION` (an equivalent version's key is
    recomputed from its config and seed)."""
    return {key if rec["engine_version"] == ENGINE_VERSION else run_key(RunConfig.from_dict(rec["config"]),
                                                                        rec["seed"]): rec
            for key, rec in records.items()}


class JsonlStore:
    """Append-only file ``directory / filename`` of JSON records keyed by their string ``"key"`` field.

    ``directory`` is created if needed (None: :func:`default_results_dir`); ``filename`` is a plain file name.
    Reads take no lock (appends write whole lines, and a line still being written does not parse), so stored
    records replay from a read-only directory. A store other than the engine's ``runs.jsonl`` also reads the
    committed evidence of its file name (:func:`rgr_verify.evidence.store_evidence`) under its own records.
    """

    def __init__(self, directory: str | os.PathLike | None, filename: str):
        if not isinstance(filename, str) or not filename or filename in (".", "..") or any(
                sep in filename for sep in ("/", "\\", "\0")):
            raise ValueError(f"filename must be a non-empty plain file name (no path separators), got {filename!r}")
        self.directory = Path(directory) if directory is not None else default_results_dir()
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"results directory {str(self.directory)!r} cannot be created: {exc}") from None
        self.path = self.directory / filename
        self._append_lock = FileLock(str(self.path) + ".lock")

    def read(self, where: Callable[[dict], bool] | None = None) -> dict[str, dict]:
        """Every complete record (for which ``where(record)`` holds, if given), by key; a later record for a key
        wins. Lines that do not parse (torn by a killed writer) or are not keyed records are skipped."""
        if where is not None and not callable(where):
            raise ValueError(f"where must be None or a callable taking a record, got {type(where).__name__}")
        from .evidence import store_evidence

        out = {k: r for k, r in store_evidence(self.path.name).items() if where is None or where(r)}
        if self.path.exists():
            with open(self.path, "rb") as fh:
                out.update(parse_records(fh, where))
        return out

    def append(self, records: Sequence[dict]) -> None:
        """Append ``records`` (dicts with a string ``"key"``, JSON-serialisable), one line each, in one write
        followed by fsync, under the store's lock. A torn last line left by a killed writer is terminated first,
        so it costs only its own record."""
        if isinstance(records, dict) or not all(isinstance(r, dict) and isinstance(r.get("key"), str)
                                                for r in records):
            raise ValueError("records must be a sequence of dicts, each with a string 'key'")
        data = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records).encode()
        if not data:
            return
        with self._append_lock:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = b"\n" + data  # terminate a torn line left by a killed writer
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)

    def lock(self, name: str) -> FileLock:
        """The named training lock (a file ``.<name>.lock`` in the directory; characters other than letters,
        digits, ``-`` and ``_`` become ``_``), for callers that acquire it without waiting."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"lock name must be a non-empty string, got {name!r}")
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)
        return FileLock(str(self.directory / f".{safe}.lock"))

    @contextmanager
    def locked(self, name: str) -> Iterator["JsonlStore"]:
        """Hold the named training lock, so concurrent callers compute a piece of work once while other pieces
        proceed in parallel. Appends use the store's own, short-held lock."""
        with self.lock(name):
            yield self


class ResultStore:
    """Append-only store of engine run records in ``directory / runs.jsonl`` (a :class:`JsonlStore`)."""

    FILENAME = "runs.jsonl"

    def __init__(self, directory: str | os.PathLike | None = None):
        self._jsonl = JsonlStore(directory, self.FILENAME)
        self.directory = self._jsonl.directory
        self.path = self._jsonl.path

    @contextmanager
    def locked(self, name: str = "train") -> Iterator["ResultStore"]:
        """Hold the named training lock (one per preset and tier), so concurrent workers compute a preset once
        while other presets proceed in parallel. Appends use a separate, short-held lock."""
        with self._jsonl.locked(name):
            yield self

    def records(self) -> dict[str, dict]:
        """All complete records this engine replays, keyed under the current engine version (a later record for a
        key wins); see :func:`replayable_records`."""
        if not self.path.exists():
            return {}
        with open(self.path, "rb") as fh:
            return replayable_records(fh)

    def raw_records(self) -> dict[str, dict]:
        """The same records as stored (their own keys and versions), keyed under the current engine version."""
        return _rekeyed(self._jsonl.read(where=_replayed_version))

    def append(self, result: RunResult) -> str:
        """Append one run's record atomically; returns its key."""
        rec = result.to_record()
        rec["extra"] = {k: v for k, v in rec["extra"].items() if k != "weights"}
        key = run_key(result.config, result.seed)
        rec["key"] = key
        self._jsonl.append([rec])
        return key

    def missing(self, runs: Iterable[tuple[RunConfig, int]]) -> list[tuple[RunConfig, int]]:
        """The runs without a record."""
        have = self.records()
        return [(c, int(s)) for c, s in runs if run_key(c, s) not in have]

    def lookup(self, runs: Iterable[tuple[RunConfig, int]]) -> list[dict | None]:
        """The record of each run, or None."""
        have = self.records()
        return [have.get(run_key(c, s)) for c, s in runs]


def ensure_runs(runs: Sequence[tuple[RunConfig, int]], *, results_dir=None, device: str | None = None,
                threads: int | None = None, max_batch: int = 256, max_waste: float = 4.0,
                progress: bool = False, desc: str = "runs", lock_name: str = "train") -> tuple[list[dict], int]:
    """Make sure every run has a record (training the missing ones, batched), and return the records.

    The preset's training lock is held while training, so concurrent callers (pytest-xdist workers) wait for one another
    instead of training the same runs twice; each finished run is appended as soon as it finishes, so an
    interrupted call loses only the runs still training. Returns (records in input order, runs trained now).
    """
    import torch

    from .engine import train_runs

    store = ResultStore(results_dir)
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if threads is not None:
        torch.set_num_threads(check_int("threads", threads, min_value=1))
    runs = [(c, int(s)) for c, s in runs]
    with store.locked(lock_name):
        todo = store.missing(runs)
        bar = None
        if progress and todo:
            from tqdm import tqdm

            bar = tqdm(total=len(runs), initial=len(runs) - len(todo), desc=desc, unit="run")

        def on_result(res: RunResult) -> None:
            store.append(res)
            if bar is not None:
                bar.update(1)

        if todo:
            train_runs(todo, device=device, max_batch=max_batch, max_waste=max_waste, on_result=on_result)
        if bar is not None:
            bar.close()
        recs = store.lookup(runs)
    if any(r is None for r in recs):  # pragma: no cover - would mean a lost append
        raise RuntimeError("results store lost a record")
    return recs, len(todo)


def run_preset(name: str, *, tier: str = "quick", device: str | None = None, results_dir=None,
               threads: int | None = None, max_batch: int = 256, max_waste: float = 4.0,
               progress: bool = False) -> dict:
    """Train (or reuse) every run of a preset; returns a summary dict."""
    from .presets import get_preset

    preset = get_preset(name, tier)
    recs, trained = ensure_runs(preset.runs, results_dir=results_dir, device=device, threads=threads,
                                max_batch=max_batch, max_waste=max_waste, progress=progress, desc=f"{name} [{tier}]",
                                lock_name=f"{name}-{tier}")
    store = ResultStore(results_dir)
    return {"preset": name, "tier": tier, "total": len(recs), "trained": trained, "reused": len(recs) - trained,
            "store": str(store.path), "records": recs}


NEEDS_GPU = "needs a CUDA GPU or stored full-tier results (committed evidence/ or --results DIR)"


def claim_records(preset: str, tier: str, ctx) -> tuple[list[dict] | None, str]:
    """Records of a preset for a claim check, or (None, reason) when they cannot be had here.

    Quick tier: missing runs are trained on the claim's device (CPU: one torch thread, then restored).
    Full tier: the committed evidence (:mod:`rgr_verify.evidence`) and the results store are replayed (the store
    wins for a run in both); no stored run is retrained. Runs in neither are trained only on CUDA and never when
    ``ctx.replay_only``; otherwise the check cannot run. What was replayed and trained is appended to
    ``ctx.provenance`` and returned as the second element (empty reason = records available).
    """
    import torch

    from .evidence import evidence_records
    from .presets import preset_runs

    runs = preset_runs(preset, tier)
    results_dir = ctx.results_dir if ctx.results_dir is not None else default_results_dir()
    store = ResultStore(results_dir)
    if tier == "full":
        stored, manifests = evidence_records(preset, tier, ctx.evidence_dir)
        local = store.records()
        have = {**stored, **local}
        keys = [run_key(c, s) for c, s in runs]
        from_evidence = sum(k in stored and k not in local for k in keys)
        from_store = sum(k in local for k in keys)
        todo = [run for run, k in zip(runs, keys) if k not in have]
        names = ", ".join(f"evidence/{m.records_path_name}" for m in manifests) or "no committed evidence"
        if todo and (ctx.device != "cuda" or ctx.replay_only):
            return None, (f"{NEEDS_GPU} ({len(todo)} of {len(runs)} {preset} full-tier runs are neither in {names} "
                          f"nor in {store.directory})")
        note = f"{preset} [full]: {from_evidence} runs replayed from {names}"
        if from_store:
            note += f", {from_store} from {store.directory}"
        if todo:
            ensure_runs(todo, results_dir=results_dir, device=ctx.device, lock_name=f"{preset}-{tier}")
            have.update(store.records())
            note += f", {len(todo)} missing runs trained now on {ctx.device}"
        ctx.provenance.append(note)
        return [have[k] for k in keys], note
    threads = torch.get_num_threads()
    try:
        recs, _ = ensure_runs(runs, results_dir=results_dir, device=ctx.device,
                              threads=1 if ctx.device == "cpu" else None, lock_name=f"{preset}-{tier}")
    finally:
        torch.set_num_threads(threads)
    return recs, ""
