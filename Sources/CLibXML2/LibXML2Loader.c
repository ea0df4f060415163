// The libxml2 functions XKCDParse calls, defined here as forwarders to the library opened by
// xkcd_libxml2_load. Hidden: were they exported, libxml2's own calls to them would land here.
// First, with their own visibility: a header of the library may include <pthread.h> again.
#include <pthread.h>
#include "CSharedLibrary.h"
#pragma GCC visibility push(hidden)
#include "CLibXML2.h"
#pragma GCC visibility pop

#define FUNCTIONS(X) \
    X(xmlInitParser) X(htmlReadMemory) X(htmlEntityLookup) X(xmlDocGetRootElement) X(xmlFreeDoc) X(xmlStrlen)
XKCD_LIBRARY(FUNCTIONS, "libxml2.so.2", "XKCD_SEARCH_LIBXML2")

int xkcd_libxml2_load(char *error, size_t size) { return xkcd_open_once(error, size); }

void xmlInitParser(void) { XKCD_REAL(xmlInitParser)(); }
htmlDocPtr htmlReadMemory(const char *buffer, int size, const char *url, const char *encoding, int options) {
    return XKCD_REAL(htmlReadMemory)(buffer, size, url, encoding, options);
}
const htmlEntityDesc *htmlEntityLookup(const xmlChar *name) { return XKCD_REAL(htmlEntityLookup)(name); }
xmlNodePtr xmlDocGetRootElement(const xmlDoc *doc) { return XKCD_REAL(xmlDocGetRootElement)(doc); }
void xmlFreeDoc(xmlDocPtr doc) { XKCD_REAL(xmlFreeDoc)(doc); }
int xmlStrlen(const xmlChar *string) { return XKCD_REAL(xmlStrlen)(string); }
