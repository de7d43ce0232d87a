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
