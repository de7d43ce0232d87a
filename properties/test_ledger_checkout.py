# --update-ledger writes the ledger of the checkout in the working directory, never an installed copy elsewhere.
from pathlib import Path

from rgr_verify.claims.ledger import checkout_ledger
from rgr_verify.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_the_checkout_ledger_is_found_from_any_folder_inside_it(tmp_path):
    assert checkout_ledger(ROOT / "properties") == ROOT / "rgr_verify" / "claims" / "ledger.txt"
    assert checkout_ledger(tmp_path) is None
    fake = tmp_path / "clone"
    (fake / "rgr_verify" / "claims").mkdir(parents=True)
    (fake / "rgr_verify" / "claims" / "ledger.txt").write_text("")
    assert checkout_ledger(fake / "rgr_verify") is None  # a checkout has its pyproject.toml
    (fake / "pyproject.toml").write_text("")
    assert checkout_ledger(fake / "rgr_verify") == fake / "rgr_verify" / "claims" / "ledger.txt"


def test_update_ledger_outside_a_checkout_is_refused_before_anything_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "--only", "sec3-sym-*", "--update-ledger", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--update-ledger" in err[0]
    assert not (tmp_path / "out").exists()
