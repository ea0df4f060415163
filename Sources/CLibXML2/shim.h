#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, so encoding.h would include the system <unicode/ucnv.h>,
// whose UErrorCode clashes with the copy inside Foundation (_FoundationICU) in any Swift file that
// imports both. Only xmlCharEncodingHandler's trailing ICU fields depend on it; Swift code here
// never touches that struct (it is only ever used through pointers), so hide ICU from the headers.
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>
#include <libxml/tree.h>
