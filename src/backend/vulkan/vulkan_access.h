/* What the vulkan backend shares with the workloads and with its shader
 * compiler (shaderc.c). */
#ifndef CO_VULKAN_ACCESS_H
#define CO_VULKAN_ACCESS_H

#include "backend/backend.h"

/* Subgroup operations a compute shader may use (VkSubgroupFeatureFlagBits). */
enum {
    CO_VK_SUBGROUP_BASIC = 1,
    CO_VK_SUBGROUP_VOTE = 2,
    CO_VK_SUBGROUP_ARITHMETIC = 4,
    CO_VK_SUBGROUP_BALLOT = 8,
    CO_VK_SUBGROUP_SHUFFLE = 16
};

/* Whether dev is a Vulkan device, and if so its subgroup size and the
 * operations compute shaders have (0 elsewhere). */
bool co_vulkan_is_device(const co_device *dev);
unsigned co_vulkan_subgroup_ops(const co_device *dev);
unsigned co_vulkan_subgroup_size(const co_device *dev);
/* Whether shaders may load and store 8-bit values (storageBuffer8BitAccess). */
bool co_vulkan_has_int8(const co_device *dev);

/* dst = src (bytes of them) by vkCmdCopyBuffer, its device time in *ms
 * (timestamps; host time where the queue has none): copy's `api` anchor. */
co_status co_vulkan_copy(co_device *dev, co_buf *dst, co_buf *src, size_t bytes, double *ms);

/* GLSL 450 compute shader `source` (kernels/<name>.comp with its prelude)
 * to SPIR-V for Vulkan 1.1, with `defines` ("-DWG=256 ...") and
 * -DENTRY_<entry>, through the cache directory (kind "vulkan"). *spirv:
 * malloc'd words, *size in bytes. CO_ERR_BUILD with the log. */
co_status co_glsl_compile(const char *name, const char *source, const char *defines,
                          const char *entry, void **spirv, size_t *size);

/* For `coalesce il` (spirv.c): a module as SPIR-V assembly (SPIRV-Tools,
 * friendly names; *out malloc'd), and the bytes of its Workgroup variables
 * with specialisation constants 0-2 (the group) and 3 (CO_LOCAL_BYTES) at
 * spec[]: those of constant size returned, those sized by CO_LOCAL_BYTES
 * in *dynamic; -1 where a size cannot be evaluated. */
co_status co_spirv_text(const void *spirv, size_t size, char **out);
long co_spirv_shared_bytes(const void *spirv, size_t size, const uint32_t spec[4], long *dynamic);

#endif
