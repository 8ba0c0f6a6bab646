"""Warp collectives against an H100 (issue 13): tests/data/ground_truth/
warp_kernels.cu ran on the GPU through warp_probe.cu (nvcc 13.0, sm_90), and
warp_h100.json keeps what it wrote; pyemu runs the same kernels and must
write the same ints (floats compared as bits).  Covered: the four shuffles
with width 8/16/32 and lane operands 1, 3, 17, 40, -1 (the GPU uses the low
5 bits), a 48-thread block (source lanes past its end read 0), doubles,
votes, __match_any/all_sync on mixed values, __reduce_*_sync, __activemask,
__fns, half-warp masks in a branch, cg::reduce/inclusive_scan/exclusive_scan
and tile shuffles/ballots over tiles of 4/8/16/32.  -fmad=false: the kernels'
float inputs are then rounded as nvcc rounded them."""
import json
from pathlib import Path

import numpy as np
import pytest

from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemset)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

HERE = Path(__file__).resolve().parents[1] / "data" / "ground_truth"
GT = json.loads((HERE / "warp_h100.json").read_text())["cases"]


@pytest.fixture(scope="module")
def mod():
    return SourceModule((HERE / "warp_kernels.cu").read_text(), options=["-fmad=false"])


def _check(mod, case, kernel, n, rows, *args):
    d = cudaMalloc(64 * 32 * 4)
    cudaMemset(d, 0, 64 * 32 * 4)
    getattr(mod, kernel)[1, n](d, *args)
    cudaDeviceSynchronize()
    out = np.empty(rows * n, np.int32)
    cudaMemcpy(out, d, out.nbytes, cudaMemcpyDeviceToHost)
    want = np.array(GT[case]["out"], np.int32)
    assert GT[case]["err"] == 0
    bad = np.nonzero(out != want)[0]
    assert len(bad) == 0, (f"{case}: {len(bad)} differ, first at {bad[:6]}: pyemu "
                           f"{out[bad[:6]]}, H100 {want[bad[:6]]}")


@pytest.mark.parametrize("n", [64, 48])
@pytest.mark.parametrize("width", [32, 16, 8])
@pytest.mark.parametrize("arg", [1, 3, 17, 40, -1])
def test_shuffles_match_the_h100(mod, n, width, arg):
    _check(mod, f"shfl_n{n}_w{width}_a{arg}", "gt_shfl", n, 4, np.int32(arg), np.int32(width))


@pytest.mark.parametrize("n", [64, 48])
@pytest.mark.parametrize("case,kernel,rows", [
    ("shfl_double", "gt_shfl_double", 4), ("votes", "gt_votes", 16), ("half", "gt_half", 2),
    ("tile4", "gt_tile4", 12), ("tile8", "gt_tile8", 12), ("tile16", "gt_tile16", 12),
    ("tile32", "gt_tile32", 12)])
def test_votes_match_reduce_tiles_match_the_h100(mod, n, case, kernel, rows):
    args = (np.int32(3),) if kernel == "gt_shfl_double" else ()
    _check(mod, f"{case}_n{n}", kernel, n, rows, *args)
