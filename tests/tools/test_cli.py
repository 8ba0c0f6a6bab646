"""The command line behaves like a Python tool: argparse usage and help for
the top level and every command, exit status 2 for usage errors, --version,
no traceback when the reader of stdout goes away, and the commands' own
exit statuses (examples, bench --check, cache, info)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pyemu
from pyemu.tools import bench, cli

COMMANDS = ["examples", "bench", "info", "terms", "conformance", "cache"]


def _env():
    """Children import the same pyemu as this test process."""
    env = dict(os.environ)
    pkg_parent = str(Path(list(pyemu.__path__)[0]).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [pkg_parent, env.get("PYTHONPATH")]))
    return env


def _pyemu(*args, tmp_path, timeout=120):
    return subprocess.run([sys.executable, "-m", "pyemu", *args], capture_output=True,
                          text=True, timeout=timeout, env=_env(), cwd=str(tmp_path))


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_top_level_help(flag, capsys):
    assert cli.main([flag]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m pyemu ")
    assert "Run CUDA and OpenCL programs on the CPU" in out
    for command in COMMANDS:
        assert f"    {command}" in out, command


def test_usage_names_the_installed_script(capsys, monkeypatch):
    # run as the `pyemu` console script, the usage line says `pyemu`, not `python -m pyemu`
    monkeypatch.setattr(sys, "argv", ["/usr/local/bin/pyemu", "--help"])
    assert cli.main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: pyemu ")


def test_no_command_is_a_usage_error(capsys):
    assert cli.main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("usage: python -m pyemu ")
    assert "required" in captured.err


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"pyemu {pyemu.__version__}"


def test_version_matches_the_metadata():
    from importlib.metadata import version
    assert pyemu.__version__ == version("pyemu")


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command, capsys):
    assert cli.main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: python -m pyemu {command}"), out[:200]
    assert "-h, --help" in out


@pytest.mark.parametrize("argv", [["info", "--bogus"], ["cache", "--bogus"],
                                  ["examples", "--bogus"], ["bench", "--bogus"],
                                  ["terms", "--bogus"], ["conformance", "--bogus"],
                                  ["--bogus"], ["nosuchcommand"]])
def test_unknown_option_or_command_exits_2(argv, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "usage:" in err and "error:" in err


def test_unknown_option_names_the_command(capsys):
    assert cli.main(["info", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m pyemu info")
    assert "unrecognized arguments: --bogus" in err


def test_process_exit_statuses(tmp_path):
    assert _pyemu(tmp_path=tmp_path).returncode == 2
    assert _pyemu("info", "--bogus", tmp_path=tmp_path).returncode == 2
    proc = _pyemu("--version", tmp_path=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == f"pyemu {pyemu.__version__}"


def test_closed_pipe_is_not_a_traceback(tmp_path):
    """`python -m pyemu -h | head -1`: the reader goes away before we write."""
    r, w = os.pipe()
    os.close(r)                           # nobody will ever read: every write fails
    try:
        proc = subprocess.run([sys.executable, "-m", "pyemu", "-h"], stdout=w,
                              stderr=subprocess.PIPE, text=True, timeout=60, env=_env(),
                              cwd=str(tmp_path))
    finally:
        os.close(w)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "BrokenPipeError" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.returncode


def test_head_of_help_through_a_real_pipe(tmp_path):
    proc = subprocess.run(f"'{sys.executable}' -m pyemu -h | head -3", shell=True,
                          capture_output=True, text=True, timeout=60, env=_env(),
                          cwd=str(tmp_path))
    assert proc.stdout.startswith("usage: python -m pyemu")
    assert "Traceback" not in proc.stderr, proc.stderr


# --- examples ---------------------------------------------------------------

def test_examples_unknown_name_lists_the_valid_ones(capsys):
    assert cli.main(["examples", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "nosuch" in err and "vector_add" in err and "matmul_tiled" in err


def test_examples_list_shows_both_folders(capsys):
    assert cli.main(["examples", "--list"]) == 0
    out = capsys.readouterr().out.split()
    assert "cuda/vector_add" in out and "opencl/vector_add" in out


def test_examples_dir_runs_another_folder(tmp_path, capfd):
    (tmp_path / "good.py").write_text("print('fine')\n")
    (tmp_path / "bad.py").write_text("import sys\nprint('broken', file=sys.stderr)\n"
                                     "sys.exit(3)\n")
    (tmp_path / "_helper.py").write_text("raise SystemExit(9)\n")
    assert cli.main(["examples", "--dir", str(tmp_path), "good"]) == 0
    assert "1 passed, 0 failed" in capfd.readouterr().out
    assert cli.main(["examples", "--dir", str(tmp_path)]) == 1
    out = capfd.readouterr().out
    assert "bad: FAILED (exit 3)" in out and "1 passed, 1 failed: bad" in out


def test_examples_dir_that_does_not_exist(tmp_path, capsys):
    assert cli.main(["examples", "--dir", str(tmp_path / "nope")]) == 2
    assert "no such directory" in capsys.readouterr().err


def test_examples_run_the_package_in_use_from_anywhere(tmp_path):
    proc = _pyemu("examples", "--dialect", "cuda", "vector_add", tmp_path=tmp_path,
                  timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Test PASSED" in proc.stdout and "1 passed, 0 failed" in proc.stdout


# --- info -------------------------------------------------------------------

def test_info_prints_the_installation(capsys):
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"pyemu {pyemu.__version__}\n")
    line = next(l for l in out.splitlines() if "include root" in l)
    root = Path(line.split()[-1])
    assert (root / "pyemu" / "abi.h").is_file(), line
    from pyemu.compiler.driver import _include_root
    from pyemu.runtime.config import cache_dir
    assert root == _include_root()
    assert f"kernel cache" in out and str(cache_dir()) in out
    for label in ("C++ compiler", "NumPy", "Python", "PyOpenCL", "PoCL", "Device 0:",
                  "warp size"):
        assert label in out, label


def test_info_reports_a_missing_compiler(monkeypatch, capsys):
    monkeypatch.setenv("PYEMU_CXX", "/nonexistent/g++")
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    line = next(l for l in out.splitlines() if l.strip().startswith("version"))
    assert "not usable" in line


# --- bench --check ------------------------------------------------------------

def _fake_bench(monkeypatch, seconds):
    """bench without running anything: one pyemu-only row taking `seconds`."""
    def run_case(name, env, quick=False, repeat=None):
        return bench.Result(name, "vector_add.cu", bench.Side(bench.OK, seconds),
                            bench.Side(bench.NA), target_seconds=bench.MODULE_CACHE_TARGET_S,
                            target_text="< 50 ms", quick=quick)
    monkeypatch.setattr(bench, "open_backends", lambda **kw: bench.Environment())
    monkeypatch.setattr(bench, "machine_line", lambda env=None: "test machine")
    monkeypatch.setattr(bench, "run_case", run_case)


def test_bench_check_fails_on_a_missed_target(monkeypatch, capsys):
    _fake_bench(monkeypatch, seconds=1.0)          # 1 s a cached load: target missed
    assert bench.main(["--only", "module_cache", "--check"]) == 1
    assert "target missed: module_cache (pyemu)" in capsys.readouterr().out
    assert cli.main(["bench", "--only", "module_cache", "--check"]) == 1


def test_bench_without_check_reports_a_miss_and_exits_0(monkeypatch, capsys):
    _fake_bench(monkeypatch, seconds=1.0)
    assert bench.main(["--only", "module_cache"]) == 0
    out = capsys.readouterr().out
    assert "target missed: module_cache (pyemu)" in out and "without --check" in out


def test_bench_check_passes_when_targets_are_met(monkeypatch, capsys):
    _fake_bench(monkeypatch, seconds=1e-6)
    assert bench.main(["--only", "module_cache", "--check"]) == 0
    out = capsys.readouterr().out
    assert "target missed" not in out
    assert "[1/1] module_cache: pyemu" in out            # the progress line, stdout not a tty


# --- cache ------------------------------------------------------------------

def test_cache_info_and_clear(tmp_path, monkeypatch, capsys):
    from pyemu.compiler import cache
    assert callable(cache.cache_info) and callable(cache.cache_clear)
    monkeypatch.setenv("PYEMU_CACHE_DIR", str(tmp_path / "kc"))
    from pyemu.cuda import SourceModule
    SourceModule("__global__ void cli_cache_probe(int *p) { p[threadIdx.x] = 7; }")
    assert cli.main(["cache", "--info"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "kc") in out
    entries = int(next(l for l in out.splitlines() if "entries" in l).split()[-1])
    assert entries >= 1
    assert cli.main(["cache"]) == 0                 # --info is the default
    assert "entries" in capsys.readouterr().out
    assert cli.main(["cache", "--clear"]) == 0
    assert f"removed {entries} cached kernel" in capsys.readouterr().out
    assert cache.cache_info()["entries"] == 0
    assert cli.main(["cache", "--info", "--clear"]) == 2


# --- conformance ----------------------------------------------------------------

def test_conformance_quick_is_the_quick_subset(capsys):
    from pyemu.tools.conformance import runner
    assert cli.main(["conformance", "--quick", "--list"]) == 0
    listed = capsys.readouterr().out.split()
    assert listed and set(listed) == set(runner.load_corpus().QUICK)


def test_conformance_prints_a_line_per_case(capsys):
    assert cli.main(["conformance", "--case", "vector_add", "--case", "saxpy"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("[1/2] ") and out[1].startswith("[2/2] ")
    assert any("vector_add: pass" in l for l in out[:2])
    assert "2 passed, 0 failed" in out


def test_conformance_markdown_keeps_progress_off_stdout(capsys):
    assert cli.main(["conformance", "--case", "vector_add", "--markdown"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("| case |")
    assert "[1/1] vector_add: pass" in captured.err


def test_shipped_examples_are_the_repository_ones():
    """The examples the package runs are copies of examples/ (the source of
    truth): an installed package built from this tree has the same files."""
    from pyemu.tools import examples
    repo = Path(__file__).resolve().parents[2] / "examples"
    shipped = examples.shipped_examples_dir()
    assert shipped is not None
    for program in sorted(repo.glob("*/*.py")):
        copy = shipped / program.relative_to(repo)
        assert copy.is_file(), copy
        assert copy.read_bytes() == program.read_bytes(), f"{copy} differs from {program}"


def test_info_kernel_prints_each_kernels_path(tmp_path, capsys):
    src = tmp_path / "k.cu"
    src.write_text("__global__ void tiled(float *o) { __shared__ float t[32];"
                   " t[threadIdx.x] = o[threadIdx.x]; __syncthreads();"
                   " o[threadIdx.x] = t[31 - threadIdx.x]; }\n"
                   "#ifdef WITH_WARP\n"
                   "__global__ void warp(int *o) { o[threadIdx.x] = __shfl_down_sync(~0u, 1, 1); }\n"
                   "#endif\n")
    assert cli.main(["info", "--kernel", str(src)]) == 0
    assert capsys.readouterr().out.splitlines() == ["tiled: block function"]
    # the decision is per kernel: the shuffle is cut in warp's block function
    assert cli.main(["info", "--kernel", str(src), "--", "-DWITH_WARP"]) == 0
    assert capsys.readouterr().out.splitlines() == ["tiled: block function",
                                                   "warp: block function"]
    src.write_text(src.read_text() + "__global__ void cond(int *o) {"
                   " if (__any_sync(~0u, o[threadIdx.x])) o[0] = 1; }\n")
    assert cli.main(["info", "--kernel", str(src), "--", "-DWITH_WARP"]) == 0
    out = capsys.readouterr().out     # a collective in a condition is not cut
    assert "tiled: block function" in out and "warp: block function" in out
    assert "cond: fibers (it uses warp collectives" in out, out
    assert cli.main(["info", "--", "-DX=1"]) == 2    # options without --kernel: usage error


def test_info_kernel_finds_headers_beside_the_file(tmp_path, capsys, monkeypatch):
    # `#include "common.h"` beside the kernel file, as nvcc finds it, run from elsewhere
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "common.h").write_text("#define TILE 32\n")
    src = tmp_path / "src" / "k.cu"
    src.write_text('#include "common.h"\n__global__ void t(float *o) { __shared__ float s[TILE];'
                   " s[threadIdx.x] = o[threadIdx.x]; __syncthreads();"
                   " o[threadIdx.x] = s[TILE - 1 - threadIdx.x]; }\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["info", "--kernel", str(src)]) == 0
    assert capsys.readouterr().out.splitlines() == ["t: block function"]


def test_info_kernel_of_a_file_that_does_not_compile_prints_diagnostics_only(tmp_path, capsys):
    src = tmp_path / "bad.cu"
    src.write_text("__global__ void k(int *p) { p[0] = undeclared; }\n")
    assert cli.main(["info", "--kernel", str(src)]) == 1
    err = capsys.readouterr().err
    assert "bad.cu:1:" in err and "'undeclared' was not declared" in err
    assert "Traceback" not in err
    assert cli.main(["info", "--kernel", str(tmp_path / "missing.cu")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_info_kernel_builds_the_template_instances_it_is_given(tmp_path, capsys):
    src = tmp_path / "tk.cu"
    src.write_text("template <int N> __global__ void tk(int *o) {\n"
                   "    __shared__ int s[N]; s[threadIdx.x % N] = 1; __syncthreads();\n"
                   "    o[threadIdx.x] = s[0];\n}\n")
    assert cli.main(["info", "--kernel", str(src)]) == 0
    out = capsys.readouterr().out
    assert "no kernels" in out and "kernel template 'tk' has no instances" in out
    assert "--name-expression" in out
    assert cli.main(["info", "--kernel", str(src), "--name-expression", "tk<4>",
                     "--name-expression", "tk<8>"]) == 0
    assert capsys.readouterr().out.splitlines() == ["tk<4>: block function",
                                                    "tk<8>: block function"]
    assert cli.main(["info", "--kernel", str(src), "--name-expression", "tk<4>;"]) == 1
    assert "bad name expression 'tk<4>;'" in capsys.readouterr().err
    assert cli.main(["info", "--name-expression", "tk<4>"]) == 2   # without --kernel
