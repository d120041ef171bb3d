"""vmap's batching rules, one file per family of ops, as PyTorch's
aten/src/ATen/functorch/BatchRules*.cpp: ``tensor`` (:class:`BatchedTensor` and
the helpers every rule uses), ``elementwise``, ``reduce`` (reductions, softmax,
max / min, var / std, vector norms), ``shape`` (views, joins, indexing, gather /
scatter, ops of data-dependent size), ``linalg`` (matmul, linear, matrix norms),
``nn`` (convolution, pooling, losses, embedding).

A rule turns the logical call (one sample) into one physical call on the batch
(batch at dim 0; an unbatched operand that must be per sample is expanded along
it) and raises :class:`Unbatchable` for what it does not cover; vmap then runs
that function once per sample instead. Each family gives ``install_methods``
(its ``BatchedTensor`` methods) and ``function_rules`` (its module-level
functions); ``func/_batched.py`` puts them in place for a batched call.

Imports: ``tensor`` imports no rule; the families import ``tensor`` (and
``reduce`` imports ``elementwise``); nothing here imports ``func._batched``.
"""
