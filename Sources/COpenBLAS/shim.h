// Debian's libopenblas-dev installs cblas.h as an alternative of the chosen OpenBLAS variant.
#include <cblas.h>
