// The libcurl functions Transfers.swift calls, defined here as forwarders to the library opened
// by xkcd_curl_load. Hidden: were they exported, libcurl's own calls to them would land here.
// First, with their own visibility: a header of the library may include <pthread.h> again.
#include <pthread.h>
#include "CSharedLibrary.h"
#pragma GCC visibility push(hidden)
#include "CCurl.h"
#pragma GCC visibility pop

#define FUNCTIONS(X) \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_perform) X(curl_easy_cleanup) \
    X(curl_easy_setopt) X(curl_easy_getinfo) X(curl_slist_append) X(curl_slist_free_all)
XKCD_LIBRARY(FUNCTIONS, "libcurl.so.4", "XKCD_SEARCH_LIBCURL")

int xkcd_curl_load(char *error, size_t size) { return xkcd_open_once(error, size); }

CURLcode curl_global_init(long flags) { return XKCD_REAL(curl_global_init)(flags); }
CURL *curl_easy_init(void) { return XKCD_REAL(curl_easy_init)(); }
CURLcode curl_easy_perform(CURL *handle) { return XKCD_REAL(curl_easy_perform)(handle); }
void curl_easy_cleanup(CURL *handle) { XKCD_REAL(curl_easy_cleanup)(handle); }
struct curl_slist *curl_slist_append(struct curl_slist *list, const char *string) {
    return XKCD_REAL(curl_slist_append)(list, string);
}
void curl_slist_free_all(struct curl_slist *list) { XKCD_REAL(curl_slist_free_all)(list); }

CURLcode xkcd_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return XKCD_REAL(curl_easy_setopt)(handle, option, value);
}
CURLcode xkcd_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return XKCD_REAL(curl_easy_setopt)(handle, option, value);
}
CURLcode xkcd_curl_setopt_write(CURL *handle, CURLoption option, size_t (*function)(char *, size_t, size_t, void *)) {
    return XKCD_REAL(curl_easy_setopt)(handle, option, function);
}
CURLcode xkcd_curl_setopt_progress(CURL *handle, int (*function)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return XKCD_REAL(curl_easy_setopt)(handle, CURLOPT_XFERINFOFUNCTION, function);
}
CURLcode xkcd_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return XKCD_REAL(curl_easy_getinfo)(handle, info, value);
}
CURLcode xkcd_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return XKCD_REAL(curl_easy_getinfo)(handle, info, value);
}
