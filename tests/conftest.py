"""Fixtures shared by the runtime-API and executor tests.

ground_truth  what a real GPU answered (tests/data/ground_truth/cuda_h100.json):
              gt("launch_config", "block_1025", "chevron.get_last_error.code",
                 default=9) gives the measured value, or `default` (the value the
              CUDA documentation gives) where the file or the entry is missing.
cuda_clean_state
              (use with pytest.mark.usefixtures) clears the thread's last CUDA
              error before a test; after it, a sticky error fails that test
              and is cleared by cudaDeviceReset, so one faulting test cannot
              fail every test after it.
run_cuda      runs a Python snippet in a fresh interpreter that has done
              `from pyemu.cuda import *`, with a time limit, and returns its
              exit status, output and the dict R it filled (code_of(fn, ...)
              gives the cudaError_t a call raises, 0 if none): tests of kernels that
              fault, or of process-wide state, run there, so a crash or a hang
              is a failing test and never a dead or poisoned pytest.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GROUND_TRUTH = REPO / "tests" / "data" / "ground_truth" / "cuda_h100.json"

_MISSING = object()


class GroundTruth:
    def __init__(self, path: Path):
        self.path = path
        self.doc = json.loads(path.read_text()) if path.exists() else None

    def case(self, section: str, case: str):
        """The recorded case, or None."""
        if self.doc is None:
            return None
        for sec in self.doc["sections"]:
            if sec["section"] == section:
                for c in sec["cases"]:
                    if c.get("case") == case:
                        return c
        return None

    def __call__(self, section: str, case: str, path: str = "", default=_MISSING):
        node = self.case(section, case)
        for key in filter(None, path.split(".")):
            if not isinstance(node, dict) or key not in node:
                node = None
                break
            node = node[key]
        if node is None:
            if default is _MISSING:
                pytest.skip(f"no ground truth for {section}/{case}/{path}")
            return default
        return node


@pytest.fixture(scope="session")
def gt() -> GroundTruth:
    return GroundTruth(GROUND_TRUTH)


PRELUDE = """\
import json, os, sys, threading, time
import numpy as np
from pyemu.cuda import *
R = {}
def code_of(fn, *a, **k):
    '''The cudaError_t a call raises, as an int (0 if it returns).'''
    try:
        fn(*a, **k)
    except CudaError as e:
        return int(e.code)
    return 0
"""

EPILOGUE = """
print("\\nRESULT " + json.dumps(R, default=str))
"""


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    R: dict = field(default_factory=dict)

    def explain(self) -> str:
        return f"exit status {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"

    @property
    def out_before_result(self) -> str:
        return self.stdout.rsplit("\nRESULT ", 1)[0]


def _run_cuda(body: str, env: dict | None = None, timeout: float = 90,
              consts: dict | None = None) -> Run:
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + ([full_env["PYTHONPATH"]] if full_env.get("PYTHONPATH") else []))
    full_env.update(env or {})
    defs = "".join(f"{name} = {value!r}\n" for name, value in (consts or {}).items())
    code = PRELUDE + defs + textwrap.dedent(body) + EPILOGUE
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=timeout, env=full_env, cwd=str(REPO))
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the subprocess hung (killed after {timeout} s)\n--- stdout\n"
                    f"{exc.stdout}\n--- stderr\n{exc.stderr}")
    run = Run(proc.returncode, proc.stdout, proc.stderr)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("RESULT "):
            run.R = json.loads(line[len("RESULT "):])
            break
    return run


@pytest.fixture(scope="session")
def run_cuda():
    """run_cuda(body, env=None, timeout=90, consts=None) -> Run; asserts nothing itself.

    consts: names to define for the snippet ({"SOURCE": "..."} -> SOURCE = '...')."""
    return _run_cuda


@pytest.fixture
def cuda_clean_state():
    from pyemu.cuda import cudaDeviceReset, cudaGetLastError
    from pyemu.cuda import _errors
    cudaGetLastError()
    yield
    code, message = _errors.sticky()
    cudaGetLastError()
    if code:
        cudaDeviceReset()
        cudaGetLastError()
        pytest.fail(f"the test left the device with a sticky error ({code.name}): {message}",
                    pytrace=False)


@pytest.fixture
def runs(monkeypatch):
    """The commands the kernel compiler starts (g++ -E, precompiled headers,
    compiles), recorded as lists, in order."""
    from pyemu.compiler import driver
    calls = []
    real = driver._run

    def spy(cmd, *a, **kw):
        calls.append(list(cmd))
        return real(cmd, *a, **kw)
    monkeypatch.setattr(driver, "_run", spy)
    return calls
