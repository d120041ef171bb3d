"""``torch.profiler``: a real profiler of leafgrad's ops (counts, self and total CPU time).

``with profile() as prof: ...`` records every op, Tensor method, backward node and
``record_function`` block run inside it; ``prof.key_averages().table(sort_by=
"cpu_time_total", row_limit=10)`` prints PyTorch's table (Name, Self CPU %, Self CPU,
CPU total %, CPU total, CPU time avg, # of Calls; "Self CPU time total" below).
``schedule(wait, warmup, active, repeat)`` with ``prof.step()`` records only the active
steps and calls ``on_trace_ready(prof)`` after each active cycle;
``export_chrome_trace(path)`` writes the events for chrome://tracing or Perfetto.
CPU only: asking for CUDA activities records the CPU side, as PyTorch without a GPU.
"""
import enum
import json

from . import _op_profiler as _profiling

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "EventList", "FunctionEventAvg"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3
    PrivateUse1 = 4


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """PyTorch's step schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle,
    ``warmup`` and ``active`` recorded steps (``repeat`` cycles; 0: forever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes a Chrome trace into ``dir_name``."""
    import os
    import socket
    import time

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = "%s.%d.pt.trace.json" % (worker_name or socket.gethostname(),
                                        int(time.time() * 1000))
        prof.export_chrome_trace(os.path.join(dir_name, name))
    return handler


def _fmt_time(us):
    if us >= 1e6:
        return "%.3fs" % (us / 1e6)
    if us >= 1e3:
        return "%.3fms" % (us / 1e3)
    return "%.3fus" % us


class FunctionEventAvg:
    """Totals of the events that share a name (and input shapes, when grouped by them).
    Times in microseconds."""

    def __init__(self, key, input_shapes=None):
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = input_shapes
        self.device_time_total = self.self_device_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0

    def add(self, ev):
        self.count += 1
        total = (ev.end_ns - ev.start_ns) / 1e3
        self.cpu_time_total += total
        self.self_cpu_time_total += total - ev.children_ns / 1e3
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    cuda_time = device_time = property(lambda self: 0.0)

    def __repr__(self):
        return ("<FunctionEventAvg key=%s self_cpu_time=%s cpu_time=%s input_shapes=%s>"
                % (self.key, _fmt_time(self.self_cpu_time_total), _fmt_time(self.cpu_time),
                   self.input_shapes))


class EventList(list):
    """A list of :class:`FunctionEventAvg` with PyTorch's ``table``."""

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        rows = list(self)
        if sort_by is not None:
            key = sort_by.replace("cuda", "device")
            rows.sort(key=lambda e: getattr(e, key, 0.0), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        total_self = sum(e.self_cpu_time_total for e in self) or 1.0
        # PyTorch: the longest name of all events (before row_limit) + 4, then the cap
        name_w = max([len(e.key) for e in self] + [0]) + 4
        if max_name_column_width is not None:
            name_w = min(name_w, max_name_column_width)
        heads = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                 "# of Calls"]
        show_shapes = any(e.input_shapes is not None for e in rows)
        col = 12
        sep = "-" * name_w + "  " + "  ".join("-" * col for _ in heads) + "  "
        if show_shapes:
            sep += "-" * 40 + "  "
        lines = []
        if header:
            lines.append("=" * len(sep))
            lines.append(header)
        lines.append(sep)
        head = "Name".rjust(name_w) + "  " + "  ".join(h.rjust(col) for h in heads) + "  "
        if show_shapes:
            head += "Input Shapes".rjust(40) + "  "
        lines.append(head)
        lines.append(sep)
        for e in rows:
            name = e.key if len(e.key) <= name_w else e.key[:name_w - 3] + "..."
            cells = ["%.2f%%" % (100 * e.self_cpu_time_total / total_self),
                     _fmt_time(e.self_cpu_time_total),
                     "%.2f%%" % (100 * e.cpu_time_total / total_self),
                     _fmt_time(e.cpu_time_total), _fmt_time(e.cpu_time), str(e.count)]
            line = name.rjust(name_w) + "  " + "  ".join(c.rjust(col) for c in cells) + "  "
            if show_shapes:
                line += str(e.input_shapes)[:40].rjust(40) + "  "
            lines.append(line)
        lines.append(sep)
        lines.append("Self CPU time total: %s" % _fmt_time(sum(e.self_cpu_time_total
                                                                for e in self)))
        return "\n".join(lines) + "\n"

    def total_average(self):
        out = FunctionEventAvg("Total")
        for e in self:
            out.count += e.count
            out.cpu_time_total += e.cpu_time_total
            out.self_cpu_time_total += e.self_cpu_time_total
        return out

    def __str__(self):
        return self.table()


class _ProfileBase:
    def __init__(self, record_shapes=False, on_trace_ready=None, schedule=None):
        self.record_shapes = record_shapes
        self.on_trace_ready = on_trace_ready
        self.schedule = schedule
        self._session = None
        self._events = []
        self.step_num = 0

    def _recording(self):
        if self.schedule is None:
            return True
        return self.schedule(self.step_num) in (ProfilerAction.RECORD,
                                                ProfilerAction.RECORD_AND_SAVE)

    def _begin(self):
        if self._session is None and self._recording():
            self._session = _profiling.start(self.record_shapes)

    def _finish_session(self):
        if self._session is not None:
            _profiling.stop(self._session)
            self._events.extend(self._session.events)
            self._session = None

    def start(self):
        self._begin()
        return self

    def stop(self):
        self._finish_session()
        if self.on_trace_ready is not None and self.schedule is None:
            self.on_trace_ready(self)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def step(self):
        """Advance the schedule by one step (recording starts and stops with it)."""
        action = self.schedule(self.step_num) if self.schedule is not None else None
        self.step_num += 1
        if self.schedule is None:
            return
        if action is ProfilerAction.RECORD_AND_SAVE:
            self._finish_session()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
            self._events_saved = list(self._events)
        if self._recording():
            self._begin()
        else:
            self._finish_session()

    def events(self):
        """Every recorded event, in the order it ended."""
        return list(self._events)

    @property
    def function_events(self):
        return self.events()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """Events grouped by name (and input shapes): an :class:`EventList`."""
        groups = {}
        for ev in self._events:
            shapes = ev.input_shapes if group_by_input_shape else None
            k = (ev.name, repr(shapes))
            if k not in groups:
                groups[k] = FunctionEventAvg(ev.name, shapes if group_by_input_shape else
                                             (ev.input_shapes if self.record_shapes else None))
            groups[k].add(ev)
        return EventList(groups.values())

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (JSON, times in microseconds)."""
        evs = self._events
        t0 = min((e.start_ns for e in evs), default=0)
        trace = {"traceEvents": [{"name": e.name, "ph": "X", "cat": "cpu_op",
                                  "ts": (e.start_ns - t0) / 1e3,
                                  "dur": (e.end_ns - e.start_ns) / 1e3, "pid": 0, "tid": 0}
                                 for e in evs]}
        with open(path, "w") as f:
            json.dump(trace, f)

    def table(self, *args, **kwargs):
        return self.key_averages().table(*args, **kwargs)

    def __str__(self):
        return self.key_averages().table()


class profile(_ProfileBase):
    """``torch.profiler.profile(activities=None, schedule=None, on_trace_ready=None,
    record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
    with_modules=False)``."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        super().__init__(record_shapes=record_shapes, on_trace_ready=on_trace_ready,
                         schedule=schedule)
        self.activities = set(activities or (ProfilerActivity.CPU,))


class record_function:
    """``with record_function("name"):`` marks a block as one event in active profiles
    (usable as a decorator too)."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._opened = None

    def __enter__(self):
        self._opened = _profiling.begin_range(self.name)
        return self

    def __exit__(self, *exc):
        if self._opened is not None:
            _profiling.end_range(self._opened)
            self._opened = None
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with record_function(self.name):
                return fn(*a, **k)
        return wrapper
