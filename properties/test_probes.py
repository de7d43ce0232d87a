"""Function-entry probes (rgr_verify.claims.probes): how the verdict store sees, before Python 3.12, which functions
of the package started, without a trace function (issue 43: a cold audit at most 10 % slower for its recording).

Each test writes a small package of its own under tmp_path and probes that folder (a new root: its modules are
loaded before the probes, as the package's are in a process that imported it, or after them, through the finder).
"""

from __future__ import annotations

import importlib
import itertools
import subprocess
import sys
import textwrap
import threading

import pytest

from rgr_verify.claims import probes
from rgr_verify.claims.probes import PROBE, Site

MOD = '''
"""A module loaded before the probes."""
import functools

LIMIT = 3


def plain(x):
    """Its docstring stays."""
    return x + 1


@functools.lru_cache(maxsize=None)
def cached(x):
    return x * 2


def outer(x):
    def inner(y):
        return y - x
    return inner


class Box:
    def method(self):
        return LIMIT

    @staticmethod
    def static():
        return 2

    @property
    def prop(self):
        return 5


def gen(n):
    yield from range(n)


TABLE = {"f": lambda v: v * 10}


def failing():
    x = 1
    raise RuntimeError("line five of failing")
'''

LATE = "def late(x):\n    return x * 3\n"
_COUNT = itertools.count()


def package(tmp_path, monkeypatch, prefix: str, files: dict):
    """A new package under tmp_path holding ``files`` ({name: text}), importable: (its name, its folder)."""
    name = f"{prefix}{next(_COUNT)}_{abs(hash(str(tmp_path))) % 10**6}"
    root = tmp_path / name
    root.mkdir()
    for rel, text in {"__init__.py": "", **files}.items():
        (root / rel).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name, root


@pytest.fixture
def pkg(tmp_path, monkeypatch):
    name, root = package(tmp_path, monkeypatch, "prplant", {"mod.py": MOD, "late.py": LATE})
    mod = importlib.import_module(f"{name}.mod")
    made_before = mod.outer(1)  # a closure made before the probes: it gets them too
    yield name, root, mod, made_before
    for m in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[m]


def started(root) -> dict:
    """{first line: count} of the probed functions of ``root`` that started since the last drain (None: unprobed)."""
    out = {}
    for site in probes.drain():
        if site.co_filename.startswith(str(root)):
            out.setdefault(site.co_filename.rsplit("/", 1)[-1], set()).add(site.co_firstlineno)
    return out


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_every_kind_of_function_loaded_before_the_probes_reports_its_start(pkg):
    name, root, mod, made_before = pkg
    probes.install(root)
    probes.drain()
    assert started(root) == {}
    mod.plain(1), mod.cached(4), made_before(3), mod.Box().method(), mod.Box.static(), mod.Box().prop
    list(mod.gen(2))
    assert started(root) == {"mod.py": {line_of(MOD, "def plain"), line_of(MOD, "@functools.lru_cache"),
                                        line_of(MOD, "def inner"), line_of(MOD, "def method"),
                                        line_of(MOD, "@staticmethod"), line_of(MOD, "@property"),
                                        line_of(MOD, "def gen")}}
    mod.cached(4)  # a cache hit runs no code of the module
    assert started(root) == {}
    assert mod.plain.__doc__ == "Its docstring stays." and mod.plain(1) == 2 and mod.cached.__wrapped__(2) == 4
    assert PROBE in mod.plain.__code__.co_names and mod.__dict__[PROBE] is mod.outer.__globals__[PROBE]


def test_probes_move_no_line_and_a_module_imported_afterwards_has_them(pkg):
    name, root, mod, _ = pkg
    probes.install(root)
    with pytest.raises(RuntimeError) as err:
        mod.failing()
    assert err.value.__traceback__.tb_next.tb_lineno == line_of(MOD, 'raise RuntimeError')
    assert mod.plain.__code__.co_firstlineno == line_of(MOD, "def plain")
    probes.drain()
    late = importlib.import_module(f"{name}.late")  # after install: through the finder
    assert PROBE in late.late.__code__.co_names and late.late(2) == 6
    assert started(root) == {"late.py": {1}}


def test_a_thread_s_functions_are_seen(pkg):
    name, root, mod, _ = pkg
    probes.install(root)
    probes.drain()
    t = threading.Thread(target=mod.plain, args=(1,))
    t.start()
    t.join()
    assert started(root) == {"mod.py": {line_of(MOD, "def plain")}}


def test_a_file_changed_after_it_was_loaded_is_unprobed_and_always_reported(pkg):
    # planted: the source on disk is not what runs; matching the new source's code would leave the old functions
    # without probes, running unseen
    name, root, mod, _ = pkg
    (root / "mod.py").write_text(MOD.replace("return x + 1", "return x + 2"))
    probes.install(root)
    assert str(root / "mod.py") in probes.unprobed_files()
    assert started(root) == {"mod.py": {None}}
    assert started(root) == {"mod.py": {None}}  # every time, whether or not its code ran


DRIVER = """
from rgr_verify.claims import probes


def drive(root):
    probes.install(root)  # this frame has the old code, and makes a closure after it
    def later():
        return 1
    return later


def plain(root):
    probes.install(root)
    return [i for i in range(2)]
"""


def driver_package(tmp_path, monkeypatch):
    name, root = package(tmp_path, monkeypatch, "prstack", {"driver.py": DRIVER})
    return root, importlib.import_module(f"{name}.driver")


def test_a_frame_on_the_stack_that_makes_functions_leaves_its_file_unprobed(tmp_path, monkeypatch):
    root, driver = driver_package(tmp_path, monkeypatch)
    driver.plain(root)  # a comprehension makes no function that could run unseen
    assert str(root / "driver.py") not in probes.unprobed_files()
    root, driver = driver_package(tmp_path, monkeypatch)
    later = driver.drive(root)
    assert str(root / "driver.py") in probes.unprobed_files() and PROBE not in later.__code__.co_names


STEP = """
import torch


def scale(x):
    return x * 2


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return scale(x)

    @staticmethod
    def backward(ctx, grad):
        return scale(grad)


def loss(x):
    return (Double.apply(torch.sin(x))).sum()
"""


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.compile's own (as in empirical/test_sec73_v3_compile)
def test_torch_compile_with_fullgraph_traces_probed_functions_and_an_autograd_function(tmp_path, monkeypatch):
    # planted alternative: an unguarded store inside an autograd.Function's forward is a side effect torch.compile
    # refuses (the Sec. 7.3 v3 block's slot scores failed so under fullgraph=True once a claim had probed them)
    torch = pytest.importorskip("torch")
    name, root = package(tmp_path, monkeypatch, "prtorch", {"step.py": STEP})
    probes.install(root)
    step = importlib.import_module(f"{name}.step")
    assert step.__dict__[probes.GUARD] is torch.compiler.is_compiling
    compiled = torch.compile(step.loss, fullgraph=True, backend="eager")
    x = torch.linspace(0, 1, 5, requires_grad=True)
    probes.drain()
    compiled(x).backward()  # compiled code runs no frame of the functions it traced
    assert started(root) == {}
    eager = step.loss(x)
    eager.backward()
    assert torch.equal(compiled(x), eager)
    assert started(root) == {"step.py": {line_of(STEP, "def scale"), line_of(STEP, "def forward") - 1,
                                         line_of(STEP, "def backward") - 1, line_of(STEP, "def loss")}}


def test_rule_fingerprints_are_the_same_with_and_without_probes():
    # planted alternative: the fingerprint read the probe's list as one of the rule's constants (scheme 1 reads
    # every global name a rule's code uses)
    script = textwrap.dedent("""
        import json, sys
        from rgr_verify.claims import all_claims, probes
        from rgr_verify.claims.fingerprint import rule_fingerprint
        from rgr_verify.claims.verdict_store import PACKAGE_ROOT
        claims = all_claims()
        if sys.argv[1] == "probed":
            probes.install(PACKAGE_ROOT)
            assert not probes.unprobed_files(), probes.unprobed_files()
        print(json.dumps({c.id: [rule_fingerprint(c, s) for s in (1, 3)] for c in claims[::7]}))
        """)
    out = [subprocess.run([sys.executable, "-c", script, how], capture_output=True, text=True, check=True).stdout
           for how in ("plain", "probed")]
    assert out[0] == out[1] and len(out[0]) > 100


def test_site_is_what_the_verdict_store_reads():
    assert Site("a.py", 3).co_filename == "a.py" and Site("a.py", None).co_firstlineno is None
    code = probes.probed_source("def f():\n    '''doc'''\n    return 1\n", "<probe-test>")
    ns: dict = {PROBE: [0] * 100000}
    exec(code, ns)
    assert ns["f"]() == 1 and ns["f"].__doc__ == "doc"
    assert sum(ns[PROBE]) == 1
