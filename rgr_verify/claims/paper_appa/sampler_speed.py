"""App. A.1's remark on the rate-enforcing sampler (rho = 0.5 in every experiment): the enforcement keeps the RGR
labels as they are and makes training shorter. Two claims, one per part.

* The labels: whatever steps 2-3 put into a context, the positive pairs are exactly the pairs (c_p, c_q) with
  c_q = pi(c_p), both ends in the context (at most one per source). Checked on the reference sampler and on the
  engine's, every reading of step 3 and without the enforcement (:mod:`rgr_verify.core.contexts`), against pi itself.
* The training time: the base-grid slice of preset ``sec6-grid-uniform`` (m = 64, d_model in {16, 32}, the rungs
  around each cell's D_K*, h in {1, 2, 4, 8}, 10 seeds, Table 2 caps) trained with steps 2-3 switched off (rho = 0:
  uniform contexts for training, validation and test, the A.1 generator without its enforcement), each run paired
  with its rho = 0.5 twin in the committed ``sec6-grid`` evidence (same config, same seed: same graph, embeddings and
  initial weights). Per seed (seeds are the independent draws; configs of one seed share its graph), the log of
  the ratio of the total steps the uniform runs take over the total the enforced runs take; a one-sided t-bound of
  the mean each way at a level fixed in advance (:func:`speed_status`, the comparison standard on the log scale):
  the ratio's interval wholly above 1 holds, wholly at or below 1 contradicts, else inconclusive. A run stopped by
  the step cap counts the cap (the steps the protocol spent on it; the time the uniform run would need to reach the
  stop is longer still, so a capped uniform run understates the claim and a capped enforced run overstates it: the
  counts of both are reported). What the runs learn is reported beside the steps (test micro-F1 of each side, on its
  own protocol's test contexts).

Rule fixed before the uniform runs were trained.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from ...analysis.capacity import f1_target
from ...core.contexts import context_labels, sample_contexts
from ...core.graphs import random_permutation_graph
from ...core.strategies import seeds
from ..base import CheckContext, Claim, Kind, Tier, Verdict
from ..standards import Standard, advantage_interval, decide_advantage
from ..tools import property_verdict, sweep_records
from ..tools.multiverse import DIMENSIONS, multiverse_status, significance

__all__ = ["CLAIMS", "ORDER", "CONTRASTS", "speed_pairs", "steps_to", "seed_log_ratios", "speed_status"]

ORDER = 104  # with sampler (same ORDER, after it by name)

# ours: each end of the ratio's interval is a one-sided bound at this level (two one-sided tests); the paper states no
# size of the speed-up, so any ratio above 1 is "shorter"
_ALPHA = 0.05

# what "the time required to train" counts, per run: the declared contrast first (the protocol's own stopping rule)
CONTRASTS = ("steps to the early stop (as run; a capped run counts its cap)",
             "steps to the first validation check at the F1 target (a run that never reaches it: its steps as run)")

_UNIFORM_RHO = 0.0
_ENFORCED_RHO = 0.5  # App. A.1: every experiment uses rho = 0.5


def _twin_key(rec) -> tuple:
    """A run's config without rho (the sampler's reading defaulted to the engine's, for records stored before the
    field existed) and its seed: a uniform run and its enforced twin share it."""
    c = {"sampler": "literal", **rec["config"]}
    c.pop("rho", None)
    return tuple(sorted(c.items())) + (("seed", int(rec["seed"])),)


def speed_pairs(uniform, enforced) -> list[dict]:
    """Pairs ``{"cell", "D_K", "h", "seed", "uniform", "enforced"}`` (records) of every rho = 0 run of ``uniform``
    with its rho = 0.5 twin in ``enforced`` (same config otherwise, same seed). ValueError for a uniform run without
    its twin, or no pair at all."""
    twins = {_twin_key(r): r for r in enforced if float(r["config"]["rho"]) == _ENFORCED_RHO}
    out = []
    for r in uniform:
        c = r["config"]
        if float(c["rho"]) != _UNIFORM_RHO:
            continue
        twin = twins.get(_twin_key(r))
        if twin is None:
            raise ValueError(f"no enforced twin (rho = {_ENFORCED_RHO}) of the uniform run {c} seed {r['seed']}")
        out.append({"cell": (int(c["m"]), int(c["d_model"])), "D_K": int(c["n_heads"]) * int(c["d_k"]),
                    "h": int(c["n_heads"]), "seed": int(r["seed"]), "uniform": r, "enforced": twin})
    if not out:
        raise ValueError("no uniform run (rho = 0) to pair")
    return out


def steps_to(rec, contrast: int, target: float) -> int:
    """The steps a run took to train under contrast ``contrast`` (an index of :data:`CONTRASTS`): 0, the steps as
    run (early stop or cap); 1, the steps at the first validation check whose micro-F1 is at least ``target`` (the
    steps as run when none is)."""
    if contrast == 0:
        return int(rec["steps"])
    if contrast != 1:
        raise ValueError(f"contrast must be 0 or 1, got {contrast!r}")
    every = int(rec["config"]["check_every"])
    for i, v in enumerate(rec["val_history"]):
        if float(v) >= target:
            return (i + 1) * every
    return int(rec["steps"])


def seed_log_ratios(pairs, contrast: int, target: float) -> dict[int, float]:
    """{seed: ln(total steps of the seed's uniform runs / total steps of their enforced twins)} over ``pairs``."""
    tot: dict[int, list] = {}
    for p in pairs:
        t = tot.setdefault(p["seed"], [0, 0])
        t[0] += steps_to(p["uniform"], contrast, target)
        t[1] += steps_to(p["enforced"], contrast, target)
    return {s: math.log(u / e) for s, (u, e) in sorted(tot.items())}


def speed_status(log_ratios, level: float):
    """The rule: the per-seed log ratios (uniform over enforced) -> their mean's interval, each end a one-sided t-bound
    at ``level`` (:func:`~rgr_verify.claims.standards.advantage_interval`), against the open band (0, inf) by the
    comparison standard (:func:`~rgr_verify.claims.standards.decide_advantage`, strict): lower end above 0 (the ratio
    wholly above 1: the enforced runs train faster) holds, upper end at or below 0 contradicts, else inconclusive.
    Returns (status, resolution, (mean, lo, hi)) on the log scale."""
    mean, lo, hi = advantage_interval(list(log_ratios), level)
    status, res = decide_advantage({"ln(uniform steps / enforced steps), mean over seeds": [lo, hi]}, 0.0,
                                   strict=True, level=level)
    return status, res, (mean, lo, hi)


def _side(recs) -> dict:
    f1 = [float(r["metric"]) for r in recs]
    return {"mean steps": round(float(np.mean([int(r["steps"]) for r in recs])), 1),
            "hit the cap": sum(not r["stopped_early"] for r in recs), "runs": len(recs),
            "mean test F1": round(float(np.mean(f1)), 4)}


def _f1_summary(pairs, level: float) -> dict:
    """What the runs learned: mean test F1 per side, the per-seed paired difference with its interval (descriptive),
    and the F1 of the uniform runs that hit the cap against their twins'."""
    by_seed: dict[int, list] = {}
    for p in pairs:
        by_seed.setdefault(p["seed"], []).append(float(p["uniform"]["metric"]) - float(p["enforced"]["metric"]))
    diffs = [float(np.mean(v)) for _, v in sorted(by_seed.items())]
    mean, lo, hi = advantage_interval(diffs, level)
    capped = [p for p in pairs if not p["uniform"]["stopped_early"]]
    u = _side([p["uniform"] for p in pairs])
    e = _side([p["enforced"] for p in pairs])
    word = "lower" if hi < 0 else "higher" if lo > 0 else "not distinguishable from"
    text = (f"the uniform runs end at mean test F1 {u['mean test F1']:.4f} against {e['mean test F1']:.4f} for the "
            f"enforced ones: {word} theirs (per-seed paired difference {mean:+.4f}, interval [{lo:+.4f}, {hi:+.4f}]), "
            "each side on its own protocol's test contexts; "
            f"{u['hit the cap']} of {u['runs']} uniform runs and {e['hit the cap']} of {e['runs']} enforced runs hit "
            "the step cap")
    if capped:
        cu = float(np.mean([float(p["uniform"]["metric"]) for p in capped]))
        ce = float(np.mean([float(p["enforced"]["metric"]) for p in capped]))
        text += f"; the capped uniform runs reach mean F1 {cu:.4f}, their enforced twins {ce:.4f}"
    return {"summary": text, "per-seed mean difference (uniform - enforced)": round(mean, 5),
            "interval": [round(lo, 5), round(hi, 5)]}


def _check_speed(ctx):
    enf, why = sweep_records("sec6-grid", "full", ctx)
    if enf is None:
        return Verdict.not_run(why)
    uni, why = sweep_records("sec6-grid-uniform", "full", ctx)
    if uni is None:
        return Verdict.not_run(why)
    pairs = speed_pairs(uni, enf)
    target = f1_target()  # App. A.2's bar (the multiverse's "F1 target" in an analysis): the second contrast's level
    level = significance(_ALPHA)
    cells = sorted({p["cell"] for p in pairs})
    declared, other = DIMENSIONS["contrast"]
    none, _ = DIMENSIONS["leave one cell out"]
    analyses, primary = [], None
    for ci, contrast in enumerate(CONTRASTS):
        for drop in [None] + cells:
            use = [p for p in pairs if p["cell"] != drop]
            ratios = seed_log_ratios(use, ci, target)
            status, res, (mean, lo, hi) = speed_status(ratios.values(), level)
            a = {"choices": {"contrast": f"{declared}: {contrast}" if ci == 0 else f"{other}: {contrast}",
                             "leave one cell out": none if drop is None else f"({drop[0]},{drop[1]})"},
                 "estimate": math.exp(mean), "interval": [math.exp(lo), math.exp(hi)], "status": status}
            analyses.append(a)
            if primary is None:
                primary = (a, res, ratios)
    status, robustness = multiverse_status(analyses)
    a, res, ratios = primary
    by_cell = {f"({m},{d})": {"uniform (rho = 0)": _side([p["uniform"] for p in pairs if p["cell"] == (m, d)]),
                              "enforced (rho = 0.5)": _side([p["enforced"] for p in pairs if p["cell"] == (m, d)])}
               for m, d in cells}
    by_config = {}
    for p in sorted(pairs, key=lambda p: (p["cell"], p["D_K"], p["h"], p["seed"])):
        key = f"({p['cell'][0]},{p['cell'][1]}) D_K={p['D_K']} h={p['h']}"
        by_config.setdefault(key, []).append(p)
    configs = {k: {"mean steps uniform / enforced": [_side([p["uniform"] for p in v])["mean steps"],
                                                     _side([p["enforced"] for p in v])["mean steps"]],
                   "capped uniform / enforced": [_side([p["uniform"] for p in v])["hit the cap"],
                                                 _side([p["enforced"] for p in v])["hit the cap"]],
                   "mean test F1 uniform / enforced": [_side([p["uniform"] for p in v])["mean test F1"],
                                                       _side([p["enforced"] for p in v])["mean test F1"]]}
               for k, v in by_config.items()}
    f1 = _f1_summary(pairs, level)
    per_seed = {str(s): round(math.exp(v), 4) for s, v in ratios.items()}
    return Verdict(status, evidence_level="experiment",
                   paper_value="App. A.1: enforcing the per-context positive rate (rho = 0.5) shortens training "
                               "(no size stated)",
                   measured_value={"ratio of steps, uniform over enforced (geometric mean over seeds)":
                                       round(a["estimate"], 4),
                                   "interval (each end one-sided at the level)": [round(x, 4) for x in a["interval"]],
                                   "per-seed ratios of total steps": per_seed,
                                   "F1": f1["summary"], "by cell": by_cell, "by config": configs},
                   witness=None if status.value == "holds-empirically" else per_seed,
                   params={"level per end (one-sided)": level, "F1 target (second contrast)": target,
                           "band (ratio)": [1.0, math.inf], "band": [1.0, math.inf], "pairs": len(pairs),
                           "seeds": sorted({p["seed"] for p in pairs}), "cells": [f"({m},{d})" for m, d in cells],
                           "resolution": res, "F1 paired difference": f1, "robustness": robustness},
                   details="Each rho = 0 run (steps 2-3 of the sampler off: uniform contexts for training, validation "
                           "and test) paired with its rho = 0.5 twin (same config and seed: same graph, embeddings "
                           "and initial weights). Per seed, the log of total uniform steps over total enforced steps; "
                           f"the mean's interval, each end a one-sided t-bound at {level:g}, against ratio 1: wholly "
                           "above holds, wholly at or below contradicts, else inconclusive. A run stopped by the cap "
                           "counts the cap. Analyses: the declared contrast (steps to the early stop) and steps to "
                           f"the first validation check at F1 >= {target:g}, each with every cell and with each cell "
                           f"left out; the verdict is their agreement. {robustness['summary']}.",
                   evidence=f"full sweeps ({len(pairs)} uniform runs of sec6-grid-uniform paired with their "
                            "sec6-grid twins), replayed")


def _check_labels(ctx: CheckContext) -> Verdict:
    import torch

    from ...engine import labels_torch, sample_contexts_torch

    @st.composite
    def cases(draw):
        m = draw(st.integers(2, 40))
        return {"m": m, "ell": draw(st.integers(1, m)), "rho": draw(st.sampled_from([0.0, 0.25, 0.5, 1.0])),
                "reading": draw(st.sampled_from(["literal", "protected", "uniform"])), "seed": draw(seeds())}

    def prop(case):
        rng = np.random.default_rng(case["seed"])
        g = random_permutation_graph(case["m"], rng=rng)
        pi = np.argmax(g.adjacency, axis=1)
        ell, rho, reading = case["ell"], case["rho"], case["reading"]
        ref = sample_contexts(g, 6, ell, rho, rng=rng, reading=reading)
        # the engine trains the uniform contexts as rho = 0 (steps 2-3 never fire)
        eng = sample_contexts_torch(pi[:, None], 6, ell, 0.0 if reading == "uniform" else rho, rng=rng,
                                    reading="literal" if reading == "uniform" else reading)
        for name, ctxs in (("reference", ref), ("engine", eng)):
            want = pi[ctxs][..., :, None] == ctxs[..., None, :]  # (p, q) positive iff c_q = pi(c_p)
            got = {"reference labels": context_labels(g, ctxs),
                   "engine labels": labels_torch(torch.as_tensor(pi[:, None])[None],
                                                 torch.as_tensor(ctxs)[None])[0].numpy()}
            for which, y in got.items():
                assert np.array_equal(y, want), f"{which} of {name} contexts differ from (c_p, pi(c_p)): {ctxs.tolist()}"
            assert want.sum(axis=-1).max() <= 1, "a source with two positives"

    return property_verdict(prop, cases(), ctx=ctx, max_examples=150,
                            paper_value="App. A.1: the positives of a context stay exactly its pairs (i, pi(i))")


CLAIMS = (
    Claim(
        id="appa1-sampler-keeps-edge-labels",
        ref="App. A.1",
        statement="Whatever the sampler's steps 2-3 place in a context, its positive pairs are exactly the pairs "
                  "(i, pi(i)) with both ends in the context, at most one per source (reference sampler and engine, "
                  "every reading of step 3 and without the rate enforcement).",
        kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_labels, role="detail",
        notes="The first half of App. A.1's remark on rho: the enforcement changes which vertices a context holds, "
              "never how a pair is labelled. Permutation graphs with m <= 40, ell in [1, m], rho in {0, 0.25, 0.5, 1}, "
              "readings literal, protected and uniform; labels of the reference (contexts.context_labels) and of the "
              "engine (engine.labels_torch on engine.sample_contexts_torch's contexts) against pi itself.",
    ),
    Claim(
        id="appa1-rate-enforcing-sampler-trains-faster",
        ref="App. A.1",
        analyses=("leave one seed out", "F1 target", "test level"),
        statement="Training with the rate-enforcing sampler (rho = 0.5) takes fewer steps than training the same "
                  "model on uniformly drawn contexts (steps 2-3 of the sampler skipped); judged on a slice of the base grid "
                  "(m = 64, d_model 16 and 32).",
        kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_speed, role="detail",
        replays=("sec6-grid", "sec6-grid-uniform"),
        notes="The second half of App. A.1's remark on rho. Ours: the slice (m = 64, d_model in {16, 32}; per cell "
              "the rung below D_K*, D_K* and two rungs above; h in {1, 2, 4, 8}; 10 seeds; Table 2 caps), uniform "
              "contexts as rho = 0 of the A.1 generator for training, validation and test alike (the protocol "
              "without its enforcement; the early stop of those runs is read on uniform validation contexts), and "
              "the rule, fixed before the uniform runs were trained: per seed the log of total uniform steps over "
              "total enforced steps (paired by config and seed), the mean's one-sided t-bounds at 0.05 each way, "
              "ratio wholly above 1 holds, wholly at or below 1 contradicts, else inconclusive. A capped run counts "
              "the cap. Multiverse: contrast (steps to the early stop; steps to the first validation check at the "
              "F1 target), each cell left out, each seed left out, F1 target, test level. Test F1 of both sides is "
              "reported with the steps (a faster run that learns less is not the same training); each side's F1 "
              "is on its own protocol's test contexts. The realised positive rate at m = 64 is about 0.39 "
              "(literal sampler, appa1-sampler-positive-rate) against (ell - 1)/(m - 1) = 0.24 for uniform contexts.",
        standard=Standard("comparison", "the ratio of training steps, uniform contexts over rate-enforced contexts "
                                        "(per seed, total over the slice's configs; geometric mean over seeds)",
                          tolerance="the ratio's interval (each end a one-sided t-bound at 0.05) wholly above 1 "
                                    "holds; wholly at or below 1 contradicts; else inconclusive",
                          source="ours: the paper states no size of the speed-up, so any ratio above 1 is shorter "
                                 "training; level 0.05 per end fixed in advance",
                          primary="per-seed log ratio of total steps to the early stop (a capped run counts the "
                                  "cap), paired by config and seed; t-interval of the mean over seeds",
                          dimensions=("contrast", "leave one cell out"),
                          alternative=("uniform_same_steps", "holds-empirically")),
    ),
)
