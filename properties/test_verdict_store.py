"""The verdict store (issue 43, first slice): a claim whose key and dependencies are unchanged is not run again.

Each planted test writes a small package of its own to tmp_path (outside the rule modules, so that its rule
fingerprint cannot see the planted edits: only the traced dependencies can) and runs a claim whose check lives there,
counting the calls of the check: a reused verdict is one whose check was not called.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import json
import sys
import textwrap

import numpy as np
import pytest

from rgr_verify.audit.report import result_record
from rgr_verify.basics.settings import COMPILE_ENV
from rgr_verify.claims import all_claims
from rgr_verify.claims import verdict_store as vs
from rgr_verify.claims.base import Claim, Kind, Status, Tier, Verdict
from rgr_verify.claims.fingerprint import rule_fingerprint
from rgr_verify.claims.runner import ClaimResult, run_claim, run_claims, run_claims_parallel
from rgr_verify.claims.verdict_store import (VerdictStore, traced_files, verdict_from_json, verdict_key,
                                             verdict_to_json)

CHECKS = '''
import sys
from pathlib import Path

import numpy as np

from rgr_verify.claims.base import Status, Verdict
from .. import consts  # read below; its function never runs

CALLS = {"check": 0, "const": 0, "runs": 0, "plot": 0, "profile": []}


def check(ctx):
    CALLS["check"] += 1
    from rgr_verify.claims.verdict_store import tracing
    CALLS["profile"].append(tracing())
    from ..helpers import mid  # imported inside the body; mid calls deep: the helper two calls deep
    value = mid.compute(ctx.expect("x"))
    return Verdict(status=Status.VERIFIED if value > 0 else Status.REFUTED, paper_value=ctx.expect("x"),
                   measured_value=value, evidence_level="proved")


def check_const(ctx):
    CALLS["const"] += 1
    return Verdict(status=Status.VERIFIED, measured_value=consts.LIMIT, evidence_level="proved")


def check_runs(ctx):
    CALLS["runs"] += 1
    from ..runs import feed
    return Verdict(status=Status.VERIFIED, measured_value=feed.records(), evidence_level="proved")


def check_train(ctx):
    CALLS.setdefault("train", 0)
    CALLS["train"] += 1
    from ..engine import loop
    return Verdict(status=Status.HOLDS_EMPIRICALLY, measured_value=loop.train(3), evidence_level="sampled")


def check_lru(ctx):
    CALLS.setdefault("lru", 0)
    CALLS["lru"] += 1
    from ..helpers import cached
    return Verdict(status=Status.VERIFIED, measured_value=cached.lru(ctx.expect("x")), evidence_level="proved")


def check_memo(ctx):
    CALLS.setdefault("memo", 0)
    CALLS["memo"] += 1
    from ..helpers import cached
    return Verdict(status=Status.VERIFIED, measured_value=cached.memo(ctx.expect("x")), evidence_level="proved")


def check_plot(ctx):
    CALLS["plot"] += 1
    arts = ()
    if ctx.out_dir is not None:
        Path(ctx.out_dir).mkdir(parents=True, exist_ok=True)
        (Path(ctx.out_dir) / "plot.txt").write_text("a plot")
        arts = ("plot.txt",)
    return Verdict(status=Status.HOLDS_EMPIRICALLY, paper_value=(1, 2.5), measured_value=np.float64(0.1),
                   witness={"z": (np.int64(3), [np.float32(0.5)]), "a": float("inf")},
                   params={"n": np.int64(4), "b": {"y": 1, "x": (2,)}, "first": "kept in order"},
                   evidence="sampled", details="d", artefacts=arts, evidence_level="sampled")
'''

# A claims module: two claims declared in one CLAIMS tuple, their stated values inline; a helper beside them.
DECL = '''
from rgr_verify.claims.base import Claim, Kind, Status, Tier, Verdict

CALLS = {"one": 0, "two": 0}


def _check(name):
    def check(ctx):
        CALLS[name] += 1
        return Verdict(status=Status.VERIFIED if _positive(ctx.expect("x")) else Status.REFUTED, evidence_level="proved")
    return check


def _positive(x):
    return x > 0


CLAIMS = (
    Claim(id="planted-one", ref="Sec. 3", statement="one", kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=_check("one"),
          expects={"x": 1.0}, role="detail"),
    Claim(id="planted-two", ref="Sec. 3", statement="two", kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=_check("two"),
          expects={"x": 2.0}, role="detail"),
)
'''

# A claims module whose check reads CLAIMS (it may look at another claim's declaration): whole files count.
XREF = '''
from rgr_verify.claims.base import Claim, Kind, Status, Tier, Verdict

CALLS = {"reader": 0}


def _reader(ctx):
    CALLS["reader"] += 1
    other = CLAIMS[1].expects["x"].value
    return Verdict(status=Status.VERIFIED, measured_value=other, evidence_level="proved")


CLAIMS = (
    Claim(id="planted-reader", ref="Sec. 3", statement="r", kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=_reader,
          role="detail"),
    Claim(id="planted-read", ref="Sec. 3", statement="d", kind=Kind.SYMBOLIC, tier=Tier.QUICK,
          check=lambda ctx: Verdict(status=Status.VERIFIED, evidence_level="proved"), expects={"x": 3.0},
          role="detail"),
)
'''

# Two per-process caches of a value computed by a helper two imports away (cached -> mid -> deep): a functools
# cache (a hit runs no Python code) and a memo dict.
CACHED = '''
import functools

from . import mid

_MEMO = {}


@functools.lru_cache(maxsize=4)
def lru(x):
    return mid.compute(x)


def memo(x):
    if x not in _MEMO:
        _MEMO[x] = mid.compute(x)
    return _MEMO[x]
'''

FILES = {
    "__init__.py": "",
    "claims/__init__.py": "",
    "claims/checks.py": CHECKS,
    "helpers/__init__.py": "",
    "helpers/mid.py": "from . import deep\n\n\ndef compute(x):\n    return deep.scale(x) + 1\n",
    "helpers/deep.py": "FACTOR = 3\n\n\ndef scale(x):\n    return x * FACTOR\n",
    "consts.py": "LIMIT = 0.25\n\n\ndef never_called():\n    return LIMIT * 2\n",
    "helpers/cached.py": CACHED,
    "engine/__init__.py": "",
    "engine/loop.py": "def train(steps):\n    loss = 1.0\n    for _ in range(steps):\n        loss *= 0.5\n    return loss\n",
    "other.py": "def unused():\n    return 1\n",
    "runs/__init__.py": "",
    "runs/feed.py": "def records():\n    return 7\n",
    "claims/decl.py": DECL,
    "claims/xref.py": XREF,
    "data/table.json": '{"a": 1}\n',
    "data/evidence/sweep-full.json": '{"sha256": "aa"}\n',
}
_COUNT = itertools.count()


class Plant:
    """A planted package (its root, its check module), a verdict store over it and a runner."""

    def __init__(self, tmp_path, name):
        self.name, self.root = name, tmp_path / name
        for rel, text in FILES.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        for rel in FILES:  # every module loaded before the runs, as in a process that imported the package
            if rel.endswith(".py"):
                importlib.import_module(self.module_name(rel))
        self.checks = sys.modules[f"{name}.claims.checks"]
        self.results = tmp_path / "results"
        self.store = VerdictStore(self.results, root=self.root)

    def module_name(self, rel):
        parts = rel[:-3].split("/")
        return ".".join([self.name] + (parts[:-1] if parts[-1] == "__init__" else parts))

    def edit(self, rel, old, new):
        path = self.root / rel
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))
        if rel.endswith(".py"):
            importlib.reload(sys.modules[self.module_name(rel)])

    def claim(self, check="check", **expects):
        return Claim(id=f"planted-{check.replace('_', '-')}", ref="Sec. 3", statement="a planted claim",
                     kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=getattr(self.checks, check),
                     expects=expects or {"x": 2.0}, role="detail")

    def run(self, claim, **kwargs):
        kwargs.setdefault("store", self.store)
        return run_claim(claim, device="cpu", results_dir=self.results, evidence_dir=self.root / "data" / "evidence",
                         **kwargs)

    def calls(self, what="check"):
        return self.checks.CALLS[what]


@pytest.fixture
def plant(tmp_path, monkeypatch):
    name = f"vsplant{next(_COUNT)}_{abs(hash(str(tmp_path))) % 10**6}"
    monkeypatch.syspath_prepend(str(tmp_path))
    yield Plant(tmp_path, name)
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[mod]


def test_a_second_run_reuses_the_verdict(plant):
    c = plant.claim()
    first = plant.run(c)
    assert plant.calls() == 1 and first.reused is None and first.verdict.status is Status.VERIFIED
    second = plant.run(c)
    assert plant.calls() == 1, "the check ran again"
    assert set(second.reused) == {"commit", "date"} and second.verdict == first.verdict
    assert second.seconds == pytest.approx(first.seconds)
    deps = json.loads(plant.store.path.read_text().splitlines()[0])["deps"]
    names = {p.split("/", 1)[1] for p in deps if p.startswith(plant.name + "/")}
    # traced: the check, mid and deep; imported: consts; data: the table (no evidence: nothing went through runs/)
    assert {"claims/checks.py", "helpers/mid.py", "helpers/deep.py", "consts.py", "data/table.json"} <= names
    assert "other.py" not in names and "data/evidence/sweep-full.json" not in names


def test_a_changed_stated_value_reruns(plant):
    plant.run(plant.claim())
    plant.run(plant.claim(), expects={"x": 4.0})  # a mutant
    assert plant.calls() == 2
    plant.run(plant.claim(x=5.0))  # a changed declaration
    assert plant.calls() == 3
    assert plant.run(plant.claim()).reused is not None and plant.calls() == 3


def test_an_edit_two_calls_deep_inside_a_helper_imported_in_the_body_reruns(plant):
    c = plant.claim()
    assert plant.run(c).verdict.measured_value == 7.0
    rule = rule_fingerprint(c)
    plant.edit("helpers/deep.py", "FACTOR = 3", "FACTOR = 4")
    assert rule_fingerprint(c) == rule  # the rule cannot see it: only the traced dependencies can
    again = plant.run(c)
    assert plant.calls() == 2 and again.reused is None and again.verdict.measured_value == 9.0


def test_an_engine_edit_reruns_the_training_check_and_reuses_the_symbolic_one(plant):
    train, symbolic = plant.claim("check_train"), plant.claim("check_const")
    assert plant.run(train).verdict.measured_value == 0.125
    plant.run(symbolic)
    plant.edit("engine/loop.py", "loss *= 0.5", "loss *= 0.25")
    again = plant.run(train)
    assert again.reused is None and again.verdict.measured_value == 1 / 64
    assert plant.run(symbolic).reused is not None and plant.calls("const") == 1


def test_an_edit_to_a_module_the_check_never_touches_is_reused(plant):
    c = plant.claim()
    plant.run(c)
    plant.edit("other.py", "return 1", "return 2")
    assert plant.run(c).reused is not None and plant.calls() == 1


def test_a_changed_constant_of_a_module_whose_code_never_ran_reruns(plant):
    c = plant.claim("check_const")
    assert plant.run(c).verdict.measured_value == 0.25
    assert plant.run(c).reused is not None
    plant.edit("consts.py", "LIMIT = 0.25", "LIMIT = 0.50")  # consts ran at import, before the run: never traced
    again = plant.run(c)
    assert plant.calls("const") == 2 and again.verdict.measured_value == 0.5


def _declared(plant, module="decl"):
    return {c.id: c for c in sys.modules[f"{plant.name}.claims.{module}"].CLAIMS}


def test_a_stated_value_edited_in_a_claims_module_reruns_that_claim_only(plant, monkeypatch):
    monkeypatch.setattr(vs, "registered_ids", lambda: frozenset({"planted-one", "planted-two", "planted-reader",
                                                                  "planted-read"}))
    calls = sys.modules[f"{plant.name}.claims.decl"].CALLS
    for c in _declared(plant).values():
        plant.run(c)
    assert calls == {"one": 1, "two": 1}
    deps = json.loads(plant.store.path.read_text().splitlines()[0])["deps"]
    assert deps[f"{plant.name}/claims/decl.py"].startswith(vs.SLICE)  # one claim's slice of its module
    plant.edit("claims/decl.py", 'expects={"x": 2.0}', 'expects={"x": -2.0}')  # the author corrects claim two
    calls = sys.modules[f"{plant.name}.claims.decl"].CALLS  # the module was reloaded: counts start again
    results = {cid: plant.run(c) for cid, c in _declared(plant).items()}
    assert results["planted-one"].reused is not None and calls == {"one": 0, "two": 1}
    assert results["planted-two"].reused is None and results["planted-two"].verdict.status is Status.REFUTED
    plant.edit("claims/decl.py", "return x > 0", "return x >= 0")  # code beside the declarations: both rerun
    calls = sys.modules[f"{plant.name}.claims.decl"].CALLS
    assert all(plant.run(c).reused is None for c in _declared(plant).values()) and calls == {"one": 1, "two": 1}


def test_a_check_that_reads_claims_depends_on_every_declaration_of_the_file(plant, monkeypatch):
    monkeypatch.setattr(vs, "registered_ids", lambda: frozenset({"planted-reader", "planted-read"}))
    reader = _declared(plant, "xref")["planted-reader"]
    assert plant.run(reader).verdict.measured_value == 3.0
    plant.edit("claims/xref.py", 'expects={"x": 3.0}', 'expects={"x": 4.0}')  # the other claim's declaration
    reader = _declared(plant, "xref")["planted-reader"]
    again = plant.run(reader)
    assert again.reused is None and again.verdict.measured_value == 4.0


def test_slice_digest_cuts_other_claims_declarations_only(tmp_path):
    path = tmp_path / "mod.py"
    text = ('X = 1\nCLAIMS = (\n    make("a", 1),\n    make("b", 2),  # b\n    make("c", ref="a"),\n    OTHER,\n)\n')
    path.write_text(text)
    ids = {"a", "b", "c"}
    a, b, c = (vs.slice_digest(path, i, ids) for i in "abc")
    assert len({a, b, c}) == 3 and all(d.startswith(vs.SLICE) for d in (a, b, c))
    path.write_text(text.replace('"b", 2', '"b", 3'))
    assert vs.slice_digest(path, "a", ids) == a and vs.slice_digest(path, "b", ids) != b
    path.write_text(text.replace('"c", ref="a"', '"c", ref="a", x=1'))  # c's element names a too: a's slice keeps it
    assert vs.slice_digest(path, "a", ids) != a and vs.slice_digest(path, "b", ids) == b
    path.write_text(text.replace("X = 1", "X = 2"))
    assert all(vs.slice_digest(path, i, ids) != d for i, d in zip("abc", (a, b, c)))
    # a form feed in a line before CLAIMS (splitlines would count it as a line end, the parser does not)
    path.write_text("X = 1  # page\x0c break\n" + text[text.index("CLAIMS"):])
    fed = {i: vs.slice_digest(path, i, ids) for i in "abc"}
    path.write_text("X = 1  # page\x0c break\n" + text[text.index("CLAIMS"):].replace('"b", 2', '"b", 3'))
    assert vs.slice_digest(path, "a", ids) == fed["a"] and vs.slice_digest(path, "b", ids) != fed["b"]
    (tmp_path / "plain.py").write_text("Y = 1\n")
    assert vs.slice_digest(tmp_path / "plain.py", "a", ids) is None
    assert vs.slice_digest(tmp_path / "missing.py", "a", ids) is None


@pytest.mark.parametrize("inherit", [True, False])
@pytest.mark.parametrize("kind", ["lru", "memo"])
def test_a_value_served_from_a_cache_filled_by_another_claim_depends_on_what_filled_it(plant, kind, inherit,
                                                                                       monkeypatch):
    if not inherit:  # the planted alternative: no inheritance through caches, and the edit goes unseen
        monkeypatch.setattr(vs, "with_cache_fills", lambda traced, root=None: set(traced))
    filler = plant.claim(f"check_{kind}")
    served = dataclasses.replace(filler, id=f"planted-{kind}-served", statement="served from the cache")
    assert plant.run(filler).verdict.measured_value == 7.0  # computes mid.compute(2.0) and caches it
    assert plant.run(served).verdict.measured_value == 7.0  # served from the cache: mid's and deep's code never ran
    rec = json.loads(plant.store.path.read_text().splitlines()[-1])
    assert rec["claim"] == served.id
    assert (f"{plant.name}/helpers/deep.py" in rec["deps"]) is inherit  # inherited from the filler
    plant.edit("helpers/deep.py", "FACTOR = 3", "FACTOR = 4")
    vs.clear_caches(plant.root)  # a new process: nothing cached
    again = plant.run(served)
    assert (again.reused is None) is inherit
    if inherit:
        assert again.verdict.measured_value == 9.0


def test_a_cache_filled_untraced_is_emptied_before_a_traced_run(plant):
    vs.clear_caches(plant.root)
    c = plant.claim("check_memo")
    plant.run(c, store=None)  # fills the memo untraced (another test, a run without a store)
    assert sys.modules[f"{plant.name}.helpers.cached"]._MEMO
    served = dataclasses.replace(c, id="planted-memo-after-untraced")
    plant.run(served)
    rec = json.loads(plant.store.path.read_text().splitlines()[-1])
    assert f"{plant.name}/helpers/deep.py" in rec["deps"]  # it computed the value again, traced
    assert vs.cache_kinds(plant.root / "helpers" / "cached.py") == (True, True)
    assert vs.cache_kinds(plant.root / "helpers" / "deep.py") == (False, False)


def test_a_changed_library_version_reruns(plant, monkeypatch):
    c = plant.claim()
    plant.run(c)
    versions = vs.library_versions()
    monkeypatch.setattr(vs, "library_versions", lambda: {**versions, "sympy": "0.0.1"})
    assert plant.run(c).reused is None and plant.calls() == 2


def test_a_changed_setting_reruns(plant, monkeypatch):
    c = plant.claim()
    plant.run(c)
    monkeypatch.setenv(COMPILE_ENV, "0")
    assert plant.run(c).reused is None and plant.calls() == 2
    monkeypatch.delenv(COMPILE_ENV)
    assert plant.run(c).reused is not None and plant.calls() == 2  # the first record holds again


def test_a_changed_evidence_manifest_reruns_a_check_that_went_through_runs(plant):
    through, around = plant.claim("check_runs"), plant.claim("check_const")
    plant.run(through)
    plant.run(around)
    plant.edit("data/evidence/sweep-full.json", '"aa"', '"bb"')
    assert plant.run(through).reused is None and plant.calls("runs") == 2
    assert plant.run(around).reused is not None and plant.calls("const") == 1
    plant.edit("data/table.json", "1", "2")  # a data file of the package that is not evidence: every claim
    assert plant.run(around).reused is None and plant.calls("const") == 2


def test_the_verdict_round_trip_gives_the_same_report_entry(plant, tmp_path):
    c = plant.claim("check_plot")
    out = tmp_path / "out"
    fresh = plant.run(c, out_dir=out)
    reused = plant.run(c, out_dir=out)
    assert plant.calls("plot") == 1 and reused.reused is not None
    rec_fresh, rec_reused = result_record(fresh), result_record(reused)
    assert rec_fresh.pop("reused") is None and rec_reused.pop("reused") == reused.reused
    assert json.dumps(rec_reused) == json.dumps(rec_fresh)  # equal, keys in the same order
    assert reused.verdict.artefacts == ("plot.txt",) and reused.verdict.evidence_level == "sampled"
    (out / "plot.txt").write_text("another plot")  # the report folder is rewritten: the store keeps the plot
    again = tmp_path / "again"
    assert plant.run(c, out_dir=again).reused is not None and (again / "plot.txt").read_text() == "a plot"
    assert plant.calls("plot") == 1
    for blob in plant.store.artefact_dir.iterdir():  # a plot lost from the store: the check runs again
        blob.unlink()
    assert plant.run(c, out_dir=out).reused is None and plant.calls("plot") == 2
    assert (out / "plot.txt").read_text() == "a plot"
    assert plant.run(c).reused is None  # no plots wanted: another key
    fresh_store = VerdictStore(plant.results, root=plant.root, reuse=False)  # --fresh: runs, and records
    assert plant.run(c, out_dir=out, store=fresh_store).reused is None and plant.calls("plot") == 4
    with pytest.raises(ValueError, match="reuse"):
        VerdictStore(plant.results, root=plant.root, reuse="no")
    # the conversion itself, on a verdict with tuples, numpy scalars, nested dicts and a non-finite float
    v = fresh.verdict
    back = verdict_from_json(json.loads(json.dumps(verdict_to_json(v))))
    assert verdict_to_json(back) == verdict_to_json(v) and back.status is v.status
    assert json.dumps(result_record(ClaimResult(c, back, 1, 2, 0.5, None))) == json.dumps(
        result_record(ClaimResult(c, v, 1, 2, 0.5, None)))
    assert verdict_to_json(v)["witness"] == {"z": [3, [0.5]], "a": "inf"}
    assert list(verdict_to_json(v)["params"]) == ["n", "b", "first"]


def test_without_a_store_nothing_is_traced(plant):
    c = plant.claim()
    plant.run(c, store=None)
    assert plant.checks.CALLS["profile"][-1] is False
    plant.run(c, store=None)
    assert plant.calls() == 2 and not plant.store.path.exists()
    plant.run(c)
    assert plant.checks.CALLS["profile"][-1] is True  # with a store the check runs traced


def test_an_error_or_a_verdict_that_could_not_run_is_not_recorded(plant):
    c = plant.claim()
    plant.edit("helpers/deep.py", "return x * FACTOR", "return x / 0")
    assert plant.run(c).verdict.status is Status.ERROR
    assert plant.run(c).reused is None and plant.calls() == 2
    slow = Claim(id="planted-slow", ref="Sec. 3", statement="s", kind=Kind.SYMBOLIC, tier=Tier.FULL,
                 check=plant.checks.check, expects={"x": 2.0}, role="detail")
    assert plant.run(slow).verdict.unavailable and plant.run(slow).reused is None


def test_a_file_changed_after_it_was_loaded_or_while_the_check_ran_is_not_recorded(plant):
    c = plant.claim()
    path = plant.root / "helpers" / "deep.py"
    path.write_text(path.read_text().replace("FACTOR = 3", "FACTOR = 5"))  # edited, not reloaded: the old code runs
    assert plant.run(c).verdict.measured_value == 7.0
    assert plant.run(c).reused is None and plant.calls() == 2  # so that verdict was not kept under the new file
    plant.edit("helpers/deep.py", "FACTOR = 5", "FACTOR = 3")  # back as loaded, and reloaded
    first = plant.run(plant.claim("check_runs"))
    feed = plant.root / "runs" / "feed.py"
    plant.checks.CALLS["runs"] = 0
    original = feed.read_text()

    def check_editing(ctx):  # a dependency written while the check runs
        feed.write_text(original + "# an edit\n")
        return plant.checks.check_runs(ctx)

    editing = Claim(id="planted-editing", ref="Sec. 3", statement="e", kind=Kind.SYMBOLIC, tier=Tier.QUICK,
                    check=check_editing, role="detail")
    plant.run(editing)
    plant.run(editing)
    assert plant.calls("runs") == 2 and first.reused is None
    late = plant.root / "helpers" / "late.py"
    late_calls = []

    def check_late(ctx):  # a module written, then imported for the first time, while the check runs
        late_calls.append(1)
        late.write_text("def value():\n    return 1\n")
        return Verdict(status=Status.VERIFIED, measured_value=importlib.import_module(f"{plant.name}.helpers.late")
                       .value(), evidence_level="proved")

    writing = Claim(id="planted-late", ref="Sec. 3", statement="l", kind=Kind.SYMBOLIC, tier=Tier.QUICK,
                    check=check_late, role="detail")
    plant.run(writing)
    plant.run(writing)
    assert len(late_calls) == 2


def test_traced_files_restores_the_tracers_and_nests(tmp_path):
    before = sys.gettrace(), sys.getprofile()
    with traced_files(vs.PACKAGE_ROOT) as outer:
        with traced_files(vs.PACKAGE_ROOT) as inner:
            vs.library_versions()
        assert inner == set()  # the verdict store's own file is bookkeeping, not a dependency
        from rgr_verify.basics.settings import env

        env(COMPILE_ENV)
    assert (sys.gettrace(), sys.getprofile()) == before and not vs.tracing()
    assert any(f.endswith("settings.py") for f in outer)
    with pytest.raises(ValueError, match="root"):
        with traced_files(3):
            pass
    with pytest.raises(ValueError, match="root"):
        VerdictStore(tmp_path, root=tmp_path / "missing")
    with pytest.raises(ValueError, match="claim"):
        verdict_key("a claim", tier="quick", root_seed=1, device="cpu", expects={})


QUICK_SYMBOLIC = ("openreview-sym-uncompressed-single-head", "sec1-sym-softmax-budget",
                  "sec1-sym-lower-bound-restated")


def test_real_symbolic_claims_are_reused_with_equal_verdicts(tmp_path):
    claims = [c for c in all_claims() if c.id in QUICK_SYMBOLIC]
    assert len(claims) == 3 and all(c.kind is Kind.SYMBOLIC and c.tier is Tier.QUICK for c in claims)
    store = VerdictStore(tmp_path / "results")
    # the first run in two workers (they trace, this process records), the second in this process
    first = run_claims_parallel(claims, jobs=2, device="cpu", results_dir=tmp_path / "results", store=store)
    assert all(r.reused is None for r in first)
    second = run_claims(claims, device="cpu", results_dir=tmp_path / "results", store=store)
    assert all(r.reused is not None for r in second)
    assert [verdict_to_json(r.verdict) for r in second] == [verdict_to_json(r.verdict) for r in first]
    assert [np.isclose(r.seconds, f.seconds) for r, f in zip(second, first)] == [True] * 3


def test_a_tracer_already_in_force_keeps_its_events_while_files_are_traced():
    events = []

    def tracer(frame, event, arg):  # a debugger or coverage.py: wants the line events of what it traces
        if frame.f_code.co_name == "_traced_target":
            events.append(event)
            return tracer
        return None

    from rgr_verify.basics.settings import env

    def _traced_target():
        env(COMPILE_ENV)
        return 1

    sys.settrace(tracer)
    try:
        with traced_files(vs.PACKAGE_ROOT) as files:
            _traced_target()
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(None)
    assert "line" in events and any(f.endswith("settings.py") for f in files)
