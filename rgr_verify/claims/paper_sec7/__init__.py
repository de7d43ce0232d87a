"""Claims of Sec. 7 (robustness to model extensions) and Figures 5-7, by topic.

- :mod:`.softmax`: Sec. 7.1 and Figure 5 (scores softmax-normalised over the context);
- :mod:`.value`: Sec. 7.2 and Figure 6 (a value channel, MSE loss);
- :mod:`.sec73`: Sec. 7.3 and Figure 7 (one pre-LN Transformer block with frozen pretrained token embeddings),
  whose decision rules are in :mod:`.sec73_rules`.
"""
