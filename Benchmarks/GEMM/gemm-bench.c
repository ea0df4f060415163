// The matrix products of one all-MiniLM-L6-v2 query (6 layers: four 384x384, one 384->1536, one
// 1536->384, each y = x·Wᵀ for M tokens), through each library Debian offers, one thread.
// Times are CPU time of the thread (the machines are shared). Build and run: Benchmarks/GEMM/run.sh (one executable per library; BLIS and OpenBLAS both
// define cblas_sgemm). Prints the median and 90th percentile time of all 36 products per query.
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LAYERS 6
#define HIDDEN 384
#define INNER 1536
#define REPEATS 100

typedef struct { int outputs, inputs; float *w; void *packed; } Linear;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static float *randoms(size_t count, float scale) {
    float *values = aligned_alloc(64, ((count * sizeof(float) + 63) / 64) * 64);
    for (size_t i = 0; i < count; i++) values[i] = scale * ((float)rand() / RAND_MAX - 0.5f);
    return values;
}

static void prepare(Linear *linear, int rows);
// [outputs][inputs] (PyTorch's layout) to [inputs][outputs].
static float *transposed(const Linear *l) {
    float *t = aligned_alloc(64, (size_t)l->outputs * l->inputs * sizeof(float));
    for (int o = 0; o < l->outputs; o++)
        for (int i = 0; i < l->inputs; i++) t[(size_t)i * l->outputs + o] = l->w[(size_t)o * l->inputs + i];
    return t;
}
static void multiply(Linear *linear, const float *x, float *y, int rows);
static const char *library;

#if defined(USE_OPENBLAS)
#include <cblas.h>
extern void openblas_set_num_threads(int);
static void setup(void) { openblas_set_num_threads(1); library = "OpenBLAS 0.3.21 sgemm"; }
static float *transposed(const Linear *l);
static int pretransposed;
// WEIGHTS=ab: the weights stored transposed, [inputs][outputs], as libxsmm needs them.
static void prepare(Linear *l, int rows) {
    (void)rows;
    pretransposed = getenv("WEIGHTS") != NULL;
    if (pretransposed) l->w = transposed(l);
}
static void multiply(Linear *l, const float *x, float *y, int rows) {
    if (pretransposed)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, l->outputs, l->inputs, 1, x, l->inputs,
                    l->w, l->outputs, 0, y, l->outputs);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, l->outputs, l->inputs, 1, x, l->inputs,
                    l->w, l->inputs, 0, y, l->outputs);
}
#elif defined(USE_BLIS)
#include <blis.h>
static void setup(void) { bli_thread_set_num_threads(1); library = "BLIS 0.9.0 sgemm"; }
static void prepare(Linear *l, int rows) { (void)l; (void)rows; }
static void multiply(Linear *l, const float *x, float *y, int rows) {
    float one = 1, zero = 0;
    bli_sgemm(BLIS_NO_TRANSPOSE, BLIS_TRANSPOSE, rows, l->outputs, l->inputs, &one, (float *)x, l->inputs, 1,
              l->w, l->inputs, 1, &zero, y, l->outputs, 1);
}
#elif defined(USE_XSMM)
#include <libxsmm.h>
// libxsmm is column-major: Y (outputs x rows) = Wᵀ-stored-as-[inputs][outputs] (outputs x inputs) · X.
// The transposed weights are made once (at conversion, in the real thing); the kernel is JIT-built
// once per (rows) and reads the weights where they lie, no packing.
static void setup(void) { libxsmm_init(); library = "libxsmm 1.17 JIT smm"; }
static float *transposed(const Linear *l);
static void prepare(Linear *l, int rows) { l->w = transposed(l); (void)rows; }
static void multiply(Linear *l, const float *x, float *y, int rows) {
    float one = 1, zero = 0;
    libxsmm_blasint m = l->outputs, n = rows, k = l->inputs;
    libxsmm_smmfunction kernel = libxsmm_smmdispatch(m, n, k, &m, &k, &m, &one, &zero, NULL, NULL);
    if (!kernel) { fprintf(stderr, "no libxsmm kernel for %d %d %d\n", (int)m, (int)n, (int)k); exit(1); }
    kernel(l->w, x, y);
}
#elif defined(USE_DNNL) || defined(USE_DNNL_INT8)
#include <dnnl.h>
#define CHECK(call) do { dnnl_status_t status_ = (call); if (status_ != dnnl_success) { fprintf(stderr, "%s: %d\n", #call, status_); exit(1); } } while (0)
static dnnl_engine_t engine;
static dnnl_stream_t stream;
typedef struct { dnnl_primitive_t matmul; dnnl_memory_t weights; int rows; float *scales; int8_t *qx; float *wscale; } Packed;
static void setup(void) {
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
#ifdef USE_DNNL_INT8
    library = "oneDNN 2.6 matmul int8 (s8 x s8, weights per output channel, activations per tensor)";
#else
    library = "oneDNN 2.6 matmul f32";
#endif
}
static void prepare(Linear *l, int rows) {
    Packed *p = calloc(1, sizeof(Packed));
    p->rows = rows;
    // RUNTIME=1: one primitive for any number of rows, given at execution.
    int anyRows = getenv("RUNTIME") != NULL;
    dnnl_dim_t made = anyRows ? DNNL_RUNTIME_DIM_VAL : rows;
    dnnl_dims_t sd = {made, l->inputs}, wd = {l->inputs, l->outputs}, dd = {made, l->outputs};
    dnnl_memory_desc_t src, wany, wplain, dst;
#ifdef USE_DNNL_INT8
    dnnl_data_type_t st = dnnl_s8, wt = dnnl_s8;
#else
    dnnl_data_type_t st = dnnl_f32, wt = dnnl_f32;
#endif
    CHECK(dnnl_memory_desc_init_by_tag(&src, 2, sd, st, dnnl_ab));
    // WEIGHTS=ab or ba: the primitive reads the weights in that plain layout (no packing at
    // start-up); unset: in its own layout, reordered once.
    const char *plainLayout = getenv("WEIGHTS");
    dnnl_format_tag_t wantTag = !plainLayout ? dnnl_format_tag_any : strcmp(plainLayout, "ab") == 0 ? dnnl_ab : dnnl_ba;
    CHECK(dnnl_memory_desc_init_by_tag(&wany, 2, wd, wt, wantTag));
    CHECK(dnnl_memory_desc_init_by_tag(&wplain, 2, wd, wt, dnnl_ba));
    CHECK(dnnl_memory_desc_init_by_tag(&dst, 2, dd, dnnl_f32, dnnl_ab));
    dnnl_matmul_desc_t desc;
    CHECK(dnnl_matmul_desc_init(&desc, &src, &wany, NULL, &dst));
    dnnl_primitive_attr_t attr;
    CHECK(dnnl_primitive_attr_create(&attr));
#ifdef USE_DNNL_INT8
    // output scale per output channel: activation scale x weight scale, given at run time.
    float runtime[1] = {DNNL_RUNTIME_F32_VAL};
    CHECK(dnnl_primitive_attr_set_output_scales(attr, 1, 1 << 1, runtime));
#endif
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL));
    const dnnl_memory_desc_t *packed = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const char *impl;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    static int said;
    if (!said++) fprintf(stderr, "oneDNN implementation: %s\n", impl);
    CHECK(dnnl_primitive_create(&p->matmul, pd));
    // Reorder the plain weights into the primitive's layout once.
    dnnl_memory_t plain;
    void *wdata = l->w;
#ifdef USE_DNNL_INT8
    int8_t *q = malloc((size_t)l->inputs * l->outputs);
    p->wscale = malloc(sizeof(float) * l->outputs);
    for (int o = 0; o < l->outputs; o++) {
        float m = 0;
        for (int i = 0; i < l->inputs; i++) m = fmaxf(m, fabsf(l->w[(size_t)o * l->inputs + i]));
        p->wscale[o] = m / 127;
        for (int i = 0; i < l->inputs; i++) q[(size_t)o * l->inputs + i] = (int8_t)lrintf(l->w[(size_t)o * l->inputs + i] / p->wscale[o]);
    }
    wdata = q;
    p->scales = malloc(sizeof(float) * l->outputs);
    p->qx = aligned_alloc(64, 64 * INNER);
#endif
    CHECK(dnnl_memory_create(&plain, &wplain, engine, wdata));
    CHECK(dnnl_memory_create(&p->weights, packed, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_desc_t rpd;
    CHECK(dnnl_reorder_primitive_desc_create(&rpd, &wplain, engine, packed, engine, NULL));
    dnnl_primitive_t reorder;
    CHECK(dnnl_primitive_create(&reorder, rpd));
    dnnl_exec_arg_t rargs[2] = {{DNNL_ARG_FROM, plain}, {DNNL_ARG_TO, p->weights}};
    CHECK(dnnl_primitive_execute(reorder, stream, 2, rargs));
    CHECK(dnnl_stream_wait(stream));
    l->packed = p;
}
static void multiply(Linear *l, const float *x, float *y, int rows) {
    Packed *p = l->packed;
    dnnl_memory_t s, d;
    const dnnl_memory_desc_t *smd, *dmd;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_get_primitive_desc(p->matmul, (const_dnnl_primitive_desc_t *)&pd);
    smd = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    dmd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    dnnl_memory_desc_t sactual, dactual;
    if (getenv("RUNTIME")) {
        dnnl_dims_t sd = {rows, l->inputs}, dd = {rows, l->outputs};
        dnnl_memory_desc_init_by_tag(&sactual, 2, sd, smd->data_type, dnnl_ab);
        dnnl_memory_desc_init_by_tag(&dactual, 2, dd, dnnl_f32, dnnl_ab);
        smd = &sactual; dmd = &dactual;
    }
#ifdef USE_DNNL_INT8
    float m = 0;
    for (int i = 0; i < rows * l->inputs; i++) m = fmaxf(m, fabsf(x[i]));
    float sx = m > 0 ? m / 127 : 1;
    for (int i = 0; i < rows * l->inputs; i++) p->qx[i] = (int8_t)lrintf(x[i] / sx);
    for (int o = 0; o < l->outputs; o++) p->scales[o] = sx * p->wscale[o];
    CHECK(dnnl_memory_create(&s, smd, engine, p->qx));
    dnnl_memory_t sc;
    dnnl_dims_t scd = {l->outputs};
    dnnl_memory_desc_t scmd;
    dnnl_memory_desc_init_by_tag(&scmd, 1, scd, dnnl_f32, dnnl_a);
    CHECK(dnnl_memory_create(&sc, &scmd, engine, p->scales));
#else
    CHECK(dnnl_memory_create(&s, smd, engine, (void *)x));
#endif
    CHECK(dnnl_memory_create(&d, dmd, engine, y));
#ifdef USE_DNNL_INT8
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, p->weights}, {DNNL_ARG_DST, d}, {DNNL_ARG_ATTR_OUTPUT_SCALES, sc}};
    CHECK(dnnl_primitive_execute(p->matmul, stream, 4, args));
    dnnl_memory_destroy(sc);
#else
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, p->weights}, {DNNL_ARG_DST, d}};
    CHECK(dnnl_primitive_execute(p->matmul, stream, 3, args));
#endif
    dnnl_memory_destroy(s);
    dnnl_memory_destroy(d);
}
#endif

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int sizes[] = {7, 14, 27, 40};
    setup();
    printf("%s\n", library);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int rows = sizes[s];
        if (argc > 1 && atoi(argv[1]) != rows) continue;
        Linear linears[LAYERS * 6];
        srand(1);
        for (int layer = 0; layer < LAYERS; layer++) {
            for (int j = 0; j < 6; j++) {
                Linear *l = &linears[layer * 6 + j];
                l->outputs = j == 4 ? INNER : HIDDEN;
                l->inputs = j == 5 ? INNER : HIDDEN;
                l->w = randoms((size_t)l->outputs * l->inputs, 0.1f);
                prepare(l, rows);
            }
        }
        float *x = randoms((size_t)rows * INNER, 2), *y = randoms((size_t)rows * INNER, 1);
        double times[REPEATS];
        for (int r = -20; r < REPEATS; r++) {
            double start = now();
            for (int i = 0; i < LAYERS * 6; i++) multiply(&linears[i], x, y, rows);
            if (r >= 0) times[r] = now() - start;
        }
        qsort(times, REPEATS, sizeof *times, compare);
        double flops = 2.0 * rows * LAYERS * (4.0 * HIDDEN * HIDDEN + 2.0 * HIDDEN * INNER);
        printf("M=%2d: p50 %.3f ms, p90 %.3f ms, min %.3f ms (%.0f GFLOP/s at p50)\n", rows, times[REPEATS / 2],
               times[REPEATS * 9 / 10], times[0], flops / times[REPEATS / 2] / 1e6);
    }
    return 0;
}
