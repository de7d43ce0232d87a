"""Claims of Sec. 6 (Experiments) and Sec. 6.1 (Results), and Figures 2-4, by topic.

- :mod:`.quick`: quick-tier analogues (ids ending in ``-quick``) on the ``sec6-grid`` / ``sec6-diagonal`` quick
  presets (CPU; m <= 128, cap 12000 steps); each states its chance of passing when the effect is absent (<= 5%);
- :mod:`.grid`: full-tier claims on the base grid (the Fig. 3 slope and law, the multi-head advantage, the sharp
  transition, the single head at the scanned D_K);
- :mod:`.diagonal`: full-tier claims on the lambda = 8 diagonal (Figure 4);
- :mod:`.fig2_axes`: Figure 2's head count along each axis of the grid (m at fixed d_model, d_model at fixed m);
- :mod:`.stated`: the numbers Sec. 6 states, compared with Table 1, the grids and the fits (symbolic).

Full-tier claims replay stored full-tier records, train on a CUDA GPU, or report inconclusive. Fits follow
:mod:`rgr_verify.analysis.fits` through the toolkit's cell analysis (:mod:`rgr_verify.claims.tools.cells`): D_K* is an
interval on the ladder, censored cells enter interval regression, both log readings are fitted, fitted slopes and
exponents are held to their bands by their whole 95% intervals (competing laws by AIC are reported only), cap sensitivity and the sampler's positive rate are reported per cell. Table 1 and Figure 10 are
App. A.2's (:mod:`rgr_verify.claims.paper_appa.results`).
"""
