# The layout rules of the package (module size is a guideline of the README, not a test): no module importing another's private name, no test
# file importing from another test file (shared helpers live in fixture modules).
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = sorted((ROOT / "rgr_verify").rglob("*.py"))
TESTS = sorted(p for d in ("properties", "bounds", "empirical") for p in (ROOT / d).glob("*.py"))


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            yield node


def test_no_private_name_imported_across_modules():
    bad = [f"{p.relative_to(ROOT)}:{node.lineno} imports {a.name}" for p in PACKAGE + TESTS for node in _imports(p)
           for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    assert not bad, bad


def test_no_test_file_imports_another_test_file():
    bad = [f"{p.relative_to(ROOT)}:{node.lineno}" for p in TESTS for node in _imports(p)
           if (node.module or "").split(".")[-1].startswith("test_")]
    assert not bad, bad


def test_dk_means_one_thing():
    # Issue 42: D_K (total key width), d_k (a head's width) and the engine's padded per-head width (d_k_pad) have
    # names of their own; the bare name `dk` is left only to the formula sheet (core/formulas.py), where it is the
    # keyword of a head's d_k. Claims' code is rule code: its names are part of the ledger's fingerprints, so it
    # keeps them as recorded (there `dk` is a head's d_k, but for one list of D_K values in claims/tools/cells.py).
    bad = []
    for p in PACKAGE:
        rel = p.relative_to(ROOT / "rgr_verify").as_posix()
        if rel.startswith("claims/") or rel == "core/formulas.py":
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            name = node.id if isinstance(node, ast.Name) else node.arg if isinstance(node, (ast.arg, ast.keyword)) else \
                node.attr if isinstance(node, ast.Attribute) else None
            if name == "dk":
                bad.append(f"{rel}:{node.lineno}")
    assert not bad, bad
