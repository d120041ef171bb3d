"""``nn.functional``'s ops: activations, losses, convolutions, pooling, normalisation,
embedding, attention, padding, resampling, sampling grids and the recurrent layer.
"""
