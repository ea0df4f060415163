#include "CSharedLibrary.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void xkcd_library_open(struct xkcd_library *library) {
    const char *file = getenv(library->override);
    // RTLD_LOCAL: its symbols stay out of the process's global scope, where they would meet the
    // forwarders of the same names.
    void *handle = dlopen(file != NULL && *file != '\0' ? file : library->soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        // dlerror() names the file's path: the reason is said without it.
        snprintf(library->failure, sizeof library->failure, "%s could not be loaded", library->soname);
        return;
    }
    for (size_t i = 0; i < library->count; i++) {
        // A handle's lookup also searches the libraries it loaded: GLib's functions through libchafa.
        library->functions[i] = dlsym(handle, library->names[i]);
        if (library->functions[i] == NULL) {
            snprintf(library->failure, sizeof library->failure, "%s has no function %s", library->soname, library->names[i]);
            dlclose(handle);
            return;
        }
    }
    library->loaded = 1;
}

int xkcd_library_result(const struct xkcd_library *library, char *error, size_t size) {
    if (library->loaded) {
        return 1;
    }
    if (size > 0) {
        snprintf(error, size, "%s", library->failure);
    }
    return 0;
}
