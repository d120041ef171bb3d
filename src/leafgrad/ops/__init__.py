"""The only place that knows calculus: each family of ops with its derivative rules.

elementwise, reduction, shape, indexing, linalg, inplace; nn-specific ops
(softmax, losses, convolution) are in ``leafgrad.nn.functional``.
"""
