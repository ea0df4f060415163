// The Tesseract functions XKCDOCR calls, defined here as forwarders to the library opened by
// xkcd_tesseract_load. Hidden: were they exported, the library's own calls to them would land here.
#include <pthread.h>
#include "CSharedLibrary.h"
#pragma GCC visibility push(hidden)
#include "CTesseract.h"
#pragma GCC visibility pop

int xkcd_leptonica_load(char *error, size_t size);

#define FUNCTIONS(X) \
    X(TessBaseAPICreate) X(TessBaseAPIDelete) X(TessBaseAPIEnd) X(TessBaseAPIInit3) X(TessBaseAPISetVariable) \
    X(TessBaseAPISetPageSegMode) X(TessBaseAPISetImage2) X(TessBaseAPIGetUTF8Text) X(TessBaseAPIClear) \
    X(TessDeleteText)
XKCD_LIBRARY(FUNCTIONS, "libtesseract.so.5", "XKCD_SEARCH_LIBTESSERACT")

int xkcd_tesseract_load(char *error, size_t size) {
    // Leptonica first: Tesseract takes its images, and its messages must be silenced before any.
    return xkcd_leptonica_load(error, size) && xkcd_open_once(error, size);
}

TessBaseAPI *TessBaseAPICreate(void) { return XKCD_REAL(TessBaseAPICreate)(); }
void TessBaseAPIDelete(TessBaseAPI *handle) { XKCD_REAL(TessBaseAPIDelete)(handle); }
void TessBaseAPIEnd(TessBaseAPI *handle) { XKCD_REAL(TessBaseAPIEnd)(handle); }
int TessBaseAPIInit3(TessBaseAPI *handle, const char *datapath, const char *language) {
    return XKCD_REAL(TessBaseAPIInit3)(handle, datapath, language);
}
BOOL TessBaseAPISetVariable(TessBaseAPI *handle, const char *name, const char *value) {
    return XKCD_REAL(TessBaseAPISetVariable)(handle, name, value);
}
void TessBaseAPISetPageSegMode(TessBaseAPI *handle, TessPageSegMode mode) {
    XKCD_REAL(TessBaseAPISetPageSegMode)(handle, mode);
}
void TessBaseAPISetImage2(TessBaseAPI *handle, struct Pix *pix) { XKCD_REAL(TessBaseAPISetImage2)(handle, pix); }
char *TessBaseAPIGetUTF8Text(TessBaseAPI *handle) { return XKCD_REAL(TessBaseAPIGetUTF8Text)(handle); }
void TessBaseAPIClear(TessBaseAPI *handle) { XKCD_REAL(TessBaseAPIClear)(handle); }
void TessDeleteText(const char *text) { XKCD_REAL(TessDeleteText)(text); }
