"""The claims toolkit: what checks of every part of the paper share.

- :mod:`.verdicts`: Hypothesis property verdicts, exact Monte Carlo verdicts, the Hypothesis profiles, a relative
  error of two score tensors;
- :mod:`.readings`: the scope of a refutation (hypotheses checked, outcome per reading);
- :mod:`.builders`: the symbolic-claim builder and the shared variable domains of the symbolic checks;
- :mod:`.sweeps`: fitted exponents of size sweeps, "w.h.p. for a sufficiently large C" sweeps, one-hot Monte Carlo,
  and the tier switch for larger examples;
- :mod:`.cells`: the Sec. 6 cell analysis of trained sweeps (D_K* intervals, fits, laws, cap sensitivity, the
  sampler's positive rate) and the grids and tables the paper states.

Seed strategies for Hypothesis come from :mod:`rgr_verify.core.strategies`. Every name below is importable from
``rgr_verify.claims.tools``.
"""

from .builders import VAR_D_K, VAR_D_MODEL, VAR_ELL, VAR_M, VAR_P, symbolic_claim, with_role
from .sharp import sharp_verdict
from .cells import (
    BASE_GRID,
    DIAGONAL,
    EXTRA,
    FAMILY_ALPHA,
    GRID_FULL_NOTES,
    TABLE1,
    TABLE2,
    band_text,
    cap_choices,
    cap_limited_cells,
    cap_table,
    cell_records,
    cell_rows,
    curve_artefacts,
    dk_intervals,
    dk_or_inf,
    full_grid,
    laws_block,
    multihead_advantage_verdict,
    permutation_cells,
    positive_rates,
    quick_sizes,
    readings_text,
    runs_by_config,
    reported_only,
    sampler_rates,
    seed_values,
    slope_reading,
    sweep_records,
    threshold_table,
    thresholds_plot,
)
from .readings import (FAILS, HOLDS, NOT_TESTED, outcome, outcome_word, reading_record, recorded, refutation_scope, verdict_over_readings,
                       with_readings)
from .rungs import end_level, rung, rung_at_least, rung_shift, seed_rungs, shift_interval, smallest_pvalue
from .sweeps import exponent_verdict, fit_exponent, full_tier, onehot_montecarlo, whp_constant_sweep
from .verdicts import (
    DEFAULT_MAX_EXAMPLES,
    monte_carlo_verdict,
    relation_holds,
    profile_scale,
    property_verdict,
    register_profiles,
    relative_error,
)

__all__ = [
    "property_verdict",
    "monte_carlo_verdict",
    "relation_holds",
    "DEFAULT_MAX_EXAMPLES",
    "profile_scale",
    "register_profiles",
    "relative_error",
    "reading_record",
    "with_readings",
    "verdict_over_readings",
    "outcome",
    "outcome_word",
    "recorded",
    "refutation_scope",
    "HOLDS",
    "FAILS",
    "NOT_TESTED",
    "symbolic_claim",
    "with_role",
    "VAR_M",
    "VAR_D_MODEL",
    "VAR_D_K",
    "VAR_P",
    "VAR_ELL",
    "fit_exponent",
    "exponent_verdict",
    "whp_constant_sweep",
    "full_tier",
    "onehot_montecarlo",
    "positive_rates",
    "TABLE1",
    "TABLE2",
    "BASE_GRID",
    "DIAGONAL",
    "EXTRA",
    "sweep_records",
    "permutation_cells",
    "dk_or_inf",
    "curve_artefacts",
    "thresholds_plot",
    "threshold_table",
    "runs_by_config",
    "dk_intervals",
    "cap_table",
    "cell_rows",
    "band_text",
    "slope_reading",
    "readings_text",
    "laws_block",
    "reported_only",
    "sampler_rates",
    "FAMILY_ALPHA",
    "quick_sizes",
    "cap_limited_cells",
    "multihead_advantage_verdict",
    "seed_values",
    "cell_records",
    "full_grid",
    "sharp_verdict",
    "GRID_FULL_NOTES",
    "rung",
    "rung_at_least",
    "seed_rungs",
    "shift_interval",
    "smallest_pvalue",
    "end_level",
    "rung_shift",
]
