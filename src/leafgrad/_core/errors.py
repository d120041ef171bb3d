"""Every user-facing autograd error and warning, in one place.

Each class subclasses the built-in exception PyTorch raises for the same
mistake (so ``except RuntimeError`` keeps working); each message says what
went wrong in plain words and how to fix it. ``docs/errors.md`` lists them
with a script that triggers each one.
"""

import os
import pickle
import sys
import warnings

import numpy as np

__all__ = ["LeafgradError", "GraphFreedError", "NoGradError", "UnusedInputError",
           "NonScalarBackwardError", "InplaceLeafError", "SavedTensorModifiedError",
           "ShapeError", "DtypeError"]


class LeafgradError(RuntimeError):
    """Base class of leafgrad's autograd errors (a RuntimeError, as in PyTorch)."""


class GraphFreedError(LeafgradError):
    """backward()/grad() through a graph whose saved tensors were already freed."""


class NoGradError(LeafgradError):
    """backward()/grad() on a tensor that does not require grad."""


class UnusedInputError(LeafgradError):
    """grad() asked for an input the outputs do not depend on."""


class NonScalarBackwardError(LeafgradError):
    """backward() without ``gradient`` on a tensor with more than one element."""


class InplaceLeafError(LeafgradError):
    """In-place op on a leaf tensor that requires grad, outside ``no_grad``."""


class SavedTensorModifiedError(LeafgradError):
    """A tensor saved for backward was changed in place before backward ran."""


class ShapeError(LeafgradError):
    """Shapes that cannot be combined (matmul, broadcasting, view)."""


class DtypeError(LeafgradError):
    """A dtype that the operation cannot take."""


# tracebacks show the public module (leafgrad.errors re-exports them), not this private one
for _cls in (LeafgradError, GraphFreedError, NoGradError, UnusedInputError, NonScalarBackwardError,
             InplaceLeafError, SavedTensorModifiedError, ShapeError, DtypeError):
    _cls.__module__ = "leafgrad.errors"
del _cls


def arg_type(obj):
    """How PyTorch's argument parser names the type of a wrong argument: a builtin by its
    name (``list``), anything else with its module (``numpy.ndarray``)."""
    t = type(obj)
    return t.__name__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__,
                                                                   t.__qualname__)


def not_a_tensor(fname, arg, position, obj):
    """``fname(): argument 'arg' (position n) must be Tensor, not <type>`` (PyTorch's words)."""
    return TypeError("%s(): argument '%s' (position %d) must be Tensor, not %s"
                     % (fname, arg, position, arg_type(obj)))


def graph_freed(node_name, freed_by=None):
    by = freed_by if isinstance(freed_by, str) else (
        "an earlier backward() or autograd.grad() call on this graph")
    return GraphFreedError(
        "Trying to backward through the graph a second time (or to directly access saved tensors "
        "after they have already been freed): %s's saved tensors were freed by %s, which frees "
        "them by default to save memory. Fix: pass retain_graph=True to that first call (and to "
        "every call except the last one that uses this graph), or recompute the forward pass "
        "before calling again." % (node_name, by))


def no_grad_fn(index, grad_disabled):
    msg = ("element %d of tensors does not require grad and does not have a grad_fn: "
           "nothing that requires grad went into this result, so there is no graph to "
           "differentiate. Fix: create the parameters with requires_grad=True (or call "
           ".requires_grad_() on them) before computing the result from them. If they "
           "already require grad, the result was computed where nothing is recorded (inside "
           "`with torch.no_grad():` or torch.inference_mode(), or from .detach()/.data/.item() "
           "values): compute it outside such code." % index)
    if grad_disabled:
        msg += (" Note: grad mode is disabled right now (inside torch.no_grad() or "
                "set_grad_enabled(False)), so no graph was recorded; compute the result "
                "outside that block.")
    return NoGradError(msg)


def non_scalar(shape):
    return NonScalarBackwardError(
        "grad can be implicitly created only for scalar outputs: backward() (or autograd.grad) "
        "was called on a tensor of shape %s without a `gradient` argument. Fix: reduce it to a "
        "scalar first (out.sum().backward() or out.mean().backward()), or pass the gradient of "
        "the final "
        "result with respect to it: out.backward(gradient=torch.ones_like(out)) (for "
        "torch.autograd.grad: grad_outputs=torch.ones_like(out))." % (tuple(shape),))


def unused_input(index):
    return UnusedInputError(
        "One of the differentiated Tensors appears to not have been used in the graph "
        "(input %d): the outputs do not depend on it. Set allow_unused=True to get None for it "
        "instead. If you expected it to be used, check that it is the very tensor the output "
        "was computed from and not a copy or a tensor re-created after the output was built "
        "(e.g. a new torch.tensor(...) or a .detach())." % index)


def input_no_grad(index):
    return NoGradError(
        "One of the differentiated Tensors does not require grad (input %d). Fix: create it "
        "with requires_grad=True (or call .requires_grad_()) before computing the output "
        "from it." % index)


def inplace_leaf(op):
    return InplaceLeafError(
        "a leaf Variable that requires grad is being used in an in-place operation (%s). "
        "Changing a parameter in place would silently invalidate the graph that uses it. "
        "Fix: do the update inside `with torch.no_grad():` (as optimizers do), update "
        "`.data`, or use the out-of-place form (x = x + 1) to make a new tensor." % op)


def int_requires_grad(dt):
    return DtypeError(
        "Only Tensors of floating point and complex dtype can require gradients (this one is "
        "%r). Fix: create it as a float tensor, e.g. torch.tensor([1., 2.]) or "
        "x.float().requires_grad_()." % (dt,))


def numpy_requires_grad():
    return LeafgradError(
        "Can't call numpy() on Tensor that requires grad: the array would not be tracked by "
        "autograd. Fix: use tensor.detach().numpy() instead.")


def nonleaf_grad_message():
    return (
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
        "attribute won't be populated during autograd.backward(): gradients are stored only on "
        "leaf tensors (those you created with requires_grad=True, such as parameters). If you "
        "indeed want the gradient for a non-leaf Tensor, call .retain_grad() on it before "
        "backward(), or read the gradient from the leaf it was computed from. If you access "
        "the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead.")


def broadcast(shape_a, shape_b):
    return ShapeError(
        "The size of tensor a (%s) must match the size of tensor b (%s): shapes %s and %s "
        "cannot be broadcast together. Two dimensions are compatible when they are equal or "
        "one of them is 1 (dimensions are compared from the right). Fix: reshape or "
        "unsqueeze one operand so the dimensions line up." % (
            _mismatch(shape_a, shape_b) + (tuple(shape_a), tuple(shape_b))))


def _unbroadcastable(target, src):
    """(target size, source size, dim of target) of the rightmost dim where ``src`` cannot
    be broadcast to ``target``; None when every shared dim fits."""
    for i in range(1, min(len(target), len(src)) + 1):
        t, s = target[-i], src[-i]
        if s != t and s != 1:
            return t, s, len(target) - i
    return None


OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to "
           "a single memory location. Please clone() the tensor before performing the "
           "operation.")


def read_only_memory(arr):
    """True when ``arr``'s memory belongs to a read-only buffer (``bytes``, a read-only
    memoryview or mmap, a NumPy array flagged read-only), not to an expanded view of
    writable memory (whose stride-0 elements NumPy will not write either)."""
    b = arr
    while True:
        nxt = getattr(b, "base", None)      # as_strided's holder has the array as .base
        if isinstance(b, np.ndarray) and nxt is None:
            return not b.flags.writeable
        if nxt is None or isinstance(b, memoryview):
            break
        b = nxt
    if isinstance(b, memoryview):
        return b.readonly
    return isinstance(b, bytes)


def write_refused(arr):
    """The error for a write into ``arr`` that NumPy refuses: a read-only buffer's memory
    (from ``torch.frombuffer(bytes)`` / ``from_numpy`` of a read-only array), or an
    expanded view whose elements share memory (PyTorch's error)."""
    if read_only_memory(arr):
        return RuntimeError(
            "cannot write into this tensor: its memory is a read-only buffer (a bytes object, "
            "a read-only memoryview or mmap, or a NumPy array flagged read-only, given to "
            "torch.frombuffer or torch.from_numpy, which warned that the buffer is not "
            "writable). PyTorch would write into the buffer anyway, changing memory that "
            "Python treats as immutable; leafgrad refuses. Fix: pass a writable buffer "
            "(torch.frombuffer(bytearray(data), ...), or a writable copy of the array), or "
            "write into a copy of the tensor (t = t.clone()).")
    return RuntimeError(OVERLAP)


def copy_shape(dst, src):
    """``dst.copy_(src)`` where ``src`` does not broadcast to ``dst``'s shape."""
    dst, src = tuple(dst), tuple(src)
    m = _unbroadcastable(dst, src)
    if m is not None:
        # PyTorch numbers the dim in the broadcast shape (a longer source shifts it)
        head = ("The size of tensor a (%d) must match the size of tensor b (%d) at "
                "non-singleton dimension %d" % (m[0], m[1], m[2] + max(0, len(src) - len(dst))))
    else:
        try:
            full = list(np.broadcast_shapes(dst, src))
        except ValueError:
            full = list(src)
        head = "output with shape %s doesn't match the broadcast shape %s" % (list(dst), full)
    return ShapeError(
        "%s: copy_ writes the source (shape %s) into the destination (shape %s), so the "
        "source must broadcast to the destination's shape. Fix: give a source of shape %s "
        "(or one that broadcasts to it, e.g. with 1s), or reshape/slice it first."
        % (head, list(src), list(dst), list(dst)))


def setitem_shape(target, value, advanced):
    """``x[key] = value`` where ``value`` does not broadcast to ``x[key]``'s shape."""
    target, value = tuple(target), tuple(value)
    m = None if advanced else _unbroadcastable(target, value)
    if m is not None:
        head = ("The expanded size of the tensor (%d) must match the existing size (%d) at "
                "non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s"
                % (m[0], m[1], m[2], list(target), list(value)))
    else:
        head = ("shape mismatch: value tensor of shape %s cannot be broadcast to indexing "
                "result of shape %s" % (list(value), list(target)))
    return ShapeError(
        "%s: x[key] = value writes the value into the part x[key] selects (shape %s), so the "
        "value must broadcast to that shape. Fix: give a value of shape %s (or one that "
        "broadcasts to it), or change the index so it selects the part you mean."
        % (head, list(target), list(target)))


def _mismatch(a, b):
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1 and y != 1:
            return x, y
    return (a[-1] if a else 1), (b[-1] if b else 1)


def saved_modified(shape, node_name, saved_version, now_version, dtype_name="float",
                   producer=None):
    """``producer``: (output_nr, node name) of the op that now makes the tensor, which
    PyTorch names ('which is output 0 of Add')."""
    made = ("" if producer is None else ", which is output %d of %s,"
            % (producer[0], producer[1].rpartition("Backward")[0] or producer[1]))
    return SavedTensorModifiedError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.%sTensor %s]%s is at version %d; expected version %d instead. "
        "The tensor of shape %s was saved by %s for its backward, then changed in place "
        "(e.g. by +=, add_, relu_, or x[...] = ...). Fix: use the out-of-place form "
        "(x = x + 1, torch.relu(x)), or .clone() the tensor before changing it."
        % (dtype_name, list(shape), made, now_version, saved_version, tuple(shape), node_name))


def backward_create_graph_message():
    return ("Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after use "
            "to break the cycle and avoid the leak.")


def save_non_tensor(index, obj):
    return ("save_for_backward can only save variables, but argument %d is of type %s. "
            "Fix: save only tensors (or None) with ctx.save_for_backward(...); keep other "
            "values as attributes of ctx, e.g. ctx.value = value." % (index, type(obj).__name__))


def function_grad_count(name, expected, got):
    return ("function %s returned an incorrect number of gradients (expected %d, got %d). "
            "Fix: backward must return one gradient per input of forward, in the same order; "
            "return None for inputs that are not tensors or need no gradient."
            % (name, expected, got))


def legacy_function_call(cls_name):
    return ("Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function) "
            "Fix: call %s.apply(...) instead of creating an instance and calling it."
            % cls_name)


def once_differentiable_twice():
    return ("trying to differentiate twice a function that was marked with @once_differentiable. "
            "Its backward is not recorded, so it has no derivative of its own. Fix: remove "
            "@once_differentiable and write backward with differentiable tensor operations, or "
            "do not ask for higher-order gradients through it.")


def _hook_name(h):
    return getattr(h, "__name__", type(h).__name__)


def hook_changed_size(hook, old_shape, new_shape):
    return ("hook '%s' has changed the size of value: it received a gradient of shape %s and "
            "returned one of shape %s. Fix: a hook must return None or a tensor of the same "
            "shape as its argument." % (_hook_name(hook), tuple(old_shape), tuple(new_shape)))


def hook_changed_type(hook, old, new):
    return ("hook '%s' has changed the type of value (was %s got %s). Fix: return a gradient "
            "of the dtype the hook received, e.g. new_grad.to(grad.dtype)."
            % (_hook_name(hook), type_name(old.dtype), type_name(new.dtype)))


def py_type_name(value):
    """The name PyTorch's argument parser prints for a value's type (CPython's ``tp_name``):
    ``float``, ``Tensor``, but ``numpy.float64``, ``numpy.dtypes.Float64DType``."""
    t = type(value)
    return t.__module__ + "." + t.__qualname__ if t.__module__.startswith("numpy") else t.__name__


def type_name(dtype):
    """PyTorch's scalar type name: torch.float32 -> 'Float'."""
    name = str(dtype).rsplit(".", 1)[-1]
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(
                name, name)


def inference_saved():
    return ("Inference tensors cannot be saved for backward. Please do not use Tensors created in "
            "inference mode in computation tracked by autograd. This tensor was made inside "
            "`with torch.inference_mode():`, which records nothing about it. Fix: make a normal "
            "tensor with .clone() outside inference mode and use that, or compute it under "
            "torch.no_grad() instead of torch.inference_mode().")


def lstm_forward_ad():
    return ("Trying to use forward AD with mkldnn_rnn_layer that does not support it because it "
            "has not been implemented yet. A float32 nn.LSTM without projections runs each layer "
            "as one fused node (as PyTorch's CPU path), which has no forward derivative. Fix: "
            "run the LSTM in float64 (model.double(), input.double()), where it is recorded step "
            "by step and forward AD works, or use reverse mode (torch.func.jacrev).")


def inference_requires_grad():
    return ("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed. "
            "Fix: call .clone() on it first (outside inference mode) and set requires_grad on "
            "the clone, or create it under torch.no_grad() instead of torch.inference_mode().")


def inference_inplace():
    return ("Inplace update to inference tensor outside InferenceMode is not allowed. Fix: make a "
            "normal tensor with .clone() before updating it in place, or create it under "
            "torch.no_grad() instead of torch.inference_mode().")


def not_tensor(fn, arg, position, value):
    """A Python number (or other non-tensor) where PyTorch's signature takes only a Tensor
    (``torch.atan2(t, 1.5)``, ``torch.eq(1, t)``)."""
    return TypeError("%s(): argument '%s' (position %d) must be Tensor, not %s. Fix: pass a "
                     "tensor, e.g. torch.tensor(%r), or use an op that takes a number here"
                     % (fn, arg, position, type(value).__name__, value))


def out_autograd(fn):
    """``torch.add(a, b, out=o)`` where an argument requires grad, with grad mode on."""
    return ("%s(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad. Fix: drop out= and assign the result "
            "(y = torch.%s(...)), or call it inside torch.no_grad()" % (fn, fn))


def method_out(name):
    """``t.exp(out=o)``: PyTorch's Tensor methods take no ``out=`` (TypeError there too)."""
    return ("%s() got an unexpected keyword argument 'out': Tensor methods take no out= "
            "(as PyTorch). Fix: torch.%s(t, ..., out=o), or assign the result" % (name, name))


def out_kind(name, want):
    """``out=`` of the wrong kind: a tensor for a multi-output op, or a tuple for one output."""
    return ("%s(): argument 'out' must be %s. Fix: pass %s"
            % (name, want, "a tuple of tensors, one per output" if want.startswith("tuple")
               else "one tensor"))


def out_cast(src, dst):
    """An ``out=`` tensor whose dtype cannot hold the result (float into int64)."""
    return ("result type %s can't be cast to the desired output type %s. Fix: pass an out of "
            "the result's dtype (torch.%s), or convert the inputs first"
            % (type_name(src), type_name(dst), str(src)))


def out_resized(old, new):
    """PyTorch's warning when ``out=`` with elements has to be resized."""
    return ("An output with one or more elements was resized since it had shape %s, which does "
            "not match the required output shape %s. This behavior is deprecated, and in a "
            "future PyTorch release outputs will not be resized unless they have zero elements. "
            "You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
            "with t.resize_(0)." % (list(old), list(new)))


def grad_tuple_hint():
    return ("torch.autograd.grad returns a tuple of tensors (one per input), not a tensor. "
            "Index it first: g = torch.autograd.grad(loss, w)[0], or unpack: (g,) = ...")


def ndarray_on_left(symbol):
    return TypeError(
        "unsupported operand type(s) for %s: 'numpy.ndarray' and 'Tensor': PyTorch's operators "
        "do not take a NumPy array on the left of a tensor (only / and == go through, computed "
        "by NumPy). Fix: convert the array first, torch.from_numpy(a) %s t (or "
        "torch.as_tensor(a, dtype=t.dtype)), or put the tensor on the left." % (symbol, symbol))


def ndarray_compare():
    return TypeError(
        "'<', '<=', '>' and '>=' are not supported between instances of 'Tensor' and "
        "'numpy.ndarray' (PyTorch refuses them too). Fix: convert the array first, "
        "torch.from_numpy(a), or compare t.numpy() with it.")


class LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``, which is ``torch._C._LinAlgError`` (one class under both
    names, as in PyTorch): a matrix that the decomposition cannot handle (a singular matrix
    given to inv or solve)."""


# PyTorch's own name for it: <class 'torch._C._LinAlgError'>
LinAlgError.__module__, LinAlgError.__name__, LinAlgError.__qualname__ = (
    "torch._C", "_LinAlgError", "_LinAlgError")


def _x(sizes):
    return " x ".join(map(str, sizes))


def conv_channels(layer, groups, wshape, xshape):
    """A convolution whose input's dim 1 is not ``in_channels`` (weight dim 1 times groups)."""
    expected, got = wshape[1] * groups, xshape[1]
    return ShapeError(
        "Given groups=%d, weight of size %s, expected input%s to have %d channels, but got %d "
        "channels instead: the weight was made for %d input channels (a %s(%d, %d, ...) layer) "
        "and the input's dim 1, the channel dim of the (N, C, *spatial) layout, has %d. Fix: "
        "build the layer with in_channels=%d, or give it an input with %d channels; data stored "
        "channels-last (N, H, W, C) needs x.permute(0, 3, 1, 2) first."
        % (groups, list(wshape), list(xshape), expected, got, expected, layer, expected,
           wshape[0], got, got, expected))


def conv_too_small(padded, kernel):
    """A convolution whose (dilated) kernel does not fit in the padded input."""
    return ShapeError(
        "Calculated padded input size per channel: (%s). Kernel size: (%s). Kernel size can't "
        "be greater than actual input size: the kernel (dilation included) does not fit in the "
        "input (padding included), so there is no position to apply it. Fix: give the layer a "
        "larger input (downsample less before it), add padding (padding=... or "
        "padding='same'), or use a smaller kernel_size or dilation."
        % (_x(padded), _x(kernel)))


def pool_too_small(channels, insp, outsp, window, padding):
    """A pooling window that does not fit in the padded input (output size < 1)."""
    return ShapeError(
        "Given input size: (%s). Calculated output size: (%s). Output size is too small: the "
        "pooling window %s (dilation included) does not fit in the spatial size %s with padding "
        "%s. Fix: use a smaller kernel_size, pad the input (padding=...) or pass "
        "ceil_mode=True, or downsample less before this layer."
        % ("x".join(map(str, (channels,) + tuple(insp))),
           "x".join(map(str, (channels,) + tuple(outsp))), tuple(window), tuple(insp),
           tuple(padding)))


# -- indexing (ops/shape/_index_rule.py: PyTorch's indexing rule) ------------------------
def index_type(name):
    return ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
            "are valid indices (got %s): PyTorch takes no other kind of index entry. Fix: "
            "index with ints, slices, None, ..., lists of ints/bools or integer/bool tensors."
            % name)


def index_tensor_dtype():
    return ("tensors used as indices must be long, int, byte or bool tensors: a float index "
            "names no element. Fix: convert it, idx.long() (or idx.bool() for a mask).")


def negative_step(step):
    return ("step must be greater than zero (got %d): PyTorch slices take positive steps only. "
            "Fix: x.flip(dim) reverses a dim (x.flip(0)[::k] for a negative step -k)." % step)


def index_0d():
    return ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number: a 0-d tensor has "
            "no dim to index. Fix: x.item() for its number, or x[...] / x[None] for a view.")


def too_many_indices(ndim):
    return ("too many indices for tensor of dimension %d: the key indexes more dims than the "
            "tensor has. Fix: use at most %d index entries (None and ... take no dim)."
            % (ndim, ndim))


def index_range(i, dim, n):
    return ("index %d is out of bounds for dimension %d with size %d. Fix: use indices in "
            "[-%d, %d]." % (i, dim, n, n, n - 1))


def mask_shape(mask, shape, at, dim):
    return ("The shape of the mask %s at index %d does not match the shape of the indexed "
            "tensor %s at index %d: a bool mask must have the shape of the dims it indexes. "
            "Fix: build the mask from the tensor itself (e.g. x > 0) or index the dims it "
            "was made for." % (list(mask), at, list(shape), dim))


def index_broadcast(shapes):
    return ("shape mismatch: indexing tensors could not be broadcast together with shapes %s: "
            "the index tensors of one key pair up element by element. Fix: give them shapes "
            "that broadcast (equal, or 1), or index one dim at a time (x[i][:, j])."
            % ", ".join(str(list(s)) for s in shapes))


# -- checkpoints (save/load) ---------------------------------------------------------------

class NotACheckpointError(LeafgradError, pickle.UnpicklingError):
    """``leafgrad.load`` of a file that is not a valid checkpoint (truncated, corrupt, hostile,
    or not a checkpoint at all). Both a RuntimeError (what ``torch.load`` raises for a broken
    zip archive) and a ``pickle.UnpicklingError`` (what it raises for a broken pickle)."""


class CheckpointCodecError(NotACheckpointError, LookupError):
    """A pickle naming a codec Python does not know (``bytearray(text, "no-such-codec")``):
    a NotACheckpointError that is also the LookupError ``torch.load`` raises there."""


def not_a_checkpoint(reason, cls=NotACheckpointError):
    return cls(
        "not a leafgrad/safetensors checkpoint: %s. Fix: check that the file was written "
        "completely by leafgrad.save, torch.save or safetensors (a copy cut short, a file of "
        "another kind or a damaged download all read as this); nothing was loaded." % reason)


def checkpoint_over_budget(needed, budget, what):
    """``load`` of a file whose tensors would need more memory than its budget."""
    return NotACheckpointError(
        "not a leafgrad/safetensors checkpoint: its %s brings the tensor memory it needs to %d "
        "bytes, more than the load's budget of %d bytes (by default the file's own size, "
        "which a checkpoint written by torch.save, leafgrad.save or safetensors never "
        "exceeds). Fix: if you trust the file, pass memory_budget=%d (or more) to "
        "leafgrad.load; nothing was loaded." % (what, needed, budget, needed))


class CheckpointDtypeError(TypeError):
    """A valid checkpoint holding a dtype leafgrad has no equivalent of (bfloat16)."""


def no_bfloat16(name):
    return CheckpointDtypeError(
        "the checkpoint's tensor %r has dtype bfloat16, which leafgrad cannot hold (NumPy has no "
        "bfloat16 dtype), so it was not loaded. Fix: convert it where it was saved, e.g. in "
        "PyTorch save {k: v.float() for k, v in state_dict.items()} (bfloat16 -> float32 is "
        "exact)." % name)


def weights_only_refused(message):
    """PyTorch's text (torch.load's _get_wo_message) around the restricted unpickler's reason."""
    unsafe = ("In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
              "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` "
              "set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file "
              "from a trusted source.")
    docs = ("\n\nCheck the documentation of torch.load to learn more about types accepted by "
            "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
    if "was not an allowed global by default" in message:
        text = ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the "
                "checkpoint\033[0m. \n\t(1) " + unsafe +
                "\n\t(2) Alternatively, to load with `weights_only=True` please check the "
                "recommended steps in the following error message.\n\tWeightsUnpickler error: "
                + message)
    else:
        text = ("Weights only load failed. " + unsafe + "\nPlease file an issue with the "
                "following so that we can make `weights_only=True` compatible with your use "
                "case: WeightsUnpickler error: \n\n" + message)
    return pickle.UnpicklingError(text + docs)


def loss_threshold(fn, name, value, strict):
    """PyTorch's RuntimeError for huber_loss's delta <= 0 / smooth_l1_loss's beta < 0."""
    return RuntimeError(
        "%s does not support %s values for %s. Fix: pass %s %s 0 (got %r)" % (
            fn, "non-positive" if strict else "negative", name, name, ">" if strict else ">=",
            value))


def not_differentiable(fn, arg):
    """PyTorch's RuntimeError for a tensor argument that has no derivative formula."""
    return RuntimeError(
        "The function '%s' is not differentiable with respect to argument '%s'. This input "
        "cannot have requires_grad True. Fix: pass %s.detach() (it is a constant of the "
        "loss)" % (fn, arg, arg))


def info_not_dtype(fn_name, obj):
    """torch.finfo / torch.iinfo given something that is not a dtype (PyTorch's wording)."""
    return ("%s(): argument 'type' (position 1) must be torch.dtype, not %s. Fix: pass a dtype "
            "such as torch.float32 (or a tensor's .dtype)" % (fn_name, type(obj).__name__))


def info_wrong_kind(fn_name, dt):
    """torch.finfo of an integer/bool dtype, torch.iinfo of a float/bool one."""
    if fn_name == "iinfo" and dt.name == "bool":
        return "torch.bool is not supported by torch.iinfo. Fix: bool has no range; use 0 and 1"
    kind, other = (("a floating point", "iinfo") if fn_name == "finfo"
                   else ("an integer", "finfo"))
    return ("torch.%s() requires %s input type. Use torch.%s to handle 'torch.%s'. Fix: call "
            "torch.%s(%r)" % (fn_name, kind, other, fn_name, other, dt))


_DEPRECATED_WARNED = [False]


def deprecated_overload(old, new):
    """A deprecated scalar-first call form (``t.add_(2.0, b)``, ``t.addcmul_(0.5, a, b)``):
    PyTorch's UserWarning, once per process as PyTorch's (one TORCH_WARN_ONCE for all)."""
    if not _DEPRECATED_WARNED[0]:
        _DEPRECATED_WARNED[0] = True
        name = old.split("(")[0]
        warn("This overload of %s is deprecated:\n\t%s\nConsider using one of the following "
             "signatures instead:\n\t%s" % (name, old, new))


def matrix_attr(name, ndim):
    """tensor.mT / tensor.mH below 2-D (PyTorch's wording)."""
    return ("tensor.%s is only supported on matrices or batches of matrices. Got %d-D tensor. "
            "Fix: use .t() or .T for 0-D/1-D tensors (they are returned as they are), or "
            "unsqueeze to 2-D first" % (name, ndim))


# the package's root folder (this file is leafgrad/_core/errors.py)
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_stacklevel():
    """The ``stacklevel`` for a ``warnings.warn`` in the caller's frame that points at the
    first frame outside leafgrad: the line of the user's code that called in."""
    f, level = sys._getframe(1), 1
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_PKG_DIR):
        f, level = f.f_back, level + 1
    return level


def warn(message, category=UserWarning):
    """``warnings.warn`` at the user's line (PyTorch's C++ warnings, and its Python ones,
    point at the line of the script that called into torch; a fixed stacklevel would point
    inside leafgrad whenever the call goes through one more internal frame)."""
    warnings.warn(message, category, stacklevel=user_stacklevel())


def no_complex_kernel(kernel, dtype):
    """PyTorch's refusal of an ordering op (<, max, sort, ...) on complex numbers."""
    return ("\"%s\" not implemented for '%s': complex numbers have no order. Fix: compare "
            "their .abs() or .real" % (kernel, type_name(dtype)))
