"""Every torch-level name listed in issue 13 resolves in leafgrad as it does in PyTorch
2.13 (nn modules and nn.functional: tests/nn/test_nn_issue13_names.py; what each does is
tested against torch in the other test files)."""
import importlib

import pytest
import torch

import leafgrad

NAMES = """accelerator.is_available accelerator.current_accelerator set_default_device
cuda.synchronize cuda.memory_allocated cuda.max_memory_allocated cuda.reset_peak_memory_stats
cuda.is_available backends.cudnn.enabled backends.cudnn.benchmark backends.cudnn.deterministic
Tensor.multinomial Tensor.bernoulli multinomial randint
Tensor.sin_ Tensor.t_ Tensor.unsqueeze_ Tensor.squeeze_ Tensor.clamp_ Tensor.exp_
matmul cross linalg.cross dist ravel Tensor.ravel bitwise_and bitwise_or bitwise_xor
bitwise_not bitwise_left_shift bitwise_right_shift histogram histc matrix_exp linalg.matrix_exp
svd linalg.svd linalg.eigvalsh
functional.einsum functional.split functional.norm
autograd.profiler.profile autograd.profiler.record_function profiler.profile
profiler.record_function utils.benchmark.Timer utils.benchmark.Language
autograd.graph.saved_tensors_hooks autograd.graph.save_on_cpu
autograd.graph.register_multi_grad_hook autograd.graph.Node
nn.utils.parametrize.register_parametrization nn.utils.parametrize.remove_parametrizations
nn.utils.parametrize.cached nn.utils.parametrizations.orthogonal
nn.utils.parametrizations.weight_norm nn.utils.parametrizations.spectral_norm
nn.utils.weight_norm
func.grad func.grad_and_value func.vjp func.jvp func.jacrev func.jacfwd func.hessian
func.functional_call func.vmap func.stack_module_state vmap
optim.LBFGS nn.DataParallel sparse_coo_tensor sparse.mm spmm
serialization.safe_globals serialization.add_safe_globals
nn.LSTM nn.parallel.DataParallel nn.parallel.DistributedDataParallel onnx.export
LongTensor FloatTensor DoubleTensor IntTensor BoolTensor ByteTensor""".split()

MODULES = ["functional", "func", "nn.parallel", "onnx", "autograd.profiler", "profiler",
           "utils.benchmark", "nn.utils.parametrize", "nn.utils.parametrizations", "sparse",
           "serialization", "autograd.graph"]


def _resolve(root, dotted):
    if dotted.startswith("utils.benchmark."):     # a subpackage, imported on demand
        importlib.import_module(root.__name__ + ".utils.benchmark")
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", NAMES)
def test_name_resolves_as_in_torch(name):
    _resolve(torch, name)           # the list is PyTorch's: a typo here fails
    _resolve(leafgrad, name)


@pytest.mark.parametrize("name", MODULES)
def test_module_imports_as_in_torch(name):
    importlib.import_module("torch." + name)
    importlib.import_module("leafgrad." + name)


def test_saved_tensor_attributes_of_a_node_as_torch():
    for T in (torch, leafgrad):
        a = T.ones(2, requires_grad=True)
        b = T.ones(2, requires_grad=True)
        fn = (a * b).grad_fn
        assert fn._saved_self is not None and fn._saved_other is not None
        assert hasattr(fn, "_raw_saved_self") and hasattr(fn, "_raw_saved_other")
        assert callable(fn.register_hook) and callable(fn.register_prehook)
        assert a.exp().grad_fn._saved_result is not None


def test_functorch_resolves_as_in_torch():
    import functorch
    from leafgrad import _functorch
    for n in ("make_functional", "make_functional_with_buffers", "jvp", "vmap", "grad",
              "combine_state_for_ensemble", "FunctionalModule"):
        getattr(functorch, n)
        getattr(_functorch, n)


def test_tensorboard_import_behaves_as_torch():
    def outcome(name):
        try:
            importlib.import_module(name)
            return "ok"
        except ImportError:
            return "ImportError"
    assert outcome("leafgrad.utils.tensorboard") == outcome("torch.utils.tensorboard")
