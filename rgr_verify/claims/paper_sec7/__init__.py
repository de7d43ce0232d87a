"""Claims of Sec. 7 (robustness to model extensions) and Figures 5-7, by topic.

- :mod:`.softmax`: Sec. 7.1 and Figure 5 (scores softmax-normalised over the context);
- :mod:`.value`: Sec. 7.2 and Figure 6 (a value channel, MSE loss); :mod:`.value_shape`: the shape of Figure 6's
  curves (the single head's plateau, the drops of MSE read by the sharp-transition rule);
- :mod:`.coverage_extra`: sentences of Secs. 7.2-7.3 the coverage map found decided only in part (Figure 6's lowest
  MSE at d_model 32 among every multi-head model; the single head's gain from D_K 64 to 128 in Figure 7, read from
  the committed cells of the paper-scale sweep);
- :mod:`.sec73`: Sec. 7.3 and Figure 7 (one pre-LN Transformer block with frozen pretrained token embeddings),
  whose decision rules are in :mod:`.sec73_rules`.
"""
