/* The library's version, from the header it was built with: a program
 * compiled against another header can tell (COALESCE_VERSION vs co_version()). */
#include "coalesce.h"

const char *co_version(void) { return COALESCE_VERSION; }
