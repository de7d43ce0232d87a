"""Claims of App. A (more details on the experiments), by topic.

- :mod:`.sampler`: App. A.1's context sampler (and its App. A.3 variant);
- :mod:`.results`: App. A.2's result details: Table 1, Table 2 and Figure 10 on the Sec. 6 base grid;
- :mod:`.sampler_speed`: App. A.1's rate-enforcing sampler against uniform contexts (training time);
- :mod:`.regular`: App. A.3 (denser r-regular graphs) and Eq. (31); its decision rules in :mod:`.a3_rules`;
  :mod:`.regular_plateau`: the few-head plateaus of Fig. 11; :mod:`.bound_gap`: the gap between the constructive upper
  bound and the lower bound as the degree grows (symbolic).
"""
