"""Function-entry probes: which functions of a folder started, at almost no cost, before Python 3.12 (issue 43).

The verdict store records, per claim, the package's functions that started while its check ran
(:func:`rgr_verify.claims.verdict_store.traced_files`). From Python 3.12, ``sys.monitoring`` reports each code
object once per block at no measurable cost. Before it, a trace function (``sys.settrace``, and ``cProfile`` and
coverage.py's C tracer alike) puts the interpreter into its tracing mode for every frame, the libraries' included:
measured on sympy-heavy code, 2.8x the plain time with ``sys.settrace`` (3.7 s against 1.2 s for 39 simplifications),
2.3x with ``cProfile``; 2.4x with coverage.py 7.17 on the 105 quick symbolic claims. A cold audit may cost at most
10 % more for its recording, so before 3.12 the folder's own functions carry a probe instead and nothing traces:

- each ``def`` of a module under a probed folder begins (after its docstring) with one statement,
  ``__rgr_verify_probe__[k] = 1``, a store into a list held in the module's globals, ``k`` the function's number:
  a few nanoseconds a call, nothing in the libraries' code. A module global, not a builtin: ``torch.compile``
  traces a store into a module's list without a graph break, not a builtin's lookup. In a module that imports
  torch the store is guarded, ``if not __rgr_verify_probe_compiling__(): ...`` (``torch.compiler.is_compiling``,
  70 ns): inside the forward of an ``autograd.Function`` torch.compile refuses any store to an outer variable (a
  graph break, an error under ``fullgraph=True``), and while compiling the guard is a constant that drops it;
- modules loaded before :func:`install` are compiled again from their source with the probes, and every function
  object of theirs (found by :func:`gc.get_objects`) whose code equals the plain compilation of that source gets
  the probed code (``__code__``); modules imported afterwards are compiled with the probes by an import finder;
- a file whose functions could not all be given probes (its source changed after it was loaded, or another hook
  rewrote it, like pytest's assertion rewriting of its plugins), and a file with a frame on the stack at
  :func:`install` whose code defines functions (a closure it makes later has the old code), is *unprobed*:
  :func:`drain` reports it every time, as if all its functions had started (so it always counts).

Code that ``torch.compile`` compiled runs without the frames of the functions it traced: the function that calls the
compiled one is seen, and the files it imports count.

Lambdas carry no probe (a lambda's body is one expression, and the rule fingerprint compares a lambda's bytecode):
a lambda's file counts only when it is reached otherwise (imported by a file whose code ran, or the file of a
function that ran, or of a cache's fillers). Code compiled from strings, and modules executed without the import
system (``exec`` of a spec's loader by hand without ``sys.modules``), are not seen.

What runs is the same code plus those stores: line numbers, ``co_firstlineno``, docstrings, signatures and sources
are unchanged, and the rule fingerprints do not read the probes' names (:data:`PROBE`, :data:`GUARD`)."""

from __future__ import annotations

import ast
import gc
import importlib.abc
import importlib.machinery
import os
import sys
import threading
import types
from typing import NamedTuple

__all__ = ["PROBE", "GUARD", "Site", "install", "drain", "probed_source", "unprobed_files", "leave_out"]

PROBE = "__rgr_verify_probe__"  # the name of the list in each probed module's globals
GUARD = "__rgr_verify_probe_compiling__"  # in a module that imports torch: torch.compiler.is_compiling


class Site(NamedTuple):
    """A probed function: its file and its ``co_firstlineno``; ``co_firstlineno`` None stands for every function of
    an unprobed file."""
    co_filename: str
    co_firstlineno: int | None


_LOCK = threading.RLock()
_HITS: list = []  # _HITS[k] is 1 once function k started since the last drain; the one list every probed module holds
_SITES: list = []  # _SITES[k]: the Site of function k
_ROOTS: list = []  # the real paths of the probed folders, each ending in os.sep
_UNPROBED: set = set()  # real paths of files under a probed folder whose functions may run without a probe
_OWN = {os.path.realpath(__file__)}  # this file, and the verdict store's (added by it): bookkeeping, never probed
_DONE: dict = {}  # id(module) -> module: the modules whose functions carry probes (or were found unprobed)
_SEEN_MODULES = [0]  # len(sys.modules) at the last look for modules loaded around the import finder


class _Probes(ast.NodeTransformer):
    """Puts ``PROBE[k] = 1`` first in every ``def`` body (after a docstring), numbering from ``first``; with
    ``guarded``, ``if not GUARD(): PROBE[k] = 1``."""

    def __init__(self, filename: str, first: int, guarded: bool):
        self.filename, self.first, self.guarded, self.sites = filename, first, guarded, []

    def _probe(self, node):
        self.generic_visit(node)
        k = self.first + len(self.sites)
        firstline = node.decorator_list[0].lineno if node.decorator_list else node.lineno  # = co_firstlineno
        self.sites.append(Site(self.filename, firstline))
        stmt = ast.Assign(targets=[ast.Subscript(value=ast.Name(id=PROBE, ctx=ast.Load()), slice=ast.Constant(k),
                                                 ctx=ast.Store())], value=ast.Constant(1))
        if self.guarded:
            stmt = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=ast.Call(func=ast.Name(id=GUARD, ctx=ast.Load()),
                                                                          args=[], keywords=[])),
                          body=[stmt], orelse=[])
        for n in ast.walk(stmt):  # on the def's line: no line of the body moves
            n.lineno = n.end_lineno = node.lineno
            n.col_offset = n.end_col_offset = node.col_offset
        body = node.body
        at = 1 if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                   and isinstance(body[0].value.value, str)) else 0
        node.body = body[:at] + [stmt] + body[at:]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _probe


def _imports_torch(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "torch" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "torch":
            return True
    return False


def _globals(namespace: dict, code: types.CodeType) -> None:
    """Give a namespace whose functions carry probes (of ``code``) the names they read."""
    namespace.setdefault(PROBE, _HITS)
    if GUARD not in namespace and any(GUARD in c.co_names for c in _codes(code)):
        import torch  # the module imports it (at its top, or in a function: then torch is loaded a little earlier)

        namespace[GUARD] = torch.compiler.is_compiling


def probed_source(source: str | bytes, filename: str) -> types.CodeType:
    """The module code of ``source`` with a probe in every ``def`` (registered here: :func:`drain` reports them);
    guarded (see above) in a module that imports torch."""
    tree = ast.parse(source, filename=filename)
    with _LOCK:
        probes = _Probes(filename, len(_SITES), _imports_torch(tree))
        tree = probes.visit(tree)
        code = compile(tree, filename, "exec", dont_inherit=True)
        _SITES.extend(probes.sites)
        _HITS.extend([0] * len(probes.sites))
    return code


_REAL: dict = {}  # a code's filename -> its real path


def _under(path: str | None) -> str | None:
    """The real path of ``path`` when it is a ``.py`` file under a probed folder (and not bookkeeping), else None."""
    if not path or not path.endswith(".py"):
        return None
    real = _REAL.get(path)
    if real is None:
        real = _REAL[path] = os.path.realpath(path)
    if real in _OWN or not any(real.startswith(r) for r in _ROOTS):
        return None
    return real


class _Loader(importlib.machinery.SourceFileLoader):
    """A source loader that compiles with probes, never from or into ``__pycache__`` (the probed code is not what a
    plain import should find)."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        return probed_source(self.get_data(path), path)

    def exec_module(self, module):
        code = self.get_code(module.__name__)
        _globals(module.__dict__, code)
        _DONE[id(module)] = module
        exec(code, module.__dict__)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds what the finders after it find, and gives a plain source file under a probed folder :class:`_Loader`."""

    def find_spec(self, fullname, path=None, target=None):
        for finder in list(sys.meta_path):
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is None:
                continue
            if type(spec.loader) is importlib.machinery.SourceFileLoader and _under(spec.origin) is not None:
                spec.loader = _Loader(spec.loader.name, spec.loader.path)
            return spec
        return None


_FINDER = _Finder()


def _codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _sync() -> None:
    """Give probes to the functions of the modules under the probed folders loaded without them (before
    :func:`install`, or around the finder), and note the files whose functions cannot all carry one."""
    pending = {}
    for mod in list(sys.modules.values()):
        if id(mod) in _DONE or not isinstance(mod, types.ModuleType):
            continue
        real = _under(getattr(mod, "__file__", None))
        if real is not None:
            pending[real] = mod
    if not pending:
        return
    swap: dict = {}  # plain code -> probed code
    for real, mod in pending.items():
        try:
            with open(real, "rb") as fh:
                source = fh.read()
            plain = compile(source, mod.__file__, "exec", dont_inherit=True)
            probed = probed_source(source, mod.__file__)
        except (OSError, SyntaxError, ValueError):
            _UNPROBED.add(real)
            continue
        a, b = list(_codes(plain)), list(_codes(probed))
        if len(a) != len(b) or any((x.co_name, x.co_firstlineno) != (y.co_name, y.co_firstlineno) for x, y in zip(a, b)):
            _UNPROBED.add(real)
            continue
        swap.update(zip(a, b))
        _globals(mod.__dict__, probed)
    probed_codes = set(swap.values())
    for obj in gc.get_objects():
        if type(obj) is not types.FunctionType:
            continue
        code = obj.__code__
        new = swap.get(code)
        if new is not None:
            _globals(obj.__globals__, new)
            try:
                obj.__code__ = new
            except ValueError:  # a closure of another size: not this code's function after all
                _UNPROBED.update(f for f in (_under(code.co_filename),) if f is not None)
        elif code not in probed_codes and code.co_name != "<lambda>":
            real = _under(code.co_filename)
            if real is not None and real in pending and not _has_probe(code):
                _UNPROBED.add(real)  # its code is not the file's (changed since, or rewritten): it runs unseen
    for real, mod in pending.items():
        _DONE[id(mod)] = mod


def _has_probe(code: types.CodeType) -> bool:
    return PROBE in code.co_names


_NO_PROBE = frozenset({"<lambda>", "<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})  # code that never has one


def _stack_files() -> None:
    """The files of the frames on the stack (every thread) whose code defines functions or classes (a function it
    makes from now on has the old code): unprobed from now on."""
    for frame in sys._current_frames().values():
        while frame is not None:
            code = frame.f_code
            real = _under(code.co_filename)
            if real is not None and not _has_probe(code) \
                    and any(c.co_name not in _NO_PROBE for c in list(_codes(code))[1:]):
                _UNPROBED.add(real)
            frame = frame.f_back


def install(root: str | os.PathLike) -> None:
    """Probe the functions of the Python files under the folder ``root`` (loaded or loaded later) in this process
    (repeated calls cost a look at ``sys.modules``)."""
    real = os.path.realpath(root).rstrip(os.sep) + os.sep
    with _LOCK:
        if real not in _ROOTS:
            _ROOTS.append(real)
            if _FINDER not in sys.meta_path:
                sys.meta_path.insert(0, _FINDER)
            _sync()
            _stack_files()
            _SEEN_MODULES[0] = len(sys.modules)
        elif len(sys.modules) != _SEEN_MODULES[0]:
            _sync()
            _SEEN_MODULES[0] = len(sys.modules)


def leave_out(path: str | os.PathLike) -> None:
    """Never probe the file ``path`` (bookkeeping: the verdict store's own code)."""
    _OWN.add(os.path.realpath(path))


def unprobed_files() -> frozenset:
    """The files under the probed folders whose functions may run without a probe (:func:`drain` always reports
    them)."""
    return frozenset(_UNPROBED)


def drain() -> set:
    """The :class:`Site` of every probed function that started since the last call, and one ``Site(file, None)`` for
    each unprobed file; the probes are re-armed."""
    with _LOCK:
        hits = _HITS
        started = [k for k, v in enumerate(hits) if v]
        for k in started:
            hits[k] = 0
        out = {_SITES[k] for k in started}
        out.update(Site(f, None) for f in _UNPROBED)
    return out
