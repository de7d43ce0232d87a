# `rgr-verify mutate`: mutants of a claim's stated values, killed / survived / excluded, the score and its JSON,
# on synthetic claims whose checks read ctx.expect (module-level checks, so that spawned workers can unpickle them).
import json

import pytest

import rgr_verify.commands.mutate as mutate_cmd
from rgr_verify.claims.base import Claim, Stated, Status, Verdict
from rgr_verify.cli import main
from rgr_verify.audit.mutate import EXCLUDED, KILLED, SURVIVED, mutants, not_mutated, run_mutation

MEASURED_C, MEASURED_SLOPE, MEASURED_GAP, BOUND = 64, 1.03, 3.0, 5.0


def _status(ok: bool) -> Verdict:
    return Verdict(Status.VERIFIED if ok else Status.REFUTED)


def _holds(lhs, rel, rhs) -> bool:
    return {"<": lhs < rhs, "<=": lhs <= rhs, ">": lhs > rhs, ">=": lhs >= rhs, "==": lhs == rhs}[rel]


def _sensitive(ctx):  # compares every stated value with a measurement: any wrong value changes the status
    c, slope = ctx.expect("C"), ctx.expect("slope")
    return _status(abs(MEASURED_C - c) <= 0.1 * c and abs(MEASURED_SLOPE - slope) < 0.2
                   and _holds(MEASURED_GAP, ctx.expect("dir"), BOUND))


def _insensitive(ctx):  # only uses the sign of C: x2 and x1/2 survive
    return _status(ctx.expect("C") > 0)


def _strict(ctx):  # a strict relation
    return _status(_holds(MEASURED_GAP, ctx.expect("rel"), BOUND))


def _fragile(ctx):  # n must be an int (n/2 = 1.5 breaks it) and at most 4 here (n*2 cannot run)
    n = ctx.expect("n")
    if n > 4:
        return Verdict.not_run("needs a larger machine")
    return _status(len(list(range(n))) == 3)


def _broken(ctx):
    raise RuntimeError("baseline breaks")


def _absent(ctx):
    return Verdict.not_run("no GPU here")


def _claim(cid, check, expects):
    return Claim(id=cid, ref="Sec. 3", statement="synthetic", kind="deterministic", tier="quick", check=check,
                 expects=expects)


SENSITIVE = _claim("syn-sensitive", _sensitive,
                   {"C": 64, "slope": Stated(1.0, "exponent"), "dir": Stated("<=", "relation")})
INSENSITIVE = _claim("syn-insensitive", _insensitive, {"C": Stated(64, "constant")})
STRICT = _claim("syn-strict", _strict, {"rel": "<"})
FRAGILE = _claim("syn-fragile", _fragile, {"n": 3})


def test_mutants_of_each_kind_and_ints_stay_ints():
    got = {m.id: m.mutated for m in mutants(SENSITIVE)}
    assert got == {"syn-sensitive:C*2": 128, "syn-sensitive:C/2": 32, "syn-sensitive:slope+1": 2.0,
                   "syn-sensitive:slope-1": 0.0, "syn-sensitive:dir~flip": ">="}
    assert type(got["syn-sensitive:C*2"]) is int and type(got["syn-sensitive:C/2"]) is int
    odd = {m.op: m.mutated for m in mutants(_claim("syn-odd", _insensitive, {"C": 3, "e": Stated(2, "exponent")}))}
    assert odd == {"*2": 6, "/2": 1.5, "+1": 3, "-1": 1} and type(odd["*2"]) is int and type(odd["+1"]) is int
    assert [m.mutated for m in mutants(_claim("syn-float", _insensitive, {"C": 2.0}))] == [4.0, 1.0]
    assert all(type(m.mutated) is float for m in mutants(_claim("syn-float", _insensitive, {"C": 2.0})))
    assert {m.mutated for m in mutants(_claim("syn-rel", _strict, {"a": "<", "b": ">", "c": ">="}))} == {">", "<", "<="}


def test_equality_and_zero_give_no_mutant_and_say_why():
    claim = _claim("syn-none", _insensitive, {"C": 0, "rel": "=="})
    assert mutants(claim) == []
    assert [name for name, _ in not_mutated(claim)] == ["C", "rel"]
    res = run_mutation([claim], jobs=1, device="cpu")
    assert res.score is None and res.rows[0].baseline is None and res.rows[0].skipped.startswith("no mutant")


def test_sensitive_check_kills_every_mutant_insensitive_one_leaves_survivors():
    res = run_mutation([SENSITIVE, INSENSITIVE, STRICT], jobs=1, device="cpu")
    rows = {r.claim_id: r for r in res.rows}
    assert rows["syn-sensitive"].baseline is Status.VERIFIED
    assert rows["syn-sensitive"].killed == 5 and rows["syn-sensitive"].survivors == []
    assert rows["syn-insensitive"].killed == 0 and len(rows["syn-insensitive"].survivors) == 2
    assert rows["syn-strict"].killed == 1  # "<" -> ">" flips the verdict
    assert (res.killed, res.mutants) == (6, 8) and res.score == pytest.approx(0.75)
    assert {s["id"] for s in res.survivors} == {"syn-insensitive:C*2", "syn-insensitive:C/2"}
    assert all(s["claim"] == "syn-insensitive" and s["baseline"] == "verified" for s in res.survivors)


def test_errors_and_unavailable_are_excluded_not_counted():
    claims = [FRAGILE, _claim("syn-broken", _broken, {"C": 64}), _claim("syn-absent", _absent, {"C": 64})]
    res = run_mutation(claims, jobs=1, device="cpu")
    rows = {r.claim_id: r for r in res.rows}
    outcomes = {o.mutant.op: o for o in rows["syn-fragile"].outcomes}
    assert outcomes["/2"].outcome == EXCLUDED and outcomes["/2"].status is Status.ERROR  # range(1.5)
    assert outcomes["*2"].outcome == EXCLUDED and "needs a larger machine" in outcomes["*2"].reason
    assert rows["syn-broken"].skipped.startswith("baseline check errors") and rows["syn-broken"].outcomes == ()
    assert rows["syn-absent"].skipped.startswith("baseline not run here")
    assert res.mutants == 0 and res.killed == 0 and res.score is None
    excluded = {(e["what"], e["id"]) for e in res.excluded}
    assert {("mutant", "syn-fragile:n*2"), ("mutant", "syn-fragile:n/2"), ("claim", "syn-broken"),
            ("claim", "syn-absent")} <= excluded


def test_json_has_the_issue_keys_and_is_serialisable():
    res = run_mutation([SENSITIVE, INSENSITIVE, _claim("syn-plain", _insensitive, {})], jobs=1, device="cpu")
    doc = json.loads(json.dumps(res.to_json()))
    assert list(doc)[:4] == ["score", "mutants", "killed", "survivors"]
    assert {"by_claim", "excluded"} <= set(doc) and doc["without_expects"] == 1
    assert doc["score"] == pytest.approx(5 / 7) and doc["mutants"] == 7 and doc["killed"] == 5
    assert [r["claim"] for r in doc["by_claim"]] == ["syn-sensitive", "syn-insensitive"]
    parts = doc["by_baseline"]  # the score's parts by the baseline's status add up to it
    assert sum(p["killed"] for p in parts.values()) == 5 and sum(p["mutants"] for p in parts.values()) == 7
    assert {KILLED, SURVIVED, EXCLUDED} == {"killed", "survived", "excluded"}


def _strip_seconds(doc):
    for row in doc["by_claim"]:
        row.pop("seconds")
    return doc


def test_jobs_do_not_change_the_result():
    claims = [SENSITIVE, INSENSITIVE, FRAGILE]
    one = run_mutation(claims, jobs=1, device="cpu", root_seed=11)
    two = run_mutation(claims, jobs=2, device="cpu", root_seed=11)
    assert _strip_seconds(two.to_json()) == _strip_seconds(one.to_json())


@pytest.mark.parametrize("kwargs, message", [
    (dict(jobs=0), "jobs"), (dict(tier="fast"), "tier"), (dict(root_seed=-1), "root_seed"),
    (dict(device="tpu"), "device"), (dict(progress=3), "progress"), (dict(results_dir=3), "results_dir"),
])
def test_run_mutation_validates_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        run_mutation([SENSITIVE], **kwargs)


def test_run_mutation_validates_claims():
    with pytest.raises(ValueError, match="distinct"):
        run_mutation([SENSITIVE, SENSITIVE])
    with pytest.raises(ValueError, match="Claim"):
        run_mutation(["syn-sensitive"])
    with pytest.raises(ValueError, match="Claim"):
        mutants("syn-sensitive")


def test_cli_prints_table_score_survivors_and_writes_json(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(mutate_cmd, "select_claims", lambda only, tier, paper: (SENSITIVE, INSENSITIVE))
    out = tmp_path / "m.json"
    assert main(["mutate", "--jobs", "1", "--device", "cpu", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "score: 0.714" in text and "syn-insensitive:C*2" in text and "syn-sensitive" in text
    assert json.loads(out.read_text())["killed"] == 5


def test_cli_without_stated_values_reports_score_none(tmp_path, capsys, monkeypatch):
    plain = _claim("syn-plain", _insensitive, {})
    monkeypatch.setattr(mutate_cmd, "select_claims", lambda only, tier, paper: (plain,))
    out = tmp_path / "m.json"
    assert main(["mutate", "--jobs", "1", "--device", "cpu", "--json", str(out)]) == 0
    assert "nothing to mutate" in capsys.readouterr().out
    assert json.loads(out.read_text())["score"] is None


@pytest.mark.parametrize("argv, message", [
    (["--jobs", "0"], "--jobs"), (["--tier", "fast"], "--tier"), (["--seed", "x"], "--seed"),
    (["--device", "tpu"], "--device"), (["--json", "/nonexistent-dir/m.json"], "--json"),
])
def test_cli_bad_usage_is_one_line_exit_2(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(mutate_cmd, "select_claims", lambda only, tier, paper: (SENSITIVE,))
    assert main(["mutate", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cli_unknown_pattern_exits_2(capsys):
    assert main(["mutate", "--only", "no-such-claim-xyz"]) == 2
    assert "no-such-claim-xyz" in capsys.readouterr().err


# ---- one-sided bounds (Stated.bound): only the side a correct check can tell from the stated value runs ----------

MEASURED_RATE = 2.5  # a measured failure probability ~ m^-2.5; the claim: "at most m^-{rate}"


def _rate_check(ctx):  # correct and decisive: "P(fail) <= m^-rate" holds iff the measured decay is at least rate
    return _status(MEASURED_RATE >= ctx.expect("rate"))


def _budget_check(ctx):  # "D_K <= {budget} suffices": a measured minimal budget of 48 against the stated bound
    return _status(48 <= ctx.expect("budget"))


def _ignores_bound(ctx):  # can fail (a literal bar), but never reads the stated value decisively
    ctx.expect("budget")
    return _status(48 <= 64)


def _inconclusive_bound(ctx):  # a confidence interval (40, 80) for the minimal budget: decided only outside it
    b = ctx.expect("budget")
    return Verdict(Status.VERIFIED if b >= 80 else Status.REFUTED if b < 40 else Status.INCONCLUSIVE)


@pytest.mark.parametrize("kwargs, message", [
    (dict(bound="above"), "bound must be"), (dict(bound="upper", kind="relation", value="<="), "relation"),
    (dict(bound="lower", kind="table", value={"a": -1, "b": 2}), "one sign"), (dict(bound=None), "bound must be"),
])
def test_bound_is_validated(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Stated(**{"value": 2, **kwargs})


def test_bound_allowed_on_numbers_and_one_signed_tables():
    assert Stated(2, "value", bound="upper").bound == "upper"
    assert Stated(3, "exponent", bound="lower").side(4) == "stricter"
    assert Stated(0.5, "constant", bound="upper").side(0.25) == "stricter"
    assert Stated({"a": -1, "b": -2}, "table", bound="upper").side({"a": -2, "b": -4}) == "stricter"
    assert Stated({"a": 0, "b": 2}, "table", bound="lower").side({"a": 0, "b": 4}) == "stricter"
    assert Stated(2).side(4) == "" and Stated(2, bound="upper").side(2) == ""


def test_upper_and_lower_plans_before_and_after_the_baseline():
    claim = _claim("syn-bounds", _budget_check, {"budget": Stated(64, "value", bound="upper"),
                                                 "rate": Stated(3, "exponent", bound="lower"), "C": 64})
    assert [m.op for m in mutants(claim)] == ["*2", "/2", "+1", "-1", "*2", "/2"]  # baseline not known: both sides
    assert not_mutated(claim) == []
    passed = {m.id: m.mutated for m in mutants(claim, Status.VERIFIED)}
    assert passed == {"syn-bounds:budget/2": 32, "syn-bounds:rate+1": 4, "syn-bounds:C*2": 128, "syn-bounds:C/2": 32}
    why = dict(not_mutated(claim, Status.HOLDS_EMPIRICALLY))
    assert set(why) == {"budget", "rate"}
    assert why["budget"].startswith("upper bound 64: *2 (128) is weaker: implied by the stated value")
    assert "no correct check can tell it apart" in why["budget"]
    assert why["rate"].startswith("lower bound 3: -1 (2) is weaker")
    failed = {m.id for m in mutants(claim, Status.CONTRADICTED_EMPIRICALLY)}
    assert failed == {"syn-bounds:budget*2", "syn-bounds:rate-1", "syn-bounds:C*2", "syn-bounds:C/2"}
    why = dict(not_mutated(claim, Status.REFUTED))
    assert why["budget"].startswith("upper bound 64: /2 (32) is stricter: it implies the stated value, which the "
                                    "baseline fails (refuted)")
    assert len(mutants(claim, Status.INCONCLUSIVE)) == 6 and not_mutated(claim, Status.INCONCLUSIVE) == []
    with pytest.raises(ValueError, match="baseline"):
        mutants(claim, "verified")


def test_negative_values_decide_the_side_by_the_numbers():
    claim = _claim("syn-negative", _insensitive, {"up": Stated(-2, "constant", bound="upper"),
                                                  "low": Stated(-2.0, "value", bound="lower"),
                                                  "e": Stated(-1, "exponent", bound="upper")})
    got = {(m.name, m.op): m.mutated for m in mutants(claim, Status.VERIFIED)}
    assert got == {("up", "*2"): -4, ("low", "/2"): -1.0, ("e", "-1"): -2}  # the smaller, the larger, the smaller
    why = dict(not_mutated(claim, Status.VERIFIED))
    assert why["up"].startswith("upper bound -2: /2 (-1) is weaker")
    assert why["low"].startswith("lower bound -2: *2 (-4) is weaker")
    assert {(m.name, m.op) for m in mutants(claim, Status.REFUTED)} == {("up", "/2"), ("low", "*2"), ("e", "+1")}


def test_run_mutation_picks_the_side_from_the_baseline():
    holds = _claim("syn-holds", _budget_check, {"budget": Stated(64, "value", bound="upper")})  # 48 <= 64
    fails = _claim("syn-fails", _budget_check, {"budget": Stated(32, "value", bound="upper")})  # 48 > 32
    rate = _claim("syn-rate", _rate_check, {"rate": Stated(2, "exponent", bound="lower")})  # 2.5 >= 2
    wide = _claim("syn-wide", _inconclusive_bound, {"budget": Stated(64, "value", bound="upper")})
    res = run_mutation([holds, fails, rate, wide], jobs=1, device="cpu")
    rows = {r.claim_id: r for r in res.rows}
    assert rows["syn-holds"].baseline is Status.VERIFIED and [m.op for m in rows["syn-holds"].planned] == ["/2"]
    assert rows["syn-holds"].killed == 1  # 48 > 32
    assert rows["syn-fails"].baseline is Status.REFUTED and [m.op for m in rows["syn-fails"].planned] == ["*2"]
    assert rows["syn-fails"].killed == 1  # 48 <= 64: the weaker statement holds, the verdict changes
    assert [m.op for m in rows["syn-rate"].planned] == ["+1"] and rows["syn-rate"].killed == 1
    assert rows["syn-wide"].baseline is Status.INCONCLUSIVE and rows["syn-wide"].killed == 2  # both sides decide
    assert (res.killed, res.mutants) == (5, 5)
    stated = {e["id"]: e["reason"] for e in res.excluded if e["what"] == "stated"}
    assert set(stated) == {"syn-holds:budget", "syn-fails:budget", "syn-rate:rate"}
    assert "which the baseline fails (refuted)" in stated["syn-fails:budget"]


def test_a_check_that_ignores_a_bound_keeps_its_stricter_mutant_as_a_survivor():
    claim = _claim("syn-ignores", _ignores_bound, {"budget": Stated(64, "value", bound="upper")})
    res = run_mutation([claim], jobs=1, device="cpu")
    row = res.rows[0]
    assert row.baseline is Status.VERIFIED and [m.op for m in row.planned] == ["/2"]
    assert (res.killed, res.mutants) == (0, 1) and res.score == 0
    assert [s["id"] for s in res.survivors] == ["syn-ignores:budget/2"]


def test_a_skipped_claim_plans_both_sides_of_a_bound():
    claim = _claim("syn-bound-broken", _broken, {"budget": Stated(64, "value", bound="upper")})
    row = run_mutation([claim], jobs=1, device="cpu").rows[0]
    assert row.skipped.startswith("baseline check errors") and [m.op for m in row.planned] == ["*2", "/2"]
