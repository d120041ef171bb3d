"""Loaded tensors are views of the file's storages, as torch.load keeps them, so a small
file cannot be made to eat memory; files on which two readers could disagree are refused.

Every file here is written by real ``torch.save``; what leafgrad.load gives is compared
with ``torch.load(weights_only=True)``: values, shapes, strides, storage offsets, which
tensors share memory, and what an in-place write does."""
import io
import os
import pickle
import tracemalloc
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import leafgrad as lg
from leafgrad._core.errors import NotACheckpointError

torch = pytest.importorskip("torch")

DTYPES = [torch.float32, torch.float64, torch.int64, torch.int32, torch.uint8, torch.bool]


@st.composite
def _views(draw, base):
    """A tensor made from ``base`` by slicing, transposing, expanding or as_strided."""
    kind = draw(st.sampled_from(["whole", "slice", "expand", "t", "as_strided", "step"]))
    n = base.numel()
    if kind == "slice":
        i = draw(st.integers(0, n - 1))
        return base[i:draw(st.integers(i, n))]
    if kind == "expand":
        k = draw(st.integers(0, n - 1))
        return base[k:k + 1].expand(draw(st.integers(0, 5)), draw(st.integers(1, 300)))
    if kind == "t" and n % 2 == 0:
        return base.view(2, n // 2).t()
    if kind == "step":
        return base[::draw(st.integers(1, 3))]
    if kind == "as_strided":
        size = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
        stride = draw(st.lists(st.integers(0, 3), min_size=len(size), max_size=len(size)))
        last = sum((a - 1) * s for a, s in zip(size, stride))
        if last < n:
            return base.as_strided(size, stride, draw(st.integers(0, n - 1 - last)))
    return base


@st.composite
def state_dicts(draw):
    """Nested dicts/lists of tensors, several of them views of one shared storage."""
    bases = [torch.arange(draw(st.integers(1, 24))).to(draw(st.sampled_from(DTYPES)))
             for _ in range(draw(st.integers(1, 3)))]
    leaves = [draw(_views(draw(st.sampled_from(bases)))) for _ in range(draw(st.integers(1, 6)))]
    out = {}
    for i, t in enumerate(leaves):
        where = draw(st.sampled_from(["top", "nested", "list"]))
        if where == "top":
            out["t%d" % i] = t
        elif where == "nested":
            out.setdefault("inner", {})["t%d" % i] = t
        else:
            out.setdefault("seq", []).append(t)
    return out


def _flat(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _flat(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _flat(v, path + (i,))
    else:
        yield path, obj


def _same_content(ours, theirs):
    a, b = list(_flat(ours)), list(_flat(theirs))
    assert [p for p, _ in a] == [p for p, _ in b]
    for (path, x), (_, y) in zip(a, b):
        assert tuple(x.shape) == tuple(y.shape), path
        assert str(x.dtype) == str(y.dtype), path
        np.testing.assert_array_equal(x.numpy(), y.numpy())
        if y.numel():
            assert x.stride() == y.stride(), path
            assert x.storage_offset() == y.storage_offset(), path
    ptr = [x.untyped_storage().data_ptr() for _, x in a if x.numel()]
    tptr = [y.untyped_storage().data_ptr() for _, y in b if y.numel()]
    assert [[p == q for q in ptr] for p in ptr] == [[p == q for q in tptr] for p in tptr]


def _peak(fn):
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@settings(max_examples=60, deadline=None)
@given(state_dicts())
def test_random_state_dicts_load_as_torch_load_and_within_the_file(sd):
    buf = io.BytesIO()
    torch.save(sd, buf)
    raw = buf.getvalue()
    lg.load(io.BytesIO(raw))                       # imports done before measuring
    ours, peak = _peak(lambda: lg.load(io.BytesIO(raw)))
    _same_content(ours, torch.load(io.BytesIO(raw), weights_only=True))
    # nothing is materialised: the storages are the file's bytes, the tensors views of them
    assert peak <= len(raw) + 64 * 1024


def test_tiny_file_of_expands_costs_what_the_file_holds(tmp_path):
    path = str(tmp_path / "amp.pt")
    torch.save({"w%d" % i: torch.zeros(1).expand(2 ** 22) for i in range(40)}, path)
    lg.load(path)
    out, peak = _peak(lambda: lg.load(path))
    assert peak < os.path.getsize(path) + 1024 * 1024     # not 40 x 16 MiB
    assert out["w0"].shape == (2 ** 22,) and out["w0"].stride() == (0,)


@pytest.mark.parametrize("legacy", [False, True])
def test_expand_3000_by_3000_loads(legacy, tmp_path):
    path = str(tmp_path / "e.pt")
    torch.save({"e": torch.arange(3.)[1:2].expand(3000, 3000)}, path,
               _use_new_zipfile_serialization=not legacy)
    ours, theirs = lg.load(path), torch.load(path, weights_only=True)
    _same_content(ours, theirs)


def test_in_place_writes_act_as_on_torch_loaded_tensors():
    base = torch.arange(6.)
    buf = io.BytesIO()
    torch.save({"a": base, "b": base[2:5], "e": base[:1].expand(4)}, buf)
    ours, theirs = lg.load(io.BytesIO(buf.getvalue())), torch.load(
        io.BytesIO(buf.getvalue()), weights_only=True)
    for d in (ours, theirs):
        d["a"][3] = 100.                           # b shares a's storage
    np.testing.assert_array_equal(ours["b"].numpy(), theirs["b"].numpy())
    with pytest.raises(RuntimeError) as exc:
        theirs["e"].add_(1)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ours["e"].add_(1)
    assert "more than one element" in str(exc.value)
    for d in (ours, theirs):
        d["e"].fill_(7.)                           # fills the one element it views
    np.testing.assert_array_equal(ours["a"].numpy(), theirs["a"].numpy())


def test_memory_budget_refuses_then_loads_when_raised(tmp_path):
    path = str(tmp_path / "w.pt")
    torch.save({"w": torch.ones(1000)}, path)
    with pytest.raises(NotACheckpointError, match=r"needs to 4000 bytes, more than the load's "
                                                  r"budget of 100 bytes.*memory_budget=4000"):
        lg.load(path, memory_budget=100)
    np.testing.assert_array_equal(lg.load(path, memory_budget=4000)["w"].numpy(), np.ones(1000))
    st_path = str(tmp_path / "w.safetensors")
    lg.save({"w": lg.ones(1000)}, st_path)
    with pytest.raises(NotACheckpointError, match=r"memory_budget=4000"):
        lg.load(st_path, memory_budget=100)
    with pytest.raises(TypeError, match="memory_budget must be a non-negative int"):
        lg.load(path, memory_budget=-1)


def _records(raw):
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return [(i.filename, zf.read(i)) for i in zf.infolist()]


def _zip(records):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for name, data in records:
            zf.writestr(name, data)
    return buf.getvalue()


def _torch_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_duplicate_zip_records_refused():
    recs = _records(_torch_bytes({"w": torch.ones(2)}))
    data = [r for r in recs if r[0].endswith("/data/0")][0]
    raw = _zip(recs + [(data[0], b"\0" * len(data[1]))])
    with pytest.raises(NotACheckpointError, match="holds 2 records named 'archive/data/0'"):
        lg.load(io.BytesIO(raw))


def test_record_outside_the_archive_folder_refused():
    recs = _records(_torch_bytes({"w": torch.ones(2)}))
    raw = _zip([("other/version", b"3\n")] + recs)
    with pytest.raises(RuntimeError):        # PyTorch takes its archive name from record 1
        torch.load(io.BytesIO(raw), weights_only=True)
    with pytest.raises(NotACheckpointError, match="'other/version' is outside the archive"):
        lg.load(io.BytesIO(raw))


def test_unknown_codec_in_a_pickle_is_not_a_checkpoint():
    recs = _records(_torch_bytes({"w": 1}))
    # {"w": bytearray("x", "no-such-codec")}: bytearray is an allowed global
    pkl = (b"\x80\x02}q\x00X\x01\x00\x00\x00wq\x01c__builtin__\nbytearray\nq\x02X\x01\x00\x00"
           b"\x00xX\r\x00\x00\x00no-such-codec\x86q\x03Rq\x04s.")
    raw = _zip([(n, pkl if n.endswith("data.pkl") else d) for n, d in recs])
    with pytest.raises(LookupError, match="unknown encoding: no-such-codec"):
        torch.load(io.BytesIO(raw), weights_only=True)
    with pytest.raises(LookupError, match="unknown encoding: no-such-codec") as exc:
        lg.load(io.BytesIO(raw))
    assert isinstance(exc.value, NotACheckpointError)      # both, as the other errors


def test_safetensors_shape_numpy_cannot_hold_is_not_a_checkpoint():
    import json
    import struct
    header = json.dumps({"a": {"dtype": "F32", "shape": [0, 2 ** 62],
                               "data_offsets": [0, 0]}}).encode()
    raw = struct.pack("<Q", len(header)) + header
    with pytest.raises(NotACheckpointError, match="cannot hold"):
        lg.load(io.BytesIO(raw))
