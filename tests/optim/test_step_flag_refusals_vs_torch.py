"""``capturable=True`` and ``differentiable=True`` on CPU: refused at ``step()`` with
PyTorch's exception class and its message's first sentence (PyTorch asserts a capturable
device; a differentiable step updates a leaf in place under autograd), before anything
changes: parameters and state stay as they were. Non-leaf parameters under
``differentiable=True`` (PyTorch records the step in the graph) raise NotImplementedError."""
import pytest
import torch

import leafgrad

CAPTURABLE = ["Adam", "AdamW", "RMSprop", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "Adadelta"]
DIFFERENTIABLE = CAPTURABLE + ["SGD", "Adagrad"]


def _step(lib, name, **flags):
    p = lib.nn.Parameter(lib.ones(2))
    p.grad = lib.ones(2)
    opt = getattr(lib.optim, name)([p], lr=0.1, **flags)
    before = {k: sorted(v) for k, v in opt.state.items()}     # Adagrad fills it at __init__
    try:
        opt.step()
    except Exception as e:          # noqa: BLE001 - the class is what is compared
        return type(e), str(e), p.detach().clone(), {k: sorted(v) for k, v in opt.state.items()} != before
    return None, "", p.detach().clone(), {k: sorted(v) for k, v in opt.state.items()} != before


@pytest.mark.parametrize("flag,name,cls",
                         [("capturable", n, AssertionError) for n in CAPTURABLE]
                         + [("differentiable", n, RuntimeError) for n in DIFFERENTIABLE])
def test_flag_on_cpu_raises_torchs_error_changing_nothing(flag, name, cls):
    t_cls, t_msg, _, _ = _step(torch, name, **{flag: True})
    l_cls, l_msg, p, state_changed = _step(leafgrad, name, **{flag: True})
    assert l_cls is t_cls is cls
    assert l_msg.startswith(t_msg) and "Fix:" in l_msg
    assert p.tolist() == [1.0, 1.0] and not state_changed


def test_differentiable_under_no_grad_still_raises_as_torch():
    for lib in (torch, leafgrad):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.ones(2)
        opt = lib.optim.Adam([p], differentiable=True)
        with lib.no_grad(), pytest.raises(RuntimeError, match="leaf Variable"):
            opt.step()


def test_flags_without_gradients_step_quietly_as_torch():
    for lib in (torch, leafgrad):
        p = lib.nn.Parameter(lib.ones(2))
        lib.optim.Adam([p], capturable=True).step()
        lib.optim.Adam([p], differentiable=True).step()
        assert p.tolist() == [1.0, 1.0]


def test_differentiable_non_leaf_is_named_unsupported():
    w = leafgrad.ones(2, requires_grad=True)
    q = w * 2
    q.retain_grad()
    q.sum().backward()
    opt = leafgrad.optim.SGD([q], lr=0.1, differentiable=True)
    with pytest.raises(NotImplementedError, match="differentiable optimizer steps"):
        opt.step()
    assert q.tolist() == [2.0, 2.0]


def test_invert_permutation_2d_is_index_error_as_torch():
    from torch.nn.utils.rnn import invert_permutation as t_inv

    from leafgrad.nn.utils.rnn import invert_permutation as l_inv
    with pytest.raises(IndexError) as t:
        t_inv(torch.tensor([[0, 1], [1, 0]]))
    with pytest.raises(IndexError) as lg:
        l_inv(leafgrad.tensor([[0, 1], [1, 0]]))
    assert str(lg.value).startswith(str(t.value))
    assert l_inv(leafgrad.tensor([2, 0, 1])).tolist() == t_inv(torch.tensor([2, 0, 1])).tolist()
