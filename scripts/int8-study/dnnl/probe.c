// Which oneDNN 2.6 matmul implementation each int8 configuration gets (brgemm/gemm jit or ref),
// and its time. Usage: ./probe M K N iters   (DNNL_MAX_CPU_ISA=AVX2 to see the AVX2 path)
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <oneapi/dnnl/dnnl.h>
static dnnl_engine_t eng; static dnnl_stream_t st;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static dnnl_memory_desc_t md2(dnnl_dim_t a, dnnl_dim_t b, dnnl_data_type_t dt) {
    dnnl_memory_desc_t d; dnnl_dims_t dims = {a, b}, strides = {b, 1};
    dnnl_memory_desc_init_by_strides(&d, 2, dims, dt, strides); return d;
}
enum { BIAS = 1, ZP = 2, ZPRT = 4, MULROW = 8, MULCOL = 16, ADDCOL = 32, GELU = 64, SUM = 128, RTM = 256, OSRT = 512,
       OSMN = 1024, MULFULL = 2048, S8SRC = 4096, F32 = 8192, DSTS32 = 16384, NOOS = 32768, DSTU8 = 65536, MULSC = 131072, ADDFULL = 262144 };
static const char *flagname[] = {"bias", "zp128", "zp-runtime", "mul[M,1]", "mul[1,N]", "add[1,N]", "gelu", "sum",
    "runtime-M", "oscale-runtime", "oscale[M,N]", "mul[M,N]", "s8-src", "fp32", "dst-s32", "no-oscale", "dst-u8", "mul[1,1]", "add[M,N]"};
static void run(int M, int K, int N, int f, int iters) {
    char name[256] = ""; for (int i = 0; i < 19; i++) if (f & (1 << i)) { strcat(name, flagname[i]); strcat(name, " "); }
    if (!(f & (F32 | S8SRC))) strcat(name, "(u8 src)");
    dnnl_dim_t mM = (f & RTM) ? DNNL_RUNTIME_DIM_VAL : M;
    dnnl_data_type_t sdt = (f & F32) ? dnnl_f32 : (f & S8SRC) ? dnnl_s8 : dnnl_u8, wdt = (f & F32) ? dnnl_f32 : dnnl_s8;
    dnnl_data_type_t ddt = (f & DSTS32) ? dnnl_s32 : (f & DSTU8) ? dnnl_u8 : dnnl_f32;
    dnnl_memory_desc_t src = md2(mM, K, sdt), wei = md2(K, N, wdt), dst = md2(mM, N, ddt), bias = md2(1, N, dnnl_f32),
        row = md2(mM, 1, dnnl_f32), col = md2(1, N, dnnl_f32), full = md2(mM, N, dnnl_f32);
    dnnl_matmul_desc_t d; dnnl_status_t s = dnnl_matmul_desc_init(&d, &src, &wei, (f & BIAS) ? &bias : NULL, &dst);
    if (s) { printf("%-70s desc status %d\n", name, s); return; }
    dnnl_primitive_attr_t a; dnnl_primitive_attr_create(&a);
    float *ws = malloc(4 * (size_t)M * N); for (int i = 0; i < M * N; i++) ws[i] = 0.01f;
    if (!(f & (F32 | NOOS))) {
        float r = DNNL_RUNTIME_F32_VAL;
        if (f & OSMN) s = dnnl_primitive_attr_set_output_scales(a, (f & OSRT) ? 1 : (dnnl_dim_t)M * N, 3, (f & OSRT) ? &r : ws);
        else s = dnnl_primitive_attr_set_output_scales(a, (f & OSRT) ? 1 : N, 2, (f & OSRT) ? &r : ws);
        if (s) { printf("%-70s oscale status %d\n", name, s); return; }
    }
    if (f & (ZP | ZPRT)) { int32_t z = (f & ZPRT) ? DNNL_RUNTIME_S32_VAL : 128; dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_SRC, 1, 0, &z); }
    dnnl_post_ops_t po; dnnl_post_ops_create(&po);
    if (f & MULROW) s |= dnnl_post_ops_append_binary(po, dnnl_binary_mul, &row);
    if (f & MULFULL) s |= dnnl_post_ops_append_binary(po, dnnl_binary_mul, &full);
    dnnl_memory_desc_t one = md2(1, 1, dnnl_f32);
    if (f & MULSC) s |= dnnl_post_ops_append_binary(po, dnnl_binary_mul, &one);
    if (f & MULCOL) s |= dnnl_post_ops_append_binary(po, dnnl_binary_mul, &col);
    if (f & ADDCOL) s |= dnnl_post_ops_append_binary(po, dnnl_binary_add, &col);
    if (f & ADDFULL) s |= dnnl_post_ops_append_binary(po, dnnl_binary_add, &full);
    if (f & GELU) s |= dnnl_post_ops_append_eltwise(po, 1, dnnl_eltwise_gelu_erf, 0, 0);
    if (f & SUM) s |= dnnl_post_ops_append_sum(po, 1);
    if (s) { printf("%-70s post-op status %d\n", name, s); return; }
    dnnl_primitive_attr_set_post_ops(a, po);
    dnnl_primitive_desc_t pd; s = dnnl_primitive_desc_create(&pd, &d, a, eng, NULL);
    if (s) { printf("%-70s unsupported (status %d)\n", name, s); return; }
    const char *impl; dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    dnnl_primitive_t p; dnnl_primitive_create(&p, pd);
    size_t scratch = dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
    char implc[64]; snprintf(implc, 64, "%s", impl);
    void *bs = calloc(1, 4 * (size_t)K * N + 4 * (size_t)M * K + 4 * (size_t)M * N * 4 + 4096);
    char *b = bs; void *psrc = b; b += 4 * M * K; void *pwei = b; b += 4 * K * N; void *pdst = b; b += 4 * M * N;
    void *pfull = b; b += 4 * M * N; float *pvec = (float *)b; b += 4 * M * N;
    for (int i = 0; i < M * N; i++) pvec[i] = 1;
    int32_t zp = 128;
    dnnl_exec_arg_t args[12]; int na = 0;
    dnnl_dims_t rd = {M, 0};
    #define ARG(id, desc, ptr) do { dnnl_memory_desc_t dd = desc; if (f & RTM) { if (dd.dims[0] == DNNL_RUNTIME_DIM_VAL) { dd = md2(M, dd.dims[1], dd.data_type); } } \
        dnnl_memory_create(&args[na].memory, &dd, eng, ptr); args[na].arg = id; na++; } while (0)
    (void)rd;
    ARG(DNNL_ARG_SRC, src, psrc); ARG(DNNL_ARG_WEIGHTS, wei, pwei); ARG(DNNL_ARG_DST, dst, pdst);
    if (f & BIAS) ARG(DNNL_ARG_BIAS, bias, pvec);
    int pi = 0;
    if (f & MULROW) { ARG(DNNL_ARG_ATTR_MULTIPLE_POST_OP(pi) | DNNL_ARG_SRC_1, row, pvec); pi++; }
    if (f & MULFULL) { ARG(DNNL_ARG_ATTR_MULTIPLE_POST_OP(pi) | DNNL_ARG_SRC_1, full, pfull); pi++; }
    if (f & MULSC) { ARG(DNNL_ARG_ATTR_MULTIPLE_POST_OP(pi) | DNNL_ARG_SRC_1, one, pvec); pi++; }
    if (f & MULCOL) { ARG(DNNL_ARG_ATTR_MULTIPLE_POST_OP(pi) | DNNL_ARG_SRC_1, col, pvec); pi++; }
    if (f & ADDCOL) { ARG(DNNL_ARG_ATTR_MULTIPLE_POST_OP(pi) | DNNL_ARG_SRC_1, col, pvec); pi++; }
    if (f & ADDFULL) { ARG(DNNL_ARG_ATTR_MULTIPLE_POST_OP(pi) | DNNL_ARG_SRC_1, full, pfull); pi++; }
    if (f & GELU) pi++;
    if (f & SUM) pi++;
    if (f & ZPRT) { dnnl_memory_desc_t z = md2(1, 1, dnnl_s32); z.ndims = 1; ARG(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, z, &zp); }
    if (f & OSRT) { dnnl_memory_desc_t z = (f & OSMN) ? md2(M, N, dnnl_f32) : md2(N, 1, dnnl_f32); z.ndims = 1; if (f & OSMN) { z = md2(1, M * N, dnnl_f32); z.dims[0] = M * N; z.ndims = 1; z.format_desc.blocking.strides[0] = 1; } ARG(DNNL_ARG_ATTR_OUTPUT_SCALES, z, pvec); }
    void *sp = aligned_alloc(64, scratch + 64); dnnl_memory_desc_t smd = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    if (scratch) { dnnl_memory_create(&args[na].memory, &smd, eng, sp); args[na].arg = DNNL_ARG_SCRATCHPAD; na++; }
    dnnl_status_t es = dnnl_primitive_execute(p, st, na, args); dnnl_stream_wait(st);
    if (es) { printf("%-70s %-26s execute status %d\n", name, implc, es); return; }
    int it = strstr(implc, "ref") ? 1 : iters;
    double best = 1e9;
    for (int r = 0; r < 3; r++) { double t0 = now(); for (int i = 0; i < it; i++) dnnl_primitive_execute(p, st, na, args); dnnl_stream_wait(st);
        double t = (now() - t0) / it * 1e6; if (t < best) best = t; }
    printf("%-70s %-26s %9.1f us\n", name, implc, best);
    dnnl_primitive_destroy(p); dnnl_primitive_desc_destroy(pd); dnnl_primitive_attr_destroy(a);
}
int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int M = atoi(argv[1]), K = atoi(argv[2]), N = atoi(argv[3]), it = atoi(argv[4]);
    dnnl_engine_create(&eng, dnnl_cpu, 0); dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
    printf("M=%d K=%d N=%d\n", M, K, N);
    int cfgs[] = {F32 | BIAS, F32 | BIAS | GELU, F32 | BIAS | SUM, F32 | BIAS | RTM,
        NOOS | DSTS32, 0, BIAS, S8SRC | BIAS, ZP | BIAS, ZPRT | BIAS, OSRT | BIAS,
        MULROW, MULFULL, S8SRC | MULFULL, ZP | MULFULL, MULSC,
        BIAS | GELU, BIAS | SUM, MULSC | ADDCOL | GELU, MULSC | ADDCOL | SUM, MULFULL | ADDCOL | GELU, MULFULL | ADDCOL | SUM,
        S8SRC | MULFULL | ADDCOL | GELU, ZP | MULFULL | ADDCOL | GELU, ZP | MULSC | ADDCOL | GELU, OSRT | BIAS | GELU,
        RTM | BIAS, RTM | BIAS | GELU, DSTU8 | BIAS | GELU};
    if (argc > 5) { // bench: fp32 as today vs the int8 per-token design (u8 src, zp 128, per-N scales, mul[M,N], add bias, GELU or sum)
        int post = atoi(argv[5]) == 1 ? GELU : atoi(argv[5]) == 2 ? ADDFULL : atoi(argv[5]) == 3 ? 0 : SUM;
        int b[] = {F32 | BIAS | post, ZP | MULFULL | ADDCOL | post, MULSC | ADDCOL | post, ZP | MULSC | ADDCOL | post};
        for (int r = 0; r < 2; r++) for (unsigned i = 0; i < 4; i++) run(M, K, N, b[i], it);
        return 0;
    }
    for (unsigned i = 0; i < sizeof cfgs / sizeof *cfgs; i++) run(M, K, N, cfgs[i], it);
    return 0;
}
