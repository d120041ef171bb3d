"""torch.profiler / torch.autograd.profiler: the ops a program runs are recorded with
PyTorch's names and counts, times nest (self <= total, a block contains its ops), the
table has PyTorch's layout, and nothing stays wrapped after the profile."""
import json

import pytest
import torch

import leafgrad


def program(T):
    x = T.ones(8, 8, requires_grad=True)
    with T.profiler.record_function("block"):
        y = (x * 2 + 1).sum()
    y.backward()


def names_counts(prof):
    return {e.key: e.count for e in prof.key_averages()}


def test_records_the_ops_with_torch_names():
    got = {}
    for T in (torch, leafgrad):
        with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU]) as prof:
            program(T)
        got[T.__name__] = names_counts(prof)
    want = {k: v for k, v in got["torch"].items()
            if k in ("block", "aten::mul", "aten::add", "aten::sum",
                     "autograd::engine::evaluate_function: SumBackward0",
                     "autograd::engine::evaluate_function: AddBackward0",
                     "autograd::engine::evaluate_function: MulBackward0")}
    # PyTorch's backward rules run aten ops of their own (aten::mul inside MulBackward0);
    # leafgrad's run NumPy directly, so only the forward ops' counts are compared
    for k, v in want.items():
        if k == "aten::mul":
            assert got["leafgrad"][k] == 1
        else:
            assert got["leafgrad"].get(k) == v, k


def test_times_nest_and_table_layout():
    with leafgrad.profiler.profile() as prof:
        program(leafgrad)
    avg = {e.key: e for e in prof.key_averages()}
    for e in avg.values():
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total + 1e-6
        assert e.cpu_time == pytest.approx(e.cpu_time_total / e.count)
    inner = sum(avg[k].cpu_time_total for k in ("aten::mul", "aten::add", "aten::sum"))
    assert avg["block"].cpu_time_total >= inner
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=3)
    with torch.profiler.profile() as tprof:
        program(torch)
    ttable = tprof.key_averages().table(sort_by="cpu_time_total", row_limit=3)
    assert table.splitlines()[1].split() == ttable.splitlines()[1].split()
    assert len(table.splitlines()) == len(ttable.splitlines())
    assert table.splitlines()[-1].startswith("Self CPU time total: ")


def test_nothing_stays_wrapped_and_disabled_records_nothing():
    mul = leafgrad.Tensor.__mul__
    exp = leafgrad.exp
    with leafgrad.autograd.profiler.profile() as prof:
        leafgrad.exp(leafgrad.ones(2) * 2)
    assert leafgrad.Tensor.__mul__ is mul and leafgrad.exp is exp
    assert names_counts(prof) == {"aten::ones": 1, "aten::mul": 1, "aten::exp": 1}
    with leafgrad.autograd.profiler.profile(enabled=False) as off:
        leafgrad.ones(2) * 2
    assert off.key_averages() == []
    with pytest.raises(ZeroDivisionError):
        with leafgrad.profiler.profile():
            1 / 0
    assert leafgrad.Tensor.__mul__ is mul


def test_schedule_records_active_steps_only(tmp_path):
    traces = []
    sched = leafgrad.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    with leafgrad.profiler.profile(schedule=sched, on_trace_ready=traces.append) as prof:
        for _ in range(6):
            leafgrad.ones(1) * 2
            prof.step()
    assert len(traces) == 1
    assert names_counts(prof)["aten::mul"] == 2
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    assert {e["name"] for e in events} >= {"aten::mul"} and all(e["dur"] >= 0 for e in events)


def test_record_shapes():
    with leafgrad.profiler.profile(record_shapes=True) as prof:
        leafgrad.ones(2, 3) @ leafgrad.ones(3, 4)
    avg = prof.key_averages(group_by_input_shape=True)
    mm = [e for e in avg if e.key == "aten::matmul"]
    assert mm and mm[0].input_shapes == [[2, 3], [3, 4]]


def test_table_name_column_is_torchs_width():
    """PyTorch's key_averages().table(): the name column is the longest event name (of all
    events, before row_limit) + 4 wide, capped by max_name_column_width."""
    import leafgrad as lg
    from leafgrad.autograd.profiler import profile
    x = lg.ones(3, requires_grad=True)
    with profile() as prof:
        (x * 2 / 3).sum()
    ev = prof.key_averages()
    longest = max(len(e.key) for e in ev)
    for kw, width in ((dict(), longest + 4), (dict(row_limit=1), longest + 4),
                      (dict(max_name_column_width=6), 6)):
        sep = ev.table(**kw).splitlines()[0]
        assert sep.split("  ")[0] == "-" * width
