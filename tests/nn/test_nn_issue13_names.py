"""Every nn name of issue 13 resolves in leafgrad where it does in PyTorch 2.13 (the
behaviour of each is tested against torch in the other tests/nn files)."""
import pytest
import torch

import leafgrad as lg

MODULES = """MultiheadAttention Transformer TransformerEncoder TransformerEncoderLayer
TransformerDecoder TransformerDecoderLayer ConvTranspose1d ConvTranspose2d ConvTranspose3d
Upsample UpsamplingNearest2d UpsamplingBilinear2d PixelShuffle PixelUnshuffle Unfold Fold
Conv3d MaxPool3d AvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d
AdaptiveAvgPool3d ZeroPad1d ZeroPad2d ZeroPad3d ConstantPad1d ConstantPad2d ConstantPad3d
ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d
ReplicationPad3d CircularPad1d CircularPad2d CircularPad3d InstanceNorm1d InstanceNorm2d
InstanceNorm3d LocalResponseNorm EmbeddingBag PReLU RReLU Softshrink Hardshrink
CosineSimilarity PairwiseDistance Softmax2d PoissonNLLLoss GaussianNLLLoss TripletMarginLoss
TripletMarginWithDistanceLoss MultiMarginLoss MultiLabelMarginLoss MultiLabelSoftMarginLoss
CTCLoss LazyLinear LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d
LazyConvTranspose3d LazyBatchNorm1d LazyBatchNorm2d LazyBatchNorm3d DataParallel
UninitializedParameter""".split()

FUNCTIONS = """scaled_dot_product_attention multi_head_attention_forward conv_transpose1d
conv_transpose2d conv_transpose3d conv3d interpolate upsample upsample_nearest
upsample_bilinear pixel_shuffle pixel_unshuffle unfold fold pad max_pool3d avg_pool3d
adaptive_max_pool1d adaptive_max_pool2d adaptive_max_pool3d adaptive_avg_pool3d instance_norm
local_response_norm embedding_bag prelu rrelu softshrink hardshrink poisson_nll_loss
gaussian_nll_loss triplet_margin_loss triplet_margin_with_distance_loss multi_margin_loss
multilabel_margin_loss multilabel_soft_margin_loss ctc_loss""".split()


@pytest.mark.parametrize("name", MODULES)
def test_module_names_resolve(name):
    assert hasattr(torch.nn, name)
    assert isinstance(getattr(lg.nn, name), type)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functional_names_resolve(name):
    assert hasattr(torch.nn.functional, name)
    assert callable(getattr(lg.nn.functional, name))


@pytest.mark.parametrize("name", ["DataParallel", "DistributedDataParallel", "data_parallel"])
def test_parallel_names_resolve(name):
    assert hasattr(torch.nn.parallel, name) and hasattr(lg.nn.parallel, name)


def test_transformer_static_mask():
    assert lg.nn.Transformer.generate_square_subsequent_mask(3).shape == (3, 3)
