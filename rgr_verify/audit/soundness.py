"""Is reusing a stored verdict sound? A randomised check of the verdict store (issue 43): small random edits across a
private copy of the package, and after each one the incremental audit (the copy's persistent verdict store) and a
fresh one (a new, empty store) of a fixed subset of claims, compared claim by claim.
``python -m rgr_verify.audit.soundness --edits 30 --seed 1`` prints a line per edit and a summary; exit 1 when a
verdict differs (or two fresh runs of the unedited copy disagree), 2 for a bad option.

- **The copy**: ``rgr_verify/`` (its data and committed evidence included, which the package finds beside its code)
  and ``pyproject.toml`` in a temporary folder (``--keep DIR``: in DIR, kept). It runs only in subprocesses, with
  ``PYTHONPATH`` on the copy and a pinned environment (of the caller's :data:`~rgr_verify.basics.settings.ENV_VARS`
  none; ``HYPOTHESIS_PROFILE=ci``, ``PYTHONHASHSEED=0``, one BLAS / torch thread), each with one results folder
  and one folder for plots emptied before it runs: the edits never touch the checkout, and this process never
  imports the copy.
- **A run**: a small script (:data:`DRIVER`) in the subprocess selects the claims
  (:func:`~rgr_verify.claims.registry.select_claims`, as ``rgr-verify audit --only``) and runs them at tier quick
  on the CPU with :func:`~rgr_verify.claims.runner.run_claims`, plots wanted (as the audit, which writes them to
  a new staging folder), and a :class:`~rgr_verify.claims.verdict_store.VerdictStore`: the copy's own store
  (incremental: a reused verdict's plots come from it) or a new one in a new folder (fresh: every claim a miss,
  traced and recorded, as a cold audit). Compared per claim: ``status``, ``measured_value``, ``paper_value`` and
  ``witness``, as the report writes them (:data:`COMPARED`), as JSON text.
- **The baseline**, before any edit: the incremental run of the unedited copy (its store empty, so every claim runs)
  traced for where the checks go (the functions that ran, and the modules the registry loaded), a fresh run that
  must agree with it (a verdict that differed between two fresh runs would be a false alarm later: the seeds are
  explicit, so none should), and the incremental run again, with nothing edited, which should rerun none.
- **The edits** (:func:`draw_edits`, a seeded :class:`random.Random`, all drawn against the unedited copy), each one
  textual change to one file, of the kinds of :data:`KINDS`: a numeric literal inside a function body that a check
  of the subset ran (``literal``: an int + 1, a float x 1.5) or one anywhere else (``literal-elsewhere``), across
  basics, core, models, engine, analysis, runs and claims (their checks and tools), a folder at a time in turn; a
  value of a ``Stated(...)`` in a claims module's ``CLAIMS`` declaration, of a claim of the subset (``stated``) or of
  another one (``stated-other``, half the time one declared beside a claim of the subset); a comment line
  (``comment``); a whitespace change to a JSON file of ``rgr_verify/data/`` (``data``, its evidence manifests
  included); a ``raise`` at the top of a function a check ran (``raise``: that check breaks, an ``error`` verdict);
  a module a check imports lazily that no longer imports (``import-error``, each such module once; a ``raise``
  when none is left).
  ``--edits N`` draws the kinds of :data:`PLAN` (30 edits), each round of 30 shuffled.
- **Independent edits**: each is reverted (the file restored, its bytecode removed) before the next. Every edit is
  then judged against the same stored state, so the count of claims it reran is its own, and the store sees the
  unedited files again after each one: the next run's reuse tests that going back finds the old verdicts.
  Cumulative edits would pile up errors (a broken module stays broken) and blur what each edit reran.

Not covered: training claims (the subset trains nothing; the results store's cache of deterministic runs is a
known limit of the verdict store), the full and GPU tiers, and several processes (``--jobs``): the store's
records of a parallel audit are written by the parent, as in one process.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from ..claims.verdict_store import PACKAGE_ROOT, claims_elements, source_lines, source_offsets

__all__ = ["SAMPLE", "KINDS", "PLAN", "FOLDERS", "COMPARED", "Edit", "copy_package", "draw_edits", "apply_edit",
           "revert_edit", "compare", "run_soundness", "main"]


# The default subset: quick-tier checks (and full-tier ones that replay the committed evidence at tier quick) that
# train nothing, each under about 3 s on one core after the registry is loaded (run_claim with a verdict store in a
# new folder, 2026-11-29; the first property check pays about 3 s of Hypothesis start-up), stratified by kind and
# drawn from different claims modules: four symbolic (two of them declared side by side in one module, so that an
# edit to one's stated value must rerun that one only), three deterministic properties (Hypothesis), one
# high-probability certificate, two asymptotic fits, one empirical and one qualitative claim replayed from the
# evidence (so through runs/ and the evidence manifests; the second draws a plot through analysis/plots, a module
# only a check imports, so an import-error edit has a module to break). A fresh run of the 13 in a new process takes
# about 15 s on one core, 7 s of it loading the registry.
SAMPLE = (
    "eq22-sym-ratio-identity",  # symbolic, paper_sec8/heads
    "corb7-sym-square-le-sum",  # symbolic, paper_appb/construction3_corollaries
    "sec6-sym-table1-median",  # symbolic, paper_sec6/stated
    "sec6-sym-table1-range",  # symbolic, paper_sec6/stated (beside the median)
    "facts-slices-vs-rank-real",  # symbolic, paper_facts/tensors (the second paper)
    "alg3-weights-layout",  # deterministic, paper_appb/construction1
    "defb4-incoherence-sort-exact",  # deterministic, paper_appb/construction3
    "lem83-application-exp-logits",  # deterministic, paper_sec8/step3
    "thmb1-separation-certificate",  # high-probability, paper_appb/construction1
    "thmb2-signal-bound-constant",  # asymptotic, paper_appb/construction2
    "sec10-learned-embeddings-trend",  # asymptotic, paper_sec10
    "sec72-value-single-head-beats-h16-at-low-dk",  # empirical (full tier, replayed), paper_sec7/statements
    "fig6-value-multihead-advantage",  # qualitative (full tier, replayed), paper_sec7/value; plots (lazy import)
)
KINDS = ("literal", "literal-elsewhere", "stated", "stated-other", "comment", "data", "raise", "import-error")
# The kinds of 30 edits (for --edits N, rounds of these, each shuffled).
PLAN = (("literal",) * 8 + ("literal-elsewhere",) * 5 + ("stated",) * 3 + ("stated-other",) * 3 + ("comment",) * 4
        + ("data",) * 3 + ("raise",) * 2 + ("import-error",) * 2)
FOLDERS = ("basics", "core", "models", "engine", "analysis", "runs", "claims")  # where code edits go
COMPARED = ("status", "measured_value", "paper_value", "witness")  # the fields of a verdict compared
TIER = "quick"
MARK = "soundness edit"  # in every inserted line


# --- the copy -------------------------------------------------------------------------------------------------------

def copy_package(dest: str | os.PathLike, source: str | os.PathLike = PACKAGE_ROOT) -> Path:
    """Copy the package folder ``source`` (without bytecode) to ``dest/rgr_verify``, and the ``pyproject.toml``
    beside it when there is one; returns ``dest`` (the folder to put on ``PYTHONPATH``)."""
    dest, source = Path(dest), Path(source)
    if not (source / "__init__.py").is_file():
        raise ValueError(f"source must be a package folder, got {source}")
    shutil.copytree(source, dest / source.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if (source.parent / "pyproject.toml").is_file():
        shutil.copy2(source.parent / "pyproject.toml", dest / "pyproject.toml")
    return dest


# --- edits ----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Edit:
    """One textual change to one file of the copy: ``path`` (relative to the copy, with /), the ``line`` it is on,
    its ``kind`` (:data:`KINDS`), the file's text ``before`` and ``after``, a ``note`` (what changed) and, for a
    stated value of a claim of the subset, that ``claim``."""

    kind: str
    path: str
    line: int
    before: str
    after: str
    note: str = ""
    claim: str = ""


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def _write(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))
    if path.suffix == ".py":  # never let a stale .pyc (same mtime second and size) stand for the text
        for pyc in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
            pyc.unlink(missing_ok=True)


def apply_edit(copy: str | os.PathLike, edit: Edit) -> None:
    """Write ``edit.after`` over its file (which must hold ``edit.before``)."""
    path = Path(copy) / edit.path
    if _read(path) != edit.before:
        raise ValueError(f"{edit.path} does not hold the text the edit was drawn against")
    _write(path, edit.after)


def revert_edit(copy: str | os.PathLike, edit: Edit) -> None:
    """Restore the file of ``edit`` to ``edit.before``."""
    _write(Path(copy) / edit.path, edit.before)


def _bumped(value) -> str | None:
    """The new literal of a numeric ``value``: an int + 1, a float x 1.5 (0.0 -> 0.5); None for another value."""
    if type(value) is int:
        return str(value + 1)
    if type(value) is float and math.isfinite(value):
        return repr(float(f"{value * 1.5:.12g}") if value else 0.5)  # 0.69, not 0.6900000000000001
    return None


def _func_key(node) -> int:
    """The line a function's code object starts on (``co_firstlineno``: its first decorator, else ``def``)."""
    return min([d.lineno for d in node.decorator_list] + [node.lineno])


def _scan(tree: ast.AST) -> tuple[list, list, list]:
    """(literals, functions, statements) of a module, in one pass: each literal as (constant node, first line of its
    innermost enclosing function) when it is a numeric literal in a function body and not in a signature,
    decorator or annotation, an f-string, the exponent of a power, or a ``while`` test (a bumped exponent can
    multiply the work, a bumped loop bound can keep a loop from ending)."""
    literals, functions, statements = [], [], []

    def visit(node, func, skip):
        for field, value in ast.iter_fields(node):
            for child in (value if isinstance(value, list) else [value]):
                if not isinstance(child, ast.AST):
                    continue
                f, s = func, skip
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if field == "body":
                        f, s = node, False
                    else:
                        s = True
                if (isinstance(child, (ast.JoinedStr, ast.arg)) or (isinstance(node, ast.While) and field == "test")
                        or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and field == "right")
                        or (isinstance(node, ast.AnnAssign) and field == "annotation")):
                    s = True
                if isinstance(child, ast.stmt):
                    statements.append(child)
                    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        functions.append(child)
                elif (isinstance(child, ast.Constant) and f is not None and not s
                      and _bumped(child.value) is not None):
                    literals.append((child, _func_key(f)))
                visit(child, f, s)

    visit(tree, None, False)
    return literals, functions, statements


def _stated_literals(element: ast.AST) -> list:
    """The numeric constants that are the value of a ``Stated(...)`` call inside a CLAIMS element."""
    out = []
    for n in ast.walk(element):
        if not isinstance(n, ast.Call):
            continue
        name = n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", None)
        if name != "Stated":
            continue
        value = n.args[0] if n.args else next((k.value for k in n.keywords if k.arg == "value"), None)
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
            value = value.operand
        if isinstance(value, ast.Constant) and _bumped(value.value) is not None:
            out.append(value)
    return out


class _Source:
    """The copy's files as the edits see them: texts and syntax trees, read once."""

    def __init__(self, copy: Path):
        self.copy = copy
        self.texts: dict[str, str] = {}
        self.trees: dict[str, ast.AST] = {}
        pkg = copy / "rgr_verify"
        for path in sorted(pkg.rglob("*.py")):
            rel = path.relative_to(copy).as_posix()
            parts = rel.split("/")
            if len(parts) < 3 or parts[1] not in FOLDERS or "__pycache__" in parts:
                continue
            text = _read(path)
            try:
                self.trees[rel] = ast.parse(text, filename=rel)
            except SyntaxError:
                continue
            self.texts[rel] = text
        self.data = sorted(p.relative_to(copy).as_posix() for p in (pkg / "data").rglob("*.json") if p.is_file())
        self.data_texts = {rel: _read(copy / rel) for rel in self.data}


def _folder(rel: str) -> str:
    return rel.split("/")[1]


class _Turns:
    """Folders in turn (a shuffled round, then another), so that the edits of one kind spread across them."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.queues: dict[str, list] = {}

    def pick(self, kind: str, pools: dict[str, list]):
        """An item of ``pools`` ({folder: items}, empty ones ignored): from the next folder in turn for ``kind``."""
        folders = sorted(f for f, items in pools.items() if items)
        if not folders:
            return None
        queue = self.queues.setdefault(kind, [])
        queue[:] = [f for f in queue if f in folders]
        if not queue:
            queue.extend(folders)
            self.rng.shuffle(queue)
        return self.rng.choice(pools[queue.pop(0)])


def _insert_line(text: str, line: int, content: str) -> str:
    lines = source_lines(text)
    if line > len(lines):
        return text + ("" if text.endswith("\n") or not text else "\n") + content + "\n"
    lines.insert(line - 1, content + "\n")
    return "".join(lines)


def draw_edits(copy: str | os.PathLike, n: int, seed: int, *, sample: Iterable[str] = SAMPLE,
               calls: dict | None = None, loaded: Iterable[str] = (), kinds: Iterable[str] | None = None) -> list[Edit]:
    """``n`` edits of the copy at ``copy`` drawn with ``random.Random(seed)``, each against the unedited files.

    ``sample``: the claim ids of the subset; ``calls``: {"check", "import", "store"} -> (path relative to the copy,
    first line) of each function that ran inside the subset's checks, while the registry loaded, and in the run's
    own work around the checks (the verdict store); ``loaded``: the module files loaded before the checks ran (from
    the baseline run). ``kinds``: the kind of each edit (default: rounds of :data:`PLAN`, each shuffled, cut at ``n``).
    Without ``calls``, the kinds that need them draw from the code anywhere."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"n must be an int >= 0, got {n!r}")
    rng = random.Random(seed)
    if kinds is None:
        plan: list = []
        while len(plan) < n:  # whole plans, each shuffled, the last one cut short
            block = list(PLAN)
            rng.shuffle(block)
            plan += block
        kinds = plan[:n]
    else:
        kinds = list(kinds)
        bad = sorted(set(kinds) - set(KINDS))
        if bad or len(kinds) != n:
            raise ValueError(f"kinds must be {n} of {KINDS}, got {kinds}")
    src = _Source(Path(copy))
    sample = set(sample)
    calls = {name: {tuple(c) for c in (calls or {}).get(name, ())} for name in ("check", "import", "store")}
    ran, elsewhere = calls["check"], calls["import"] | calls["store"]
    loaded = set(loaded)
    turns = _Turns(rng)

    lits_ran: dict[str, list] = {}
    lits_else: dict[str, list] = {}
    funcs_ran: dict[str, list] = {}
    stmts: dict[str, list] = {}
    stmts_ran: dict[str, list] = {}
    ran_files = {path for path, _ in ran}
    for rel, tree in src.trees.items():
        folder = _folder(rel)
        lines = source_lines(src.texts[rel])
        literals, functions, statements = _scan(tree)
        for node, key in literals:
            (lits_ran if (rel, key) in ran else lits_else).setdefault(folder, []).append((rel, node))
        for f in functions:
            key = (rel, _func_key(f))
            if (key in ran or not ran) and key not in elsewhere and f.body[0].lineno > f.lineno:
                funcs_ran.setdefault(folder, []).append((rel, f))
        for node in statements:
            line = lines[node.lineno - 1]
            if len(line) - len(line.lstrip()) != node.col_offset:
                continue  # the statement does not start its line
            stmts.setdefault(folder, []).append((rel, node))
            if rel in ran_files:
                stmts_ran.setdefault(folder, []).append((rel, node))
    if not ran:
        lits_ran = lits_else
    # modules a check imports lazily: a function of theirs ran in a check, none in the run's own work, and they were
    # not loaded before the checks ran
    lazy = sorted(rel for rel in ran_files - {path for path, _ in elsewhere}
                  if rel in src.trees and not rel.endswith("__init__.py") and rel not in loaded)
    stated_sample, stated_other, stated_beside = [], [], []
    for rel, tree in src.trees.items():
        elements = claims_elements(tree)
        here = {cid for _, strings in elements for cid in strings & sample}
        for elt, strings in elements:
            for value in _stated_literals(elt):
                if strings & sample:
                    stated_sample.append((rel, value, sorted(strings & sample)[0]))
                else:
                    (stated_beside if here else stated_other).append((rel, value, None))

    edits: list[Edit] = []
    used: set = set()
    for k, kind in enumerate(kinds, start=1):
        edit = None
        for _ in range(50):  # a distinct edit (another draw when one repeats an earlier one)
            edit = _draw(kind, k, rng, src, turns, lits_ran, lits_else, funcs_ran, stmts, stmts_ran, lazy,
                         stated_sample, stated_other, stated_beside)
            if edit is None or (edit.path, edit.line, edit.after) not in used:
                break
        if edit is None:
            raise ValueError(f"no place for an edit of kind {kind!r} in the copy")
        used.add((edit.path, edit.line, edit.after))
        edits.append(edit)
        if edit.kind == "import-error":  # each module once; then a raise
            lazy.remove(edit.path)
    return edits


def _replace(text: str, node: ast.AST, new: str) -> str:
    at = source_offsets(text)
    return text[:at(node.lineno, node.col_offset)] + new + text[at(node.end_lineno, node.end_col_offset):]


def _draw(kind, k, rng, src, turns, lits_ran, lits_else, funcs_ran, stmts, stmts_ran, lazy, stated_sample,
          stated_other, stated_beside) -> Edit | None:
    if kind in ("literal", "literal-elsewhere"):
        got = turns.pick(kind, lits_ran if kind == "literal" else lits_else)
        if got is None:
            return None
        rel, node = got
        text, new = src.texts[rel], _bumped(node.value)
        return Edit(kind, rel, node.lineno, text, _replace(text, node, new), f"{node.value!r} -> {new}")
    if kind in ("stated", "stated-other"):
        pool = stated_sample if kind == "stated" else \
            (stated_beside if stated_beside and (rng.random() < 0.5 or not stated_other) else stated_other)
        if not pool:
            return None
        rel, node, cid = rng.choice(pool)
        text, new = src.texts[rel], _bumped(node.value)
        return Edit(kind, rel, node.lineno, text, _replace(text, node, new),
                    f"{cid + ': ' if cid else ''}{node.value!r} -> {new}", claim=cid or "")
    if kind == "comment":
        got = turns.pick(kind, stmts_ran if stmts_ran and rng.random() < 0.5 else stmts)
        if got is None:
            return None
        rel, node = got
        text = src.texts[rel]
        line = source_lines(text)[node.lineno - 1].rstrip("\r\n")
        indent = line[: len(line) - len(line.lstrip())]
        return Edit(kind, rel, node.lineno, text, _insert_line(text, node.lineno, f"{indent}# {MARK} {k}: a comment"),
                    "a comment line")
    if kind == "data":
        rel = rng.choice(src.data)
        text = src.data_texts[rel]
        stripped = text.lstrip()
        if stripped[:1] in ("{", "["):
            i = len(text) - len(stripped) + 1
            return Edit(kind, rel, text[:i].count("\n") + 1, text, text[:i] + " " + text[i:],
                        "a space after the first bracket")
        return Edit(kind, rel, text.count("\n") + 1, text, text + "\n", "a blank line at the end")
    if kind == "import-error" and lazy:
        rel = rng.choice(lazy)
        text = src.texts[rel]
        after = text + ("" if text.endswith("\n") else "\n") + f'raise ImportError("{MARK} {k}: no import")\n'
        return Edit(kind, rel, after.count("\n"), text, after, "the module raises ImportError")
    if kind in ("raise", "import-error"):
        got = turns.pick("raise", funcs_ran)
        if got is None:
            return None
        rel, fn = got
        text = src.texts[rel]
        first = fn.body[0]
        if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
                and len(fn.body) > 1):
            first = fn.body[1]  # after the docstring
        line = source_lines(text)[first.lineno - 1].rstrip("\r\n")
        indent = line[: len(line) - len(line.lstrip())]
        return Edit("raise", rel, first.lineno, text,
                    _insert_line(text, first.lineno, f'{indent}raise RuntimeError("{MARK} {k}: the check breaks")'),
                    f"{fn.name} raises")
    raise ValueError(f"unknown kind {kind!r}")


# --- runs -----------------------------------------------------------------------------------------------------------

# Run in a subprocess with the copy on PYTHONPATH: argv[1] is a JSON spec; the verdicts go to spec["out"].
DRIVER = r'''
import json, os, sys, threading, time
from pathlib import Path

spec = json.load(open(sys.argv[1]))
root = os.path.realpath(os.path.join(spec["copy"], "rgr_verify")) + os.sep
top = os.path.realpath(spec["copy"]) + os.sep
calls = {"import": set(), "store": set(), "check": set()}
phase = ["import"]
if spec["probe"]:
    real = {}

    def trace(frame, event, arg):
        code = frame.f_code
        name = code.co_filename
        path = real.get(name)
        if path is None:
            path = real[name] = os.path.realpath(name) if name and not name.startswith("<") else ""
        if path.startswith(root):
            calls[phase[0]].add((path[len(top):].replace(os.sep, "/"), code.co_firstlineno))
        return None

    sys.settrace(trace)
    threading.settrace(trace)
import torch

torch.set_num_threads(1)
from rgr_verify.claims import runner
from rgr_verify.claims.registry import select_claims
from rgr_verify.claims.tools import register_profiles
from rgr_verify.claims.verdict_store import VerdictStore, verdict_to_json

register_profiles()
try:
    claims = select_claims(spec["only"], tier="gpu")
except ValueError as exc:
    json.dump({"usage": str(exc)}, open(spec["out"], "w"))
    sys.exit(0)
store = VerdictStore(spec["store"])
loaded = sorted({os.path.realpath(m.__file__)[len(top):].replace(os.sep, "/") for m in list(sys.modules.values())
                 if isinstance(getattr(m, "__file__", None), str) and os.path.realpath(m.__file__).startswith(root)})
if spec["probe"]:  # what runs inside a check (tier gating, analyses, the check) apart from the store's work
    inner = runner._verdict

    def _verdict(*args, **kwargs):
        phase[0] = "check"
        try:
            return inner(*args, **kwargs)
        finally:
            phase[0] = "store"

    runner._verdict = _verdict
phase[0] = "store"
started = time.perf_counter()
results = runner.run_claims(claims, store=store, tier=spec["tier"], device="cpu", results_dir=Path(spec["results"]),
                            out_dir=Path(spec["plots"]), root_seed=spec["root_seed"])
seconds = time.perf_counter() - started
sys.settrace(None)
threading.settrace(None)
json.dump({"claims": [{"id": r.claim.id, "verdict": verdict_to_json(r.verdict), "reused": r.reused,
                       "seconds": r.seconds} for r in results],
           "seconds": seconds, "loaded": loaded, "calls": {k: sorted(v) for k, v in calls.items()}},
          open(spec["out"], "w"))
'''


class _Runner:
    """Runs of the claims of the copy in subprocesses, each with the results folder emptied first."""

    def __init__(self, work: Path, only: str, root_seed: int):
        self.work, self.only, self.root_seed = work, only, root_seed
        self.copy = work / "copy"
        self.results = work / "results"
        self.plots = work / "plots"
        self.driver = work / "driver.py"
        self.driver.write_text(DRIVER, encoding="utf-8")
        self.count = 0
        self.timeout = 1800.0
        self.trained = False  # whether a run left trained runs in the results folder
        from ..basics.settings import ENV_VARS, HYPOTHESIS_PROFILE_ENV, RESULTS_ENV

        # the caller's environment for the child (its paths, its locale), without the project's variables
        env = {k: v for k, v in os.environ.items() if k not in ENV_VARS
               and k not in ("PYTHONPATH", "PYTHONHASHSEED", "COVERAGE_PROCESS_START")}
        env.update({"PYTHONPATH": str(self.copy), "PYTHONHASHSEED": "0", HYPOTHESIS_PROFILE_ENV: "ci",
                    RESULTS_ENV: str(self.results), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                    "MKL_NUM_THREADS": "1"})
        self.env = env

    def run(self, store: Path, *, probe: bool = False) -> dict:
        """The run's document: {"claims": [{id, verdict, reused, seconds}], "seconds", ...}, or {"failed": why}."""
        self.count += 1
        out = self.work / "runs" / f"{self.count:03d}.json"
        out.parent.mkdir(exist_ok=True)
        spec = self.work / "runs" / f"{self.count:03d}-spec.json"
        spec.write_text(json.dumps({"copy": str(self.copy), "only": self.only, "store": str(store),
                                    "results": str(self.results), "plots": str(self.plots),
                                    "root_seed": self.root_seed, "tier": TIER,
                                    "probe": probe, "out": str(out)}), encoding="utf-8")
        for folder in (self.results, self.plots):
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
        started = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, str(self.driver), str(spec)], cwd=self.copy, env=self.env,
                                  capture_output=True, text=True, timeout=self.timeout, check=False)
        except subprocess.TimeoutExpired:
            return {"failed": f"timed out after {self.timeout:.0f} s"}
        wall = time.perf_counter() - started
        if any(p.suffix == ".jsonl" for p in self.results.rglob("*")):
            self.trained = True
        if proc.returncode != 0 or not out.is_file():
            tail = [line for line in (proc.stderr or "").strip().splitlines() if line.strip()]
            return {"failed": f"exit {proc.returncode}: {tail[-1] if tail else 'no output'}"}
        doc = json.loads(out.read_text(encoding="utf-8"))
        doc["wall"] = wall
        return doc


def _fields(record: dict) -> dict:
    return {name: json.dumps(record["verdict"].get(name), sort_keys=True) for name in COMPARED}


def compare(a: dict, b: dict) -> list[tuple]:
    """(claim id, field, value in ``a``, value in ``b``) of each compared field (:data:`COMPARED`, as JSON text:
    NaN equals NaN) that differs between two run documents; a claim missing from one is ("id", "missing", ...)."""
    fa = {r["id"]: _fields(r) for r in a["claims"]}
    fb = {r["id"]: _fields(r) for r in b["claims"]}
    out = []
    for cid in sorted(fa.keys() | fb.keys()):
        if cid not in fa or cid not in fb:
            out.append((cid, "missing", cid in fa, cid in fb))
            continue
        out.extend((cid, name, fa[cid][name], fb[cid][name]) for name in COMPARED if fa[cid][name] != fb[cid][name])
    return out


def _reran(doc: dict) -> list[str]:
    return [r["id"] for r in doc["claims"] if r["reused"] is None]


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def run_soundness(edits: int = 30, seed: int = 1, *, only: str | None = None, keep: str | os.PathLike | None = None,
                  root_seed: int | None = None, kinds: Iterable[str] | None = None,
                  out: Callable[[str], None] = print) -> dict:
    """Copy the package, run the baseline, then ``edits`` edits (:func:`draw_edits` with ``seed``) each followed by
    an incremental and a fresh run of the claims ``only`` selects (default :data:`SAMPLE`) and reverted; ``out``
    gets the lines. Returns {"claims", "baseline_differs", "edits": [{k, kind, path, line, note, reran, differs,
    changed, failed}], "differing"}. ValueError (naming the option) for a bad argument or an ``only`` that selects
    nothing."""
    from ..claims.base import DEFAULT_SEED

    if not isinstance(edits, int) or isinstance(edits, bool) or edits < 0:
        raise ValueError(f"--edits must be an int >= 0, got {edits!r}")
    root_seed = DEFAULT_SEED if root_seed is None else root_seed
    only = ",".join(SAMPLE) if only is None else only
    if keep is not None:
        keep = Path(keep)
        if keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
            raise ValueError(f"--keep: {keep} exists and is not an empty folder")
        keep.mkdir(parents=True, exist_ok=True)
        work = keep.resolve()
        tmp = None
    else:
        tmp = tempfile.TemporaryDirectory(prefix="rgr-soundness-")
        work = Path(os.path.realpath(tmp.name))
    try:
        return _soundness(work, edits, seed, only, root_seed, kinds, out)
    finally:
        if tmp is not None:
            tmp.cleanup()


def _soundness(work, n_edits, seed, only, root_seed, kinds, out) -> dict:
    copy_package(work / "copy")
    runner = _Runner(work, only, root_seed)
    store = work / "store"
    started = time.perf_counter()
    base = runner.run(store, probe=True)
    if "usage" in base:
        raise ValueError(f"--only: {base['usage']}")
    if "failed" in base:
        raise RuntimeError(f"the baseline run of the unedited copy failed: {base['failed']}")
    ids = [r["id"] for r in base["claims"]]
    runner.only = ",".join(ids)
    fresh = runner.run(work / "fresh" / "0")
    if "failed" in fresh:
        raise RuntimeError(f"the fresh run of the unedited copy failed: {fresh['failed']}")
    runner.timeout = max(300.0, 10 * fresh["wall"])
    m = len(ids)
    summary = {"claims": ids, "edits": [], "differing": [], "baseline_differs": compare(base, fresh)}
    out(f"claims: {m} ({', '.join(ids)}); a fresh run took {fresh['wall']:.1f} s")
    if summary["baseline_differs"]:
        out("baseline: two fresh runs of the unedited copy DIFFER (a nondeterministic check; no edit can be judged):")
        for cid, field, a, b in summary["baseline_differs"]:
            out(f"  {cid} {field}: {_short(str(a))} | {_short(str(b))}")
        return summary
    out("baseline: two fresh runs of the unedited copy agree")
    broken = [r["id"] for r in fresh["claims"] if r["verdict"]["status"] == "error"]
    if broken:
        out(f"note: {len(broken)} claims break unedited (an error is never stored, so they always rerun): "
            f"{', '.join(broken)}")
    again = runner.run(store)
    if "failed" in again:
        raise RuntimeError(f"the second run of the unedited copy failed: {again['failed']}")
    differs = compare(again, fresh)
    summary["edits"].append(_entry(0, None, _reran(again), differs, [], None))
    out(f"edit 0: no edit -> reran {len(_reran(again))} of {m} claims (reused {m - len(_reran(again))}), verdicts "
        f"equal: {'NO' if differs else 'yes'}" + (f"; reran {', '.join(_reran(again))}" if _reran(again) else ""))
    drawn = draw_edits(work / "copy", n_edits, seed, sample=ids, calls=base["calls"], loaded=base["loaded"],
                       kinds=kinds)
    for k, edit in enumerate(drawn, start=1):
        apply_edit(work / "copy", edit)
        try:
            inc = runner.run(store)
            new = runner.run(work / "fresh" / str(k))
        finally:
            revert_edit(work / "copy", edit)
        where = f"edit {k}: {edit.path}:{edit.line} {edit.kind}"
        if "failed" in inc or "failed" in new:
            same = inc.get("failed") == new.get("failed")
            summary["edits"].append(_entry(k, edit, [], [] if same else [("*", "run", inc.get("failed"),
                                                                         new.get("failed"))], [],
                                           inc.get("failed") or new.get("failed")))
            out(f"{where} -> runs failed (incremental: {inc.get('failed', 'ran')}; fresh: {new.get('failed', 'ran')})"
                f", verdicts equal: {'yes (both failed alike)' if same else 'NO'}; {edit.note}")
            continue
        reran = _reran(inc)
        differs = compare(inc, new)
        changed = sorted({cid for cid, *_ in compare(fresh, new)})
        summary["edits"].append(_entry(k, edit, reran, differs, changed, None))
        out(f"{where} -> reran {len(reran)} of {m} claims (reused {m - len(reran)}), verdicts equal: "
            f"{'NO' if differs else 'yes'}; {edit.note}"
            + (f"; the edit changed {len(changed)} verdict{'s' if len(changed) != 1 else ''} ({', '.join(changed)})"
               if changed else ""))
        for cid, field, a, b in differs:
            out(f"  {cid} {field}: incremental {_short(a)} | fresh {_short(b)}"
                + (f" (reused from {next(r['reused'] for r in inc['claims'] if r['id'] == cid)})"
                   if cid not in reran else " (rerun)"))
    summary["differing"] = [(e["k"], cid, field) for e in summary["edits"] for cid, field, *_ in e["differs"]]
    counts = [len(e["reran"]) for e in summary["edits"] if e["k"] and not e["failed"]]
    spread = f"{min(counts)}/{statistics.median(counts):g}/{max(counts)}" if counts else "-"
    named = "; ".join(f"edit {k}: {cid} {field}" for k, cid, field in summary["differing"])
    failed = [e["k"] for e in summary["edits"] if e["failed"]]
    if runner.trained:
        out("note: a check trained runs into the results folder (the results store's cache is outside the verdict "
            "store's soundness; choose claims that train nothing)")
    out(f"soundness: {len(drawn)} edits, {len(summary['differing'])} differing verdicts"
        + (f" ({named})" if named else "") + f", reran per edit: {spread}"
        + (f", runs failed at edits {', '.join(map(str, failed))}" if failed else "")
        + f" [{time.perf_counter() - started:.0f} s]")
    return summary


def _entry(k, edit, reran, differs, changed, failed) -> dict:
    return {"k": k, "kind": edit.kind if edit else None, "claim": edit.claim if edit else "",
            "path": edit.path if edit else None,
            "line": edit.line if edit else None, "note": edit.note if edit else "no edit", "reran": list(reran),
            "differs": list(differs), "changed": list(changed), "failed": failed}


# --- command line ---------------------------------------------------------------------------------------------------

def _int_at_least(low: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
        return value
    return parse


def main(argv=None) -> int:
    prog = "python -m rgr_verify.audit.soundness"
    ap = argparse.ArgumentParser(prog=prog, description="Random small edits to a copy of the package; after each "
                                 "one the incremental audit (verdict store) and a fresh one must give the same "
                                 "verdicts.")
    ap.add_argument("--edits", type=_int_at_least(0), default=30, help="how many edits (default 30)")
    ap.add_argument("--seed", type=_int_at_least(0), default=1, help="the seed of the edits (default 1)")
    ap.add_argument("--only", default=None, metavar="PATTERN",
                    help="the claims (comma-separated ids or globs, as rgr-verify audit --only; default: the "
                         "built-in sample of 13 quick claims)")
    ap.add_argument("--keep", default=None, metavar="DIR",
                    help="work in DIR (new or empty) and keep it: the copy, its store and each run's verdicts")
    ap.add_argument("--root-seed", type=_int_at_least(0), default=None,
                    help="the claims' root seed (default the audit's, 20250926)")
    args = ap.parse_args(argv)
    if args.root_seed is not None and args.root_seed > 2**32 - 1:
        ap.error(f"argument --root-seed: must be at most 2**32 - 1, got {args.root_seed}")
    if args.only is not None and not args.only.strip():
        ap.error("argument --only: must name at least one claim id or pattern")
    try:
        summary = run_soundness(args.edits, args.seed, only=args.only, keep=args.keep, root_seed=args.root_seed,
                                out=lambda line: print(line, flush=True))
    except ValueError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    return 1 if summary["differing"] or summary["baseline_differs"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
