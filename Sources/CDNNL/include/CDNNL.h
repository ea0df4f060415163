// oneDNN (Debian's libdnnl-dev for this header, libdnnl2 at run time), opened with dlopen the
// first time a query is embedded rather than linked: loading it and what it brings (libstdc++,
// libgomp, libOpenCL) at start cost every search process 1-1.5 ms, most of which never embed
// (docs/performance.md). Its types and constants come from its own header; its functions are
// called through the table below, never by name.
#ifndef CDNNL_H
#define CDNNL_H

#include <stddef.h>
#include <oneapi/dnnl/dnnl.h>

// The functions XKCDEmbed calls, without their `dnnl_` prefix.
#define XKCD_DNNL_FUNCTIONS(X) \
    X(engine_create) X(engine_destroy) X(stream_create) X(stream_wait) X(stream_destroy) \
    X(memory_desc_init_by_strides) X(memory_desc_init_by_tag) X(memory_desc_equal) X(memory_desc_get_size) X(memory_create) X(memory_destroy) \
    X(matmul_desc_init) X(softmax_forward_desc_init) \
    X(post_ops_create) X(post_ops_append_sum) X(post_ops_append_eltwise) X(post_ops_append_binary) \
    X(post_ops_destroy) X(primitive_attr_set_zero_points) X(get_effective_cpu_isa) \
    X(primitive_attr_create) X(primitive_attr_set_post_ops) X(primitive_attr_set_output_scales) \
    X(primitive_attr_set_scratchpad_mode) X(primitive_attr_destroy) \
    X(primitive_desc_create) X(primitive_desc_query_md) X(primitive_desc_destroy) \
    X(primitive_create) X(primitive_execute) X(primitive_destroy) X(set_jit_profiling_flags)

/// oneDNN's functions, each with its own signature: `functions->engine_create(&engine, dnnl_cpu, 0)`.
struct xkcd_dnnl_functions {
#define XKCD_DNNL_FIELD(name) __typeof__(dnnl_##name) *_Nonnull name;
    XKCD_DNNL_FUNCTIONS(XKCD_DNNL_FIELD)
#undef XKCD_DNNL_FIELD
    /// OpenMP's, from the libgomp that libdnnl brings: oneDNN runs on as many threads as it says
    /// for the calling thread.
    void (*_Nonnull omp_set_num_threads)(int);
};

/// Opens libdnnl.so.2 and finds its functions, once per process (later calls return the first
/// call's result).
///
/// Returns the table, or NULL with a one-line reason in `error` (no path in it), when the library
/// is not installed or lacks a function.
const struct xkcd_dnnl_functions *_Nullable xkcd_dnnl_load(char *_Nonnull error, size_t size);

#endif
