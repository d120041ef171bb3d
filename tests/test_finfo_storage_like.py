"""torch.finfo / torch.iinfo, the memory-identity methods (data_ptr, untyped_storage,
nbytes, itemsize, _is_view, mH) and the layout of the *_like factories, against PyTorch."""
import pytest
import torch

import leafgrad

FLOATS = ["float16", "float32", "float64", "complex64", "complex128", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_fields_and_repr(name):
    ours, theirs = leafgrad.finfo(getattr(leafgrad, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
        assert type(getattr(ours, field)) is type(getattr(theirs, field)), field
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_fields_and_repr(name):
    ours, theirs = leafgrad.iinfo(getattr(leafgrad, name)), torch.iinfo(getattr(torch, name))
    for field in ("bits", "max", "min", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
        assert type(getattr(ours, field)) is type(getattr(theirs, field)), field
    assert repr(ours) == repr(theirs)


def test_finfo_default_equality_and_readonly():
    assert repr(leafgrad.finfo()) == repr(torch.finfo())
    leafgrad.set_default_dtype(leafgrad.float64)
    try:
        assert leafgrad.finfo().dtype == "float64"
    finally:
        leafgrad.set_default_dtype(leafgrad.float32)
    assert leafgrad.finfo(leafgrad.float32) == leafgrad.finfo(leafgrad.float32)
    assert leafgrad.finfo(leafgrad.float16) != leafgrad.finfo(leafgrad.float32)
    with pytest.raises(AttributeError):
        leafgrad.finfo(leafgrad.float32).eps = 1.0
    # the usual masking idiom
    x = leafgrad.zeros(2)
    assert x.masked_fill(leafgrad.tensor([True, False]), leafgrad.finfo(x.dtype).min)[0].item() \
        == torch.finfo(torch.float32).min


@pytest.mark.parametrize("fn,arg", [("finfo", "int32"), ("finfo", "bool"), ("iinfo", "float32"),
                                    ("iinfo", "bool"), ("finfo", None), ("iinfo", None),
                                    ("finfo", "'float32'"), ("iinfo", 3)])
def test_info_errors(fn, arg):
    def call(T):
        a = getattr(T, arg) if arg in ("int32", "bool", "float32") else eval(str(arg))
        return getattr(T, fn)(a)
    with pytest.raises(TypeError) as theirs:
        call(torch)
    with pytest.raises(TypeError) as ours:
        call(leafgrad)
    first = str(theirs.value).split(". Use")[0]
    assert str(ours.value).startswith(first) and "Fix:" in str(ours.value)


def _views(T):
    a = T.arange(12.0).view(3, 4)
    return a, {"t": a.t(), "row": a[1], "tail": a[1:], "col": a[:, 2], "expand": a.expand(2, 3, 4),
               "clone": a.clone(), "contig_t": a.t().contiguous(), "detach": a.detach(),
               "reshape_t": a.t().reshape(12), "flat": a.flatten()}


def test_data_ptr_storage_and_sizes():
    a, ours = _views(leafgrad)
    b, theirs = _views(torch)
    for k in theirs:
        o, t = ours[k], theirs[k]
        shares = t.untyped_storage().data_ptr() == b.data_ptr()
        assert (o.untyped_storage().data_ptr() == a.data_ptr()) == shares, k
        if shares:
            assert (o.data_ptr() - a.data_ptr()) == (t.data_ptr() - b.data_ptr()), k
        assert o.untyped_storage().nbytes() == t.untyped_storage().nbytes(), k
        assert (o.nbytes, o.itemsize, o._is_view()) == (t.nbytes, t.itemsize, t._is_view()), k
    assert a.untyped_storage() is a.untyped_storage()
    assert ours["t"].untyped_storage() is a.untyped_storage()
    assert leafgrad.zeros(0).data_ptr() == torch.zeros(0).data_ptr() == 0
    assert leafgrad.zeros(3, device="meta").data_ptr() == 0
    s, st = leafgrad.tensor([1, 2], dtype=leafgrad.int8), torch.tensor([1, 2], dtype=torch.int8)
    assert repr(s.untyped_storage()) == repr(st.untyped_storage())
    assert s.untyped_storage().tolist() == st.untyped_storage().tolist()
    assert len(s.untyped_storage()) == len(st.untyped_storage())


def test_mH():
    assert leafgrad.zeros(2, 3, 4).mH.shape == torch.zeros(2, 3, 4).mH.shape
    with pytest.raises(RuntimeError):
        torch.zeros(3).mH
    with pytest.raises(RuntimeError):
        leafgrad.zeros(3).mH


def _inputs(T):
    base = T.arange(60.0).view(2, 30)
    return {"t": base.t(), "perm": T.zeros(2, 3, 4).permute(2, 0, 1), "step": base.t()[::2],
            "expand": T.zeros(3, 1).expand(3, 4), "plain": base, "small_t": T.zeros(2, 3).t()}


FACTORIES = {
    "zeros_like": lambda T, x: T.zeros_like(x), "ones_like": lambda T, x: T.ones_like(x),
    "empty_like": lambda T, x: T.empty_like(x), "full_like": lambda T, x: T.full_like(x, 2.5),
    "zeros_like_i64": lambda T, x: T.zeros_like(x, dtype=T.int64),
    "rand_like": lambda T, x: T.rand_like(x), "randn_like": lambda T, x: T.randn_like(x),
    "randint_like": lambda T, x: T.randint_like(x, 10),
    "randn_like_f64": lambda T, x: T.randn_like(x, dtype=T.float64),
    "randn_like_contig": lambda T, x: T.randn_like(x, memory_format=T.contiguous_format),
    "zeros_like_contig": lambda T, x: T.zeros_like(x, memory_format=T.contiguous_format),
}


@pytest.mark.parametrize("fac", sorted(FACTORIES))
@pytest.mark.parametrize("inp", sorted(_inputs(torch)))
def test_like_factories_keep_layout_and_draws(fac, inp):
    torch.manual_seed(3)
    theirs = FACTORIES[fac](torch, _inputs(torch)[inp])
    leafgrad.manual_seed(3)
    ours = FACTORIES[fac](leafgrad, _inputs(leafgrad)[inp])
    assert ours.stride() == theirs.stride()
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert ours.dtype.name == str(theirs.dtype).split(".")[1]
    if fac != "empty_like":
        assert ours.tolist() == theirs.tolist()
    assert ours.is_leaf and not ours.requires_grad and ours._version == theirs._version


def test_like_requires_grad():
    x = leafgrad.zeros(2, 3).t()
    for f in (leafgrad.zeros_like, leafgrad.randn_like, leafgrad.rand_like):
        y = f(x, requires_grad=True)
        assert y.is_leaf and y.requires_grad and y.stride() == (1, 3)


@pytest.mark.parametrize("pytype", [float, int, bool, complex])
@pytest.mark.parametrize("fn", ["finfo", "iinfo"])
def test_info_of_a_python_type(fn, pytype):
    """torch.finfo(float) / iinfo(int): the Python type stands for float64 / int64 ..."""
    try:
        theirs = getattr(torch, fn)(pytype)
    except TypeError as exc:
        with pytest.raises(TypeError) as ours:
            getattr(leafgrad, fn)(pytype)
        assert str(ours.value).startswith(str(exc))
        return
    ours = getattr(leafgrad, fn)(pytype)
    assert repr(ours) == repr(theirs) and ours.dtype == theirs.dtype
