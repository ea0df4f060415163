// The Leptonica functions XKCDOCR calls (reading an image's header and pixels, grey, scaling),
// forwarders to the library opened by xkcd_leptonica_load. Hidden, as in TesseractLoader.c.
#include <pthread.h>
#include "CSharedLibrary.h"
#pragma GCC visibility push(hidden)
#include "CTesseract.h"
#pragma GCC visibility pop

#define FUNCTIONS(X) \
    X(pixReadHeaderMem) X(pixReadMem) X(pixConvertTo8) X(pixScale) X(pixDestroy) X(pixGetWidth) \
    X(pixGetHeight) X(setMsgSeverity) X(pixCreate) X(pixGetData) X(pixGetWpl)
XKCD_LIBRARY(FUNCTIONS, "liblept.so.5", "XKCD_SEARCH_LIBLEPT")

int xkcd_leptonica_load(char *error, size_t size) {
    if (!xkcd_open_once(error, size)) return 0;
    // Leptonica writes its warnings to standard error (a truncated PNG, an unknown format): the
    // caller says what is wrong in its own words, so none of them is written.
    XKCD_REAL(setMsgSeverity)(L_SEVERITY_NONE);
    return 1;
}

l_ok pixReadHeaderMem(
    const l_uint8 *data, size_t size, l_int32 *format, l_int32 *width, l_int32 *height, l_int32 *bps,
    l_int32 *spp, l_int32 *iscmap) {
    return XKCD_REAL(pixReadHeaderMem)(data, size, format, width, height, bps, spp, iscmap);
}
PIX *pixReadMem(const l_uint8 *data, size_t size) { return XKCD_REAL(pixReadMem)(data, size); }
PIX *pixConvertTo8(PIX *pix, l_int32 colormap) { return XKCD_REAL(pixConvertTo8)(pix, colormap); }
PIX *pixScale(PIX *pix, l_float32 x, l_float32 y) { return XKCD_REAL(pixScale)(pix, x, y); }
void pixDestroy(PIX **pix) { XKCD_REAL(pixDestroy)(pix); }
l_int32 pixGetWidth(const PIX *pix) { return XKCD_REAL(pixGetWidth)(pix); }
l_int32 pixGetHeight(const PIX *pix) { return XKCD_REAL(pixGetHeight)(pix); }
l_int32 setMsgSeverity(l_int32 severity) { return XKCD_REAL(setMsgSeverity)(severity); }
PIX *pixCreate(l_int32 width, l_int32 height, l_int32 depth) { return XKCD_REAL(pixCreate)(width, height, depth); }
l_uint32 *pixGetData(PIX *pix) { return XKCD_REAL(pixGetData)(pix); }
l_int32 pixGetWpl(const PIX *pix) { return XKCD_REAL(pixGetWpl)(pix); }
