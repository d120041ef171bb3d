"""``leafgrad.nn.modules``: every layer class, re-exported by ``leafgrad.nn``."""
from .module import Module
from .linear import Identity, Linear, Bilinear
from .activation import (ReLU, Sigmoid, Tanh, LeakyReLU, ELU, SELU, CELU, GELU, SiLU, Softplus,
                         Softmax, LogSoftmax, Softmin, Hardtanh, ReLU6, Mish, Softsign,
                         Hardsigmoid, Hardswish, Tanhshrink, LogSigmoid, Threshold, GLU, PReLU)
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .dropout import (Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout,
                      FeatureAlphaDropout)
from .flatten import Flatten, Unflatten
from .conv import Conv1d, Conv2d
from .pooling import (MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool1d,
                      AdaptiveAvgPool2d)
from .sparse import Embedding
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .normalization import (LayerNorm, RMSNorm, BatchNorm1d, BatchNorm2d, BatchNorm3d,
                            GroupNorm)
from .loss import (L1Loss, MSELoss, BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, NLLLoss,
                   SmoothL1Loss, HuberLoss, KLDivLoss, SoftMarginLoss, MarginRankingLoss,
                   HingeEmbeddingLoss, CosineEmbeddingLoss)

from . import (activation as _a, container as _c, conv as _cv, dropout as _d, flatten as _f,
               linear as _l, loss as _lo, normalization as _n, pooling as _p, rnn as _r,
               sparse as _s)

__all__ = ["Module"] + [n for m in (_l, _a, _c, _d, _f, _s, _n, _lo, _cv, _p, _r)
                        for n in m.__all__]
