"""Module backward hooks (``register_full_backward_hook``, ``register_full_backward_pre_hook``
and the older ``register_backward_hook``), as PyTorch's ``torch/utils/hooks.py``
``BackwardHook`` does them.

Full hooks: the module's tensor inputs that require grad, and its tensor outputs, pass
through an identity function (``BackwardHookFunctionBackward`` in the graph, as in
PyTorch). A pre-hook on the outputs' node sees the gradients with respect to the
outputs (and may replace them); a hook on the inputs' node sees the gradients with
respect to the inputs once they are computed and calls ``hook(module, grad_input,
grad_output)`` (which may replace ``grad_input``). When no input requires grad the
hooks fire at the outputs, with ``grad_input`` all None (PyTorch warns the same way).

The older hook is registered on the output's ``grad_fn``: its ``grad_input`` is that
node's gradients (e.g. bias, input, weight for ``AddmmBackward0``), with PyTorch's
FutureWarning when that is not what the hook's name promises.
"""

from ..._tensor.tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..._core import errors as _errors

__all__ = ["BackwardHookFunction", "FullBackwardHook", "attach_old_hooks"]


class BackwardHookFunction(Function):
    """Identity: a graph boundary for the module's hooks."""

    @staticmethod
    def forward(ctx, *args):
        return tuple(a.view_as(a) for a in args)

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _tensor_positions(values):
    return [i for i, v in enumerate(values) if isinstance(v, Tensor)]


class FullBackwardHook:
    """One forward call's hooks: wraps the inputs, then the outputs."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.n_inputs = 0
        self.input_positions = []
        self.grad_outputs = None
        self.n_outputs = 0
        self.output_positions = []

    def _wrap(self, values, positions):
        live = [i for i in positions if values[i].requires_grad]
        if not live or not is_grad_enabled():
            return values, [], None
        new = BackwardHookFunction.apply(*[values[i] for i in live])
        if not isinstance(new, tuple):
            new = (new,)
        values = list(values)
        for i, t in zip(live, new):
            values[i] = t
        return values, live, new[0].grad_fn

    def setup_inputs(self, args):
        # grad_input: one entry per positional argument (None for non-tensors; zeros for
        # tensors that need no grad when another input does, as PyTorch)
        pos = _tensor_positions(args)
        self.n_inputs = len(args)
        self.zero_like = [(i, args[i]) for i in pos if not args[i].requires_grad]
        args, live, node = self._wrap(args, pos)
        self.input_positions = live
        if node is not None:
            node.register_hook(self._on_inputs)
        return tuple(args)

    def setup_outputs(self, result):
        single = isinstance(result, Tensor)
        values = [result] if single else list(result) if isinstance(result, tuple) else None
        if values is None:
            return result
        pos = _tensor_positions(values)
        self.n_outputs = len(pos)
        values, live, node = self._wrap(values, pos)
        self.output_positions = [pos.index(i) for i in live]
        if node is not None:
            node.register_prehook(self._on_outputs)
        return values[0] if single else tuple(values)

    def _expand(self, grads, positions, n):
        full = [None] * n
        for p, g in zip(positions, grads):
            full[p] = g
        return full

    def _on_outputs(self, grad_outputs):
        go = self._expand(grad_outputs, self.output_positions, self.n_outputs)
        for hook in list(self.pre_hooks.values()):
            r = hook(self.module, tuple(go))
            if r is not None:
                r = (r,) if isinstance(r, Tensor) else tuple(r)
                if len(r) != len(go):
                    raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                       "got %d, but expected %d" % (len(r), len(go)))
                go = list(r)
        self.grad_outputs = tuple(go)
        if not self.input_positions and self.hooks:
            _errors.warn("Full backward hook is firing when gradients are computed with respect to "
                         "module outputs since no inputs require gradients. See "
                         "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn."
                         "Module.register_full_backward_hook for more details.")
            for hook in list(self.hooks.values()):
                hook(self.module, (None,) * self.n_inputs, self.grad_outputs)
        return tuple(go[p] for p in self.output_positions)

    def _on_inputs(self, grad_inputs, grad_outputs):
        gi = self._expand(grad_inputs, self.input_positions, self.n_inputs)
        if self.zero_like:
            from ..._tensor import creation as _creation
            for i, t in self.zero_like:
                gi[i] = _creation.zeros_like(t)
        for hook in list(self.hooks.values()):
            r = hook(self.module, tuple(gi), self.grad_outputs)
            if r is not None:
                r = (r,) if isinstance(r, Tensor) else tuple(r)
                if len(r) != len(gi):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                       "%d, but expected %d" % (len(r), len(gi)))
                gi = list(r)
        return tuple(gi[p] for p in self.input_positions)


def _warn_non_full(args, result, grad_fn):
    """PyTorch's FutureWarnings for a non-full backward hook whose grad_input is partial."""
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        _errors.warn("Using non-full backward hooks on a Module that does not return a single "
                     "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                     "versions. This hook will be missing some of the grad_output. Please use "
                     "register_full_backward_hook to get the documented behavior.", FutureWarning)
        return
    if not all(isinstance(a, Tensor) for a in args):
        _errors.warn("Using non-full backward hooks on a Module that does not take as input a "
                     "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                     "future versions. This hook will be missing some of the grad_input. Please "
                     "use register_full_backward_hook to get the documented behavior.",
                     FutureWarning)
        return
    outs = {r.grad_fn for r in result if r.grad_fn is not None}
    if not outs or (len(outs) == 1 and grad_fn not in outs):
        _errors.warn("Using a non-full backward hook when outputs are nested in python data "
                     "structure is deprecated and will be removed in future versions. This hook "
                     "will be missing some grad_output.", FutureWarning)
    elif len(outs) > 1:
        _errors.warn("Using a non-full backward hook when outputs are generated by different "
                     "autograd Nodes is deprecated and will be removed in future versions. This "
                     "hook will be missing some grad_output. Please use "
                     "register_full_backward_hook to get the documented behavior.", FutureWarning)
    else:
        ins = {a.grad_fn for a in args if a.grad_fn is not None}
        nexts = {n[0] for n in grad_fn.next_functions}
        if ins != nexts:
            _errors.warn("Using a non-full backward hook when the forward contains multiple "
                         "autograd Nodes is deprecated and will be removed in future versions. "
                         "This hook will be missing some grad_input. Please use "
                         "register_full_backward_hook to get the documented behavior.",
                         FutureWarning)


def attach_old_hooks(module, hooks, args, result):
    """``register_backward_hook``: hook the output's grad_fn for this call."""
    t = result
    while not isinstance(t, Tensor):
        if isinstance(t, (tuple, list)) and t:
            t = t[0]
        elif isinstance(t, dict) and t:
            t = next(iter(t.values()))
        else:
            return
    fn = t.grad_fn
    if fn is None:
        return
    for hook in list(hooks.values()):
        fn.register_hook(lambda gi, go, hook=hook: hook(module, gi, go))
    _warn_non_full(args, result, fn)
