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
from .conv import Conv1d, Conv2d, Conv3d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .activation_extra import (Softshrink, Hardshrink, RReLU, Softmax2d, CosineSimilarity,
                               PairwiseDistance)
from .pooling_more import (MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,
                           AdaptiveMaxPool2d, AdaptiveMaxPool3d)
from .normalization_more import (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
                                 LocalResponseNorm)
from .sparse_more import EmbeddingBag
from .loss_more import (PoissonNLLLoss, GaussianNLLLoss, TripletMarginLoss,
                        TripletMarginWithDistanceLoss, MultiMarginLoss, MultiLabelMarginLoss,
                        MultiLabelSoftMarginLoss, CTCLoss)
from .lazy import (LazyLinear, LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,
                   LazyConvTranspose2d, LazyConvTranspose3d, LazyBatchNorm1d, LazyBatchNorm2d,
                   LazyBatchNorm3d)
from .padding import *  # noqa: F401,F403
from .upsampling import (Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle,
                         PixelUnshuffle, Unfold, Fold)
from .pooling import (MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool1d,
                      AdaptiveAvgPool2d)
from .sparse import Embedding
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .normalization import (LayerNorm, RMSNorm, BatchNorm1d, BatchNorm2d, BatchNorm3d,
                            GroupNorm)
from .loss import (L1Loss, MSELoss, BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, NLLLoss,
                   SmoothL1Loss, HuberLoss, KLDivLoss, SoftMarginLoss, MarginRankingLoss,
                   HingeEmbeddingLoss, CosineEmbeddingLoss)
from .transformer import (MultiheadAttention, TransformerEncoderLayer, TransformerEncoder,
                          TransformerDecoderLayer, TransformerDecoder, Transformer)

from . import (activation as _a, container as _c, conv as _cv, dropout as _d, flatten as _f,
               linear as _l, loss as _lo, normalization as _n, pooling as _p, rnn as _r,
               sparse as _s, transformer as _tr, conv_transpose as _ct,
               upsampling as _up, padding as _pd,
               activation_extra as _ae, pooling_more as _pm,
               normalization_more as _nm, sparse_more as _sm, loss_more as _lm, lazy as _lz)

__all__ = ["Module"] + [n for m in (_l, _a, _c, _d, _f, _s, _n, _lo, _cv, _p, _r, _tr, _ct, _up, _pd, _ae, _pm, _nm, _sm, _lm, _lz)
                        for n in m.__all__]
