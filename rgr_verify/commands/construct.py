"""``rgr-verify construct``: build one of Algorithms 1-5 and print its margins, noise terms and failing pairs.

Example: ``rgr-verify construct --algorithm 1 --graph permutation --m 512 --d-model 384 --d-k 1600 --seed 0``.
Scores are over every ordered pair of V (self-pairs included); the noise terms are App. B.2's Signal, N1, N2, N3
(Rademacher constructions); the limit margin is the d_k -> infinity margin of S / d_k (no d_k helps when it is
negative).
"""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path

import numpy as np

from ..basics.checks import check_choice, check_int, check_real
from ..models.constructions import ALGORITHMS, build, default_d_k
from ..core.embeddings import binary_compressive_embeddings, gaussian_unit_norm_embeddings, one_hot_embeddings
from ..core.graphs import digraph_from_edges, random_permutation_graph, random_regular_graph
from ..analysis.measurements import limit_score_matrix, noise_summary, normalised_margin, separation_margins
from ._options import add_d_k, add_d_model, add_heads, add_json_flag, add_m, add_seed, usage_errors

NAME = "construct"
HELP = "build an explicit construction (Algorithms 1-5) and print its margins, noise terms and failing pairs"
ORDER = 60


def add_arguments(p) -> None:
    p.add_argument("--algorithm", type=int, required=True, choices=ALGORITHMS, help="Algorithm 1-5 of the paper")
    p.add_argument("--graph", nargs="+", default=["permutation"], metavar="KIND",
                   help="permutation | regular | edges FILE (FILE: one 'source target' pair per line)")
    add_m(p, help="number of items (>= 2; taken from FILE for --graph edges if omitted)")
    p.add_argument("--degree", type=int, default=2, help="degree r of --graph regular (default 2)")
    add_d_model(p, help="embedding dimension (ignored by Algorithm 3)")
    add_heads(p, help="heads: sets the block size ceil(m / heads) for Algorithms 1, 2, 4 and the number of colours "
                      "for Algorithm 5")
    add_d_k(p, help="per-head width (default ceil(C ln m))")
    p.add_argument("--C", type=float, default=40.0, help="constant in the default d_k = ceil(C ln m) (default 40)")
    p.add_argument("--block-size", type=int, dest="block_size", help="block size B (overrides --heads)")
    p.add_argument("--p", type=float, help="Bernoulli signature density (Algorithm 3: 1/4, Algorithm 4: 1/20)")
    p.add_argument("--embeddings", default="gaussian", choices=("gaussian", "binary"),
                   help="Gaussian unit-norm rows, or Bernoulli(ln m / d_model) binary rows (Corollary B.7)")
    add_seed(p, default=0, help="seed of the graph, embeddings and signatures")
    p.add_argument("--max-failures", type=int, default=10, dest="max_failures", help="failing pairs to list")
    add_json_flag(p, help="print one JSON object")


def validate(args) -> None:
    """Check the options that need no graph (a ValueError names the option); the rest are checked as the
    construction is built from them (:func:`build_from_args`)."""
    check_int("--max-failures", args.max_failures, min_value=0)
    check_real("--C", args.C, low=0.0, low_open=True)
    if args.block_size is not None:
        check_int("--block-size", args.block_size, min_value=1)


def _read_edges(path: Path, m: int | None) -> np.ndarray:
    """The (source, target) pairs of an edges file: one pair of integers a line, ``#`` comments and blank lines
    ignored; ValueError naming --graph edges FILE, the file and the 1-based line of the first bad line."""
    where = f"--graph edges FILE {str(path)!r}"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    pairs, seen = [], {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        fields = body.split()
        if len(fields) != 2 or not all(f.lstrip("+-").isdigit() for f in fields):
            raise ValueError(f"{where}, line {lineno}: expected 'source target' (two integers), got {line.strip()!r}")
        u, v = (int(f) for f in fields)
        if u < 0 or v < 0 or (m is not None and max(u, v) >= m):
            hi = "" if m is None else f", < m = {m}"
            raise ValueError(f"{where}, line {lineno}: vertex ids must be integers >= 0{hi}, got {u} {v}")
        if (u, v) in seen:
            raise ValueError(f"{where}, line {lineno}: edge {u} {v} repeats line {seen[(u, v)]} (no multi-edges)")
        seen[(u, v)] = lineno
        pairs.append((u, v))
    if not pairs:
        raise ValueError(f"{where}: holds no edges (one 'source target' pair a line)")
    return np.asarray(pairs, dtype=np.int64)


def _graph(args, rng):
    kind = args.graph[0]
    check_choice("--graph", kind, ("permutation", "regular", "edges"))
    if kind == "edges":
        if len(args.graph) != 2:
            raise ValueError("--graph must be 'edges FILE' with one file")
        path = Path(args.graph[1])
        if not path.is_file():
            raise ValueError(f"--graph edges FILE must be a readable file, got {str(path)!r}")
        m = None if args.m is None else check_int("--m", args.m, min_value=2)
        pairs = _read_edges(path, m)
        if m is None:
            m = max(2, int(pairs.max()) + 1)
        try:
            return digraph_from_edges(m, pairs)
        except ValueError as exc:
            raise ValueError(f"--graph edges FILE {str(path)!r}: {exc}") from None
    if len(args.graph) != 1:
        raise ValueError(f"--graph {kind} takes no file")
    m = check_int("--m", args.m, min_value=2) if args.m is not None else None
    if m is None:
        raise ValueError("--m must be given (an integer >= 2)")
    if kind == "permutation":
        return random_permutation_graph(m, rng=rng)
    return random_regular_graph(m, check_int("--degree", args.degree, min_value=1, max_value=m - 1), rng=rng)


def build_from_args(args):
    """The graph, embeddings and construction described by the command-line arguments; a ValueError names the
    option (or the construction's parameter) whose value is refused."""
    rng = np.random.default_rng(check_int("--seed", args.seed, min_value=0))
    g = _graph(args, rng)
    m = g.m
    if args.algorithm == 3:
        X = one_hot_embeddings(m)
    else:
        if args.d_model is None:
            raise ValueError("d_model must be given (an integer >= 1) for Algorithms 1, 2, 4, 5")
        d = check_int("--d-model", args.d_model, min_value=1)
        if args.embeddings == "binary":
            X = binary_compressive_embeddings(m, d, min(0.5, math.log(m) / d), rng=rng)
        else:
            X = gaussian_unit_norm_embeddings(m, d, rng=rng)
    C = check_real("--C", args.C, low=0.0, low_open=True)
    d_k = check_int("--d-k", args.d_k, min_value=1) if args.d_k is not None else default_d_k(m, C)
    B = args.block_size
    if B is None and args.heads is not None and args.algorithm in (1, 2, 4):
        B = math.ceil(m / check_int("--heads", args.heads, min_value=1, max_value=m))
    if args.algorithm == 5 and args.heads is not None and args.block_size is None:
        from ..models.constructions import algorithm5

        heads = check_int("--heads", args.heads, min_value=max(1, g.max_degree))
        with _named_parameters():
            return g, X, algorithm5(g, X, d_k=d_k, rng=rng, n_colors=heads)
    with _named_parameters():
        return g, X, build(args.algorithm, g, X, d_k=d_k, rng=rng, block_size=B, p=args.p)


# the construction's parameters that carry an option's value: its ValueError names the option
_OPTION_OF = {"p": "--p", "block_size": "--block-size", "d_k": "--d-k", "n_colors": "--heads"}


@contextlib.contextmanager
def _named_parameters():
    try:
        yield
    except ValueError as exc:
        option = _OPTION_OF.get(str(exc).split(" ", 1)[0])
        raise ValueError(f"{option}: {exc}" if option else str(exc)) from None


def run(args) -> int:
    with usage_errors():  # every value the construction is built from is the user's
        validate(args)
        g, X, c = build_from_args(args)
    mg = separation_margins(c, max_failures=args.max_failures)
    out = {"construction": c.summary(), "margins": mg.as_dict(), "normalised": normalised_margin(c, margins=mg)}
    if c.signatures == "rademacher" and c.aggregation == "max":
        lim = separation_margins(c, scores=limit_score_matrix(c), tau=0.5, max_failures=0)
        out["limit_margin_over_dk"] = {"margin": lim.margin, "best_margin": lim.best_margin}
        if c.m * c.m * c.n_heads <= 2**26:
            ns = noise_summary(c)
            out["noise"] = {g_: {t: {"mean": v["mean"], "std": v["std"], "max_abs": v["max_abs"]}
                                 for t, v in ns[g_].items()} for g_ in ("edge", "same-block", "off-block") if g_ in ns}
    if args.json:
        print(json.dumps(out, default=float, indent=1))
        return 0
    s = out["construction"]
    print(f"Algorithm {s['algorithm']}: m={s['m']} m'={s['n_edges']} d_model={s['d_model']} heads={s['n_heads']} "
          f"d_k={s['d_k']} D_K={s['D_K']} tau={s['tau']:g} aggregation={s['aggregation']} "
          f"signatures={s['signatures']} block_size={s['block_size']}")
    print(f"margins over all ordered pairs of V: min edge - tau = {mg.edge_margin:.4g}, tau - max non-edge = "
          f"{mg.nonedge_margin:.4g}, margin = {mg.margin:.4g} ({'separates' if mg.separated else 'FAILS'}); "
          f"best threshold {mg.best_threshold:.4g} with margin {mg.best_margin:.4g}")
    print(f"normalised (26): margin / (||U||_F ||V||_F) = {out['normalised']['normalised_margin']:.3g}")
    if "limit_margin_over_dk" in out:
        lm = out["limit_margin_over_dk"]
        print(f"d_k -> infinity limit of S / d_k: margin {lm['margin']:.4g}, best-threshold margin {lm['best_margin']:.4g}"
              + ("  (negative: no d_k separates with these embeddings)" if lm["margin"] <= 0 else ""))
    if "noise" in out:
        print("noise terms (App. B.2), mean / std / max|.| over pairs:")
        for g_, terms in out["noise"].items():
            print(f"  {g_:<10} " + "  ".join(f"{t}: {v['mean']:.3g}/{v['std']:.3g}/{v['max_abs']:.3g}"
                                          for t, v in terms.items() if not t.startswith("E_")))
    print(f"{mg.n_failures} failing ordered pairs" + (":" if mg.failing_pairs else ""))
    for i, j, sc, is_edge in mg.failing_pairs:
        print(f"  ({i}, {j}) {'edge' if is_edge else 'non-edge'} score {sc:.4g}")
    return 0
