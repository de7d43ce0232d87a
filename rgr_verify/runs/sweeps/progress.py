"""Progress of a sweep across workers: one bar over the runs, with the units done and partial, fed from the store.

Every executor shows the same bar: its process polls the results store (main file and shards, incrementally, with
:class:`rgr_verify.runs.store.StoreTail`), so the bar counts what the workers stored, wherever they run. Off a terminal
(stderr not a TTY: CI logs, where a bar is noise) it prints instead one line per unit that completes,
``<unit id> done <seconds>s`` (seconds since the sweep started), and a closing line."""

from __future__ import annotations

import sys
import time
from typing import Sequence

from ...engine import ENGINE_VERSION, EQUIVALENT_ENGINE_VERSIONS, RunConfig, run_key
from ..store import ResultStore
from .units import Unit


__all__ = ["SweepProgress", "sweep_summary"]


class SweepProgress:
    """A tqdm bar (when ``enabled``) over the runs of ``units``, postfixed with the units done and partial; off a
    terminal, one stderr line per unit completed during the sweep and a closing line instead.

    :meth:`update` reads the records appended to ``store`` since the last call; :meth:`close` ends the bar.
    ``done_runs`` / ``done_units`` / ``partial_units`` hold the counts whether or not a bar is shown."""

    def __init__(self, store: ResultStore, units: Sequence[Unit], *, desc: str = "runs", enabled: bool = True):
        if not isinstance(store, ResultStore):
            raise ValueError(f"store must be a ResultStore, got {type(store).__name__}")
        if not isinstance(enabled, bool):
            raise ValueError(f"enabled must be a bool, got {enabled!r}")
        self.units = list(units)
        self._unit_of = {k: i for i, u in enumerate(self.units) for k in u.keys}
        self._done_in = [0] * len(self.units)
        self._have: set[str] = set()
        self._tail = store.jsonl.tail()
        self.total = len(self._unit_of)
        self._desc = desc
        self._bar = None
        self._lines = False  # one line a unit completed (off a terminal) instead of a bar
        self._started = time.perf_counter()
        if enabled and self.units:
            if sys.stderr.isatty():
                from tqdm import tqdm

                self._bar = tqdm(total=self.total, desc=desc, unit="run", file=sys.stderr, dynamic_ncols=True)
        self.update()  # units already stored count as done, with no line each
        self._lines = enabled and bool(self.units) and self._bar is None
        self._closed = False

    @property
    def done_runs(self) -> int:
        return len(self._have)

    @property
    def done_units(self) -> int:
        return sum(d == len(u.keys) for d, u in zip(self._done_in, self.units))

    @property
    def partial_units(self) -> int:
        return sum(0 < d < len(u.keys) for d, u in zip(self._done_in, self.units))

    def update(self) -> int:
        """Read the newly stored records; returns the runs done so far."""
        before = len(self._have)
        for rec in self._tail.poll():
            key = _replayed_key(rec)
            if key is not None and key in self._unit_of and key not in self._have:
                self._have.add(key)
                i = self._unit_of[key]
                self._done_in[i] += 1
                if self._lines and self._done_in[i] == len(self.units[i].keys):
                    print(f"{self.units[i].id} done {time.perf_counter() - self._started:.1f}s", file=sys.stderr,
                          flush=True)
        if self._bar is not None:
            self._bar.set_postfix_str(f"units {self.done_units}/{len(self.units)} done, {self.partial_units} partial",
                                      refresh=False)
            self._bar.update(len(self._have) - before)
        return len(self._have)

    @property
    def complete(self) -> bool:
        """Whether every run of the units is stored (as of the last :meth:`update`)."""
        return len(self._have) == self.total

    def note(self, text: str) -> None:
        """Print a line to stderr without breaking the bar."""
        if self._bar is not None:
            self._bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr)

    def close(self) -> None:
        """Final update, and close the bar (off a terminal: print the closing line)."""
        self.update()
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._lines and not self._closed:
            self._closed = True
            print(f"{self._desc}: {self.done_units} of {len(self.units)} units done ({self.done_runs} of {self.total} "
                  f"runs) in {time.perf_counter() - self._started:.1f} s", file=sys.stderr, flush=True)


def _replayed_key(rec: dict) -> str | None:
    version = rec.get("engine_version")
    if version == ENGINE_VERSION:
        return rec["key"]
    if version in EQUIVALENT_ENGINE_VERSIONS:
        try:
            return run_key(RunConfig.from_dict(rec["config"]), rec["seed"])
        except (KeyError, TypeError, ValueError):
            return None
    return None


def sweep_summary(spec, units: Sequence[Unit], executor: str, before: int, **extra) -> dict:
    """The summary every executor returns for ``spec`` (a :class:`~rgr_verify.runs.sweeps.worker.SweepSpec`):
    preset, tier, executor, units, total, trained (runs stored during
    the sweep), reused, store (the main file), complete (every run stored), plus ``extra``."""
    store = ResultStore(spec.results_dir)
    have = set(store.records())
    keys = [k for u in units for k in u.keys]
    done = sum(k in have for k in keys)
    return {"preset": spec.preset, "tier": spec.tier, "executor": executor, "units": len(units), "total": len(keys),
            "trained": done - before, "reused": before, "store": str(store.path), "complete": done == len(keys),
            **extra}
