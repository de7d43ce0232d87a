"""``rgr-verify facts PRESET``: train a "Paying Attention to Facts" (arXiv 2502.05076) preset into the results store
(``facts-runs.jsonl``, resumable) and print mean accuracies per layer shape."""

from __future__ import annotations

import time

NAME = "facts"
HELP = "train a 2502.05076 facts-model preset (facts-fig4, facts-fig3, facts-rank80) and summarise it"
ORDER = 45


def add_arguments(p):
    p.add_argument("preset", help="facts-fig4, facts-fig3 or facts-rank80")
    p.add_argument("--tier", default="quick", help="quick (default, CPU minutes) or full (the paper's 10 seeds, 2000 epochs)")
    p.add_argument("--results", metavar="DIR", help="results store (default: $RGR_VERIFY_RESULTS or ~/.cache/rgr-verify/results)")
    p.add_argument("--threads", metavar="N", type=int, default=1, help="torch threads (default 1)")


def run(args) -> int:
    import numpy as np
    import torch

    from ..basics.checks import check_int
    from ..runs.facts import FACTS_STORE, ensure_facts_runs
    from ..runs.facts import facts_preset_runs as preset_runs
    from ..runs.store import default_results_dir
    from ._paths import writable_dir_target

    runs = preset_runs(args.preset, args.tier)  # validates preset and tier
    torch.set_num_threads(check_int("--threads", args.threads, min_value=1))
    results = writable_dir_target(args.results, "--results") if args.results else default_results_dir()
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
