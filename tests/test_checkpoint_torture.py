"""Checkpoints that cannot be corrupted, and files that are not checkpoints.

Every hostile, truncated or foreign file raises NotACheckpointError ("not a leafgrad/
safetensors checkpoint: <reason>"), never a raw struct/JSON/Key error, never loads
something silently wrong, and never reserves more memory than the file holds; a save killed
by SIGKILL at any moment leaves the previous file loadable."""
import io
import json
import os
import pickle
import signal
import struct
import subprocess
import sys
import time

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._core.errors import CheckpointDtypeError, NotACheckpointError

SRC = os.path.join(os.path.dirname(__file__), os.pardir, "src")
F32_2 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


def st_file(header, data=b"", length=None):
    raw = json.dumps(header).encode() if isinstance(header, (dict, list)) else header
    return struct.pack("<Q", len(raw) if length is None else length) + raw + data


HOSTILE = {
    "negative_offset": st_file({"a": {"dtype": "F32", "shape": [2], "data_offsets": [-8, 0]}},
                               b"\0" * 8),
    "offset_out_of_range": st_file({"a": {"dtype": "F32", "shape": [2],
                                          "data_offsets": [0, 16]}}, b"\0" * 8),
    "overlap": st_file({"a": F32_2, "b": {"dtype": "F32", "shape": [2],
                                          "data_offsets": [4, 12]}}, b"\0" * 12),
    "gap": st_file({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                    "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}}, b"\0" * 12),
    "trailing_garbage": st_file({"a": F32_2}, b"\0" * 8 + b"garbage!"),
    "shape_minus_one": st_file({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 8]}},
                               b"\0" * 8),
    "shape_data_mismatch": st_file({"a": {"dtype": "F32", "shape": [3],
                                          "data_offsets": [0, 8]}}, b"\0" * 8),
    "duplicate_keys": st_file(b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, '
                              b'"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}',
                              b"\0" * 8),
    "huge_length_field": struct.pack("<Q", 10_300_000_000) + b'{"a": 1}' + b" " * 14,
    "length_beyond_file": st_file({"a": F32_2}, b"\0" * 8, length=10_000),
    "header_not_json": st_file(b"{not json at all}   ", b""),
    "header_a_list": st_file([1, 2, 3]),
    "header_not_utf8": st_file(b"{\xff\xfe}    "),
    "unknown_dtype": st_file({"a": {"dtype": "F99", "shape": [2], "data_offsets": [0, 8]}},
                             b"\0" * 8),
    "metadata_not_strings": st_file({"__metadata__": {"x": 1}, "a": F32_2}, b"\0" * 8),
    "tree_names_missing_tensor": st_file(
        {"__metadata__": {"leafgrad": json.dumps({"tree": {"t": "nope"}})}, "a": F32_2},
        b"\0" * 8),
    "tree_not_json": st_file({"__metadata__": {"leafgrad": "{{{"}, "a": F32_2}, b"\0" * 8),
    "tree_bad_node": st_file({"__metadata__": {"leafgrad": json.dumps(
        {"tree": {"d": [[{"x": 1}, {"v": 1}]]}})}, "a": F32_2}, b"\0" * 8),
    "tree_too_deep": st_file({"__metadata__": {"leafgrad": '{"tree": ' + '{"l": [' * 100000 +
                                               ']}' * 100000 + '}'}, "a": F32_2}, b"\0" * 8),
    "empty_file": b"",
    "five_bytes": b"\x01\x02\x03\x04\x05",
    "text_file": b"hello, this is not a checkpoint\n",
    "plain_pickle": pickle.dumps({"weights": [1.0, 2.0]}),
    "zip_not_torch": None,      # filled below
    "truncated_torch_zip": None,
}


def _zip_not_torch():
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("readme.txt", "a zip, not a checkpoint")
    return buf.getvalue()


def _torch_zip(obj):
    buf = io.BytesIO()
    lg.save(obj, buf, format="torch")
    return buf.getvalue()


HOSTILE["zip_not_torch"] = _zip_not_torch()
HOSTILE["truncated_torch_zip"] = _torch_zip({"w": lg.ones(100)})[:300]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file_refused_with_one_error(name, tmp_path):
    path = tmp_path / (name + ".safetensors")
    path.write_bytes(HOSTILE[name])
    with pytest.raises(NotACheckpointError, match=r"^not a leafgrad/safetensors checkpoint: "
                                                 r".+\. Fix: "):
        lg.load(str(path))
    with pytest.raises(NotACheckpointError):           # file objects too
        lg.load(io.BytesIO(HOSTILE[name]))


def test_error_class_is_what_torch_callers_catch():
    assert issubclass(NotACheckpointError, RuntimeError)
    assert issubclass(NotACheckpointError, pickle.UnpicklingError)


def test_huge_length_field_reserves_nothing(tmp_path):
    """A 30-byte file claiming a 10.3 GB header is refused before any read of that size."""
    import tracemalloc
    path = tmp_path / "huge.safetensors"
    path.write_bytes(HOSTILE["huge_length_field"])
    tracemalloc.start()
    with pytest.raises(NotACheckpointError, match="header length field says 10300000000"):
        lg.load(str(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10_000_000


def test_every_truncation_of_a_valid_file_is_refused(tmp_path):
    good = tmp_path / "good.safetensors"
    lg.save({"model": lg.nn.Linear(3, 2).state_dict(), "step": 7}, str(good))
    blob = good.read_bytes()
    torch_blob = _torch_zip({"w": lg.arange(50.0), "n": 3})
    for data in (blob, torch_blob):
        for cut in sorted(set(range(0, len(data), max(1, len(data) // 60))) | {len(data) - 1}):
            with pytest.raises(NotACheckpointError):
                lg.load(io.BytesIO(data[:cut]))


def test_torch_zip_with_out_of_range_tensor_refused(tmp_path):
    """A storage of 4 elements, a tensor claiming 100 of them."""
    from leafgrad._checkpoint import torch_writer as tf
    data = _torch_zip({"w": lg.ones(4)})
    import zipfile
    src = zipfile.ZipFile(io.BytesIO(data))
    pkl = src.read("archive/data.pkl")
    # size (4,) stored as BININT1 4 in a TUPLE1: make it 100
    bad = pkl.replace(b"K\x04\x85", b"Kd\x85", 1)
    assert bad != pkl
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for info in src.infolist():
            tf._write_record(zf, info.filename, bad if info.filename.endswith("data.pkl")
                             else src.read(info.filename))
    with pytest.raises(NotACheckpointError, match="reaches element 99 of storage '0', which "
                                                  "holds 4"):
        lg.load(io.BytesIO(buf.getvalue()))


class Payload:
    def __reduce__(self):
        return (os.system, ("touch %s" % Payload.marker,))


@pytest.mark.parametrize("fmt", ["pickle_renamed", "torch_zip", "legacy"])
def test_malicious_reduce_payload_refused_and_nothing_runs(fmt, tmp_path):
    marker = tmp_path / "pwned"
    Payload.marker = str(marker)
    path = tmp_path / "model.safetensors"
    if fmt == "pickle_renamed":
        path.write_bytes(pickle.dumps({"w": Payload()}, protocol=2))
    else:
        torch = pytest.importorskip("torch")
        torch.save({"w": torch.ones(2), "evil": Payload()}, str(path),
                   _use_new_zipfile_serialization=fmt == "torch_zip")
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL posix\.system was not an allowed "
                                                     r"global|GLOBAL nt\.system was not"):
        lg.load(str(path))
    assert not marker.exists()


def test_zero_byte_file_and_directory_and_missing(tmp_path):
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(NotACheckpointError, match="empty"):
        lg.load(str(tmp_path / "empty.pt"))
    with pytest.raises(FileNotFoundError):
        lg.load(str(tmp_path / "missing.safetensors"))
    with pytest.raises(IsADirectoryError):
        lg.load(str(tmp_path))


def test_symlinks(tmp_path):
    real = tmp_path / "real.safetensors"
    lg.save({"w": lg.arange(3.0)}, str(real))
    link = tmp_path / "link.safetensors"
    link.symlink_to(real)
    np.testing.assert_array_equal(lg.load(str(link))["w"].numpy(), [0, 1, 2])
    lg.save({"w": lg.ones(2)}, str(link))        # writes through the link: the link stays
    assert link.is_symlink()
    np.testing.assert_array_equal(lg.load(str(real))["w"].numpy(), [1, 1])
    dangling = tmp_path / "dangling.safetensors"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError):
        lg.load(str(dangling))
    dev = tmp_path / "dev.safetensors"
    dev.symlink_to("/dev/zero")
    with pytest.raises(NotACheckpointError, match="not a regular file"):
        lg.load(str(dev))


def test_bfloat16_refused_clearly(tmp_path):
    path = tmp_path / "bf16.safetensors"
    path.write_bytes(st_file({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}},
                             b"\x80\x3f\x00\x40"))
    with pytest.raises(CheckpointDtypeError, match="'w' has dtype bfloat16.*Fix: "):
        lg.load(str(path))
    torch = pytest.importorskip("torch")
    torch.save({"w": torch.ones(2, dtype=torch.bfloat16)}, str(tmp_path / "bf16.pt"))
    with pytest.raises(TypeError, match="bfloat16"):
        lg.load(str(tmp_path / "bf16.pt"))


@pytest.mark.parametrize("fmt", ["safetensors", "torch"])
def test_file_objects(fmt):
    obj = {"w": lg.arange(6.0).reshape(2, 3), "k": [1, "two", None]}
    buf = io.BytesIO()
    buf.write(b"prefix")                 # reading starts at the file's position
    lg.save(obj, buf, format=fmt)
    buf.seek(6)
    out = lg.load(buf)
    np.testing.assert_array_equal(out["w"].numpy(), obj["w"].numpy())
    assert out["k"] == [1, "two", None]


def test_save_failure_leaves_old_file_and_no_temp(tmp_path):
    path = tmp_path / "ck.pt"
    lg.save({"w": lg.ones(2)}, str(path))
    before = path.read_bytes()

    class Unpicklable:
        def __reduce__(self):
            raise RuntimeError("boom")
    with pytest.raises(RuntimeError, match="boom"):
        lg.save({"w": Unpicklable()}, str(path))
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["ck.pt"]


def test_save_keeps_mode_of_existing_file(tmp_path):
    path = tmp_path / "ck.safetensors"
    lg.save({"w": lg.ones(2)}, str(path))
    os.chmod(path, 0o640)
    lg.save({"w": lg.zeros(2)}, str(path))
    assert (os.stat(path).st_mode & 0o777) == 0o640


SAVER = r"""
import sys
sys.path.insert(0, %(src)r)
import numpy as np
import leafgrad as lg
i = %(start)d
while True:
    i += 1
    sd = {"layer%%d.weight" %% k: lg.full((1000, 1000), float(i)) for k in range(%(n)d)}
    sd["step"] = i
    lg.save(sd, %(path)r)
    print(i, flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ck.safetensors", "ck.pt"])
def test_sigkill_during_save_never_destroys_the_old_file(name, tmp_path):
    path = str(tmp_path / name)
    lg.save({"layer0.weight": lg.zeros(1), "step": 0}, path)

    rng = np.random.default_rng(0)
    mid_save, trial = 0, 0
    while mid_save < 2 and trial < 30:     # until kills have landed inside saves twice
        trial += 1
        proc = subprocess.Popen([sys.executable, "-c", SAVER % dict(src=SRC, n=10, path=path,
                                                                    start=trial * 1000)],
                                stdout=subprocess.PIPE)
        first = int(proc.stdout.readline())  # one save done: the next ones get killed
        time.sleep(float(rng.uniform(0.0, 0.5)))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        sd = lg.load(path)              # always the last complete save
        step = sd["step"]
        assert first <= step < trial * 1000 + 1000
        for k, v in sd.items():
            if k != "step":
                assert float(v.min()) == float(v.max()) == float(step)
        temps = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
        mid_save += len(temps)          # a kill during a save leaves its temporary file
        for n in temps:
            os.unlink(tmp_path / n)
    assert mid_save >= 1


KILLED_MID_SAVE = r"""
import sys, time
sys.path.insert(0, %(src)r)
import leafgrad as lg
from leafgrad._checkpoint import save_load
real = save_load._atomic_write


def stuck(f, write):            # writes the temporary file, then never gets to the rename
    def write_and_wait(tmp):
        write(tmp)
        print("written", flush=True)
        time.sleep(600)
    real(f, write_and_wait)


save_load._atomic_write = stuck
lg.save({"w": lg.full((1000,), 2.0)}, %(path)r)
"""


@pytest.mark.parametrize("name", ["ck.safetensors", "ck.pt"])
def test_next_save_removes_a_killed_saves_temp_file(name, tmp_path):
    path = str(tmp_path / name)
    lg.save({"w": lg.zeros(3)}, path)
    proc = subprocess.Popen([sys.executable, "-c", KILLED_MID_SAVE % dict(src=SRC, path=path)],
                            stdout=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"written"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    temps = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    assert len(temps) == 1 and temps[0].startswith("." + name + ".leafgrad-save.")
    np.testing.assert_array_equal(lg.load(path)["w"].numpy(), np.zeros(3))   # old file intact
    # a save in progress (a live process, or another host) keeps its temporary file
    live = "." + name + ".leafgrad-save.%s-%d.abcdef012345.tmp"
    from leafgrad._checkpoint.save_load import _host
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        kept = [live % (_host(), sleeper.pid), live % ("elsewhere", 1)]
        for n in kept:
            (tmp_path / n).write_bytes(b"partial")
        lg.save({"w": lg.ones(3)}, path)
        assert sorted(os.listdir(tmp_path)) == sorted([name] + kept)
    finally:
        sleeper.kill()
        sleeper.wait()
    np.testing.assert_array_equal(lg.load(path)["w"].numpy(), np.ones(3))
