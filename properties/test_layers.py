# The layers are folders: every folder of rgr_verify belongs to exactly one layer of LAYERS, the package's own top
# level holds only the entry modules (a handful), and no module imports a folder of a higher layer (an import within
# a folder, a layer or downwards is fine); the package itself (``import rgr_verify``, ``from rgr_verify import x`` of
# a name it re-exports) counts as the top layer, since its __init__ re-exports from every layer; no modules import
# each other in a circle, inside a folder or across (imports inside functions count); the README's drawing of the
# layers is generated from the folders (``python properties/test_layers.py`` rewrites it). Each is planted and caught.
import ast
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "rgr_verify"
README = ROOT / "README.md"

# Top to bottom; "" is the package's own top level (its entry modules). A folder imports only its own layer's folders
# and the layers below.
LAYERS = [
    ("entry points", ("", "commands")),
    ("audit", ("audit",)),
    ("claims", ("claims",)),
    ("experiments", ("runs", "perf")),
    ("analysis", ("analysis",)),
    ("models", ("models", "engine")),
    ("RGR core", ("core",)),
    ("basics", ("basics",)),
]
MAX_ENTRY_MODULES = 6  # __init__, __main__, cli, pytest_plugin, testing: the package's doors


def folders() -> list[str]:
    return sorted(d.name for d in PKG.iterdir() if d.is_dir() and (d / "__init__.py").is_file())


def unit_of(name: str) -> str:
    """The folder (layer unit) of a dotted module of the package: its first folder, "" for a top-level module, and
    "__init__" for the package itself (what it re-exports)."""
    parts = name.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1] if (PKG / parts[1]).is_dir() else ""


def upward_imports(read=lambda p: p.read_text(encoding="utf-8")) -> list[str]:
    rank = {u: i for i, (_, units) in enumerate(LAYERS) for u in units}
    rank["__init__"] = 0  # the package itself: its __init__ re-exports from every layer, so it sits on top
    name_of = {u: n for n, units in LAYERS for u in units}
    bad = []
    for mod, deps in sorted(module_graph(read).items()):
        u = unit_of(mod)
        if u == "__init__":  # the package's own re-exports
            continue
        for dep in sorted(deps):
            d = unit_of(dep)
            if d in rank and u in rank and rank[d] < rank[u]:
                top = "the package's re-exports" if d == "__init__" else f"{d}/ ({name_of[d]})"
                bad.append(f"{mod} ({u or 'top level'}, {name_of[u]}) imports {dep}: {top}")
    return bad


def _contents(folder: str) -> list[str]:
    here = PKG / folder if folder else PKG
    mods = sorted(p.stem for p in here.glob("*.py") if p.stem != "__init__" or not folder)
    subs = sorted(f"{d.name}/" for d in here.iterdir() if d.is_dir() and (d / "__init__.py").is_file())
    return mods + ([] if not folder else subs)


def drawing() -> str:
    """The README's block of layers, from the folders: each layer with its folders and what each holds (the claims
    and the commands by count: they are many and one of a kind each)."""
    lines = []
    for name, units in LAYERS:
        parts = []
        for u in units:
            items = _contents(u)
            if u in ("claims", "commands"):
                parts.append(f"{u}/ ({len(list((PKG / u).rglob('*.py')))} modules)")
            elif u:
                parts.append(f"{u}/: " + ", ".join(items))
            else:
                parts.append("top level: " + ", ".join(i for i in items if i != "__init__"))
        text = "; ".join(parts)
        wrapped = textwrap.wrap(text, width=118 - 16, break_on_hyphens=False) or [""]
        lines.append(f" {name:<14} {wrapped[0]}")
        lines.extend(" " * 16 + w for w in wrapped[1:])
    return "\n".join(lines) + "\n"


def readme_block(text: str) -> tuple[int, int]:
    tour = text.index("## Library tour")
    start = text.index("```\n", tour) + 4
    return start, text.index("```", start)


def test_every_folder_is_in_exactly_one_layer():
    listed = [u for _, units in LAYERS for u in units]
    assert len(listed) == len(set(listed))
    assert sorted(u for u in listed if u) == folders(), "folders no layer lists, or layers naming no folder"
    entry = sorted(p.stem for p in PKG.glob("*.py"))
    assert len(entry) <= MAX_ENTRY_MODULES, f"the top level should hold a handful of entry modules, has {entry}"


def test_the_readme_draws_the_layers_from_the_folders():
    text = README.read_text(encoding="utf-8")
    a, b = readme_block(text)
    assert text[a:b] == drawing(), "run `python properties/test_layers.py` to redraw the README's layers"


def test_no_module_imports_a_higher_layer():
    assert upward_imports() == []


def test_a_planted_upward_import_is_caught():
    planted = PKG / "core" / "graphs.py"

    def read(p):
        text = p.read_text(encoding="utf-8")
        return text + "\nfrom ..audit.report import audit_document\n" if p == planted else text

    assert upward_imports(read) == ["rgr_verify.core.graphs (core, RGR core) imports rgr_verify.audit.report: "
                                    "audit/ (audit)"]


def test_importing_the_package_itself_from_a_lower_layer_is_caught():
    planted = PKG / "core" / "graphs.py"
    for line in ("import rgr_verify", "from rgr_verify import audit", "from rgr_verify import Digraph"):
        def read(p, line=line):
            text = p.read_text(encoding="utf-8")
            return text + f"\n{line}\n" if p == planted else text

        bad = upward_imports(read)
        assert len(bad) == 1 and bad[0].startswith("rgr_verify.core.graphs (core, RGR core) imports"), (line, bad)


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


if __name__ == "__main__":  # redraw the README's layers from the folders
    text = README.read_text(encoding="utf-8")
    a, b = readme_block(text)
    README.write_text(text[:a] + drawing() + text[b:], encoding="utf-8")
    sys.stdout.write(drawing())
