"""Uniform loop exits: a break or continue in a loop that holds barriers.

Rodinia's hotspot and pathfinder leave their barrier loop with
`if (i == iteration - 1) break;` (i the loop counter, iteration a kernel
argument): every thread of the block breaks together.  A break or continue
whose enclosing ifs (up to its loop) all have conditions uniform.py proves
uniform is a uniform loop exit: the block function's skeleton leaves the
loop (or goes to its next iteration) with the whole block, and the fiber
variant has soft barriers around those ifs, where the block function starts
regions.  One under a condition not proven uniform keeps the fiber path,
with its reason.  Results against NumPy on both paths (block function, and
forced onto fibers)."""
import subprocess
import sys

import numpy as np
import pytest

from regions_util import blocks, managed, path_of, paths_module  # noqa: F401
from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import cudaDeviceSynchronize

BS = 64
SRC = r"""
#define BS 64
// hotspot / pathfinder: the break after a barrier
__global__ void hot(int iteration, const int *src, int *dst) {
    __shared__ int prev[BS];
    __shared__ int res[BS];
    int tx = threadIdx.x;
    prev[tx] = src[blockIdx.x * BS + tx];
    __syncthreads();
    for (int i = 0; i < iteration; i++) {
        res[tx] = prev[tx] + prev[(tx + 1) % BS];
        __syncthreads();
        if (i == iteration - 1)
            break;
        prev[tx] = res[tx];
        __syncthreads();
    }
    dst[blockIdx.x * BS + tx] = res[tx];
}

// the break before the barriers
__global__ void before(int n, int *out) {
    __shared__ int s[BS];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int i = 0; i < 10; i++) {
        if (i == n) break;
        int v = s[(t + 1) % BS];
        __syncthreads();
        s[t] = v + i;
        __syncthreads();
    }
    out[blockIdx.x * BS + t] = s[t];
}

// continue between two barriers
__global__ void cont(int n, int *out) {
    __shared__ int s[BS];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int i = 0; i < n; i++) {
        int v = s[(t + 1) % BS];
        __syncthreads();
        if (i % 3 == 1)
            continue;
        s[t] = v + i;
        __syncthreads();
    }
    out[blockIdx.x * BS + t] = s[t];
}

// while (true), counter in the body
__global__ void whl(int n, int *out) {
    __shared__ int s[BS];
    int t = threadIdx.x;
    int i = 0;
    s[t] = t;
    __syncthreads();
    while (true) {
        int v = s[(t + 1) % BS];
        __syncthreads();
        s[t] = v + 1;
        __syncthreads();
        i++;
        if (i >= n) break;
    }
    out[blockIdx.x * BS + t] = s[t];
}

// do loop: a continue (to the condition) and a break
__global__ void dow(int n, int *out) {
    __shared__ int s[BS];
    int t = threadIdx.x;
    int i = 0;
    s[t] = t;
    __syncthreads();
    do {
        i++;
        if (i == 2) continue;
        int v = s[(t + 1) % BS];
        __syncthreads();
        s[t] = v + i;
        __syncthreads();
        if (i > n) break;
    } while (i < 6);
    out[blockIdx.x * BS + t] = s[t];
}

// nested loops, the break in the inner one only
__global__ void inner(int n, int *out) {
    __shared__ int s[BS];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int o = 0; o < 3; o++) {
        for (int j = 0; j < 5; j++) {
            int v = s[(t + 1) % BS];
            __syncthreads();
            s[t] = v + o * 10 + j;
            __syncthreads();
            if (j == o + n) break;
        }
        s[t] += 1;
        __syncthreads();
    }
    out[blockIdx.x * BS + t] = s[t];
}

// a for without a condition, left after its inner loop; a nested uniform if
__global__ void outer(int n, int *out) {
    __shared__ int s[BS];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int o = 0; ; o++) {
        for (int j = 0; j < 2; j++) {
            int v = s[(t + 1) % BS];
            __syncthreads();
            s[t] = v + j + o;
            __syncthreads();
        }
        if (o >= 1) {
            if (o == n || o > 6) break;
        }
    }
    out[blockIdx.x * BS + t] = s[t];
}

// the break in a branch with an else, after a store
__global__ void branch(int n, int *out) {
    __shared__ int s[BS];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int i = 0; i < 8; i++) {
        int v = s[(t + 1) % BS];
        __syncthreads();
        if (i == n) {
            s[t] = v * 2;
            break;
        } else {
            s[t] = v + 1;
        }
        __syncthreads();
    }
    __syncthreads();
    out[blockIdx.x * BS + t] = s[t];
}

// a race CUDA leaves open: the reads after the if see the neighbours' stores
// before it, since both paths start a region at the if (the fiber variant
// with a soft barrier), as a block function runs it
__global__ void racy(int n, int *out) {
    __shared__ int s[BS];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    int acc = 0;
    for (int i = 0; i < 4; i++) {
        s[t] = s[t] + 1;
        if (i == n) break;
        acc += s[(t + 1) % BS] + 100 * s[(t + BS - 1) % BS];
        __syncthreads();
    }
    out[blockIdx.x * BS + t] = acc;
}

// not provably uniform (a shared value: the same in every thread here, but
// uniform.py cannot tell): fibers
__global__ void shared_cond(int n, int *out) {
    __shared__ int s[BS];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int i = 0; i < 10; i++) {
        int v = s[(t + 1) % BS];
        __syncthreads();
        s[t] = v + i;
        __syncthreads();
        if (s[0] > n) break;
    }
    out[blockIdx.x * BS + t] = s[t];
}

// a uniform if around a per-thread one (true for every thread here): fibers
__global__ void mixed(int n, int *out) {
    __shared__ int s[BS];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int i = 0; i < 10; i++) {
        int v = s[(t + 1) % BS];
        __syncthreads();
        s[t] = v + i;
        __syncthreads();
        if (i == n) {
            if (t < BS) continue;
        }
        s[t] += 1;
    }
    out[blockIdx.x * BS + t] = s[t];
}
"""

UNIFORM = ("hot", "before", "cont", "whl", "dow", "inner", "outer", "branch", "racy")
NOT_UNIFORM = ("shared_cond", "mixed")

mod = paths_module(SRC)
roll = lambda s: np.roll(s, -1)      # s[(t + 1) % BS]


def ref_hot(it, h):
    prev = h.copy()
    res = None
    for i in range(it):
        res = prev + roll(prev)
        if i == it - 1:
            break
        prev = res
    return res


def ref(name, n):
    s = np.arange(BS, dtype=np.int64)
    if name == "before":
        for i in range(min(n, 10) if n >= 0 else 10):
            s = roll(s) + i
    elif name == "cont":
        for i in range(n):
            v = roll(s)
            if i % 3 == 1:
                continue
            s = v + i
    elif name == "whl":
        i = 0
        while True:
            s = roll(s) + 1
            i += 1
            if i >= n:
                break
    elif name == "dow":
        i = 0
        while True:
            i += 1
            if i != 2:
                s = roll(s) + i
                if i > n:
                    break
            if not i < 6:
                break
    elif name == "inner":
        for o in range(3):
            for j in range(5):
                s = roll(s) + o * 10 + j
                if j == o + n:
                    break
            s = s + 1
    elif name == "outer":
        o = 0
        while True:
            for j in range(2):
                s = roll(s) + j + o
            if o >= 1 and (o == n or o > 6):
                break
            o += 1
    elif name == "branch":
        for i in range(8):
            v = roll(s)
            if i == n:
                s = v * 2
                break
            s = v + 1
    elif name == "racy":
        acc = np.zeros(BS, np.int64)
        for i in range(4):
            s = s + 1
            if i == n:
                break
            acc = acc + roll(s) + 100 * np.roll(s, 1)
        s = acc
    elif name == "shared_cond":
        for i in range(10):
            s = roll(s) + i
            if s[0] > n:
                break
    elif name == "mixed":
        for i in range(10):
            s = roll(s) + i
            if i == n:
                continue
            s = s + 1
    return s


def test_paths(monkeypatch):
    monkeypatch.delenv(_regions.FORCE_ENV, raising=False)   # the paths the pass gives
    b = blocks(SRC, implicit=True)
    for name in UNIFORM:
        assert b.paths[name] == ("block function", ""), (name, b.paths[name])
    for name in NOT_UNIFORM:
        path, why = b.paths[name]
        assert path == "fiber variant", (name, path)
        assert "break or continue in a loop that holds a barrier" in why, why


def test_hot(mod, managed):
    nb = 3
    h = np.random.RandomState(1).randint(0, 10, nb * BS).astype(np.int32)
    for it in (1, 2, 7):
        src, dst = managed(h), managed(np.zeros_like(h))
        mod.get_function("hot")(np.int32(it), src, dst, grid=(nb, 1, 1), block=(BS, 1, 1))
        cudaDeviceSynchronize()
        want = np.concatenate([ref_hot(it, h[b * BS:(b + 1) * BS]) for b in range(nb)])
        np.testing.assert_array_equal(dst[:h.size], want)


@pytest.mark.parametrize("name", UNIFORM[1:] + NOT_UNIFORM)
@pytest.mark.parametrize("n", [0, 1, 2, 4, 20])
def test_shapes(mod, managed, name, n):
    nb = 2
    out = managed(np.full(nb * BS, -1, np.int32))
    mod.get_function(name)(np.int32(n), out, grid=(nb, 1, 1), block=(BS, 1, 1))
    cudaDeviceSynchronize()
    want = np.tile(ref(name, n), nb)
    np.testing.assert_array_equal(out[:nb * BS], want, err_msg=f"{name} n={n}")


CL = r"""
#define BS 64
__kernel void path(int iteration, __global const int *src, __global int *dst) {
    __local int prev[BS];
    __local int res[BS];
    int tx = get_local_id(0);
    prev[tx] = src[get_group_id(0) * BS + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < iteration; i++) {
        res[tx] = prev[tx] + prev[(tx + 1) % BS];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i == iteration - 1)
            break;
        prev[tx] = res[tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    dst[get_global_id(0)] = res[tx];
}
__kernel void racy(int iteration, __global int *dst) {
    __local int s[BS];
    int tx = get_local_id(0);
    s[tx] = tx;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < iteration; i++) {
        s[tx] += 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tx == 0 && i == 1)
            break;
    }
    dst[get_global_id(0)] = s[tx];
}
"""


def test_opencl_paths(monkeypatch):
    """OpenCL's pathfinder shape: a block function; a break under a
    per-work-item condition: the fiber variant, with its reason."""
    monkeypatch.delenv(_regions.FORCE_ENV, raising=False)   # the paths the pass gives
    from pyemu.compiler import driver as compiler
    from pyemu.compiler.opencl import KERNEL_MARKER
    text, functions, root = compiler.unit_of(CL, "opencl")
    b = _regions.generate(text, KERNEL_MARKER, root, implicit=True, functions=functions)
    assert b.paths["path"] == ("block function", ""), b.paths["path"]
    assert b.paths["racy"][0] == "fiber variant"
    assert "break or continue in a loop that holds a barrier" in b.paths["racy"][1]


def test_info_kernel(tmp_path, monkeypatch):
    """`python -m pyemu info --kernel FILE` names each kernel's path."""
    monkeypatch.delenv(_regions.FORCE_ENV, raising=False)
    f = tmp_path / "k.cu"
    f.write_text(SRC)
    r = subprocess.run([sys.executable, "-m", "pyemu", "info", "--kernel", str(f)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = {ln.split(":")[0].strip(): ln for ln in r.stdout.splitlines() if ":" in ln}
    for name in UNIFORM:
        assert lines[name].split(":", 1)[1].strip() == "block function", lines[name]
    for name in NOT_UNIFORM:
        assert "fiber variant" in lines[name], lines[name]
