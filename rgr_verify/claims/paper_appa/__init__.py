"""Claims of App. A (more details on the experiments), by topic.

- :mod:`.sampler`: App. A.1's context sampler (and its App. A.3 variant);
- :mod:`.results`: App. A.2's result details: Table 1, Table 2 and Figure 10 on the Sec. 6 base grid;
- :mod:`.regular`: App. A.3 (denser r-regular graphs) and Eq. (31); its decision rules in :mod:`.a3_rules`.
"""
