"""Results store: append-only JSON-lines records keyed by a hash of (config, seed, engine version).

Layout: ``<results_dir>/runs.jsonl`` holds one record per finished run; ``runs.jsonl.lock`` is the
:mod:`filelock` lock that serialises writers (several sweeps or pytest-xdist workers may share a directory).
An append writes one complete line with a single ``write`` and ``fsync``; if a previous writer was killed
mid-line, the next append first terminates the torn line, and readers skip lines that do not parse. So a sweep
killed at any moment loses at most the runs still training, and a resumed sweep redoes none of the finished ones.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from filelock import FileLock

from ._checks import check_int
from .engine import ENGINE_VERSION, RunConfig, RunResult, run_key

__all__ = ["ResultStore", "default_results_dir", "RESULTS_ENV", "ensure_runs", "run_preset"]

RESULTS_ENV = "RGR_VERIFY_RESULTS"


def default_results_dir() -> Path:
    """``$RGR_VERIFY_RESULTS`` if set, else ``~/.cache/rgr-verify/results``."""
    raw = os.environ.get(RESULTS_ENV)
    return Path(raw) if raw else Path.home() / ".cache" / "rgr-verify" / "results"


class ResultStore:
    """Append-only store of run records in ``directory``."""

    FILENAME = "runs.jsonl"

    def __init__(self, directory: str | os.PathLike | None = None):
        self.directory = Path(directory) if directory is not None else default_results_dir()
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"results directory {str(self.directory)!r} cannot be created: {exc}") from None
        self.path = self.directory / self.FILENAME
        self._lock = FileLock(str(self.path) + ".lock")

    @contextmanager
    def locked(self, name: str = "train") -> Iterator["ResultStore"]:
        """Hold the named training lock (one per preset and tier), so concurrent workers compute a preset once
        while other presets proceed in parallel. Appends use a separate, short-held lock."""
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)
        with FileLock(str(self.directory / f".{safe}.lock")):
            yield self

    def records(self) -> dict[str, dict]:
        """All complete records of the current engine version, by key (a later record for a key wins)."""
        out: dict[str, dict] = {}
        if not self.path.exists():
            return out
        with open(self.path, "rb") as fh:
            for raw in fh:
                try:
                    rec = json.loads(raw.decode())
                except (UnicodeDecodeError, json.JSONDecodeError):
                    continue  # a torn line from a killed writer
                if isinstance(rec, dict) and rec.get("engine_version") == ENGINE_VERSION and "key" in rec:
                    out[rec["key"]] = rec
        return out

    def append(self, result: RunResult) -> str:
        """Append one run's record atomically; returns its key."""
        rec = result.to_record()
        rec["extra"] = {k: v for k, v in rec["extra"].items() if k != "weights"}
        key = run_key(result.config, result.seed)
        rec["key"] = key
        line = (json.dumps(rec, sort_keys=True) + "\n").encode()
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                size = os.fstat(fd).st_size
                if size:
                    with open(self.path, "rb") as fh:
                        fh.seek(size - 1)
                        if fh.read(1) != b"\n":
                            line = b"\n" + line  # terminate a torn line left by a killed writer
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
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
                threads: int | None = None, max_batch: int = 256, progress: bool = False,
                desc: str = "runs", lock_name: str = "train") -> tuple[list[dict], int]:
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
            train_runs(todo, device=device, max_batch=max_batch, on_result=on_result)
        if bar is not None:
            bar.close()
        recs = store.lookup(runs)
    if any(r is None for r in recs):  # pragma: no cover - would mean a lost append
        raise RuntimeError("results store lost a record")
    return recs, len(todo)


def run_preset(name: str, *, tier: str = "quick", device: str | None = None, results_dir=None,
               threads: int | None = None, max_batch: int = 256, progress: bool = False) -> dict:
    """Train (or reuse) every run of a preset; returns a summary dict."""
    from .presets import get_preset

    preset = get_preset(name, tier)
    recs, trained = ensure_runs(preset.runs, results_dir=results_dir, device=device, threads=threads,
                                max_batch=max_batch, progress=progress, desc=f"{name} [{tier}]",
                                lock_name=f"{name}-{tier}")
    store = ResultStore(results_dir)
    return {"preset": name, "tier": tier, "total": len(recs), "trained": trained, "reused": len(recs) - trained,
            "store": str(store.path), "records": recs}


NEEDS_GPU = "needs a CUDA GPU or stored full-tier results in --results DIR"


def claim_records(preset: str, tier: str, ctx) -> tuple[list[dict] | None, str]:
    """Records of a preset for a claim check, or (None, reason) when they cannot be had here.

    Quick tier: missing runs are trained on the claim's device (CPU: one torch thread, then restored).
    Full tier: stored records are replayed; missing ones are trained only when ``ctx.device`` is CUDA.
    """
    import torch

    from .presets import preset_runs

    runs = preset_runs(preset, tier)
    results_dir = ctx.results_dir if ctx.results_dir is not None else default_results_dir()
    store = ResultStore(results_dir)
    if tier == "full" and ctx.device != "cuda":
        recs = store.lookup(runs)
        missing = sum(r is None for r in recs)
        if missing:
            return None, f"{NEEDS_GPU} ({missing} of {len(runs)} {preset} full-tier runs not stored in {store.directory})"
        return recs, ""
    threads = torch.get_num_threads()
    try:
        recs, _ = ensure_runs(runs, results_dir=results_dir, device=ctx.device,
                              threads=1 if ctx.device == "cpu" else None, lock_name=f"{preset}-{tier}")
    finally:
        torch.set_num_threads(threads)
    return recs, ""
