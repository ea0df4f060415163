// Tesseract's C API and Leptonica (Debian's libtesseract-dev and libleptonica-dev for these
// headers, libtesseract5 and liblept5 at run time), opened with dlopen before the first image is
// read (TesseractLoader.c, LeptonicaLoader.c): libtesseract brings libgomp, libarchive and
// libcurl, which a search process must not load.
#ifndef CTESSERACT_H
#define CTESSERACT_H

#include <stddef.h>
#include <leptonica/allheaders.h>
#include <tesseract/capi.h>

/// Opens libtesseract.so.5 and liblept.so.5 (or the files XKCD_SEARCH_LIBTESSERACT and
/// XKCD_SEARCH_LIBLEPT name), once per process; call it before any other function here. Returns 1,
/// or 0 with a one-line reason in `error` (no path in it).
int xkcd_tesseract_load(char *_Nonnull error, size_t size);

#endif
