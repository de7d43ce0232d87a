"""Sweep workers: self-scheduling over a preset's units, one lock per unit, records appended as runs finish.

A worker walks the units (largest first), takes the first one whose lock it can get without waiting, trains the
unit's runs that the store lacks (read under the lock), appends each record as soon as its run finishes, releases
the lock and starts over; when every unit left is held by another worker it polls those locks, so it takes over a
unit whose worker died (the operating system drops a dead process's lock) and retrains only the runs that were in
flight. Any number of workers may share a results directory: none trains a unit another holds, none redoes a
stored run. :func:`run_worker` is the worker of the executors and of ``rgr-verify sweep PRESET --worker``;
:func:`ensure_runs` is the in-process form the claims use.

Test-only fault hook (read by :func:`run_worker` alone, never by :func:`ensure_runs` or the inline sweep):
``RGR_VERIFY_TEST_KILL_AFTER=N`` makes the worker SIGKILL itself right after appending its N-th record;
``N:torn`` instead writes the first half of its N-th record's line and then kills itself (a kill mid-append). With
``RGR_VERIFY_TEST_KILL_ONCE=PATH`` only the first worker to create PATH dies (the others and the restarted worker
run normally), after writing to PATH its shard and the size and sha256 of every store file at that moment.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from ...basics.checks import check_choice, check_int, check_real
from ...engine import RunConfig, RunResult
from ..store import ResultStore, default_results_dir
from .units import Unit, plan_units
from ...basics.settings import KILL_AFTER_ENV, KILL_ONCE_ENV, PARENT_ENV, env  # PARENT_ENV: set by the local executor

__all__ = ["SweepSpec", "work_units", "run_worker", "ensure_runs", "shard_name", "resolve_device", "KILL_AFTER_ENV",
           "KILL_ONCE_ENV", "PARENT_ENV"]

DTYPES = ("float32", "float64")


@dataclass(frozen=True)
class SweepSpec:
    """What a sweep worker trains and how: everything a worker process on another host needs (picklable, JSON).

    ``preset``/``tier``: the runs; ``results_dir``: the results store (None: :func:`default_results_dir`, resolved
    here to an absolute path); ``device``: ``cpu``, ``cuda`` or None (CUDA where the worker finds it);
    ``threads``: torch CPU threads per worker (None: leave torch's default); ``unit_max_batch``: most runs a unit;
    ``max_batch``/``max_waste``: the engine's batch planner within a unit; ``dtype``: ``float32`` (what sweeps
    store) or ``float64`` (equivalence checks of the executors; its records carry the same keys, so give it its
    own results directory)."""

    preset: str
    tier: str = "quick"
    results_dir: str | None = None
    device: str | None = None
    threads: int | None = 1
    unit_max_batch: int = 256
    max_batch: int = 256
    max_waste: float = 4.0
    dtype: str = "float32"

    def __post_init__(self):
        from ..presets import PRESET_TIERS, PRESETS

        check_choice("preset", self.preset, tuple(PRESETS))
        check_choice("tier", self.tier, PRESET_TIERS)
        results = default_results_dir() if self.results_dir is None else self.results_dir
        object.__setattr__(self, "results_dir", os.path.abspath(os.fspath(results)))
        if self.device is not None and self.device != "cpu" and not str(self.device).startswith("cuda"):
            raise ValueError(f"device must be None, 'cpu' or 'cuda', got {self.device!r}")
        if self.threads is not None:
            check_int("threads", self.threads, min_value=1)
        check_int("unit_max_batch", self.unit_max_batch, min_value=1)
        check_int("max_batch", self.max_batch, min_value=1)
        object.__setattr__(self, "max_waste", check_real("max_waste", self.max_waste, low=1.0))
        check_choice("dtype", self.dtype, DTYPES)

    def runs(self) -> list[tuple[RunConfig, int]]:
        """The preset's runs."""
        from ..presets import preset_runs

        return preset_runs(self.preset, self.tier)

    def units(self) -> list[Unit]:
        """The preset's units (:func:`plan_units` over all its runs)."""
        return plan_units(self.runs(), unit_max_batch=self.unit_max_batch, max_waste=self.max_waste)

    def to_json(self) -> str:
        """The spec as one JSON object (what the local executor hands its worker processes)."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "SweepSpec":
        """The spec of :meth:`to_json`."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"spec must be a JSON object: {exc}") from None
        names = {f.name for f in dataclasses.fields(cls)}
        if not isinstance(data, dict) or set(data) - names:
            raise ValueError(f"spec must be a JSON object with keys among {sorted(names)}")
        return cls(**data)


def shard_name() -> str:
    """This process's shard of the store: ``<host>-<pid>`` (characters other than letters, digits, ``.``, ``-``
    become ``-``), so no two live workers share a file."""
    host = "".join(ch if ch.isalnum() or ch in ".-" else "-" for ch in socket.gethostname()).strip(".-") or "host"
    return f"{host}-{os.getpid()}"


def resolve_device(device: str | None) -> str:
    """``device``, or where it is None, ``cuda`` when torch finds a GPU and ``cpu`` otherwise."""
    if device is not None:
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def work_units(units: Sequence[Unit], store: ResultStore, *, device: str = "cpu", dtype: str = "float32",
               max_batch: int = 256, max_waste: float = 4.0, append: Callable[[RunResult], object] | None = None,
               on_record: Callable[[], None] | None = None, poll: float = 0.5,
               stop_after: float | None = None) -> int:
    """Train the missing runs of ``units`` into ``store``, taking each unit's lock; returns the runs trained here.

    Returns once every unit is complete in the store (waiting, polling every ``poll`` seconds, for units that other
    workers hold). ``append`` (default ``store.append``) stores a result; ``on_record`` is called after each.
    ``stop_after`` (seconds from the call): start no unit after it, and stop waiting for units other workers hold;
    the unit in training finishes and is stored, the rest is left for a later call (a deadline for a job's time
    limit that loses nothing; the unit boundary, not the second, is where it stops)."""
    import torch

    from ...engine import train_runs

    check_choice("dtype", dtype, DTYPES)
    poll = check_real("poll", poll, low=0.0, low_open=True)
    if stop_after is not None:
        stop_after = check_real("stop_after", stop_after, low=0.0, low_open=True)
    deadline = None if stop_after is None else _clock() + stop_after
    append = store.append if append is None else append
    torch_dtype = torch.float64 if dtype == "float64" else torch.float32
    have = set(store.records())
    pending = [u for u in units if not all(k in have for k in u.keys)]
    trained = 0

    def on_result(res: RunResult) -> None:
        nonlocal trained
        append(res)
        trained += 1
        if on_record is not None:
            on_record()

    while pending:
        if deadline is not None and _clock() >= deadline:
            break
        for unit in pending:
            lock = store.jsonl.lock(f"unit-{unit.id}")
            if not _try_acquire(lock):
                continue
            try:
                have = set(store.records())  # read under the lock: what earlier holders of this unit stored
                todo = [run for run, key in zip(unit.runs, unit.keys) if key not in have]
                if todo:
                    train_runs(todo, device=device, dtype=torch_dtype, max_batch=max_batch, max_waste=max_waste,
                               on_result=on_result)
            finally:
                lock.release()
            pending.remove(unit)
            break
        else:  # every unit left is held by another worker: wait for one to finish (or die)
            time.sleep(poll)
    return trained


def _clock() -> float:
    """The clock of ``stop_after`` deadlines (seconds, monotonic)."""
    return time.monotonic()


def _try_acquire(lock) -> bool:
    from filelock import Timeout

    try:
        lock.acquire(timeout=0)
    except Timeout:
        return False
    return True


class _FaultHook:
    """The test-only fault hook (module docstring): wraps a store's append."""

    def __init__(self, store: ResultStore):
        self.store = store
        self.count = 0
        raw = env(KILL_AFTER_ENV, "")
        self.after, self.torn = None, False
        if raw:
            n, _, mode = raw.partition(":")
            if not n.isdigit() or int(n) < 1 or mode not in ("", "torn"):
                raise ValueError(f"{KILL_AFTER_ENV} must be N or N:torn with N >= 1, got {raw!r}")
            self.after, self.torn = int(n), mode == "torn"
        self.once = env(KILL_ONCE_ENV)

    def _fires(self) -> bool:
        if self.after is None or self.count != self.after:
            return False
        if self.once is None:
            return True
        try:
            self._once_fd = os.open(self.once, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        return True

    def _die(self) -> None:
        """Write what the store's files held (sizes and sha256, for the tests' byte-identity check) to the once
        file, if any, then SIGKILL this process."""
        if self.once is not None:
            import hashlib

            files = {}
            for path in self.store.jsonl.files():
                try:
                    data = path.read_bytes()
                except FileNotFoundError:
                    continue
                files[str(path.relative_to(self.store.directory))] = [len(data), hashlib.sha256(data).hexdigest()]
            os.write(self._once_fd, json.dumps({"shard": self.store.shard, "files": files}).encode())
            os.fsync(self._once_fd)
        os.kill(os.getpid(), signal.SIGKILL)

    def append(self, result: RunResult) -> None:
        self.count += 1
        fires = self._fires()
        if fires and self.torn:
            line = (json.dumps(self.store.record_of(result), sort_keys=True) + "\n").encode()
            fd = os.open(self.store.write_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            os.write(fd, line[: len(line) // 2])
            os.fsync(fd)
            self._die()
        self.store.append(result)
        if fires:
            self._die()


def run_worker(spec: SweepSpec, *, shard: str | None = None, poll: float = 0.5, stop_after: float | None = None
               ) -> dict:
    """Work through ``spec``'s units until all are stored (see the module docstring), appending to the store's
    shard ``shard`` (default :func:`shard_name`). Sets torch's CPU threads to ``spec.threads``. ``stop_after``: as in
    :func:`work_units`. Returns a summary: preset, tier, shard, units, runs, trained (runs trained by this worker),
    missing (runs of the preset not in the store when it returns)."""
    import torch

    if not isinstance(spec, SweepSpec):
        raise ValueError(f"spec must be a SweepSpec, got {type(spec).__name__}")
    if spec.threads is not None:
        torch.set_num_threads(spec.threads)
    store = ResultStore(spec.results_dir, shard=shard_name() if shard is None else shard)
    hook = _FaultHook(store)
    units = spec.units()
    trained = work_units(units, store, device=resolve_device(spec.device), dtype=spec.dtype, max_batch=spec.max_batch,
                         max_waste=spec.max_waste, append=hook.append, poll=poll, stop_after=stop_after)
    have = set(store.records())
    return {"preset": spec.preset, "tier": spec.tier, "shard": store.shard, "units": len(units),
            "runs": sum(len(u.runs) for u in units), "trained": trained,
            "missing": sum(k not in have for u in units for k in u.keys)}


def ensure_runs(runs: Sequence[tuple[RunConfig, int]], *, results_dir=None, device: str | None = None,
                threads: int | None = None, max_batch: int = 256, max_waste: float = 4.0,
                progress: bool = False, desc: str = "runs") -> tuple[list[dict], int]:
    """Make sure every run has a record (training the missing ones, batched), and return the records.

    The runs are planned into units (:func:`plan_units`, at most ``max_batch`` runs each) and trained by
    :func:`work_units` in this process, appending to the main store file: concurrent callers (pytest-xdist workers,
    sweeps) split the units between them instead of training the same runs twice, and each finished run is
    appended as soon as it finishes, so an interrupted call loses only the runs still training (training is
    locked per unit). ``threads``: torch's CPU threads while training (restored after). Returns (records in input
    order, runs trained now).
    """
    from ...basics.torch_threads import torch_threads
    from .progress import SweepProgress

    store = ResultStore(results_dir)
    device = resolve_device(device)
    if threads is not None:
        check_int("threads", threads, min_value=1)
    runs = [(c, int(s)) for c, s in runs]
    units = plan_units(runs, unit_max_batch=max_batch, max_waste=max_waste) if runs else []
    bar = SweepProgress(store, units, desc=desc) if progress else None  # a bar reads the store as it grows
    try:
        with torch_threads(threads):
            trained = work_units(units, store, device=device, max_batch=max_batch, max_waste=max_waste,
                                 on_record=bar.update if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    recs = store.lookup(runs)
    if any(r is None for r in recs):  # pragma: no cover - would mean a lost append
        raise RuntimeError("results store lost a record")
    return recs, trained


def _die_with_parent() -> None:
    """In a worker of the local executor: be killed when the executor dies (Linux), or exit if it already has."""
    raw = env(PARENT_ENV)
    if not raw or not raw.isdigit():
        return
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover
            pass
    if os.getppid() != int(raw):
        sys.exit(3)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m rgr_verify.runs.sweeps SPEC_JSON``: one worker of the local executor."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if len(argv) != 1:
        print("usage: python -m rgr_verify.runs.sweeps SPEC_JSON", file=sys.stderr)
        return 2
    _die_with_parent()
    run_worker(SweepSpec.from_json(argv[0]))
    return 0
