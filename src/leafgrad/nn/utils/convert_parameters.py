"""``parameters_to_vector`` / ``vector_to_parameters`` (as ``torch.nn.utils``)."""
from ..._tensor.tensor import Tensor
from ...ops.shape.joins import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-D tensor (differentiable)."""
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Set the parameters' values from slices of the 1-D ``vec`` (as PyTorch, the parameters
    then share ``vec``'s memory).

    Raises:
        TypeError: when ``vec`` is not a tensor.
    """
    if not isinstance(vec, Tensor):
        raise TypeError("expected torch.Tensor, but got: %s" % type(vec).__name__)
    pointer = 0
    for param in parameters:
        n = param.numel()
        param._data = vec._data[pointer:pointer + n].reshape(param._data.shape)
        pointer += n
