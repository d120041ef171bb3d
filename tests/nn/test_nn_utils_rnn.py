"""torch.nn.utils.rnn against real PyTorch: PackedSequence, pack_padded_sequence,
pad_packed_sequence, pack_sequence, unpack_sequence, pad_sequence, unpad_sequence and
invert_permutation; values, dtypes, grad_fn names, gradients (first and second order) on
hypothesis-drawn batches, and PyTorch's exception classes for its refusals.

Ties in the lengths: with ``enforce_sorted=False`` PyTorch sorts with its unstable sort, so
the order of equal-length sequences inside ``data`` is implementation-defined; ``data``
and the indices are compared only for distinct lengths, and everything that comes back in
the caller's order (the padded batch, the lengths, gradients) always."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad as lg
from _outcome import builtin_name, raised

LIBS = (torch, lg)


def _np(t):
    return t.detach().numpy()


@st.composite
def _batches(draw):
    lengths = draw(st.lists(st.integers(1, 6), min_size=1, max_size=6))
    enforce = draw(st.booleans())
    if enforce:
        lengths = sorted(lengths, reverse=True)
    T = max(lengths) + draw(st.integers(0, 2))           # padding past the longest too
    trailing = draw(st.sampled_from([(), (2,), (3, 2)]))
    dt = draw(st.sampled_from([np.float32, np.float64]))
    batch_first = draw(st.booleans())
    as_tensor = draw(st.booleans())
    seed = draw(st.integers(0, 2 ** 16))
    shape = ((len(lengths), T) if batch_first else (T, len(lengths))) + trailing
    x = np.random.default_rng(seed).normal(size=shape).astype(dt)
    return x, lengths, batch_first, enforce, as_tensor


def _pack_pad(T, x, lengths, batch_first, enforce, as_tensor, total, value):
    tx = T.tensor(x, requires_grad=True)
    lens = T.tensor(lengths) if as_tensor else lengths
    p = T.nn.utils.rnn.pack_padded_sequence(tx * 1, lens, batch_first=batch_first,
                                            enforce_sorted=enforce)
    y, out_lens = T.nn.utils.rnn.pad_packed_sequence(p, batch_first=batch_first,
                                                     padding_value=value, total_length=total)
    w = T.tensor(np.random.default_rng(5).normal(size=tuple(y.shape)).astype(x.dtype))
    (g,) = T.autograd.grad((y * w).sum() + (p.data ** 2).sum(), tx, create_graph=True)
    (gg,) = T.autograd.grad((g * g).sum(), tx)
    idx = [None if i is None else i.tolist() for i in (p.sorted_indices, p.unsorted_indices)]
    return dict(data=_np(p.data), batch_sizes=p.batch_sizes.tolist(), idx=idx,
                bs_dtype=str(p.batch_sizes.dtype), padded=_np(y), lengths=out_lens.tolist(),
                lengths_dtype=str(out_lens.dtype), grad=_np(g), grad2=_np(gg),
                names=(p.data.grad_fn.name(), y.grad_fn.name()), type=type(p).__name__)


@given(_batches(), st.sampled_from([None, 0, 2]), st.sampled_from([0.0, -1.5]))
@settings(max_examples=30)
def test_pack_then_pad_matches_torch(batch, extra, value):
    x, lengths, batch_first, enforce, as_tensor = batch
    T = x.shape[1] if batch_first else x.shape[0]
    total = None if extra is None else T + extra
    got = [_pack_pad(L, x, lengths, batch_first, enforce, as_tensor, total, value)
           for L in LIBS]
    distinct = enforce or len(set(lengths)) == len(lengths)
    for key in ("batch_sizes", "bs_dtype", "lengths", "lengths_dtype", "names", "type"):
        assert got[1][key] == got[0][key], key
    if distinct:
        assert got[1]["idx"] == got[0]["idx"]
        np.testing.assert_array_equal(got[1]["data"], got[0]["data"])
    for key in ("padded", "grad", "grad2"):
        assert got[1][key].dtype == got[0][key].dtype
        np.testing.assert_array_equal(got[1][key], got[0][key], err_msg=key)


def _sequences(draw_lengths, trailing, dt, seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n,) + trailing).astype(dt) for n in draw_lengths]


@given(st.lists(st.integers(0, 5), min_size=1, max_size=5), st.sampled_from([(), (2,)]),
       st.booleans(), st.sampled_from(["right", "left"]), st.sampled_from([0.0, 2.5]),
       st.sampled_from([np.float32, np.float64, np.int64]), st.integers(0, 99))
def test_pad_sequence_matches_torch(lengths, trailing, batch_first, side, value, dt, seed):
    seqs = _sequences(lengths, trailing, dt, seed)
    got = []
    for T in LIBS:
        ts = [T.tensor(s, requires_grad=dt != np.int64) for s in seqs]
        y = T.nn.utils.rnn.pad_sequence(ts, batch_first=batch_first, padding_value=value,
                                        padding_side=side)
        grads = None
        if dt != np.int64:
            w = T.tensor(np.arange(y.numel(), dtype=dt).reshape(tuple(y.shape)))
            grads = [_np(g) for g in T.autograd.grad((y * w).sum(), ts, allow_unused=True)]
        got.append((_np(y), str(y.dtype), y.grad_fn and y.grad_fn.name(), grads))
    np.testing.assert_array_equal(got[1][0], got[0][0])
    assert got[1][1:3] == got[0][1:3]
    for a, b in zip(got[1][3] or (), got[0][3] or ()):
        np.testing.assert_array_equal(a, b)


def test_pad_sequence_takes_the_first_dtype_and_a_tensor():
    for T in LIBS:
        pad = T.nn.utils.rnn.pad_sequence
        y = pad([T.arange(3), T.arange(1)], padding_value=2.7)
        assert y.dtype == T.int64 and y.tolist() == [[0, 0], [1, 2], [2, 2]]
        assert pad([T.arange(3.), T.arange(1, dtype=T.float64)]).dtype == T.float32
        assert tuple(pad(T.ones(2, 3)).shape) == (3, 2)
        assert tuple(pad((T.ones(2), T.ones(3))).shape) == (3, 2)
        assert tuple(pad([T.ones(0, 2), T.ones(0, 2)]).shape) == (0, 2, 2)


def _error_calls(T):
    R = T.nn.utils.rnn
    x = T.zeros(4, 3, 2)
    meta = T.tensor([4, 2, 1], device="meta")
    p = R.pack_padded_sequence(x, [4, 2, 1])
    return {
        "unsorted": lambda: R.pack_padded_sequence(x, [2, 4, 1]),
        "zero_last": lambda: R.pack_padded_sequence(x, [4, 2, 0]),
        "zero_unsorted": lambda: R.pack_padded_sequence(x, [0, 2, 1], enforce_sorted=False),
        "negative": lambda: R.pack_padded_sequence(x, [4, 2, -1]),
        "zero_first_sorted_check": lambda: R.pack_padded_sequence(x, [4, 0, 2]),
        "too_few": lambda: R.pack_padded_sequence(x, [4, 2]),
        "too_many": lambda: R.pack_padded_sequence(x, [4, 2, 1, 1]),
        "meta_lengths": lambda: R.pack_padded_sequence(x, meta),
        "2d_lengths": lambda: R.pack_padded_sequence(x, T.tensor([[4, 2, 1]])),
        "0d_lengths": lambda: R.pack_padded_sequence(x, T.tensor(4)),
        "empty": lambda: R.pack_padded_sequence(T.zeros(0, 3, 2), [0, 0, 0]),
        "empty_batch": lambda: R.pack_padded_sequence(T.zeros(4, 0, 2), []),
        "1d": lambda: R.pack_padded_sequence(T.zeros(4), [4]),
        "batch_first_len": lambda: R.pack_padded_sequence(x, [4, 2, 1], batch_first=True),
        "total_short": lambda: R.pad_packed_sequence(p, total_length=3),
        "total_zero": lambda: R.pad_packed_sequence(p, total_length=0),
        "pad_tuple": lambda: R.pad_packed_sequence((p.data, p.batch_sizes)),
        "one_arg": lambda: R.PackedSequence(p.data),
        "meta_batch_sizes": lambda: R.PackedSequence(p.data, p.batch_sizes.to("meta")),
        "copy": lambda: p.to(dtype=T.float64, copy=True),
        "cuda": lambda: p.cuda(),
        "pin": lambda: p.pin_memory(),
        "pad_int": lambda: R.pad_sequence(3),
        "pad_empty": lambda: R.pad_sequence([]),
        "pad_0d": lambda: R.pad_sequence([T.tensor(1.), T.tensor(2.)]),
        "pad_trailing": lambda: R.pad_sequence([T.ones(2, 3), T.ones(2, 4)]),
        "pad_rank": lambda: R.pad_sequence([T.ones(2, 3), T.ones(2, 3, 1)]),
        "pad_not_tensor": lambda: R.pad_sequence([T.ones(2, 3), 3]),
        "pad_side": lambda: R.pad_sequence([T.ones(2, 3)], padding_side="up"),
        "pack_seq_empty": lambda: R.pack_sequence([]),
        "pack_seq_unsorted": lambda: R.pack_sequence([T.zeros(3), T.zeros(4)]),
        "pack_seq_zero": lambda: R.pack_sequence([T.zeros(3), T.zeros(0)]),
        "unpad_zip": lambda: R.unpad_sequence(T.zeros(3, 2, 1), T.tensor([3, 1, 2])),
        "unpad_list": lambda: R.unpad_sequence(T.zeros(3, 2, 1), [3, 1]),
        "invert_int32": lambda: R.invert_permutation(T.tensor([2, 0, 1], dtype=T.int32)),
        "invert_float": lambda: R.invert_permutation(T.tensor([2., 0, 1])),
        "invert_range": lambda: R.invert_permutation(T.tensor([3, 0, 1])),
    }


@pytest.mark.parametrize("case", sorted(_error_calls(torch)))
def test_refusals_as_torch(case):
    outcomes = []
    for T in LIBS:
        try:
            _error_calls(T)[case]()
            outcomes.append(("ok", ""))
        except Exception as e:      # noqa: BLE001 - compared with torch
            outcomes.append((builtin_name(type(e)), str(e)))
    assert outcomes[1][0] == outcomes[0][0], outcomes
    # PyTorch's words first (users search for them); leafgrad may add how to fix it
    first = outcomes[0][1].split(". ")[0].split(": ")[0]
    assert outcomes[1][1].startswith(first), outcomes


def test_lengths_past_the_input_and_of_other_dtypes_as_torch():
    for lengths in ([5, 2, 1], [6, 6, 1], [4.5, 2, 1], "float", "int32", "bool"):
        got = []
        for T in LIBS:
            x = T.arange(24.).view(4, 3, 2)
            lens = lengths
            if isinstance(lengths, str):
                lens = {"float": T.tensor([4., 2., 1.5]),
                        "int32": T.tensor([4, 2, 1], dtype=T.int32),
                        "bool": T.tensor([True, True, True])}[lengths]
            p = T.nn.utils.rnn.pack_padded_sequence(x, lens)
            got.append((p.data.tolist(), p.batch_sizes.tolist()))
        assert got[1] == got[0], lengths


def test_packed_sequence_is_torch_s_named_tuple():
    seen = []
    for T in LIBS:
        R = T.nn.utils.rnn
        x = T.arange(12.).view(4, 3)
        p = R.pack_padded_sequence(x, [4, 2, 1])
        p2 = R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        made = R.PackedSequence(p.data, p.batch_sizes, T.tensor([2, 0, 1]))
        pair = R.PackedSequence((p.data, p.batch_sizes))
        d = p2.double()
        seen.append([
            [c.__name__ for c in type(p).__mro__], p._fields, isinstance(p, tuple), len(p),
            repr(p), repr(p2), made.unsorted_indices.tolist(), pair.sorted_indices,
            p.is_cuda, p.is_pinned(), p.float() is p, p.cpu() is p, p.to(T.float32) is p,
            str(d.data.dtype), d.sorted_indices.tolist(), d.batch_sizes is p2.batch_sizes,
            [str(getattr(p, f)().data.dtype) for f in ("long", "int", "short", "char", "byte",
                                                      "half", "double")],
            str(p.to(T.zeros(1, dtype=T.float64)).data.dtype), str(p.to("meta").data.device),
            type(p.double()).__name__])
    assert seen[1] == seen[0]


def test_pack_sequence_unpack_sequence_unpad_sequence_invert_as_torch():
    seen = []
    for T in LIBS:
        R = T.nn.utils.rnn
        seqs = [T.tensor([1, 2]), T.tensor([4, 5, 7]), T.tensor([6])]
        p = R.pack_sequence(seqs, enforce_sorted=False)
        padded = R.pad_sequence([T.ones(3, 2), 2 * T.ones(1, 2)])
        unpadded = R.unpad_sequence(padded, T.tensor([3, 1]))
        seen.append([repr(R.pack_sequence([T.tensor([1, 2, 3]), T.tensor([4, 5]),
                                           T.tensor([6])])),
                     repr(p), [s.tolist() for s in R.unpack_sequence(p)],
                     [s.tolist() for s in unpadded],
                     tuple(padded.shape),            # transposed in place, as PyTorch's
                     R.invert_permutation(T.tensor([2, 0, 3, 1])).tolist(),
                     R.invert_permutation(None), R.__all__])
    assert seen[1] == seen[0]


def test_unpack_sequence_gradient_as_torch():
    rng = np.random.default_rng(3)
    seqs = [rng.normal(size=(n, 2)) for n in (2, 4, 1, 3)]
    got = []
    for T in LIBS:
        ts = [T.tensor(s, requires_grad=True) for s in seqs]
        R = T.nn.utils.rnn
        out = R.unpack_sequence(R.pack_sequence(ts, enforce_sorted=False))
        loss = sum((o * (i + 1)).sum() * o.sum() for i, o in enumerate(out))
        got.append([_np(g) for g in T.autograd.grad(loss, ts)])
    for a, b in zip(got[1], got[0]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_second_backward_through_a_pack_raises_as_torch():
    outcomes = []
    for T in LIBS:
        x = T.ones(3, 2, requires_grad=True)
        p = T.nn.utils.rnn.pack_padded_sequence(x, [3, 1])
        p.data.sum().backward()
        g = p.data.grad_fn
        outcomes.append([g._saved_input_sym_sizes, g._saved_batch_first,
                         raised([lambda: p.data.sum().backward(),
                                 lambda: g._saved_result1])])
        q = T.nn.utils.rnn.pack_padded_sequence(x, [3, 1])
        outcomes[-1].append(q.data.grad_fn._saved_result1.tolist())
    assert outcomes[1] == outcomes[0]


def test_meta_input_packs_to_meta():
    p = lg.nn.utils.rnn.pack_padded_sequence(lg.zeros(4, 3, 2, device="meta"), [4, 2, 1])
    q = torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(4, 3, 2, device="meta"),
                                                [4, 2, 1])
    assert (tuple(p.data.shape), str(p.data.device)) == (tuple(q.data.shape),
                                                         str(q.data.device))
    assert p.batch_sizes.tolist() == q.batch_sizes.tolist()
