// What CCurl, CLibXML2 and CChafa share: opening a C library with dlopen on first use, so that
// a process that never fetches, parses HTML or draws an image does not load it. Linked, libcurl
// (36 shared libraries with what it needs), libxml2 and libchafa (with GLib) made every process
// of the one xkcd-search executable start three times slower (docs/footprint.md).
#ifndef CSHAREDLIBRARY_H
#define CSHAREDLIBRARY_H

#include <stddef.h>

/// One library and the functions the Swift code calls in it, filled by `xkcd_library_open`.
struct xkcd_library {
    /// The name to open: "libcurl.so.4".
    const char *_Nonnull soname;
    /// An environment variable naming another file to open instead: a test hook, so that a real
    /// process can be shown without the library.
    const char *_Nonnull override;
    const char *_Nonnull const *_Nonnull names;
    /// As many as `names`: the functions found, in the same order.
    void *_Nullable *_Nonnull functions;
    size_t count;
    int loaded;
    /// Why it failed, without a path.
    char failure[128];
};

/// Opens the library and finds its functions. Call it once, under the module's pthread_once.
void xkcd_library_open(struct xkcd_library *_Nonnull library);

/// 1 when the library was opened; else 0 and the reason in `error`.
int xkcd_library_result(const struct xkcd_library *_Nonnull library, char *_Nonnull error, size_t size);

/// Declares, in a loader's C file, the table of `FUNCTIONS` (an X-macro of names) found in
/// `soname`, and `xkcd_open_once(error, size)`, which opens it once per process and says whether
/// it did. Each forwarder then calls `XKCD_REAL(name)(...)`.
#define XKCD_LIBRARY(FUNCTIONS, soname, override) \
    enum { FUNCTIONS(XKCD_LIBRARY_INDEX) xkcd_function_count }; \
    static const char *const xkcd_names[] = {FUNCTIONS(XKCD_LIBRARY_NAME)}; \
    static void *xkcd_functions[xkcd_function_count]; \
    static struct xkcd_library xkcd_library = {soname, override, xkcd_names, xkcd_functions, xkcd_function_count, 0, ""}; \
    static pthread_once_t xkcd_once = PTHREAD_ONCE_INIT; \
    static void xkcd_open(void) { xkcd_library_open(&xkcd_library); } \
    static int xkcd_open_once(char *error, size_t size) { \
        pthread_once(&xkcd_once, xkcd_open); \
        return xkcd_library_result(&xkcd_library, error, size); \
    }
#define XKCD_LIBRARY_INDEX(name) xkcd_index_##name,
#define XKCD_LIBRARY_NAME(name) #name,
/// The library's own function `name`, with the signature its header declares.
#define XKCD_REAL(name) ((__typeof__(name) *)xkcd_functions[xkcd_index_##name])

#endif
