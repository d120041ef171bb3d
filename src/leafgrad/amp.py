"""``torch.amp``: automatic mixed precision, which has nothing to do here.

leafgrad computes in the dtypes you ask for (float32 by default) on the CPU.
``autocast(..., enabled=False)`` and CUDA autocast without a GPU are no-op
contexts, as in PyTorch; ``GradScaler`` is PyTorch's (disabled with a warning for
``'cuda'``, scaling for ``'cpu'``). Enabling CPU autocast raises
NotImplementedError with the fix: leafgrad has no bfloat16 kernels to switch to.
"""
import functools
from ._core import errors as _errors

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast:
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``.

    Raises:
        NotImplementedError: when enabled (leafgrad does not lower precision).
        RuntimeError: for an unknown ``device_type``.
    """

    def __init__(self, device_type="cpu", dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError("Expected `device_type` of type `str`, got: `%s`"
                             % type(device_type))
        self.device_type = device_type
        self.fast_dtype = dtype
        self._enabled = bool(enabled)
        if device_type == "cuda" and enabled:
            # PyTorch's CPU build warns and disables CUDA autocast
            _errors.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
            self._enabled = False
        if self._enabled:
            raise NotImplementedError(
                "autocast(enabled=True) is not supported: leafgrad computes in float32 (or "
                "the dtype you choose) and has no mixed-precision kernels. Fix: "
                "autocast(device_type=%r, enabled=False), or remove the autocast block."
                % device_type)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


def custom_fwd(fwd=None, *, device_type="cpu", cast_inputs=None):
    """Decorator for a custom Function's forward: a pass-through here."""
    if fwd is None:
        return lambda f: f
    return fwd


def custom_bwd(bwd=None, *, device_type="cpu"):
    """Decorator for a custom Function's backward: a pass-through here."""
    if bwd is None:
        return lambda f: f
    return bwd


_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    """``torch.amp.GradScaler(device='cuda', init_scale=2.**16, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True)``, as PyTorch's
    (``torch/amp/grad_scaler.py``).

    For ``device='cuda'`` without a GPU it warns and disables itself (``scale(x)`` is
    ``x``, ``get_scale()`` 1.0), as PyTorch's CPU build does. ``device='cpu'`` scales:
    the loss is multiplied by the scale (a power of two, so float32 gradients are exact),
    ``unscale_``/``step`` divide the gradients back and skip the step when one is inf or
    NaN, ``update`` backs off after such a step and grows the scale after
    ``growth_interval`` clean ones.

    Raises:
        RuntimeError: ``unscale_`` twice before ``update``, or after ``step``; a closure
            passed to ``step`` while enabled.
        ValueError: FP16 gradients to unscale.
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = bool(enabled)
        if device == "cuda" and enabled:
            _errors.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                         "Disabling.")
            self._enabled = False
        if self._enabled:
            if not growth_factor > 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if not backoff_factor < 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = float(init_scale)
        self._scale = None
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._per_optimizer = {}

    def is_enabled(self):
        return self._enabled

    def _lazy_init(self):
        if self._scale is None:
            self._scale = self._init_scale
            self._growth_tracker = self._init_growth_tracker

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY,
                                                              "found_inf": 0.0})

    def scale(self, outputs):
        """``outputs`` (a tensor, or an iterable of them) times the current scale."""
        if not self._enabled:
            return outputs
        self._lazy_init()
        from ._tensor.tensor import Tensor
        from ._tensor import creation as _creation

        def apply(v):
            if isinstance(v, Tensor):
                return v * _creation.tensor(self._scale, dtype=v.dtype)
            if isinstance(v, (list, tuple)):
                return type(v)(apply(x) for x in v)
            if isinstance(v, dict):
                return {k: apply(x) for k, x in v.items()}
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale, in place; note any inf/NaN."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] is _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update(). Fix: call it once per step, before step().")
        if state["stage"] is _STEPPED:
            raise RuntimeError("unscale_() is being called after step(). Fix: call unscale_() "
                               "(e.g. for gradient clipping) before scaler.step(optimizer).")
        self._lazy_init()
        import numpy as np
        inv = np.float32(1.0 / self._scale)     # PyTorch: float64 reciprocal, then float32
        found = 0.0
        from . import autograd
        with autograd.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if g.dtype.name == "float16":
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    arr = g.numpy()
                    if not np.isfinite(arr).all():
                        found = 1.0
                    g.mul_(float(inv))
        state["found_inf"] = found
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` unless a gradient was inf/NaN; returns its value."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._lazy_init()
        state = self._state(optimizer)
        if state["stage"] is _STEPPED:
            raise RuntimeError("step() has already been called since the last update(). Fix: "
                               "call scaler.update() once per iteration, after step().")
        if state["stage"] is _READY:
            self.unscale_(optimizer)
        ret = None
        if not state["found_inf"]:
            ret = optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return ret

    def update(self, new_scale=None):
        """Back off after a skipped step, grow after ``growth_interval`` clean steps."""
        if not self._enabled:
            return
        self._lazy_init()
        if new_scale is not None:
            self._scale = float(new_scale.item() if hasattr(new_scale, "item") else new_scale)
        else:
            if not self._per_optimizer:
                raise AssertionError("No inf checks were recorded prior to update.")
            found = sum(s["found_inf"] for s in self._per_optimizer.values())
            import numpy as np
            if found:
                self._scale = float(np.float32(self._scale) * np.float32(self._backoff_factor))
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale = float(np.float32(self._scale)
                                        * np.float32(self._growth_factor))
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self):
        """The current scale (a float); 1.0 when disabled."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": (self._init_growth_tracker if self._growth_tracker is None
                                    else self._growth_tracker)}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        self._scale = None
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        self._growth_tracker = None
