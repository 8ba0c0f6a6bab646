"""A module whose kernels are all templates, built without name expressions
(nvrtcCreateProgram without nvrtcAddNameExpression; `python -m pyemu info
--kernel FILE`): it builds, with no kernels, and its log says why."""
import numpy as np

from pyemu.compiler import driver
from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice)
from pyemu.tools import info

SRC = """
template <class T, int N> __global__ void k(T *p)
{
    __shared__ T s[N];
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[N - 1 - threadIdx.x];
}
"""


def test_static_shared_template_without_instances_builds():
    m = driver.compile_source(SRC, source_name="t.cu")
    assert m.kernel_names == ()
    assert "t.cu:2: note: kernel template 'k' has no instances" in m.log


def test_with_an_instance_it_runs_and_has_no_note():
    m = SourceModule(SRC, name_expressions=["k<int, 64>"])
    assert m.kernel_names == ("k<int, 64>",)
    a = np.arange(64, dtype=np.int32)
    d = cudaMalloc(a.nbytes)
    cudaMemcpy(d, a, a.nbytes, cudaMemcpyHostToDevice)
    m.get_function("k<int, 64>")[1, 64](d)
    cudaDeviceSynchronize()
    out = np.empty_like(a)
    cudaMemcpy(out, d, a.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d)
    np.testing.assert_array_equal(out, a[::-1])
    assert "no instances" not in driver.compile_source(SRC, name_expressions=["k<int, 64>"]).log


def test_info_kernel_says_the_template_has_no_instances(tmp_path, capsys):
    f = tmp_path / "only_template.cu"
    f.write_text(SRC)
    assert info.print_kernel_paths(str(f)) == 0
    out = capsys.readouterr().out
    assert "no kernels" in out
    assert "kernel template 'k' has no instances" in out
