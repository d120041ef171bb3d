"""``leafgrad.utils``: ``utils.data`` (datasets and loaders)."""
from . import data
