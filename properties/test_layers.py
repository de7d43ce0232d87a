# The README's layers are the law: every module of rgr_verify belongs to exactly one layer of the block under
# "Library tour", and no module imports one of a higher layer (an import within a layer or downwards is fine);
# the package itself (``import rgr_verify``, ``from rgr_verify import x`` of a name it re-exports) counts as the top
# layer, since its __init__ re-exports from every layer; and no modules import each other in a circle, inside a layer
# or across (imports inside functions count). Each is planted and caught.
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
            elif node.module == "rgr_verify":
                names = [a.name for a in node.names]
            else:
                continue
        elif isinstance(node, ast.Import):
            names = [a.name.split(".")[1] if "." in a.name else "__init__" for a in node.names
                     if a.name == "rgr_verify" or a.name.startswith("rgr_verify.")]
        else:
            continue
        for n in names:
            if (PKG / n).is_dir():
                out.add(n + "/")
            elif (PKG / f"{n}.py").is_file() or n in ("__init__", "__version__"):
                out.add(n)
            else:
                out.add("__init__")  # a name the package re-exports: an import of the package itself
    return out


def upward_imports(layers, read=lambda p: p.read_text(encoding="utf-8")) -> list[str]:
    rank = {u: i for i, (_, units) in enumerate(layers) for u in units}
    rank["__init__"] = 0  # the package itself: its __init__ re-exports from every layer, so it sits on top
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        u = unit_of(path)
        if u == "__init__":  # the package's own re-exports
            continue
        for dep in sorted(imports_of(path, read(path)) - {u, "__version__"}):
            if dep in rank and u in rank and rank[dep] < rank[u]:
                top = "the package's re-exports" if dep == "__init__" else layers[rank[dep]][0]
                bad.append(f"{path.relative_to(ROOT)} ({layers[rank[u]][0]}) imports {dep} ({top})")
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


def test_importing_the_package_itself_from_a_lower_layer_is_caught():
    planted = PKG / "graphs.py"
    for line in ("import rgr_verify", "from rgr_verify import report", "from rgr_verify import Digraph"):
        def read(p, line=line):
            text = p.read_text(encoding="utf-8")
            return text + f"\n{line}\n" if p == planted else text

        bad = upward_imports(readme_layers(), read)
        assert len(bad) == 1 and bad[0].startswith("rgr_verify/graphs.py (RGR core) imports"), (line, bad)


def module_graph(read=lambda p: p.read_text(encoding="utf-8")) -> dict:
    """{module: the package's modules it imports} (dotted names; imports inside functions count; a package's
    __init__ is the package's name)."""
    mods = {}
    for p in PKG.rglob("*.py"):
        parts = p.relative_to(ROOT).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    graph = {}
    for name, p in mods.items():
        pkg = name.split(".") if p.name == "__init__.py" else name.split(".")[:-1]
        deps = set()
        for node in ast.walk(ast.parse(read(p))):
            if isinstance(node, ast.ImportFrom):
                mod = ".".join(pkg[: len(pkg) - (node.level - 1)] + ([node.module] if node.module else [])) \
                    if node.level else (node.module or "")
                deps.update(f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[name] = {d for d in deps if d in mods and d != name}
    return graph


def import_circles(graph: dict) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
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
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_no_modules_import_each_other_in_a_circle():
    assert import_circles(module_graph()) == []


def test_a_planted_circle_inside_a_layer_is_caught():
    planted = PKG / "runs" / "store.py"

    def read(p):
        text = p.read_text(encoding="utf-8")
        return text + "\ndef _late():\n    from .evidence import manifests\n" if p == planted else text

    assert import_circles(module_graph(read)) == [["rgr_verify.runs.evidence", "rgr_verify.runs.store"]]


# The claims read stored runs through one door, rgr_verify.runs.replay (the presets, being configuration, too).
CLAIMS_MAY_IMPORT_FROM_RUNS = {"replay", "presets", "sec73_presets"}


def claims_reading_runs_around_replay(read=lambda p: p.read_text(encoding="utf-8")) -> list[str]:
    graph = module_graph(read)
    return sorted(f"{m} imports {d}" for m, deps in graph.items() if m.startswith("rgr_verify.claims")
                  for d in deps if d.startswith("rgr_verify.runs")
                  and d.split(".")[2:3] and d.split(".")[2] not in CLAIMS_MAY_IMPORT_FROM_RUNS)


def test_claims_read_runs_only_through_replay():
    assert claims_reading_runs_around_replay() == []
    planted = PKG / "claims" / "paper_sec7" / "value.py"

    def read(p):
        text = p.read_text(encoding="utf-8")
        return text + "\ndef _around():\n    from ...runs.evidence import manifests\n" if p == planted else text

    assert claims_reading_runs_around_replay(read) == [
        "rgr_verify.claims.paper_sec7.value imports rgr_verify.runs.evidence"]
