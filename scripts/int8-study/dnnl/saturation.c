// Does oneDNN's u8s8 int8 matmul saturate int16 intermediates (vpmaddubsw) on a non-VNNI path?
// Worst case: u8 255 everywhere, s8 weights +127/-128. Compare against the exact int32 sum.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <oneapi/dnnl/dnnl.h>
static dnnl_memory_desc_t md2(dnnl_dim_t a, dnnl_dim_t b, dnnl_data_type_t dt) {
    dnnl_memory_desc_t d; dnnl_dims_t dims = {a, b}, strides = {b, 1}; dnnl_memory_desc_init_by_strides(&d, 2, dims, dt, strides); return d; }
int main(void) {
    int M = 16, K = 384, N = 384;
    dnnl_engine_t e; dnnl_stream_t s; dnnl_engine_create(&e, dnnl_cpu, 0); dnnl_stream_create(&s, e, dnnl_stream_default_flags);
    for (int zp = 0; zp < 2; zp++) for (int src_s8 = 0; src_s8 < 2; src_s8++) {
    dnnl_memory_desc_t a = md2(M, K, src_s8 ? dnnl_s8 : dnnl_u8), w = md2(K, N, dnnl_s8), c = md2(M, N, dnnl_s32);
    dnnl_matmul_desc_t d; dnnl_matmul_desc_init(&d, &a, &w, NULL, &c);
    dnnl_primitive_attr_t at; dnnl_primitive_attr_create(&at);
    if (zp) { int32_t z = 128; dnnl_primitive_attr_set_zero_points(at, DNNL_ARG_SRC, 1, 0, &z); }
    dnnl_primitive_desc_t pd; if (dnnl_primitive_desc_create(&pd, &d, at, e, NULL)) { printf("unsupported\n"); continue; }
    const char *impl; dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    dnnl_primitive_t p; dnnl_primitive_create(&p, pd);
    uint8_t *x = malloc(M * K); int8_t *wt = malloc(K * N); int32_t *y = malloc(4 * M * N);
    srand(3);
    for (int i = 0; i < M * K; i++) x[i] = src_s8 ? (int8_t)(i % 3 ? 127 : -128) : (uint8_t)(i % 7 ? 255 : rand() % 256);
    for (int i = 0; i < K * N; i++) wt[i] = (i / N) % 2 ? 127 : ((i % 5) ? 127 : -128);
    dnnl_memory_t mx, mw, my; dnnl_memory_create(&mx, &a, e, x); dnnl_memory_create(&mw, &w, e, wt); dnnl_memory_create(&my, &c, e, y);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, mx}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, my}};
    dnnl_primitive_execute(p, s, 3, args); dnnl_stream_wait(s);
    long bad = 0, maxd = 0;
    for (int m = 0; m < M; m++) for (int n = 0; n < N; n++) { long r = 0;
        for (int k = 0; k < K; k++) { int xv = src_s8 ? (int8_t)x[m * K + k] : x[m * K + k]; r += (long)(xv - (zp ? 128 : 0)) * wt[k * N + n]; }
        long dlt = labs(r - y[m * N + n]); if (dlt) bad++; if (dlt > maxd) maxd = dlt; }
    printf("src=%s zp=%d impl=%-24s wrong=%ld/%d max|diff|=%ld\n", src_s8 ? "s8" : "u8", zp ? 128 : 0, impl, bad, M * N, maxd);
    }
    return 0;
}
