"""The timeline: PYEMU_TRACE=file.json records every command (queue, kind,
kernel name and grid, copy direction and bytes, times) and which worker ran
its items, in the Chrome trace-event format; `python -m pyemu timeline`
draws it; cudaProfilerStart/Stop bracket what is recorded."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import numpy as np
mod = SourceModule('''
__global__ void inc(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;
                                       if (i < n) a[i] += 1; }''')
n = 1 << 16
h = cudaMallocHost(4 * n, np.float32)
d = cudaMalloc(4 * n)
s = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
cudaMemcpyAsync(d, h, 4 * n, cudaMemcpyHostToDevice, s)
mod.inc[n // 256, 256, 0, s](d, n)
cudaLaunchHostFunc(s, lambda _: None, None)
cudaMemsetAsync(d, 0, 16, s)
cudaMemcpyAsync(h, d, 4 * n, cudaMemcpyDeviceToHost, s)
mod.inc[1, 32](d, 32)
cudaDeviceSynchronize()
R["ok"] = 1
"""


def _trace(run_cuda, tmp_path, body=PROGRAM):
    path = tmp_path / "trace.json"
    res = run_cuda(body, env={"PYEMU_TRACE": str(path)})
    assert res.returncode == 0 and res.R.get("ok") == 1, res.explain()
    return path, json.loads(path.read_text())["traceEvents"]


def test_trace_records_every_command_with_its_lane_and_workers(run_cuda, tmp_path):
    _, ev = _trace(run_cuda, tmp_path)
    lanes = {e["tid"]: e["args"]["name"] for e in ev
             if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 0}
    assert "stream 1 (non-blocking)" in lanes.values()
    assert "legacy default stream" in lanes.values()
    device = [e for e in ev if e["ph"] == "X" and e["pid"] == 0]
    names = [e["name"] for e in device]
    assert "copy H2D 262144 B" in names and "copy D2H 262144 B" in names
    assert "inc<<<(256,1,1), (256,1,1)>>>" in names and "inc<<<(1,1,1), (32,1,1)>>>" in names
    assert "host function" in names and "fill 16 B" in names
    on_stream = [e for e in device if lanes[e["tid"]] == "stream 1 (non-blocking)"]
    assert [e["cat"] for e in sorted(on_stream, key=lambda e: e["args"]["seq"])] == \
        ["copy", "kernel", "host function", "fill", "copy"]
    prev_end = 0.0
    for e in sorted(on_stream, key=lambda e: e["args"]["seq"]):
        a = e["args"]
        assert a["queued_us"] <= a["submit_us"] <= e["ts"] + 1e-3
        assert e["ts"] >= prev_end - 1e-3          # stream order: one after the other
        prev_end = e["ts"] + e["dur"]
    workers = [e for e in ev if e["ph"] == "X" and e["pid"] == 1]
    kernel_spans = [w for w in workers if w["name"].startswith("inc<<<(256")]
    assert kernel_spans and sum(w["args"]["items"] for w in kernel_spans) == 256
    assert all(w["args"]["stream"] == "stream 1 (non-blocking)" for w in kernel_spans)


def test_timeline_command_draws_an_svg(run_cuda, tmp_path):
    path, _ = _trace(run_cuda, tmp_path)
    out = tmp_path / "t.svg"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "pyemu", "timeline", str(path), "-o", str(out)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr
    svg = out.read_text()
    assert svg.startswith("<svg") and svg.count("<rect") >= 8
    assert "stream 1 (non-blocking)" in svg and "worker 0" in svg


def test_timeline_command_draws_a_png(run_cuda, tmp_path):
    # matplotlib is in the test extra (pyproject.toml): the PNG path is always tested
    import matplotlib.image as mpimg
    path, _ = _trace(run_cuda, tmp_path)
    out = tmp_path / "timeline.png"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "pyemu", "timeline", str(path), "-o", str(out)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = mpimg.imread(str(out))
    assert img.shape[0] > 100 and img.shape[1] > 500
    rgb = (img[..., :3] * 255).round().astype(int).reshape(-1, 3)
    colours = {tuple(c) for c in rgb[::7]}
    for hexcol in ("#4C72B0", "#DD8452"):       # kernel and copy bars are drawn
        want = tuple(int(hexcol[i:i + 2], 16) for i in (1, 3, 5))
        assert want in colours, hexcol
    assert "lanes" in proc.stdout


def test_timeline_command_bad_input(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = subprocess.run([sys.executable, "-m", "pyemu", "timeline", str(bad), "-o",
                           str(tmp_path / "x.svg")], capture_output=True, text=True,
                          timeout=120, env=env, cwd=str(ROOT))
    assert proc.returncode == 1 and "cannot read" in proc.stderr
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        empty = tmp_path / "e.json"
        empty.write_text(json.dumps({"traceEvents": [
            {"ph": "X", "pid": 0, "tid": 0, "ts": 0, "dur": 1, "name": "k", "cat": "kernel"}]}))
        proc = subprocess.run([sys.executable, "-m", "pyemu", "timeline", str(empty), "-o",
                               str(tmp_path / "x.png")], capture_output=True, text=True,
                              timeout=120, env=env, cwd=str(ROOT))
        assert proc.returncode == 1 and "matplotlib" in proc.stderr


def test_cudaProfilerStop_ends_the_recording(run_cuda, tmp_path):
    path = tmp_path / "p.json"
    res = run_cuda("""
        d = cudaMalloc(64)
        cudaMemset(d, 1, 64)
        cudaProfilerStop()                 # writes the file
        import json, os
        R["n1"] = sum(1 for e in json.load(open(os.environ["PYEMU_TRACE"]))["traceEvents"]
                      if e["ph"] == "X")
        cudaMemset(d, 2, 64)               # not recorded
        cudaDeviceSynchronize()
        R["ok"] = 1
    """, env={"PYEMU_TRACE": str(path)})
    assert res.returncode == 0, res.explain()
    assert res.R["n1"] >= 1
    doc = json.loads(path.read_text())
    assert sum(1 for e in doc["traceEvents"] if e["ph"] == "X" and e["pid"] == 0) == 1


def test_without_PYEMU_TRACE_the_profiler_calls_neither_record_nor_wait(run_cuda):
    """asyncAPI's pattern: cudaProfilerStart, queue work, cudaProfilerStop,
    then count while the work runs (CUDA's calls have no effect without a
    profiler; pyemu's did wait for the device)."""
    res = run_cuda("""
        from pyemu.runtime import trace
        mod = SourceModule('''#include <time.h>
        __global__ void spin(int ms) { struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
          do { clock_gettime(CLOCK_MONOTONIC, &b); }
          while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms); }''')
        stop = cudaEventCreate()
        cudaProfilerStart()
        R["recording"] = trace.recording()
        mod.spin[1, 1](300)
        cudaEventRecord(stop, 0)
        cudaProfilerStop()
        R["after_stop"] = int(cudaEventQuery(stop))
        cudaEventSynchronize(stop)
    """, env={"PYEMU_TRACE": ""})
    assert res.returncode == 0, res.explain()
    assert res.R["recording"] is False
    assert res.R["after_stop"] == 600          # cudaErrorNotReady: the kernel still runs


EVENTS = """
import numpy as np
d = cudaMalloc(4096)
s = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
start, stop = cudaEventCreate(), cudaEventCreate()
cudaEventRecord(start, s)
cudaMemsetAsync(d, 1, 4096, s)
cudaEventRecord(stop, s)
cudaEventRecord(start, 0)                 # recorded again, on the legacy default stream
cudaEventSynchronize(stop)
cudaDeviceSynchronize()
R["start"], R["stop"] = start.number, stop.number
R["repr"] = repr(stop)
R["ok"] = 1
"""


def test_an_event_record_is_an_event_named_after_its_event(run_cuda, tmp_path):
    path = tmp_path / "trace.json"
    res = run_cuda(EVENTS, env={"PYEMU_TRACE": str(path)})
    assert res.returncode == 0 and res.R.get("ok") == 1, res.explain()
    a, b = res.R["start"], res.R["stop"]
    assert a != b and f"event {b}" in res.R["repr"]
    ev = json.loads(path.read_text())["traceEvents"]
    lanes = {e["tid"]: e["args"]["name"] for e in ev
             if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 0}
    records = sorted((e for e in ev if e.get("cat") == "event"), key=lambda e: e["args"]["seq"])
    assert [(e["name"], e["args"]["event"], lanes[e["tid"]]) for e in records] == [
        (f"event {a}", a, "stream 1 (non-blocking)"), (f"event {b}", b, "stream 1 (non-blocking)"),
        (f"event {a}", a, "legacy default stream")]
    assert all(e["ph"] in ("i", "X") for e in records)
    assert not any(e.get("cat") == "marker" for e in ev)   # none of them is a plain marker
    fill = next(e for e in ev if e.get("cat") == "fill")
    assert records[0]["ts"] <= fill["ts"] and fill["ts"] + fill["dur"] <= records[1]["ts"] + 1e-3


def test_the_png_legend_names_event_records(run_cuda, tmp_path):
    import matplotlib.image as mpimg
    from pyemu.tools import timeline
    path = tmp_path / "trace.json"
    res = run_cuda(EVENTS, env={"PYEMU_TRACE": str(path)})
    assert res.returncode == 0 and res.R.get("ok") == 1, res.explain()
    lanes = timeline.lanes_of(json.loads(path.read_text()))
    fig = timeline.figure(lanes, "t")
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert texts == ["kernel", "copy", "fill", "host function", "event"]
    ticks = [r for _, rows in lanes for r in rows if r[2] == "event"]
    assert len(ticks) == 3 and all(r[1] is None for r in ticks)
    # a trace with no event record has no "event" entry
    assert "event" not in timeline.legend_kinds([("q", [(0.0, 1.0, "kernel", "k")])])
    out = tmp_path / "timeline.png"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "pyemu", "timeline", str(path), "-o", str(out)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr
    rgb = (mpimg.imread(str(out))[..., :3] * 255).round().astype(int).reshape(-1, 3)
    want = tuple(int(timeline.COLORS["event"][i:i + 2], 16) for i in (1, 3, 5))
    assert want in {tuple(c) for c in rgb}       # the legend's swatch (and the ticks)
    svg = tmp_path / "t.svg"
    proc = subprocess.run([sys.executable, "-m", "pyemu", "timeline", str(path), "-o", str(svg)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr
    text = svg.read_text()
    assert ">event</text>" in text and f"<title>event {res.R['stop']}</title>" in text
