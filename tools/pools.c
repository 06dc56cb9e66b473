/* tools_quiet_thread_pools (tools.h): idle thread pools sleep. */
#include <stdlib.h>
#include <unistd.h>

#include "tools.h"

void tools_quiet_thread_pools(char **argv) {
    if (getenv("COALESCE_POOLS_SET")) return;
    setenv("OMP_WAIT_POLICY", "passive", 0);
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
    setenv("COALESCE_POOLS_SET", "1", 1);
    execv("/proc/self/exe", argv); /* on failure: carry on as we are */
}
