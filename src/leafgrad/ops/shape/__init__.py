"""Shapes and indexing: views and copies (``views``), joins, splits and rearrangements
(``joins``, ``rearrange``), indexing and its rule (``indexing``, ``_index_rule``,
``index_fill_copy``), sorting and searching (``sorting``, ``search``).
"""
