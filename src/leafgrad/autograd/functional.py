"""``autograd.functional``: jacobian, hessian, vjp, jvp, hvp, vhp (PyTorch's signatures).

Everything is built on ``autograd.grad``, following PyTorch's
``torch/autograd/functional.py`` step by step so that results, return
structures (a tuple for tuple inputs/outputs, nested tuples for a Jacobian or
Hessian of several inputs) and errors match:

* a Jacobian is one vector-Jacobian product per output element;
* ``jvp`` and ``hvp`` use the double-backward trick (the gradient of a
  vector-Jacobian product with respect to its vector);
* ``vectorize=True`` and ``strategy="forward-mode"`` are accepted and give the
  same values (computed by the same loop).
"""
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]


def _as_tuple(inp, arg_name, fn_name):
    from .._tensor.tensor import Tensor
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            where = ("the value at index %d" % i) if is_tuple else ("the given %s" % arg_name)
            raise TypeError("The %s given to %s must be either a Tensor or a tuple of Tensors but "
                            "%s has type %s." % (arg_name, fn_name, where, type(el)))
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    return tuple(inp.view_as(inp) if create_graph and inp.requires_grad
                 else inp.detach().requires_grad_(need_graph) for inp in inputs)


def _grad_postprocess(inputs, create_graph):
    from .._tensor.tensor import Tensor
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError("v is a tuple of invalid length: should be %d but got %d."
                               % (len(other), len(v)))
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = "Entry %d in " % idx if is_other_tuple else ""
            raise RuntimeError("%sv has invalid size: should be %s but got %s."
                               % (prepend, el_other.size(), el_v.size()))


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError("The output of the user-provided function is independent of input "
                               "%d. This is not allowed in strict mode." % i)
        if not inp.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(
                    "The hessian of the user-provided function with respect to input %d is "
                    "independent of the input. This is not allowed in strict mode. You should "
                    "ensure that your function is thrice differentiable and that the hessian "
                    "depends on the inputs." % i)
            if input_type == "jacobian":
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the user-provided "
                    "function with respect to input %d is independent of the input. This is not "
                    "allowed in strict mode. You should ensure that your function is twice "
                    "differentiable and that the jacobian depends on the inputs (this would be "
                    "violated by a linear function for example)." % i)
            if input_type == "grad_inputs":
                raise RuntimeError(
                    "The gradient with respect to input %d is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode." % i)
            raise RuntimeError(
                "Output %d of the user-provided function does not require gradients. The outputs "
                "must be computed in a differentiable manner from the input when running in "
                "strict mode." % i)


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad that skips outputs which are None or do not require grad."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grad_outputs = [], []
    for out, g in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs.append(out)
            new_grad_outputs.append(g)
    if not new_outputs:
        return (None,) * len(inputs)
    from . import grad
    return grad(tuple(new_outputs), inputs, tuple(new_grad_outputs), allow_unused=True,
                     create_graph=create_graph, retain_graph=retain_graph)


_FILL_MESSAGES = {
    "back": "The output of the user-provided function is independent of input %d. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry %d in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input %d. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry %d "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    from .._tensor.creation import zeros_like
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL_MESSAGES[stage] % i)
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError("The %s of the user-provided function is independent of input %d. "
                               "This is not allowed in strict mode when create_graph=True."
                               % (what, i))
        res.append(g)
    return tuple(res)


def _v_none_error(what):
    return RuntimeError("The vector v can only be None if the %s a single Tensor with a single "
                        "element." % what)


def _last_vjp(ys, xs, v, like, stage, outputs, is_outputs_tuple, is_res_tuple, create_graph,
              strict):
    """Shared last step of vjp/jvp/vhp/hvp: the vector-Jacobian product of ``ys``
    w.r.t. ``xs`` with ``v`` (recorded only with create_graph), zeros where
    unused, and both results in the caller's tuple structure."""
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(ys, xs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, like, strict, create_graph, stage)
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_res_tuple)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Vector-Jacobian product ``v^T J`` of ``func`` at ``inputs``.

    Returns:
        ``(func_output, vjp)``; each a tuple when the outputs / inputs are.
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise _v_none_error("user-provided function returns")
    return _last_vjp(outputs, inputs, v, inputs, "back", outputs, is_outputs_tuple, is_inputs_tuple,
                     create_graph, strict)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Jacobian-vector product ``J v`` (by the double-backward trick).

    Returns:
        ``(func_output, jvp)``; the jvp has the structure of the outputs.
    """
    from .._tensor.creation import zeros_like
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise _v_none_error("input to the user-provided function is")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # backward is linear in grad_outputs, so their value does not matter
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    return _last_vjp(grad_inputs, grad_outputs, v, outputs, "back_trick", outputs, is_outputs_tuple, is_outputs_tuple,
                     create_graph, strict)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """Jacobian of ``func`` at ``inputs``.

    Returns:
        A tensor of shape ``out.shape + in.shape`` for one input and one
        output; a tuple over inputs (or outputs) when those are tuples; a tuple
        of tuples (``result[i][j]``: output i, input j) when both are.
    """
    from .._tensor.creation import zeros_like
    from ..ops.shape.joins import stack
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'torch.autograd.functional.jacobian: `create_graph=True` and '
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
                'are not supported together (yet). Please either set `strict=False` or '
                '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                      "Hessian is only implemented for `vectorize=True`.")
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        result = []
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in inputs)
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True,
                                    create_graph=create_graph)
                for k, (jac_k, vj_k, inp) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_k is not None:
                        if strict and create_graph and not vj_k.requires_grad:
                            raise RuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                "input %d. This is not allowed in strict mode when "
                                "create_graph=True." % i)
                        jac_k.append(vj_k)
                    else:
                        if strict:
                            raise RuntimeError(
                                "Output %d of the user-provided function is independent of input "
                                "%d. This is not allowed in strict mode." % (i, k))
                        jac_k.append(zeros_like(inp))
            result.append(tuple(
                (stack(jac_k, dim=0) if jac_k else
                 zeros_like(inputs[k]).reshape(-1)[:0]).view(tuple(out.size()) +
                                                             tuple(inputs[k].size()))
                for k, jac_k in enumerate(jac_i)))
        result = _grad_postprocess(tuple(result), create_graph)
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """Hessian of a function with a one-element output.

    Returns:
        A tensor of shape ``in.shape + in.shape``; for a tuple of inputs, a
        tuple of tuples (``result[i][j]``: inputs i and j).
    """
    from .._tensor.tensor import Tensor
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_function_checks(outputs, is_outputs_tuple, name):
    from .._tensor.tensor import Tensor
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError("The function given to %s should return a single Tensor" % name)
    if outputs[0].nelement() != 1:
        raise RuntimeError("The Tensor returned by the function given to %s should contain a "
                           "single element" % name)


def _scalar_fn_jacobian(func, inputs, v, create_graph, strict, name):
    """Shared first half of vhp/hvp: checked inputs and ``v``, the function's
    outputs, and its gradient recorded with create_graph=True."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise _v_none_error("input to the user-provided function is")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    _scalar_function_checks(outputs, is_outputs_tuple, name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Vector-Hessian product ``v^T H`` of a function with a one-element output.

    Returns:
        ``(func_output, vhp)``; the vhp has the structure of the inputs.
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_fn_jacobian(
            func, inputs, v, create_graph, strict, "vhp")
    return _last_vjp(jac, inputs, v, inputs, "double_back", outputs, is_outputs_tuple, is_inputs_tuple,
                     create_graph, strict)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Hessian-vector product ``H v`` of a function with a one-element output
    (by the double-backward trick).

    Returns:
        ``(func_output, hvp)``; the hvp has the structure of the inputs.
    """
    from .._tensor.creation import zeros_like
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_fn_jacobian(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    return _last_vjp(double_back, grad_jac, v, inputs, "double_back_trick", outputs, is_outputs_tuple, is_inputs_tuple,
                     create_graph, strict)


def _construct_standard_basis_for(tensors, tensor_numels):
    """The N x N identity (N = sum(tensor_numels)) split by columns into one chunk per
    tensor, each chunk of shape (N, numel) with that tensor's dtype and device
    (PyTorch's ``torch.autograd.functional._construct_standard_basis_for``, the basis
    of vectorized jacobians).

    Raises:
        AssertionError: the two sequences' lengths differ, or they are empty (PyTorch's
            messages).
    """
    if len(tensors) != len(tensor_numels):
        raise AssertionError(f"Expected tensors and tensor_numels to have the same length, "
                             f"but got {len(tensors)} and {len(tensor_numels)}")
    if len(tensors) == 0:
        raise AssertionError("Expected at least one tensor")
    total = sum(tensor_numels)
    chunks = tuple(t.new_zeros(total, n) for t, n in zip(tensors, tensor_numels))
    start = 0
    for chunk, n in zip(chunks, tensor_numels):
        chunk.diagonal(start).fill_(1)
        start -= n
    return chunks
