// libxml2 (Debian's libxml2-dev for these headers, libxml2 at run time), opened with dlopen
// before the first page is parsed (LibXML2Loader.c), so that a search process does not load it.
#ifndef CLIBXML2_H
#define CLIBXML2_H

#include <stddef.h>
#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, so encoding.h would include the system <unicode/ucnv.h>,
// whose UErrorCode clashes with the copy inside Foundation (_FoundationICU) in any Swift file that
// imports both. Only xmlCharEncodingHandler's trailing ICU fields depend on it; Swift code here
// never touches that struct (it is only ever used through pointers), so hide ICU from the headers.
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>
#include <libxml/tree.h>

/// Opens libxml2.so.2 (or the file XKCD_SEARCH_LIBXML2 names), once per process; call it before
/// any other function here. Returns 1, or 0 with a one-line reason in `error` (no path in it).
int xkcd_libxml2_load(char *_Nonnull error, size_t size);

#endif
