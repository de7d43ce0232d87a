"""Reading a store's lines: one error per bad line, naming the file and the line (split from :mod:`rgr_verify.runs.store`)."""

from __future__ import annotations

import json
import warnings
from typing import Iterable, Iterator
from ..engine import ENGINE_VERSION, EQUIVALENT_ENGINE_VERSIONS, RunConfig
from ..engine.config import current_config_names
from .kinds import KIND_NAMES, run_kind, store_of


class StoreError(ValueError):
    """A store file holds a line that is not a well-formed record; the message (one line) names the file, the
    1-based line number and what is wrong."""


class TornLineWarning(UserWarning):
    """A store file's last line is incomplete (a writer killed mid-append, or one still writing): readers skip it
    and the next append removes it."""


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_NUMBER_TYPES = {int, float}

_CHECKS = {"str": (lambda v: isinstance(v, str), "a string"), "int": (_is_int, "an integer"),
           "number": (_is_number, "a number"), "bool": (lambda v: isinstance(v, bool), "true or false"),
           "object": (lambda v: isinstance(v, dict), "an object"),
           "numbers": (lambda v: isinstance(v, list) and set(map(type, v)) <= _NUMBER_TYPES, "a list of numbers"),
           "number map": (lambda v: isinstance(v, dict) and set(map(type, v.values())) <= _NUMBER_TYPES,
                          "an object of numbers")}
_VALID_CONFIGS: set = set()  # configs (as sorted item tuples) already seen to make a valid RunConfig

#: The fields the readers of each store file rely on, with their JSON types: each kind's (:mod:`.kinds`). The engine's
#: records are checked when their ``engine_version`` (a string) is one this engine replays (records of other versions
#: are never read), and then their config must make a valid RunConfig.
STORE_FIELDS = {k.store: k.fields for k in map(run_kind, KIND_NAMES)}
_ENGINE_STORE = store_of("engine")


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _record_problem(rec, store: str | None) -> str | None:
    """What is wrong with a parsed JSON value as a record of the store file named ``store`` (None: nothing)."""
    if not isinstance(rec, dict):
        return f"not a JSON object but {_short(rec)}"
    if not isinstance(rec.get("key"), str):
        return 'no "key" field' if "key" not in rec else f'field "key" must be a string, got {_short(rec["key"])}'
    fields = STORE_FIELDS.get(store or "", {})
    if store == _ENGINE_STORE:
        version = rec.get("engine_version")
        if not isinstance(version, str):
            return (f"no \"engine_version\" field (key {rec['key']!r})" if "engine_version" not in rec else
                    f"field \"engine_version\" must be a string, got {_short(version)} (key {rec['key']!r})")
        if version not in (ENGINE_VERSION, *EQUIVALENT_ENGINE_VERSIONS):
            return None  # a record of an engine version not replayed: never read
    for name, kind in fields.items():
        ok, what = _CHECKS[kind]
        if name not in rec:
            return f"no {name!r} field (key {rec['key']!r})"
        if not ok(rec[name]):
            return f"field {name!r} must be {what}, got {_short(rec[name])} (key {rec['key']!r})"
    if store == _ENGINE_STORE:
        try:
            seen = tuple(sorted((k, type(v).__name__, v) for k, v in rec["config"].items()))
            hash(seen)
        except TypeError:  # a field that is not a JSON scalar: RunConfig says which
            seen = None
        if seen is None or seen not in _VALID_CONFIGS:
            try:
                RunConfig.from_dict(rec["config"])
            except (ValueError, TypeError) as exc:
                return f"field 'config' is not a valid run config ({str(exc).splitlines()[0]}) (key {rec['key']!r})"
            if seen is not None and len(_VALID_CONFIGS) < 100_000:
                _VALID_CONFIGS.add(seen)
    return None


def _parse_line(raw: bytes, source, lineno: int, store: str | None) -> dict | None:
    """The record of one complete line (None for a blank line); :class:`StoreError` naming ``source`` and
    ``lineno`` when it is not a well-formed record of the store file named ``store``."""
    if not raw.strip():
        return None
    where = f"store file {str(source)!r}, line {lineno}"
    try:
        rec = json.loads(raw.decode())
    except UnicodeDecodeError as exc:
        raise StoreError(f"{where}: not UTF-8 text (byte {exc.start + 1}); fix or delete that line") from None
    except json.JSONDecodeError as exc:
        raise StoreError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno}); fix or delete that line"
                         ) from None
    problem = _record_problem(rec, store)
    if problem is not None:
        raise StoreError(f"{where}: {problem}; fix or delete that line")
    if isinstance(rec.get("config"), dict):  # fields stored under earlier names are read under the current ones
        rec["config"] = current_config_names(rec["config"])
    return rec


def _complete_json(raw: bytes) -> bool:
    try:
        json.loads(raw.decode())
    except (UnicodeDecodeError, json.JSONDecodeError):
        return False
    return True


def _numbered_lines(lines: Iterable[bytes], source, store: str | None) -> Iterator[tuple[int, bytes, dict | None]]:
    """(1-based line number, line, record) of each non-blank line of one file, in order (lines as
    ``data.split(b"\\n")`` or an open file's iteration gives them). A last line without its newline that is not
    complete JSON is a torn line (a writer killed mid-append, or one still writing): it comes with record None,
    after a :class:`TornLineWarning`. Any other line that is not a well-formed record raises :class:`StoreError`."""
    it = iter(lines)
    nxt = next(it, None)
    lineno = 0
    while nxt is not None:
        raw, nxt = nxt, next(it, None)
        lineno += 1
        if nxt is None and raw.strip() and not raw.endswith(b"\n") and not _complete_json(raw):
            warnings.warn(f"store file {str(source)!r}, line {lineno}: incomplete last line ({len(raw)} bytes; a "
                          f"writer killed mid-append, or one still writing) skipped", TornLineWarning, stacklevel=3)
            yield lineno, raw, None
            return
        rec = _parse_line(raw, source, lineno, store)
        if rec is not None:
            yield lineno, raw, rec


def _numbered_records(lines: Iterable[bytes], source, store: str | None) -> Iterator[tuple[int, dict]]:
    """(1-based line number, record) of each record among the lines of one file (:func:`_numbered_lines`; a torn
    last line is skipped with a warning)."""
    for lineno, _, rec in _numbered_lines(lines, source, store):
        if rec is not None:
            yield lineno, rec
