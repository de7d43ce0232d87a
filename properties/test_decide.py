# Decision standards declared once (rgr_verify.claims.standards.decide): the one three-way rule, its siblings, the
# standard every claim declares, and no status decided anywhere else.
import ast
from pathlib import Path

import pytest

from rgr_verify.claims import all_claims
from rgr_verify.claims.base import Claim, Kind, Status, Tier, Verdict
from rgr_verify.claims.standards import (STANDARD_KINDS, Standard, agreement, conjunction, decide, decide_interval,
                                         decide_tests, decide_witness)

_ROOT = Path(__file__).resolve().parents[1]
_JUDGED = {"VERIFIED", "REFUTED", "HOLDS_EMPIRICALLY", "CONTRADICTED_EMPIRICALLY", "INCONCLUSIVE"}

# Modules not yet moved onto the standards (issue 37): this set only shrinks; a module listed here that no longer
# decides by itself fails the test, so it must leave the list when it is migrated.
NOT_YET_MIGRATED = frozenset()  # every module decides through the standards (issue 37, 2026-11-28)


def _productions(fn) -> dict:
    """The statuses ``fn`` produces (``Status.X`` outside comparisons and dict keys), nested functions apart."""
    out: dict = {}

    class Visit(ast.NodeVisitor):
        def visit_FunctionDef(self, node):
            if node is fn:
                self.generic_visit(node)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Compare(self, node):  # reading a status (``v.status is Status.X``) decides nothing
            pass

        def visit_Dict(self, node):  # a mapping keyed by status (words, colours) decides nothing
            for value in node.values:
                self.visit(value)

        def visit_Attribute(self, node):
            if isinstance(node.value, ast.Name) and node.value.id == "Status" and node.attr in _JUDGED:
                out.setdefault(node.attr, node.lineno)
            self.generic_visit(node)

    Visit().visit(fn)
    return out


def deciding_functions(source: str) -> list[tuple[str, int, list]]:
    """(name, line, statuses) of each function of ``source`` that produces more than one status itself."""
    tree = ast.parse(source)
    return [(fn.name, fn.lineno, sorted(p)) for fn in ast.walk(tree)
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(p := _productions(fn)) > 1]


def _modules():
    for path in sorted((_ROOT / "rgr_verify").rglob("*.py")):
        rel = path.relative_to(_ROOT).as_posix()
        if not rel.startswith("rgr_verify/claims/standards/"):
            yield rel, path


def test_no_status_is_decided_outside_the_standards():
    found = {rel: bad for rel, path in _modules() if (bad := deciding_functions(path.read_text()))}
    unexpected = {rel: bad for rel, bad in found.items() if rel not in NOT_YET_MIGRATED}
    assert not unexpected, ("these functions decide a status themselves; call rgr_verify.claims.standards "
                            f"(decide, decide_interval, decide_tests, ...): {unexpected}")
    stale = sorted(NOT_YET_MIGRATED - set(found))
    assert not stale, f"migrated modules still listed in NOT_YET_MIGRATED: {stale}"


@pytest.mark.parametrize("source", [
    "def f(ok):\n    return Status.VERIFIED if ok else Status.REFUTED\n",
    "def f(a, b):\n    if a:\n        s = Status.HOLDS_EMPIRICALLY\n    elif b:\n        s = Status.CONTRADICTED_EMPIRICALLY\n"
    "    else:\n        s = Status.INCONCLUSIVE\n    return s\n",
    "def f(x):\n    if x > 1:\n        return Status.REFUTED\n    return Status.INCONCLUSIVE\n",
])
def test_the_scan_catches_a_planted_decision(source):
    assert deciding_functions(source)


@pytest.mark.parametrize("source", [
    "def f(v):\n    return v.status is Status.VERIFIED or v.status in (Status.REFUTED, Status.INCONCLUSIVE)\n",
    "def f(ok):\n    return decide(ok, not ok)\n",
    "def f():\n    return {Status.VERIFIED: 'holds', Status.REFUTED: 'fails'}\n",
    "def f(rows):\n    if not rows:\n        return Verdict(Status.INCONCLUSIVE)\n    return decide(True, False)\n",
])
def test_the_scan_leaves_reads_and_calls_alone(source):
    assert not deciding_functions(source)


def test_decide_is_three_way_and_refuses_overlapping_conditions():
    assert decide(True, False) is Status.HOLDS_EMPIRICALLY
    assert decide(False, True) is Status.CONTRADICTED_EMPIRICALLY
    assert decide(False, False) is Status.INCONCLUSIVE
    assert decide(True, False, exact=True) is Status.VERIFIED
    assert decide(False, True, exact=True) is Status.REFUTED
    with pytest.raises(ValueError, match="both holds and fails"):
        decide(True, True)


@pytest.mark.parametrize("interval, band, expected", [
    ((0.9, 1.1), (0.5, 1.5), Status.HOLDS_EMPIRICALLY),  # inside
    ((1.6, 2.0), (0.5, 1.5), Status.CONTRADICTED_EMPIRICALLY),  # wholly outside
    ((1.4, 1.7), (0.5, 1.5), Status.INCONCLUSIVE),  # meets the band: never a pass
    ((0.0, 1.5), (0.5, 1.5), Status.INCONCLUSIVE),
    ((0.5, 1.5), (0.5, 1.5), Status.HOLDS_EMPIRICALLY),  # the band's own ends are inside
    ((2.0, float("inf")), (0.5, 1.5), Status.CONTRADICTED_EMPIRICALLY),
])
def test_an_interval_passes_only_inside_the_band(interval, band, expected):
    status, resolution = decide_interval(interval, band)
    assert status is expected
    assert resolution["band"] == list(band)


def test_decide_interval_refuses_reversed_or_nan_input():
    with pytest.raises(ValueError):
        decide_interval((2, 1), (0, 1))
    with pytest.raises(ValueError):
        decide_interval((float("nan"), 1), (0, 1))


def test_the_one_sided_tests_decide_each_way_at_the_same_level():
    assert decide_tests(0.01, 0.9, 0.05) is Status.HOLDS_EMPIRICALLY
    assert decide_tests(0.9, 0.01, 0.05) is Status.CONTRADICTED_EMPIRICALLY
    assert decide_tests(0.2, 0.3, 0.05) is Status.INCONCLUSIVE
    with pytest.raises(ValueError):
        decide_tests(0.01, 0.9, 0.0)


def test_witness_conjunction_and_agreement():
    assert decide_witness(True, exact=True) is Status.REFUTED
    assert decide_witness(False) is Status.HOLDS_EMPIRICALLY
    assert conjunction([Status.VERIFIED, Status.HOLDS_EMPIRICALLY]) is Status.HOLDS_EMPIRICALLY
    assert conjunction([Status.VERIFIED, Status.INCONCLUSIVE, Status.REFUTED], exact=True) is Status.REFUTED
    assert conjunction([Status.VERIFIED, Status.INCONCLUSIVE]) is Status.INCONCLUSIVE
    assert agreement([Status.HOLDS_EMPIRICALLY] * 3) is Status.HOLDS_EMPIRICALLY
    assert agreement([Status.HOLDS_EMPIRICALLY] * 32 + [Status.CONTRADICTED_EMPIRICALLY]) is Status.INCONCLUSIVE
    with pytest.raises(ValueError):
        conjunction([])


def test_a_standard_validates_its_kind_and_the_source_of_its_tolerance():
    s = Standard("band", "the exponent of m log m", tolerance="[0.875, 1.125]", source="ours: +-1/8 around 1")
    assert s.as_record()["rule"] == STANDARD_KINDS["band"]
    with pytest.raises(ValueError, match="standard kind"):
        Standard("vibes", "x")
    with pytest.raises(ValueError, match="its source"):
        Standard("band", "x", tolerance="[0, 1]")
    with pytest.raises(ValueError, match="estimand"):
        Standard("band", " ")


def test_every_claim_has_a_standard_and_every_experimental_claim_declares_its_own():
    missing = [c.id for c in all_claims() if c.standard is None]
    assert not missing, f"claims without a standard (experimental claims must declare one): {missing}"
    undeclared = [c.id for c in all_claims() if c.kind in (Kind.EMPIRICAL, Kind.QUALITATIVE)
                  and not c.standard.declared]
    assert not undeclared


def test_a_claim_takes_its_kinds_default_standard_unless_it_declares_one():
    def check(ctx):
        return Verdict(Status.INCONCLUSIVE)

    c = Claim("x-y", "Sec. 3", "s", Kind.SYMBOLIC, Tier.QUICK, check)
    assert c.standard.kind == "identity" and not c.standard.declared
    e = Claim("x-z", "Sec. 6", "s", Kind.EMPIRICAL, Tier.QUICK, check,
              standard={"kind": "threshold", "estimand": "D_K*"})
    assert e.standard.kind == "threshold" and e.standard.declared
    assert Claim("x-w", "Sec. 6", "s", Kind.EMPIRICAL, Tier.QUICK, check).standard is None
    with pytest.raises(ValueError, match="claim x-v: standard kind"):
        Claim("x-v", "Sec. 6", "s", Kind.EMPIRICAL, Tier.QUICK, check, standard={"kind": "nope", "estimand": "e"})
