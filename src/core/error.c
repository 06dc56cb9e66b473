/* Status names and the thread's last error message. */
#include <stdarg.h>
#include <stdio.h>

#include "backend/backend.h"

/* Large enough for a kernel build log. */
static _Thread_local char last_error[16384];

const char *co_status_name(co_status status) {
    switch (status) {
    case CO_OK: return "ok";
    case CO_ERR_INVALID: return "invalid";
    case CO_ERR_UNSUPPORTED: return "unsupported";
    case CO_ERR_LIMIT: return "limit";
    case CO_ERR_NOMEM: return "out of memory";
    case CO_ERR_BUILD: return "build";
    case CO_ERR_DEVICE: return "device";
    case CO_ERR_VERIFY: return "verify";
    case CO_ERR_IO: return "io";
    case CO_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown";
}

const char *co_last_error(void) { return last_error; }

co_status co_fail(co_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}
