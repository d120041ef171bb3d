"""``torch.utils.dlpack``: ``from_dlpack``, ``to_dlpack`` and ``DLDeviceType``
(implemented in :mod:`leafgrad._api.interop`)."""
from .._api.interop import DLDeviceType, from_dlpack, to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
