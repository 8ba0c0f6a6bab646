"""Occupancy API and cudaLaunchCooperativeKernel (pyemu/cuda/cooperative.py)."""
import numpy as np
import pytest

from pyemu.cuda import (CudaError, SourceModule, cudaDeviceSynchronize, cudaErrorCooperativeLaunchTooLarge,
                        cudaErrorInvalidResourceHandle, cudaErrorInvalidValue, cudaFree,
                        cudaGetDeviceProperties, cudaGetLastError, cudaLaunchCooperativeKernel,
                        cudaMalloc, cudaMemcpy, cudaMemcpyDeviceToHost,
                        cudaOccupancyMaxActiveBlocksPerMultiprocessor,
                        cudaOccupancyMaxPotentialBlockSize, cudaErrorInvalidDeviceFunction)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")


@pytest.fixture(scope="module")
def mod():
    return SourceModule(r"""
__global__ void fill(int *o) { o[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x; }
__global__ void __launch_bounds__(128) small(int *o) { o[threadIdx.x] = 1; }
""")


@pytest.mark.parametrize("block,smem,want", [
    (32, 0, 32), (64, 0, 32), (128, 0, 16), (256, 0, 8), (1024, 0, 2), (33, 0, 32), (96, 0, 21),
    (256, 48 * 1024, 4), (32, 100 * 1024, 0)])
def test_cudaOccupancyMaxActiveBlocksPerMultiprocessor(mod, block, smem, want):
    assert cudaOccupancyMaxActiveBlocksPerMultiprocessor(mod.fill, block, smem) == want


def test_occupancy_respects_launch_bounds(mod):
    assert cudaOccupancyMaxActiveBlocksPerMultiprocessor(mod.small, 256, 0) == 0
    assert cudaOccupancyMaxActiveBlocksPerMultiprocessor(mod.small, 128, 0) == 16


def test_cudaOccupancyMaxPotentialBlockSize(mod):
    sms = cudaGetDeviceProperties(0).multiProcessorCount
    min_grid, block = cudaOccupancyMaxPotentialBlockSize(mod.fill)
    assert block == 1024 and min_grid == 2 * sms
    min_grid, block = cudaOccupancyMaxPotentialBlockSize(mod.small)
    assert block == 128 and min_grid == 16 * sms
    min_grid, block = cudaOccupancyMaxPotentialBlockSize(mod.fill, 0, 100)
    assert block == 64 and min_grid == 32 * sms   # 64 x 32 = 2048 resident beats 96 x 21


def test_occupancy_bad_arguments(mod):
    for args in ((mod.fill, 0, 0), (mod.fill, 32, -1), (mod.fill, 1.5, 0)):
        with pytest.raises(CudaError) as e:
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(*args)
        assert e.value.code == cudaErrorInvalidValue
    with pytest.raises(CudaError) as e:
        cudaOccupancyMaxPotentialBlockSize(None)
    assert e.value.code == cudaErrorInvalidDeviceFunction
    with pytest.raises(CudaError) as e:
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(print, 32, 0)
    assert e.value.code == cudaErrorInvalidResourceHandle
    cudaGetLastError()


def test_cudaLaunchCooperativeKernel_runs_a_grid_that_fits(mod):
    sms = cudaGetDeviceProperties(0).multiProcessorCount
    grid = 2 * sms
    o = cudaMalloc(4 * grid * 1024)
    cudaLaunchCooperativeKernel(mod.fill, grid, 1024, [o])
    cudaDeviceSynchronize()
    h = np.empty(grid * 1024, np.int32)
    cudaMemcpy(h, o, h.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(o)
    assert np.array_equal(h, np.repeat(np.arange(grid), 1024))


def test_cudaLaunchCooperativeKernel_too_large(mod):
    sms = cudaGetDeviceProperties(0).multiProcessorCount
    with pytest.raises(CudaError) as e:
        cudaLaunchCooperativeKernel(mod.fill, 2 * sms + 1, 1024, [0])
    assert e.value.code == cudaErrorCooperativeLaunchTooLarge == 720
    assert cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge


def test_cudaDevAttrCooperativeLaunch_is_1_as_on_an_h100():
    # tests/data/ground_truth/grid_probe_h100.txt: attr95 1, attr96 1, prop.cooperativeLaunch 1
    from pyemu.cuda import (cudaDevAttrCooperativeLaunch, cudaDevAttrCooperativeMultiDeviceLaunch,
                            cudaDeviceGetAttribute)
    assert int(cudaDevAttrCooperativeLaunch) == 95
    assert int(cudaDevAttrCooperativeMultiDeviceLaunch) == 96
    assert cudaDeviceGetAttribute(cudaDevAttrCooperativeLaunch, 0) == 1
    assert cudaDeviceGetAttribute(cudaDevAttrCooperativeMultiDeviceLaunch, 0) == 1
    assert cudaGetDeviceProperties(0).cooperativeLaunch == 1
