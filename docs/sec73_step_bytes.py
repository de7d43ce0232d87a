"""Count the bytes a Sec. 7.3 training step reads and writes, today's block against the v3 block (issue 38).

The constants V1_BYTES_MB, V3_BYTES_MB (2026-11-28) and V3_COMPILED_BYTES_MB (2026-11-29) of
rgr_verify/runs/sec73_plan.py come from this script (torch 2.13.0+cpu, a 2-core CPU):
    pip install --target /tmp/tri triton==3.9.0 && PYTHONPATH=/tmp/tri python docs/sec73_step_bytes.py --triton

Every aten op of one training step (the batched sampler, the block under bf16 autocast, float32 cross-entropy,
backward, fused AdamW, the mask) at the full tier's shapes (m = 6144, l = 16, d_model = 384, B = 256) is counted
with the sizes of its tensor inputs and outputs (views excluded; no cache, no fusion): an estimate of the memory
traffic of the same step on a GPU, where these ops are kernels. Printed at R = 1 and 2 runs, so that the
intercept (per step) and the slope (per run) follow; also the ops by bytes, largest first.

What a kernel touches, not what its arguments hold (see ``traffic``): a gather from a table reads the rows it
writes, not the whole table; a random fill, a fill or a copy writes its output once (it reads no old value); an
in-place scatter writes as many elements as its index holds; an allocation or a resize moves nothing; the fused
AdamW step reads the parameters, gradients and both moments and writes the parameters and both moments back.

The v3 step with its loss compiled (``CompiledLoss``, on CUDA by default): the step's eager ops (the sampler, fused
AdamW, the mask) counted as above, and the loss's forward and backward replaced by the kernels Inductor makes of
them after fusion, each kernel charged by Inductor (``get_read_write_buffers_sizes``: each buffer it reads or
writes, once, at most the buffer's size) and that charge bounded by what the kernel's nodes touch (Inductor
charges a fused kernel that gathers from the table E the whole table). Scheduled for the CPU's C++ backend, and
with ``--triton`` (triton importable; nothing is compiled or run) for Triton, with the pointwise lowering of the
inputs' concatenation that Inductor chooses on a GPU (on a CPU it always materialises it). 2026-11-29, torch
2.13.0+cpu, triton 3.9.0, about 30 s, MB a step + MB a run: C++ 63.7 + 139.0 (Inductor's charge), 29.9 + 152.4
(bounded); Triton 51.9 + 135.0, **33.0 + 133.4** (bounded: ``V3_COMPILED_BYTES_MB``, the device's fusion as best a
CPU can tell). An independent re-derivation with its own script gave the same numbers and found that an earlier
version of this count (63.7 + 130.6) took the eager loss's bytes with its gradients accumulated into old ones.
"""

import contextlib
from unittest import mock


import torch
import torch._inductor.config as inductor_config
from torch._inductor.graph import GraphLowering
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

import rgr_verify.models.transformer as T
import rgr_verify.models.transformer_v3 as V3
from rgr_verify.models.transformer import RunSpec, head_layout, init_block_params
from rgr_verify.models.transformer_task import moved_items, pack_runs, run_generator, sample_permutation, stack_examples

VIEWS = {"view", "_unsafe_view", "reshape", "transpose", "t", "expand", "permute", "unsqueeze", "squeeze", "select",
         "slice", "as_strided", "alias", "detach", "_reshape_alias", "split", "unbind", "view_as", "narrow",
         "diagonal", "lift_fresh"}
M, ELL, D_MODEL, B = 6144, 16, 384, 256


class Count(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops, self.bytes, self.by_op = 0, 0, {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if name in VIEWS:
            return out
        size = traffic(name, args, kwargs or {}, out)
        self.ops += 1
        self.bytes += size
        self.by_op[name] = self.by_op.get(name, 0) + size
        return out


WRITE_ONLY = {"uniform_", "normal_", "random_", "fill_", "zero_", "copy_"}
NO_TRAFFIC = {"empty", "empty_like", "empty_strided", "resize_", "new_empty", "new_empty_strided"}


def _nbytes(tree) -> int:
    return sum(t.numel() * t.element_size() for t in tree_flatten(tree)[0]
               if isinstance(t, torch.Tensor) and t.numel() > 1)


def traffic(name, args, kwargs, out) -> int:
    """Bytes the op's kernel reads and writes (the module docstring's rules; otherwise inputs plus outputs)."""
    if name in NO_TRAFFIC:
        return 0
    if name in WRITE_ONLY:  # the output (args[0]) written once, its old value not read
        return _nbytes((args[1:], kwargs)) + _nbytes(args[0])
    if name == "scatter_":  # self, dim, index, src: the index and source read, one element written per index entry
        index = args[2]
        return _nbytes((args[2:], kwargs)) + index.numel() * args[0].element_size()
    if name == "index":  # a gather: the rows read are the rows written
        return _nbytes(args[1]) + 2 * _nbytes(out)
    if name == "_fused_adamw_":  # params, grads, exp_avgs, exp_avg_sqs, ...: params and both moments written back
        return _nbytes((args, kwargs)) + _nbytes(args[0]) + _nbytes(args[2]) + _nbytes(args[3])
    return _nbytes((args, kwargs)) + _nbytes(out)


def amp():
    return torch.autocast("cpu", dtype=torch.bfloat16)


def step_of(engine, specs, E):
    perms = [sample_permutation(M, generator=run_generator(s.seed, 2)) for s in specs]
    packed = pack_runs(perms, [moved_items(p) for p in perms])
    gens = [run_generator(s.seed, 5) for s in specs]
    if engine == "v1":
        D = max(s.D_K for s in specs)
        p = {k: v.requires_grad_() for k, v in init_block_params(specs, D_MODEL, 16).items()}
        G, scale = head_layout(specs, D, "cpu")
        mask = (G.sum(-1) > 0).float()[:, None, :]
        opt = torch.optim.AdamW(list(p.values()), lr=1e-3, fused=True)
        return lambda: T._train_step(p, opt, E, G, scale, mask, stack_examples(packed, B, ELL, gens), autocast=amp,
                                     batch_size=B)
    D, H = max(s.D_K for s in specs), max(s.n_heads for s in specs)
    p = {k: v.requires_grad_() for k, v in V3.init_block_params_v3(specs, D_MODEL, 16, D, H).items()}
    layout = V3.layout_v3(specs, D, H, D_MODEL)
    opt = torch.optim.AdamW(list(p.values()), lr=1e-3, fused=True)
    return lambda: V3.train_step_v3(p, opt, E, layout, stack_examples(packed, B, ELL, gens), autocast=amp,
                                    batch_size=B)


def batch_of(specs):
    perms = [sample_permutation(M, generator=run_generator(s.seed, 2)) for s in specs]
    packed = pack_runs(perms, [moved_items(p) for p in perms])
    return stack_examples(packed, B, ELL, [run_generator(s.seed, 5) for s in specs])


def _kernel_bytes(node) -> tuple[int, int]:
    """Inductor's charge for a kernel after fusion (``get_read_write_buffers_sizes``: each buffer it reads or
    writes, at most once, and at most the buffer's size), and the same charge bounded by what its member nodes
    touch: Inductor charges a buffer that a fused kernel gathers from (the table E, 9.4 MB) whole, since it cannot
    bound the kernel's iterations, whereas each member node is charged the rows it reads."""
    from torch._inductor.scheduler import FusedSchedulerNode

    raw = node.get_read_write_buffers_sizes()
    if not isinstance(node, FusedSchedulerNode):
        return raw, raw
    bounded = 0
    for name, whole in node.get_read_write_buffer_accesses(include_reads=True, include_writes=True).items():
        parts = sum(member.get_read_write_buffer_accesses(include_reads=True, include_writes=True).get(name, 0)
                    for member in node.get_nodes())
        bounded += min(whole, parts) if parts else whole
    return raw, bounded


def loss_bytes(specs, E, compiled: str | None) -> tuple[int, int]:
    """Bytes of the v3 loss's forward and backward on one batch (bf16 autocast): every aten op counted
    (``compiled`` None; both numbers equal), or the kernels Inductor makes of it after fusion (raw and bounded
    charges, :func:`_kernel_bytes`), scheduled for the CPU's C++ backend (``compiled`` "cpp") or for Triton
    (``compiled`` "triton": Inductor's Triton scheduling on CPU tensors, with the pointwise lowering of the inputs'
    cat that it chooses on a GPU; needs triton importable, and nothing is compiled or run)."""
    D, H = max(s.D_K for s in specs), max(s.n_heads for s in specs)
    p = {k: v.requires_grad_() for k, v in V3.init_block_params_v3(specs, D_MODEL, 16, D, H).items()}
    layout, batch = V3.layout_v3(specs, D, H, D_MODEL), batch_of(specs)

    def forward_backward(fn):
        for v in p.values():
            v.grad = None  # as the step (zero_grad(set_to_none=True)): no accumulation into old gradients
        with amp():
            per_run = fn(p, E, layout, *batch)
        per_run.sum().backward()

    if compiled is None:
        forward_backward(V3.block_loss_v3)
        c = Count()
        with c:
            forward_backward(V3.block_loss_v3)
        return c.bytes, c.bytes
    graphs, original = [], GraphLowering._update_scheduler

    def record(self):  # Inductor builds and fuses each graph's kernels here (the forward, then the backward)
        original(self)
        charges = [_kernel_bytes(node) for node in self.scheduler.nodes]
        graphs.append((sum(r for r, _ in charges), sum(b for _, b in charges)))

    import torch._functorch.config as functorch_config
    from torch._inductor.async_compile import AsyncCompile

    torch._dynamo.reset()
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(GraphLowering, "_update_scheduler", record))
        stack.enter_context(inductor_config.patch(fx_graph_cache=False, cpu_backend=compiled,
                                                  force_pointwise_cat=compiled == "triton"))
        stack.enter_context(functorch_config.patch(force_non_lazy_backward_lowering=True))
        if compiled == "triton":  # schedule and generate Triton kernels for CPU tensors, compile none of them
            import torch.utils._triton as triton_utils

            stack.enter_context(mock.patch.object(AsyncCompile, "triton", lambda self, *a, **k: None))
            stack.enter_context(mock.patch.object(triton_utils, "triton_hash_with_backend", lambda: "none"))
            stack.enter_context(mock.patch.object(triton_utils, "triton_backend", lambda: None))
        try:
            forward_backward(torch.compile(V3.block_loss_v3, fullgraph=True, dynamic=False))
        except Exception:
            if compiled != "triton" or len(graphs) != 2:  # Triton's kernels, never compiled, cannot run
                raise
    if len(graphs) != 2:
        raise RuntimeError(f"expected Inductor to build a forward and a backward graph, it built {len(graphs)}")
    return sum(r for r, _ in graphs), sum(b for _, b in graphs)


def main():
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triton", action="store_true", help="also schedule the compiled loss for Triton (needs "
                        "triton importable, e.g. pip install --target DIR triton and PYTHONPATH=DIR)")
    schedulers = ["cpp"] + (["triton"] if parser.parse_args().triton else [])
    E = torch.randn(M + 1, D_MODEL)
    for engine, spec in (("v1", lambda s: RunSpec(512, 1, s)), ("v3", lambda s: RunSpec(512, 8, s))):
        counted, compiled = [], {}
        for R in (1, 2):
            step = step_of(engine, [spec(s) for s in range(R)], E)
            step()  # the optimiser's state exists from the second step on
            c = Count()
            with c:
                step()
            counted.append(c.bytes / 1e6)
            top = sorted(c.by_op.items(), key=lambda x: -x[1])[:6]
            ops = ", ".join(f"{n} {b / 1e6:.0f}" for n, b in top)
            print(f"{engine} R = {R}: {c.ops} ops, {c.bytes / 1e6:.1f} MB; {ops}")
            if engine == "v3":  # the same step with the loss's eager ops replaced by its compiled kernels
                specs = [spec(s) for s in range(R)]
                eager = loss_bytes(specs, E, None)[0] / 1e6
                for scheduler in schedulers:
                    raw, bounded = (b / 1e6 for b in loss_bytes(specs, E, scheduler))
                    for name, mb in ((f"{scheduler}, Inductor's charge", raw), (f"{scheduler}, bounded", bounded)):
                        compiled.setdefault(name, []).append(counted[-1] - eager + mb)
                    print(f"v3 compiled ({scheduler}) R = {R}: the loss {eager:.1f} MB eager, {raw:.1f} MB compiled "
                          f"(Inductor's charge), {bounded:.1f} MB (bounded by what each kernel's nodes touch)")
        for name, mb in ((engine, counted), *((f"v3 compiled ({k})", v) for k, v in compiled.items())):
            slope = mb[1] - mb[0]
            print(f"{name}: {mb[0] - slope:.1f} MB a step + {slope:.1f} MB a run")


if __name__ == "__main__":
    main()
