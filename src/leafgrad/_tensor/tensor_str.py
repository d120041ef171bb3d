"""``repr`` of tensors, character for character as PyTorch's ``torch/_tensor_str.py``.

Precision 4, threshold 1000 elements (then ``...`` with 3 edge items),
line width 80; floats that are all integers print as ``2.``; scientific
notation when the ratio of largest to smallest magnitude exceeds 1000, the
largest exceeds 1e8 or the smallest is below 1e-4.
"""
import math

import numpy as np

from .meta import MetaArray
from ..autograd._fw_state import active as _fw_level

from .._core import dtype as _dtype


class _Opts:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _Opts()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """As ``torch.set_printoptions``."""
    if profile == "default":
        PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, 1000
        PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
    elif profile == "short":
        PRINT_OPTS.precision, PRINT_OPTS.threshold = 2, 1000
        PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 80
    elif profile == "full":
        PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, math.inf
        PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    def __init__(self, arr):
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = PRINT_OPTS.precision
        flat = arr.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
        else:
            vals = flat[np.isfinite(flat) & (flat != 0)]
            if vals.size == 0:
                return
            absv = np.abs(vals).astype(np.float64)
            vmin, vmax = absv.min(), absv.max()
            pyvals = vals.tolist()
            self.int_mode = bool(np.all(vals == np.ceil(vals)))
            # set_printoptions(sci_mode=...) decides before the widths are measured
            self.sci_mode = (vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4
                             if PRINT_OPTS.sci_mode is None else PRINT_OPTS.sci_mode)
            if self.sci_mode:
                form, extra = "{:.%de}" % p, 0
            elif self.int_mode:
                form, extra = "{:.0f}", 1           # the "." after each integer
            else:
                form, extra = "{:.%df}" % p, 0
            for v in pyvals:
                self.max_width = max(self.max_width, len(form.format(v)) + extra)

    def format(self, value):
        p = PRINT_OPTS.precision
        if self.floating:
            if self.sci_mode:
                ret = ("{:%d.%de}" % (self.max_width, p)).format(value)
            elif self.int_mode:
                ret = "{:.0f}".format(value)
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = ("{:.%df}" % p).format(value)
        else:
            ret = str(value)
        return (self.max_width - len(ret)) * " " + ret


class _ComplexFormatter:
    """PyTorch's pair of formatters for complex values: one for the real parts,
    one for the imaginary parts, joined as ``re+imj`` (``_tensor_str._val_formatter``)."""
    __slots__ = ("re", "im", "max_width")

    def __init__(self, arr):
        self.re, self.im = _Formatter(arr.real), _Formatter(arr.imag)
        # width of the real part, the imaginary part and its "j"
        self.max_width = self.re.max_width + self.im.max_width + 1

    def format(self, value):
        value = complex(value)
        imag = (self.im.format(value.imag) + "j").lstrip()
        if imag[0] in "+-":         # negative numbers, -0.0
            return self.re.format(value.real) + imag
        return self.re.format(value.real) + "+" + imag


def _vector_str(arr, indent, summarize, fmt):
    element_length = fmt.max_width + 2
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * e:
        data = ([fmt.format(v) for v in arr[:e].tolist()] + [" ..."]
                + [fmt.format(v) for v in arr[-e:].tolist()])
    else:
        data = [fmt.format(v) for v in arr.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(arr, indent, summarize, fmt):
    dim = arr.ndim
    if dim == 0:
        return fmt.format(arr.item())
    if dim == 1:
        return _vector_str(arr, indent, summarize, fmt)
    e = PRINT_OPTS.edgeitems
    if summarize and arr.shape[0] > 2 * e:
        slices = ([_tensor_str_with_formatter(arr[i], indent + 1, summarize, fmt) for i in range(e)]
                  + ["..."]
                  + [_tensor_str_with_formatter(arr[i], indent + 1, summarize, fmt)
                     for i in range(arr.shape[0] - e, arr.shape[0])])
    else:
        slices = [_tensor_str_with_formatter(arr[i], indent + 1, summarize, fmt)
                  for i in range(arr.shape[0])]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized(arr):
    e = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        if arr.shape[0] > 2 * e:
            return np.concatenate([arr[:e], arr[-e:]])
        return arr
    if not e:
        return arr.reshape((0,) * arr.ndim)
    if arr.shape[0] > 2 * e:
        parts = [_summarized(arr[i]) for i in range(e)] + \
                [_summarized(arr[i]) for i in range(arr.shape[0] - e, arr.shape[0])]
    else:
        parts = [_summarized(x) for x in arr]
    return np.stack(parts)


def array_str(arr, indent):
    if arr.size == 0:
        return "[]"
    summarize = arr.size > PRINT_OPTS.threshold
    if arr.dtype == np.float16:
        arr = arr.astype(np.float32)
    data = _summarized(arr) if summarize else arr
    fmt = _ComplexFormatter(data) if arr.dtype.kind == "c" else _Formatter(data)
    return _tensor_str_with_formatter(arr, indent, summarize, fmt)


def _add_suffixes(s, suffixes, indent):
    out = [s]
    last_line_len = len(s) - s.rfind("\n") + 1
    for suffix in suffixes:
        n = len(suffix)
        if last_line_len + n + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + n
        else:
            out.append(", " + suffix)
            last_line_len += n + 2
    out.append(")")
    return "".join(out)


def _default_dtypes():
    """The dtypes a repr leaves unnamed (PyTorch's ``has_default_dtype``): the
    default float, its complex partner, int64 and bool."""
    d = _dtype.get_default_dtype()
    return (d, _dtype.complex128 if d is _dtype.float64 else _dtype.complex64,
            _dtype.int64, _dtype.bool_)


def tensor_repr(t, prefix="tensor("):
    arr = t._data
    dt = t.dtype
    indent = len(prefix)
    suffixes = []
    if arr.__class__ is MetaArray:
        # PyTorch: tensor(..., device='meta', size=(2, 3)[, dtype=...])
        suffixes.append("device='meta'")
        suffixes.append("size=" + str(tuple(arr.shape)))
        if dt is not _dtype.get_default_dtype():
            suffixes.append("dtype=" + repr(dt))
        body = "..."
    elif arr.size == 0:
        if arr.ndim != 1:
            suffixes.append("size=" + str(tuple(arr.shape)))
        if dt is not _dtype.get_default_dtype():
            suffixes.append("dtype=" + repr(dt))
        body = "[]"
    else:
        if dt not in _default_dtypes():
            suffixes.append("dtype=" + repr(dt))
        body = array_str(arr, indent)
    try:
        fn = t.grad_fn      # the property: a stale view shows its regenerated grad_fn
    except RuntimeError:    # a multi-output view whose base changed in place: PyTorch's word
        fn = None
        suffixes.append("grad_fn=<Invalid>")
    if fn is not None:
        suffixes.append("grad_fn=<%s>" % fn.name().rpartition("::")[2])
    elif t._requires_grad and not suffixes[-1:] == ["grad_fn=<Invalid>"]:
        suffixes.append("requires_grad=True")
    level = _fw_level[0]
    if level is not None:       # a dual tensor (autograd.forward_ad): PyTorch's f"tangent={t}"
        tangent = level.tangent(t)
        if tangent is not None:
            suffixes.append("tangent=%s" % format(tangent, ""))
    return _add_suffixes(prefix + body, suffixes, indent)
