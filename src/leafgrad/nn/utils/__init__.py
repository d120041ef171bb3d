"""``leafgrad.nn.utils``: gradient clipping, parameter/vector conversion and sequence
padding (``rnn.pad_sequence``)."""
from . import clip_grad, convert_parameters, rnn
from .clip_grad import (clip_grad_norm_, clip_grad_norm, clip_grad_value_, get_total_norm,
                        clip_grads_with_norm_)
from .convert_parameters import parameters_to_vector, vector_to_parameters
