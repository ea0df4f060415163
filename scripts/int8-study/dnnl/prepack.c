// Does handing oneDNN 2.6 its preferred (blocked) weight layout, reordered once, speed up the int8
// (and fp32) matmul against plain `ab` weights? ./prepack M K N iters
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <oneapi/dnnl/dnnl.h>
static dnnl_engine_t eng; static dnnl_stream_t st;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static dnnl_memory_desc_t md2(dnnl_dim_t a, dnnl_dim_t b, dnnl_data_type_t dt, int any) {
    dnnl_memory_desc_t d; dnnl_dims_t dims = {a, b}, strides = {b, 1};
    if (any) dnnl_memory_desc_init_by_tag(&d, 2, dims, dt, dnnl_format_tag_any);
    else dnnl_memory_desc_init_by_strides(&d, 2, dims, dt, strides);
    return d;
}
static void run(int M, int K, int N, int int8, int any, int it) {
    dnnl_data_type_t sdt = int8 ? dnnl_u8 : dnnl_f32, wdt = int8 ? dnnl_s8 : dnnl_f32;
    dnnl_memory_desc_t src = md2(M, K, sdt, 0), wei = md2(K, N, wdt, any), dst = md2(M, N, dnnl_f32, 0), bias = md2(1, N, dnnl_f32, 0), full = md2(M, N, dnnl_f32, 0);
    dnnl_matmul_desc_t d; dnnl_matmul_desc_init(&d, &src, &wei, int8 ? NULL : &bias, &dst);
    dnnl_primitive_attr_t a; dnnl_primitive_attr_create(&a);
    dnnl_post_ops_t po; dnnl_post_ops_create(&po);
    if (int8) { int32_t z = 128; dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_SRC, 1, 0, &z);
        dnnl_post_ops_append_binary(po, dnnl_binary_mul, &full); dnnl_post_ops_append_binary(po, dnnl_binary_add, &bias); }
    dnnl_post_ops_append_eltwise(po, 1, dnnl_eltwise_gelu_erf, 0, 0);
    dnnl_primitive_attr_set_post_ops(a, po);
    dnnl_primitive_desc_t pd; if (dnnl_primitive_desc_create(&pd, &d, a, eng, NULL)) { printf("unsupported\n"); return; }
    const char *impl; dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    dnnl_memory_desc_t wq = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    dnnl_primitive_t p; dnnl_primitive_create(&p, pd);
    if (any) { const dnnl_blocking_desc_t *bd = &wq.format_desc.blocking; printf("      chosen weights layout: strides %ld,%ld inner blocks", (long)bd->strides[0], (long)bd->strides[1]);
        for (int i = 0; i < bd->inner_nblks; i++) printf(" %ld%c", (long)bd->inner_blks[i], "ab"[bd->inner_idxs[i]]); printf(", extra flags %u, %zu bytes\n", (unsigned)wq.extra.flags, dnnl_memory_desc_get_size(&wq)); }
    void *x = calloc(1, 4 * M * K), *w = calloc(1, 4 * K * N), *wp = aligned_alloc(64, dnnl_memory_desc_get_size(&wq) + 64), *y = calloc(1, 4 * M * N), *f = calloc(1, 4 * M * N), *b = calloc(1, 4 * N);
    for (int i = 0; i < M * N; i++) ((float *)f)[i] = 1;
    dnnl_memory_desc_t wplain = md2(K, N, wdt, 0);
    dnnl_memory_t mwplain, mw; dnnl_memory_create(&mwplain, &wplain, eng, w); dnnl_memory_create(&mw, &wq, eng, wp);
    double tre = 0;
    if (any) { dnnl_primitive_desc_t rpd; dnnl_reorder_primitive_desc_create(&rpd, &wplain, eng, &wq, eng, NULL);
        dnnl_primitive_t r; dnnl_primitive_create(&r, rpd); dnnl_exec_arg_t ra[2] = {{DNNL_ARG_FROM, mwplain}, {DNNL_ARG_TO, mw}};
        double t0 = now(); dnnl_primitive_execute(r, st, 2, ra); dnnl_stream_wait(st); tre = (now() - t0) * 1e6; }
    dnnl_memory_t ms, md, mf, mb; dnnl_memory_create(&ms, &src, eng, x); dnnl_memory_create(&md, &dst, eng, y); dnnl_memory_create(&mf, &full, eng, f); dnnl_memory_create(&mb, &bias, eng, b);
    dnnl_exec_arg_t args[6] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, any ? mw : mwplain}, {DNNL_ARG_DST, md}};
    int na = 3;
    if (int8) { args[na].arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1; args[na++].memory = mf; args[na].arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1; args[na++].memory = mb; }
    else { args[na].arg = DNNL_ARG_BIAS; args[na++].memory = mb; }
    size_t scratch = dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
    double best = 1e9;
    for (int r = 0; r < 3; r++) { double t0 = now(); for (int i = 0; i < it; i++) dnnl_primitive_execute(p, st, na, args); dnnl_stream_wait(st); double t = (now() - t0) / it * 1e6; if (t < best) best = t; }
    printf("%-5s weights %-9s impl=%-22s %8.1f us  (one-time reorder %.0f us, scratchpad %zu B)\n", int8 ? "int8" : "fp32", any ? "prepacked" : "plain ab", impl, best, tre, scratch);
}
int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int M = atoi(argv[1]), K = atoi(argv[2]), N = atoi(argv[3]), it = atoi(argv[4]);
    dnnl_engine_create(&eng, dnnl_cpu, 0); dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
    printf("M=%d K=%d N=%d (GELU; int8: zp 128, mul[M,N], add[1,N])\n", M, K, N);
    for (int r = 0; r < 2; r++) for (int i8 = 0; i8 < 2; i8++) for (int any = 0; any < 2; any++) run(M, K, N, i8, any, it);
    return 0;
}
