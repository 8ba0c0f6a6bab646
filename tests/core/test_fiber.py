"""The hand-written context switch (csrc/fiber.c), on x86-64 natively and on
aarch64 under qemu-user (the test command installs the cross compiler)."""
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent
REPO = HERE.parent.parent
CHECK = HERE / "fiber" / "switch_check.c"


def _build_and_run(tmp_path, cc, runner=()):
    exe = tmp_path / "switch_check"
    static = ["-static"] if runner else []    # qemu-user runs it without an aarch64 libc
    subprocess.run([cc, "-O2", *static, f"-I{REPO / 'include'}",
                    str(CHECK), str(REPO / "csrc" / "fiber.c"), "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    r = subprocess.run([*runner, str(exe)], capture_output=True, text=True, timeout=120)
    return r


def test_ctx_switch_native_keeps_registers(tmp_path):
    r = _build_and_run(tmp_path, "gcc")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "switch ok"


@pytest.mark.skipif(platform.machine() == "aarch64", reason="the native test covers it")
def test_ctx_switch_aarch64_under_qemu_keeps_registers(tmp_path):
    cc, qemu = shutil.which("aarch64-linux-gnu-gcc"), shutil.which("qemu-aarch64")
    assert cc and qemu, "the test command installs gcc-aarch64-linux-gnu and qemu-user"
    r = _build_and_run(tmp_path, cc, [qemu])
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "switch ok"
