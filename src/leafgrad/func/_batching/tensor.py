"""The batched tensor of a batched ``vmap`` call and the helpers every batching
rule uses.

Inside a batched call the mapped inputs are :class:`BatchedTensor` s: a tensor whose
*logical* shape is one sample's, holding a *physical* plain tensor with the batch along
dim 0. Its storage slots (``_data`` and the rest) raise :class:`Unbatchable` when read,
so an op without a rule falls back to the per-sample loop instead of guessing.
"""
from ...autograd._batching_state import Unbatchable
from ..._tensor.tensor import Tensor

_new = object.__new__


def _refuse(*_):
    raise Unbatchable()


class BatchedTensor(Tensor):
    """A batch of tensors seen as one sample: ``shape`` and friends are a sample's;
    ``_bv`` is the physical tensor (batch at dim 0), ``_bb`` the batch size."""
    __slots__ = ("_bv", "_bb")

    # -- metadata (a sample's) ------------------------------------------------
    @property
    def shape(self):
        return self._bv.shape[1:]

    def size(self, dim=None):
        s = self._bv.shape[1:]
        if dim is None:
            return s
        return s[dim]

    def dim(self):
        return self._bv.dim() - 1

    ndimension = dim

    @property
    def ndim(self):
        return self._bv.dim() - 1

    def numel(self):
        n = 1
        for s in self._bv.shape[1:]:
            n *= s
        return n

    nelement = numel

    def __len__(self):
        if self._bv.dim() == 1:
            raise TypeError("len() of a 0-d tensor")
        return self._bv.shape[1]

    @property
    def dtype(self):
        return self._bv.dtype

    @property
    def device(self):
        return self._bv.device

    @property
    def requires_grad(self):
        return self._bv.requires_grad

    @property
    def is_leaf(self):
        return self._bv.is_leaf

    @property
    def grad_fn(self):
        return self._bv.grad_fn

    def is_floating_point(self):
        return self._bv.is_floating_point()

    def is_complex(self):
        return self._bv.is_complex()

    def element_size(self):
        return self._bv.element_size()

    def __repr__(self):
        # PyTorch prints a batched tensor inside vmap this way
        return "BatchedTensor(lvl=1, bdim=0, value=\n%s\n)" % "\n".join(
            "    " + line for line in repr(self._bv).splitlines())

    # -- autograd bookkeeping ---------------------------------------------------
    def detach(self):
        return _wrap(self._bv.detach(), self._bb)

    def requires_grad_(self, requires_grad=True):
        self._bv.requires_grad_(requires_grad)
        return self


# every storage slot of Tensor refuses: whatever has no rule reads one and falls back
for _slot in Tensor.__slots__:
    if _slot != "__weakref__":
        setattr(BatchedTensor, _slot, property(_refuse, _refuse))
del _slot


def _wrap(value, size):
    t = _new(BatchedTensor)
    t._bv = value
    t._bb = size
    return t


def wrap(value, size):
    """A BatchedTensor over ``value`` (batch at dim 0, of ``size``)."""
    return _wrap(value, size)


def _is_b(x):
    return type(x) is BatchedTensor


def _size_of(args):
    for a in args:
        if type(a) is BatchedTensor:
            return a._bb
    return None


def _pad(v, rank):
    """Physical ``v`` (batch first) with singleton dims after the batch so that its
    logical rank is ``rank`` (NumPy broadcasting then lines samples up)."""
    k = rank - (v.dim() - 1)
    if k <= 0:
        return v
    return v.reshape((v.shape[0],) + (1,) * k + tuple(v.shape[1:]))


def _tensor_args(args, kwargs):
    return [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]


def _any_batched(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if type(a) is BatchedTensor:
            return True
        if isinstance(a, (tuple, list)) and any(type(e) is BatchedTensor for e in a):
            return True
    return False


def _dims(dim, nd):
    """Logical dim(s) -> physical (shifted by the batch dim); None when not simple."""
    if isinstance(dim, bool):
        return None
    if isinstance(dim, int):
        if not -max(nd, 1) <= dim < max(nd, 1):
            return None
        return dim % max(nd, 1) + 1
    if isinstance(dim, (tuple, list)) and all(isinstance(d, int) and not isinstance(d, bool)
                                              for d in dim):
        out = [_dims(d, nd) for d in dim]
        return None if None in out else tuple(out)
    return None


def _expand(t, n):
    """``t``'s physical tensor: its own for a batched one, else expanded along the batch."""
    return t._bv if _is_b(t) else t.unsqueeze(0).expand((n,) + tuple(t.shape))


def _all_dims(nd):
    return tuple(range(1, nd + 1))


def _reduced_dims(input, dim):
    """The physical dims a per-sample reduction over ``dim`` (None: all) covers; a 0-d
    sample or a dim that is not a plain int / tuple goes to the per-sample loop."""
    nd = input.dim()
    pd = None if nd == 0 else _all_dims(nd) if dim is None else _dims(dim, nd)
    if pd is None:
        raise Unbatchable()
    return pd


def _same(name):
    def method(self, *args, **kwargs):
        if _tensor_args(args, kwargs):
            raise Unbatchable()
        return _wrap(getattr(self._bv, name)(*args, **kwargs), self._bb)
    method.__name__ = name
    return method

