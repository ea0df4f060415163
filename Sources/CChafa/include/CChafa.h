// libchafa (Debian's libchafa-dev for these headers, libchafa0 at run time, with GLib), opened with
// dlopen before the first image is drawn (ChafaLoader.c), so that a search process does not load
// it and GLib.
#ifndef CCHAFA_H
#define CCHAFA_H

#include <stddef.h>
#include <chafa.h>

/// Opens libchafa.so.0 (or the file XKCD_SEARCH_LIBCHAFA names), once per process; call it before
/// any other function here. Returns 1, or 0 with a one-line reason in `error` (no path in it).
int xkcd_chafa_load(char *_Nonnull error, size_t size);

#endif
