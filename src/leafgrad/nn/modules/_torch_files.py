"""PyTorch's file layout of ``torch.nn.modules``, over leafgrad's.

Real code names layers by the file PyTorch defines them in: ``isinstance(m,
nn.modules.batchnorm._BatchNorm)``, ``torch.nn.modules.activation.MultiheadAttention``,
``from torch.nn.modules.conv import _ConvNd``. leafgrad groups its layers by its own
families (``normalization.py`` holds the batch norms, ``transformer.py`` holds
``MultiheadAttention``), so this table says, for each of PyTorch's files, which of its
classes leafgrad defines elsewhere. ``install`` makes ``leafgrad.nn.modules.<file>`` hold
them: it adds them to leafgrad's file of that name, or registers a module of that name
when leafgrad has no such file. The objects are the same classes as ``leafgrad.nn.X``.

``tests/nn/test_nn_torch_files.py`` checks every class of every ``torch.nn.modules``
file against this (a class leafgrad has but that is missing here fails the test).
"""
import importlib
import sys
import types

# PyTorch's file -> the classes it defines that live in another leafgrad file.
TORCH_FILES = {
    "activation": ("RReLU", "Hardshrink", "Softshrink", "Softmax2d", "MultiheadAttention"),
    "batchnorm": ("_BatchNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
                  "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "SyncBatchNorm"),
    "conv": ("_ConvTransposeNd", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
             "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
             "LazyConvTranspose2d", "LazyConvTranspose3d"),
    "container": ("Container",),
    "distance": ("PairwiseDistance", "CosineSimilarity"),
    "fold": ("Fold", "Unfold"),
    "instancenorm": ("_InstanceNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
                     "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"),
    "linear": ("NonDynamicallyQuantizableLinear", "LazyLinear"),
    "loss": ("PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelMarginLoss",
             "MultiLabelSoftMarginLoss", "MultiMarginLoss", "TripletMarginLoss",
             "TripletMarginWithDistanceLoss", "CTCLoss", "NLLLoss2d", "LinearCrossEntropyLoss"),
    "normalization": ("LocalResponseNorm", "CrossMapLRN2d"),
    "pixelshuffle": ("PixelShuffle", "PixelUnshuffle"),
    "pooling": ("MaxPool3d", "AvgPool3d", "_MaxUnpoolNd", "MaxUnpool1d", "MaxUnpool2d",
                "MaxUnpool3d", "_LPPoolNd", "LPPool1d", "LPPool2d", "LPPool3d",
                "_AdaptiveMaxPoolNd", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
                "AdaptiveMaxPool3d", "AdaptiveAvgPool3d", "FractionalMaxPool2d",
                "FractionalMaxPool3d"),
    "sparse": ("EmbeddingBag",),
}


def install(package, classes):
    """Give each of PyTorch's files in ``TORCH_FILES`` its classes. ``package``: the
    ``leafgrad.nn.modules`` module; ``classes``: every class of its files by name (one
    class per name)."""
    for torch_file, names in TORCH_FILES.items():
        full = package.__name__ + "." + torch_file
        try:
            module = importlib.import_module(full)
        except ModuleNotFoundError:
            module = types.ModuleType(full, "PyTorch's torch.nn.modules.%s: its classes, "
                                      "which leafgrad defines in other files (see %s)."
                                      % (torch_file, __name__))
            module.__all__ = []     # exported by the files that define them
            sys.modules[full] = module
            setattr(package, torch_file, module)
        for name in names:
            if name in classes:     # a class another session has not added yet is skipped
                setattr(module, name, classes[name])
