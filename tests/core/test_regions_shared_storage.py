"""Issue 13: `T y = f(a);` of an inlined function that returns one of its
variables (regions/inline.py writes its body, then `T y = (pyemu_il<n>_v);`)
gives y the per-thread copies of that variable when both cross a barrier
with the same type (gen.py's shared_storage): the callee's variable is dead
after the call, so y's initialization is a copy of each value onto itself.

Checked against NumPy on the block function and on the fibers: a value
used after further barriers and modified, two calls in a row (the second's
argument the first's result), and the cases that keep their own copies (a
different type, a copy of the kernel's own variable, which it reads
afterwards); the generated text shows where the copies are shared."""
import re

import numpy as np
import pytest

from regions_util import paths_module, preprocessed
from test_regions_warp_fast import _launch
from test_regions_warp_inplace import _input
from pyemu.compiler.regions import blocks as _regions

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
__device__ int f(int v) {
  __syncthreads();
  v = v * 3 + (int)threadIdx.x;
  __syncthreads();
  return v;
}
__global__ void shared(int *o, const int *in) {
  int t = threadIdx.x, n = blockDim.x;
  int a = in[t];
  int b = f(a);
  __syncthreads();
  o[t] = b + a;
  b += 1;
  __syncthreads();
  int c = f(b);
  __syncthreads();
  o[n + t] = b - c;
}
__global__ void own(int *o, const int *in) {
  int t = threadIdx.x, n = blockDim.x;
  int a = in[t];
  long b = f(a);
  int c = a;
  __syncthreads();
  c += 2;
  o[t] = (int)b + c;
  o[n + t] = a;
}
"""

mod = paths_module(SRC)


def _f(v, t):
    return v * 3 + t


@pytest.mark.parametrize("n", [32, 64, 256])
def test_results_against_numpy(mod, n):
    want = "fiber variant" if mod.force == "1" else "block function"
    assert mod.compiled.paths["shared"][0] == want and mod.compiled.paths["own"][0] == want
    x = _input(n)
    t = np.arange(n, dtype=np.int32)
    (got,) = _launch(mod, "shared", [(2 * n, np.int32)], [x], (n, 1))
    b = _f(x, t)
    c = _f(b + 1, t)
    assert np.array_equal(got, np.concatenate([b + x, b + 1 - c]))
    (got,) = _launch(mod, "own", [(2 * n, np.int32)], [x], (n, 1))
    assert np.array_equal(got, np.concatenate([_f(x, t) + x + 2, x]))


def test_which_copies_are_shared():
    pre, root = preprocessed(SRC)
    text = _regions.generate(pre, "__pyemu_global__", root, implicit=True, warp=True).text
    shared = text[text.index("pyemu_rg_shared ("):text.index("pyemu_rg_own (")]
    own = text[text.index("pyemu_rg_own ("):]
    alias = r"pyemu_rg_t(\d+) \*const pyemu_rg_p\1 = pyemu_rg_p(\d+);"
    assert len(re.findall(alias, shared)) == 2         # b and c: each call's result
    assert not re.findall(alias, own)                  # long b = (int); c = the kernel's a
