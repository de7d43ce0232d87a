# The CLI's shared options are declared once (rgr_verify/commands/_options.py): no command declares one by hand,
# and every command's --help lists the flags it listed before they moved there. Bad usage and bugs are told apart:
# a bad option value is one line naming the option, exit 2, no traceback; a ValueError escaping from the work is a
# bug, with its traceback and exit 1. --results is resolved once, as it is parsed.
import re
from pathlib import Path

import pytest

from rgr_verify.cli import build_parser, main
from rgr_verify.commands._options import SHARED_FLAGS, results_given

COMMANDS = Path(__file__).resolve().parents[1] / "rgr_verify" / "commands"

# Each command's flags as its --help listed them before the shared options were declared once (recorded then).
FLAGS_BEFORE = {
    "adaptive": ["--bracket", "--cells", "--device", "--json", "--replay-only", "--results", "--threads", "--tier"],
    # (audit: --changed-since, --fresh and --no-store came later, with the verdict store)
    "audit": ["--allow-missing-evidence", "--changed-since", "--device", "--fresh", "--jobs", "--json", "--no-store",
              "--only", "--out", "--paper", "--paper-text", "--quiet", "--replace", "--results", "--screenshots",
              "--seed", "--tier", "--update-ledger"],
    "bench": ["--compile", "--device", "--floor", "--fused", "--json", "--max-waste", "--naive-runs", "--no-torchfunc",
              "--preset", "--profile", "--profile-steps", "--steps", "--threads", "--tier"],
    "bounds": ["--d-k", "--d-model", "--edges", "--heads", "--m", "--max-degree", "--sheet"],
    "claims": ["--index", "--json", "--only", "--paper", "--status"],
    "constants": ["--draws", "--json", "--m", "--seed", "--theorem"],
    "construct": ["--C", "--algorithm", "--block-size", "--d-k", "--d-model", "--degree", "--embeddings", "--graph",
                  "--heads", "--json", "--m", "--max-failures", "--p", "--seed"],
    "coverage": ["--check", "--paper-text", "--skeleton", "--write"],
    "evidence": [],
    "evidence add": ["--adaptive", "--command", "--evidence", "--name", "--notes", "--plan", "--preset", "--replace",
                     "--store", "--tier", "--trained-on", "--trained-with"],
    "evidence list": ["--evidence", "--json"],
    "facts": ["--results", "--threads", "--tier"],
    "mutate": ["--device", "--jobs", "--json", "--only", "--paper", "--results", "--seed", "--tier"],
    "paper-diff": ["--json", "--labels"],
    # (sec73: --first-call-seconds came later, with the plan of the v3 engine's first device call)
    "sec73": ["--call-seconds", "--calls", "--device", "--engine", "--first-call-seconds", "--gpt2-dir",
              "--max-batch-runs", "--out", "--plan-only", "--probe-steps", "--replay-only", "--results", "--seed",
              "--source", "--step-ms", "--stop-after", "--tier"],
    "sec73-carry": ["--m", "--out"],
    "store": [],
    "store compact": ["--results"],
    "sweep": ["--adaptive", "--array-parallelism", "--device", "--devices", "--dry-run", "--executor", "--max-batch",
              "--max-waste", "--no-progress", "--partition", "--ray-address", "--results", "--retries", "--status",
              "--stop-after", "--submitit-cluster", "--submitit-folder", "--threads", "--tier", "--time",
              "--unit-max-batch", "--worker", "--workers"],
    "sweep-bench": ["--json", "--keep", "--tier", "--unit-max-batch", "--workers"],
}


def _declared(source: str) -> list[str]:
    return re.findall(r"""add_argument\(\s*["'](--[\w-]+)["']""", source)


def test_no_command_declares_a_shared_flag_by_hand():
    bad = [f"{p.name}: {flag}" for p in sorted(COMMANDS.glob("*.py")) if p.name != "_options.py"
           for flag in _declared(p.read_text(encoding="utf-8")) if flag in SHARED_FLAGS]
    assert not bad, f"declare these with rgr_verify/commands/_options.py: {bad}"
    own = set(_declared((COMMANDS / "_options.py").read_text(encoding="utf-8")))
    assert set(SHARED_FLAGS) == own, "SHARED_FLAGS must name exactly the flags _options.py declares"


def test_the_scan_sees_a_flag_declared_by_hand():
    planted = 'def add_arguments(p):\n    p.add_argument("--results", default=None)\n'
    assert [f for f in _declared(planted) if f in SHARED_FLAGS] == ["--results"]


def _help_flags(argv, capsys) -> list[str]:
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    return sorted({m.group(2) for m in re.finditer(r"^  (-\w, )?(--[\w-]+)", text, re.M)} - {"--help"})


@pytest.mark.parametrize("command", sorted(FLAGS_BEFORE))
def test_help_lists_the_same_flags_as_before(command, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert _help_flags(command.split(), capsys) == FLAGS_BEFORE[command]


def test_every_command_is_recorded():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {c.split()[0] for c in FLAGS_BEFORE} == set(sub.choices)


USAGE_CASES = [
    (["facts", "facts-fig4", "--threads", "0"], "--threads must be >= 1, got 0"),
    (["facts", "facts-fig4", "--tier", "medium"], "--tier must be one of quick, full, got 'medium'"),
    (["facts", "no-such-preset"], "preset must be one of"),
    (["mutate", "--jobs", "0"], "--jobs must be an integer in [1, 256], got 0"),
    (["mutate", "--seed", "x"], "--seed must be an integer in [0, 4294967295], got 'x'"),
    (["sec73", "--device", "tpu"], "--device must be 'cpu' or 'cuda', got 'tpu'"),
    (["sweep", "micro", "--device", "gpu"], "--device must be 'cpu', 'cuda' or 'cuda:N', got 'gpu'"),
    (["sweep", "micro", "--max-waste", "0.5"], "--max-waste must be"),
    (["sweep-bench", "micro", "--workers", "0"], "--workers must be >= 1, got 0"),
    (["constants", "--theorem", "b.1", "--draws", "0"], "--draws must be"),
    (["constants", "--theorem", "b.1", "--m", "2"], "--m must be an integer in [4, 8192], got 2"),
    (["bounds", "--m", "8", "--d-model", "0"], "--d-model must be >= 1, got 0"),
    (["construct", "--algorithm", "3", "--m", "16", "--p", "0.9"], "--p: p must be"),
    (["claims", "--only", "no-such-claim"], "only: no claim id or reference matches 'no-such-claim'"),
    (["paper-diff", "/no/such/old.txt", "/no/such/new.txt"], "OLD must be a readable text file"),
    (["evidence", "add", "/no/such/dir", "--preset", "micro"], "DIR must be an existing results directory"),
    (["store", "compact", "--results", "/no/such/dir"], "--results: '/no/such/dir' is not a directory"),
]


@pytest.mark.parametrize("argv, message", USAGE_CASES, ids=[" ".join(c[0]) for c in USAGE_CASES])
def test_bad_usage_is_one_line_naming_the_option_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RGR_VERIFY_RESULTS", str(tmp_path / "results"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rgr-verify: error: "), err
    assert message in err and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == [], "bad usage must not write anything"


def _boom(*args, **kwargs):
    raise ValueError("planted: a bug deep in the library")


@pytest.mark.parametrize("target, argv", [
    ("rgr_verify.core.formulas.evaluate", ["bounds"]),  # deep in the work of a command given no option
    ("rgr_verify.commands.claims.read_ledger", ["claims"]),
    ("rgr_verify.commands.construct.separation_margins", ["construct", "--algorithm", "3", "--m", "16", "--d-k", "50"]),
])
def test_a_value_error_from_the_work_is_a_bug_exit_1_with_traceback(target, argv, capsys, monkeypatch):
    monkeypatch.setattr(target, _boom)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "planted: a bug deep in the library" in err
    last = err.strip().splitlines()[-1]
    assert last == ("rgr-verify: internal error: ValueError: planted: a bug deep in the library "
                    "(a bug; please report it)"), last


def test_a_value_error_from_a_users_value_passed_through_is_usage(capsys, tmp_path, monkeypatch):
    # the library refuses the value (evidence add: an unknown preset); the command names it as bad usage
    res = tmp_path / "res"
    res.mkdir()
    (res / "runs.jsonl").write_text("")
    assert main(["evidence", "add", str(res), "--preset", "no-such-preset", "--evidence", str(tmp_path / "ev")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "preset must be one of" in err and "Traceback" not in err


def test_results_is_resolved_once_as_it_is_parsed(tmp_path, monkeypatch):
    monkeypatch.setenv("RGR_VERIFY_RESULTS", str(tmp_path / "from-env"))
    parser = build_parser()
    for argv in (["sweep", "micro"], ["adaptive", "micro"], ["audit"], ["mutate"], ["facts", "facts-fig4"],
                 ["sec73"], ["store", "compact"]):
        args = parser.parse_args(argv)
        assert args.results == tmp_path / "from-env" and isinstance(args.results, Path), argv
        assert not results_given(args)
        named = parser.parse_args([*argv, "--results", str(tmp_path / "named")])
        assert named.results == tmp_path / "named" and results_given(named), argv


def test_a_command_without_results_gets_the_default_from_the_environment(tmp_path, monkeypatch, capsys):
    (tmp_path / "from-env").mkdir()
    monkeypatch.setenv("RGR_VERIFY_RESULTS", str(tmp_path / "from-env"))
    assert main(["store", "compact"]) == 0
    assert capsys.readouterr().out.strip() == f"no shards in {tmp_path / 'from-env'}"
    monkeypatch.setenv("RGR_VERIFY_RESULTS", str(tmp_path / "missing"))
    assert main(["store", "compact"]) == 2
    assert f"--results: '{tmp_path / 'missing'}' is not a directory" in capsys.readouterr().err
