"""The active forward-AD level, read by the recording path (``ops/_dispatch.record``).

``active[0]`` is None outside ``forward_ad.dual_level`` (one global test per recorded
op) and while the level itself computes a tangent; otherwise the level object, which
gives recorded outputs their tangents (see ``autograd/forward_ad.py``). This module sits
below the Tensor and imports nothing.
"""
active = [None]
