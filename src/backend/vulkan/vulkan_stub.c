/* The `vulkan` backend of a build without the Vulkan headers or shaderc:
 * it is listed, and says what the build lacked (vulkan.cmake). */
#include "backend/vulkan/vulkan_access.h"

#ifndef COALESCE_VULKAN_MISSING
#define COALESCE_VULKAN_MISSING "no Vulkan headers or shaderc"
#endif

static co_status probe(co_context *ctx) {
    (void)ctx;
    return co_fail(CO_ERR_UNSUPPORTED, "Vulkan: built without it: %s", COALESCE_VULKAN_MISSING);
}

static const co_backend vulkan_backend = {.name = "vulkan", .probe = probe};

const co_backend *co_backend_vulkan(void) { return &vulkan_backend; }

bool co_vulkan_is_device(const co_device *dev) {
    (void)dev;
    return false;
}
unsigned co_vulkan_subgroup_ops(const co_device *dev) {
    (void)dev;
    return 0;
}
unsigned co_vulkan_subgroup_size(const co_device *dev) {
    (void)dev;
    return 0;
}
bool co_vulkan_has_int8(const co_device *dev) {
    (void)dev;
    return false;
}
bool co_vulkan_has_fp64(const co_device *dev) {
    (void)dev;
    return false;
}
co_status co_vulkan_copy(co_device *dev, co_buf *dst, co_buf *src, size_t bytes, double *ms) {
    (void)dev, (void)dst, (void)src, (void)bytes, (void)ms;
    return co_fail(CO_ERR_UNSUPPORTED, "Vulkan: built without it: %s", COALESCE_VULKAN_MISSING);
}
