# The randomised soundness run of the verdict store (rgr_verify.audit.soundness, issue 43): its edits are drawn
# deterministically from a seed, each changes exactly one file of the copy (and parses), and reverting restores it;
# a small run (two symbolic claims declared side by side, a stated value of one edited) finds the incremental and
# the fresh verdicts equal and reruns exactly the edited claim; bad options exit 2 naming the option.
import ast

import pytest

from rgr_verify.audit import soundness as sd

PAIR = ("sec6-sym-table1-median", "sec6-sym-table1-range")  # two fast symbolic claims of one claims module


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return sd.copy_package(tmp_path_factory.mktemp("soundness-copy"))


def _files(root):
    """{path: (size, mtime)} of every file under ``root``: a write to a file changes its entry (unless within one
    tick of the file clock and of the same size, so the edited file itself is compared by its text)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            st = p.stat()
            out[p.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns)
    return out


def test_the_edits_are_drawn_from_the_seed_and_each_changes_exactly_one_file(copy):
    first = sd.draw_edits(copy, 30, 7, sample=sd.SAMPLE)
    assert first == sd.draw_edits(copy, 30, 7, sample=sd.SAMPLE)  # the same seed, the same edits
    assert first != sd.draw_edits(copy, 30, 8, sample=sd.SAMPLE)
    # 30 edits: the plan's kinds, shuffled (without a baseline run no module is known to be imported lazily by a
    # check, so an import-error edit is a raise)
    assert sorted(e.kind for e in first) == sorted("raise" if k == "import-error" else k for k in sd.PLAN)
    folders = {e.path.split("/")[1] for e in first if e.kind in ("literal", "literal-elsewhere", "comment")}
    assert len(folders) >= 4, folders  # spread across the package
    original = _files(copy)
    for edit in first:
        assert edit.before != edit.after and (copy / edit.path).read_text(encoding="utf-8") == edit.before
        if edit.path.endswith(".py"):
            ast.parse(edit.after)  # every edit leaves Python that compiles (a raise breaks when it runs)
        sd.apply_edit(copy, edit)
        now = _files(copy)
        assert {p for p in now.keys() | original.keys() if now.get(p) != original.get(p)} <= {edit.path}
        assert (copy / edit.path).read_text(encoding="utf-8") == edit.after
        sd.revert_edit(copy, edit)
        assert (copy / edit.path).read_text(encoding="utf-8") == edit.before
        original = _files(copy)


def test_a_stated_edit_changes_a_stated_value_of_a_claim_of_the_subset(copy):
    (edit,) = sd.draw_edits(copy, 1, 3, sample=PAIR, kinds=["stated"])
    assert edit.claim in PAIR and edit.path == "rgr_verify/claims/paper_sec6/stated.py"
    assert "Stated(" in edit.after.splitlines()[edit.line - 1]


def test_a_small_run_finds_the_verdicts_equal_and_reruns_the_edited_claim_only(tmp_path):
    lines = []
    summary = sd.run_soundness(1, 5, only=",".join(PAIR), keep=tmp_path / "work", kinds=["stated"],
                               out=lines.append)
    assert summary["baseline_differs"] == [] and summary["differing"] == []
    assert sorted(summary["claims"]) == sorted(PAIR)
    baseline, edit = summary["edits"]
    assert baseline["reran"] == []  # nothing edited: every verdict reused
    assert edit["kind"] == "stated" and edit["reran"] == [edit["claim"]]  # the other claim's slice is unchanged
    assert lines[-1].startswith("soundness: 1 edits, 0 differing verdicts, reran per edit: 1/1/1")
    assert any(line.startswith("edit 1: rgr_verify/claims/paper_sec6/stated.py:") and "reran 1 of 2 claims "
               "(reused 1), verdicts equal: yes" in line for line in lines), lines


@pytest.mark.parametrize("argv, option", [(["--edits", "-1"], "--edits"), (["--seed", "x"], "--seed"),
                                          (["--only", " "], "--only"), (["--root-seed", str(2**32)], "--root-seed")])
def test_a_bad_option_exits_2_naming_it(argv, option, capsys):
    with pytest.raises(SystemExit) as exc:
        sd.main(argv)
    assert exc.value.code == 2 and option in capsys.readouterr().err


def test_keep_must_be_a_new_or_empty_folder(tmp_path, capsys):
    (tmp_path / "x").write_text("")
    assert sd.main(["--keep", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--keep" in err
