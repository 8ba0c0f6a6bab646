"""Tests of the benchmark (pyemu/bench.py).

They check that ``--quick`` runs and that every result verifies on both
sides; they never assert on timings, since the machines are shared.
"""
from __future__ import annotations

import pytest

from pyemu.tools import bench


def needs_pocl(test):
    """Marks a test that compares with PoCL.  PoCL is part of the test set-up
    (the README's test command installs it), so a missing PoCL fails these
    tests instead of skipping them; test_pocl_is_installed says why."""
    return test


def test_pocl_is_installed():
    device, why = bench.find_pocl_device()
    assert device is not None, f"PyOpenCL with a PoCL CPU device is needed: {why}"


@pytest.fixture(scope="module")
def quick_rows():
    """Every case once, at the quick sizes, on pyemu and (if present) PoCL."""
    return bench.run_cases(quick=True, repeat=1)


def _describe(row: bench.Result) -> str:
    return (f"{row.name}: pyemu {row.pyemu.status} {row.pyemu.detail!r}, "
            f"PoCL {row.pocl.status} {row.pocl.detail!r}")


def test_quick_runs_every_case(quick_rows):
    assert [r.name for r in quick_rows] == list(bench.CASE_NAMES)


def test_quick_every_pyemu_result_verifies(quick_rows):
    bad = [_describe(r) for r in quick_rows if not r.pyemu.ok]
    assert not bad, "\n".join(bad)
    for row in quick_rows:
        assert row.pyemu.seconds is not None and row.pyemu.seconds > 0


@needs_pocl
def test_quick_every_pocl_result_verifies(quick_rows):
    compared = [r for r in quick_rows if not r.pyemu_only]
    bad = [_describe(r) for r in compared if not r.pocl.ok]
    assert not bad, "\n".join(bad)
    for row in compared:
        assert row.pocl.seconds is not None and row.pocl.seconds > 0
        if row.pyemu.ok:
            assert row.verified
            assert row.ratio is not None and row.ratio > 0


def test_quick_every_pyemu_opencl_result_verifies(quick_rows):
    """The OpenCL path: the .cl sources PoCL runs, through pyemu.opencl."""
    compared = [r for r in quick_rows if not r.pyemu_only]
    bad = [f"{r.name}: pyemu-CL {r.opencl.status} {r.opencl.detail!r}"
           for r in compared if not r.opencl.ok]
    assert not bad, "\n".join(bad)
    for row in compared:
        assert row.opencl.seconds is not None and row.opencl.seconds > 0
        assert row.verified
        if row.pocl.ok:
            assert row.opencl_ratio == pytest.approx(row.opencl.seconds / row.pocl.seconds)
            assert row.opencl_met is (row.opencl_ratio <= row.target_ratio)
    for row in quick_rows:
        if row.pyemu_only:
            assert row.opencl.status == bench.NA and row.opencl_met is None


def test_quick_table_has_the_opencl_column(quick_rows):
    lines = bench.format_table(quick_rows).splitlines()
    assert lines[0].split() == ["case", "size", "pyemu", "PoCL", "pyemu/PoCL", "target", "met",
                                "pyemu-CL", "CL/PoCL", "CL", "met", "NumPy", "pyemu/NumPy"]
    for row in quick_rows:
        cells = bench._cells(row)
        assert len(cells) == len(bench.HEADERS)
        cl_cell = cells[bench.HEADERS.index("pyemu-CL")]
        if row.pyemu_only:
            assert cl_cell == "-"
        else:
            per = "/launch" if row.name.startswith("launch") else ""
            assert cl_cell == bench.format_seconds(row.opencl.seconds) + per
            assert cells[bench.HEADERS.index("CL met")] in ("yes", "no")


def test_opencl_ratio_and_target_are_its_own():
    row = bench.Result("reduce", "2^24", bench.Side(bench.OK, 0.010), bench.Side(bench.OK, 0.010),
                       target_ratio=1.5, target_text="<= 1.5x", quick=False,
                       opencl=bench.Side(bench.OK, 0.030))
    assert row.ratio == pytest.approx(1.0) and row.met is True
    assert row.opencl_ratio == pytest.approx(3.0) and row.opencl_met is False
    cells = dict(zip(bench.HEADERS, bench._cells(row)))
    assert (cells["met"], cells["pyemu-CL"], cells["CL/PoCL"], cells["CL met"]) == \
        ("yes", "30.00 ms", "3.00x", "no")
    row.opencl = bench.Side(bench.FAIL, 0.001, "1 of 1 elements differ")
    assert not row.verified and row.met is True and row.opencl_met is False
    assert bench._cells(row)[bench.HEADERS.index("CL met")] == bench.FAIL


def test_main_no_opencl(capsys):
    assert bench.main(["--quick", "--no-pocl", "--no-opencl", "--only", "vector_add",
                       "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "pyemu-CL: n/a: pyemu's OpenCL path not run (--no-opencl)" in out
    row = [line for line in out.splitlines() if line.startswith("vector_add ")]
    # ... pyemu-CL, CL/PoCL, CL met, then NumPy (time, unit) and pyemu/NumPy
    assert len(row) == 1 and row[0].split()[-6:-3] == ["n/a", "-", "n/a"]
    assert row[0].split()[-1].endswith("x")


def test_quick_table_has_every_row(quick_rows):
    text = bench.format_table(quick_rows)
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["case", "size", "pyemu"]
    for name in bench.CASE_NAMES:
        assert any(line.startswith(name + " ") for line in lines), name
    assert bench.FAIL not in text


def test_main_quick_one_case_without_pocl(capsys):
    assert bench.main(["--quick", "--no-pocl", "--only", "reduce", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    row = [line for line in out.splitlines() if line.startswith("reduce ")]
    assert len(row) == 1
    assert "n/a" in row[0]
    assert "PoCL: n/a: PoCL not run (--no-pocl)" in out


def test_main_markdown(capsys):
    assert bench.main(["--quick", "--no-pocl", "--only", "launch,module_cache",
                       "--repeat", "1", "--markdown"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("pyemu bench (--quick sizes), ")
    assert "cores" in out[0]
    assert out[2].startswith("| case | size | pyemu | PoCL |")
    assert out[3].startswith("|---|---|")
    assert out[4].startswith("| launch |")
    assert out[5].startswith("| module_cache |")


def test_main_rejects_unknown_case(capsys):
    assert bench.main(["--only", "nope"]) == 2
    assert "unknown case" in capsys.readouterr().err


def test_main_rejects_bad_repeat(capsys):
    assert bench.main(["--repeat", "0"]) == 2


# --- the verification path, with a backend that computes nothing ------------


class _LazyBackend:
    """Looks like a backend, launches nothing: every result comes back zero."""

    name = "lazy"

    def compile(self, case, options=()):
        return None

    def kernel(self, module, name):
        return None

    def to_device(self, host):
        return bench.Buffer(None, host.nbytes)

    def empty(self, nbytes):
        return bench.Buffer(None, nbytes)

    def upload(self, buf, host):
        pass

    def download(self, buf, out):
        out[...] = 0
        return out

    def launcher(self, kernel, grid, block, args):
        return lambda: None

    def storm(self, kernel, grid, block, args, count):
        return lambda: None

    def sync(self):
        pass

    def free(self, buf):
        pass

    def close(self):
        pass


@pytest.mark.parametrize("name", [c.name for c in bench.COMPARE_CASES])
def test_wrong_result_is_fail_not_a_time(name):
    env = bench.Environment(pyemu=_LazyBackend(), pocl=None, pocl_why="test")
    row = bench.run_case(name, env, quick=True, repeat=1)
    assert row.pyemu.status == bench.FAIL
    assert row.pyemu.detail
    assert not row.verified
    assert row.met is False
    assert row.ratio is None
    cells = bench._cells(row)
    assert cells[2] == bench.FAIL and cells[bench.HEADERS.index("met")] == bench.FAIL


@pytest.mark.parametrize("name", [c.name for c in bench.COMPARE_CASES])
def test_wrong_opencl_result_is_fail_not_a_time(name):
    env = bench.Environment(pyemu=_LazyBackend(), opencl=_LazyBackend(), pocl=None,
                            pocl_why="test")
    row = bench.run_case(name, env, quick=True, repeat=1)
    assert row.opencl.status == bench.FAIL and row.opencl.detail
    assert not row.verified and row.opencl_met is False and row.opencl_ratio is None
    cells = dict(zip(bench.HEADERS, bench._cells(row)))
    assert cells["pyemu-CL"] == bench.FAIL and cells["CL met"] == bench.FAIL


def test_missing_pocl_is_reported_on_one_line():
    env = bench.Environment(pyemu=_LazyBackend(), pocl=None,
                            pocl_why="PyOpenCL is not installed (pip install pyopencl)")
    row = bench.run_case("vector_add", env, quick=True, repeat=1)
    assert row.pocl.status == bench.NA
    text = bench.format_table([row], env=env)
    assert "PoCL: n/a: PyOpenCL is not installed (pip install pyopencl)" in text.splitlines()


def test_reference_ratio_only_at_full_size():
    row = bench.Result("vector_add", "2^24", bench.Side(bench.OK, 0.014), bench.Side(bench.NA),
                       target_ratio=1.5, reference_pocl_seconds=0.007, quick=False)
    assert row.ratio_is_reference and row.ratio == pytest.approx(2.0) and row.met is False
    row.quick = True
    assert row.ratio is None and row.met is None


def test_format_seconds():
    assert bench.format_seconds(2.0149) == "2.01 s"
    assert bench.format_seconds(0.40) == "400.0 ms"
    assert bench.format_seconds(0.00712) == "7.12 ms"
    assert bench.format_seconds(4.3e-6) == "4.30 us"
    assert bench.format_seconds(None) == "-"


def test_kernel_sources_come_in_pairs():
    for case in bench.COMPARE_CASES:
        assert (bench.KERNEL_DIR / f"{case.source or case.name}.cu").is_file()
        assert (bench.KERNEL_DIR / f"{case.source or case.name}.cl").is_file()
    assert (bench.KERNEL_DIR / "empty.cu").is_file()


def test_quick_vector_add_has_the_numpy_column(quick_rows):
    """vector_add times np.add(a, b, out=c) on the same arrays (the NumPy
    column) and checks its result like the other sides; other cases have none."""
    for row in quick_rows:
        cells = dict(zip(bench.HEADERS, bench._cells(row)))
        if row.name == "vector_add":
            assert row.numpy.ok and row.numpy.seconds > 0, row.numpy
            assert row.numpy_ratio == pytest.approx(row.pyemu.seconds / row.numpy.seconds)
            assert cells["pyemu/NumPy"].endswith("x")
        else:
            assert row.numpy.status == bench.NA and cells["NumPy"] == "-"


def test_quick_launch_rows_are_per_launch_and_checked(quick_rows):
    """launch and launch_args: a storm on every side, shown per launch, its
    result checked (the counting kernel, the accumulating vector add)."""
    rows = {r.name: r for r in quick_rows}
    for name in ("launch", "launch_args"):
        row = rows[name]
        assert not row.pyemu_only and row.target_ratio == 1.0
        assert row.pyemu.ok and row.opencl.ok, (row.pyemu, row.opencl)
        assert row.size == "200 launches"
        for side in (row.pyemu, row.opencl):
            assert 0 < side.seconds < 0.01        # per launch, not per storm
            assert side.samples and max(side.samples) < 0.01
        cells = dict(zip(bench.HEADERS, bench._cells(row)))
        assert cells["pyemu"].endswith("/launch") and cells["pyemu-CL"].endswith("/launch")


def test_launch_storm_that_loses_launches_fails():
    """A backend whose storm runs one launch instead of 200 fails the row's check."""
    from pyemu.tools.bench_kernels.backends import PyemuBackend

    class OneLaunch(PyemuBackend):
        def storm(self, kernel, grid, block, args, count):
            return super().storm(kernel, grid, block, args, 1)

    env = bench.Environment(pyemu=OneLaunch())
    for name in ("launch", "launch_args"):
        row = bench.run_case(name, env, quick=True, repeat=1)
        assert row.pyemu.status == bench.FAIL, row.pyemu


def test_quick_alloc_rows(quick_rows):
    """alloc_1e4 and alloc_1e6 (10^5 when quick) come from one child process;
    the larger count's target is 2x the smaller's time."""
    rows = {r.name: r for r in quick_rows}
    small, big = rows["alloc_1e4"], rows["alloc_1e6"]
    assert small.pyemu.ok and big.pyemu.ok, (small.pyemu, big.pyemu)
    assert small.size == "10,000 x 256 B" and big.size == "100,000 x 256 B"
    assert big.target_seconds == pytest.approx(bench.ALLOC_GROWTH * small.pyemu.seconds)
    assert big.met is (big.pyemu.seconds < big.target_seconds)
    assert small.pyemu_only and big.pyemu_only


def test_alloc_rows_check_their_allocations():
    from pyemu.tools import bench_alloc

    rows = bench_alloc.run_in_child((1000, 3000))
    assert [r["count"] for r in rows] == [1000, 3000]
    assert all(r["ok"] and r["malloc_s"] > 0 and r["free_s"] > 0 for r in rows), rows
    assert bench_alloc._check([1, 1], 2).endswith("share an address")


def test_compile_times_an_uncached_and_a_cached_build(capsys, monkeypatch):
    """`bench --compile`: one row per kernel file and a total; a build that
    fails is an error row and exit status 1, never a time."""
    from pyemu.tools import bench_compile
    files = [p for p in bench_compile._files() if p.name in ("vector_add.cu", "vector_add.cl")]
    monkeypatch.setattr(bench_compile, "_files", lambda: files)
    assert bench.main(["--compile", "--repeat", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:2] == ["kernel", "file"]
    rows = {line.split()[0]: line.split()[1:] for line in out[1:]}
    assert set(rows) == {"vector_add.cu", "vector_add.cl", "total"}
    assert rows["vector_add.cl"][4:6] != ["-"]          # PoCL's clBuildProgram ran
    broken = files[0].parent / "vector_add.cu"
    monkeypatch.setattr(bench_compile, "_builders", lambda pocl: {
        ".cu": lambda text: (_ for _ in ()).throw(RuntimeError("no g++")),
        ".cl": lambda text: None, "pocl": None})
    monkeypatch.setattr(bench_compile, "_files", lambda: [broken])
    assert bench.main(["--compile", "--repeat", "1", "--no-pocl"]) == 1
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("vector_add")]
    assert len(row) == 1 and "error:" in row[0] and "no g++" in row[0] and " ms" not in row[0]


def test_streams_model_bound():
    """max(C, K + C/2 + C/8) for 4 streams on 2 cores, against the serial K + C."""
    from pyemu.tools.bench_streams import model_speedup
    assert model_speedup(1.0, 1.0) == pytest.approx(2 / 1.625)       # K = C: 1.23x
    assert model_speedup(1.0, 1.5) == pytest.approx(2.5 / 1.9375)    # C = 1.5 K: 1.29x
    assert model_speedup(1.0, 2.0) == pytest.approx(3 / 2.25)        # C = 2 K: 1.33x
    assert model_speedup(1.0, 8 / 3) == pytest.approx(11 / 8)        # the most: 1.375x
    assert model_speedup(1.0, 4.0) == pytest.approx(5 / 4)           # copy-bound: (K + C) / C
    assert model_speedup(2.0, 1.0, nstreams=1) == 1.0                # one stream: no overlap
    assert model_speedup(0.0, 1.0) == 1.0


def test_quick_streams_row_notes_its_serial_parts(quick_rows):
    row = next(r for r in quick_rows if r.name == "streams_4x")
    assert row.pyemu.status == bench.OK, _describe(row)
    assert row.note.startswith("serial: copies C ") and "kernel K " in row.note
    assert "2-core model" in row.note
    text = bench.format_table(quick_rows)
    assert f"streams_4x: {row.note}" in text.splitlines()


def test_streams_parts_add_up_to_the_serial_run():
    """The serial version's parts come from events recorded between its steps."""
    import pyemu.cuda as cuda
    from pyemu.tools.bench_streams import streams_4x
    m = streams_4x(cuda, quick=True, repeat=1)   # one sample: the medians are the samples
    assert m["ok"], m["why"]
    assert min(m["h2d"], m["kernel"], m["d2h"], m["streams"]) > 0
    assert m["h2d"] + m["kernel"] + m["d2h"] == pytest.approx(m["serial"], rel=1e-6)


def test_streams_row_with_a_wrong_result_is_fail_without_a_note(monkeypatch):
    from pyemu.tools import bench_streams
    monkeypatch.setattr(bench_streams, "_reference", lambda x: x + 1)   # not MyKernel's
    env = bench.Environment(pyemu=bench.PyemuBackend(), pocl=None, pocl_why="test")
    row = bench.run_case("streams_4x", env, quick=True, repeat=1)
    assert row.pyemu.status == bench.FAIL and row.pyemu.detail == "a result differs from NumPy"
    assert row.note == "" and row.met is False


def test_memcpy_async_row_exists_and_checks_its_copies(quick_rows):
    """The per-call cost of cudaMemcpyAsync is a row of its own (no timed assertion)."""
    assert "memcpy_async" in bench.CASE_NAMES
    row = next(r for r in quick_rows if r.name == "memcpy_async")
    assert row.pyemu.status == bench.OK, _describe(row)
    assert row.size == "1000 calls" and row.target_text == "< 10 us"
    assert row.pyemu.seconds > 0
    assert any(line.startswith("memcpy_async") for line in bench.format_table(quick_rows).splitlines())
