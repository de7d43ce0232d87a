# Where claims live: one place per part of the paper, one id prefix per label, named checks, a generated index.
"""The layout rules of ``rgr_verify.claims`` (:mod:`rgr_verify.claims.labels`) and ``docs/claims-index.md``."""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

from rgr_verify.claims import all_claims, claim_modules
from rgr_verify.claims.base import FACTS_PAPER, RGR_PAPER, Claim, Kind, Tier
from rgr_verify.claims.index import INDEX_PATH, check_location, render_index
from rgr_verify.claims.labels import label_part, label_prefix, module_part, placement_errors
from rgr_verify.cli import main

CLAIMS_DIR = Path(__file__).resolve().parents[1] / "rgr_verify" / "claims"
BOTH = f"{RGR_PAPER}+{FACTS_PAPER}"


@pytest.mark.parametrize("ref,paper,prefix,part", [
    ("Theorem 4.1", RGR_PAPER, "thm41", "sec4"),
    ("Theorem B.2", RGR_PAPER, "thmb2", "appb"),
    ("Lemma 8.2", RGR_PAPER, "lem82", "sec8"),
    ("Corollary B.10", RGR_PAPER, "corb10", "appb"),
    ("Proposition 8.4", RGR_PAPER, "prop84", "sec8"),
    ("Definition 9.1", RGR_PAPER, "def91", "sec9"),
    ("Eq. (22)", RGR_PAPER, "eq22", "sec8"),
    ("Eqs. (15)-(16)", RGR_PAPER, "eq15", "sec8"),
    ("Eq. (1)", RGR_PAPER, "eq1", "sec5"),
    ("Eq. (31)", RGR_PAPER, "eq31", "appa"),
    ("Eq. (33)", RGR_PAPER, "eq33", "appb"),
    ("Sec. 5", RGR_PAPER, "sec5", "sec5"),
    ("Sec. 6.1", RGR_PAPER, "sec61", "sec6"),
    ("Sec. 10", RGR_PAPER, "sec10", "sec10"),
    ("App. B.2", RGR_PAPER, "appb2", "appb"),
    ("App. C", RGR_PAPER, "appc", "appc"),
    ("Algorithm 1", RGR_PAPER, "alg1", "sec4"),
    ("Algorithm 3", RGR_PAPER, "alg3", "appb"),
    ("Construction I", RGR_PAPER, "constr1", "sec4"),
    ("Construction IV", RGR_PAPER, "constr4", "appb"),
    ("Table 2", RGR_PAPER, "table2", "appa"),
    ("Figure 3", RGR_PAPER, "fig3", "sec6"),
    ("Figure 5", RGR_PAPER, "fig5", "sec7"),
    ("Figure 10", RGR_PAPER, "fig10", "appa"),
    ("OpenReview abstract", RGR_PAPER, "openreview", "abstract"),
    ("Abstract", RGR_PAPER, "abstract", "abstract"),
    ("Proposition 2.1", FACTS_PAPER, "facts-prop21", "facts"),
    ("Example 2.4", FACTS_PAPER, "facts-ex24", "facts"),
    ("Figure 4", FACTS_PAPER, "facts-fig4", "facts"),
    ("Summary", FACTS_PAPER, "facts", "facts"),
    ("Theorem 9.2", BOTH, "xpaper", "xpaper"),
])
def test_label_prefix_and_part(ref, paper, prefix, part):
    assert label_prefix(ref, paper) == prefix
    assert label_part(ref, paper) == part


@pytest.mark.parametrize("ref,paper,match", [
    ("somewhere", RGR_PAPER, "paper label"),
    (3, RGR_PAPER, "paper label"),
    ("Eq. (99)", RGR_PAPER, "not a label"),
    ("Summary", RGR_PAPER, "Summary"),
    ("Sec. 3", "1234.5678", "known papers"),
])
def test_label_rejects_bad_refs(ref, paper, match):
    with pytest.raises(ValueError, match=match):
        label_part(ref, paper)
        label_prefix(ref, paper)


def test_every_claim_id_carries_its_label_prefix_and_lives_in_its_part():
    errors = placement_errors(all_claims())
    assert not errors, "\n".join(errors)


def test_placement_errors_name_the_rule_broken():
    def _check(ctx):
        return None

    wrong = Claim(id="sec4-x", ref="Theorem 4.1", statement="s", kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=_check)
    errs = placement_errors([wrong])
    assert any("thm41-" in e for e in errs) and any("part 'sec4'" in e for e in errs)
    assert module_part("rgr_verify.claims.paper_appb.construction1") == "appb"
    assert module_part("rgr_verify.claims.xpaper") == "xpaper" and module_part("rgr_verify.claims.tools") is None


def test_every_check_is_a_named_module_level_function():
    # a check may be wrapped (functools.wraps) to add a record to its verdict; what it wraps is the named function
    for c in all_claims():
        fn = inspect.unwrap(c.check)
        assert inspect.isfunction(fn), f"{c.id}: check is {fn!r}, not a function"
        assert fn.__name__ != "<lambda>" and "<locals>" not in fn.__qualname__, f"{c.id}: {fn.__qualname__}"
        assert getattr(sys.modules[fn.__module__], fn.__name__) is fn, f"{c.id}: {fn.__qualname__} not module-level"


def test_registry_finds_the_topic_modules_of_part_packages_in_paper_order():
    mods = claim_modules()
    names = [m.__name__ for m in mods]
    assert "rgr_verify.claims.paper_appb.construction1" in names and "rgr_verify.claims.paper_sec4" not in names
    orders = [m.ORDER for m in mods]
    assert orders == sorted(orders)
    parts = [module_part(n) for n in names]
    firsts = list(dict.fromkeys(parts))
    assert firsts[:3] == ["abstract", "sec1", "sec3"] and firsts[-2:] == ["facts", "xpaper"]
    assert len(firsts) == len(set(firsts)), "each part's modules are consecutive in the registry"


def test_claims_index_is_generated_from_the_registry():
    text = render_index()
    committed = INDEX_PATH.read_text(encoding="utf-8")
    assert text == committed, "docs/claims-index.md is stale: rgr-verify claims --index > docs/claims-index.md"
    for c in all_claims():
        path, fn = check_location(c)
        assert f"| `{c.id}` | `{path}` | `{fn}` |" in text


def test_claims_index_command(capsys):
    assert main(["claims", "--index"]) == 0
    assert capsys.readouterr().out == render_index()
    assert main(["claims", "--index", "--json"]) == 2
    assert "--index" in capsys.readouterr().err


def _claims_modules():
    return sorted(p for p in CLAIMS_DIR.rglob("*.py"))


def test_no_claims_module_uses_another_modules_private_name():
    for path in _claims_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                assert not private, f"{path.name} imports private {private} from {node.module}"
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr.startswith("_")
                    and not node.attr.startswith("__") and node.value.id not in ("self", "cls", "ctx", "sys")):
                # (sys._current_frames and sys._getframe are the interpreter's documented functions, not privates)
                pytest.fail(f"{path.name}: uses {node.value.id}.{node.attr}")


def test_cross_reference_list_names_registered_claims():
    # docs/cross-references.md: every claim id in its tables is a registered claim.
    import re
    from pathlib import Path

    from rgr_verify.claims.registry import all_claims

    text = (Path(__file__).resolve().parents[1] / "docs" / "cross-references.md").read_text()
    ids = {c.id for c in all_claims()}
    prefixes = {i.split("-")[0] for i in ids}
    named = set()
    for row in text.splitlines():
        if row.startswith("|") and not row.startswith("| ---"):
            cells = row.split("|")
            if len(cells) > 5:
                named |= {t for t in re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)+", cells[4]) if t.split("-")[0] in prefixes}
    assert named, "no claim ids found in docs/cross-references.md"
    assert not named - ids, f"unknown claim ids in docs/cross-references.md: {sorted(named - ids)}"
