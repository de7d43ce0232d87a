"""The batches of a stored sweep: when, from which code and with which seeds each part of its runs was trained.

A committed sweep is often trained in more than one sitting: seeds added after a first verdict (facts-fig3: 10, then
20 more; sec72-value: 3, then 7 more), cells resumed across device calls (Sec. 7.3). One date per manifest (its last
batch's) would let a rule written between two batches pass as fixed before the evidence, so each manifest lists its
``batches`` (:class:`Batch`: date, commit, whether the tree was clean, the commands, the runs, the seeds, which records
it holds, and why it was added after an earlier batch) and its ``seeds``; the preregistration check
(:func:`rgr_verify.claims.preregistration.post_hoc`) judges each batch.

A record's seed is its ``seed_index`` where it has one (Sec. 7.3 stores derive the training seed from it), else its
``seed``. A batch's ``where`` selects its records by field values (looked up in the record's ``config``, then in the
record itself), e.g. ``{"m": [256]}``, or by cells, ``{"D_K,h": [[64, 4], [256, 1]]}``; a batch without ``where`` holds every record of its seeds that no other batch
selects (two such batches of the same seeds cannot be told apart record by record: their run counts still add up).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

__all__ = ["Batch", "record_seed", "record_field", "seeds_of", "batch_problems", "seed_counts", "seed_range"]


@dataclass(frozen=True)
class Batch:
    """One sitting of a stored sweep."""

    date: str | None  # ISO date its runs were trained (None: not recorded)
    commit: str  # the commit of the code that trained them ("unknown" when not recorded)
    clean: bool | None  # the working tree had no uncommitted change (None: not recorded)
    commands: tuple  # the exact commands
    runs: int  # its records
    seeds: tuple  # the seeds of its records (sorted)
    where: dict = field(default_factory=dict)  # field -> values selecting its records ({}: by seeds alone)
    after: str = ""  # why it was added after an earlier batch (e.g. seeds added after an inconclusive verdict)
    notes: str = ""

    def __post_init__(self):
        if self.date is not None:
            try:
                _dt.date.fromisoformat(self.date)
            except (TypeError, ValueError):
                raise ValueError(f"batch date must be an ISO date (YYYY-MM-DD) or None, got {self.date!r}") from None
        if self.clean not in (True, False, None):
            raise ValueError(f"batch clean must be true, false or null, got {self.clean!r}")
        if isinstance(self.commands, str) or not all(isinstance(c, str) and c for c in self.commands):
            raise ValueError("batch commands must be a list of non-empty strings")
        if not isinstance(self.runs, int) or isinstance(self.runs, bool) or self.runs < 1:
            raise ValueError(f"batch runs must be a positive int, got {self.runs!r}")
        if not all(isinstance(s, int) and not isinstance(s, bool) for s in self.seeds):
            raise ValueError(f"batch seeds must be a list of ints, got {self.seeds!r}")
        if not isinstance(self.where, dict) or not all(isinstance(v, (list, tuple)) for v in self.where.values()):
            raise ValueError(f"batch where must map field names to lists of values, got {self.where!r}")

    def selects(self, rec: dict) -> bool:
        """Whether ``rec`` is one of this batch's records (its seed is the batch's and ``where`` matches)."""
        return (record_seed(rec) in self.seeds or not self.seeds) and all(_matches(rec, k, v) for k, v in self.where.items())

    def to_dict(self) -> dict:
        d = {"date": self.date, "commit": self.commit, "clean": self.clean, "commands": list(self.commands),
             "runs": self.runs, "seeds": list(self.seeds)}
        for key in ("where", "after", "notes"):
            if getattr(self, key):
                d[key] = getattr(self, key)
        return d

    @classmethod
    def from_dict(cls, data: dict) -> "Batch":
        if not isinstance(data, dict):
            raise ValueError(f"a batch must be a JSON object, got {data!r}")
        unknown = set(data) - {"date", "commit", "clean", "commands", "runs", "seeds", "where", "after", "notes"}
        if unknown:
            raise ValueError(f"unknown batch keys {sorted(unknown)}")
        kw = dict(data)
        kw["commands"] = tuple(kw.get("commands", ()))
        kw["seeds"] = tuple(kw.get("seeds", ()))
        kw["where"] = {k: list(v) for k, v in (kw.get("where") or {}).items()}
        return cls(**kw)


def _matches(rec: dict, key: str, values) -> bool:
    """``key`` names one field ("m") or several joined by commas ("D_K,h", whose values are lists: cells)."""
    if "," in key:
        return tuple(record_field(rec, f) for f in key.split(",")) in {tuple(v) for v in values}
    return record_field(rec, key) in values


def record_seed(rec: dict) -> int | None:
    """The seed a record was trained with, as the sweep numbers it (``seed_index`` where present, else ``seed``;
    None for a record without one)."""
    return rec["seed_index"] if "seed_index" in rec else rec.get("seed")


def record_field(rec: dict, name: str):
    """A record's field: from its ``config`` when there, else the record's own (Sec. 7.3 records are flat)."""
    cfg = rec.get("config")
    if isinstance(cfg, dict) and name in cfg:
        return cfg[name]
    return rec.get(name)


def seeds_of(records) -> tuple:
    """The sorted seeds of ``records`` (an iterable of records)."""
    return tuple(sorted({record_seed(r) for r in records} - {None}))


def seed_counts(records) -> set:
    """How many seeds each configuration of ``records`` was trained with (the distinct counts): a configuration is a
    record's fields other than its seed (``config`` for engine and facts records; the flat fields of Sec. 7.3
    records that name a cell: ``D_K``, ``h``, ``m``, ``ell``, ``source``, ``preset``)."""
    cells: dict = {}
    for r in records:
        cfg = r.get("config")
        if isinstance(cfg, dict):
            cell = tuple(sorted((k, repr(v)) for k, v in cfg.items() if k != "seed"))
        else:
            cell = tuple((k, repr(r.get(k))) for k in ("D_K", "h", "m", "ell", "source", "preset"))
        cells.setdefault(cell, set()).add(record_seed(r))
    return {len(s) for s in cells.values()}


def batch_problems(batches, records, seeds) -> list[str]:
    """What does not add up between a manifest's ``batches``, its ``seeds`` and its ``records`` (a list of records):
    the seeds must be the records', the batches' runs must sum to the records, the batches' seeds must cover the
    seeds, and each batch with a ``where`` must select exactly its runs. Empty when all hold."""
    records = list(records)
    out = []
    if not batches:
        return ["no batches recorded"]
    if tuple(seeds) != seeds_of(records):
        out.append(f"seeds {list(seeds)} are not the records' {list(seeds_of(records))}")
    if sum(b.runs for b in batches) != len(records):
        out.append(f"the batches hold {sum(b.runs for b in batches)} runs, the store {len(records)}")
    covered = sorted({s for b in batches for s in b.seeds})
    if covered != sorted(seeds_of(records)):
        out.append(f"the batches' seeds {covered} are not the records' {list(seeds_of(records))}")
    for i, b in enumerate(batches):
        others = {s for j, o in enumerate(batches) if j != i for s in o.seeds}
        if not b.where and not others & set(b.seeds):  # its seeds are its own: it holds every record of them
            n = sum(b.selects(r) for r in records)
            if n != b.runs:
                out.append(f"batch {i + 1} ({b.date}) has {n} records of its seeds, says {b.runs}")
    selected = [b for b in batches if b.where]
    for i, b in enumerate(batches):
        if b.where:
            n = sum(b.selects(r) for r in records)
            if n != b.runs:
                out.append(f"batch {i + 1} ({b.date}) selects {n} records, says {b.runs}")
    if selected and len(selected) == len(batches):
        hits = [sum(b.selects(r) for b in batches) for r in records]
        if any(h != 1 for h in hits):
            out.append(f"{sum(h != 1 for h in hits)} records are selected by no batch or by two")
    return out


def seed_range(seeds, empty: str = "not recorded") -> str:
    """Seeds in words: "0-9" for a run of three or more consecutive seeds, else "0, 2"; ``empty`` for none."""
    seeds = sorted(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(map(str, seeds)) or empty
