"""State shared with the in-place ops while ``vmap`` runs a function batched
(func/_batched.py): how many batched calls run, and the exception that sends ``vmap``
back to its per-sample loop. Kept here, below the ops, so that ops/inplace/arithmetic.py can refuse
writes (the loop would run them a second time) without importing torch.func."""


class Unbatchable(BaseException):
    """Raised inside a batched ``vmap`` run when an op has no batching rule or would
    write in place; ``vmap`` catches it and runs the function once per sample instead.
    A BaseException, so that no ``except Exception`` on the way swallows it."""


depth = [0]         # batched vmap calls running
