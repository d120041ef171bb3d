"""``nn.functional``'s ops: activations, losses (``loss``, ``loss_bce``, ``loss_smooth``,
``loss_margin``, ``loss_likelihood``), convolutions, pooling, normalisation
(``normalization``, ``instancenorm``, ``local_response_norm``), ``embedding`` and
``embedding_bag``, distances, ``pixel_shuffle`` and ``channel_shuffle``, attention, padding,
resampling, sampling grids and the recurrent layer.
"""
