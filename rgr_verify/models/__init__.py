"""What is trained or constructed: Constructions I-IV and edge colouring, the Sec. 7.3 block (``transformer``,
``transformer_v3``, its task sampler and embedding sources), the second paper's attention-layer model and tensors.
The batched RGR engine stands beside it (``rgr_verify.engine``), on the same layer."""
