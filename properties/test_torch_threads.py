# One context manager sets torch's CPU threads for a block and restores them after, also on an error; training
# helpers use it instead of setting and restoring by hand (and leave the caller's count as it was).
import pytest
import torch

from rgr_verify.basics.torch_threads import torch_threads


def test_threads_are_set_in_the_block_and_restored_after_even_on_error():
    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError):
        with torch_threads(1):
            raise RuntimeError("boom")
    assert torch.get_num_threads() == before
    with torch_threads(None):
        assert torch.get_num_threads() == before
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="threads"):
            with torch_threads(bad):
                pass


def test_ensure_runs_leaves_the_callers_thread_count(tmp_path):
    from rgr_verify.runs.sweeps import ensure_runs

    before = torch.get_num_threads()
    assert ensure_runs([], results_dir=tmp_path, threads=1) == ([], 0)
    assert torch.get_num_threads() == before
    with pytest.raises(TypeError):
        ensure_runs([], results_dir=tmp_path, lock_name="x")  # the ignored argument is gone
