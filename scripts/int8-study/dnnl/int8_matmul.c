// int8 matmul experiments with oneDNN 2.6 C API: u8s8/s8s8 -> f32, per-N output scales,
// src zero point, per-row (per-token) binary-mul post-op [M,1], bias as binary-add [1,N] (or as
// the matmul bias), GELU / sum post-ops. Checks against a float reference of the same quantised
// integers and times against the fp32 matmul the encoder uses today.
//   gcc -O2 -o int8_matmul int8_matmul.c -ldnnl -lm && ./int8_matmul [M K N]
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <oneapi/dnnl/dnnl.h>

#define CHECK(f) do { dnnl_status_t s_ = (f); if (s_ != dnnl_success) { printf("  FAIL %s: status %d\n", #f, s_); return NULL; } } while (0)
static dnnl_engine_t engine; static dnnl_stream_t stream;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static dnnl_memory_desc_t md(int nd, const dnnl_dim_t *dims_in, dnnl_data_type_t dt) {
    dnnl_memory_desc_t d; dnnl_dims_t strides = {0}, dims = {0}; dnnl_dim_t s = 1;
    for (int i = 0; i < nd; i++) dims[i] = dims_in[i];
    for (int i = nd - 1; i >= 0; i--) { strides[i] = s; s *= (dims[i] == DNNL_RUNTIME_DIM_VAL ? 1 : dims[i]); }
    if (nd == 2 && dims[0] == DNNL_RUNTIME_DIM_VAL) strides[0] = dims[1];  // row-major, runtime M
    dnnl_memory_desc_init_by_strides(&d, nd, dims, dt, strides); return d;
}

typedef struct { int src_dt, zp, per_row, bias_mode, post /*0 none 1 gelu 2 sum*/, runtime_m, runtime_scales; } cfg_t;
// bias_mode: 0 none, 1 matmul bias, 2 binary add [1,N] after per-row mul

static dnnl_primitive_t make(int M, int K, int N, const cfg_t *c, const float *wscale, const char **impl) {
    dnnl_dim_t mM = c->runtime_m ? DNNL_RUNTIME_DIM_VAL : M;
    dnnl_dim_t ds[2] = {mM, K}, dw[2] = {K, N}, dd[2] = {mM, N}, db[2] = {1, N}, dr[2] = {mM, N};
    dnnl_memory_desc_t src = md(2, ds, c->src_dt), wei = md(2, dw, c->src_dt == dnnl_f32 ? dnnl_f32 : dnnl_s8),
                       dst = md(2, dd, dnnl_f32), bias = md(2, db, dnnl_f32), row = md(2, dr, dnnl_f32);
    dnnl_matmul_desc_t d;
    CHECK(dnnl_matmul_desc_init(&d, &src, &wei, c->bias_mode == 1 ? &bias : NULL, &dst));
    dnnl_primitive_attr_t a; dnnl_primitive_attr_create(&a);
    if (c->src_dt != dnnl_f32) {
        if (c->runtime_scales) { float r = DNNL_RUNTIME_F32_VAL; CHECK(dnnl_primitive_attr_set_output_scales(a, N, 1 << 1, &r)); }
        else CHECK(dnnl_primitive_attr_set_output_scales(a, N, 1 << 1, wscale));
        if (c->zp) { int32_t z = c->zp == 2 ? DNNL_RUNTIME_S32_VAL : (getenv("SEVEN_BIT") ? 64 : 128); CHECK(dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_SRC, 1, 0, &z)); }
    }
    dnnl_post_ops_t po; dnnl_post_ops_create(&po);
    if (c->per_row) CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_mul, &row));
    if (c->bias_mode == 2) CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, &bias));
    if (c->post == 1) CHECK(dnnl_post_ops_append_eltwise(po, 1, dnnl_eltwise_gelu_erf, 0, 0));
    if (c->post == 2) CHECK(dnnl_post_ops_append_sum(po, 1));
    CHECK(dnnl_primitive_attr_set_post_ops(a, po)); dnnl_post_ops_destroy(po);
    dnnl_primitive_desc_t pd;
    dnnl_status_t s = dnnl_primitive_desc_create(&pd, &d, a, engine, NULL);
    dnnl_primitive_attr_destroy(a);
    if (s != dnnl_success) { printf("  primitive_desc_create: status %d (unsupported)\n", s); return NULL; }
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, impl);
    dnnl_primitive_t p; CHECK(dnnl_primitive_create(&p, pd));
    static char keep[64][64]; static int n; snprintf(keep[n % 64], 64, "%s", *impl); *impl = keep[n++ % 64];
    dnnl_primitive_desc_destroy(pd); return p;
}

static float gelu(float x) { return 0.5f * x * (1 + erff(x / sqrtf(2))); }

int main(int argc, char **argv) {
    int M = argc > 3 ? atoi(argv[1]) : 16, K = argc > 3 ? atoi(argv[2]) : 384, N = argc > 3 ? atoi(argv[3]) : 1536;
    int iters = argc > 4 ? atoi(argv[4]) : 2000;
    setvbuf(stdout, NULL, _IOLBF, 0);
    dnnl_engine_create(&engine, dnnl_cpu, 0); dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
    srand(1);
    float *x = malloc(4 * M * K), *w = malloc(4 * K * N), *b = malloc(4 * N), *ws = malloc(4 * N), *xs = malloc(4 * M);
    int8_t *wq = malloc(K * N), *xq8 = malloc(M * K); uint8_t *xqu = malloc(M * K);
    float *ref = malloc(4 * M * N), *out = malloc(4 * M * N), *res0 = malloc(4 * M * N), *rsc = malloc(4 * N);
    for (int i = 0; i < M * K; i++) x[i] = ((rand() / (float)RAND_MAX) * 2 - 1) * (i % K == 7 ? 20 : 3);  // an outlier channel
    for (int i = 0; i < K * N; i++) w[i] = ((rand() / (float)RAND_MAX) * 2 - 1) * 0.05f;
    for (int n = 0; n < N; n++) b[n] = (rand() / (float)RAND_MAX - 0.5f) * 0.1f;
    for (int i = 0; i < M * N; i++) res0[i] = (rand() / (float)RAND_MAX - 0.5f);
    // weights: per-output-channel symmetric s8 (columns of [K,N])
    for (int n = 0; n < N; n++) { float m = 0; for (int k = 0; k < K; k++) m = fmaxf(m, fabsf(w[k * N + n])); ws[n] = m / 127;
        for (int k = 0; k < K; k++) wq[k * N + n] = (int8_t)lrintf(w[k * N + n] / ws[n]); }
    // activations: per-row symmetric s8, and the same shifted to u8 (+128) for zero point 128
    // QMAX=63 (7-bit) keeps u8 = q + 128 - 64... here: zero point ZPV; 7-bit: q in [-63,63], u8 = q + 64 <= 127
    int QMAX = getenv("SEVEN_BIT") ? 63 : 127, ZPV = getenv("SEVEN_BIT") ? 64 : 128;
    for (int m = 0; m < M; m++) { float a = 0; for (int k = 0; k < K; k++) a = fmaxf(a, fabsf(x[m * K + k])); xs[m] = a / QMAX;
        for (int k = 0; k < K; k++) { int q = (int)lrintf(x[m * K + k] / xs[m]); xq8[m * K + k] = q; xqu[m * K + k] = q + ZPV; } }
    const char *names[] = {"fp32 (today)", "u8s8 zp perN-scale rowmul[M,N] +bias(add) gelu", "s8s8 perN-scale rowmul[M,N] +bias(add) gelu",
        "u8s8 zp perN rowmul[M,N] bias(add) sum", "u8s8 runtime-zp perN rowmul[M,N] bias gelu", "u8s8 zp runtime M (rowmul[M,N] runtime)", "s8s8 runtime M",
        "u8s8 zp perN rowmul[M,N], matmul-bias (bias*rowscale!)", "u8s8 no zp, perN only (per-tensor dyn. via runtime scales)", "fp32 runtime M"};
    cfg_t cfgs[] = {
        {dnnl_f32, 0, 0, 1, 1, 0, 0}, {dnnl_u8, 1, 1, 2, 1, 0, 0}, {dnnl_s8, 0, 1, 2, 1, 0, 0}, {dnnl_u8, 1, 1, 2, 2, 0, 0},
        {dnnl_u8, 2, 1, 2, 1, 0, 0}, {dnnl_u8, 1, 1, 2, 1, 1, 0}, {dnnl_s8, 0, 1, 2, 1, 1, 0}, {dnnl_u8, 1, 1, 1, 1, 0, 0},
        {dnnl_u8, 1, 0, 1, 1, 0, 1}, {dnnl_f32, 0, 0, 1, 1, 1, 0}};
    int nc = sizeof cfgs / sizeof *cfgs;
    float *rows_full = malloc(4 * (size_t)M * N); for (int m = 0; m < M; m++) for (int n = 0; n < N; n++) rows_full[m * N + n] = xs[m];
    printf("M=%d K=%d N=%d, %d iterations each\n", M, K, N, iters);
    for (int ci = 0; ci < nc; ci++) {
        cfg_t *c = &cfgs[ci]; const char *impl = "?";
        printf("[%d] %s\n", ci, names[ci]);
        dnnl_primitive_t p = make(M, K, N, c, ws, &impl);
        if (!p) continue;
        // reference of what this configuration should compute
        float tensor_scale = 0; if (ci == 8) { for (int m = 0; m < M; m++) tensor_scale = fmaxf(tensor_scale, xs[m] * QMAX / 127); }
        for (int m = 0; m < M; m++) for (int n = 0; n < N; n++) {
            double acc = 0, accf = 0;
            for (int k = 0; k < K; k++) { acc += (double)xq8[m * K + k] * wq[k * N + n]; accf += (double)x[m * K + k] * w[k * N + n]; }
            float y;
            if (c->src_dt == dnnl_f32) y = accf + b[n];
            else if (ci == 7) y = (float)(acc * ws[n] + b[n]) * xs[m];  // matmul bias is inside the row scale
            else if (ci == 8) { double a2 = 0; for (int k = 0; k < K; k++) { int q = (int)lrintf(x[m*K+k] / tensor_scale); a2 += (double)q * wq[k*N+n]; } y = a2 * ws[n] * tensor_scale + b[n]; }
            else y = acc * ws[n] * xs[m] + b[n];
            if (c->post == 1) y = gelu(y); if (c->post == 2) y += res0[m * N + n];
            ref[m * N + n] = y;
        }
        uint8_t *xqt = xqu; if (ci == 8) { xqt = malloc(M * K); for (int i = 0; i < M * K; i++) xqt[i] = (int)lrintf(x[i] / tensor_scale) + 128; }
        for (int n = 0; n < N; n++) rsc[n] = ws[n] * tensor_scale;
        dnnl_dim_t dM[2] = {M, K}, dW[2] = {K, N}, dD[2] = {M, N}, dB[2] = {1, N}, dR[2] = {M, N}, d1[1] = {1}, dS[1] = {N};
        dnnl_memory_desc_t mS = md(2, dM, c->src_dt), mW = md(2, dW, c->src_dt == dnnl_f32 ? dnnl_f32 : dnnl_s8), mD = md(2, dD, dnnl_f32),
            mB = md(2, dB, dnnl_f32), mR = md(2, dR, dnnl_f32), mZ = md(1, d1, dnnl_s32), mSc = md(1, dS, dnnl_f32);
        int32_t zp = getenv("SEVEN_BIT") ? 64 : 128;
        void *srcp = c->src_dt == dnnl_f32 ? (void *)x : c->src_dt == dnnl_s8 ? (void *)xq8 : (void *)xqt;
        void *weip = c->src_dt == dnnl_f32 ? (void *)w : (void *)wq;
        dnnl_memory_t mem[8]; dnnl_exec_arg_t args[8]; int na = 0;
#define ARG(id, desc, ptr) do { dnnl_memory_desc_t d_ = desc; dnnl_memory_create(&mem[na], &d_, engine, (void *)(ptr)); args[na].arg = id; args[na].memory = mem[na]; na++; } while (0)
        ARG(DNNL_ARG_SRC, mS, srcp); ARG(DNNL_ARG_WEIGHTS, mW, weip); ARG(DNNL_ARG_DST, mD, out);
        if (c->bias_mode == 1) ARG(DNNL_ARG_BIAS, mB, b);
        int pi = 0;
        if (c->per_row) { ARG(DNNL_ARG_ATTR_MULTIPLE_POST_OP(pi) | DNNL_ARG_SRC_1, mR, rows_full); pi++; }
        if (c->bias_mode == 2) { ARG(DNNL_ARG_ATTR_MULTIPLE_POST_OP(pi) | DNNL_ARG_SRC_1, mB, b); pi++; }
        if (c->zp == 2) ARG(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, mZ, &zp);
        if (c->runtime_scales) ARG(DNNL_ARG_ATTR_OUTPUT_SCALES, mSc, rsc);
        double best = 1e9; double maxerr = 0, maxref = 0;
        for (int rep = 0; rep < 3; rep++) {
            if (c->post == 2) memcpy(out, res0, 4 * M * N);
            double t0 = now();
            int it = rep == 0 ? 1 : iters;
            for (int i = 0; i < it; i++) dnnl_primitive_execute(p, stream, na, args);
            dnnl_stream_wait(stream);
            double t = (now() - t0) / it * 1e6;
            if (rep == 0) { for (int i = 0; i < M * N; i++) { maxerr = fmax(maxerr, fabs(out[i] - ref[i])); maxref = fmax(maxref, fabs(ref[i])); } }
            else if (t < best) best = t;
        }
        printf("    impl=%s  max|err|=%.3g (max|ref| %.3g)  %.2f us/call\n", impl, maxerr, maxref, best);
        for (int i = 0; i < na; i++) dnnl_memory_destroy(mem[i]);
        dnnl_primitive_destroy(p);
    }
    return 0;
}
