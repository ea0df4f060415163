#include "CDNNL.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct xkcd_dnnl_functions functions;
static int loaded;
static char failure[128];

static void *find(void *library, const char *name) {
    void *symbol = dlsym(library, name);
    if (symbol == NULL) {
        snprintf(failure, sizeof failure, "libdnnl.so.2 has no function %s", name);
    }
    return symbol;
}

static void load(void) {
    // XKCD_SEARCH_DNNL names another file to open instead: the tests point it at a missing one
    // to see searches fall back to words (Tests/CLITests/SemanticSearchCommandTests.swift).
    const char *file = getenv("XKCD_SEARCH_DNNL");
    // RTLD_LOCAL: its symbols (and its libstdc++'s) stay out of the process's global scope.
    void *library = dlopen(file != NULL && *file != '\0' ? file : "libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        // dlerror() names the file's path: the reason is said without it.
        snprintf(failure, sizeof failure, "libdnnl.so.2 could not be loaded");
        return;
    }
    void *symbol;
#define XKCD_DNNL_RESOLVE(name) \
    if ((symbol = find(library, "dnnl_" #name)) == NULL) goto missing; \
    functions.name = (__typeof__(functions.name))symbol;
    XKCD_DNNL_FUNCTIONS(XKCD_DNNL_RESOLVE)
#undef XKCD_DNNL_RESOLVE
    // A handle's lookup also searches the libraries it loaded, libgomp among them.
    if ((symbol = find(library, "omp_set_num_threads")) == NULL) goto missing;
    functions.omp_set_num_threads = (__typeof__(functions.omp_set_num_threads))symbol;
    loaded = 1;
    return;
missing:
    dlclose(library);
}

const struct xkcd_dnnl_functions *xkcd_dnnl_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (loaded) {
        return &functions;
    }
    if (size > 0) {
        snprintf(error, size, "%s", failure);
    }
    return NULL;
}
