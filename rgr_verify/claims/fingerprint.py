"""A claim's rule fingerprint: a hash of what decides its verdict, so that a rule changed after the evidence shows.

The fingerprint covers the claim's check and everything it reaches in the audit's own analysis code: the source of
every function it calls or closes over in :mod:`rgr_verify.claims` and the analysis modules (App. A.2's capacity
curves and thresholds, the fits and the statistics), each reduced to its syntax tree without docstrings and
positions (so comments, docstrings and layout do not count, and the hash is the same on every machine and Python
version), the values of the
module constants those functions read (sizes, grids, tolerances), and the claim's declared stated values. The
measurement itself (the training engine, the constructions) is not part of the rule; its changes are tracked by the
engine's and the stores' versions.

``rule_fingerprint(claim)`` is 12 hex digits. The ledger records it next to the expected status, the claim's test
fails when the two differ (a rule changed without the ledger's review), and an evidence manifest records the
fingerprints of the claims that replay it when it is added, so the report can mark a rule revised after its
evidence as post hoc.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import textwrap
import types

__all__ = ["rule_fingerprint", "RULE_MODULES"]

# Modules whose functions are part of a rule (the analysis), besides rgr_verify.claims itself.
RULE_MODULES = ("rgr_verify.claims", "rgr_verify.capacity", "rgr_verify.stats", "rgr_verify.fits")
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


def _dump(node) -> str:
    """A version-stable rendering of an AST: node types and fields (no positions, no fields that only some Python
    versions have), adjacent string pieces of an f-string merged (3.12 splits them differently)."""
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
            return "JoinedStr(" + ",".join(repr(v) if isinstance(v, str) else _dump(v) for v in merged) + ")"
        if isinstance(node, ast.Constant):
            return f"Constant({node.value!r})"
        fields = ",".join(f"{name}={_dump(value)}" for name, value in ast.iter_fields(node)
                          if name not in _SKIP_FIELDS)
        return f"{type(node).__name__}({fields})"
    if isinstance(node, list):
        return "[" + ",".join(_dump(v) for v in node) + "]"
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
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _walk(obj, parts: list, seen: set) -> None:
    """Append to ``parts`` the normalised sources and constants that ``obj`` (a callable) reaches."""
    if isinstance(obj, functools.partial):
        _walk(obj.func, parts, seen)
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
            _walk(value, parts, seen)
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
            _walk(value, parts, seen)
    for name in sorted(set(_names(fn.__code__))):
        if name not in fn.__globals__ or _is_cache(name):
            continue
        value = fn.__globals__[name]
        const = _constant_repr(value)
        if const is not None:
            parts.append(f"{name} = {const}")
        elif isinstance(value, (types.FunctionType, functools.partial)) or hasattr(value, "__wrapped__"):
            _walk(value, parts, seen)


def rule_fingerprint(claim) -> str:
    """12 hex digits of the sha256 of the claim's rule: its check's reachable analysis code and constants, and its
    declared stated values (value and kind; the note is prose)."""
    parts: list = []
    seen: set = set()
    _walk(claim.check, parts, seen)
    if getattr(claim, "analyses", ()):
        from .tools.multiverse import run_analyses

        parts.append(f"analyses = {tuple(claim.analyses)!r}")
        _walk(run_analyses, parts, seen)
    expects = sorted((k, _constant_repr(getattr(s, "value", s)), str(getattr(s, "kind", "")))
                     for k, s in (claim.expects or {}).items())
    parts.append(f"expects = {expects!r}")
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:12]
