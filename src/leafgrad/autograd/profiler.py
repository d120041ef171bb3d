"""``torch.autograd.profiler``: the older profiler API over the same op profiler as
``torch.profiler`` (``profile(enabled=True, use_cuda=False, record_shapes=False, ...)``,
``record_function``, ``key_averages().table()``)."""
from ..profiler import EventList, FunctionEventAvg, _ProfileBase, record_function  # noqa: F401

__all__ = ["profile", "record_function", "EventList", "FunctionEventAvg", "emit_nvtx"]


class profile(_ProfileBase):
    """``torch.autograd.profiler.profile(enabled=True, *, use_cuda=False, use_device=None,
    record_shapes=False, with_flops=False, profile_memory=False, with_stack=False,
    with_modules=False, use_kineto=False, use_cpu=True)``; ``enabled=False`` records
    nothing."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        super().__init__(record_shapes=record_shapes)
        self.enabled = enabled

    def start(self):
        if self.enabled:
            return super().start()
        return self


class emit_nvtx:
    """NVTX ranges need CUDA: a no-op context here (as with enabled=False)."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
