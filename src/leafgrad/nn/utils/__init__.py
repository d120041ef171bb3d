"""``leafgrad.nn.utils``: gradient clipping, parameter/vector conversion, packed and padded
sequences (``rnn``), parametrizations, pruning and weight norms."""
from . import clip_grad, convert_parameters, rnn
from .clip_grad import (clip_grad_norm_, clip_grad_norm, clip_grad_value_, get_total_norm,
                        clip_grads_with_norm_)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from . import parametrize, parametrizations, prune  # noqa: E402
from .weight_norm import (weight_norm, remove_weight_norm, spectral_norm,  # noqa: E402
                          remove_spectral_norm)
