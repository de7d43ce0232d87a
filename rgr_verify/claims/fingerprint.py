"""A claim's rule fingerprint: a hash of what decides its verdict, so that a rule changed after the evidence shows.

The fingerprint covers the claim's check and everything it reaches in the audit's own analysis code (the rule
modules, :data:`RULE_MODULES`: :mod:`rgr_verify.claims` and App. A.2's capacity curves and thresholds, the fits and
the statistics): the code of every function it calls or closes over there, each reduced to its syntax tree without
docstrings and positions (so comments, docstrings and layout do not count, and the hash is the same on every machine
and Python version), the values of the module constants those functions read (sizes, grids, tolerances), and the
claim's declared stated values. The measurement itself (the training engine, the constructions) is not part of the
rule; its changes are tracked by the engine's and the stores' versions.

Two schemes (:data:`FINGERPRINT_SCHEME` is the newest; :data:`ACTIVE_SCHEME` the one recorded and computed by
default):

- scheme 1 follows the functions a check reaches through module globals, closures, defaults and partials, and hashes
  each by its qualified name and its syntax tree as written. An import inside a function body is part of that tree
  with its module path (moving a module re-keys the rules that import it there) and the helper it imports is not
  followed (a change inside it went unseen).
- scheme 2 hashes the objects a check reaches, each identified by what it is: every function of the rule modules
  reached through module globals, closures, defaults, ``functools.partial``, decorators (``__wrapped__``) and the
  imports inside function bodies, by its syntax tree with every name that is not a local variable replaced by what
  it names (a constant by its value, a rule function by the hash of its own content, an import statement by the
  objects it binds, anything else by its name without a module path; annotations left out), its own name blank.
  Moving or renaming a module, renaming how it is imported, or renaming a helper changes no fingerprint; changing
  any reached rule code or constant does. The boundary stays package membership: a function belongs to the rule
  when its module (and the file of its code) is one of the rule modules, so a move within them changes nothing and
  a move out of them does.
- scheme 3 is scheme 2 with one flaw mended: scheme 2 sorted the items of a dict or set by their tokens while a rule
  function in them was still a placeholder holding its memory address, so the order (and the fingerprint) of a rule
  with such a container, e.g. a table keyed by decision functions, could change with the order objects were
  allocated in - a module moved, a process that imported more first. Scheme 3 sorts such items after each function
  is replaced by its hash; every other rule hashes exactly as under scheme 2 (same text, same fingerprint).

``rule_fingerprint(claim)`` is 12 hex digits. The ledger records it next to the expected status, the claim's test
fails when the two differ (a rule changed without the ledger's review), and an evidence manifest records the
fingerprints of the claims that replay it when it is added, so the report can mark a rule revised after its
evidence as post hoc. :mod:`rgr_verify.claims.fingerprint_migration` re-records scheme-1 fingerprints under
scheme 2, once, keeping each rule's pair.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import hashlib
import inspect
import re
import textwrap
import types

from .probes import GUARD, PROBE

__all__ = ["rule_fingerprint", "rule_reach", "RULE_MODULES", "FINGERPRINT_SCHEME", "ACTIVE_SCHEME", "SCHEMES"]

FINGERPRINT_SCHEME = 3  # the newest scheme: scheme 2 with unordered containers ordered by content (see below)
SCHEMES = (1, 2, 3)
# The scheme the ledger's rule=, the manifests' rules and the report record (and rule_fingerprint computes by default).
# Scheme 2 since the migration of 2026-11-28 (rgr_verify.claims.fingerprint_migration), which re-recorded every
# unchanged scheme-1 rule under scheme 2 and kept each pair (rgr_verify/data/rule-fingerprints-scheme-1-to-2.json);
# scheme 3 since the second migration of that day (pairs in rule-fingerprints-scheme-2-to-3.json).
ACTIVE_SCHEME = 3

# Modules whose functions are part of a rule (the analysis), besides rgr_verify.claims itself.
RULE_MODULES = ("rgr_verify.claims", "rgr_verify.analysis.capacity", "rgr_verify.core.stats", "rgr_verify.analysis.fits")
_SIMPLE = (int, float, str, bool, type(None), complex)


def _is_rule_module(name: str | None) -> bool:
    return bool(name) and any(name == m or name.startswith(m + ".") for m in RULE_MODULES)


def _is_cache(name: str) -> bool:
    """A module-level cache (filled while checks run, e.g. ``_MEMO``): state, not rule; its contents never count."""
    low = name.lower()
    return "memo" in low or "cache" in low


def _constant_repr(value, depth: int = 0) -> str | None:
    """repr of a plain constant (numbers, strings, and tuples, lists, sets, dicts of them), else None."""
    if isinstance(value, _SIMPLE):
        return repr(value)
    if depth > 3:
        return None
    if isinstance(value, (tuple, list)):
        parts = [_constant_repr(v, depth + 1) for v in value]
        return None if None in parts else f"{type(value).__name__}({', '.join(parts)})"
    if isinstance(value, (set, frozenset)):
        parts = sorted(_constant_repr(v, depth + 1) or "?" for v in value)
        return None if "?" in parts else f"set({', '.join(parts)})"
    if isinstance(value, dict):
        items = [(_constant_repr(k, depth + 1), _constant_repr(v, depth + 1)) for k, v in value.items()]
        return None if any(k is None or v is None for k, v in items) else f"dict({sorted(items)})"
    return None


_SKIP_FIELDS = frozenset({"type_params", "type_comment", "kind", "ctx"})  # absent in some Python versions, or noise


def _dump(node, subst=None) -> str:
    """A version-stable rendering of an AST: node types and fields (no positions, no fields that only some Python
    versions have), adjacent string pieces of an f-string merged (3.12 splits them differently). ``subst`` (scheme 2)
    renders some nodes otherwise: it returns their rendering, or None for the default one."""
    if subst is not None and isinstance(node, ast.AST):
        alt = subst(node)
        if alt is not None:
            return alt
    if isinstance(node, ast.AST):
        if isinstance(node, ast.JoinedStr):
            merged: list = []
            for v in node.values:
                if isinstance(v, ast.Constant) and v.value == "":  # 3.12 adds empty pieces to format specs
                    continue
                if merged and isinstance(v, ast.Constant) and isinstance(merged[-1], str) and isinstance(v.value, str):
                    merged[-1] += v.value
                else:
                    merged.append(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else v)
            return "JoinedStr(" + ",".join(repr(v) if isinstance(v, str) else _dump(v, subst) for v in merged) + ")"
        if isinstance(node, ast.Constant):
            return f"Constant({node.value!r})"
        fields = ",".join(f"{name}={_dump(value, subst)}" for name, value in ast.iter_fields(node)
                          if name not in _SKIP_FIELDS)
        return f"{type(node).__name__}({fields})"
    if isinstance(node, list):
        return "[" + ",".join(_dump(v, subst) for v in node) + "]"
    return repr(node)


@functools.lru_cache(maxsize=None)
def _normalised_source(code: types.CodeType) -> str:
    """The function's syntax tree without docstrings, comments, layout or positions (see :func:`_dump`)."""
    try:
        src = textwrap.dedent(inspect.getsource(code))
    except (OSError, TypeError) as exc:  # a rule whose source cannot be read cannot be fingerprinted: say so
        raise ValueError(f"the source of {code.co_name} ({code.co_filename}) cannot be read, so its rule cannot be "
                         f"fingerprinted: {exc}") from None
    try:
        tree = ast.parse(src)
    except SyntaxError:  # a lambda inside a larger expression: its lines, comments and spacing dropped
        return " ".join(line.split("#")[0].strip() for line in src.splitlines() if line.split("#")[0].strip())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and body
                and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return _dump(tree)


def _names(code: types.CodeType):
    yield from (name for name in code.co_names if name not in (PROBE, GUARD))  # the verdict store's (probes.py)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


# Scheme 1 (until the migration of issue 42): the functions reached through module globals, each by its qualified
# name and its syntax tree as written (import lines with their module paths included), and the constants they read.


def _walk(obj, parts: list, seen: set, reach: list | None = None) -> None:
    """Scheme 1: append to ``parts`` the normalised sources and constants that ``obj`` (a callable) reaches."""
    if isinstance(obj, functools.partial):
        _walk(obj.func, parts, seen, reach)
        parts.append("partial:" + repr([_constant_repr(a) for a in obj.args])
                     + repr(sorted((k, _constant_repr(v)) for k, v in obj.keywords.items())))
        return
    obj = inspect.unwrap(obj) if callable(obj) else obj
    fn = obj if isinstance(obj, types.FunctionType) else None
    if fn is None:
        return
    key = id(fn.__code__)
    if key in seen:
        return
    seen.add(key)
    if not _is_rule_module(fn.__module__):
        return
    if reach is not None:
        reach.append(fn)
    parts.append(f"{fn.__qualname__}:{_normalised_source(fn.__code__)}")  # not the module: moving code is no change
    # default argument values: a tolerance or level passed as a default (``tol=EXPONENT_HALF_WIDTH``) is evaluated
    # when the function is defined, so its name is not among the code's names; its value is part of the rule
    defaults = [(str(i), v) for i, v in enumerate(fn.__defaults__ or ())]
    defaults += sorted((fn.__kwdefaults__ or {}).items())
    for name, value in defaults:
        const = _constant_repr(value)
        if const is not None:
            parts.append(f"default {name} = {const}")
        elif isinstance(value, (types.FunctionType, functools.partial)) or hasattr(value, "__wrapped__"):
            _walk(value, parts, seen, reach)
    for cell, name in zip(fn.__closure__ or (), fn.__code__.co_freevars):
        if _is_cache(name):
            continue
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        const = _constant_repr(value)
        if const is not None:
            parts.append(f"closure {name} = {const}")
        elif callable(value):
            _walk(value, parts, seen, reach)
    for name in sorted(set(_names(fn.__code__))):
        if name not in fn.__globals__ or _is_cache(name):
            continue
        value = fn.__globals__[name]
        const = _constant_repr(value)
        if const is not None:
            parts.append(f"{name} = {const}")
        elif isinstance(value, (types.FunctionType, functools.partial)) or hasattr(value, "__wrapped__"):
            _walk(value, parts, seen, reach)


# Scheme 2: the objects a check reaches, each identified by what it is.
#
# Every function of the rule modules that the check reaches (through module globals, closures, default arguments,
# functools.partial, decorators' __wrapped__, and the imports inside function bodies) is one node of a graph. A node's
# content is its syntax tree (as in scheme 1: no docstrings, comments, layout or positions; here no annotations
# either) in which every name that does not name a local variable is replaced by a token of the object it names: a
# constant by its value (tuples, lists, dicts, sets, numpy arrays and dataclass instances by their elements; a
# module-level cache by the word "cache"), a function of the rule modules by the hash of its own content
# (Merkle-style, so that a callee's change reaches every caller), an import statement by the tokens of the objects it
# binds, and anything else by its name and never by the module that defines it (a module of the package moves; a
# library's private module changes between versions): a class, a function or an object of the package outside the
# rule modules by its name, a library's module by its name (module:numpy), a name imported inside a function from a
# library as the import writes it (ext:scipy.stats.beta), a library's function or class by its qualified name.
# ``a.b.c`` is resolved through the package's modules (``standards.decide`` is that function's token); attributes of
# anything else stay as written. The node's own name is blank (a rename of a helper is a change of spelling, not of
# rule), and its default arguments are the tokens of their values. Functions that call each other (a cycle) share
# one hash of their sorted contents, in which calls inside the cycle are ``<rec>`` (so which member of a cycle a call
# inside it names is not told apart). The methods of a class are not followed (a class is its name), as in scheme 1.

_TOKEN_DEPTH = 6
_ROOT = __name__.split(".")[0]  # the package: objects in it are named without their module path
_FUNC_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _in_package(module: str | None) -> bool:
    return bool(module) and (module == _ROOT or module.startswith(_ROOT + "."))


@functools.lru_cache(maxsize=None)
def _parsed_module(text: str) -> tuple:
    """(tree, {first line: [function-like nodes]}) of a module's source, docstrings dropped."""
    tree = ast.parse(text)
    by_line: dict = {}
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and body
                and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
        if isinstance(node, _FUNC_NODES):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
            by_line.setdefault(first, []).append(node)
    return tree, by_line


def _function_node(code: types.CodeType):
    """The syntax tree node (def or lambda) of ``code``, found in its module's source."""
    try:
        lines, _ = inspect.findsource(code)
    except (OSError, TypeError) as exc:
        raise ValueError(f"the source of {code.co_name} ({code.co_filename}) cannot be read, so its rule cannot be "
                         f"fingerprinted: {exc}") from None
    _, by_line = _parsed_module("".join(lines))
    name = code.co_name
    found = [n for n in by_line.get(code.co_firstlineno, ())
             if (n.name if not isinstance(n, ast.Lambda) else "<lambda>") == name]
    if len(found) > 1:  # several lambdas on one line: the one that compiles to this code
        found = ([n for n in found if _compiles_to(n, code, exact=True)]
                 or [n for n in found if _compiles_to(n, code, exact=False)] or found[:1])
    if not found:
        raise ValueError(f"the source of {code.co_name} ({code.co_filename}:{code.co_firstlineno}) cannot be found, "
                         "so its rule cannot be fingerprinted")
    return found[0]


def _compiles_to(node, code, *, exact: bool) -> bool:
    """Whether the lambda ``node``, compiled alone, gives ``code`` (``exact``: its bytecode too; otherwise its
    constants and variables, for a lambda whose free names compile alone as globals, not as its closure's)."""
    try:
        outer = compile(ast.fix_missing_locations(ast.Expression(body=node)), code.co_filename, "eval")
    except (SyntaxError, ValueError, TypeError):
        return False
    inner = [c for c in outer.co_consts if isinstance(c, types.CodeType)]
    if not inner:
        return False
    if exact:
        return (inner[0].co_code, inner[0].co_names, inner[0].co_consts) == (code.co_code, code.co_names,
                                                                             code.co_consts)
    return (inner[0].co_consts, inner[0].co_varnames) == (code.co_consts, code.co_varnames)


class _Scope:
    __slots__ = ("kind", "parent", "local", "globals")

    def __init__(self, kind: str, parent):
        self.kind, self.parent = kind, parent
        self.local: dict = {}  # name -> None (a variable) or an import spec (the object the import binds)
        self.globals: set = set()

    def bind(self, name: str, spec=None) -> None:
        if name in self.globals:
            return
        if name in self.local and self.local[name] != spec:
            spec = None  # bound by an import and otherwise: a variable
        self.local[name] = spec


def _import_specs(node, package: str) -> list:
    """(bound name, spec) of an import statement: spec ("module", name) or ("from", module, attribute)."""
    out = []
    if isinstance(node, ast.Import):
        for a in node.names:
            out.append((a.asname or a.name.split(".")[0], ("module", a.name if a.asname else a.name.split(".")[0])))
    else:
        mod = node.module or ""
        if node.level:
            import importlib.util

            try:
                mod = importlib.util.resolve_name("." * node.level + mod, package)
            except (ImportError, ValueError):  # beyond the top of the package: as written
                mod = "." * node.level + mod
        for a in node.names:
            out.append((a.asname or a.name, ("from", mod, a.name)))
    return out


def _scopes(root, package: str) -> dict:
    """{id(Name or import node): resolution} for the names inside ``root`` (a def or lambda): ("local", None) for a
    variable of one of its scopes, ("import", spec) for a name an import inside it binds, ("free", name) for a name of
    its closure, its module or the builtins."""
    where: list = []  # (node, scope)

    def args(a: ast.arguments, scope: _Scope) -> None:
        for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]:
            scope.bind(arg.arg)

    def visit(node, scope: _Scope) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            outer = scope
            for d in getattr(node, "decorator_list", ()):
                visit(d, outer)
            for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                visit(d, outer)
            if not isinstance(node, ast.Lambda):
                if node is not root:
                    outer.bind(node.name)
                for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
                    if a.annotation is not None:
                        visit(a.annotation, outer)
                if node.returns is not None:
                    visit(node.returns, outer)
            inner = _Scope("function", outer)
            args(node.args, inner)
            for child in (node.body if isinstance(node.body, list) else [node.body]):
                visit(child, inner)
            return
        if isinstance(node, ast.ClassDef):
            for d in node.decorator_list + node.bases + [k.value for k in node.keywords]:
                visit(d, scope)
            scope.bind(node.name)
            inner = _Scope("class", scope)
            for child in node.body:
                visit(child, inner)
            return
        if isinstance(node, _COMPREHENSIONS):
            visit(node.generators[0].iter, scope)
            inner = _Scope("comprehension", scope)
            for i, gen in enumerate(node.generators):
                visit(gen.target, inner)
                if i:
                    visit(gen.iter, inner)
                for cond in gen.ifs:
                    visit(cond, inner)
            for part in ("elt", "key", "value"):
                if getattr(node, part, None) is not None:
                    visit(getattr(node, part), inner)
            return
        if isinstance(node, ast.Name):
            where.append((node, scope))
            if not isinstance(node.ctx, ast.Load):
                scope.bind(node.id)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            specs = _import_specs(node, package)
            for name, spec in specs:
                scope.bind(name, spec)
            where.append((node, specs))
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            if isinstance(node, ast.Global):
                scope.globals.update(node.names)
            return
        if isinstance(node, ast.NamedExpr):
            target = scope
            while target.kind == "comprehension":
                target = target.parent
            target.bind(node.target.id)
            visit(node.value, scope)
            return
        if isinstance(node, ast.ExceptHandler) and node.name:
            scope.bind(node.name)
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            scope.bind(node.name)
        if isinstance(node, ast.MatchMapping) and node.rest:
            scope.bind(node.rest)
        for child in ast.iter_child_nodes(node):
            visit(child, scope)

    visit(root, _Scope("outer", None))
    out = {}
    for node, scope in where:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out[id(node)] = ("imports", tuple(spec for _, spec in scope))
            continue
        s, first, res = scope, True, ("free", node.id)
        while s is not None and s.kind != "outer":
            if s.kind == "class" and not first:
                s = s.parent
                continue
            if node.id in s.globals:
                break
            if node.id in s.local:
                spec = s.local[node.id]
                res = ("local", None) if spec is None else ("import", spec)
                break
            first, s = False, s.parent
        out[id(node)] = res
    return out


@functools.lru_cache(maxsize=None)
def _template(code: types.CodeType, package: str) -> tuple:
    """``code``'s content with holes (see :func:`_template_of`)."""
    return _template_of(_function_node(code), package)


_ANNOTATED = {"arg": "annotation", "AnnAssign": "annotation", "FunctionDef": "returns", "AsyncFunctionDef": "returns"}


def _template_of(root, package: str) -> tuple:
    """The content of a def or lambda with holes: (pieces, holes). pieces alternate text and hole numbers; a hole
    is ("free", name), ("import", spec), ("chain", root hole, attributes), ("imports", specs), ("default", i) or
    ("kwdefault", name), filled per function object (closure, globals and defaults are read when fingerprinting).
    Annotations are left out: they do not act (and what typing's objects are differs between Python versions)."""
    names = _scopes(root, package)
    holes: list = []

    def hole(spec) -> str:
        holes.append(spec)
        return f"\x00{len(holes) - 1}\x00"

    defaults = {}
    a = root.args
    for i, d in enumerate(a.defaults):
        defaults[id(d)] = ("default", i)
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        if d is not None:
            defaults[id(d)] = ("kwdefault", arg.arg)

    def subst(node):
        if id(node) in defaults:
            return hole(defaults[id(node)])
        kind = type(node).__name__
        if kind in _ANNOTATED:
            blank = {_ANNOTATED[kind]: "None"}
            if node is root:  # its own name is spelling, not rule
                blank["name"] = ""
            fields = ",".join(f"{k}={blank[k] if k in blank else _dump(v, subst)}" for k, v in ast.iter_fields(node)
                              if k not in _SKIP_FIELDS)
            return f"{kind}({fields})"
        if isinstance(node, ast.Name):
            res = names.get(id(node), ("local", None))
            return None if res[0] == "local" else hole(res)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return hole(names[id(node)])
        if isinstance(node, ast.Attribute):
            attrs, base = [], node
            while isinstance(base, ast.Attribute):
                attrs.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name):
                res = names.get(id(base), ("local", None))
                if res[0] != "local":
                    return hole(("chain", res, tuple(reversed(attrs))))
        return None

    text = _dump(root, subst)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(text.split("\x00"))), tuple(holes)


def _identity(kind: str, obj) -> str:
    """A named object whose content is not part of the rule, by its name and never by its module: inside the package
    a module path moves with the code (``pkg:NAME`` outside the rule modules, as :func:`_imported` names it), and
    outside it the module that defines a library's function (scipy.stats._stats_py) changes between versions."""
    mod = getattr(obj, "__module__", None) or type(obj).__module__ or ""
    if not isinstance(mod, str):
        mod = ""
    if _in_package(mod) and not _is_rule_module(mod):
        return f"pkg:{getattr(obj, '__name__', None) or getattr(obj, '__qualname__', None) or type(obj).__qualname__}"
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__qualname__
    return f"{kind}:{name}" if _in_package(mod) else f"ext:{name}"


class _Graph:
    """One fingerprint's walk: the rule functions reached (nodes), their contents (with ``\x01id\x01`` where a rule
    function's hash goes), and their hashes once computed. Values are read when the walk runs (module constants,
    closures, defaults), never cached across walks."""

    def __init__(self, scheme: int = 3):
        self.scheme = scheme
        self.nodes: dict = {}  # id(fn) -> fn
        self.content: dict = {}  # id(fn) -> (text, [ids of the rule functions it names])
        self.hash: dict = {}
        self._memo: dict = {}  # id(value) -> (value, token): the tokens of containers and objects, this walk only

    # tokens of values ------------------------------------------------------------------------------------------
    def token(self, value, name: str = "", depth: int = 0) -> str:
        if name and _is_cache(name) and not callable(value):
            return "cache"
        if value is None or isinstance(value, bool):
            return repr(value)
        if isinstance(value, _External):
            return str.__str__(value)
        if isinstance(value, enum.Enum):
            return f"enum:{type(value).__qualname__}.{value.name}"
        for kind in (str, int, float, complex, bytes):  # subclasses (numpy scalars) by the builtin's repr
            if isinstance(value, kind):
                return kind.__repr__(value)
        if value is _MISSING:
            return "missing"
        memo = self._memo.get(id(value))
        if memo is not None and memo[0] is value:
            return memo[1]
        if depth > _TOKEN_DEPTH:
            return f"deep:{type(value).__qualname__}"
        tok = self._token(value, depth + 1)
        self._memo[id(value)] = (value, tok)
        return tok

    def _token(self, value, d: int) -> str:
        if type(value).__module__ == "numpy" and hasattr(value, "tolist") and hasattr(value, "dtype"):
            if getattr(value, "size", 0) > 4096:
                return f"array({value.dtype.str},{value.shape},{hashlib.sha256(value.tobytes()).hexdigest()})"
            return f"array({value.dtype.str},{self.token(value.tolist(), '', d)})"
        if isinstance(value, (tuple, list)):
            return f"{type(value).__qualname__}(" + ",".join(self.token(v, "", d) for v in value) + ")"
        if isinstance(value, dict):
            items = [(self.token(k, "", d), self.token(v, "", d)) for k, v in value.items()]
            if self.scheme >= 3 and any("\x01" in k + v for k, v in items):  # sorted once hashes are known
                return f"{type(value).__qualname__}(\x02" + "\x03".join(f"{k}:{v}" for k, v in items) + "\x04)"
            items.sort()
            return f"{type(value).__qualname__}(" + ",".join(f"{k}:{v}" for k, v in items) + ")"
        if isinstance(value, (set, frozenset)):
            toks = [self.token(v, "", d) for v in value]
            if self.scheme >= 3 and any("\x01" in t for t in toks):
                return "set(\x02" + "\x03".join(toks) + "\x04)"
            return "set(" + ",".join(sorted(toks)) + ")"
        if isinstance(value, types.FunctionType):
            # ours: of a rule module, by its name and by the file of its code (functools.wraps copies __module__;
            # a function compiled from a string, as hypothesis makes them, has no source to hash)
            ours = _is_rule_module(value.__module__) and _is_rule_module(_code_module(value.__code__))
            if hasattr(value, "__wrapped__"):  # a decorated function: what it wraps, and the wrapper if it is ours
                inner = self.token(value.__wrapped__, "", d)
                return f"wrapped({self.node(value)},{inner})" if ours else f"wrapped({inner})"
            return self.node(value) if ours else _identity("fn", value)
        if isinstance(value, functools.partial):
            return (f"partial({self.token(value.func, '', d)},{[self.token(v, '', d) for v in value.args]},"
                    f"{sorted((k, self.token(v, '', d)) for k, v in value.keywords.items())})")
        if isinstance(value, (staticmethod, classmethod)):
            return self.token(value.__func__, "", d)
        if isinstance(value, types.MethodType):
            return f"method({self.token(value.__func__, '', d)},{self.token(value.__self__, '', d)})"
        if isinstance(value, type):
            return _identity("class", value)
        if isinstance(value, types.ModuleType):  # within the package by its last name (moves keep it)
            return (f"module:{value.__name__.rsplit('.', 1)[-1]}" if _in_package(value.__name__)
                    else f"module:{value.__name__}")
        if hasattr(value, "__wrapped__") and callable(value):  # functools.lru_cache and other wrappers
            return self.token(inspect.unwrap(value), "", d)
        if dataclasses.is_dataclass(value):
            return (f"{type(value).__qualname__}(" + ",".join(
                f"{f.name}={self.token(getattr(value, f.name, None), '', d)}" for f in dataclasses.fields(value))
                + ")")
        if isinstance(value, re.Pattern):
            return f"re({value.pattern!r},{value.flags})"
        if callable(value):
            return _identity("fn", value)
        return _identity("obj", type(value))

    # the graph ---------------------------------------------------------------------------------------------------
    def node(self, fn) -> str:
        """``fn`` added to the graph; the placeholder of its hash."""
        if id(fn) not in self.nodes:
            self.nodes[id(fn)] = fn
            package = fn.__globals__.get("__package__") or (fn.__module__ or "").rpartition(".")[0]
            pieces, holes = _template(fn.__code__, package)
            text = "".join(p if isinstance(p, str) else self.fill(fn, holes[p]) for p in pieces)
            self.content[id(fn)] = (text, [int(w) for w in text.split("\x01")[1::2]])
        return f"\x01{id(fn)}\x01"

    def resolve(self, fn, spec):
        """(value, name) of a hole's free name or import; value is _MISSING for a builtin or an unknown name."""
        if spec[0] == "import":
            return _imported(spec[1]), ""
        name = spec[1]
        if name in fn.__code__.co_freevars and fn.__closure__:
            try:
                return fn.__closure__[fn.__code__.co_freevars.index(name)].cell_contents, name
            except ValueError:  # an empty cell
                return _MISSING, name
        return fn.__globals__.get(name, _MISSING), name

    def fill(self, fn, hole) -> str:
        kind = hole[0]
        if kind == "default":
            return self.token(fn.__defaults__[hole[1]])
        if kind == "kwdefault":
            return self.token((fn.__kwdefaults__ or {})[hole[1]])
        if kind == "imports":
            return "Import(" + ",".join(self.token(_imported(spec)) for spec in hole[1]) + ")"
        if kind == "chain":
            value, name = self.resolve(fn, hole[1])
            attrs = list(hole[2])
            while attrs and isinstance(value, types.ModuleType) and _in_package(value.__name__):
                if not hasattr(value, attrs[0]):
                    break
                value, name = getattr(value, attrs[0]), attrs.pop(0)
            head = f"Name(id={hole[1][1]!r})" if value is _MISSING else f"Ref({self.token(value, name)})"
            return head + "".join(f".{a}" for a in attrs)
        value, name = self.resolve(fn, hole)
        if value is _MISSING:  # a builtin (len, sorted) or a name its module does not define: as spelled
            return f"Name(id={name!r})"
        return f"Ref({self.token(value, name)})"

    def digest(self, root: int) -> str:
        """The hash of a node, by Tarjan's strongly connected components (callees first)."""
        index: dict = {}
        low: dict = {}
        stack: list = []
        on: set = set()

        def strong(v):
            index[v] = low[v] = len(index)
            stack.append(v)
            on.add(v)
            for w in self.content[v][1]:
                if w in self.hash:
                    continue
                if w not in index:
                    strong(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                self._hash_component(comp)

        if root not in self.hash:
            strong(root)
        return self.hash[root]

    def _hash_component(self, comp: list) -> None:
        """Hash a strongly connected component: a function alone by its content; functions that call each other by
        their sorted contents (calls inside the cycle as ``<rec>``) and each one's own."""
        members = set(comp)
        local = {}
        for v in comp:
            parts = self.content[v][0].split("\x01")
            for i in range(1, len(parts), 2):
                w = int(parts[i])
                parts[i] = "fn:<rec>" if w in members else f"fn:{self.hash[w]}"
            local[v] = _sort_groups("".join(parts))
        if len(comp) == 1 and comp[0] not in self.content[comp[0]][1]:
            self.hash[comp[0]] = hashlib.sha256(local[comp[0]].encode("utf-8")).hexdigest()[:20]
            return
        together = hashlib.sha256("\n".join(sorted(local.values())).encode("utf-8")).hexdigest()
        for v in comp:
            self.hash[v] = hashlib.sha256(f"{together}\n{local[v]}".encode("utf-8")).hexdigest()[:20]

    def ref(self, value) -> str:
        """The token of a value with the rule functions in it hashed (the claim's check, run_analyses)."""
        parts = self.token(value).split("\x01")
        for i in range(1, len(parts), 2):
            parts[i] = "fn:" + self.digest(int(parts[i]))
        return _sort_groups("".join(parts))


_GROUP = re.compile("\x02([^\x02\x04]*)\x04")


def _sort_groups(text: str) -> str:
    """Scheme 3: the items of every unordered container (between \\x02 and \\x04, separated by \\x03; written so
    while a rule function in them was a placeholder) sorted, innermost first, now that they hold hashes."""
    while "\x02" in text:
        text = _GROUP.sub(lambda m: ",".join(sorted(m[1].split("\x03"))), text)
    return text


_MISSING = object()
_FILE_MODULES: dict = {}  # a code's file -> the module that has it
_FILE_MISSES: dict = {}  # a file no module has -> len(sys.modules) when that was seen


def _code_module(code: types.CodeType) -> str | None:
    """The name of the loaded module whose file defines ``code`` (None for code compiled from a string)."""
    import os
    import sys

    path = code.co_filename
    name = _FILE_MODULES.get(path)
    if name is not None and getattr(sys.modules.get(name), "__file__", None) == path:
        return name
    if _FILE_MISSES.get(path) == len(sys.modules):  # looked for in vain, and no module loaded since
        return None
    for name, mod in list(sys.modules.items()):  # not mapped yet, or mapped to a module since replaced
        f = getattr(mod, "__file__", None)
        if isinstance(f, str) and (f == path or os.path.abspath(f) == os.path.abspath(path)):
            _FILE_MODULES[path] = name
            return name
    _FILE_MISSES[path] = len(sys.modules)
    return None


def _imported(spec):
    """The object an import statement binds, or _MISSING when the import fails. Only the rule modules are imported:
    a name from elsewhere is its token as imported (``ext:scipy.stats.beta``; in the package, without the module
    path: ``pkg:plot_curves``), so that fingerprinting imports no measurement code (torch, matplotlib)."""
    import importlib

    if spec[0] == "module":
        if not _in_package(spec[1]):
            return _External(f"module:{spec[1]}")
        if not _is_rule_module(spec[1]):
            return _External(f"module:{spec[1].rsplit('.', 1)[-1]}")
        try:
            return importlib.import_module(spec[1])
        except ImportError:
            return _MISSING
    _, mod, attr = spec
    if not _in_package(mod):
        return _External(f"ext:{mod}.{attr}")
    if not _is_rule_module(mod):
        if _is_rule_module(f"{mod}.{attr}"):  # from rgr_verify import capacity
            mod, attr = f"{mod}.{attr}", None
        else:
            return _External(f"pkg:{attr}")
    try:
        module = importlib.import_module(mod)
    except ImportError:
        return _MISSING
    if attr is None:
        return module
    if hasattr(module, attr):
        return getattr(module, attr)
    try:
        return importlib.import_module(f"{mod}.{attr}")
    except ImportError:
        return _MISSING


class _External(str):
    """The token of a name imported from outside the package, which is not imported for it (``ext:scipy.stats.beta``,
    ``module:numpy``)."""

    __slots__ = ()


def _rule_graph(claim, scheme: int = 3) -> tuple:
    """(graph, lines) of scheme 2 or 3 for ``claim`` (their text starts alike: a rule without a function in a dict
    or set has one fingerprint under both)."""
    g = _Graph(scheme)
    lines = ["scheme 2", f"check {g.ref(claim.check)}"]
    if getattr(claim, "analyses", ()):
        from .tools.multiverse import run_analyses

        lines.append(f"analyses = {tuple(claim.analyses)!r} {g.ref(run_analyses)}")
    expects = sorted((k, g.ref(getattr(s, "value", s)), str(getattr(s, "kind", "")))
                     for k, s in (claim.expects or {}).items())
    lines.append(f"expects = {expects!r}")
    return g, lines


def _scheme1(claim) -> tuple:
    """(parts, functions reached) of scheme 1."""
    parts: list = []
    seen: set = set()
    reach: list = []
    _walk(claim.check, parts, seen, reach)
    if getattr(claim, "analyses", ()):
        from .tools.multiverse import run_analyses

        parts.append(f"analyses = {tuple(claim.analyses)!r}")
        _walk(run_analyses, parts, seen, reach)
    expects = sorted((k, _constant_repr(getattr(s, "value", s)), str(getattr(s, "kind", "")))
                     for k, s in (claim.expects or {}).items())
    parts.append(f"expects = {expects!r}")
    return parts, reach


def rule_fingerprint(claim, scheme: int | None = None) -> str:
    """12 hex digits of the sha256 of the claim's rule: its check's reachable analysis code and constants, and its
    declared stated values (value and kind; the note is prose). ``scheme``: 1, 2 or 3 (see the module docstring); by
    default :data:`ACTIVE_SCHEME`, the one the ledger, the manifests and the report record."""
    scheme = ACTIVE_SCHEME if scheme is None else scheme
    if scheme == 1:
        text = "\n".join(_scheme1(claim)[0])
    elif scheme in (2, 3):
        text = "\n".join(_rule_graph(claim, scheme)[1])
    else:
        raise ValueError(f"scheme must be 1, 2 or 3, got {scheme!r}")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def rule_reach(claim, scheme: int | None = None) -> list[str]:
    """What the claim's rule covers under ``scheme``: ``module:qualified name`` of every function of the rule modules
    whose code enters its fingerprint (for review; the fingerprint itself does not use these names)."""
    scheme = ACTIVE_SCHEME if scheme is None else scheme
    if scheme == 1:
        return sorted({f"{f.__module__}:{f.__qualname__}" for f in _scheme1(claim)[1]})
    if scheme in (2, 3):
        g, _ = _rule_graph(claim, scheme)
        return sorted({f"{f.__module__}:{f.__qualname__}" for f in g.nodes.values()})
    raise ValueError(f"scheme must be 1, 2 or 3, got {scheme!r}")
