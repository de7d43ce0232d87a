# The README's layers are the law: every module of rgr_verify belongs to exactly one layer of the block under
# "Library tour", and no module imports one of a higher layer (an import within a layer or downwards is fine).
# A planted upward import is caught.
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "rgr_verify"


def readme_layers() -> list[tuple[str, set]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = text[text.index("## Library tour"):]
    block = tour[tour.index("```") + 3:]
    block = block[:block.index("```")]
    layers: list[tuple[str, set]] = []
    for line in block.splitlines():
        if not line.strip():
            continue
        m = re.match(r"^ (\S.*?\S)\s{2,}(.*)$", line)
        if m and not line.startswith("  "):
            layers.append((m[1], set()))
            rest = m[2]
        else:
            rest = line
        layers[-1][1].update(n.strip() for n in rest.split(",") if n.strip())
    return layers


def unit_of(path: Path) -> str:
    rel = path.relative_to(PKG).parts
    return rel[0][:-3] if len(rel) == 1 else rel[0] + "/"


def imports_of(path: Path, source: str) -> set:
    """The top-level units of rgr_verify that ``path`` (whose text is ``source``) imports, relative or absolute."""
    pkg = list(path.relative_to(PKG).parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - (node.level - 1)]
                parts = base + (node.module.split(".") if node.module else [])
                names = parts[:1] if parts else [a.name for a in node.names]
            elif node.module and node.module.startswith("rgr_verify."):
                names = [node.module.split(".")[1]]
            else:
                continue
        elif isinstance(node, ast.Import):
            names = [a.name.split(".")[1] for a in node.names if a.name.startswith("rgr_verify.")]
        else:
            continue
        for n in names:
            out.add(n + "/" if (PKG / n).is_dir() else n)
    return out


def upward_imports(layers, read=lambda p: p.read_text(encoding="utf-8")) -> list[str]:
    rank = {u: i for i, (_, units) in enumerate(layers) for u in units}
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        u = unit_of(path)
        if u == "__init__":  # the package's own re-exports
            continue
        for dep in sorted(imports_of(path, read(path)) - {u, "__init__", "__version__"}):
            if dep in rank and u in rank and rank[dep] < rank[u]:
                bad.append(f"{path.relative_to(ROOT)} ({layers[rank[u]][0]}) imports {dep} ({layers[rank[dep]][0]})")
    return bad


def test_every_module_is_in_exactly_one_layer():
    layers = readme_layers()
    assert [name for name, _ in layers] == ["entry points", "audit", "experiments", "analysis", "models",
                                            "RGR core", "basics"]
    listed = [u for _, units in layers for u in units]
    assert len(listed) == len(set(listed)), sorted({u for u in listed if listed.count(u) > 1})
    present = {unit_of(p) for p in PKG.rglob("*.py")} - {"__init__"}
    assert present - set(listed) == set(), "modules no layer of the README lists"
    assert set(listed) - present == set(), "the README lists modules that do not exist"


def test_no_module_imports_a_higher_layer():
    assert upward_imports(readme_layers()) == []


def test_a_planted_upward_import_is_caught():
    planted = PKG / "graphs.py"

    def read(p):
        text = p.read_text(encoding="utf-8")
        return text + "\nfrom .report import audit_document\n" if p == planted else text

    bad = upward_imports(readme_layers(), read)
    assert bad == ["rgr_verify/graphs.py (RGR core) imports report (audit)"]
