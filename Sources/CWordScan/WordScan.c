// The functions are inline, in include/WordScan.h; a C target needs one source file.
#include "WordScan.h"
