"""Shapes and indexing: views and copies (``views``), joins (``joins``), splits (``splits``),
rearrangements such as flip, roll and repeat (``rearrange``), diagonals and triangles
(``diagonals``), ``combinations``, indexing that reads (``indexing``, with its rule
``_index_rule``) and indexed writes such as scatter, index_add and masked_fill
(``indexed_writes``), sorting and searching (``sorting``, ``search``).
"""
