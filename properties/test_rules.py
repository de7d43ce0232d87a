"""Rules fixed before the evidence: rule fingerprints, the ledger's record of them, and post hoc
marking.

- A fingerprint changes when a rule changes (a tolerance in the check, a helper it calls, a module constant it reads,
  a declared stated value) and not when only comments, docstrings or layout change.
- The ledger records ``rule=``; a claim whose rule changed since fails its test (rule_problem) until the ledger is
  updated; every ledger entry records one.
- An evidence manifest records the rules of the claims it feeds when it is added; a claim is post hoc when its rule
  is missing there, changed since, or recorded after the evidence's date.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
import textwrap

import pytest

from rgr_verify.claims import all_claims, read_ledger, write_ledger
from rgr_verify.claims.base import Claim, Kind, Stated, Status, Tier
from rgr_verify.claims.fingerprint import rule_fingerprint
from rgr_verify.claims.ledger import LedgerEntry
from rgr_verify.claims.preregistration import fed_claims, post_hoc, with_rules
from rgr_verify.runs.evidence import Manifest, manifests
from rgr_verify.testing import rule_problem

_BASE = '''
TOL = {tol}
_MEMO = {{}}


def _helper(x):
    """Docstring {doc}."""
    return x <= TOL  # a comment {doc}


def check(ctx):
    _MEMO[len(_MEMO)] = ctx  # a cache filled while the check runs is state, not rule
    return _helper(0.1)
'''


def _planted(tmp_path, name, *, tol=0.15, doc="a", layout=""):
    path = tmp_path / f"{name}.py"
    path.write_text(_BASE.format(tol=tol, doc=doc) + layout)
    modname = f"rgr_verify.claims._planted_{name}"  # inside the rule modules, so the walk follows it
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return mod


def _claim(check, expects=None):
    return Claim(id="planted-rule", ref="Sec. 3", statement="a planted rule", kind=Kind.SYMBOLIC, tier=Tier.QUICK,
                 check=check, expects=expects or {}, role="detail")


def test_fingerprint_follows_the_rule_not_its_prose(tmp_path):
    mod = _planted(tmp_path, "base")
    base = rule_fingerprint(_claim(mod.check))
    mod.check(None)
    assert rule_fingerprint(_claim(mod.check)) == base  # unchanged once the check has run and filled its cache
    prose = rule_fingerprint(_claim(_planted(tmp_path, "prose", doc="other words", layout="\n\n# trailing\n").check))
    tol = rule_fingerprint(_claim(_planted(tmp_path, "tol", tol=0.25).check))
    assert prose == base  # docstrings, comments and layout are not the rule
    assert tol != base  # a module constant the helper reads is
    stated = rule_fingerprint(_claim(_planted(tmp_path, "base2").check,
                                     {"slope": Stated(1.0, "exponent", "planted")}))
    stated2 = rule_fingerprint(_claim(_planted(tmp_path, "base3").check,
                                      {"slope": Stated(2.0, "exponent", "planted")}))
    assert stated != stated2 and base not in (stated, stated2)


_DEFAULTS = '''
TOL = {tol}


def _helper(x, tol=TOL, *, level={level}):
    return x <= tol and level < 1


def check(ctx):
    return _helper(0.1)
'''


def test_fingerprint_follows_a_tolerance_passed_as_a_default(tmp_path):
    """A tolerance or level given as a default argument (evaluated when the function is defined, so its name is not
    among the code's names) is part of the rule: changing its value, positional or keyword-only, changes the
    fingerprint (until 2026-11-28 it did not: a review found xpaper's band moved without a new fingerprint)."""
    def planted(name, tol, level):
        path = tmp_path / f"{name}.py"
        path.write_text(_DEFAULTS.format(tol=tol, level=level))
        modname = f"rgr_verify.claims._planted_defaults_{name}"
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
        return rule_fingerprint(_claim(mod.check))

    base = planted("a", 0.25, 0.05)
    assert planted("b", 0.25, 0.05) == base
    assert planted("c", 0.5, 0.05) != base  # the positional default's value
    assert planted("d", 0.25, 0.01) != base  # the keyword-only default's value


def test_fingerprint_is_stable_and_distinct_for_every_claim():
    fps = {c.id: rule_fingerprint(c) for c in all_claims()}
    assert fps == {c.id: rule_fingerprint(c) for c in all_claims()}
    assert all(len(f) == 12 for f in fps.values())
    assert len(set(fps.values())) == len(fps)


def test_ledger_records_rules_and_rejects_bad_ones(tmp_path):
    path = tmp_path / "ledger.txt"
    write_ledger({"a": Status.VERIFIED, "b": Status.REFUTED}, order=["a", "b"], path=path,
                 rules={"a": "0123456789ab"})
    led = read_ledger(path)
    assert led["a"].rule == "0123456789ab" and led["b"].rule == ""
    write_ledger({"b": Status.REFUTED}, order=["a", "b"], path=path)  # unchanged status keeps a recorded rule
    assert read_ledger(path)["a"].rule == "0123456789ab"
    path.write_text("a  verified  rule=xyz\n")
    with pytest.raises(ValueError, match="12 hex digits"):
        read_ledger(path)


def test_a_changed_rule_fails_until_the_ledger_is_updated():
    claim = next(c for c in all_claims() if c.id == "sec3-sym-dq-plus-dk")
    now = rule_fingerprint(claim)
    assert rule_problem(claim, LedgerEntry(Status.VERIFIED, "", now)) is None
    msg = rule_problem(claim, LedgerEntry(Status.VERIFIED, "", "000000000000"))
    assert "rule changed" in msg and now in msg and "--update-ledger" in msg
    assert "no rule fingerprint" in rule_problem(claim, LedgerEntry(Status.VERIFIED))


def test_every_ledger_entry_records_the_current_rule():
    fps = {c.id: rule_fingerprint(c) for c in all_claims()}
    stale = [cid for cid, e in read_ledger().items() if e.rule != fps.get(cid)]
    assert not stale, stale


def _manifest(**kw):
    base = dict(name="planted", preset="sec72-value", tier="full", runs=1, preset_runs=1, engine_versions=("7",),
                commit="x", torch="t", cuda=None, device="d", date="2026-11-20", commands=("c",), sha256="0" * 64)
    return Manifest(**{**base, **kw})


def test_post_hoc_marks_rules_missing_revised_or_recorded_late():
    claims = [c for c in all_claims() if "sec72-value" in c.replays]
    assert claims and fed_claims(_manifest(), claims) == claims
    c = claims[0]
    fixed = with_rules(_manifest(), claims, date="2026-11-20")
    assert post_hoc(c, [fixed]) is None  # recorded with the evidence, unchanged since
    assert "no rule recorded" in post_hoc(c, [_manifest()])["reason"]
    revised = dataclasses.replace(fixed, rules={**fixed.rules, c.id: "000000000000"})
    assert "revised after" in post_hoc(c, [revised])["reason"]
    late = with_rules(_manifest(), claims, date="2026-11-26")
    ph = post_hoc(c, [late])
    assert "after batch 1 of the evidence (2026-11-20" in ph["reason"] and ph["rules_date"] == "2026-11-26"
    assert post_hoc(c, [_manifest(preset="a3-regular")]) is None  # a manifest that does not feed it


def test_a_rule_written_between_two_batches_is_post_hoc_for_the_earlier_one():
    # The planted case of issue 41: a manifest's own date is its last batch's; a rule recorded between the batches
    # passed under that one date, and is post hoc once each batch is judged by its own.
    from rgr_verify.runs.batches import Batch

    claims = [c for c in all_claims() if "sec72-value" in c.replays]
    c = claims[0]
    first = Batch(date="2026-11-20", commit="a" * 40, clean=True, commands=("c1",), runs=1, seeds=(0,))
    second = Batch(date="2026-11-26", commit="b" * 40, clean=False, commands=("c2",), runs=1, seeds=(1,),
                   after="seed 1 added after a first verdict")
    two = with_rules(_manifest(date="2026-11-26", runs=2, seeds=(0, 1), batches=(first, second)), claims,
                     date="2026-11-23")
    one_date = dataclasses.replace(two, batches=())  # the manifest as it was: one date, its last batch's
    assert post_hoc(c, [one_date]) is None
    ph = post_hoc(c, [two])
    assert ph is not None and "after batch 1 of the evidence (2026-11-20, seeds 0)" in ph["reason"]
    both_late = with_rules(dataclasses.replace(two), claims, date="2026-11-19")
    assert post_hoc(c, [both_late]) is None  # recorded before both batches
    unrecorded = dataclasses.replace(both_late, batches=(dataclasses.replace(first, date=None), second))
    assert "an unrecorded date" in post_hoc(c, [unrecorded])["reason"]


def test_committed_evidence_records_the_rules_of_the_claims_it_feeds():
    # A manifest records only claims it feeds, with a date; a claim added later has no record there and is post hoc.
    for man in manifests():
        fed = {c.id for c in fed_claims(man)}
        assert man.rules and set(man.rules) <= fed and man.rules_date, man.name
    with pytest.raises(ValueError, match="ISO date"):
        with_rules(manifests()[0], date="26/11/2026")


def test_add_evidence_records_rules(tmp_path):
    from rgr_verify.runs.evidence import add_store_evidence
    from rgr_verify.runs.store import JsonlStore

    rec = {"key": "k1", "D_K": 64, "h": 1, "seed": 0, "seed_index": 0, "test_acc": 0.5, "best_val_acc": 0.5,
           "final_test_acc": 0.5, "test_null_rate": 0.0, "best_step": 1, "steps": 1, "source_description": "planted"}
    JsonlStore(tmp_path / "res", "sec73-runs.jsonl").append([rec])
    from rgr_verify.claims.preregistration import with_rules

    man = add_store_evidence(tmp_path / "res", "sec73-runs.jsonl", name="sec73-planted", label="planted",
                             directory=tmp_path / "ev", commands=["c"], rules=with_rules)
    assert man.rules and man.rules_date and set(man.rules) == {c.id for c in fed_claims(man)}
    assert all(post_hoc(c, [man]) is None for c in fed_claims(man))


def test_fingerprint_reading_of_a_format_spec_is_the_same_on_every_python():
    # Python 3.12 parses f"{x:<{w}}" with an extra empty piece in the format spec; the rendering drops it, so
    # 3.11, 3.12 and 3.13 fingerprint the same source alike (checked over every function of the package).
    import ast

    import rgr_verify.claims.fingerprint as fp

    tree = ast.parse('f"{x:<{w}} and {y}"')
    assert fp._dump(tree) == ("Module(body=[Expr(value=JoinedStr(FormattedValue(value=Name(id='x'),conversion=-1,"
                              "format_spec=JoinedStr('<',FormattedValue(value=Name(id='w'),conversion=-1,"
                              "format_spec=None))),' and ',FormattedValue(value=Name(id='y'),conversion=-1,"
                              "format_spec=None)))],type_ignores=[])")


def test_multiverse_is_robust_only_when_every_analysis_agrees_and_names_what_flips_it():
    from rgr_verify.claims.tools.multiverse import multiverse_status

    def a(base, est, status):
        return {"choices": {"log base": base, "estimator": est}, "estimate": 1.0, "interval": [0.9, 1.1],
                "status": status}

    H, I = Status.HOLDS_EMPIRICALLY, Status.INCONCLUSIVE
    st, rob = multiverse_status([a("ln", "x", H), a("log2", "x", H), a("ln", "y", H), a("log2", "y", H)])
    assert st is H and rob["robust"] and rob["analyses"] == 4 and rob["agree"] == 4 and not rob["flips"]
    st, rob = multiverse_status([a("ln", "x", H), a("log2", "x", I), a("ln", "y", H), a("log2", "y", H)])
    assert st is I and not rob["robust"] and rob["summary"].startswith("fragile: holds in 3 of 4")
    assert {f["dimension"] for f in rob["flips"]} == {"log base", "estimator"}
    assert all(f["with"] for f in rob["flips"])
    C = Status.CONTRADICTED_EMPIRICALLY
    assert multiverse_status([a("ln", "x", C), a("log2", "x", C)])[0] is C  # one standard to pass and to fail


def test_fig3_multiverse_has_every_analysis_and_a_band_that_can_fail():
    # A planted slope twice the stated one fails in every analysis whose interval is tight; the stated one holds.
    from rgr_verify.claims.paper_sec6.grid import fig3_analyses
    from rgr_verify.claims.tools.measure import R2_RANGE, R2_RANGE_ANY_HIT, R2_RANGE_CAPPED

    def reading(slope):
        return {"paper estimator (LS through origin, first passing D_K, uncensored cells)":
                {"slope": slope, "R2 centred": 0.94,
                 "grid range of the slope (cells anywhere in their D_K* interval)": [0.95 * slope, slope],
                 **{key: [0.9, 0.99] for key in (R2_RANGE, R2_RANGE_CAPPED, R2_RANGE_ANY_HIT)}},
                "interval regression, censored cells as intervals": {"slope": slope, "95% profile": [0.9 * slope,
                                                                                                     1.1 * slope]},
                "interval regression, uncensored cells only": {"slope": slope, "95% profile": [0.9 * slope,
                                                                                              1.1 * slope]}}

    ok = fig3_analyses({"ln": reading(1.19), "log2": reading(1.19)}, paper_slope=1.19, slope_factor=2 ** 0.5,
                       paper_r2=0.944, r2_tol=0.1)
    from rgr_verify.claims.tools.multiverse import DIMENSIONS

    assert len(ok) == 2 * len(DIMENSIONS["estimator"]) and all(x["status"] is Status.HOLDS_EMPIRICALLY for x in ok)
    bad = fig3_analyses({"ln": reading(2.38), "log2": reading(2.38)}, paper_slope=1.19, slope_factor=2 ** 0.5,
                        paper_r2=0.944, r2_tol=0.1)
    assert all(x["status"] is Status.CONTRADICTED_EMPIRICALLY for x in bad)


def test_law_form_rule_rejects_a_doubled_exponent_and_passes_the_law():
    import rgr_verify.claims.paper_sec6.grid as grid

    def fit(a, b):
        return {"alpha 95% profile": [a - 0.1, a + 0.1], "beta 95% profile": [b - 0.1, b + 0.1]}

    assert grid._law_status(grid._law_parts(fit(1.0, 1.0), 0.5)) is Status.HOLDS_EMPIRICALLY
    assert grid._law_status(grid._law_parts(fit(2.0, 1.0), 0.5)) is Status.CONTRADICTED_EMPIRICALLY  # m^2 law
    assert grid._law_status(grid._law_parts(fit(1.0, 0.0), 0.5)) is Status.CONTRADICTED_EMPIRICALLY  # no d_model
    assert grid._law_status(grid._law_parts(fit(1.0, 1.45), 0.5)) is Status.INCONCLUSIVE  # straddles the band
