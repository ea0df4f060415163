// libcurl (Debian's libcurl4-openssl-dev for this header, libcurl4 at run time), opened with
// dlopen on the first request (CurlLoader.c): linked, it and the 36 libraries it brings cost
// every process of the one executable 10 ms of start-up (docs/footprint.md).
#ifndef CCURL_H
#define CCURL_H

#include <stddef.h>
// The type-checking macros of <curl/typecheck-gcc.h> would stand in for the functions' names.
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

/// Opens libcurl.so.4 (or the file XKCD_SEARCH_LIBCURL names), once per process; call it before
/// any other function here. Returns 1, or 0 with a one-line reason in `error` (no path in it).
int xkcd_curl_load(char *_Nonnull error, size_t size);

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one wrapper per
// argument type.
CURLcode xkcd_curl_setopt_long(CURL *_Nonnull handle, CURLoption option, long value);
CURLcode xkcd_curl_setopt_pointer(CURL *_Nonnull handle, CURLoption option, const void *_Nullable value);
CURLcode xkcd_curl_setopt_write(
    CURL *_Nonnull handle, CURLoption option, size_t (*_Nonnull function)(char *_Nullable, size_t, size_t, void *_Nullable));
CURLcode xkcd_curl_setopt_progress(
    CURL *_Nonnull handle, int (*_Nonnull function)(void *_Nullable, curl_off_t, curl_off_t, curl_off_t, curl_off_t));
CURLcode xkcd_curl_getinfo_long(CURL *_Nonnull handle, CURLINFO info, long *_Nonnull value);
CURLcode xkcd_curl_getinfo_string(CURL *_Nonnull handle, CURLINFO info, char *_Nullable *_Nonnull value);

#endif
