#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>
#include <libxml/tree.h>
