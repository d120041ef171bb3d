"""The Tensor: a NumPy array plus what autograd needs to know about it.

A tensor is a *leaf* when no recorded op made it (``grad_fn is None``); a
leaf with ``requires_grad=True`` receives its gradient in ``.grad``. A tensor
made by an op on inputs that require grad has a ``grad_fn``: the graph node
whose backward turns the gradient of this tensor into gradients of the
inputs. ``_version`` is the version counter (``_vc``: None or a one-element list shared with
views), bumped by every in-place change; saved tensors check it at backward.

Ops live in ``leafgrad.ops``; the methods are bound to the class in
``leafgrad._api.methods`` so that this file holds only the tensor's own state.
"""
import operator
import sys
import weakref

import numpy as np

from .meta import MetaArray, copy_data, no_data
from .aten import WrapperArray, dispatch as _dispatch

from .._core import dtype as _dtype, errors as _errors
from .._core.dtype import _FROM_NP
from ..autograd.grad_mode import mode
from ..autograd import graph
from ..autograd.graph import AccumulateGrad, RemovableHandle

__all__ = ["Tensor", "Size"]

_new = object.__new__


def _sync_view(t):
    """A view whose base was changed in place elsewhere gets its grad_fn regenerated."""
    if t._vmeta[0] != t._vc[0]:
        _view_refresher[0](t)


# Regenerating a view's grad_fn is an op (ops/inplace/arithmetic.py, a layer above this one);
# it hands its function in through ``use_view_refresher`` when it is imported.
_view_refresher = [None]


def use_view_refresher(fn):
    """Set the function that regenerates a stale view's grad_fn (ops/inplace calls it)."""
    _view_refresher[0] = fn


_backward = [None]      # autograd._api.backward (above the Tensor): it binds itself at import


_legacy_new = [None]     # _tensor/creation.py's legacy constructor: it binds itself at import


def use_legacy_new(fn):
    """Set the function ``Tensor(...)`` (``Tensor.__new__``) builds tensors with."""
    _legacy_new[0] = fn


def use_backward(fn):
    """Set the function ``Tensor.backward`` runs (``autograd._api`` calls it)."""
    _backward[0] = fn


class _PublicType(type):
    """Metaclass of Tensor and Size: under ``leafgrad run`` (``sys.modules['torch']`` is
    leafgrad) ``print(type(t))`` shows ``<class 'torch.Tensor'>`` as PyTorch's does;
    ``__module__`` itself stays leafgrad's, so pickling and imports are unchanged."""

    def __repr__(cls):
        mod = cls.__module__
        if mod.startswith("leafgrad") and sys.modules.get("torch") is sys.modules.get("leafgrad"):
            mod = "torch" + mod[len("leafgrad"):]
        return "<class '%s.%s'>" % (mod, cls.__qualname__)


def _size_item(v, i):
    """One ``torch.Size`` item as an int (``operator.index``), or PyTorch's TypeError."""
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError("torch.Size() takes an iterable of 'int' (item %d is '%s'). Fix: pass "
                        "integers, e.g. int(n)" % (i, _errors.py_type_name(v))) from None


_make_size = tuple.__new__     # a Size from a tuple of ints known good (shapes): no checks


class Size(tuple, metaclass=_PublicType):
    """``tensor.shape``: a tuple that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()
    __module__ = "leafgrad"     # the public name (type(t.shape) is leafgrad.Size), as torch.Size

    def __new__(cls, sizes=()):
        """Each item read as PyTorch's ``torch.Size`` does: an int, or anything with
        ``__index__`` (a bool, a NumPy integer, a one-element integer tensor).

        Raises:
            TypeError: an item that is not an integer (``2.5``, ``'2'``, a float tensor), as
            PyTorch (so ``dist.sample((2.5,))`` is refused, not truncated)."""
        items = tuple(sizes)
        if not all(type(v) is int for v in items):
            items = tuple(_size_item(v, i) for i, v in enumerate(items))
        return tuple.__new__(cls, items)

    def __repr__(self):
        return "torch.Size([%s])" % ", ".join(str(int(s)) for s in self)

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return _make_size(Size, r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


class Tensor(metaclass=_PublicType):
    """An n-dimensional array with reverse-mode autograd, as ``torch.Tensor``.

    Build tensors with :func:`leafgrad.tensor` and the factory functions
    (``zeros``, ``randn``, ...). ``Tensor(data)`` is also accepted.
    """

    __slots__ = ("_data", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_vc",
                 "_acc", "_hooks", "_post_hooks", "_retains_grad", "_base", "_vmeta", "__weakref__")
    # the public name: type(t) prints <class 'leafgrad.Tensor'> (torch: torch.Tensor), and
    # pickle, typename and the bridge find the class there
    __module__ = "leafgrad"
    # _vmeta (set only where _base is set, read only where _base is not None): a view's
    # [version its grad_fn is valid at, made in no_grad mode, base grad_fn then,
    # multi-output op name or None]; see ops/_dispatch.mark_view

    # NumPy arrays and scalars on the left defer to our reflected operators
    # (ndarray * tensor is a tensor), as with PyTorch
    __array_priority__ = 1000

    # -- construction (hot path: no validation) ------------------------------
    @staticmethod
    def _make_plain(arr):
        t = _new(Tensor)
        t._data = arr
        t._requires_grad = False
        t._grad = t._grad_fn = t._acc = t._hooks = t._post_hooks = t._base = None
        t._output_nr = 0
        t._vc = None
        t._retains_grad = False
        return t

    @staticmethod
    def _make_nonleaf(arr, node, nr):
        t = _new(Tensor)
        t._data = arr
        t._requires_grad = True
        t._grad_fn = node
        t._grad = t._acc = t._hooks = t._post_hooks = t._base = None
        t._output_nr = nr
        t._vc = None
        t._retains_grad = False
        return t

    @staticmethod
    def _wrap_grad(g, meta):
        """A rule returned an ndarray or number: make it a tensor."""
        if isinstance(g, Tensor):
            return g
        return Tensor._make_plain(np.asarray(g, dtype=None if meta is None else meta[1]))

    def __new__(cls, *args, **kwargs):
        # the legacy constructor (Tensor(2, 3), Tensor([1, 2])) converts Python data, which
        # _tensor/creation.py knows how to do: it binds itself here (use_legacy_new). As
        # PyTorch's, it works in __new__, so that a subclass whose own __new__ builds the
        # instance (_make_subclass) is not rebuilt by __init__
        return _legacy_new[0](cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        pass        # PyTorch's Tensor.__init__ takes anything and does nothing

    def _make_like(self, arr):
        return Tensor._make_plain(arr)

    # -- autograd state -----------------------------------------------------
    @property
    def requires_grad(self):
        """Whether autograd records ops on this tensor."""
        if self._base is not None:
            try:
                _sync_view(self)
            except RuntimeError:
                # a multi-output view (split, unbind, ...) whose base was changed in place:
                # PyTorch answers from the stored flag; grad_fn / is_leaf / use raise
                pass
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(bool(value))

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` in place and return self.

        Raises:
            RuntimeError: on a non-leaf when turning it off, or on an integer
                tensor when turning it on.
        """
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return self
        if requires_grad and self._data.dtype.kind not in "fc":
            raise _errors.int_requires_grad(self.dtype)
        if requires_grad and type(self) is InferenceTensor and not mode.inference:
            raise RuntimeError(_errors.inference_requires_grad())
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        """The node that made this tensor (``None`` for leaves)."""
        if self._base is not None:
            _sync_view(self)
        return self._grad_fn

    @property
    def is_leaf(self):
        """True when no recorded op made this tensor."""
        if self._base is not None:
            _sync_view(self)
        return self._grad_fn is None

    @property
    def output_nr(self):
        return self._output_nr

    # -- version counter (the one representation) ---------------------------
    # ``_vc`` is None (version 0, no counter yet: most tensors are never viewed
    # or changed in place, and one list less per tensor is one object less for
    # the garbage collector on deep graphs) or a one-element list shared with
    # every view of the same memory. Read it with ``_version``, change it with
    # ``_bump_version()``, share it with ``_share_version(other)``.
    @property
    def _version(self):
        """How many in-place changes this tensor (or a view of it) has had (an int,
        as ``torch.Tensor._version``)."""
        v = self._vc
        return 0 if v is None else v[0]

    def _new_counter(self):
        """Create the counter at version 0. When this tensor is the saved output of
        its grad_fn (``exp``, ``tanh``, ... keep their result), the node starts
        watching the counter: an in-place change from now on is detected at backward,
        and the op did not have to make a counter for every output it saved."""
        v = self._vc = [0]
        fn = self._grad_fn
        if fn is not None and fn._out is not None and fn._out_version is None \
                and self._output_nr == 0:
            fn._out_version = (v, 0)
        return v

    def _version_counter(self):
        """The shared counter list (created at version 0 on first use)."""
        v = self._vc
        if v is None:
            v = self._new_counter()
        return v

    def _bump_version(self):
        """Record one in-place change (seen by this tensor and all its views)."""
        v = self._vc
        if v is None:
            v = self._new_counter()
        v[0] += 1

    def _share_version(self, other):
        """Make this tensor share ``other``'s counter (a view, a detached alias)."""
        v = other._vc
        if v is None:
            v = other._new_counter()
        self._vc = v

    @property
    def grad(self):
        """The accumulated gradient (leaves, or tensors with ``retain_grad()``).

        Reading it on a non-leaf that does not retain its grad returns None
        and warns, as PyTorch does.
        """
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            _errors.warn(_errors.nonleaf_grad_message(), UserWarning)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of "
                                "type %s" % type(value).__name__)
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    "assigned grad has data of a different size: the gradient has shape %s but "
                    "the tensor has shape %s. Fix: assign a gradient of the tensor's shape."
                    % (tuple(value.shape), tuple(self.shape)))
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    "assigned grad has data of a different type: the gradient is %r but the "
                    "tensor is %r. Fix: convert it with .to(tensor.dtype)." % (value.dtype, self.dtype))
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward."""
        if self._base is not None:
            _sync_view(self)
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return
        node = self._grad_fn
        if node._retained is None:
            node._retained = {}
        node._retained[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook):
        """Register ``hook(grad) -> Tensor or None``, run when this tensor's
        gradient is computed; returns a handle with ``remove()``.

        Raises:
            RuntimeError: on a tensor that does not require grad.
        """
        if self._base is not None:
            _sync_view(self)
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn._add_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return RemovableHandle(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Register ``hook(tensor)``, run after ``.grad`` of this leaf was updated."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_hooks is None:
            self._post_hooks = []
        self._post_hooks.append(hook)
        return RemovableHandle(self._post_hooks, hook)

    def _grad_accumulator(self):
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc = weakref.ref(acc)
        return acc

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. graph leaves, adding it to their ``.grad``.

        Args:
            gradient: gradient of the final result w.r.t. this tensor; needed
                unless this tensor has one element.
            retain_graph: keep saved tensors for another backward (default:
                ``create_graph``).
            create_graph: record the backward pass, for higher-order grads.
            inputs: accumulate only into these tensors.

        Raises:
            RuntimeError: see ``docs/errors.md`` (freed graph, no grad_fn,
                non-scalar output without ``gradient``).
        """
        _backward[0](self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """A new tensor sharing data (and version counter), out of the graph (a wrapper
        subclass: its ``__torch_dispatch__`` with ``aten.detach.default``)."""
        if self._data.__class__ is WrapperArray:
            return _dispatch(self, "detach", (self,), {})
        t = Tensor._make_plain(self._data)
        t._share_version(self)
        if type(self) is InferenceTensor:
            t.__class__ = InferenceTensor
        return t

    def detach_(self):
        """Detach this tensor from the graph in place (makes it a leaf)."""
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        """A tensor sharing this tensor's array, outside autograd (changes to it
        are not tracked)."""
        return Tensor._make_plain(self._data)

    @data.setter
    def data(self, value):
        self._data = value._data if isinstance(value, Tensor) else np.asarray(value)

    # -- metadata -----------------------------------------------------------
    @property
    def shape(self):
        """The shape, as ``torch.Size``."""
        return _make_size(Size, self._data.shape)

    def size(self, dim=None):
        """``size()`` -> Size; ``size(dim)`` -> int."""
        if dim is None:
            return _make_size(Size, self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        return _FROM_NP[self._data.dtype]

    @property
    def device(self):
        cls = self._data.__class__
        if cls is MetaArray:
            return _CPU[1]
        if cls is WrapperArray:     # a wrapper subclass: the device it was made with
            return self._data.device
        return _CPU[0]

    @property
    def is_meta(self):
        """True for tensors on the 'meta' device (shape and dtype, no values: _tensor/meta.py)."""
        d = self._data
        return d.__class__ is MetaArray or (d.__class__ is WrapperArray and
                                            d.device.type == "meta")

    @property
    def is_cuda(self):
        return False

    @property
    def is_cpu(self):
        """True unless the tensor is on the meta device (leafgrad computes on the CPU only)."""
        return self.device.type == "cpu"

    # the other backends' flags PyTorch's Tensor has: always False on a CPU-only build
    is_xpu = is_mps = is_ipu = is_maia = is_mtia = is_vulkan = is_xla = property(
        lambda self: False, doc="False: leafgrad has only the CPU (and meta) device.")
    is_mkldnn = is_nested = is_quantized = is_sparse_csr = property(
        lambda self: False, doc="False: leafgrad's dense tensors have none of these layouts.")

    @property
    def is_sparse(self):
        return False

    @property
    def layout(self):
        return "torch.strided"

    def dim(self):
        return self._data.ndim

    @property
    def ndim(self):
        return self._data.ndim

    def ndimension(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    def nelement(self):
        return self._data.size

    def element_size(self):
        return self._data.itemsize

    def stride(self, dim=None):
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim)]

    def is_contiguous(self, memory_format=None):
        return self._data.flags.c_contiguous

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def is_inference(self):
        """True for tensors made inside ``torch.inference_mode()``."""
        return type(self) is InferenceTensor

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    # -- conversion ---------------------------------------------------------
    def item(self):
        """The value of a one-element tensor as a Python number.

        Raises:
            RuntimeError: when the tensor has more than one element.
        """
        if self._data.size != 1:
            raise RuntimeError(
                "a Tensor with %d elements cannot be converted to Scalar: item() needs a "
                "one-element tensor. Fix: reduce it first (.sum(), .mean()) or index one "
                "element (t[0].item())." % self._data.size)
        if self._data.__class__ is MetaArray:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors: a tensor on "
                               "the 'meta' device has no values. Fix: compute on the CPU.")
        return self._data.reshape(()).item()

    def tolist(self):
        if self._data.__class__ is MetaArray:
            raise no_data("tolist")
        return self._data.tolist()

    def numpy(self, force=False):
        """The underlying NumPy array (shared, not copied).

        Raises:
            RuntimeError: when the tensor requires grad (use ``detach().numpy()``).
        """
        if self._requires_grad and not force:
            raise _errors.numpy_requires_grad()
        if self._data.__class__ is MetaArray:
            raise TypeError("can't convert meta device type tensor to numpy: it has no values. "
                            "Fix: compute on the CPU (drop the .to('meta')).")
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad:
            raise _errors.numpy_requires_grad()
        if self._data.__class__ is MetaArray:
            raise TypeError("can't convert meta device type tensor to numpy: it has no values.")
        return self._data if dtype is None else self._data.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """NumPy's result of a ufunc on tensors (``np.sin(t)``, ``np.add(a, t)``) back as
        a tensor, as PyTorch's ``__array_wrap__`` does: a new tensor sharing the array,
        bool results as uint8 (PyTorch's workaround), never requiring grad."""
        array = np.asarray(array)
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return Tensor._make_plain(array)

    def __float__(self):
        if self._requires_grad and mode.enabled:   # PyTorch is silent under no_grad
            _errors.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                         "unexpected behavior.\nConsider using tensor.detach() first.",
                         UserWarning)
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars "
                             "(this one has %d). Fix: reduce it first (.sum(), .mean()) or pick "
                             "one element." % self._data.size)
        return float(self.item())

    def __int__(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars "
                             "(this one has %d)." % self._data.size)
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.__class__ is MetaArray:
            self.item()         # PyTorch's RuntimeError: a meta tensor has no value
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with %s is ambiguous. Fix: use .any() or .all(), or "
                "compare one element." % ("no values" if self._data.size == 0
                                          else "more than one value"))
        return bool(self._data.reshape(()).item())

    def __complex__(self):
        return complex(self.item())

    def __format__(self, spec):
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__: only 0-d "
                            "tensors take a format spec. Fix: format t.item() (one element) or "
                            "t.tolist().")
        return repr(self)

    def __repr__(self):
        from .tensor_str import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    def _repr_html_(self):
        """Notebook display: shape, dtype, autograd state, the values, and .grad."""
        from ..utils.viz._html import tensor_html
        return tensor_html(self)

    # identity hash as PyTorch; the C slot avoids a Python call per dict lookup
    __hash__ = object.__hash__

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        # PyTorch's Tensor.__iter__ is iter(self.unbind(0)): one UnbindBackward0 node
        return iter(self.unbind(0))

    def __reduce_ex__(self, proto):
        raise TypeError(
            "leafgrad does not pickle tensors: checkpoints use the safetensors format. "
            "Use leafgrad.save(obj, path) / leafgrad.load(path).")

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.")
        # as PyTorch's: a new leaf with the memory copied (and the gradient)
        cls = type(self)
        if cls is not Tensor and not cls.__module__.startswith("leafgrad") and \
                self._data.__class__ is not WrapperArray:
            # a user's subclass: PyTorch makes the copy with new_empty, which gives a plain
            # Tensor there (subclass handling is off inside __torch_function__), and refuses
            raise RuntimeError(
                "The default implementation of __deepcopy__() for non-wrapper subclasses "
                "only works for subclass types that implement new_empty() and for which "
                "that function returns another instance of the same subclass. You should "
                "either properly implement new_empty() for your subclass or override "
                "__deepcopy__() if it is intended behavior for new_empty() to return "
                "an instance of a different type.")
        t = _in_class(Tensor._make_plain(copy_data(self._data)), type(self))
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = Tensor._make_plain(np.array(self._grad._data, copy=True))
        memo[id(self)] = t
        return t

    def __copy__(self):
        """``copy.copy(t)``: as PyTorch's (through its pickling protocol), a leaf of the
        same class sharing t's memory, with t's requires_grad and a shallow copy of its
        instance ``__dict__``."""
        t = _in_class(Tensor._make_plain(self._data), type(self))
        t._share_version(self)
        t._requires_grad = self.requires_grad
        state = getattr(self, "__dict__", None)
        if state:
            t.__dict__.update(state)
        return t


def _in_class(t, cls):
    """The plain tensor ``t`` as an instance of ``cls`` (a subclass may add a __dict__;
    ``cls.__new__`` is not called)."""
    if cls is Tensor:
        return t
    obj = _new(cls)
    for s in Tensor.__slots__:
        if s != "__weakref__" and hasattr(t, s):
            setattr(obj, s, getattr(t, s))
    return obj


class InferenceTensor(Tensor):
    """A tensor made inside ``inference_mode`` (prints and behaves as a Tensor);
    it cannot be saved for backward, require grad or be changed in place
    outside inference mode."""

    __slots__ = ()


InferenceTensor.__name__ = InferenceTensor.__qualname__ = "Tensor"

# ``torch.device('cpu')``, the device of every tensor (set by _creation, which defines
# the device class)
_CPU = [None, None]   # the cpu and meta devices (set by _creation)


def _make_inference(arr):
    """A tensor made inside ``inference_mode``: refuses later autograd use."""
    t = Tensor._make_plain(arr)
    t.__class__ = InferenceTensor
    return t


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-n, n - 1, dim))
    return dim % n



# Node.result builds Tensors; the graph sits below this module and is told the class here
graph.use_tensor_class(Tensor)
