// Ground-truth probe of the CUDA runtime's error codes and semantics.
//
// Runs on a real GPU (not in CI).  Prints one JSON document on stdout.
// Every section runs in its own forked child process (the parent never
// touches CUDA), so a sticky error, a crash or a hang in one section cannot
// spoil the others.  A child reports each case as one JSON line on a pipe the
// moment the case is done, so a child that dies mid-section still returns
// the cases before the one it died in; its stdout and stderr are captured
// (device printf, assert messages) and returned with it.
//
// Build: nvcc -O2 -arch=sm_90 -o probe probe.cu      (see run_probe.sh)

#include <cuda_runtime.h>
#include <cassert>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <signal.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

// ---------------------------------------------------------------- JSON bits

static std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char b[8];
          snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += (char)c;
        }
    }
  }
  return o + "\"";
}
static std::string jstr(const char* s) { return s ? jstr(std::string(s)) : "null"; }
static std::string jnum(long long v) { return std::to_string(v); }
static std::string jnumu(unsigned long long v) { return std::to_string(v); }
static std::string jbool(bool b) { return b ? "true" : "false"; }
static std::string jhex(unsigned long long v) {
  char b[32];
  snprintf(b, sizeof b, "\"0x%llx\"", v);
  return b;
}
static std::string jptr(const void* p) { return jhex((unsigned long long)(uintptr_t)p); }
static std::string jerr(cudaError_t e) {
  return "{\"code\":" + jnum((int)e) + ",\"name\":" + jstr(cudaGetErrorName(e)) + "}";
}

struct Obj {
  std::vector<std::pair<std::string, std::string>> kv;
  Obj& add(const std::string& k, const std::string& raw) {
    kv.push_back({k, raw});
    return *this;
  }
  Obj& err(const std::string& k, cudaError_t e) { return add(k, jerr(e)); }
  std::string str() const {
    std::string o = "{";
    for (size_t i = 0; i < kv.size(); ++i) {
      if (i) o += ",";
      o += jstr(kv[i].first) + ":" + kv[i].second;
    }
    return o + "}";
  }
};
template <class T>
static std::string jarr(const std::vector<T>& v, std::string (*f)(T)) {
  std::string o = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) o += ",";
    o += f(v[i]);
  }
  return o + "]";
}
static std::string jarr_i(const int* a, int n) {
  std::string o = "[";
  for (int i = 0; i < n; ++i) o += (i ? "," : "") + jnum(a[i]);
  return o + "]";
}

// ------------------------------------------------------- child plumbing

static int g_pipe = -1;  // write end, in the child

static void emit_line(const std::string& s) {
  std::string l = s + "\n";
  size_t off = 0;
  while (off < l.size()) {
    ssize_t w = write(g_pipe, l.data() + off, l.size() - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
}
// mark a case as begun (so the parent can tell where a child died)
static void begin(const char* name) { emit_line(std::string("@begin ") + name); }
// report a finished case
static void emit(const char* name, Obj o) {
  Obj c;
  c.add("case", jstr(name));
  for (auto& kv : o.kv) c.kv.push_back(kv);
  emit_line(c.str());
}

static std::string slurp_fd(int fd) {
  std::string s;
  char buf[4096];
  lseek(fd, 0, SEEK_SET);
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, (size_t)n);
  return s;
}

// Runs fn() in a forked child; returns the section's JSON.
static std::string run_section(const char* name, const std::function<void()>& fn,
                               int timeout_s = 120) {
  int p[2];
  if (pipe(p) != 0) return "null";
  char fo[] = "/tmp/probe_outXXXXXX", fe[] = "/tmp/probe_errXXXXXX";
  int fdo = mkstemp(fo), fde = mkstemp(fe);
  unlink(fo);
  unlink(fe);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    g_pipe = p[1];
    dup2(fdo, 1);
    dup2(fde, 2);
    alarm((unsigned)timeout_s);
    fn();
    fflush(stdout);
    fflush(stderr);
    exit(0);  // not _exit: let the CUDA runtime tear down (and flush printf)
  }
  close(p[1]);
  std::string raw;
  char buf[4096];
  ssize_t n;
  while ((n = read(p[0], buf, sizeof buf)) > 0) raw.append(buf, (size_t)n);
  close(p[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  std::string out = slurp_fd(fdo), errs = slurp_fd(fde);
  close(fdo);
  close(fde);

  std::string cases = "[";
  std::string pending;  // begun but not reported
  size_t pos = 0;
  bool first = true;
  while (pos < raw.size()) {
    size_t e = raw.find('\n', pos);
    if (e == std::string::npos) e = raw.size();
    std::string line = raw.substr(pos, e - pos);
    pos = e + 1;
    if (line.rfind("@begin ", 0) == 0) {
      pending = line.substr(7);
    } else if (!line.empty()) {
      cases += (first ? "" : ",") + line;
      first = false;
      pending.clear();
    }
  }
  cases += "]";
  Obj s;
  s.add("section", jstr(name));
  if (WIFEXITED(st)) s.add("exit_status", jnum(WEXITSTATUS(st)));
  if (WIFSIGNALED(st)) {
    s.add("killed_by_signal", jnum(WTERMSIG(st)));
    s.add("signal_name", jstr(strsignal(WTERMSIG(st))));
  }
  s.add("died_in_case", pending.empty() ? "null" : jstr(pending));
  s.add("stdout", jstr(out));
  s.add("stderr", jstr(errs));
  s.add("cases", cases);
  return s.str();
}

// ---------------------------------------------------------------- kernels

template <int TAG>
__global__ void k_flag(int* flag) {
  // (dynamic shared memory is requested at launch but never touched)
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 0 &&
      blockIdx.y == 0 && blockIdx.z == 0) {
    *flag = 1;
  }
}

__global__ void __launch_bounds__(128) k_lb128(int* flag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *flag = 1;
}

__global__ void k_simple(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void k_fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

__global__ void k_wild_write(int* p) { *p = 42; }
__global__ void k_misaligned(char* p) { *(int*)(p + 1) = 42; }
__global__ void k_assert(int x) { assert(x == 0); }
__global__ void k_trap() { __trap(); }

__global__ void k_atomics(unsigned* inc_mem, unsigned* dec_mem, const unsigned* vals,
                          unsigned* inc_old, unsigned* dec_old, int n) {
  for (int i = 0; i < n; ++i) {
    inc_old[i] = atomicInc(&inc_mem[i], vals[i]);
    dec_old[i] = atomicDec(&dec_mem[i], vals[i]);
  }
}

__global__ void k_sync_preds(int* out /* [3 preds][3 ops][blockDim] */) {
  int t = threadIdx.x, n = blockDim.x;
  int preds[3] = {t % 3 == 0, 1, 0};
  for (int p = 0; p < 3; ++p) {
    int c = __syncthreads_count(preds[p]);
    int a = __syncthreads_and(preds[p]);
    int o = __syncthreads_or(preds[p]);
    out[(p * 3 + 0) * n + t] = c;
    out[(p * 3 + 1) * n + t] = a;
    out[(p * 3 + 2) * n + t] = o;
  }
}

__global__ void k_div(const long long* in, long long* out) {
  int a = (int)in[0], z = (int)in[1], m1 = (int)in[2], imin = (int)in[3], z2 = (int)in[5];
  unsigned ua = (unsigned)in[0], uz = (unsigned)in[1];
  long long la = in[0], lz = in[1], lmin = in[4], lm1 = in[2];
  unsigned long long ula = (unsigned long long)in[0], ulz = (unsigned long long)in[1];
  out[0] = a / z;           // 7/0 int
  out[1] = a % z;           // 7%0 int
  out[2] = (-a) / z;        // -7/0 int
  out[3] = (-a) % z;        // -7%0 int
  out[4] = z2 / z;          // 0/0 int (two separate loads, so x/x cannot fold to 1)
  out[5] = ua / uz;         // 7u/0u
  out[6] = ua % uz;         // 7u%0u
  out[7] = la / lz;         // 7/0 int64
  out[8] = la % lz;         // 7%0 int64
  out[9] = (-la) / lz;      // -7/0 int64
  out[10] = (long long)(ula / ulz);  // 7/0 uint64
  out[11] = (long long)(ula % ulz);  // 7%0 uint64
  out[12] = imin / m1;      // INT_MIN / -1
  out[13] = imin % m1;      // INT_MIN % -1
  out[14] = lmin / lm1;     // LLONG_MIN / -1
  out[15] = lmin % lm1;     // LLONG_MIN % -1
}
static const char* k_div_labels[16] = {
    "int 7/0", "int 7%0", "int -7/0", "int -7%0", "int 0/0", "uint 7/0", "uint 7%0",
    "int64 7/0", "int64 7%0", "int64 -7/0", "uint64 7/0", "uint64 7%0", "int INT_MIN/-1",
    "int INT_MIN%-1", "int64 LLONG_MIN/-1", "int64 LLONG_MIN%-1"};

__global__ void k_print(int tag) { printf("kernel launch %d: block %d thread %d\n", tag, (int)blockIdx.x, (int)threadIdx.x); }
__global__ void k_print_formats() {
  printf("fmt: d=%d u=%u x=%x X=%X o=%o ld=%ld lld=%lld llu=%llu\n", -42, 42u, 255u, 255u, 8u,
         -1234567890123L, -1234567890123LL, 18446744073709551615ULL);
  printf("fmt: f=%f e=%e g=%g .3f=%.3f 8.2f=[%8.2f] -8.2f=[%-8.2f] a=%a\n", 3.14159265358979,
         12345.678, 0.0001234, 2.0 / 3.0, 3.14159, 3.14159, 1.0);
  printf("fmt: inf=%f nan=%f negzero=%f float_arg=%f\n", 1.0 / 0.0, 0.0 / 0.0, -0.0, 1.5f);
  printf("fmt: s=%s c=%c pct=%% 5d=[%5d] -5d=[%-5d] 05d=[%05d] +d=%+d\n", "str", 'Z', 42, 42, 42, 42);
  printf("fmt: p=%p null_p=%p\n", (void*)0x1234, (void*)0);
  printf("fmt: no newline at end");
  printf("|next printf\n");
}

// ------------------------------------------------------------- helpers

static void clear_err() {
  cudaGetLastError();
}

struct Dim { unsigned x, y, z; };
static std::string jdim(Dim d) { return "[" + jnumu(d.x) + "," + jnumu(d.y) + "," + jnumu(d.z) + "]"; }

// ------------------------------------------------------------ sections

static void sec_error_codes() {
  std::vector<int> codes;
  for (int c = 0; c <= 1000; ++c) codes.push_back(c);
  codes.push_back(10000);
  int known = 0;
  std::string list = "[";
  for (int c : codes) {
    const char* n = cudaGetErrorName((cudaError_t)c);
    const char* s = cudaGetErrorString((cudaError_t)c);
    if (n && strcmp(n, "unrecognized error code") == 0) continue;
    Obj o;
    o.add("code", jnum(c)).add("name", jstr(n)).add("string", jstr(s));
    list += (known ? "," : "") + o.str();
    ++known;
  }
  list += "]";
  Obj r;
  r.add("count", jnum(known)).add("codes", list);
  emit("known_codes", r);
  int unk[] = {12345, 1001, 99999, -1};
  for (int c : unk) {
    Obj u;
    u.add("code", jnum(c))
        .add("name", jstr(cudaGetErrorName((cudaError_t)c)))
        .add("string", jstr(cudaGetErrorString((cudaError_t)c)));
    emit("unknown_code", u);
  }
  // Do these calls set the last-error state?  (they should not touch a context)
  Obj l;
  l.err("get_last_error_after_name_string_calls", cudaGetLastError());
  emit("last_error_after", l);
}

// Launch with <<<>>> and with cudaLaunchKernel; record all the error reads.
template <int TAG>
static void launch_case(const char* name, Dim g, Dim b, size_t smem, int* d_flag,
                        const char* note = nullptr) {
  begin(name);
  Obj o;
  o.add("grid", jdim(g)).add("block", jdim(b)).add("dyn_smem", jnumu(smem));
  if (note) o.add("note", jstr(note));
  // (a) triple chevron
  cudaMemset(d_flag, 0, sizeof(int));
  cudaDeviceSynchronize();
  clear_err();
  k_flag<TAG><<<dim3(g.x, g.y, g.z), dim3(b.x, b.y, b.z), smem>>>(d_flag);
  Obj a;
  a.err("peek_right_after_launch", cudaPeekAtLastError());
  a.err("get_last_error", cudaGetLastError());
  a.err("peek_after_get", cudaPeekAtLastError());
  a.err("device_synchronize", cudaDeviceSynchronize());
  a.err("get_last_error_after_sync", cudaGetLastError());
  int flag = -1;
  cudaMemcpy(&flag, d_flag, sizeof(int), cudaMemcpyDeviceToHost);
  a.add("kernel_ran", jbool(flag == 1));
  o.add("chevron", a.str());
  // (b) cudaLaunchKernel
  cudaMemset(d_flag, 0, sizeof(int));
  cudaDeviceSynchronize();
  clear_err();
  void* args[] = {&d_flag};
  cudaError_t r = cudaLaunchKernel((const void*)k_flag<TAG>, dim3(g.x, g.y, g.z),
                                   dim3(b.x, b.y, b.z), args, smem, 0);
  Obj c;
  c.err("return", r);
  c.err("get_last_error", cudaGetLastError());
  c.err("device_synchronize", cudaDeviceSynchronize());
  flag = -1;
  cudaMemcpy(&flag, d_flag, sizeof(int), cudaMemcpyDeviceToHost);
  c.add("kernel_ran", jbool(flag == 1));
  o.add("cudaLaunchKernel", c.str());
  emit(name, o);
}

static void sec_launch_config() {
  int* d_flag = nullptr;
  cudaError_t e = cudaMalloc(&d_flag, sizeof(int));
  int optin = 0;
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  {
    Obj o;
    o.err("malloc", e).add("sharedMemPerBlockOptin", jnum(optin));
    emit("setup", o);
  }
  launch_case<0>("block_1024_ok", {1, 1, 1}, {1024, 1, 1}, 0, d_flag);
  launch_case<0>("block_1025", {1, 1, 1}, {1025, 1, 1}, 0, d_flag);
  launch_case<0>("block_1024x2x1", {1, 1, 1}, {1024, 2, 1}, 0, d_flag);
  launch_case<0>("block_1x1x64_ok", {1, 1, 1}, {1, 1, 64}, 0, d_flag);
  launch_case<0>("block_1x1x65", {1, 1, 1}, {1, 1, 65}, 0, d_flag);
  launch_case<0>("block_1x1025x1", {1, 1, 1}, {1, 1025, 1}, 0, d_flag);
  launch_case<0>("block_0x1x1", {1, 1, 1}, {0, 1, 1}, 0, d_flag);
  launch_case<0>("grid_0x1x1", {0, 1, 1}, {1, 1, 1}, 0, d_flag);
  launch_case<0>("grid_1x0x1", {1, 0, 1}, {1, 1, 1}, 0, d_flag);
  launch_case<0>("grid_1x65535x1_ok", {1, 65535, 1}, {1, 1, 1}, 0, d_flag);
  launch_case<0>("grid_1x65536x1", {1, 65536, 1}, {1, 1, 1}, 0, d_flag);
  launch_case<0>("grid_1x1x65536", {1, 1, 65536}, {1, 1, 1}, 0, d_flag);
  launch_case<0>("grid_2^31x1x1", {2147483648u, 1, 1}, {1, 1, 1}, 0, d_flag);
  launch_case<0>("grid_0xffffffff_x1x1", {0xffffffffu, 1, 1}, {1, 1, 1}, 0, d_flag);
  // dynamic shared memory
  launch_case<1>("dyn_smem_48KiB_ok", {1, 1, 1}, {1, 1, 1}, 48 * 1024, d_flag);
  launch_case<2>("dyn_smem_48KiB+1_no_optin", {1, 1, 1}, {1, 1, 1}, 48 * 1024 + 1, d_flag);
  launch_case<3>("dyn_smem_228KiB+1_no_attr", {1, 1, 1}, {1, 1, 1}, 228 * 1024 + 1, d_flag);
  {
    begin("set_attr_228KiB+1");
    clear_err();
    cudaError_t r = cudaFuncSetAttribute((const void*)k_flag<4>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         228 * 1024 + 1);
    Obj o;
    o.add("value", jnum(228 * 1024 + 1)).err("return", r).err("get_last_error", cudaGetLastError());
    cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    o.err("func_get_attributes", cudaFuncGetAttributes(&fa, (const void*)k_flag<4>));
    o.add("maxDynamicSharedSizeBytes_after", jnum(fa.maxDynamicSharedSizeBytes));
    emit("set_attr_228KiB+1", o);
  }
  launch_case<4>("dyn_smem_228KiB+1_after_failed_set_attr", {1, 1, 1}, {1, 1, 1},
                 228 * 1024 + 1, d_flag);
  {
    begin("set_attr_optin_max");
    clear_err();
    cudaError_t r = cudaFuncSetAttribute((const void*)k_flag<5>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
    Obj o;
    o.add("value", jnum(optin)).err("return", r).err("get_last_error", cudaGetLastError());
    cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    o.err("func_get_attributes", cudaFuncGetAttributes(&fa, (const void*)k_flag<5>));
    o.add("maxDynamicSharedSizeBytes_after", jnum(fa.maxDynamicSharedSizeBytes));
    // and one byte over the opt-in maximum
    clear_err();
    cudaError_t r2 = cudaFuncSetAttribute((const void*)k_flag<5>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1);
    o.add("value_plus1", jnum(optin + 1)).err("return_plus1", r2).err("get_last_error_plus1", cudaGetLastError());
    memset(&fa, 0, sizeof fa);
    cudaFuncGetAttributes(&fa, (const void*)k_flag<5>);
    o.add("maxDynamicSharedSizeBytes_after_plus1", jnum(fa.maxDynamicSharedSizeBytes));
    emit("set_attr_optin_max", o);
  }
  launch_case<5>("dyn_smem_optin_max_with_attr", {1, 1, 1}, {1, 1, 1}, (size_t)optin, d_flag);
  launch_case<5>("dyn_smem_optin_max+1_with_attr", {1, 1, 1}, {1, 1, 1}, (size_t)optin + 1, d_flag);
  launch_case<5>("dyn_smem_228KiB+1_with_attr_at_optin", {1, 1, 1}, {1, 1, 1}, 228 * 1024 + 1, d_flag);
  launch_case<5>("dyn_smem_64KiB_with_attr", {1, 1, 1}, {1, 1, 1}, 64 * 1024, d_flag);
  {
    // attribute set to 100 KiB, launch 100 KiB + 1
    begin("set_attr_100KiB");
    clear_err();
    cudaError_t r = cudaFuncSetAttribute((const void*)k_flag<6>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024);
    Obj o;
    o.err("return", r).err("get_last_error", cudaGetLastError());
    emit("set_attr_100KiB", o);
  }
  launch_case<6>("dyn_smem_100KiB_with_attr_100KiB", {1, 1, 1}, {1, 1, 1}, 100 * 1024, d_flag);
  launch_case<6>("dyn_smem_100KiB+1_with_attr_100KiB", {1, 1, 1}, {1, 1, 1}, 100 * 1024 + 1, d_flag);
  {
    // __launch_bounds__(128) kernel launched with 256 threads
    begin("launch_bounds_128_with_256");
    cudaMemset(d_flag, 0, sizeof(int));
    cudaDeviceSynchronize();
    clear_err();
    k_lb128<<<1, 256>>>(d_flag);
    Obj o;
    o.err("get_last_error", cudaGetLastError());
    o.err("device_synchronize", cudaDeviceSynchronize());
    int flag = -1;
    cudaMemcpy(&flag, d_flag, sizeof(int), cudaMemcpyDeviceToHost);
    o.add("kernel_ran", jbool(flag == 1));
    cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    cudaFuncGetAttributes(&fa, (const void*)k_lb128);
    o.add("func_maxThreadsPerBlock", jnum(fa.maxThreadsPerBlock));
    emit("launch_bounds_128_with_256", o);
  }
  {
    begin("cudaLaunchKernel_null_func");
    clear_err();
    void* args[] = {&d_flag};
    cudaError_t r = cudaLaunchKernel((const void*)nullptr, dim3(1), dim3(1), args, 0, 0);
    Obj o;
    o.err("return", r).err("get_last_error", cudaGetLastError());
    o.err("device_synchronize", cudaDeviceSynchronize());
    emit("cudaLaunchKernel_null_func", o);
  }
  {
    begin("cudaLaunchKernel_host_func");
    clear_err();
    void* args[] = {&d_flag};
    cudaError_t r = cudaLaunchKernel((const void*)&clear_err, dim3(1), dim3(1), args, 0, 0);
    Obj o;
    o.err("return", r).err("get_last_error", cudaGetLastError());
    o.err("device_synchronize", cudaDeviceSynchronize());
    emit("cudaLaunchKernel_host_func", o);
  }
  {
    // Is a launch-config error sticky?  Launch a bad one, don't read it, launch a good one.
    begin("bad_then_good_launch_unread");
    cudaMemset(d_flag, 0, sizeof(int));
    cudaDeviceSynchronize();
    clear_err();
    k_flag<0><<<1, 1025>>>(d_flag);
    k_flag<0><<<1, 32>>>(d_flag);
    Obj o;
    o.err("get_last_error_after_both", cudaGetLastError());
    o.err("get_last_error_again", cudaGetLastError());
    o.err("device_synchronize", cudaDeviceSynchronize());
    int flag = -1;
    cudaMemcpy(&flag, d_flag, sizeof(int), cudaMemcpyDeviceToHost);
    o.add("good_kernel_ran", jbool(flag == 1));
    // and does a failed launch error come back from a later sync if never read?
    clear_err();
    k_flag<0><<<1, 1025>>>(d_flag);
    o.err("sync_after_unread_bad_launch", cudaDeviceSynchronize());
    o.err("get_last_error_after_that_sync", cudaGetLastError());
    emit("bad_then_good_launch_unread", o);
  }
  cudaFree(d_flag);
}

static void sec_memory() {
  {
    begin("malloc_0");
    clear_err();
    void* p = (void*)0x1234;
    cudaError_t r = cudaMalloc(&p, 0);
    Obj o;
    o.err("return", r).err("get_last_error", cudaGetLastError());
    o.add("ptr", jptr(p)).add("ptr_is_null", jbool(p == nullptr)).add("ptr_unchanged_sentinel", jbool(p == (void*)0x1234));
    if (p != (void*)0x1234) o.err("free_it", cudaFree(p));
    emit("malloc_0", o);
  }
  {
    begin("malloc_1<<50");
    clear_err();
    void* p = (void*)0x1234;
    cudaError_t r = cudaMalloc(&p, (size_t)1 << 50);
    Obj o;
    o.err("return", r).err("get_last_error", cudaGetLastError()).err("get_last_error_again", cudaGetLastError());
    o.add("ptr", jptr(p)).add("ptr_is_null", jbool(p == nullptr)).add("ptr_unchanged_sentinel", jbool(p == (void*)0x1234));
    void* q = nullptr;
    o.err("malloc_small_after", cudaMalloc(&q, 256));
    o.err("device_synchronize_after", cudaDeviceSynchronize());
    cudaFree(q);
    emit("malloc_1<<50", o);
  }
  {
    begin("malloc_null_devptr");
    clear_err();
    cudaError_t r = cudaMalloc((void**)nullptr, 16);
    Obj o;
    o.err("return", r).err("get_last_error", cudaGetLastError());
    emit("malloc_null_devptr", o);
  }
  {
    begin("malloc_alignment");
    Obj o;
    std::string ptrs = "[";
    void* ps[4];
    size_t sizes[4] = {1, 3, 100, 1000};
    for (int i = 0; i < 4; ++i) {
      cudaMalloc(&ps[i], sizes[i]);
      ptrs += (i ? "," : "") + jptr(ps[i]);
    }
    o.add("sizes", "[1,3,100,1000]").add("ptrs", ptrs + "]");
    for (int i = 0; i < 4; ++i) cudaFree(ps[i]);
    emit("malloc_alignment", o);
  }
  {
    begin("free_null");
    clear_err();
    cudaError_t r = cudaFree(nullptr);
    Obj o;
    o.err("return", r).err("get_last_error", cudaGetLastError());
    emit("free_null", o);
  }
  {
    begin("free_offset_ptr");
    clear_err();
    char* p = nullptr;
    cudaMalloc(&p, 1024);
    cudaError_t r = cudaFree(p + 4);
    Obj o;
    o.err("return", r).err("get_last_error", cudaGetLastError());
    o.err("free_base_afterwards", cudaFree(p));
    o.err("get_last_error_after_base_free", cudaGetLastError());
    o.err("device_synchronize", cudaDeviceSynchronize());
    emit("free_offset_ptr", o);
  }
  {
    begin("free_twice");
    clear_err();
    void* p = nullptr;
    cudaMalloc(&p, 1024);
    Obj o;
    o.err("first_free", cudaFree(p));
    o.err("second_free", cudaFree(p));
    o.err("get_last_error", cudaGetLastError());
    o.err("device_synchronize", cudaDeviceSynchronize());
    void* q = nullptr;
    o.err("malloc_after", cudaMalloc(&q, 16));
    cudaFree(q);
    emit("free_twice", o);
  }
  int h_src[4] = {11, 22, 33, 44}, h_dst[4] = {0, 0, 0, 0};
  int* d = nullptr;
  int* d2 = nullptr;
  cudaMalloc(&d, 64);
  cudaMalloc(&d2, 64);
  {
    begin("memcpy_kind_7");
    clear_err();
    cudaError_t r = cudaMemcpy(d, h_src, 16, (cudaMemcpyKind)7);
    Obj o;
    o.err("return", r).err("get_last_error", cudaGetLastError());
    clear_err();
    o.err("return_kind_minus1", cudaMemcpy(d, h_src, 16, (cudaMemcpyKind)-1));
    o.err("get_last_error_minus1", cudaGetLastError());
    emit("memcpy_kind_7", o);
  }
  {
    begin("memcpy_default");
    clear_err();
    cudaMemset(d, 0, 64);
    Obj o;
    o.err("h2d", cudaMemcpy(d, h_src, 16, cudaMemcpyDefault));
    o.err("d2d", cudaMemcpy(d2, d, 16, cudaMemcpyDefault));
    int back[4] = {0, 0, 0, 0};
    o.err("d2h", cudaMemcpy(back, d2, 16, cudaMemcpyDefault));
    o.add("roundtrip_ok", jbool(memcmp(back, h_src, 16) == 0));
    int hh[4] = {0, 0, 0, 0};
    o.err("h2h", cudaMemcpy(hh, h_src, 16, cudaMemcpyDefault));
    o.add("h2h_ok", jbool(memcmp(hh, h_src, 16) == 0));
    o.err("get_last_error", cudaGetLastError());
    emit("memcpy_default", o);
  }
  {
    begin("memcpy_hosttohost_kind");
    clear_err();
    int hh[4] = {0, 0, 0, 0};
    Obj o;
    o.err("return", cudaMemcpy(hh, h_src, 16, cudaMemcpyHostToHost));
    o.add("ok", jbool(memcmp(hh, h_src, 16) == 0));
    emit("memcpy_hosttohost_kind", o);
  }
  {
    begin("memcpy_size_0");
    clear_err();
    Obj o;
    o.err("return_h2d", cudaMemcpy(d, h_src, 0, cudaMemcpyHostToDevice));
    o.err("return_null_ptrs_size_0", cudaMemcpy(nullptr, nullptr, 0, cudaMemcpyHostToDevice));
    o.err("get_last_error", cudaGetLastError());
    emit("memcpy_size_0", o);
  }
  {
    begin("memset_freed");
    clear_err();
    void* p = nullptr;
    cudaMalloc(&p, 1024);
    cudaFree(p);
    Obj o;
    o.add("ptr", jptr(p));
    o.err("return", cudaMemset(p, 0, 16));
    o.err("get_last_error", cudaGetLastError());
    o.err("device_synchronize", cudaDeviceSynchronize());
    o.err("memcpy_h2d_into_freed", cudaMemcpy(p, h_src, 16, cudaMemcpyHostToDevice));
    o.err("get_last_error2", cudaGetLastError());
    o.err("memcpy_d2h_from_freed", cudaMemcpy(h_dst, p, 16, cudaMemcpyDeviceToHost));
    o.err("get_last_error3", cudaGetLastError());
    void* q = nullptr;
    o.err("malloc_after", cudaMalloc(&q, 16));
    cudaFree(q);
    emit("memset_freed", o);
  }
  {
    begin("memset_null");
    clear_err();
    Obj o;
    o.err("return", cudaMemset(nullptr, 0, 16));
    o.err("get_last_error", cudaGetLastError());
    o.err("return_size_0", cudaMemset(nullptr, 0, 0));
    emit("memset_null", o);
  }
  {
    begin("memset_value_truncation");
    clear_err();
    unsigned char b[4] = {0, 0, 0, 0};
    Obj o;
    o.err("return", cudaMemset(d, 0x1ff, 4));
    cudaMemcpy(b, d, 4, cudaMemcpyDeviceToHost);
    o.add("byte0", jnum(b[0]));
    emit("memset_value_truncation", o);
  }
  {
    begin("devices");
    int cnt = -1;
    Obj o;
    o.err("get_device_count", cudaGetDeviceCount(&cnt)).add("count", jnum(cnt));
    clear_err();
    o.err("set_device_1", cudaSetDevice(1)).err("get_last_error_1", cudaGetLastError());
    o.err("set_device_-1", cudaSetDevice(-1)).err("get_last_error_-1", cudaGetLastError());
    o.err("set_device_0", cudaSetDevice(0));
    int cur = -7;
    o.err("get_device", cudaGetDevice(&cur)).add("current", jnum(cur));
    cudaDeviceProp pr;
    o.err("get_device_properties_5", cudaGetDeviceProperties(&pr, 5)).err("get_last_error_props5", cudaGetLastError());
    o.err("get_device_properties_-1", cudaGetDeviceProperties(&pr, -1));
    clear_err();
    int v = -7;
    o.err("device_get_attribute_100000", cudaDeviceGetAttribute(&v, (cudaDeviceAttr)100000, 0));
    o.add("value_100000", jnum(v)).err("get_last_error_attr", cudaGetLastError());
    v = -7;
    o.err("device_get_attribute_0", cudaDeviceGetAttribute(&v, (cudaDeviceAttr)0, 0)).add("value_0", jnum(v));
    v = -7;
    o.err("device_get_attribute_-1", cudaDeviceGetAttribute(&v, (cudaDeviceAttr)-1, 0)).add("value_-1", jnum(v));
    v = -7;
    o.err("device_get_attribute_valid_on_dev5", cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 5));
    o.err("device_get_attribute_null_value", cudaDeviceGetAttribute(nullptr, cudaDevAttrMaxThreadsPerBlock, 0));
    clear_err();
    emit("devices", o);
  }
  {
    begin("mem_get_info");
    size_t fr = 0, tot = 0;
    Obj o;
    o.err("return", cudaMemGetInfo(&fr, &tot)).add("free", jnumu(fr)).add("total", jnumu(tot));
    void* big = nullptr;
    cudaMalloc(&big, (size_t)1 << 30);
    size_t fr2 = 0, tot2 = 0;
    cudaMemGetInfo(&fr2, &tot2);
    o.add("free_after_1GiB_malloc", jnumu(fr2)).add("delta", jnum((long long)fr - (long long)fr2));
    cudaFree(big);
    o.err("null_args", cudaMemGetInfo(nullptr, nullptr));
    clear_err();
    emit("mem_get_info", o);
  }
  cudaFree(d);
  cudaFree(d2);
}

// One risky memcpy-ish case per process.
enum Risky { R_H2D_DEVSRC, R_D2H_HOSTSRC, R_H2D_REVERSED, R_D2H_REVERSED, R_D2D_HOSTPTRS,
             R_FREE_HOSTPTR, R_H2D_OVERFLOW, R_H2D_NULL_DST, R_MEMSET_HOSTPTR, R_D2H_HOSTKIND_DEVDST };
static const char* risky_names[] = {
    "memcpy_kind_H2D_but_src_is_device_ptr",
    "memcpy_kind_D2H_but_src_is_host_ptr_dst_host",
    "memcpy_kind_H2D_dst_host_src_device (fully reversed)",
    "memcpy_kind_D2H_dst_device_src_host (fully reversed)",
    "memcpy_kind_D2D_with_host_ptrs",
    "free_host_malloc_ptr",
    "memcpy_H2D_32_bytes_into_16_byte_allocation",
    "memcpy_H2D_null_dst",
    "memset_on_host_ptr",
    "memcpy_kind_H2H_dst_device_src_host",
};

static void sec_risky(int which) {
  const char* name = risky_names[which];
  int* d = nullptr;
  int* d2 = nullptr;
  cudaMalloc(&d, 16);
  cudaMalloc(&d2, 64);
  int pat[4] = {101, 202, 303, 404}, zeros[4] = {0, 0, 0, 0};
  cudaMemcpy(d2, pat, 16, cudaMemcpyHostToDevice);  // d2 holds pat
  cudaMemcpy(d, zeros, 16, cudaMemcpyHostToDevice);
  int* h = (int*)malloc(64);
  int* h2 = (int*)malloc(64);
  memcpy(h, pat, 16);
  memset(h2, 0, 64);
  clear_err();
  begin(name);
  Obj o;
  cudaError_t r = cudaSuccess;
  switch (which) {
    case R_H2D_DEVSRC:
      r = cudaMemcpy(d, d2, 16, cudaMemcpyHostToDevice);
      break;
    case R_D2H_HOSTSRC:
      r = cudaMemcpy(h2, h, 16, cudaMemcpyDeviceToHost);
      break;
    case R_H2D_REVERSED:
      r = cudaMemcpy(h2, d2, 16, cudaMemcpyHostToDevice);
      break;
    case R_D2H_REVERSED:
      r = cudaMemcpy(d, h, 16, cudaMemcpyDeviceToHost);
      break;
    case R_D2D_HOSTPTRS:
      r = cudaMemcpy(h2, h, 16, cudaMemcpyDeviceToDevice);
      break;
    case R_FREE_HOSTPTR:
      r = cudaFree(h2);
      break;
    case R_H2D_OVERFLOW: {
      int big[8] = {1, 2, 3, 4, 5, 6, 7, 8};
      r = cudaMemcpy(d, big, 32, cudaMemcpyHostToDevice);
      break;
    }
    case R_H2D_NULL_DST:
      r = cudaMemcpy(nullptr, h, 16, cudaMemcpyHostToDevice);
      break;
    case R_MEMSET_HOSTPTR:
      r = cudaMemset(h2, 0x5a, 16);
      break;
    case R_D2H_HOSTKIND_DEVDST:
      r = cudaMemcpy(d, h, 16, cudaMemcpyHostToHost);
      break;
  }
  o.err("return", r);
  o.err("get_last_error", cudaGetLastError());
  o.err("device_synchronize", cudaDeviceSynchronize());
  o.err("get_last_error_after_sync", cudaGetLastError());
  int dd[4] = {-1, -1, -1, -1};
  cudaMemcpy(dd, d, 16, cudaMemcpyDeviceToHost);
  o.add("device_dst_d_after", jarr_i(dd, 4));
  if (which != R_FREE_HOSTPTR) o.add("host_dst_h2_after", jarr_i(h2, 4));
  o.add("host_src_h_after", jarr_i(h, 4));
  void* q = nullptr;
  o.err("malloc_after", cudaMalloc(&q, 16));
  cudaFree(q);
  o.err("get_last_error_end", cudaGetLastError());
  o.add("expected_pattern", "[101,202,303,404]");
  emit(name, o);
}

enum Sticky { S_WILD, S_MISALIGNED, S_ASSERT, S_TRAP };
static const char* sticky_names[] = {"wild_write_0x10", "misaligned_int_store", "device_assert", "trap"};

static void sec_sticky(int which) {
  const char* name = sticky_names[which];
  begin(name);
  Obj o;
  int* d_pre = nullptr;  // allocated before the fault
  cudaMalloc(&d_pre, 1024);
  char* d_bytes = nullptr;
  cudaMalloc(&d_bytes, 64);
  cudaDeviceSynchronize();
  clear_err();
  switch (which) {
    case S_WILD: k_wild_write<<<1, 1>>>((int*)0x10); break;
    case S_MISALIGNED: k_misaligned<<<1, 1>>>(d_bytes); break;
    case S_ASSERT: k_assert<<<1, 1>>>(1); break;
    case S_TRAP: k_trap<<<1, 1>>>(); break;
  }
  o.err("launch_get_last_error", cudaGetLastError());
  o.err("device_synchronize", cudaDeviceSynchronize());
  o.err("device_synchronize_again", cudaDeviceSynchronize());
  o.err("get_last_error_1", cudaGetLastError());
  o.err("get_last_error_2", cudaGetLastError());
  o.err("peek_at_last_error", cudaPeekAtLastError());
  void* q = (void*)0x1234;
  o.err("malloc_after_fault", cudaMalloc(&q, 256));
  o.add("malloc_after_fault_ptr", jptr(q));
  int h[4] = {1, 2, 3, 4};
  o.err("memcpy_h2d_after_fault", cudaMemcpy(d_pre, h, 16, cudaMemcpyHostToDevice));
  o.err("memcpy_d2h_after_fault", cudaMemcpy(h, d_pre, 16, cudaMemcpyDeviceToHost));
  o.err("memset_after_fault", cudaMemset(d_pre, 0, 16));
  o.err("free_after_fault", cudaFree(d_pre));
  k_fill<<<1, 32>>>(d_pre, 4, 7);
  o.err("launch_after_fault_get_last_error", cudaGetLastError());
  o.err("stream_synchronize_after_fault", cudaStreamSynchronize(0));
  cudaEvent_t ev;
  o.err("event_create_after_fault", cudaEventCreate(&ev));
  int v = -1;
  o.err("device_get_attribute_after_fault", cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0));
  o.add("warp_size_after_fault", jnum(v));
  size_t fr = 0, tot = 0;
  o.err("mem_get_info_after_fault", cudaMemGetInfo(&fr, &tot));
  int drv = 0;
  o.err("driver_get_version_after_fault", cudaDriverGetVersion(&drv));
  o.err("peek_before_reset", cudaPeekAtLastError());
  o.err("device_reset", cudaDeviceReset());
  o.err("get_last_error_after_reset", cudaGetLastError());
  int* p = nullptr;
  cudaError_t mr = cudaMalloc(&p, 64);
  o.err("malloc_after_reset", mr);
  if (mr != cudaSuccess) {
    // Does the device come back if we wait?  Retry for up to ~5 s.
    int tries = 0;
    while (mr != cudaSuccess && tries < 20) {
      usleep(250000);
      ++tries;
      mr = cudaMalloc(&p, 64);
    }
    o.add("malloc_retries_250ms", jnum(tries)).err("malloc_after_retries", mr);
    if (mr != cudaSuccess) {
      o.err("second_device_reset", cudaDeviceReset());
      o.err("malloc_after_second_reset", mr = cudaMalloc(&p, 64));
    }
    if (mr != cudaSuccess) {
      o.err("set_device_0", cudaSetDevice(0));
      o.err("malloc_after_set_device", mr = cudaMalloc(&p, 64));
    }
    o.err("get_last_error_after_recovery_attempts", cudaGetLastError());
  }
  k_fill<<<1, 32>>>(p, 16, 9);
  o.err("launch_after_reset", cudaGetLastError());
  o.err("sync_after_reset", cudaDeviceSynchronize());
  int back[16] = {0};
  o.err("memcpy_after_reset", cudaMemcpy(back, p, 64, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < 16; ++i) ok = ok && back[i] == 9;
  o.add("kernel_after_reset_correct", jbool(ok));
  cudaFree(p);
  emit(name, o);
}

// Control for the sticky cases: cudaDeviceReset on a healthy context.
static void sec_reset_healthy() {
  begin("device_reset_healthy_context");
  Obj o;
  int* before = nullptr;
  o.err("malloc_before", cudaMalloc(&before, 64));
  k_fill<<<1, 32>>>(before, 16, 3);
  o.err("sync_before", cudaDeviceSynchronize());
  o.err("device_reset", cudaDeviceReset());
  o.err("get_last_error_after_reset", cudaGetLastError());
  // the stale pointer, before anything new is allocated (a new cudaMalloc may reuse its address)
  int h[4];
  o.err("memcpy_from_stale_pointer_before_any_new_malloc", cudaMemcpy(h, before, 16, cudaMemcpyDeviceToHost));
  o.err("get_last_error_stale_memcpy", cudaGetLastError());
  int* p = nullptr;
  o.err("malloc_after_reset", cudaMalloc(&p, 64));
  o.add("new_ptr_equals_stale_ptr", jbool(p == before));
  k_fill<<<1, 32>>>(p, 16, 9);
  o.err("launch_after_reset", cudaGetLastError());
  o.err("sync_after_reset", cudaDeviceSynchronize());
  int back[16] = {0};
  o.err("memcpy_after_reset", cudaMemcpy(back, p, 64, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < 16; ++i) ok = ok && back[i] == 9;
  o.add("kernel_after_reset_correct", jbool(ok));
  o.err("free_new_ptr", cudaFree(p));
  if (p != before) o.err("free_stale_ptr", cudaFree(before));
  o.err("get_last_error_end", cudaGetLastError());
  emit("device_reset_healthy_context", o);
}

static void sec_semantics() {
  {
    begin("atomicInc_atomicDec");
    std::vector<unsigned> olds = {0, 1, 5, 6, 7, 100, 0, 3, 0xffffffffu, 0xfffffffeu, 0xffffffffu, 4};
    std::vector<unsigned> vals = {5, 5, 5, 5, 5, 5, 0, 0, 0xffffffffu, 0xffffffffu, 5, 5};
    int n = (int)olds.size();
    unsigned *d_inc, *d_dec, *d_vals, *d_io, *d_do;
    cudaMalloc(&d_inc, n * 4);
    cudaMalloc(&d_dec, n * 4);
    cudaMalloc(&d_vals, n * 4);
    cudaMalloc(&d_io, n * 4);
    cudaMalloc(&d_do, n * 4);
    cudaMemcpy(d_inc, olds.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(d_dec, olds.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(d_vals, vals.data(), n * 4, cudaMemcpyHostToDevice);
    clear_err();
    k_atomics<<<1, 1>>>(d_inc, d_dec, d_vals, d_io, d_do, n);
    Obj o;
    o.err("launch", cudaGetLastError()).err("sync", cudaDeviceSynchronize());
    std::vector<unsigned> inc_new(n), dec_new(n), inc_old(n), dec_old(n);
    cudaMemcpy(inc_new.data(), d_inc, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(dec_new.data(), d_dec, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(inc_old.data(), d_io, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(dec_old.data(), d_do, n * 4, cudaMemcpyDeviceToHost);
    std::string rows = "[";
    for (int i = 0; i < n; ++i) {
      Obj r;
      r.add("old", jnumu(olds[i])).add("val", jnumu(vals[i]));
      r.add("atomicInc_returned", jnumu(inc_old[i])).add("atomicInc_new", jnumu(inc_new[i]));
      r.add("atomicDec_returned", jnumu(dec_old[i])).add("atomicDec_new", jnumu(dec_new[i]));
      rows += (i ? "," : "") + r.str();
    }
    o.add("rows", rows + "]");
    cudaFree(d_inc); cudaFree(d_dec); cudaFree(d_vals); cudaFree(d_io); cudaFree(d_do);
    emit("atomicInc_atomicDec", o);
  }
  {
    begin("syncthreads_count_and_or");
    const int N = 256;
    int* d_out;
    cudaMalloc(&d_out, 9 * N * 4);
    clear_err();
    k_sync_preds<<<1, N>>>(d_out);
    Obj o;
    o.err("launch", cudaGetLastError()).err("sync", cudaDeviceSynchronize());
    std::vector<int> h(9 * N);
    cudaMemcpy(h.data(), d_out, 9 * N * 4, cudaMemcpyDeviceToHost);
    const char* pn[3] = {"tid%3==0", "all_true(1)", "all_false(0)"};
    const char* on[3] = {"count", "and", "or"};
    std::string res = "[";
    for (int p = 0; p < 3; ++p) {
      Obj r;
      r.add("predicate", jstr(pn[p])).add("block", jnum(N));
      for (int op = 0; op < 3; ++op) {
        int v0 = h[(p * 3 + op) * N];
        bool uni = true;
        for (int t = 0; t < N; ++t) uni = uni && h[(p * 3 + op) * N + t] == v0;
        r.add(on[op], jnum(v0)).add(std::string(on[op]) + "_uniform", jbool(uni));
      }
      res += (p ? "," : "") + r.str();
    }
    o.add("results", res + "]");
    cudaFree(d_out);
    emit("syncthreads_count_and_or", o);
  }
  {
    begin("integer_division_by_zero");
    long long in[6] = {7, 0, -1, INT_MIN, LLONG_MIN, 0};
    long long *d_in, *d_out;
    cudaMalloc(&d_in, sizeof in);
    cudaMalloc(&d_out, 16 * 8);
    cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0xab, 16 * 8);
    clear_err();
    k_div<<<1, 1>>>(d_in, d_out);
    Obj o;
    o.err("launch", cudaGetLastError()).err("sync", cudaDeviceSynchronize());
    o.err("get_last_error_after_sync", cudaGetLastError());
    long long out[16];
    o.err("memcpy", cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    std::string res = "[";
    for (int i = 0; i < 16; ++i) {
      Obj r;
      r.add("expr", jstr(k_div_labels[i])).add("value", jnum(out[i])).add("hex64", jhex((unsigned long long)out[i]));
      res += (i ? "," : "") + r.str();
    }
    o.add("results", res + "]");
    o.add("note", jstr("32-bit results were stored into long long after C conversion: int results sign-extend, unsigned 32-bit results zero-extend"));
    cudaFree(d_in);
    cudaFree(d_out);
    emit("integer_division_by_zero", o);
  }
}

static void sec_printf() {
  // host lines are flushed at once, so the captured stdout shows the real interleaving
  printf("host: before launches\n");
  fflush(stdout);
  clear_err();
  k_print<<<1, 1>>>(1);
  k_print<<<1, 1>>>(2);
  printf("host: after two launches, before sync\n");
  fflush(stdout);
  cudaError_t s = cudaDeviceSynchronize();
  printf("host: after sync\n");
  fflush(stdout);
  k_print<<<2, 3>>>(3);
  cudaDeviceSynchronize();
  printf("host: after launch 3 (2 blocks x 3 threads) and sync\n");
  fflush(stdout);
  k_print_formats<<<1, 1>>>();
  cudaDeviceSynchronize();
  printf("\nhost: after formats\n");
  fflush(stdout);
  size_t fifo = 0;
  cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize);
  Obj o;
  o.err("sync", s).add("printf_fifo_size", jnumu(fifo));
  o.add("note", jstr("see this section's stdout; the last launch (tag 4) is never synchronized: whether its line appears tells if exit flushes device printf"));
  emit("printf_order", o);
  printf("host: launching tag 4, then exit without sync\n");
  fflush(stdout);
  k_print<<<1, 1>>>(4);
}

static void sec_props() {
  cudaDeviceProp p;
  memset(&p, 0, sizeof p);
  Obj o;
  o.err("get_device_properties", cudaGetDeviceProperties(&p, 0));
  o.add("name", jstr(p.name));
  o.add("totalGlobalMem", jnumu(p.totalGlobalMem));
  o.add("sharedMemPerBlock", jnumu(p.sharedMemPerBlock));
  o.add("sharedMemPerBlockOptin", jnumu(p.sharedMemPerBlockOptin));
  o.add("reservedSharedMemPerBlock", jnumu(p.reservedSharedMemPerBlock));
  o.add("regsPerBlock", jnum(p.regsPerBlock));
  o.add("regsPerMultiprocessor", jnum(p.regsPerMultiprocessor));
  o.add("warpSize", jnum(p.warpSize));
  o.add("memPitch", jnumu(p.memPitch));
  o.add("maxThreadsPerBlock", jnum(p.maxThreadsPerBlock));
  o.add("maxThreadsDim", jarr_i(p.maxThreadsDim, 3));
  o.add("maxGridSize", jarr_i(p.maxGridSize, 3));
  int clk = -1, memclk = -1;
  o.err("clockRate_attr_return", cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
  o.add("clockRate", jnum(clk));
  o.add("clockRate_note", jstr("cudaDeviceProp::clockRate was removed in CUDA 13; value read with cudaDevAttrClockRate (kHz)"));
  cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, 0);
  o.add("memoryClockRate_attr_kHz", jnum(memclk));
  o.add("totalConstMem", jnumu(p.totalConstMem));
  o.add("major", jnum(p.major));
  o.add("minor", jnum(p.minor));
  o.add("textureAlignment", jnumu(p.textureAlignment));
  o.add("texturePitchAlignment", jnumu(p.texturePitchAlignment));
  o.add("multiProcessorCount", jnum(p.multiProcessorCount));
  o.add("maxThreadsPerMultiProcessor", jnum(p.maxThreadsPerMultiProcessor));
  o.add("maxBlocksPerMultiProcessor", jnum(p.maxBlocksPerMultiProcessor));
  o.add("sharedMemPerMultiprocessor", jnumu(p.sharedMemPerMultiprocessor));
  o.add("l2CacheSize", jnum(p.l2CacheSize));
  o.add("persistingL2CacheMaxSize", jnum(p.persistingL2CacheMaxSize));
  o.add("concurrentKernels", jnum(p.concurrentKernels));
  o.add("unifiedAddressing", jnum(p.unifiedAddressing));
  o.add("managedMemory", jnum(p.managedMemory));
  o.add("concurrentManagedAccess", jnum(p.concurrentManagedAccess));
  o.add("pageableMemoryAccess", jnum(p.pageableMemoryAccess));
  o.add("asyncEngineCount", jnum(p.asyncEngineCount));
  o.add("canMapHostMemory", jnum(p.canMapHostMemory));
  o.add("integrated", jnum(p.integrated));
  o.add("ECCEnabled", jnum(p.ECCEnabled));
  o.add("memoryBusWidth", jnum(p.memoryBusWidth));
  o.add("cooperativeLaunch", jnum(p.cooperativeLaunch));
  o.add("clusterLaunch", jnum(p.clusterLaunch));
  o.add("surfaceAlignment", jnumu(p.surfaceAlignment));
  o.add("streamPrioritiesSupported", jnum(p.streamPrioritiesSupported));
  o.add("memoryPoolsSupported", jnum(p.memoryPoolsSupported));
  o.add("pciBusID", jnum(p.pciBusID));
  int rt = 0, drv = 0;
  o.err("runtime_get_version_return", cudaRuntimeGetVersion(&rt));
  o.add("cudaRuntimeGetVersion", jnum(rt));
  o.err("driver_get_version_return", cudaDriverGetVersion(&drv));
  o.add("cudaDriverGetVersion", jnum(drv));
  size_t lim;
  cudaDeviceGetLimit(&lim, cudaLimitStackSize);
  o.add("limit_stack_size", jnumu(lim));
  cudaDeviceGetLimit(&lim, cudaLimitPrintfFifoSize);
  o.add("limit_printf_fifo_size", jnumu(lim));
  cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize);
  o.add("limit_malloc_heap_size", jnumu(lim));
  int prio_lo = 0, prio_hi = 0;
  cudaDeviceGetStreamPriorityRange(&prio_lo, &prio_hi);
  o.add("stream_priority_range", "[" + jnum(prio_lo) + "," + jnum(prio_hi) + "]");
  emit("device_properties", o);

  auto fattr = [](const char* nm, const void* f) {
    cudaFuncAttributes a;
    memset(&a, 0, sizeof a);
    Obj r;
    r.err("return", cudaFuncGetAttributes(&a, f));
    r.add("sharedSizeBytes", jnumu(a.sharedSizeBytes));
    r.add("constSizeBytes", jnumu(a.constSizeBytes));
    r.add("localSizeBytes", jnumu(a.localSizeBytes));
    r.add("maxThreadsPerBlock", jnum(a.maxThreadsPerBlock));
    r.add("numRegs", jnum(a.numRegs));
    r.add("ptxVersion", jnum(a.ptxVersion));
    r.add("binaryVersion", jnum(a.binaryVersion));
    r.add("cacheModeCA", jnum(a.cacheModeCA));
    r.add("maxDynamicSharedSizeBytes", jnum(a.maxDynamicSharedSizeBytes));
    r.add("preferredShmemCarveout", jnum(a.preferredShmemCarveout));
    r.add("clusterDimMustBeSet", jnum(a.clusterDimMustBeSet));
    r.add("requiredClusterWidth", jnum(a.requiredClusterWidth));
    r.add("requiredClusterHeight", jnum(a.requiredClusterHeight));
    r.add("requiredClusterDepth", jnum(a.requiredClusterDepth));
    r.add("clusterSchedulingPolicyPreference", jnum(a.clusterSchedulingPolicyPreference));
    r.add("nonPortableClusterSizeAllowed", jnum(a.nonPortableClusterSizeAllowed));
    emit(nm, r);
  };
  fattr("func_attributes_k_simple(saxpy)", (const void*)k_simple);
  fattr("func_attributes_k_lb128(__launch_bounds__(128))", (const void*)k_lb128);
  fattr("func_attributes_k_div", (const void*)k_div);
  {
    Obj r;
    cudaFuncAttributes a;
    clear_err();
    r.err("func_get_attributes_null", cudaFuncGetAttributes(&a, nullptr));
    r.err("func_get_attributes_host_fn", cudaFuncGetAttributes(&a, (const void*)&clear_err));
    r.err("get_last_error", cudaGetLastError());
    emit("func_attributes_invalid", r);
  }
}

int main() {
  std::vector<std::string> secs;
  secs.push_back(run_section("error_codes", sec_error_codes));
  secs.push_back(run_section("launch_config", sec_launch_config));
  secs.push_back(run_section("memory", sec_memory));
  for (int i = 0; i < (int)(sizeof risky_names / sizeof *risky_names); ++i)
    secs.push_back(run_section((std::string("memory_risky: ") + risky_names[i]).c_str(),
                               [i] { sec_risky(i); }));
  for (int i = 0; i < 4; ++i)
    secs.push_back(run_section((std::string("sticky: ") + sticky_names[i]).c_str(),
                               [i] { sec_sticky(i); }));
  secs.push_back(run_section("device_reset_healthy", sec_reset_healthy));
  secs.push_back(run_section("semantics", sec_semantics));
  secs.push_back(run_section("printf", sec_printf));
  secs.push_back(run_section("properties", sec_props));
  std::string o = "{\"sections\":[";
  for (size_t i = 0; i < secs.size(); ++i) o += (i ? ",\n" : "\n") + secs[i];
  o += "\n]}\n";
  fputs(o.c_str(), stdout);
  return 0;
}
