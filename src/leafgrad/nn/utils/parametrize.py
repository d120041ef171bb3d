"""``torch.nn.utils.parametrize``: a module attribute computed from other tensors.

``register_parametrization(module, "weight", P())`` moves the tensor to
``module.parametrizations.weight.original`` and makes ``module.weight`` a property
that returns ``P()(original)`` (several parametrizations compose in order). As in
PyTorch (``torch/nn/utils/parametrize.py``): the module's class becomes a subclass
named ``Parametrized<Class>``; state_dict keys become ``parametrizations.weight.original``
(``original0``, ``original1``, ... when ``right_inverse`` returns a tuple); assigning
``module.weight = value`` stores ``right_inverse(value)``; ``cached()`` computes each
parametrized tensor once inside its block; ``remove_parametrizations`` puts a plain
parameter back.
"""
import contextlib

from ..._tensor.tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "type_before_parametrizations", "ParametrizationList"]

_cache_enabled = [0]
_cache = {}


@contextlib.contextmanager
def cached():
    """Inside this block each parametrized tensor is computed once (on first access)."""
    _cache_enabled[0] += 1
    try:
        yield
    finally:
        _cache_enabled[0] -= 1
        if not _cache_enabled[0]:
            _cache.clear()


def _as_parameter_like(original, value):
    """``value`` as a leaf like ``original`` (a Parameter if it was one)."""
    if isinstance(original, Parameter):
        return Parameter(value.detach(), original.requires_grad)
    return value.detach()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the tensor(s) they read
    (``original`` or ``original0``, ``original1``, ...)."""

    def __init__(self, modules, original, unsafe=False):
        if not modules:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for m in reversed(self):
                if hasattr(m, "right_inverse"):
                    try:
                        new = m.right_inverse(new)
                    except NotImplementedError:
                        pass
        if isinstance(new, Tensor):
            if not unsafe:
                _check_tensor(new, shape, dtype, "right_inverse")
            self.is_tensor = True
            self.ntensors = 1
            if new is not original:
                # PyTorch keeps the same Parameter object (set_); a new shape needs a new leaf
                if new.shape == original.shape and new.dtype == original.dtype:
                    with no_grad():
                        original.copy_(new)
                else:
                    original = _as_parameter_like(original, new)
            self._register_original("original", original)
        else:
            if not isinstance(new, (tuple, list)):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                 "(list, tuple...). Got %s" % type(new).__name__)
            self.is_tensor = False
            self.ntensors = len(new)
            for i, t in enumerate(new):
                if not isinstance(t, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                     "%s." % type(t).__name__)
                self._register_original("original%d" % i, _as_parameter_like(original, t))
        if not unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError("A parametrization must return a tensor. Got %s."
                                 % type(z).__name__)
            _check_tensor(z, shape, dtype, "parametrization")

    def _register_original(self, name, t):
        if isinstance(t, Parameter):
            self.register_parameter(name, t)
        else:
            self.register_buffer(name, t)

    def right_inverse(self, value):
        """Store ``value``: run it back through each parametrization's ``right_inverse``."""
        with no_grad():
            for m in reversed(self):
                if not hasattr(m, "right_inverse"):
                    raise RuntimeError("parametrization %s does not implement right_inverse."
                                       % type(m).__name__)
                value = m.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError("`right_inverse` should return a tensor. Got %s"
                                     % type(value).__name__)
                self.original.copy_(value)
            else:
                if not isinstance(value, (tuple, list)) or len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of %d tensors"
                                     % self.ntensors)
                for i, t in enumerate(value):
                    getattr(self, "original%d" % i).copy_(t)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, "original%d" % i) for i in range(self.ntensors)))
        for m in list(self)[1:]:
            x = m(x)
        return x


def _check_tensor(t, shape, dtype, what):
    if t.dtype != dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                         "unless `unsafe` flag is enabled.\nunparametrized dtype: %s\n"
                         "parametrized dtype: %s" % (dtype, t.dtype) if what == "parametrization"
                         else "When `right_inverse` outputs one tensor, it may not change the "
                         "dtype.\noriginal.dtype: %s\nright_inverse(original).dtype: %s"
                         % (dtype, t.dtype))
    if tuple(t.shape) != tuple(shape):
        raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                         "unless `unsafe` flag is enabled.\nunparametrized shape: %s\n"
                         "parametrized shape: %s" % (shape, t.shape) if what == "parametrization"
                         else "When `right_inverse` outputs one tensor, it may not change the "
                         "shape.\noriginal.shape: %s\nright_inverse(original).shape: %s"
                         % (shape, t.shape))


def _property(name):
    def get(self):
        plist = self.parametrizations[name]
        if _cache_enabled[0]:
            key = (id(self), name)
            hit = _cache.get(key)
            if hit is None:
                hit = _cache[key] = plist()
            return hit
        return plist()

    def set(self, value):
        self.parametrizations[name].right_inverse(value)
    return property(get, set)


def _inject_class(module):
    cls = module.__class__
    new = type("Parametrized" + cls.__name__, (cls,), {"__module__": cls.__module__})
    new._leafgrad_parametrized_base = cls
    module.__class__ = new


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has parametrizations (on ``tensor_name``, when given)."""
    p = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(p, ModuleDict):
        return False
    return len(p) > 0 if tensor_name is None else tensor_name in p


def type_before_parametrizations(module):
    """The module's class before any parametrization was registered."""
    return getattr(type(module), "_leafgrad_parametrized_base", type(module)) \
        if is_parametrized(module) else type(module)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Parametrize ``module.<tensor_name>`` by the module ``parametrization``; returns
    ``module``.

    Raises:
        ValueError: no parameter, buffer or parametrized tensor of that name; the
            parametrization changes the shape or dtype (without ``unsafe=True``).
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError("A parametrization must return a tensor. Got %s."
                                 % type(x).__name__)
            _check_tensor(x, y.shape, y.dtype, "parametrization")
            if hasattr(parametrization, "right_inverse"):
                z = parametrization.right_inverse(x)
                if not isinstance(z, Tensor):
                    raise ValueError("parametrization.right_inverse must return a tensor. Got: %s"
                                     % type(z).__name__)
        plist.append(parametrization)
        plist.unsafe |= unsafe
        return module
    params, buffers = module._parameters, module._buffers
    if tensor_name in params or tensor_name in buffers:
        original = params[tensor_name] if tensor_name in params else buffers[tensor_name]
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        if tensor_name in params:
            del params[tensor_name]
        else:
            del buffers[tensor_name]
        if not is_parametrized(module):
            _inject_class(module)
            module.parametrizations = ModuleDict()
        module.parametrizations[tensor_name] = plist
        setattr(type(module), tensor_name, _property(tensor_name))
        return module
    raise ValueError("Module '%s' does not have a parameter, a buffer, or a parametrized element "
                     "with name '%s'" % (module, tensor_name))


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo ``register_parametrization`` for ``tensor_name``: keep the current parametrized
    value (``leave_parametrized=True``) or the original, as a plain parameter/buffer.

    Raises:
        ValueError: no parametrization on ``tensor_name``; ``leave_parametrized=False``
            with several original tensors.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError("Module %s does not have a parametrization on %s" % (module,
                                                                               tensor_name))
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            with no_grad():
                if t.shape == original.shape and t.dtype == original.dtype:
                    original.copy_(t)
                else:
                    original = _as_parameter_like(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        first = plist.original0
        original = Parameter(t.detach(), first.requires_grad) if isinstance(first, Parameter) \
            else t.detach()
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module)._leafgrad_parametrized_base
    return module
