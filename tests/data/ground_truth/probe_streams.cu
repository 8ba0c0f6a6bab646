// probe_streams.cu - what CUDA answers for stream/event/pinned-memory edge cases (pyemu issue 11)
#include <cstdio>
#include <cuda_runtime.h>
#define P(name, expr) do { cudaError_t e_ = (expr); printf("%-44s %d %s\n", name, (int)e_, cudaGetErrorName(e_)); cudaGetLastError(); } while (0)
__global__ void spin(long long n) { long long t = clock64(); while (clock64() - t < n) {} }
int main() {
    unsigned flags = 12345;
    P("cudaGetDeviceFlags.before_init", cudaGetDeviceFlags(&flags)); printf("flags.before_init %u\n", flags);
    P("cudaSetDeviceFlags.before_init(MapHost|Yield)", cudaSetDeviceFlags(cudaDeviceMapHost | cudaDeviceScheduleYield));
    cudaFree(0);
    P("cudaGetDeviceFlags.after_init", cudaGetDeviceFlags(&flags)); printf("flags.after_init %u\n", flags);
    P("cudaSetDeviceFlags.after_init(BlockingSync)", cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    cudaGetDeviceFlags(&flags); printf("flags.after_set %u\n", flags);
    P("cudaSetDeviceFlags.bad(0x100)", cudaSetDeviceFlags(0x100));
    int lo = 99, hi = 99; cudaDeviceGetStreamPriorityRange(&lo, &hi); printf("priority_range %d %d\n", lo, hi);
    cudaStream_t s; int pr = 99;
    cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -100); cudaStreamGetPriority(s, &pr); printf("priority.clamp(-100) %d\n", pr);
    cudaStreamDestroy(s);
    cudaStreamCreateWithPriority(&s, 0, 7); cudaStreamGetPriority(s, &pr); printf("priority.clamp(7) %d\n", pr);
    unsigned sf = 99; cudaStreamGetFlags(s, &sf); printf("streamflags.default %u\n", sf);
    cudaStreamGetFlags(0, &sf); printf("streamflags.null %u\n", sf);
    P("cudaStreamCreateWithFlags(4)", cudaStreamCreateWithFlags(&s, 4));
    P("cudaStreamDestroy(0)", cudaStreamDestroy(0));
    P("cudaStreamDestroy(cudaStreamLegacy)", cudaStreamDestroy(cudaStreamLegacy));
    P("cudaStreamAddCallback.flags1", cudaStreamAddCallback(0, [](cudaStream_t, cudaError_t, void *) {}, 0, 1));
    P("cudaStreamWaitEvent.flags5", cudaStreamWaitEvent(0, 0, 5));
    cudaEvent_t a, b, c;
    cudaEventCreate(&a); cudaEventCreate(&b); cudaEventCreateWithFlags(&c, cudaEventDisableTiming);
    float ms = -1;
    P("cudaEventQuery.never_recorded", cudaEventQuery(a));
    P("cudaEventSynchronize.never_recorded", cudaEventSynchronize(a));
    cudaEventRecord(b); cudaEventSynchronize(b);
    P("cudaEventElapsedTime.start_never_recorded", cudaEventElapsedTime(&ms, a, b));
    P("cudaEventElapsedTime.end_never_recorded", cudaEventElapsedTime(&ms, b, a));
    cudaEventRecord(c); cudaEventSynchronize(c);
    P("cudaEventElapsedTime.disable_timing", cudaEventElapsedTime(&ms, b, c));
    cudaEventRecord(a); spin<<<1, 1>>>(2000000000LL); cudaEventRecord(b);
    P("cudaEventQuery.running", cudaEventQuery(b));
    P("cudaEventElapsedTime.not_ready", cudaEventElapsedTime(&ms, a, b));
    P("cudaStreamQuery.running", cudaStreamQuery(0));
    P("cudaGetLastError.after_not_ready", cudaGetLastError());
    cudaDeviceSynchronize();
    P("cudaEventElapsedTime.reversed", cudaEventElapsedTime(&ms, b, a)); printf("reversed_ms %f\n", ms);
    P("cudaEventCreateWithFlags(Interprocess)", cudaEventCreateWithFlags(&c, cudaEventInterprocess));
    P("cudaEventCreateWithFlags(0x40)", cudaEventCreateWithFlags(&c, 0x40));
    P("cudaEventRecordWithFlags(7)", cudaEventRecordWithFlags(a, 0, 7));
    void *d; cudaMalloc(&d, 64);
    P("cudaFreeHost(device ptr)", cudaFreeHost(d));
    void *h; cudaMallocHost(&h, 64);
    P("cudaFreeHost(h+8)", cudaFreeHost((char *)h + 8));
    P("cudaHostAlloc(flags 0x80)", cudaHostAlloc(&h, 64, 0x80));
    static char buf[1 << 16];
    P("cudaHostRegister", cudaHostRegister(buf, 4096, 0));
    P("cudaHostRegister.again", cudaHostRegister(buf, 4096, 0));
    P("cudaHostRegister.overlap", cudaHostRegister(buf + 1024, 64, 0));
    P("cudaHostRegister.size0", cudaHostRegister(buf + 8192, 0, 0));
    P("cudaHostRegister.device_ptr", cudaHostRegister(d, 64, 0));
    void *dp = 0;
    P("cudaHostGetDevicePointer.registered", cudaHostGetDevicePointer(&dp, buf, 0)); printf("registered_same_ptr %d\n", dp == (void *)buf);
    P("cudaHostUnregister.middle", cudaHostUnregister(buf + 8));
    P("cudaHostUnregister", cudaHostUnregister(buf));
    P("cudaHostUnregister.again", cudaHostUnregister(buf));
    static char plain[64];
    P("cudaHostGetDevicePointer.pageable", cudaHostGetDevicePointer(&dp, plain, 0));
    cudaMallocHost(&h, 64);
    P("cudaHostGetDevicePointer.flags1", cudaHostGetDevicePointer(&dp, h, 1));
    P("cudaHostGetDevicePointer.mallochost", cudaHostGetDevicePointer(&dp, h, 0)); printf("mallochost_same_ptr %d\n", dp == h);
    cudaPointerAttributes at;
    P("cudaPointerGetAttributes.pageable", cudaPointerGetAttributes(&at, plain));
    printf("attr.pageable type=%d device=%d dev=%p host=%p\n", (int)at.type, at.device, at.devicePointer, at.hostPointer);
    cudaPointerGetAttributes(&at, d); printf("attr.device type=%d device=%d dev=%p host=%p d=%p\n", (int)at.type, at.device, at.devicePointer, at.hostPointer, d);
    cudaPointerGetAttributes(&at, h); printf("attr.pinned type=%d device=%d same_dev=%d same_host=%d\n", (int)at.type, at.device, at.devicePointer == h, at.hostPointer == h);
    int v; cudaDeviceGetAttribute(&v, cudaDevAttrAsyncEngineCount, 0); printf("asyncEngineCount %d\n", v);
    cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentKernels, 0); printf("concurrentKernels %d\n", v);
    return 0;
}
