# Off a terminal (stderr a file, as in CI logs) the audit, sweeps and mutate print one line per finished claim or
# unit, `<id> <status> <seconds>s`, and a closing line, instead of a tqdm bar (which would print nothing there, or
# carriage-return noise).
import json
import re
import subprocess
import sys

_SECONDS = r"\d+\.\d+s"


def _cli(tmp_path, *argv) -> tuple[int, list[str]]:
    err = tmp_path / "err.txt"
    with open(err, "w") as fh:
        proc = subprocess.run([sys.executable, "-m", "rgr_verify", *argv], stdout=subprocess.DEVNULL, stderr=fh,
                              timeout=300)
    return proc.returncode, err.read_text().splitlines()


def test_audit_prints_a_line_per_claim_off_a_terminal(tmp_path):
    out = tmp_path / "report"
    argv = ("audit", "--only", "thm41-sym-*", "--jobs", "1", "--out", str(out), "--quiet", "--results",
            str(tmp_path / "results"))
    rc, lines = _cli(tmp_path, *argv)
    assert rc == 0, lines
    statuses = {c["id"]: c["status"] for c in json.loads((out / "report.json").read_text())["claims"]}
    assert len(statuses) >= 2
    assert "\r" not in "".join(lines)  # no bar
    per_claim = lines[:-1]
    assert sorted(line.split()[0] for line in per_claim) == sorted(statuses), lines
    for line in per_claim:
        cid, status, seconds = line.split()
        assert status == statuses[cid] and re.fullmatch(_SECONDS, seconds), line
    n = len(statuses)
    assert re.fullmatch(rf"audit: {n} claims in \d+\.\d+ s \({n} run, 0 verdicts reused from the verdict store "
                        r".+verdicts\.jsonl\)", lines[-1]), lines
    rc, lines = _cli(tmp_path, *argv)  # again: every verdict reused from the verdict store, and each line says so
    assert rc == 0, lines
    for line in lines[:-1]:
        assert re.fullmatch(rf"\S+ \S+ {_SECONDS} \(reused: \S+, \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)", line), line
    assert re.fullmatch(rf"audit: {n} claims in \d+\.\d+ s \(0 run, {n} verdicts reused from the verdict store "
                        r".+verdicts\.jsonl; --fresh reruns them\)", lines[-1]), lines


def test_sweep_prints_a_line_per_unit_off_a_terminal(tmp_path):
    argv = ("sweep", "micro", "--results", str(tmp_path / "results"), "--unit-max-batch", "2")
    rc, lines = _cli(tmp_path, *argv)
    assert rc == 0, lines
    units = [line for line in lines if re.fullmatch(rf"[0-9a-f]{{16}} done {_SECONDS}", line)]
    assert len(units) == 8 and len(set(units)) == 8, lines  # micro: 16 runs in 8 units of 2
    assert re.fullmatch(r"micro \[quick\]: 8 of 8 units done \(16 of 16 runs\) in \d+\.\d+ s", lines[-1]), lines
    rc, lines = _cli(tmp_path, *argv)  # resumed: nothing left, units already stored get no line each
    assert rc == 0 and len(lines) == 1 and lines[0].startswith("micro [quick]: 8 of 8 units done"), lines
    rc, lines = _cli(tmp_path, *argv, "--no-progress")
    assert rc == 0 and lines == [], lines


def test_mutate_prints_a_line_per_claim_off_a_terminal(tmp_path):
    rc, lines = _cli(tmp_path, "mutate", "--only", "eq22-sym-ratio-identity", "--jobs", "1", "--device", "cpu",
                     "--json", str(tmp_path / "m.json"))
    assert rc == 0, lines
    row = json.loads((tmp_path / "m.json").read_text())
    assert len(lines) == 2, lines
    assert re.fullmatch(rf"eq22-sym-ratio-identity killed {row['killed']} survived {len(row['survivors'])} "
                        rf"{_SECONDS}", lines[0]), (lines, row)
    assert re.fullmatch(rf"mutate: 1 claims, {row['killed']} of {row['mutants']} mutants killed in \d+\.\d+ s",
                        lines[1]), lines
