"""Rule fingerprints, scheme 2 (issue 42): the objects a check reaches, each identified by what it is.

- A change inside a helper that a check imports inside its body changes the fingerprint (scheme 1 missed it).
- A pure move of a module (same code under another module name, importers updated), a rename of an import alias, a
  rename of a helper and prose (docstrings, comments, layout) change nothing; a changed constant, default, cycle
  member or decorator does.
- Scheme 1 stays computable and unchanged for every registered claim (against the ledger before the migration,
  against the migration's pairs after it), and the migration re-records only the rules scheme 1 still gives.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import textwrap

import pytest

from rgr_verify.claims import all_claims, read_ledger
from rgr_verify.claims.base import Claim, Kind, Stated, Tier
from rgr_verify.claims.fingerprint import ACTIVE_SCHEME, FINGERPRINT_SCHEME, SCHEMES, rule_fingerprint, rule_reach
from rgr_verify.claims.fingerprint_migration import migrate, read_pairs, run

PKG = "rgr_verify.claims"  # inside the rule modules, so that the walk follows the planted code

HELPER = '''
TOL = {tol}


def {name}(x, *, level={level}):
    """Docstring {doc}."""
    return x {op} TOL and level < 1  # a comment {doc}
'''


@pytest.fixture
def load(tmp_path, monkeypatch):
    """load(module name, source): the module, written to a file of its own and registered under rgr_verify.claims
    for the test only."""
    count = [0]

    def _load(name, source):
        count[0] += 1
        path = tmp_path / f"f{count[0]}_{name.replace('.', '_')}.py"
        path.write_text(textwrap.dedent(source))
        modname = f"{PKG}.{name}"
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, modname, mod)
        spec.loader.exec_module(mod)
        return mod

    return _load


def helper_source(*, tol=0.15, level=0.05, name="helper", op="<=", doc="a"):
    return HELPER.format(tol=tol, level=level, name=name, op=op, doc=doc)


def check_source(imp, call="helper"):
    return f"def check(ctx):\n    {imp}\n    return {call}(0.1)\n"


def claim(check, expects=None):
    return Claim(id="planted-rule", ref="Sec. 3", statement="a planted rule", kind=Kind.SYMBOLIC, tier=Tier.QUICK,
                 check=check, expects=expects or {}, role="detail")


def fp(mod, scheme=2):
    return rule_fingerprint(claim(mod.check), scheme=scheme)


def test_the_schemes_and_the_default():
    assert FINGERPRINT_SCHEME == 3 and ACTIVE_SCHEME in SCHEMES == (1, 2, 3)
    c = all_claims()[0]
    assert rule_fingerprint(c) == rule_fingerprint(c, scheme=ACTIVE_SCHEME)
    assert rule_fingerprint(c, scheme=1) != rule_fingerprint(c, scheme=2)
    with pytest.raises(ValueError, match="scheme"):
        rule_fingerprint(c, scheme=4)


TABLE = '''
{first}


{second}


TABLE = {table}


def check(ctx):
    return [f(1) for f in TABLE] + sorted(TABLE.values()) + sorted(g(2) for g in SET)


SET = {set_}
'''
A = "def a(x):\n    return x + 1"
B = "def b(x):\n    return x * {k}"


def test_scheme_3_orders_a_table_of_functions_by_content_not_by_allocation(load):
    # Scheme 2 sorted a dict or set holding rule functions by their placeholders, i.e. by memory address, so a
    # table keyed by decision functions could change its fingerprint with the order objects were allocated in (it
    # did for 7 Sec. 7.3 claims when modules moved). Scheme 3: the same functions in another order, or defined in
    # another order, give one fingerprint; a changed function changes it.
    one = load("table_one", TABLE.format(first=A, second=B.format(k=2), table="{a: 1, b: 2}", set_="{a, b}"))
    two = load("table_two", TABLE.format(first=B.format(k=2), second=A, table="{b: 2, a: 1}", set_="{b, a}"))
    other = load("table_three", TABLE.format(first=A, second=B.format(k=3), table="{a: 1, b: 2}", set_="{a, b}"))
    assert fp(one, 3) == fp(two, 3) != fp(other, 3)


def test_scheme_2_to_3_pairs_hold_for_every_registered_claim():
    """The second migration's pairs are [scheme 2, scheme 3] of each claim; they differ only where a rule holds a
    dict or set of rule functions (7 claims of Sec. 7.3), and every ledger rule is its claim's scheme-3 fingerprint
    where the pair's new value is recorded."""
    claims = {c.id: c for c in all_claims()}
    pairs, ledger = read_pairs(to_scheme=3), read_ledger()
    assert len(pairs) >= 290
    moved = sorted(cid for cid, (old, new) in pairs.items() if old != new)
    assert len(moved) == 7 and all(cid.startswith(("sec73-", "fig7-")) for cid in moved), moved
    kept = [cid for cid, (_old, new) in pairs.items() if cid in ledger and ledger[cid].rule == new and cid in claims]
    assert len(kept) >= 0.9 * len(pairs)
    assert {cid: rule_fingerprint(claims[cid], scheme=3) for cid in kept} == {cid: ledger[cid].rule for cid in kept}


def test_a_change_inside_a_locally_imported_helper_changes_the_fingerprint(load):
    load("_fps1_helpers", helper_source())
    chk = load("_fps1_check", check_source("from ._fps1_helpers import helper"))
    base, base1 = fp(chk), fp(chk, 1)
    assert f"{PKG}._fps1_helpers:helper" in rule_reach(claim(chk.check), scheme=2)
    assert f"{PKG}._fps1_helpers:helper" not in rule_reach(claim(chk.check), scheme=1)
    load("_fps1_helpers", helper_source(op="<"))  # the planted change: the same module, its rule changed
    assert fp(chk) != base
    assert fp(chk, 1) == base1  # what scheme 1 missed: it never followed an import inside a function
    load("_fps1_helpers", helper_source())
    assert fp(chk) == base  # and back


def test_a_pure_move_of_a_module_changes_no_fingerprint(load):
    load("_fps2_stats", helper_source())
    before = load("_fps2_check", check_source("from ._fps2_stats import helper"))
    load("tools._fps2_moved", helper_source())  # the same code in another package of the rule modules
    moved = load("_fps2_check_b", check_source("from .tools._fps2_moved import helper"))
    absolute = load("_fps2_check_c", check_source(f"from {PKG}.tools._fps2_moved import helper"))
    assert fp(before) == fp(moved) == fp(absolute)
    assert fp(before, 1) != fp(moved, 1)  # scheme 1 hashed the import line, module path included
    # measurement code imported by a relative or an absolute path: one rule (the old top-level paths,
    # rgr_verify.replay and the like, were removed once scheme 2 made moves free)
    old = load("_fps2_old", check_source("from rgr_verify.runs.replay import claim_records", "claim_records"))
    new = load("_fps2_new", check_source("from ..runs.replay import claim_records", "claim_records"))
    assert fp(old) == fp(new) and fp(old, 1) != fp(new, 1)


def test_a_rename_of_the_import_alias_changes_nothing(load):
    load("_fps3_h", helper_source())
    plain = fp(load("_fps3_c0", check_source("from ._fps3_h import helper")))
    judge = fp(load("_fps3_c1", check_source("from ._fps3_h import helper as judge", "judge")))
    rule = fp(load("_fps3_c2", check_source("from ._fps3_h import helper as rule_of", "rule_of")))
    assert plain == judge == rule
    # the module bound under any name, absolute or relative: one fingerprint
    via = [fp(load(f"_fps3_m{i}", check_source(imp, f"{alias}.helper")))
           for i, (imp, alias) in enumerate([(f"import {PKG}._fps3_h as m", "m"),
                                              (f"from {PKG} import _fps3_h as other", "other"),
                                              ("from . import _fps3_h", "_fps3_h")])]
    assert len(set(via)) == 1


def test_a_rename_of_a_helper_is_spelling_not_rule(load):
    load("_fps4_a", helper_source())
    load("_fps4_b", helper_source(name="within_tolerance"))
    a = fp(load("_fps4_ca", check_source("from ._fps4_a import helper")))
    b = fp(load("_fps4_cb", check_source("from ._fps4_b import within_tolerance", "within_tolerance")))
    assert a == b


def test_a_constant_or_default_the_helper_reads_changes_it(load):
    load("_fps5_h", helper_source())
    chk = load("_fps5_c", check_source("from ._fps5_h import helper"))
    base = fp(chk)
    load("_fps5_h", helper_source(tol=0.25))
    assert fp(chk) != base  # the module constant TOL
    load("_fps5_h", helper_source(level=0.01))
    assert fp(chk) != base  # the keyword-only default
    load("_fps5_h", helper_source(doc="other words\n\n# trailing"))
    assert fp(chk) == base  # docstrings, comments and layout are not the rule


def test_stated_values_and_caches(load):
    mod = load("_fps6", helper_source() + "\n_MEMO = {}\n\n\ndef check(ctx):\n    _MEMO[len(_MEMO)] = ctx\n"
                                           "    return helper(0.1)\n")
    base = fp(mod)
    mod.check(None)
    assert fp(mod) == base  # a cache filled while the check runs is state, not rule
    one = rule_fingerprint(claim(mod.check, {"slope": Stated(1.0, "exponent", "planted")}), scheme=2)
    two = rule_fingerprint(claim(mod.check, {"slope": Stated(2.0, "exponent", "planted")}), scheme=2)
    assert len({base, one, two}) == 3


CYCLE = '''
STEP = {step}


def {even}(n):
    return True if n == 0 else {odd}(n - 1)


def {odd}(n):
    return False if n == 0 else {even}(n - STEP)


def check(ctx):
    return {even}(4)
'''


def test_functions_that_call_each_other(load):
    def cyc(name, step=1, even="even", odd="odd"):
        return fp(load(name, CYCLE.format(step=step, even=even, odd=odd)))

    base = cyc("_fps7_a")
    assert cyc("_fps7_b", even="is_even", odd="is_odd") == base  # renamed: the same rule
    assert cyc("_fps7_c", step=2) != base  # a constant read inside the cycle


DECORATED = '''
import functools


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return {wrapper_body}

    return wrapper


@traced
def helper(x):
    return x <= {tol}


FIRST, SECOND = (lambda x: x <= 0.1), (lambda x: x <= 0.2)


def check(ctx):
    return helper(0.1) and functools.partial(helper)(0.2) and {which}(0.1)
'''


def test_decorators_partials_and_lambdas(load):
    def dec(name, wrapper_body="fn(*args)", tol=0.15, which="FIRST"):
        return fp(load(name, DECORATED.format(wrapper_body=wrapper_body, tol=tol, which=which)))

    base = dec("_fps8_a")
    assert dec("_fps8_b") == base
    assert dec("_fps8_c", tol=0.25) != base  # inside the decorated function
    assert dec("_fps8_d", wrapper_body="not fn(*args)") != base  # the decorator of ours
    assert dec("_fps8_e", which="SECOND") != base  # the other lambda of the same line (the name is no part of it)


def test_scheme_2_is_stable_and_distinct_for_every_claim():
    claims = all_claims()
    fps = {c.id: rule_fingerprint(c, scheme=2) for c in claims}
    assert fps == {c.id: rule_fingerprint(c, scheme=2) for c in claims}
    assert all(len(f) == 12 for f in fps.values()) and len(set(fps.values())) == len(fps)


def test_scheme_2_covers_what_scheme_1_did():
    for c in all_claims():
        assert set(rule_reach(c, scheme=1)) <= set(rule_reach(c, scheme=2)), c.id


def test_scheme_1_is_unchanged_for_every_registered_claim():
    """Scheme 1 gave what was recorded under it until the migration (checked then, with the ledger). Afterwards it is
    history, and brittle by design: removing the old import paths (rgr_verify.replay and the like) changed the
    scheme-1 fingerprint of the claims importing them and no scheme-2 one. What stays checkable: each pair of the
    migration is [scheme 1, scheme 2] of one claim, and every ledger rule still equal to its pair's scheme-2 value is
    that claim's fingerprint now."""
    claims = {c.id: c for c in all_claims()}
    if ACTIVE_SCHEME == 1:
        recorded = {cid: e.rule for cid, e in read_ledger().items() if e.rule and cid in claims}
        assert recorded and all(rule_fingerprint(claims[cid], scheme=1) == fp_ for cid, fp_ in recorded.items())
        return
    pairs, ledger = read_pairs(), read_ledger()
    assert len(pairs) >= 290 and all(len(old) == len(new) == 12 and old != new for old, new in pairs.values())
    kept = [cid for cid, (_old, new) in pairs.items() if cid in ledger and ledger[cid].rule == new]
    assert len(kept) >= 0.9 * len(pairs)
    assert {cid: rule_fingerprint(claims[cid], scheme=2) for cid in kept if cid in claims} == \
        {cid: ledger[cid].rule for cid in kept if cid in claims}


def _toy(claims):
    c1, c2 = claims
    s1 = rule_fingerprint(c1, scheme=1)
    ledger = (f"# header\n{c1.id}  verified  rule={s1}  # a note with rule=000000000000\n"
              f"{c2.id}  refuted   rule=000000000000\ngone-claim  verified  rule={s1}\n{c2.id}-x  verified\n")
    manifest = json.dumps({"name": "toy", "rules": {c1.id: s1, c2.id: "000000000000"}, "rules_date": "2026-11-26",
                           "notes": "caf\u00e9"}, indent=2) + "\n"
    return ledger, manifest, s1, rule_fingerprint(c1, scheme=2)


def test_migration_re_records_only_the_rules_scheme_1_still_gives():
    claims = all_claims()[:2]
    ledger, manifest, s1, s2 = _toy(claims)
    new_ledger, new_manifests, pairs = migrate(ledger, {"toy": manifest}, claims)
    assert pairs == {claims[0].id: [s1, s2]}
    assert new_ledger == ledger.replace(f"verified  rule={s1}  # a note", f"verified  rule={s2}  # a note", 1)
    assert new_manifests["toy"] == manifest.replace(f'"{s1}"', f'"{s2}"')
    assert json.loads(new_manifests["toy"])["rules"] == {claims[0].id: s2, claims[1].id: "000000000000"}
    again = migrate(new_ledger, new_manifests, claims)  # once: a second run changes nothing
    assert again == (new_ledger, new_manifests, {})


def test_migration_writes_once(tmp_path):
    claims = all_claims()[:2]
    ledger, manifest, s1, s2 = _toy(claims)
    (tmp_path / "ledger.txt").write_text(ledger)
    (tmp_path / "ev").mkdir()
    (tmp_path / "ev" / "toy.json").write_text(manifest)
    kw = dict(ledger_path=tmp_path / "ledger.txt", evidence_dir=tmp_path / "ev", pairs_path=tmp_path / "pairs.json")
    dry = run(**kw)
    assert not dry["written"] and (tmp_path / "ledger.txt").read_text() == ledger
    assert dry["ledger_rules"] == 1 and dry["manifest_rules"] == {"toy": 1} and dry["pairs"] == 1
    assert {(cid, where) for cid, where, _ in dry["left"]} == {(claims[1].id, "ledger"), ("gone-claim", "ledger"),
                                                                (claims[1].id, "toy")}
    assert run(write=True, date="2026-11-29", **kw)["written"]
    assert read_pairs(tmp_path / "pairs.json") == {claims[0].id: [s1, s2]}
    assert read_ledger(tmp_path / "ledger.txt")[claims[0].id].rule == s2
    assert json.loads((tmp_path / "ev" / "toy.json").read_text())["rules"][claims[0].id] == s2
    with pytest.raises(ValueError, match="written once"):
        run(write=True, **kw)


def test_the_ledger_records_the_scheme_it_was_computed_with(tmp_path):
    # Issue 42: a scheme version in the ledger. The committed ledger is of the active scheme; a ledger written now
    # says so; one without the line is of scheme 1 (written before schemes were recorded).
    from rgr_verify.claims.base import Status
    from rgr_verify.claims.fingerprint import ACTIVE_SCHEME
    from rgr_verify.claims.ledger import ledger_scheme, read_ledger, write_ledger

    assert ledger_scheme() == ACTIVE_SCHEME == 3
    path = tmp_path / "ledger.txt"
    write_ledger({"a": Status.VERIFIED}, order=["a"], path=path, rules={"a": "0123456789ab"})
    assert ledger_scheme(path) == ACTIVE_SCHEME and read_ledger(path)["a"].rule == "0123456789ab"
    path.write_text("a  verified  rule=0123456789ab\n")
    assert ledger_scheme(path) == 1
