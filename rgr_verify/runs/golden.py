"""Golden re-execution: the engine that ships must reproduce a sample of the committed evidence's records
(``empirical/test_golden.py`` retrains :func:`golden_sample` and compares with :func:`golden_mismatches`)."""

from __future__ import annotations

from .evidence import manifests, read_evidence

__all__ = ["golden_sample", "golden_mismatches", "GOLDEN_TOLERANCE"]


#: Tolerances of :func:`golden_mismatches`, for records made on CUDA in float32 and retrained on a CPU in float32.
#: The two devices sum in different orders (about 1e-7 relative per operation); over thousands of AdamW steps the
#: trajectories stay within about 1e-4 of each other in tau (measured on the stored sample: |d tau| <= 2e-4 for runs
#: that stop at the same check). A validation F1 within that noise of the 0.995 stop bar can move the stop by one
#: check (500 steps), after which tau differs by the extra training; so a run may stop one check apart, at most
#: ``max_moved`` of the sample. A changed learning rate, optimiser constant, loss or sampler moves tau by far more
#: than ``tau_rel`` in every run and the stop step in most (empirical/test_golden.py plants such a change).
GOLDEN_TOLERANCE = {"metric_abs": 2e-3, "tau_rel": 2e-3, "moved_metric_abs": 1e-2, "max_moved": 2}


def _retrain_cost(rec: dict) -> tuple:
    """CPU cost model of retraining a run: steps x (a fixed per-step cost + one proportional to h x d_k) x m."""
    c = rec["config"]
    return rec["steps"] * (1 + c["n_heads"] * c["d_k"] / 64) * c["m"], rec["key"]


def golden_sample(per_kind: int = 6, directory=None) -> list[dict]:
    """A fixed sample of stored records to retrain: for every kind of run in the complete stores (variant and graph:
    max / permutation, max / regular, softmax, value), the ``per_kind`` early stoppers cheapest to retrain on a CPU
    (:func:`_retrain_cost`, then key). Early stoppers exercise sampling, training, the checks, the stopping rule and
    the test evaluation at a fraction of a capped run's cost."""
    if isinstance(per_kind, bool) or not isinstance(per_kind, int) or per_kind < 1:
        raise ValueError(f"per_kind must be an integer >= 1, got {per_kind!r}")
    kinds: dict[tuple, list] = {}
    for man in manifests(directory):
        if man.engine and man.complete:
            for rec in read_evidence(man, directory).values():
                if rec["stopped_early"]:
                    kinds.setdefault((rec["config"]["variant"], rec["config"]["graph"]), []).append(rec)
    out = []
    for kind in sorted(kinds):
        out.extend(sorted(kinds[kind], key=_retrain_cost)[:per_kind])
    return out


def golden_mismatches(records: list[dict], results, tolerance: dict | None = None) -> list[str]:
    """Where retrained ``results`` (RunResult, in the order of ``records``) leave the stored ``records`` beyond
    ``tolerance`` (default :data:`GOLDEN_TOLERANCE`); empty when the engine reproduces them."""
    tol = {**GOLDEN_TOLERANCE, **(tolerance or {})}
    if len(records) != len(results):
        raise ValueError(f"records and results must have the same length, got {len(records)} and {len(results)}")
    problems, moved = [], 0
    for rec, res in zip(records, results):
        c = rec["config"]
        where = (f"{c['variant']}/{c['graph']} m={c['m']} d_model={c['d_model']} h={c['n_heads']} d_k={c['d_k']}"
                 f" seed={rec['seed']}")
        d_metric = abs(res.metric - rec["metric"])
        if res.steps == rec["steps"]:
            d_tau = abs(res.tau - rec["tau"])
            if d_metric > tol["metric_abs"] or d_tau > tol["tau_rel"] * max(1.0, abs(rec["tau"])):
                problems.append(f"{where}: metric {res.metric:.5f} vs stored {rec['metric']:.5f}, tau {res.tau:.5f} "
                                f"vs {rec['tau']:.5f} at the same stop step {res.steps}")
        elif abs(res.steps - rec["steps"]) == c["check_every"] and d_metric <= tol["moved_metric_abs"]:
            moved += 1
        else:
            problems.append(f"{where}: stopped at step {res.steps}, stored {rec['steps']} (metric {res.metric:.5f} vs "
                            f"{rec['metric']:.5f})")
    if moved > tol["max_moved"]:
        problems.append(f"{moved} runs stopped one check away from their stored step (at most {tol['max_moved']})")
    return problems
