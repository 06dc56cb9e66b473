/* What the command-line tools share (tools.h): quiet thread pools, numbers,
 * exit codes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools.h"

void tools_quiet_thread_pools(char **argv) {
    if (getenv("COALESCE_POOLS_SET")) return;
    setenv("OMP_WAIT_POLICY", "passive", 0);
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
    setenv("COALESCE_POOLS_SET", "1", 1);
    execv("/proc/self/exe", argv); /* on failure: carry on as we are */
}

bool tools_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out) {
    if (!s || !*s || strspn(s, "0123456789") != strlen(s)) return false;
    errno = 0;
    unsigned long long x = strtoull(s, NULL, 10);
    if (errno == ERANGE || x < min || x > max) return false;
    *out = x;
    return true;
}

int tools_exit_code(co_status st) {
    switch (st) {
    case CO_OK: return 0;
    case CO_ERR_INTERRUPTED: return 130;
    case CO_ERR_INVALID: return 2;
    case CO_ERR_UNSUPPORTED: return 3;
    default: return 1;
    }
}
