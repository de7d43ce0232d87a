"""Results stores: append-only JSON-lines files of keyed records, shared by concurrent writers, optionally sharded.

:class:`JsonlStore` is the generic part: ``<results_dir>/<filename>`` holds one JSON record (a dict with a string
``"key"``) a line, ``<filename>.lock`` is the :mod:`filelock` lock that serialises its writers (several sweeps or
pytest-xdist workers may share a directory), and named locks let concurrent callers split the work of a sweep. An
append writes complete lines with a single ``write`` and ``fsync``; if a previous writer was killed mid-line, the
next append first removes that torn last line (with a :class:`TornLineWarning`), and readers skip a torn last line
(with the same warning). So a sweep killed at any moment loses at most the runs still training, and a resumed sweep
redoes none of the finished ones. Any other line that is not a well-formed record (not JSON, not an object, no
string ``"key"``, a field the readers rely on missing or of the wrong type, see :data:`STORE_FIELDS`) is an error:
readers raise :class:`StoreError` (a ValueError) naming the file, the 1-based line and what is wrong, and never skip
it. :func:`validate_store` checks every store file of a results directory that way, reading only.

Shards: a store opened with ``shard=NAME`` appends to ``<filename>.shards/NAME.jsonl`` instead (one writer per
shard file, the same torn-line discipline), which is what sweep workers on a shared filesystem do (no two hosts
append to one file). Readers take the union of the main file and every shard (the main file first, then the shards
by name; a later record for a key wins), and :meth:`JsonlStore.compact` (``rgr-verify store compact``) merges the
shards into the main file.

:class:`ResultStore` keeps the engine's runs in ``runs.jsonl``, keyed by a hash of (config, seed, engine version);
the Sec. 7.3 sweep (:mod:`rgr_verify.runs.sec73_sweep`) keeps its runs in ``sec73-runs.jsonl`` of the same directory.
Sweeps over units and executors live in :mod:`rgr_verify.runs.sweeps` (``ensure_runs``, ``run_preset``), the claims'
feed in :mod:`rgr_verify.runs.replay` (``claim_records``); this module imports neither.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from filelock import FileLock

from ..engine import ENGINE_VERSION, EQUIVALENT_ENGINE_VERSIONS, RunConfig, RunResult, run_key

__all__ = ["JsonlStore", "ResultStore", "StoreTail", "parse_records", "replayable_records", "default_results_dir",
           "RESULTS_ENV", "SHARD_SUFFIX", "StoreError", "TornLineWarning", "STORE_FIELDS", "validate_store"]

SHARD_SUFFIX = ".shards"  # the shards of store file F live in the folder F + SHARD_SUFFIX
_SHARD_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

def default_results_dir() -> Path:
    """``$RGR_VERIFY_RESULTS`` if set, else ``~/.cache/rgr-verify/results``."""
    raw = env(RESULTS_ENV)
    return Path(raw) if raw else Path.home() / ".cache" / "rgr-verify" / "results"

from . import store_lines as _lines
from .kinds import store_of
from ..basics.settings import RESULTS_ENV, env
from .store_lines import StoreError, TornLineWarning, STORE_FIELDS


def parse_records(lines: Iterable[bytes], where: Callable[[dict], bool] | None = None, *, source="<records>",
                  store: str | None = None) -> dict[str, dict]:
    """The keyed records of the JSON lines (bytes) of one file, by key, a later record for a key winning. A torn
    last line (a killed writer) is skipped with a :class:`TornLineWarning`; any other line that is not a keyed
    record (a dict with a string ``"key"`` and, for a store file named ``store`` in :data:`STORE_FIELDS`, its
    fields) raises :class:`StoreError` naming ``source`` (the file) and the 1-based line."""
    out: dict[str, dict] = {}
    for _, rec in _lines._numbered_records(lines, source, store):
        if where is None or where(rec):
            out[rec["key"]] = rec
    return out


def replayable_records(lines: Iterable[bytes], *, source="<records>") -> dict[str, dict]:
    """The engine run records among the JSON lines of one file (``source``, for messages) that this engine
    replays, keyed under :data:`ENGINE_VERSION`; malformed lines raise as in :func:`parse_records`.

    A record of :data:`ENGINE_VERSION` keeps its key; one of :data:`EQUIVALENT_ENGINE_VERSIONS` (an earlier version
    string shown to compute the same results) is re-keyed from its config and seed; any other is skipped."""
    return _replayable(parse_records(lines, where=_replayed_version, source=source, store=ResultStore.FILENAME))


def _replayable(records: dict[str, dict]) -> dict[str, dict]:
    return {key: rec if rec["engine_version"] == ENGINE_VERSION else {**rec, "key": key}
            for key, rec in _rekeyed(records).items()}


def _replayed_version(rec: dict) -> bool:
    return rec.get("engine_version") in (ENGINE_VERSION, *EQUIVALENT_ENGINE_VERSIONS)


def _rekeyed(records: dict[str, dict]) -> dict[str, dict]:
    """Records of replayed versions, unchanged, keyed under :data:`ENGINE_VERSION` (an equivalent version's key is
    recomputed from its config and seed)."""
    return {key if rec["engine_version"] == ENGINE_VERSION else run_key(RunConfig.from_dict(rec["config"]),
                                                                        rec["seed"]): rec
            for key, rec in records.items()}


def _file_lines(path: Path) -> list[bytes] | None:
    """The lines of a file (None if it vanished meanwhile, e.g. a compacted shard)."""
    try:
        with open(path, "rb") as fh:
            return fh.read().split(b"\n")
    except FileNotFoundError:
        return None


def _read_union(paths: Iterable[Path], store: str | None, where: Callable[[dict], bool] | None = None
                ) -> dict[str, dict]:
    """The union of the records of each file in turn (a later record for a key wins), validated as by
    :func:`parse_records`; files that vanished meanwhile are skipped."""
    out: dict[str, dict] = {}
    for path in paths:
        lines = _file_lines(path)
        if lines is not None:
            out.update(parse_records(lines, where, source=path, store=store))
    return out


def validate_store(directory: str | os.PathLike) -> None:
    """Check every store file of the results directory ``directory`` (each ``*.jsonl`` file and the shards in its
    ``*.jsonl.shards`` folder), writing nothing: raises :class:`StoreError` (a ValueError) naming the file, the
    1-based line and what is wrong at the first line that is not a well-formed record; a torn last line gives a
    :class:`TornLineWarning` only. A directory that does not exist holds no store (nothing to check); a path that
    exists and is not a directory is a ValueError."""
    if not isinstance(directory, (str, os.PathLike)):
        raise ValueError(f"directory must be a path, got {type(directory).__name__}")
    d = Path(directory)
    if not d.exists():
        return
    if not d.is_dir():
        raise ValueError(f"results directory {str(d)!r} is not a directory")
    entries = list(d.iterdir())
    names = {p.name for p in entries if p.name.endswith(".jsonl") and p.is_file()}
    names |= {p.name[: -len(SHARD_SUFFIX)] for p in entries if p.name.endswith(".jsonl" + SHARD_SUFFIX) and p.is_dir()}
    for name in sorted(names):
        shard_dir = d / (name + SHARD_SUFFIX)
        shards = sorted(p for p in shard_dir.iterdir() if p.suffix == ".jsonl" and p.is_file()) \
            if shard_dir.is_dir() else []
        _read_union([d / name, *shards], name)


def _torn_tail(fd: int, size: int) -> int:
    """The length of the unterminated last line of the open file ``fd`` of ``size`` bytes."""
    end, chunk = size, 1 << 16
    while end > 0:
        start = max(0, end - chunk)
        i = os.pread(fd, end - start, start).rfind(b"\n")
        if i >= 0:
            return size - (start + i + 1)
        end = start
    return size


def _append_bytes(path: Path, data: bytes) -> None:
    """Append ``data`` (whole lines) in one write and fsync, first removing a torn last line left by a killed
    writer (with a :class:`TornLineWarning`; a last line that is complete JSON but lost its newline is terminated
    instead, and read as any other line). The caller holds the file's lock."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            tail = _torn_tail(fd, size)
            if _lines._complete_json(os.pread(fd, tail, size - tail)):
                data = b"\n" + data
            else:
                os.ftruncate(fd, size - tail)
                warnings.warn(f"store file {str(path)!r}: removed an incomplete last line ({tail} bytes, left by a "
                              f"writer killed mid-append)", TornLineWarning, stacklevel=2)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


class JsonlStore:
    """Append-only file ``directory / filename`` of JSON records keyed by their string ``"key"`` field.

    ``directory`` is created if needed (None: :func:`default_results_dir`), unless ``create`` is False (a store
    only read: nothing is created, a missing directory holds no records); ``filename`` is a plain file name.
    ``shard``: None (append to the main file, under its lock) or a shard name (letters, digits, ``.``, ``_``,
    ``-``): append to ``<filename>.shards/<shard>.jsonl``, the file of one writer. Reads take no lock (appends
    write whole lines, and a line still being written does not parse), so stored records replay from a read-only
    directory; they take the union of the main file and all shards. The committed evidence of a store is joined
    by its reader, explicitly (:func:`rgr_verify.runs.evidence.with_evidence`), never by the store.
    """

    def __init__(self, directory: str | os.PathLike | None, filename: str, *, shard: str | None = None,
                 create: bool = True):
        if not isinstance(create, bool) or (not create and shard is not None):
            raise ValueError(f"create must be a bool (False: a read-only store, no shard), got {create!r}")
        if not isinstance(filename, str) or not filename or filename in (".", "..") or any(
                sep in filename for sep in ("/", "\\", "\0")):
            raise ValueError(f"filename must be a non-empty plain file name (no path separators), got {filename!r}")
        if shard is not None and (not isinstance(shard, str) or not _SHARD_RE.match(shard) or len(shard) > 200):
            raise ValueError(f"shard must be None or a name of letters, digits, '.', '_' and '-' (at most 200 "
                             f"characters, not starting with '.', '_' or '-'), got {shard!r}")
        self.directory = Path(directory) if directory is not None else default_results_dir()
        try:
            if create:
                self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"results directory {str(self.directory)!r} cannot be created: {exc}") from None
        self.path = self.directory / filename
        self.shard_dir = self.directory / (filename + SHARD_SUFFIX)
        self.shard = shard
        self.write_path = self.path if shard is None else self.shard_dir / f"{shard}.jsonl"
        if shard is not None:
            try:
                self.shard_dir.mkdir(exist_ok=True)
                with open(self.write_path, "ab"):  # created at once, so other hosts list it early (docs/cluster.md)
                    pass
            except OSError as exc:
                raise ValueError(f"shard {str(self.write_path)!r} cannot be created: {exc}") from None
        self._append_lock = FileLock(str(self.write_path) + ".lock")

    def shard_paths(self) -> list[Path]:
        """The shard files of this store, by name."""
        if not self.shard_dir.is_dir():
            return []
        return sorted(p for p in self.shard_dir.iterdir() if p.suffix == ".jsonl" and p.is_file())

    def files(self) -> list[Path]:
        """The files a read takes the union of, in order: the main file, then the shards by name."""
        return [self.path, *self.shard_paths()]

    def read(self, where: Callable[[dict], bool] | None = None) -> dict[str, dict]:
        """Every complete record (for which ``where(record)`` holds, if given), by key; a later record for a key
        wins. A torn last line of a file (a killed writer) is skipped with a :class:`TornLineWarning`; any other
        line that is not a well-formed record raises :class:`StoreError` naming the file and the line."""
        if where is not None and not callable(where):
            raise ValueError(f"where must be None or a callable taking a record, got {type(where).__name__}")
        return _read_union(self.files(), self.path.name, where)

    def append(self, records: Sequence[dict]) -> None:
        """Append ``records`` (dicts with a string ``"key"``, JSON-serialisable), one line each, in one write
        followed by fsync, under the lock of the file written (the main file or this store's shard). A torn last
        line left by a killed writer is removed first (with a :class:`TornLineWarning`), so it costs only its own
        record."""
        if isinstance(records, dict) or not all(isinstance(r, dict) and isinstance(r.get("key"), str)
                                                for r in records):
            raise ValueError("records must be a sequence of dicts, each with a string 'key'")
        data = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records).encode()
        if not data:
            return
        with self._append_lock:
            _append_bytes(self.write_path, data)

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

    def compact(self) -> dict:
        """Merge every shard into the main file, then delete it; returns counts (shards, records moved,
        duplicates dropped, torn lines dropped).

        Under the main file's lock, each shard in turn (under its own lock, so a live writer waits and then starts
        a fresh shard file): its complete records are appended to the main file in their order, except a line
        byte-identical to the main file's current record of its key; then the shard is deleted. A compaction killed
        midway leaves records in both places, identical, which the union reads once and a rerun merges.

        Every file is checked first: a line that is not a well-formed record (other than a torn last line, dropped
        with a :class:`TornLineWarning`) raises :class:`StoreError` naming the file and the line, before anything is
        merged."""
        shards = self.shard_paths()
        moved = dropped = torn = 0
        with FileLock(str(self.path) + ".lock"):
            _read_union([self.path, *shards], self.path.name)  # refuse a malformed store before changing it
            current: dict[str, bytes] = {}
            for _, raw, rec in _lines._numbered_lines(_file_lines(self.path) or [], self.path, self.path.name):
                if rec is not None:
                    current[rec["key"]] = raw
            for shard in shards:
                with FileLock(str(shard) + ".lock"):
                    lines = _file_lines(shard)
                    if lines is None:
                        continue
                    new = []
                    for _, raw, rec in _lines._numbered_lines(lines, shard, self.path.name):
                        if rec is None:
                            torn += 1
                        elif current.get(rec["key"]) == raw:
                            dropped += 1
                        else:
                            new.append(raw)
                            current[rec["key"]] = raw
                    if new:
                        _append_bytes(self.path, b"".join(raw + b"\n" for raw in new))
                    shard.unlink()
                    moved += len(new)
        return {"store": str(self.path), "shards": len(shards), "moved": moved, "duplicates": dropped, "torn": torn}

    def tail(self) -> "StoreTail":
        """An incremental reader of this store's new complete records (see :class:`StoreTail`)."""
        return StoreTail(self)


class StoreTail:
    """Reads the records appended to a store's files since the last call, cheaply (for progress bars that poll a
    store other processes write). Each call reopens the files (so a reader on NFS sees what writers closed) and
    parses only the complete lines past the offset it reached in each; a file that was replaced (a shard merged
    by compaction, then started afresh by its writer) or shrank is read again from its start."""

    def __init__(self, store: JsonlStore):
        if not isinstance(store, JsonlStore):
            raise ValueError(f"store must be a JsonlStore, got {type(store).__name__}")
        self.store = store
        # path -> (inode, bytes read, its first bytes, lines read)
        self._offsets: dict[Path, tuple[int, int, bytes, int]] = {}

    def poll(self) -> list[dict]:
        """The complete keyed records appended since the previous poll (all of them on the first); a complete line
        that is not a well-formed record raises :class:`StoreError` naming the file and the line."""
        out = []
        files = self.store.files()
        for gone in set(self._offsets) - set(files):
            del self._offsets[gone]
        for path in files:
            try:
                with open(path, "rb") as fh:
                    st = os.fstat(fh.fileno())
                    inode, start, head, seen = self._offsets.get(path, (st.st_ino, 0, b"", 0))
                    if inode != st.st_ino or st.st_size < start or fh.read(len(head)) != head:
                        start, head, seen = 0, b"", 0  # a new file under the old name (its inode may be reused)
                    fh.seek(start)
                    data = fh.read(st.st_size - start)
            except FileNotFoundError:
                self._offsets.pop(path, None)
                continue
            end = data.rfind(b"\n") + 1
            head = head or data[:min(end, 256)]
            lines = data[:end].split(b"\n")[:-1]  # complete lines only: the last one may still be written
            self._offsets[path] = (st.st_ino, start + end, head, seen + len(lines))
            for i, raw in enumerate(lines):
                rec = _lines._parse_line(raw, path, seen + i + 1, self.store.path.name)
                if rec is not None:
                    out.append(rec)
        return out


class ResultStore:
    """Append-only store of engine run records in ``directory / runs.jsonl`` (a :class:`JsonlStore`); with
    ``shard=NAME`` appends go to the shard ``runs.jsonl.shards/NAME.jsonl``, and reads always take the union;
    ``create=False``: a store only read (nothing is created, see :class:`JsonlStore`)."""

    FILENAME = store_of("engine")

    def __init__(self, directory: str | os.PathLike | None = None, *, shard: str | None = None, create: bool = True):
        self._jsonl = JsonlStore(directory, self.FILENAME, shard=shard, create=create)
        self.directory = self._jsonl.directory
        self.path = self._jsonl.path
        self.shard = shard
        self.write_path = self._jsonl.write_path
        if shard is not None:  # the main file exists even when every record is in shards (tools look for it)
            with open(self.path, "ab"):
                pass

    @property
    def jsonl(self) -> JsonlStore:
        """The underlying :class:`JsonlStore` (its shards, locks, compaction and tail)."""
        return self._jsonl

    @contextmanager
    def locked(self, name: str = "train") -> Iterator["ResultStore"]:
        """Hold the named training lock, so concurrent workers compute a piece of work once while others proceed
        in parallel. Appends use a separate, short-held lock."""
        with self._jsonl.locked(name):
            yield self

    def records(self) -> dict[str, dict]:
        """All complete records this engine replays, keyed under the current engine version (a later record for a
        key wins; the main file, then the shards), see :func:`replayable_records`."""
        return _replayable(_read_union(self._jsonl.files(), self.FILENAME, _replayed_version))

    def raw_records(self) -> dict[str, dict]:
        """The same records as stored (their own keys and versions), keyed under the current engine version."""
        return _rekeyed(self._jsonl.read(where=_replayed_version))

    @staticmethod
    def record_of(result: RunResult) -> dict:
        """The stored record of a run's result (its weights dropped, its key added)."""
        rec = result.to_record()
        rec["extra"] = {k: v for k, v in rec["extra"].items() if k != "weights"}
        rec["key"] = run_key(result.config, result.seed)
        return rec

    def append(self, result: RunResult) -> str:
        """Append one run's record atomically; returns its key."""
        rec = self.record_of(result)
        self._jsonl.append([rec])
        return rec["key"]

    def missing(self, runs: Iterable[tuple[RunConfig, int]]) -> list[tuple[RunConfig, int]]:
        """The runs without a record."""
        have = self.records()
        return [(c, int(s)) for c, s in runs if run_key(c, s) not in have]

    def lookup(self, runs: Iterable[tuple[RunConfig, int]]) -> list[dict | None]:
        """The record of each run, or None."""
        have = self.records()
        return [have.get(run_key(c, s)) for c, s in runs]

    def compact(self) -> dict:
        """Merge the shards into ``runs.jsonl`` (:meth:`JsonlStore.compact`)."""
        return self._jsonl.compact()

