"""``torch.utils.benchmark``: ``Timer``, ``Measurement`` and ``Compare``, as PyTorch's.

``Timer(stmt, setup, globals=...)`` times a statement with :mod:`timeit`;
``timeit(number)`` gives one measurement, ``blocked_autorange``/``adaptive_autorange``
several blocks of runs until a minimum run time is reached. ``Measurement`` reports the
median and interquartile range per run (seconds in ``times``, ``mean``, ``median``,
``iqr``) and prints as PyTorch's does; ``Compare(results).print()`` tabulates medians by
label, sub_label and description. ``Language`` names the statement's language: Python
only here (a C++ statement and ``collect_callgrind`` raise NotImplementedError, saying why;
PyTorch's fuzzing tools are not here).
"""
import enum
import sys
import statistics
import textwrap as _textwrap
import timeit as _timeit

__all__ = ["Timer", "Measurement", "Compare", "Language", "select_unit", "trim_sigfig"]


class Language(enum.Enum):
    """The language of a Timer's statement (PyTorch's values)."""
    PYTHON = 0
    CPP = 1


def _no_cpp(what):
    return NotImplementedError(
        "%s: PyTorch compiles C++ statements against libtorch (and counts instructions "
        "with Valgrind); leafgrad is Python on NumPy and has no C++ API to time. Fix: time "
        "the Python statement with Timer(stmt, setup).blocked_autorange()" % what)

_UNITS = ((1e-9, "ns"), (1e-6, "us"), (1e-3, "ms"), (1.0, "s"))


def select_unit(t):
    """(unit name, scale) for a time ``t`` in seconds: the largest unit below ``t``."""
    name, scale = "ns", 1e-9
    for s, n in _UNITS:
        if t >= s:
            name, scale = n, s
    return name, scale


def trim_sigfig(x, n):
    """``x`` rounded to ``n`` significant figures."""
    if x == 0:
        return 0.0
    from math import floor, log10
    return round(x, -int(floor(log10(abs(x)))) + n - 1)


class Measurement:
    """The times of one ``Timer`` run: ``raw_times`` (seconds per block of
    ``number_per_run`` runs), ``times`` (seconds per run), ``mean``, ``median``, ``iqr``."""

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def mean(self):
        return statistics.fmean(self.times)

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def iqr(self):
        ts = sorted(self.times)
        if len(ts) < 2:
            return 0.0
        q = statistics.quantiles(ts, n=4, method="inclusive")
        return q[2] - q[0]

    def _quartiles(self):
        ts = sorted(self.times)
        q = statistics.quantiles(ts, n=4, method="inclusive") if len(ts) > 1 else [ts[0]] * 3
        return q[0], q[2]

    @property
    def significant_figures(self):
        return 4 if len(self.times) < 2 else max(1, min(4, 4 - int(
            (self.iqr / self.median) * 10) if self.median else 1))

    @property
    def title(self):
        spec = self.task_spec
        sub = spec["sub_label"]
        if spec["label"] is not None:
            return spec["label"] + (": " + sub if sub else "")
        if "\n" not in spec["stmt"]:
            return spec["stmt"] + (": " + sub if sub else "")
        return "stmt:%s\n%s" % (" (%s)" % sub if sub else "", _textwrap.indent(spec["stmt"], "  "))

    def _summary(self):
        """Title, description and setup, as PyTorch's TaskSpec.summarize."""
        setup = self.task_spec["setup"]
        setup = ("" if setup == "pass" or not isinstance(setup, str) or not setup
                 else "setup:\n" + _textwrap.indent(setup, "  ") if "\n" in setup
                 else "setup: " + setup)
        parts = [self.title, self.description or "", setup]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts if p)

    @property
    def description(self):
        return self.task_spec["description"]

    @property
    def label(self):
        return self.task_spec["label"]

    @property
    def sub_label(self):
        return self.task_spec["sub_label"]

    @property
    def num_threads(self):
        return self.task_spec["num_threads"]

    def __repr__(self):
        unit, scale = select_unit(self.median)
        mod = type(self).__module__
        if mod == __name__ and sys.modules.get("torch") is sys.modules.get("leafgrad"):
            mod = "torch.utils.benchmark.utils.common"      # under `leafgrad run`, torch's words
        lines = ["<%s.%s object at %#x>" % (mod, type(self).__name__, id(self)),
                 self._summary()]
        n = len(self.times)
        threads = "%d thread%s" % (self.num_threads, "" if self.num_threads == 1 else "s")
        if n == 1:
            lines.append("  %.2f %s" % (self.median / scale, unit))
            lines.append("  1 measurement, %d runs , %s" % (self.number_per_run, threads))
            return "\n".join(lines)
        lines.append("  Median: %.2f %s" % (self.median / scale, unit))
        if n >= 4:
            lo, hi = self._quartiles()
            lines.append("  IQR:    %.2f %s (%.2f to %.2f)" % (self.iqr / scale, unit, lo / scale,
                                                             hi / scale))
        lines.append("  %d measurements, %d runs per measurement, %s"
                     % (n, self.number_per_run, threads))
        rel = self.iqr / self.median if self.median else 0.0
        if rel > 0.1:
            lines.append("  WARNING: Interquartile range is %.1f%% of the median measurement."
                         % (rel * 100))
            lines.append("           " + ("This suggests significant environmental influence."
                                          if rel > 0.5 else
                                          "This could indicate system fluctuation."))
        return "\n".join(lines)


def _dedent(code):
    if not isinstance(code, str):
        return code
    code = _textwrap.dedent(code)
    return (code[1:] if code[:1] == "\n" else code).rstrip()


class Timer:
    """``Timer(stmt='pass', setup='pass', global_setup='', timer=timeit.default_timer,
    globals=None, label=None, sub_label=None, description=None, env=None,
    num_threads=1)``: times ``stmt`` (a string or a callable) after ``setup``.

    Raises:
        ValueError: ``stmt`` or ``setup`` that is neither a string nor callable.
    """

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=_timeit.default_timer,
                 globals=None, label=None, sub_label=None, description=None, env=None,
                 num_threads=1, language="python"):
        if not (isinstance(stmt, str) or callable(stmt)):
            raise ValueError("Currently only a `str` or a callable stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            raise _no_cpp("Timer(language=%s)" % (language,))
        if language not in (Language.PYTHON, "python", "py"):
            raise ValueError("Invalid language `%s`. Fix: language=Language.PYTHON (or "
                             "'python')" % (language,))
        self._globals = dict(globals or {})
        # as PyTorch's Timer: `torch` is defined in the statement's globals, and multi-line
        # statements written indented inside a call are dedented
        import leafgrad
        self._globals.setdefault("torch", leafgrad)
        stmt, setup = _dedent(stmt), _dedent(setup)
        self._timer = _timeit.Timer(stmt=stmt, setup=(global_setup + "\n" + setup
                                                      if isinstance(setup, str) and global_setup
                                                      else setup),
                                    timer=timer, globals=self._globals)
        self._task_spec = dict(stmt=stmt if isinstance(stmt, str) else getattr(
            stmt, "__name__", repr(stmt)), setup=setup, label=label, sub_label=sub_label,
            description=description, env=env, num_threads=num_threads)

    def _measure(self, number, blocks):
        return Measurement(number, blocks, self._task_spec)

    def timeit(self, number=1000000):
        """One block of ``number`` runs (after one warm-up run)."""
        self._timer.timeit(1)
        return self._measure(number, [self._timer.timeit(number)])

    def _block_size(self, min_block=0.001):
        number = 1
        while True:
            t = self._timer.timeit(number)
            if t >= min_block or number >= 10 ** 9:
                return number
            number *= 10

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of runs (each about 1 ms or longer) until ``min_run_time`` seconds."""
        number = self._block_size()
        blocks, total = [], 0.0
        while total < min_run_time or not blocks:
            t = self._timer.timeit(number)
            if callback is not None:
                callback(number, t)
            blocks.append(t)
            total += t
        return self._measure(number, blocks)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Blocks until the IQR is below ``threshold`` times the median (at least
        ``min_run_time``, at most ``max_run_time`` seconds), with at least 4 blocks."""
        number = self._block_size(0.01)
        blocks, total = [], 0.0
        while True:
            t = self._timer.timeit(number)
            if callback is not None:
                callback(number, t)
            blocks.append(t)
            total += t
            if len(blocks) >= 4 and total >= min_run_time:
                m = self._measure(number, blocks)
                if m.iqr / m.median < threshold or total >= max_run_time:
                    return m
            elif total >= max_run_time and len(blocks) >= 1:
                return self._measure(number, blocks)

    def collect_callgrind(self, number=100, *, repeats=None, collect_baseline=True,
                          retain_out_file=False):
        """Refused: Valgrind instruction counts of PyTorch's C++ kernels have no leafgrad
        counterpart. Raises NotImplementedError."""
        raise _no_cpp("Timer.collect_callgrind")

    def autorange(self, callback=None):
        return self.blocked_autorange(callback=callback)


class Compare:
    """``Compare(results).print()``: a table of medians, one block per label and number of
    threads, rows by sub_label, columns by description."""

    def __init__(self, results):
        self._results = list(results)
        self._trim = False
        self._colorize = False

    def trim_significant_figures(self):
        self._trim = True

    def colorize(self, rowwise=False):
        self._colorize = True

    def extend_results(self, results):
        self._results.extend(results)

    def __str__(self):
        out = []
        groups = {}
        for r in self._results:
            groups.setdefault(r.label, []).append(r)
        for label, rs in groups.items():
            cols = []
            rows = []
            for r in rs:
                if r.description not in cols:
                    cols.append(r.description)
                if r.sub_label not in rows:
                    rows.append(r.sub_label)
            unit, scale = select_unit(min(r.median for r in rs))
            cells = {(r.sub_label, r.description): r.median / scale for r in rs}
            names = [str(c) if c is not None else "" for c in cols]
            width = max([len(n) for n in names] + [6])
            row_w = max([len(str(s)) for s in rows if s is not None] + [0]) + 6
            lines = []
            head = " " * row_w + "|" + "|".join(" %s " % n.center(width) for n in names)
            title = " %s " % label if label else ""
            lines.append("[" + title.center(len(head) - 2, "-") + "]")
            lines.append(head)
            threads = rs[0].num_threads
            lines.append(("%d threads: " % threads).ljust(len(head), "-"))
            for s in rows:
                vals = []
                for c in cols:
                    v = cells.get((s, c))
                    txt = "" if v is None else ("%.1f" % (trim_sigfig(v, 3) if self._trim else v))
                    vals.append(" %s " % txt.center(width))
                lines.append(("%s" % ("" if s is None else s)).rjust(row_w - 2) + "  |"
                             + "|".join(vals))
            lines.append("")
            lines.append("Times are in %s (%s)." % ({"ns": "nanoseconds", "us": "microseconds",
                                                    "ms": "milliseconds", "s": "seconds"}[unit],
                                                   unit))
            out.append("\n".join(lines))
        return "\n\n".join(out) + "\n"

    def print(self):
        print(str(self))
