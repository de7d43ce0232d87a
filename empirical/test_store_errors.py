# Stores that say what is wrong, and the remaining bad inputs of the CLI: a store line that is not a well-formed
# record stops every command that reads the store with one line naming the file and the 1-based line (exit 2); a
# torn last line (a writer killed mid-append) is skipped or repaired with a warning; bad options name the option,
# exit 2 and create nothing (no folder, no lock file).
import gzip
import json
from pathlib import Path

import pytest

from rgr_verify.cli import main
from rgr_verify.engine import ENGINE_VERSION, RunConfig, run_key
from rgr_verify.runs.presets import preset_runs
from rgr_verify.runs.store import (JsonlStore, ResultStore, StoreError, TornLineWarning, parse_records, validate_store)


def _record(config: RunConfig, seed: int, **fields) -> dict:
    rec = {"key": run_key(config, seed), "engine_version": ENGINE_VERSION, "config": config.to_dict(), "seed": seed,
           "metric": 0.5, "steps": 10, "stopped_early": False, "tau": 0.1, "val_history": [0.25, 0.5], "extra": {}}
    return {**rec, **fields}


def _micro_records(n: int = 3) -> list[dict]:
    return [_record(c, s) for c, s in preset_runs("micro", "quick")[:n]]


def _line(rec: dict) -> bytes:
    return (json.dumps(rec, sort_keys=True) + "\n").encode()


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rgr-verify: error: "), err
    return lines[0]


def _tree(root: Path) -> dict:
    """Every path under root with its bytes (None for a folder)."""
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes()) for p in sorted(root.rglob("*"))}


# ---------------------------------------------------------------------------------------------------------------
# A. Stores that say what is wrong


def test_sweep_status_names_file_and_line_of_garbage_in_the_middle(tmp_path, capsys):
    recs = _micro_records(3)
    (tmp_path / "runs.jsonl").write_bytes(_line(recs[0]) + b"garbage\n{not json either\n" + _line(recs[1])
                                          + _line(recs[2]))
    before = _tree(tmp_path)
    assert main(["sweep", "micro", "--status", "--results", str(tmp_path)]) == 2
    msg = _error_line(capsys)
    assert "--results" in msg and str(tmp_path / "runs.jsonl") in msg and "line 2" in msg and "not valid JSON" in msg
    assert _tree(tmp_path) == before  # nothing written


def test_sweep_status_in_a_real_process_exits_2(tmp_path):
    import subprocess
    import sys

    (tmp_path / "runs.jsonl").write_bytes(_line(_micro_records(1)[0]) + b"\x00\x01garbage\n" + b"[1, 2]\n")
    done = subprocess.run([sys.executable, "-m", "rgr_verify.cli", "sweep", "micro", "--status", "--results",
                           str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "runs.jsonl" in lines[0] and "line 2" in lines[0] and "Traceback" not in done.stderr


def test_a_torn_last_line_is_skipped_with_a_warning_and_repaired_by_the_next_append(tmp_path, capsys):
    recs = _micro_records(3)
    torn = _line(recs[2])[:40]
    (tmp_path / "runs.jsonl").write_bytes(_line(recs[0]) + _line(recs[1]) + torn)
    with pytest.warns(TornLineWarning, match=r"runs\.jsonl', line 3: incomplete last line"):
        assert main(["sweep", "micro", "--status", "--results", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip()  # the status table
    with pytest.warns(TornLineWarning):
        assert set(ResultStore(tmp_path).records()) == {recs[0]["key"], recs[1]["key"]}  # the rest is read
    with pytest.warns(TornLineWarning, match="removed an incomplete last line"):
        JsonlStore(tmp_path, "runs.jsonl").append([recs[2]])
    assert (tmp_path / "runs.jsonl").read_bytes() == b"".join(map(_line, recs))  # repaired: no torn line left
    assert set(ResultStore(tmp_path).records()) == {r["key"] for r in recs}
    validate_store(tmp_path)  # clean now: no warning, no error


def test_a_complete_last_line_without_its_newline_is_read_and_terminated(tmp_path):
    store = JsonlStore(tmp_path, "x.jsonl")
    store.path.write_bytes(b'{"key": "a", "v": 1}\n{"key": "b", "v": 2}')
    assert set(store.read()) == {"a", "b"}
    store.append([{"key": "c", "v": 3}])
    assert store.path.read_bytes() == b'{"key": "a", "v": 1}\n{"key": "b", "v": 2}\n{"key": "c", "v": 3}\n'


@pytest.mark.parametrize("store, field, value, what", [
    ("runs.jsonl", "key", 5, '"key" must be a string'),
    ("runs.jsonl", "metric", "0.9", "'metric' must be a number"),
    ("runs.jsonl", "seed", 1.5, "'seed' must be an integer"),
    ("runs.jsonl", "stopped_early", 1, "'stopped_early' must be true or false"),
    ("runs.jsonl", "val_history", [0.1, "x"], "'val_history' must be a list of numbers"),
    ("runs.jsonl", "config", {"m": "many"}, "'config' is not a valid run config"),
    ("runs.jsonl", "engine_version", 6, '"engine_version" must be a string'),
    ("sec73-runs.jsonl", "test_acc", "high", "'test_acc' must be a number"),
    ("sec73-runs.jsonl", "D_K", None, "'D_K' must be an integer"),
    ("facts-runs.jsonl", "loss", True, "'loss' must be a number"),
    ("x.jsonl", "key", None, '"key" must be a string'),
])
def test_a_wrong_typed_field_names_file_and_line(tmp_path, store, field, value, what):
    good = {"runs.jsonl": _micro_records(2),
            "sec73-runs.jsonl": [{"key": f"k{i}", "D_K": 8, "h": 1, "seed": 3, "seed_index": i, "test_acc": 0.5,
                                  "best_val_acc": 0.5, "final_test_acc": 0.5, "test_null_rate": 0.0, "best_step": 4,
                                  "steps": 8, "source_description": "gaussian"} for i in range(2)],
            "facts-runs.jsonl": [{"key": f"k{i}", "config": {}, "seed": i, "epochs": 3, "stopped": False,
                                  "accuracy": {"argmax": 1.0}, "loss": 0.1, "min_p": 0.2, "rank_bound": 4}
                                 for i in range(2)],
            "x.jsonl": [{"key": "a"}, {"key": "b"}]}[store]
    bad = dict(good[1])
    bad[field] = value if field != "config" else {**good[1]["config"], **value}
    (tmp_path / store).write_bytes(_line(good[0]) + b"\n" + _line(bad))  # a blank line 2 is allowed
    with pytest.raises(StoreError) as info:
        validate_store(tmp_path)
    msg = str(info.value)
    assert str(tmp_path / store) in msg and "line 3" in msg and what in msg and "\n" not in msg
    with pytest.raises(StoreError, match="line 3"):
        JsonlStore(tmp_path, store).read()


def test_lines_that_are_not_records_raise(tmp_path):
    for raw, what in [(b"[1, 2]", "not a JSON object"), (b'{"v": 4}', 'no "key" field'), (b"\xff", "not UTF-8"),
                      (b'"text"', "not a JSON object"), (b"null", "not a JSON object")]:
        with pytest.raises(StoreError, match=f"f.jsonl', line 2: {what}"):
            parse_records([b'{"key": "a"}', raw, b'{"key": "b"}', b""], source="f.jsonl")
    assert set(parse_records([b'{"key": "a"}', b"  ", b'{"key": "b"}', b""])) == {"a", "b"}  # blank lines: fine


def test_shards_are_checked_too_and_tail_names_the_line(tmp_path):
    main_store = JsonlStore(tmp_path, "x.jsonl")
    shard = JsonlStore(tmp_path, "x.jsonl", shard="w1")
    main_store.append([{"key": "a"}])
    shard.append([{"key": "b"}, {"key": "c"}])
    tail = main_store.tail()
    assert len(tail.poll()) == 3
    with open(shard.write_path, "ab") as fh:
        fh.write(b"oops\n")
    with pytest.raises(StoreError, match=r"w1\.jsonl', line 3: not valid JSON"):
        tail.poll()
    with pytest.raises(StoreError, match=r"w1\.jsonl', line 3"):
        validate_store(tmp_path)


def test_store_compact_refuses_a_malformed_shard_and_changes_nothing(tmp_path, capsys):
    recs = _micro_records(3)
    ResultStore(tmp_path).jsonl.append([recs[0]])
    a = ResultStore(tmp_path, shard="a")
    a.jsonl.append([recs[1]])
    b = ResultStore(tmp_path, shard="b")
    with open(b.write_path, "ab") as fh:
        fh.write(_line(recs[2]) + b'{"key": 7}\n' + _line(recs[0]))
    before = _tree(tmp_path)
    assert main(["store", "compact", "--results", str(tmp_path)]) == 2
    msg = _error_line(capsys)
    assert "--results" in msg and str(b.write_path) in msg and "line 2" in msg and '"key" must be a string' in msg
    after = _tree(tmp_path)
    assert {k: v for k, v in after.items() if not k.endswith(".lock")} == \
        {k: v for k, v in before.items() if not k.endswith(".lock")}  # shard a was not merged either


def test_store_compact_drops_a_torn_last_line_with_a_warning(tmp_path, capsys):
    recs = _micro_records(2)
    a = ResultStore(tmp_path, shard="a")
    a.jsonl.append([recs[0]])
    with open(a.write_path, "ab") as fh:
        fh.write(_line(recs[1])[:30])
    with pytest.warns(TornLineWarning):
        assert main(["store", "compact", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1 records moved" in out and "1 torn lines dropped" in out
    assert set(ResultStore(tmp_path).records()) == {recs[0]["key"]}


def test_evidence_add_names_file_and_line(tmp_path, capsys):
    recs = _micro_records(2)
    res = tmp_path / "res"
    res.mkdir()
    (res / "runs.jsonl").write_bytes(_line(recs[0]) + _line({**recs[1], "tau": "wide"}))
    ev = tmp_path / "ev"
    assert main(["evidence", "add", str(res), "--preset", "micro", "--tier", "quick", "--evidence", str(ev)]) == 2
    msg = _error_line(capsys)
    assert str(res / "runs.jsonl") in msg and "line 2" in msg and "'tau' must be a number" in msg
    assert not ev.exists()
    (res / "sec73-runs.jsonl").write_bytes(b'{"key": "a"}\nnonsense\n')
    (res / "runs.jsonl").unlink()
    assert main(["evidence", "add", str(res), "--preset", "x", "--store", "sec73-runs.jsonl", "--evidence",
                 str(ev)]) == 2
    msg = _error_line(capsys)
    assert "sec73-runs.jsonl" in msg and "line 1" in msg and not ev.exists()  # line 1 lacks the sec73 fields


def test_committed_evidence_with_a_bad_line_names_the_gz_file(tmp_path):
    from rgr_verify.runs.evidence import Manifest, read_evidence
    import hashlib

    recs = _micro_records(2)
    data = gzip.compress(_line(recs[0]) + b"{broken}\n" + _line(recs[1]), mtime=0)
    (tmp_path / "bad.jsonl.gz").write_bytes(data)
    man = Manifest(name="bad", preset="micro", tier="quick", runs=2, preset_runs=2, engine_versions=(ENGINE_VERSION,),
                   commit="x", torch="x", cuda=None, device="cpu", date=None, commands=(),
                   sha256=hashlib.sha256(data).hexdigest())
    with pytest.raises(StoreError, match=r"bad\.jsonl\.gz', line 2: not valid JSON"):
        read_evidence(man, tmp_path)


def test_validate_store_writes_nothing(tmp_path):
    missing = tmp_path / "no" / "such"
    validate_store(missing)  # no store there: nothing to check, nothing created
    assert not (tmp_path / "no").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is not a directory"):
        validate_store(tmp_path / "file")
    with pytest.raises(ValueError, match="directory must be a path"):
        validate_store(3)


def test_sweep_status_of_a_missing_results_folder_creates_nothing(tmp_path, capsys):
    assert main(["sweep", "micro", "--status", "--results", str(tmp_path / "nodir" / "res")]) == 0
    assert "missing" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------------------------
# B. The remaining bad inputs: exit 2, one line naming the option, nothing created


def _refused(argv, option, tmp_path, capsys, *, contains=()):
    before = _tree(tmp_path)
    assert main(argv) == 2
    msg = _error_line(capsys)
    assert option in msg, msg
    for text in contains:
        assert text in msg, msg
    assert _tree(tmp_path) == before  # no folder, no lock file, nothing
    return msg


def test_bounds_sheet_in_a_missing_folder_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _refused(["bounds", "--sheet", "nodir/x.tex"], "--sheet", tmp_path, capsys)
    assert not (tmp_path / "nodir").exists()


def test_evidence_list_of_a_missing_folder_is_refused(tmp_path, capsys):
    msg = _refused(["evidence", "list", "--evidence", str(tmp_path / "nodir")], "--evidence", tmp_path, capsys,
                   contains=("does not exist",))
    assert "no committed evidence" not in msg.lower()


def test_sec73_with_a_missing_gpt2_dir_creates_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RGR_VERIFY_RESULTS", str(tmp_path / "cache"))
    _refused(["sec73", "--gpt2-dir", str(tmp_path / "nodir"), "--device", "cpu"], "--gpt2-dir", tmp_path, capsys)
    _refused(["sec73", "--gpt2-dir", str(tmp_path / "nodir"), "--device", "cpu", "--results", str(tmp_path / "res")],
             "--gpt2-dir", tmp_path, capsys)
    empty = tmp_path / "snap"
    empty.mkdir()
    _refused(["sec73", "--gpt2-dir", str(empty), "--device", "cpu", "--results", str(tmp_path / "res")],
             "--gpt2-dir", tmp_path, capsys, contains=("model.safetensors",))


def test_sec73_replay_only_creates_no_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RGR_VERIFY_RESULTS", str(tmp_path / "cache"))
    monkeypatch.delenv("RGR_VERIFY_GPT2_DIR", raising=False)
    _refused(["sec73", "--tier", "full", "--device", "cpu", "--replay-only"], "--replay-only", tmp_path, capsys)
    _refused(["sec73", "--tier", "full", "--device", "cpu", "--replay-only", "--results", str(tmp_path / "a" / "b")],
             "--replay-only", tmp_path, capsys)


def test_constants_unknown_theorem_names_the_option(tmp_path, capsys):
    msg = _refused(["constants", "--theorem", "9.9"], "--theorem", tmp_path, capsys, contains=("'9.9'",))
    assert "theorem_id" not in msg


@pytest.mark.parametrize("content, line, what", [
    ("0 1\n1 2\nfoo bar\n", 3, "two integers"),
    ("# edges\n0 1\n\n1 2 3\n", 4, "two integers"),
    ("0 1\n1.5 0\n", 2, "two integers"),
    ("0 1\n-1 2\n", 2, "vertex ids must be integers >= 0"),
    ("0 1\n1 0\n0 1\n", 3, "repeats line 1"),
])
def test_construct_malformed_edges_file_names_option_file_and_line(tmp_path, capsys, content, line, what):
    edges = tmp_path / "edges.txt"
    edges.write_text(content)
    _refused(["construct", "--algorithm", "1", "--graph", "edges", str(edges), "--d-model", "8"], "--graph edges",
             tmp_path, capsys, contains=(str(edges), f"line {line}:", what))


def test_construct_edges_file_without_edges_or_beyond_m(tmp_path, capsys):
    edges = tmp_path / "edges.txt"
    edges.write_text("# nothing\n")
    _refused(["construct", "--algorithm", "1", "--graph", "edges", str(edges), "--d-model", "8"], "--graph edges",
             tmp_path, capsys, contains=("no edges",))
    edges.write_text("0 1\n1 5\n")
    _refused(["construct", "--algorithm", "1", "--graph", "edges", str(edges), "--m", "4", "--d-model", "8"],
             "--graph edges", tmp_path, capsys, contains=("line 2:", "< m = 4"))
    edges.write_text("0 1\n1 2\n2 0\n")
    assert main(["construct", "--algorithm", "1", "--graph", "edges", str(edges), "--d-model", "8", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["construction"]["m"] == 3
