"""``rgr-verify facts PRESET``: train a "Paying Attention to Facts" (arXiv 2502.05076) preset into the results store
(``facts-runs.jsonl``, resumable) and print mean accuracies per layer shape."""

from __future__ import annotations

import time

from ._options import add_results, add_threads, add_tier, results_given, usage_errors, writable_dir_target

NAME = "facts"
HELP = "train a 2502.05076 facts-model preset (facts-fig4, facts-fig3, facts-rank80) and summarise it"
ORDER = 45


def add_arguments(p):
    p.add_argument("preset", help="facts-fig4, facts-fig3 or facts-rank80")
    add_tier(p, help="quick (CPU minutes) or full (the paper's 10 seeds, 2000 epochs)")
    add_results(p, help="results store")
    add_threads(p, help="torch threads (default 1)")


def validate(args) -> list:
    """Check the options (a ValueError names the option); the preset's (config, seed) runs."""
    from ..runs.facts import facts_preset_runs
    from ..runs.store import validate_store

    runs = facts_preset_runs(args.preset, args.tier)  # validates the preset
    if results_given(args):
        writable_dir_target(args.results, "--results")
    with usage_errors("--results"):  # a store with a bad line: refused before anything is trained (file and line)
        validate_store(args.results)
    return runs


def run(args) -> int:
    import numpy as np
    import torch

    from ..runs.facts import FACTS_STORE, ensure_facts_runs

    with usage_errors():
        runs = validate(args)
    torch.set_num_threads(args.threads)
    results = args.results
    start = time.perf_counter()
    recs = ensure_facts_runs(runs, results_dir=results, lock_name=f"{args.preset}-{args.tier}")
    seconds = time.perf_counter() - start
    cells: dict[tuple, list[dict]] = {}
    for r in recs:
        c = r["config"]
        cells.setdefault((c["d_model"], c["n_heads"], c["d_qk"], c["d_vo"]), []).append(r)
    print(f"{'d_model':>7} {'H':>3} {'d_qk':>5} {'d_vo':>5} {'rank(L)<=':>9} {'argmax':>7} {'tau=0.95':>8} {'epochs':>7}")
    for (d, h, qk, vo), rs in sorted(cells.items()):
        print(f"{d:>7} {h:>3} {qk:>5} {vo:>5} {rs[0]['rank_bound']:>9} "
              f"{np.mean([r['accuracy']['argmax'] for r in rs]):>7.3f} "
              f"{np.mean([r['accuracy']['tau=0.95'] for r in rs]):>8.3f} {np.mean([r['epochs'] for r in rs]):>7.0f}")
    print(f"{len(recs)} runs ({args.preset}, {args.tier}) in {seconds:.1f} s; store: {results / FACTS_STORE}")
    return 0
