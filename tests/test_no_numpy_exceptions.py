"""No NumPy exception reaches the caller (issue 26, "What to build" 4): every entry of the
bad-input catalogues (the edge-input ops of test_edge_errors_vs_torch, the wrong arguments of
test_wrong_arguments_vs_torch, the modules of nn/test_bad_input_changes_nothing, the dtype=
arguments of test_issue26_refusals_vs_torch) and every op-table row fed hostile operands
(strings, None, object and NumPy arrays, 0-d, empty, integer, bool, complex, 5-d tensors)
raises, if it raises, a Python or leafgrad exception: never one whose class comes from NumPy
(``numpy.linalg.LinAlgError``, ``numpy.exceptions.AxisError``, NumPy's casting errors, ...),
which a PyTorch program's ``except`` clauses would not expect."""
import os
import warnings

import numpy as np
import pytest

import leafgrad

import op_table
import test_edge_errors_vs_torch as edge
import test_issue26_refusals_vs_torch as refusals
import test_wrong_arguments_vs_torch as wrong
from nn import test_bad_input_changes_nothing as bad_modules


def _numpy_class(e):
    """The first class of ``e``'s MRO defined in NumPy, or None."""
    return next((c for c in type(e).__mro__ if c.__module__.split(".")[0] == "numpy"), None)


_LEAFGRAD = os.path.dirname(leafgrad.__file__) + os.sep


def _through_leafgrad(e):
    """Whether leafgrad's code is on the traceback (a row that calls ``x.min()`` or
    ``1.5 + x`` on a raw NumPy operand gets NumPy's own answer, not leafgrad's)."""
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(_LEAFGRAD):
            return True
        tb = tb.tb_next
    return False


def _numpy_escapes(calls, like_torch=None):
    """[(label, exception)] for the calls where leafgrad let an exception of a NumPy class
    through. ``like_torch``: label -> the same call on real torch; where PyTorch itself
    raises that NumPy class (``t * a`` and ``t @ a`` with a string array ``a``: NumPy
    computes them, in both), it is PyTorch's behaviour, not a leak."""
    found = []
    for label, call in calls:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call()
        except Exception as e:      # noqa: BLE001 - the class is what is checked
            cls = _numpy_class(e)
            if cls is not None and like_torch is not None and label in like_torch and \
                    _numpy_class(_raised_or_none(like_torch[label])) is cls:
                continue
            if cls is not None and _through_leafgrad(e):
                found.append((label, "%s.%s: %s" % (type(e).__module__, type(e).__name__,
                                                    str(e)[:120])))
    return found


def test_the_check_sees_numpy_classes():
    """The detector itself: NumPy's classes, and leafgrad's own classes are not."""
    def axis_error():
        np.sum(np.ones(2), axis=3)

    def lin_alg():
        np.linalg.inv(np.zeros((2, 2)))
    assert _numpy_class(_raised(axis_error)) is np.exceptions.AxisError
    assert _numpy_class(_raised(lin_alg)) is np.linalg.LinAlgError
    assert _numpy_class(_raised(lambda: leafgrad.ones(2).sum(3))) is None
    # counted only with leafgrad's code on the traceback: NumPy's own call is not
    assert not _through_leafgrad(_raised(axis_error))
    inside = [("inside", lambda: leafgrad.ones(2).apply_(lambda v: lin_alg()))]
    assert [c[0] for c in _numpy_escapes(inside)] == ["inside"]


def _raised_or_none(call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except Exception as e:      # noqa: BLE001
        return e
    return None


def _raised(call):
    try:
        call()
    except Exception as e:      # noqa: BLE001
        return e
    raise AssertionError("did not raise")


def test_edge_error_catalogue_raises_no_numpy_exception():
    calls = []
    for name, f in edge.OPS.items():
        for shape in edge.SHAPES:
            for d in edge.DIMS:
                x = (leafgrad.arange(int(np.prod(shape)), dtype=leafgrad.float32)
                     - 1.5).reshape(shape)
                calls.append(((name, shape, d), lambda f=f, x=x, d=d: f(leafgrad, x, d)))
    assert _numpy_escapes(calls) == []


def test_wrong_argument_catalogues_raise_no_numpy_exception():
    calls = [(name, lambda f=f: f(leafgrad)) for name, f in wrong.CALLS.items()]
    calls += [((f, d), lambda f=f, d=d: refusals.FACTORIES[f](
        leafgrad, refusals._resolve(leafgrad, refusals.DTYPES[d])))
        for f in refusals.FACTORIES for d in refusals.DTYPES]
    calls += [(name, lambda m=m, b=b: m(leafgrad)(b(leafgrad)))
              for name, (m, b) in bad_modules.MODULE_CASES.items()]
    assert _numpy_escapes(calls) == []


def _hostile(T):
    """Operands no op takes as they are, and legal tensors at the edges."""
    return {
        "string": "x", "none": None, "object_array": np.array([object(), 1], dtype=object),
        "numpy_float": np.ones((2, 2)), "numpy_string": np.array(["a", "b"]),
        "list_ragged": [[1.0], [1.0, 2.0]], "nested_tensor_list": [T.ones(2), T.ones(3)],
        "zero_d": T.tensor(1.5), "empty": T.zeros(0), "empty_2d": T.zeros(0, 3),
        "int": T.tensor([[1, 2], [3, 4]]), "bool": T.tensor([True, False]),
        "complex": T.tensor([1 + 1j, 2j]), "five_d": T.ones(1, 2, 1, 2, 1),
        "nan_inf": T.tensor([[float("nan"), float("inf")], [-float("inf"), 1e308]],
                            dtype=T.float64),
        "int_huge": T.tensor([2 ** 62, -2 ** 62]), "float16": T.ones(2, 2, dtype=T.float16),
    }


def _row_calls(row, T=leafgrad):
    calls = []
    n = 2 if row.variadic else max(row.arity, 1)
    for i in range(n):
        for kind, bad in _hostile(T).items():
            def call(row=row, i=i, bad=bad):
                args = [T.ones(2, 2, dtype=T.float64) for _ in range(n)]
                args[i] = bad
                return row.fn(T, *args)
            calls.append(((row.name, i, kind), call))
    return calls


@pytest.mark.parametrize("chunk", range(8))
def test_every_op_table_row_with_hostile_operands_raises_no_numpy_exception(chunk):
    import torch
    rows = op_table.ROWS[chunk::8]
    calls = [c for row in rows for c in _row_calls(row)]
    assert len(calls) > 100
    twins = dict(c for row in rows for c in _row_calls(row, torch))
    assert _numpy_escapes(calls, twins) == []
