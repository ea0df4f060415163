// oneDNN (Debian's libdnnl-dev, 2.6), built over OpenMP. Its thread count is the OpenMP
// runtime's, set per calling thread: XKCDEmbed sets it to one before each embedding, so that
// no thread team starts for a query (libgomp is linked through libdnnl).
#include <oneapi/dnnl/dnnl.h>

void omp_set_num_threads(int);
