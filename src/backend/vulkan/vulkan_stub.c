/* The `vulkan` backend of a build without the Vulkan headers or shaderc:
 * it is listed, and says what the build lacked (vulkan.cmake). */
#include "backend/backend.h"

#ifndef COALESCE_VULKAN_MISSING
#define COALESCE_VULKAN_MISSING "no Vulkan headers or shaderc"
#endif

static co_status probe(co_context *ctx) {
    (void)ctx;
    return co_fail(CO_ERR_UNSUPPORTED, "Vulkan: built without it: %s", COALESCE_VULKAN_MISSING);
}

static const co_backend vulkan_backend = {.name = "vulkan", .probe = probe};

const co_backend *co_backend_vulkan(void) { return &vulkan_backend; }
