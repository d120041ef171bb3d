"""The only place that knows calculus: each family of ops with its derivative rules.

elementwise, reduction, shape, indexing, linalg, inplace, conv (convolution and
pooling); other nn-specific ops (softmax, losses) are in ``leafgrad.nn.functional``.
"""
