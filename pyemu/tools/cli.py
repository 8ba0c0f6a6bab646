"""The command-line tool: `python -m pyemu <command>`.

    examples     run every program under examples/ (the slides' programs)
    bench        pyemu against PoCL on the examples' kernels (see pyemu/tools/bench.py)
    info         the emulated device, as cudaGetDeviceProperties reports it
    terms        CUDA and OpenCL terms side by side (see pyemu/tools/terms.py)
    conformance  the OpenCL C corpus on pyemu and on PoCL (see pyemu/tools/conformance/runner.py)
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _example_files(dialects):
    files = []
    for d in dialects:
        folder = ROOT / "examples" / d
        if folder.is_dir():
            files += sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    return files


def run_examples(argv) -> int:
    """Run each example in its own process; print one line per program."""
    parser = argparse.ArgumentParser(prog="python -m pyemu examples")
    parser.add_argument("names", nargs="*", help="only these examples (file stems)")
    parser.add_argument("--dialect", action="append", choices=["cuda", "opencl"],
                        help="cuda, opencl or both (default: all there are)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no program output")
    args = parser.parse_args(argv)
    files = _example_files(args.dialect or ["cuda", "opencl"])
    if args.names:
        files = [f for f in files if f.stem in args.names]
    if not files:
        print("no examples found", file=sys.stderr)
        return 1
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    failed = []
    for f in files:
        name = f"{f.parent.name}/{f.name}"
        print(f"==> {name}", flush=True)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, str(f)], env=env, capture_output=args.quiet,
                              text=True)
        dt = time.perf_counter() - t0
        status = "ok" if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"
        if proc.returncode:
            failed.append(name)
            if args.quiet:
                sys.stdout.write(proc.stdout or "")
                sys.stderr.write(proc.stderr or "")
        print(f"<== {name}: {status} in {dt:.1f} s\n", flush=True)
    print(f"{len(files) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def info(argv) -> int:
    """Print the emulated device's properties."""
    from ..cuda import cudaGetDeviceProperties, cudaRuntimeGetVersion
    p = cudaGetDeviceProperties(0)
    print(f"Device 0: {p.name}")
    print(f"  compute capability     {p.major}.{p.minor}")
    print(f"  multiprocessors        {p.multiProcessorCount} (worker threads)")
    print(f"  global memory          {p.totalGlobalMem / 2**30:.1f} GiB")
    print(f"  shared memory / block  {p.sharedMemPerBlock} bytes")
    print(f"  max threads / block    {p.maxThreadsPerBlock}")
    print(f"  max block dims         {p.maxThreadsDim}")
    print(f"  max grid dims          {p.maxGridSize}")
    print(f"  warp size              {p.warpSize}")
    v = cudaRuntimeGetVersion()
    print(f"  CUDA runtime version   {v // 1000}.{v % 1000 // 10}")
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"examples": run_examples, "info": info}
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "bench":
        from . import bench
        return bench.main(rest)
    if cmd == "terms":
        from . import terms
        return terms.main(rest)
    if cmd == "conformance":
        from .conformance import runner as conformance
        return conformance.main(rest)
    if cmd not in commands:
        print(f"unknown command {cmd!r}\n\n{__doc__.strip()}", file=sys.stderr)
        return 2
    return commands[cmd](rest)
