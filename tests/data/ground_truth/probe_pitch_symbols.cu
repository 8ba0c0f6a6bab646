// Ground-truth probe (pyemu issue 12): pitched/2-D/3-D memory and symbols.
// Build: nvcc -O2 -arch=sm_90 -o probe_ps probe_pitch_symbols.cu ; prints one JSON object a line.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>
#include <string>

__constant__ float c_coef[16];
__constant__ int c_init[4] = {1, 2, 3, 4};
__device__ int d_var[8];
static int host_var[16];

__global__ void read_through(const float* p, float* out, int n) {
  int i = threadIdx.x; if (i < n) out[i] = p[i] * 2.0f;
}
__global__ void read_const(float* out) { out[threadIdx.x] = c_coef[threadIdx.x]; }

#define E(x) ((int)(x))
static void line(const char* name, const char* fmt_rest) { printf("{\"case\":\"%s\"%s}\n", name, fmt_rest); fflush(stdout); }
static char buf[4096];
#define CASE(name, ...) do { snprintf(buf, sizeof buf, __VA_ARGS__); line(name, buf); cudaGetLastError(); } while (0)

int main() {
  cudaFree(0);
  // ---- cudaMallocPitch
  size_t widths[] = {1, 4, 100, 256, 511, 512, 513, 1000, 1024, 2048, 4097, 10000, 65536, 100000};
  for (size_t w : widths) {
    for (size_t h : {1, 4}) {
      void* p = nullptr; size_t pitch = 0;
      cudaError_t e = cudaMallocPitch(&p, &pitch, w, h);
      char n[64]; snprintf(n, sizeof n, "mallocpitch_w%zu_h%zu", w, h);
      CASE(n, ",\"w\":%zu,\"h\":%zu,\"err\":%d,\"pitch\":%zu,\"ptr_mod512\":%llu", w, h, E(e), pitch,
           (unsigned long long)((size_t)p % 512));
      cudaFree(p);
    }
  }
  { void* p = (void*)0x1; size_t pitch = 77; cudaError_t e = cudaMallocPitch(&p, &pitch, 0, 4);
    CASE("mallocpitch_w0_h4", ",\"err\":%d,\"pitch\":%zu,\"ptr_null\":%d", E(e), pitch, p == nullptr); }
  { void* p = (void*)0x1; size_t pitch = 77; cudaError_t e = cudaMallocPitch(&p, &pitch, 100, 0);
    CASE("mallocpitch_w100_h0", ",\"err\":%d,\"pitch\":%zu,\"ptr_null\":%d", E(e), pitch, p == nullptr); }
  { void* p = nullptr; size_t pitch = 0; cudaError_t e = cudaMallocPitch(&p, &pitch, (size_t)1 << 40, 1 << 20);
    CASE("mallocpitch_huge", ",\"err\":%d", E(e)); }
  { void* p = nullptr; size_t pitch = 0; cudaError_t e = cudaMallocPitch(&p, &pitch, ((size_t)1 << 31) + 1, 1);
    CASE("mallocpitch_w_2^31+1", ",\"err\":%d,\"pitch\":%zu", E(e), pitch); cudaFree(p); }
  // ---- cudaMalloc3D
  for (size_t w : {1, 100, 600}) {
    cudaPitchedPtr pp; memset(&pp, 0, sizeof pp);
    cudaError_t e = cudaMalloc3D(&pp, make_cudaExtent(w, 10, 5));
    char n[64]; snprintf(n, sizeof n, "malloc3d_w%zu_h10_d5", w);
    CASE(n, ",\"err\":%d,\"pitch\":%zu,\"xsize\":%zu,\"ysize\":%zu", E(e), pp.pitch, pp.xsize, pp.ysize);
    cudaFree(pp.ptr);
  }
  { cudaPitchedPtr pp; memset(&pp, 0, sizeof pp); pp.pitch = 77;
    cudaError_t e = cudaMalloc3D(&pp, make_cudaExtent(0, 10, 5));
    CASE("malloc3d_w0", ",\"err\":%d,\"pitch\":%zu,\"xsize\":%zu,\"ysize\":%zu,\"null\":%d", E(e), pp.pitch, pp.xsize, pp.ysize, pp.ptr == nullptr); }
  { cudaPitchedPtr pp; memset(&pp, 0, sizeof pp);
    cudaError_t e = cudaMalloc3D(&pp, make_cudaExtent(100, 10, 0));
    CASE("malloc3d_d0", ",\"err\":%d,\"pitch\":%zu,\"null\":%d", E(e), pp.pitch, pp.ptr == nullptr); }

  // ---- cudaMemcpy2D / cudaMemset2D (alloc: width 100 bytes, height 4)
  void* d = nullptr; size_t pitch = 0;
  cudaMallocPitch(&d, &pitch, 100, 4);
  std::vector<unsigned char> h(8192, 7), back(pitch * 4, 0);
  cudaMemset(d, 0xAB, pitch * 4);
  {
    cudaError_t e = cudaMemcpy2D(d, pitch, h.data(), 100, 100, 4, cudaMemcpyHostToDevice);
    cudaMemcpy(back.data(), d, pitch * 4, cudaMemcpyDeviceToHost);
    int pad_changed = 0, data_wrong = 0;
    for (size_t r = 0; r < 4; r++) for (size_t x = 0; x < pitch; x++) {
      unsigned char v = back[r * pitch + x];
      if (x < 100) data_wrong += v != 7; else pad_changed += v != 0xAB;
    }
    CASE("memcpy2d_h2d_ok", ",\"err\":%d,\"pitch\":%zu,\"pad_changed\":%d,\"data_wrong\":%d", E(e), pitch, pad_changed, data_wrong);
  }
  CASE("memcpy2d_width_gt_dpitch", ",\"err\":%d", E(cudaMemcpy2D(d, 50, h.data(), 100, 100, 4, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_width_gt_spitch", ",\"err\":%d", E(cudaMemcpy2D(d, pitch, h.data(), 50, 100, 4, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_width_gt_both", ",\"err\":%d", E(cudaMemcpy2D(d, 50, h.data(), 50, 100, 4, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_dpitch_0_h1", ",\"err\":%d", E(cudaMemcpy2D(d, 0, h.data(), 100, 100, 1, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_height_0", ",\"err\":%d", E(cudaMemcpy2D(d, pitch, h.data(), 100, 100, 0, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_width_0", ",\"err\":%d", E(cudaMemcpy2D(d, pitch, h.data(), 100, 0, 4, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_kind_7", ",\"err\":%d", E(cudaMemcpy2D(d, pitch, h.data(), 100, 100, 4, (cudaMemcpyKind)7)));
  CASE("memcpy2d_kind_minus1", ",\"err\":%d", E(cudaMemcpy2D(d, pitch, h.data(), 100, 100, 4, (cudaMemcpyKind)-1)));
  CASE("memcpy2d_rows_past_alloc_h5", ",\"err\":%d", E(cudaMemcpy2D(d, pitch, h.data(), 100, 100, 5, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_rows_past_alloc_h8", ",\"err\":%d", E(cudaMemcpy2D(d, pitch, h.data(), 100, 100, 8, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_last_row_past_width", ",\"err\":%d", E(cudaMemcpy2D((char*)d + 200, pitch, h.data(), 100, 100, 4, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_pitch_2^31", ",\"err\":%d", E(cudaMemcpy2D(d, (size_t)1 << 31, h.data(), 100, 1, 1, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_pitch_2^31+1", ",\"err\":%d", E(cudaMemcpy2D(d, ((size_t)1 << 31) + 1, h.data(), 100, 1, 1, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_d2h_ok", ",\"err\":%d", E(cudaMemcpy2D(back.data(), 100, d, pitch, 100, 4, cudaMemcpyDeviceToHost)));
  CASE("memcpy2d_d2d_ok", ",\"err\":%d", E(cudaMemcpy2D(d, pitch, d, pitch, 100, 2, cudaMemcpyDeviceToDevice)));
  CASE("memcpy2d_h2h_ok", ",\"err\":%d", E(cudaMemcpy2D(back.data(), 100, h.data(), 200, 100, 4, cudaMemcpyHostToHost)));
  CASE("memcpy2d_default_ok", ",\"err\":%d", E(cudaMemcpy2D(d, pitch, h.data(), 100, 100, 4, cudaMemcpyDefault)));
  CASE("memcpy2d_null_dst", ",\"err\":%d", E(cudaMemcpy2D(nullptr, pitch, h.data(), 100, 100, 4, cudaMemcpyHostToDevice)));
  CASE("memcpy2d_async_width_gt_dpitch", ",\"err\":%d", E(cudaMemcpy2DAsync(d, 50, h.data(), 100, 100, 4, cudaMemcpyHostToDevice, 0)));
  cudaMemset(d, 0xAB, pitch * 4);
  {
    cudaError_t e = cudaMemset2D(d, pitch, 0x11, 60, 3);
    cudaMemcpy(back.data(), d, pitch * 4, cudaMemcpyDeviceToHost);
    int outside = 0, inside = 0;
    for (size_t r = 0; r < 4; r++) for (size_t x = 0; x < pitch; x++) {
      bool in = r < 3 && x < 60; unsigned char v = back[r * pitch + x];
      if (in) inside += v == 0x11; else outside += v != 0xAB;
    }
    CASE("memset2d_ok", ",\"err\":%d,\"inside_set\":%d,\"outside_changed\":%d", E(e), inside, outside);
  }
  CASE("memset2d_width_gt_pitch", ",\"err\":%d", E(cudaMemset2D(d, 50, 0, 100, 4)));
  CASE("memset2d_rows_past_alloc", ",\"err\":%d", E(cudaMemset2D(d, pitch, 0, 100, 5)));
  CASE("memset2d_height_0", ",\"err\":%d", E(cudaMemset2D(d, pitch, 0, 100, 0)));
  CASE("memset2d_width_0", ",\"err\":%d", E(cudaMemset2D(d, pitch, 0, 0, 4)));
  CASE("memset2d_host_ptr", ",\"err\":%d", E(cudaMemset2D(h.data(), 100, 0, 100, 4)));
  CASE("memset2d_null", ",\"err\":%d", E(cudaMemset2D(nullptr, pitch, 0, 100, 4)));

  // ---- cudaMemcpy3D / cudaMemset3D
  cudaPitchedPtr p3; cudaMalloc3D(&p3, make_cudaExtent(40, 6, 3));
  {
    std::vector<unsigned char> hs(40 * 6 * 3); for (size_t i = 0; i < hs.size(); i++) hs[i] = (unsigned char)i;
    cudaMemset(p3.ptr, 0xAB, p3.pitch * 6 * 3);
    cudaMemcpy3DParms m = {0};
    m.srcPtr = make_cudaPitchedPtr(hs.data(), 40, 40, 6);
    m.dstPtr = p3; m.extent = make_cudaExtent(40, 6, 3); m.kind = cudaMemcpyHostToDevice;
    cudaError_t e = cudaMemcpy3D(&m);
    std::vector<unsigned char> b3(p3.pitch * 18);
    cudaMemcpy(b3.data(), p3.ptr, b3.size(), cudaMemcpyDeviceToHost);
    int wrong = 0, pad = 0;
    for (size_t z = 0; z < 3; z++) for (size_t y = 0; y < 6; y++) for (size_t x = 0; x < p3.pitch; x++) {
      unsigned char v = b3[(z * 6 + y) * p3.pitch + x];
      if (x < 40) wrong += v != (unsigned char)((z * 6 + y) * 40 + x); else pad += v != 0xAB;
    }
    CASE("memcpy3d_h2d_ok", ",\"err\":%d,\"pitch\":%zu,\"wrong\":%d,\"pad_changed\":%d", E(e), p3.pitch, wrong, pad);
    // positions: copy a 8x2x2 box from src pos (4,1,1) to dst pos (16,2,0)
    cudaMemset(p3.ptr, 0, p3.pitch * 18);
    cudaMemcpy3DParms q = {0};
    q.srcPtr = make_cudaPitchedPtr(hs.data(), 40, 40, 6); q.srcPos = make_cudaPos(4, 1, 1);
    q.dstPtr = p3; q.dstPos = make_cudaPos(16, 2, 0); q.extent = make_cudaExtent(8, 2, 2); q.kind = cudaMemcpyHostToDevice;
    e = cudaMemcpy3D(&q);
    cudaMemcpy(b3.data(), p3.ptr, b3.size(), cudaMemcpyDeviceToHost);
    std::string nz;
    for (size_t i = 0; i < b3.size(); i++) if (b3[i]) { char t[32]; snprintf(t, sizeof t, "%s[%zu,%d]", nz.empty() ? "" : ",", i, b3[i]); nz += t; }
    CASE("memcpy3d_positions", ",\"err\":%d,\"pitch\":%zu,\"nonzero_index_value\":[%s]", E(e), p3.pitch, nz.c_str());
    cudaMemcpy3DParms r = m; r.kind = (cudaMemcpyKind)7;
    CASE("memcpy3d_kind_7", ",\"err\":%d", E(cudaMemcpy3D(&r)));
    r = m; r.extent = make_cudaExtent(0, 6, 3);
    CASE("memcpy3d_extent_w0", ",\"err\":%d", E(cudaMemcpy3D(&r)));
    r = m; r.extent = make_cudaExtent(40, 6, 0);
    CASE("memcpy3d_extent_d0", ",\"err\":%d", E(cudaMemcpy3D(&r)));
    r = m; r.extent = make_cudaExtent(41, 6, 3);
    CASE("memcpy3d_width_gt_srcpitch", ",\"err\":%d", E(cudaMemcpy3D(&r)));
    r = m; r.srcPtr = make_cudaPitchedPtr(hs.data(), 600, 600, 1); r.extent = make_cudaExtent(600, 1, 1);
    CASE("memcpy3d_width_gt_dstpitch", ",\"err\":%d", E(cudaMemcpy3D(&r)));
    r = m; r.extent = make_cudaExtent(40, 6, 4);
    CASE("memcpy3d_depth_past_alloc", ",\"err\":%d", E(cudaMemcpy3D(&r)));
    r = m; r.dstPos = make_cudaPos(0, 0, 1);
    CASE("memcpy3d_dstpos_z_past_alloc", ",\"err\":%d", E(cudaMemcpy3D(&r)));
    r = m; r.srcPtr.ptr = nullptr;
    CASE("memcpy3d_null_src", ",\"err\":%d", E(cudaMemcpy3D(&r)));
    CASE("memcpy3d_null_parms", ",\"err\":%d", E(cudaMemcpy3D(nullptr)));
    r = m; r.srcPtr.ysize = 0;
    CASE("memcpy3d_src_ysize_0", ",\"err\":%d", E(cudaMemcpy3D(&r)));
    r = m; r.srcPtr.ysize = 3;
    CASE("memcpy3d_src_ysize_lt_extent_h", ",\"err\":%d", E(cudaMemcpy3D(&r)));
    cudaMemset(p3.ptr, 0xAB, p3.pitch * 18);
    e = cudaMemset3D(p3, 0x22, make_cudaExtent(10, 2, 2));
    cudaMemcpy(b3.data(), p3.ptr, b3.size(), cudaMemcpyDeviceToHost);
    int in = 0, out = 0;
    for (size_t z = 0; z < 3; z++) for (size_t y = 0; y < 6; y++) for (size_t x = 0; x < p3.pitch; x++) {
      unsigned char v = b3[(z * 6 + y) * p3.pitch + x];
      if (x < 10 && y < 2 && z < 2) in += v == 0x22; else out += v != 0xAB;
    }
    CASE("memset3d_ok", ",\"err\":%d,\"inside_set\":%d,\"outside_changed\":%d", E(e), in, out);
    cudaPitchedPtr bad = p3; bad.pitch = 10;
    CASE("memset3d_width_gt_pitch", ",\"err\":%d", E(cudaMemset3D(bad, 0, make_cudaExtent(40, 1, 1))));
    CASE("memset3d_depth_past_alloc", ",\"err\":%d", E(cudaMemset3D(p3, 0, make_cudaExtent(40, 6, 4))));
    CASE("memset3d_extent_0", ",\"err\":%d", E(cudaMemset3D(p3, 0, make_cudaExtent(0, 6, 3))));
  }

  // ---- symbols
  float hc[16]; for (int i = 0; i < 16; i++) hc[i] = i * 1.5f;
  CASE("tosymbol_ok", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, sizeof hc)));
  CASE("tosymbol_count_past_size", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, sizeof hc + 4)));
  CASE("tosymbol_offset_plus_count_past", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, 64, 4)));
  CASE("tosymbol_offset_eq_size_count_0", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, 0, 64)));
  CASE("tosymbol_offset_past_size_count_0", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, 0, 65)));
  CASE("tosymbol_count_0", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, 0)));
  CASE("tosymbol_offset_unaligned", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, 4, 3)));
  CASE("tosymbol_kind_h2h", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, 4, 0, cudaMemcpyHostToHost)));
  CASE("tosymbol_kind_d2h", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, 4, 0, cudaMemcpyDeviceToHost)));
  CASE("tosymbol_kind_default", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, 4, 0, cudaMemcpyDefault)));
  CASE("tosymbol_kind_7", ",\"err\":%d", E(cudaMemcpyToSymbol(c_coef, hc, 4, 0, (cudaMemcpyKind)7)));
  CASE("tosymbol_host_var", ",\"err\":%d", E(cudaMemcpyToSymbol(host_var, hc, 4)));
  CASE("tosymbol_null", ",\"err\":%d", E(cudaMemcpyToSymbol((const void*)nullptr, hc, 4)));
  CASE("tosymbolasync_ok", ",\"err\":%d", E(cudaMemcpyToSymbolAsync(c_coef, hc, 64, 0, cudaMemcpyHostToDevice, 0)));
  CASE("tosymbolasync_past", ",\"err\":%d", E(cudaMemcpyToSymbolAsync(c_coef, hc, 68, 0, cudaMemcpyHostToDevice, 0)));
  CASE("tosymbolasync_kind_d2h", ",\"err\":%d", E(cudaMemcpyToSymbolAsync(c_coef, hc, 4, 0, cudaMemcpyDeviceToHost, 0)));
  cudaDeviceSynchronize();
  float out[16] = {0};
  CASE("fromsymbol_ok", ",\"err\":%d,\"v5\":%g", E(cudaMemcpyFromSymbol(out, c_coef, 64)), out[5]);
  CASE("fromsymbol_kind_h2d", ",\"err\":%d", E(cudaMemcpyFromSymbol(out, c_coef, 4, 0, cudaMemcpyHostToDevice)));
  CASE("fromsymbol_kind_h2h", ",\"err\":%d", E(cudaMemcpyFromSymbol(out, c_coef, 4, 0, cudaMemcpyHostToHost)));
  CASE("fromsymbol_past", ",\"err\":%d", E(cudaMemcpyFromSymbol(out, c_coef, 8, 60)));
  CASE("fromsymbol_host_var", ",\"err\":%d", E(cudaMemcpyFromSymbol(out, host_var, 4)));
  { int iv[4] = {0}; cudaError_t e = cudaMemcpyFromSymbol(iv, c_init, 16);
    CASE("fromsymbol_initialised", ",\"err\":%d,\"v\":[%d,%d,%d,%d]", E(e), iv[0], iv[1], iv[2], iv[3]); }
  { void* a = (void*)0x1; size_t s = 77;
    cudaError_t e1 = cudaGetSymbolAddress(&a, c_coef), e2 = cudaGetSymbolSize(&s, c_coef);
    size_t s2 = 0; cudaGetSymbolSize(&s2, d_var);
    float* dout; cudaMalloc(&dout, 64);
    read_through<<<1, 16>>>((const float*)a, dout, 16);
    cudaError_t e3 = cudaDeviceSynchronize();
    float r[16]; cudaMemcpy(r, dout, 64, cudaMemcpyDeviceToHost);
    cudaError_t e4 = cudaMemcpy(a, hc, 64, cudaMemcpyHostToDevice);
    cudaPointerAttributes at; cudaError_t e5 = cudaPointerGetAttributes(&at, a);
    CASE("symbol_address", ",\"err_addr\":%d,\"err_size\":%d,\"size\":%zu,\"size_d_var\":%zu,\"kernel_read_err\":%d,\"r5\":%g,\"memcpy_to_address\":%d,\"attr_err\":%d,\"attr_type\":%d",
         E(e1), E(e2), s, s2, E(e3), r[5], E(e4), E(e5), (int)at.type);
    void* a2 = (void*)0x1; cudaError_t e6 = cudaGetSymbolAddress(&a2, host_var);
    size_t s3 = 77; cudaError_t e7 = cudaGetSymbolSize(&s3, host_var);
    CASE("symbol_address_host_var", ",\"err_addr\":%d,\"addr_unchanged\":%d,\"err_size\":%d,\"size_unchanged\":%d", E(e6), a2 == (void*)0x1, E(e7), s3 == 77);
    cudaError_t e8 = cudaMemcpyToSymbol(c_coef, dout, 64, 0, cudaMemcpyDeviceToDevice);
    cudaError_t e9 = cudaMemcpyToSymbol(c_coef, dout, 64, 0, cudaMemcpyHostToDevice);
    CASE("tosymbol_from_device", ",\"err_d2d\":%d,\"err_h2d_with_device_src\":%d", E(e8), E(e9));
    cudaError_t e10 = cudaMemcpyToSymbol(c_coef, hc, 64, 0, cudaMemcpyDeviceToDevice);
    CASE("tosymbol_d2d_with_host_src", ",\"err\":%d", E(e10));
  }
  printf("{\"case\":\"done\"}\n");
  return 0;
}
