"""Peer calls with pyemu's one device: the answers CUDA gives on a one-GPU
machine, and peer copies as device-to-device copies."""
import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403

pytestmark = pytest.mark.usefixtures("cuda_clean_state")


def raises_code(code, fn, *args):
    with pytest.raises(CudaError) as info:
        fn(*args)
    assert int(info.value.code) == int(code), str(info.value)


def test_peer_access_with_one_device():
    assert cudaDeviceCanAccessPeer(0, 0) == 0
    raises_code(cudaErrorInvalidDevice, cudaDeviceCanAccessPeer, 0, 1)
    raises_code(cudaErrorInvalidDevice, cudaDeviceEnablePeerAccess, 0, 0)
    raises_code(cudaErrorInvalidDevice, cudaDeviceEnablePeerAccess, 1, 0)
    raises_code(cudaErrorInvalidValue, cudaDeviceEnablePeerAccess, 0, 1)
    raises_code(cudaErrorPeerAccessNotEnabled, cudaDeviceDisablePeerAccess, 0)
    raises_code(cudaErrorInvalidValue, cudaDeviceCanAccessPeer, "0", 0)


def test_peer_copies_are_device_to_device():
    a = np.arange(256, dtype=np.int32)
    d1, d2 = cudaMalloc(a.nbytes), cudaMalloc(a.nbytes)
    cudaMemcpy(d1, a, a.nbytes, cudaMemcpyHostToDevice)
    assert cudaMemcpyPeer(d2, 0, d1, 0, a.nbytes) == cudaSuccess
    out = np.zeros_like(a)
    cudaMemcpy(out, d2, a.nbytes, cudaMemcpyDeviceToHost)
    assert np.array_equal(out, a)
    s = cudaStreamCreate()
    cudaMemsetAsync(d1, 0, a.nbytes, s)
    cudaMemcpyPeerAsync(d2, 0, d1, 0, a.nbytes, s)
    cudaStreamSynchronize(s)
    cudaMemcpy(out, d2, a.nbytes, cudaMemcpyDeviceToHost)
    assert not out.any()
    raises_code(cudaErrorInvalidDevice, cudaMemcpyPeer, d2, 1, d1, 0, 16)
    raises_code(cudaErrorInvalidValue, cudaMemcpyPeer, a, 0, d1, 0, 16)
    cudaStreamDestroy(s)
    cudaFree(d1)
    cudaFree(d2)
