# Executors are objects behind one protocol: each declares what it takes (workers, devices, stop_after, its own
# options), and run_sweep refuses the rest by name before anything runs.
import pytest

from rgr_verify.runs.sweeps import EXECUTORS
from rgr_verify.runs.sweeps.executors import EXECUTOR_OBJECTS, Executor, run_sweep
from rgr_verify.runs.sweeps.worker import SweepSpec


def test_every_executor_is_an_object_of_the_protocol():
    assert tuple(EXECUTOR_OBJECTS) == EXECUTORS
    assert all(isinstance(e, Executor) and callable(e.run) for e in EXECUTOR_OBJECTS.values())


@pytest.mark.parametrize("executor,kwargs,match", [
    ("inline", {"workers": 2}, "inline executor takes no workers"),
    ("inline", {"devices": ["cpu"]}, "devices are for the local executor"),
    ("local", {"stop_after": 5.0}, "stop_after is for the inline executor"),
    ("local", {"partition": "x"}, r"local executor takes no options \['partition'\]"),
    ("slurm", {"devices": ["cuda:0"]}, "devices are for the local executor; the slurm executor takes workers"),
    ("ray", {"partition": "x"}, r"ray executor takes no options \['partition'\]"),
    ("dask", {}, "executor"),
])
def test_what_an_executor_does_not_take_is_refused_by_name(tmp_path, executor, kwargs, match):
    spec = SweepSpec("micro", "quick", results_dir=tmp_path)
    with pytest.raises(ValueError, match=match):
        run_sweep(spec, executor, progress=False, **kwargs)
    assert not (tmp_path / "runs.jsonl").exists()  # refused before any run was trained
