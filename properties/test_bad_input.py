# Bad input: every public function and CLI option rejects invalid values with a ValueError (CLI: one line, exit 2)
# that names the parameter and its allowed range, and writes nothing.
import subprocess
import sys

import numpy as np
import pytest
import torch

import rgr_verify as R
from rgr_verify.claims import get_claim, select_claims
from rgr_verify.cli import main

RNG = np.random.default_rng(0)
G = R.permutation_graph([1, 2, 3, 0])

LIBRARY_CASES = [
    ("m < 1", lambda: R.random_permutation_graph(0, rng=RNG), "m must be an integer >= 1"),
    ("m not an integer", lambda: R.random_permutation_graph(2.5, rng=RNG), "m must be an integer"),
    ("d_model < 1", lambda: R.gaussian_unit_norm_embeddings(4, 0, rng=RNG), "d_model must be an integer >= 1"),
    ("ell > m", lambda: R.sample_context(G, 5, 0.5, rng=RNG), "ell must be an integer in [1, 4]"),
    ("ell < 1", lambda: R.sample_contexts(G, 3, 0, 0.5, rng=RNG), "ell must be an integer in [1, 4]"),
    ("rho > 1", lambda: R.sample_context(G, 2, 1.5, rng=RNG), "rho must be a finite real number in [0, 1]"),
    ("rho < 0", lambda: R.sample_context(G, 2, -0.1, rng=RNG), "rho must be a finite real number in [0, 1]"),
    ("rho NaN", lambda: R.sample_context(G, 2, float("nan"), rng=RNG), "rho must be a finite real number"),
    ("unknown sampler reading", lambda: R.sample_context(G, 2, 0.5, rng=RNG, reading="other"), "reading must be one of"),
    ("rng not a Generator", lambda: R.random_permutation_graph(4, rng=0), "rng must be a numpy.random.Generator"),
    ("D_K not divisible by h", lambda: R.split_heads(torch.zeros(4, 6), 4), "D_K must be divisible by n_heads"),
    ("n_heads < 1", lambda: R.split_heads(torch.zeros(4, 6), 0), "n_heads must be an integer >= 1"),
    ("r >= m", lambda: R.random_regular_graph(5, 5, rng=RNG), "r must be an integer in [1, 4]"),
    ("r < 1", lambda: R.random_regular_graph(5, 0, rng=RNG), "r must be an integer in [1, 4]"),
    ("not a permutation", lambda: R.permutation_graph([0, 0, 1]), "perm must be a permutation of 0..2"),
    ("permutation of floats", lambda: R.permutation_graph([0.0, 1.0]), "perm must hold integers"),
    ("NaN embeddings", lambda: R.embeddings_from_matrix([[1.0, np.nan]]), "X must contain only finite values"),
    ("zero-norm embedding row", lambda: R.embeddings_from_matrix([[1.0, 0.0], [0.0, 0.0]]), "X must have no zero-norm rows"),
    ("embedding rows != m", lambda: R.embeddings_from_matrix(np.eye(3), m=4), "X must have m = 4 rows"),
    ("Bernoulli p outside (0, 1]", lambda: R.binary_compressive_embeddings(4, 2, 0.0, rng=RNG), "p must be a finite real number in (0, 1]"),
    ("edge id out of range", lambda: R.digraph_from_edges(3, [(0, 3)]), "edges must hold vertex ids in [0, 2]"),
    ("multi-edge", lambda: R.digraph_from_edges(3, [(0, 1), (0, 1)]), "multi-edges"),
    ("context with repeats", lambda: R.in_context_neighbours(G, 0, [0, 0]), "context must hold distinct vertices"),
    ("vertex not in context", lambda: R.in_context_neighbours(G, 3, [0, 1]), "v must be a vertex of the context"),
    ("W_Q/W_K shape mismatch", lambda: R.head_scores(torch.zeros(1, 2, 3), torch.zeros(2, 3, 4), torch.zeros(2, 3, 5)),
     "W_Q and W_K must have the same shape"),
    ("W d_model mismatch", lambda: R.head_scores(torch.zeros(1, 2, 3), torch.zeros(2, 4, 4), torch.zeros(2, 4, 4)),
     "W_Q must have d_model=3 rows per head"),
    ("NaN weights", lambda: R.max_over_heads_scores(torch.zeros(1, 2, 3), torch.full((1, 3, 2), float("nan")),
                                                    torch.zeros(1, 3, 2)), "W_Q must contain only finite values"),
    ("unknown aggregation", lambda: R.aggregate_scores(torch.zeros(1, 2, 3), torch.zeros(1, 3, 2), torch.zeros(1, 3, 2), "mean"),
     "aggregation must be one of"),
    ("tau shape", lambda: R.predict_edges(torch.zeros(2, 1, 3, 3), torch.zeros(3)), "tau must be a scalar or have shape [R]"),
    ("micro-F1 shapes", lambda: R.micro_f1(torch.zeros(2, 2, dtype=bool), torch.zeros(3, dtype=bool)), "pred and labels must have the same shape"),
    ("micro-F1 non-binary", lambda: R.micro_f1(torch.tensor([0.5]), torch.tensor([1.0])), "pred must contain only 0/1"),
    ("unknown claim id", lambda: get_claim("no-such-claim"), "unknown claim id 'no-such-claim'"),
    ("unknown tier", lambda: select_claims(tier="medium"), "tier must be one of 'quick', 'full', 'gpu'"),
    ("pattern matching nothing", lambda: select_claims("zzz-*"), "only: no claim id or reference matches 'zzz-*'"),
]


@pytest.mark.parametrize("what, call, message", LIBRARY_CASES, ids=[c[0] for c in LIBRARY_CASES])
def test_library_rejects_bad_input(what, call, message):
    with pytest.raises(ValueError, match=None) as info:
        call()
    assert message in str(info.value), f"{what}: message {str(info.value)!r} lacks {message!r}"


CLI_CASES = [
    (["audit", "--tier", "medium"], "--tier must be one of quick, full, gpu"),
    (["audit", "--only", "no-such-claim"], "only: no claim id or reference matches 'no-such-claim'"),
    (["audit", "--seed", "-3"], "--seed must be an integer in [0, 4294967295]"),
    (["audit", "--seed", "abc"], "--seed must be an integer"),
    (["audit", "--device", "tpu"], "--device must be 'cpu' or 'cuda'"),
    (["audit", "--out", "/nonexistent-dir/sub/report"], "--out: parent directory of"),
    (["audit", "--json", "/nonexistent-dir/report.json"], "--json: directory of"),
    (["audit", "--unknown-flag"], "unrecognized arguments: --unknown-flag"),
    (["no-such-command"], "invalid choice: 'no-such-command'"),
    ([], "a command is required"),
]


@pytest.mark.parametrize("argv, message", CLI_CASES, ids=[" ".join(c[0]) or "(none)" for c in CLI_CASES])
def test_cli_bad_usage_is_one_line_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rgr-verify: error: "), err
    assert message in err
    assert list(tmp_path.iterdir()) == [], "bad usage must not write anything"


def test_cli_rejects_out_path_that_is_a_file(tmp_path, capsys):
    target = tmp_path / "file.txt"
    target.write_text("x")
    assert main(["audit", "--only", "appc-qk-parameters-depend-on-dk-only", "--out", str(target)]) == 2
    assert "exists and is not a directory" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--out", "--json"])
def test_cli_rejects_unwritable_directory(option, capsys):
    # /proc refuses new files even to root, so this works whatever user runs the tests
    target = "/proc/rgr-verify-report" + (".json" if option == "--json" else "")
    assert main(["audit", "--only", "appc-*", option, target]) == 2
    assert "is not writable" in capsys.readouterr().err


def test_cli_error_has_no_traceback_in_a_real_process(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "rgr_verify", "audit", "--tier", "bogus"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["rgr-verify: error: --tier must be one of quick, full, gpu, got 'bogus'"]
