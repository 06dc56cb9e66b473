/* The `opengl` backend of a build without the EGL or OpenGL headers or shaderc:
 * it is listed, and says what the build lacked (opengl.cmake). */
#include "backend/backend.h"

#ifndef COALESCE_OPENGL_MISSING
#define COALESCE_OPENGL_MISSING "no EGL or OpenGL headers or shaderc"
#endif

static co_status probe(co_context *ctx) {
    (void)ctx;
    return co_fail(CO_ERR_UNSUPPORTED, "OpenGL: built without it: %s", COALESCE_OPENGL_MISSING);
}

static const co_backend opengl_backend = {.name = "opengl", .probe = probe};

const co_backend *co_backend_opengl(void) { return &opengl_backend; }
