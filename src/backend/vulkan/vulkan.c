/* The `vulkan` backend: compute shaders through the system's Vulkan loader,
 * opened with dlopen (libvulkan.so.1), every entry point resolved through
 * vkGetInstanceProcAddr from one table, so one binary runs with or without
 * a loader or a driver. Shaders are GLSL 450 (kernels/<source>.comp behind
 * kernels/prelude.glsl), compiled at run time by shaderc (shaderc.c), one
 * SPIR-V module per entry point (-DENTRY_<entry>).
 *
 * The launch interface is every other backend's: of a co_arg list, the
 * buffers are storage-buffer bindings 0, 1, ... in order, the scalars are
 * push constants in order (4 bytes each), and a CO_LOCAL(bytes) argument is
 * specialisation constant 3 (CO_LOCAL_BYTES in the prelude), which sizes a
 * shared array. A binding the shader declares `uniform` is bound as a
 * uniform buffer (OpenCL's __constant argument), any other as a storage
 * buffer. The work-group size is specialisation constants 0-2
 * (local_size_x_id ...), set from the launch's local size, so a shader
 * takes its group from the launch as an OpenCL kernel does. A pipeline is
 * made per kernel and launch signature (bindings, push constants, group,
 * local bytes) on its first launch and kept.
 *
 * Per device: one compute queue, one command buffer and fence (each launch
 * or copy is submitted and waited for), storage buffers in the first
 * DEVICE_LOCAL memory type (mapped directly where that type is also
 * host-visible, as on lavapipe; else copies through a staging buffer), and
 * a timestamp pair around each dispatch for the kernel's time
 * (timestampPeriod ns a tick; host time where the queue has no
 * timestamps). <vulkan/vulkan.h> is used for types only. */
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <ctype.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/glsl/glsl.h"
#include "core/workload.h"

/* ---- the loader: entry points resolved by name ------------------------ */

// clang-format off
#define VK_INSTANCE_FUNCS(X)                                                                \
    X(DestroyInstance) X(EnumeratePhysicalDevices) X(GetPhysicalDeviceProperties)           \
    X(GetPhysicalDeviceProperties2) X(GetPhysicalDeviceFeatures2)                           \
    X(GetPhysicalDeviceQueueFamilyProperties) X(GetPhysicalDeviceMemoryProperties)          \
    X(EnumerateDeviceExtensionProperties) X(CreateDevice) X(GetDeviceProcAddr)

#define VK_DEVICE_FUNCS(X)                                                                  \
    X(DestroyDevice) X(GetDeviceQueue) X(DeviceWaitIdle) X(CreateBuffer) X(DestroyBuffer)   \
    X(GetBufferMemoryRequirements) X(AllocateMemory) X(FreeMemory) X(BindBufferMemory)      \
    X(MapMemory) X(UnmapMemory) X(CreateCommandPool) X(DestroyCommandPool)                  \
    X(AllocateCommandBuffers) X(BeginCommandBuffer) X(EndCommandBuffer)                     \
    X(ResetCommandBuffer) X(CmdCopyBuffer) X(CmdPipelineBarrier) X(CmdBindPipeline)         \
    X(CmdBindDescriptorSets) X(CmdPushConstants) X(CmdDispatchBase) X(CmdWriteTimestamp)        \
    X(CmdResetQueryPool) X(QueueSubmit) X(CreateFence) X(DestroyFence) X(WaitForFences)     \
    X(ResetFences) X(CreateQueryPool) X(DestroyQueryPool) X(GetQueryPoolResults)            \
    X(CreateShaderModule) X(DestroyShaderModule) X(CreateDescriptorSetLayout)               \
    X(DestroyDescriptorSetLayout) X(CreatePipelineLayout) X(DestroyPipelineLayout)          \
    X(CreateComputePipelines) X(DestroyPipeline) X(CreateDescriptorPool)                    \
    X(DestroyDescriptorPool) X(AllocateDescriptorSets) X(UpdateDescriptorSets)
// clang-format on

#define FIELD(name) PFN_vk##name name;
static struct {
    PFN_vkGetInstanceProcAddr GetInstanceProcAddr;
    PFN_vkCreateInstance CreateInstance;
    PFN_vkEnumerateInstanceVersion EnumerateInstanceVersion;
    VK_INSTANCE_FUNCS(FIELD)
    VK_DEVICE_FUNCS(FIELD)
} vk;
#undef FIELD

static const char *vk_result_name(VkResult r) {
    switch (r) {
// clang-format off
#define E(x) case x: return #x;
        E(VK_NOT_READY) E(VK_TIMEOUT) E(VK_INCOMPLETE) E(VK_ERROR_OUT_OF_HOST_MEMORY)
        E(VK_ERROR_OUT_OF_DEVICE_MEMORY) E(VK_ERROR_INITIALIZATION_FAILED)
        E(VK_ERROR_DEVICE_LOST) E(VK_ERROR_MEMORY_MAP_FAILED) E(VK_ERROR_LAYER_NOT_PRESENT)
        E(VK_ERROR_EXTENSION_NOT_PRESENT) E(VK_ERROR_FEATURE_NOT_PRESENT)
        E(VK_ERROR_INCOMPATIBLE_DRIVER) E(VK_ERROR_TOO_MANY_OBJECTS)
        E(VK_ERROR_FORMAT_NOT_SUPPORTED) E(VK_ERROR_FRAGMENTED_POOL) E(VK_ERROR_UNKNOWN)
        E(VK_ERROR_OUT_OF_POOL_MEMORY) E(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        E(VK_ERROR_FRAGMENTATION) E(VK_ERROR_INVALID_SHADER_NV)
#undef E
    default: return "unknown VkResult";
        // clang-format on
    }
}

/* Every Vulkan call goes through VK(): on failure one line naming the call
 * and its VkResult. */
static co_status vk_check(const char *call, VkResult r) {
    if (r == VK_SUCCESS) return CO_OK;
    return co_fail(r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? CO_ERR_LIMIT : CO_ERR_DEVICE,
                   "Vulkan: %s failed: %s (%d)", call, vk_result_name(r), (int)r);
}
#define VK(fn, args) vk_check("vk" #fn, vk.fn args)

/* Re-issue the last error with another status and a note after it. */
static co_status restate(co_status st, const char *note) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", co_last_error());
    return co_fail(st, "%s%s", msg, note);
}

static void *sym(void *lib, const char *name) { return dlsym(lib, name); }

/* The loader and one instance, opened once per process and kept (probe
 * runs from co_context_create, before any other use: not thread-safe). */
static struct {
    bool tried;
    VkInstance instance;
    char why[320];
} loader;

static bool loader_open(void) {
    if (loader.tried) return loader.instance != VK_NULL_HANDLE;
    loader.tried = true;
    void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(loader.why, sizeof loader.why,
                 "Vulkan: libvulkan.so.1 not found (no Vulkan loader: install libvulkan1)");
        return false;
    }
    void *p = sym(lib, "vkGetInstanceProcAddr");
    memcpy(&vk.GetInstanceProcAddr, &p, sizeof p);
    if (!vk.GetInstanceProcAddr) {
        snprintf(loader.why, sizeof loader.why,
                 "Vulkan: libvulkan.so.1 lacks vkGetInstanceProcAddr");
        return false;
    }
    vk.CreateInstance = (PFN_vkCreateInstance)vk.GetInstanceProcAddr(NULL, "vkCreateInstance");
    vk.EnumerateInstanceVersion =
        (PFN_vkEnumerateInstanceVersion)vk.GetInstanceProcAddr(NULL, "vkEnumerateInstanceVersion");
    uint32_t version = VK_API_VERSION_1_0;
    if (vk.EnumerateInstanceVersion) vk.EnumerateInstanceVersion(&version);
    if (!vk.CreateInstance || version < VK_API_VERSION_1_1) {
        snprintf(loader.why, sizeof loader.why,
                 "Vulkan: the loader offers Vulkan %u.%u; compute here needs 1.1",
                 VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));
        return false;
    }
    const VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                   .pApplicationName = "coalesce",
                                   .pEngineName = "coalesce",
                                   .apiVersion = VK_API_VERSION_1_2};
    const VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                     .pApplicationInfo = &app};
    VkInstance inst;
    VkResult r = vk.CreateInstance(&ci, NULL, &inst);
    if (r != VK_SUCCESS) {
        snprintf(loader.why, sizeof loader.why, "Vulkan: vkCreateInstance failed: %s%s",
                 vk_result_name(r),
                 r == VK_ERROR_INCOMPATIBLE_DRIVER
                     ? " (no Vulkan driver: install mesa-vulkan-drivers or a GPU driver)"
                     : "");
        return false;
    }
#define RESOLVE(name)                                                                              \
    if (!(vk.name = (PFN_vk##name)vk.GetInstanceProcAddr(inst, "vk" #name))) {                     \
        snprintf(loader.why, sizeof loader.why, "Vulkan: the loader lacks vk" #name);              \
        return false;                                                                              \
    }
    VK_INSTANCE_FUNCS(RESOLVE)
    VK_DEVICE_FUNCS(RESOLVE)
#undef RESOLVE
    loader.instance = inst;
    return true;
}

/* ---- objects ----------------------------------------------------------- */

enum { STAGING_BYTES = 64 << 20, MAX_BINDINGS = CO_GLSL_MAX_BINDINGS, MAX_PIPES = 8 };

typedef struct vk_device {
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    uint32_t family;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool timestamps; /* two: before and after a dispatch */
    double ns_per_tick;     /* timestampPeriod; 0: no timestamps on this queue */
    uint64_t tick_mask;
    uint32_t buffer_type, staging_type; /* memory type indices */
    bool buffer_mapped;                 /* buffer_type is host-visible and coherent: no staging */
    VkBuffer staging;
    VkDeviceMemory staging_mem;
    void *staging_ptr;
    uint32_t max_groups[3];
    uint32_t max_push, max_uniform;
    co_glsl_caps caps;
    /* VK_KHR_pipeline_executable_properties, where the driver has it (il) */
    PFN_vkGetPipelineExecutablePropertiesKHR GetPipelineExecutableProperties;
    PFN_vkGetPipelineExecutableStatisticsKHR GetPipelineExecutableStatistics;
} vk_device;

struct co_buf {
    VkBuffer buffer;
    VkDeviceMemory mem;
    void *mapped; /* where the memory is host-visible */
    size_t bytes;
};

/* One pipeline of a kernel: its launch signature and the objects for it. */
typedef struct vk_pipe {
    unsigned nbuf, npush;
    uint32_t spec[4]; /* local size x, y, z; CO_LOCAL bytes */
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorPool dpool;
    VkDescriptorSet set;
} vk_pipe;

struct co_kernel {
    VkShaderModule module;
    co_spirv_facts facts; /* its bindings; whether it reads gl_NumWorkGroups */
    vk_pipe pipes[MAX_PIPES];
    size_t npipes;
    char entry[];
};

static const co_backend vulkan_backend;

static const co_glsl_caps *glsl_caps(const co_device *dev) {
    return &((const vk_device *)dev->impl)->caps;
}

/* ---- commands: record, submit, wait ------------------------------------ */

/* Begin the device's command buffer; everything before it (host writes,
 * earlier submissions) is made visible to what follows. */
static co_status cmd_begin(vk_device *d) {
    const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                         .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    co_status st = VK(ResetCommandBuffer, (d->cmd, 0));
    if (!st) st = VK(BeginCommandBuffer, (d->cmd, &bi));
    if (st) return st;
    const VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    vk.CmdPipelineBarrier(d->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                          VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    return CO_OK;
}

/* End, submit and wait; the commands' writes are then visible to the host. */
static co_status cmd_submit_wait(vk_device *d) {
    const VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                                .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vk.CmdPipelineBarrier(d->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                          1, &mb, 0, NULL, 0, NULL);
    const VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                             .commandBufferCount = 1,
                             .pCommandBuffers = &d->cmd};
    co_status st = VK(EndCommandBuffer, (d->cmd));
    if (!st) st = VK(QueueSubmit, (d->queue, 1, &si, d->fence));
    if (st) return st;
    st = VK(WaitForFences, (d->dev, 1, &d->fence, VK_TRUE, UINT64_MAX));
    co_status reset = VK(ResetFences, (d->dev, 1, &d->fence));
    return st ? st : reset;
}

/* ---- memory ------------------------------------------------------------ */

/* The first memory type allowed by `bits` with all of `want` (drivers list
 * their preferred types first); -1 if none. */
static int memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits,
                       VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want) return (int)i;
    return -1;
}

static co_status make_buffer(co_device *dev, size_t bytes, uint32_t type, co_buf *b) {
    vk_device *d = dev->impl;
    /* Vulkan has no empty buffers; whole words, so that uint views of a
     * byte array stay inside it. */
    const VkDeviceSize size = bytes ? (bytes + 3) / 4 * 4 : 4;
    const VkBufferCreateInfo bi = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    co_status st = VK(CreateBuffer, (d->dev, &bi, NULL, &b->buffer));
    if (st) return st;
    VkMemoryRequirements req;
    vk.GetBufferMemoryRequirements(d->dev, b->buffer, &req);
    if (!(req.memoryTypeBits & (1u << type)))
        return co_fail(CO_ERR_DEVICE, "Vulkan: %s cannot place a storage buffer in memory type %u",
                       dev->info.spec, type);
    const VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                     .allocationSize = req.size,
                                     .memoryTypeIndex = type};
    if ((st = VK(AllocateMemory, (d->dev, &ai, NULL, &b->mem)))) {
        char note[128];
        snprintf(note, sizeof note, " (%zu bytes on %s)", bytes, dev->info.spec);
        return restate(st, note);
    }
    return VK(BindBufferMemory, (d->dev, b->buffer, b->mem, 0));
}

static void buffer_destroy(vk_device *d, co_buf *b) {
    if (b->mapped) vk.UnmapMemory(d->dev, b->mem);
    if (b->buffer) vk.DestroyBuffer(d->dev, b->buffer, NULL);
    if (b->mem) vk.FreeMemory(d->dev, b->mem, NULL);
}

static co_status alloc(co_device *dev, size_t bytes, co_buf **out) {
    vk_device *d = dev->impl;
    co_buf *b = calloc(1, sizeof *b);
    if (!b) return co_fail(CO_ERR_NOMEM, "out of host memory");
    b->bytes = bytes;
    co_status st = make_buffer(dev, bytes, d->buffer_type, b);
    if (!st && d->buffer_mapped)
        st = VK(MapMemory, (d->dev, b->mem, 0, VK_WHOLE_SIZE, 0, &b->mapped));
    if (st) {
        buffer_destroy(d, b);
        free(b);
        return st;
    }
    *out = b;
    return CO_OK;
}

static void buf_free(co_device *dev, co_buf *buf) {
    if (!buf) return;
    buffer_destroy(dev->impl, buf);
    free(buf);
}

static co_status check_size(const co_device *dev, const co_buf *buf, size_t offset, size_t bytes) {
    if (offset <= buf->bytes && bytes <= buf->bytes - offset) return CO_OK;
    return co_fail(CO_ERR_INVALID, "Vulkan: copy of %zu bytes at %zu into a %zu-byte buffer on %s",
                   bytes, offset, buf->bytes, dev->info.spec);
}

/* The staging buffer, made on the first copy through it. */
static co_status staging(co_device *dev) {
    vk_device *d = dev->impl;
    if (d->staging_ptr) return CO_OK;
    co_buf b = {0};
    co_status st = make_buffer(dev, STAGING_BYTES, d->staging_type, &b);
    if (!st) st = VK(MapMemory, (d->dev, b.mem, 0, VK_WHOLE_SIZE, 0, &d->staging_ptr));
    if (st) {
        buffer_destroy(d, &b);
        d->staging_ptr = NULL;
        return st;
    }
    d->staging = b.buffer;
    d->staging_mem = b.mem;
    return CO_OK;
}

/* Copy between the host and a buffer at `at` bytes into it: directly where
 * it is mapped, else through the staging buffer a piece at a time. */
static co_status transfer(co_device *dev, co_buf *buf, size_t at, void *host, size_t bytes,
                          bool up) {
    vk_device *d = dev->impl;
    co_status st = check_size(dev, buf, at, bytes);
    if (st || !bytes) return st;
    if (buf->mapped) {
        if (up)
            memcpy((char *)buf->mapped + at, host, bytes);
        else
            memcpy(host, (char *)buf->mapped + at, bytes);
        return CO_OK;
    }
    if ((st = staging(dev))) return st;
    for (size_t off = 0; off < bytes; off += STAGING_BYTES) {
        const size_t n = bytes - off < STAGING_BYTES ? bytes - off : STAGING_BYTES;
        const VkBufferCopy region = {
            .srcOffset = up ? 0 : at + off, .dstOffset = up ? at + off : 0, .size = n};
        if (up) memcpy(d->staging_ptr, (char *)host + off, n);
        if ((st = cmd_begin(d))) return st;
        vk.CmdCopyBuffer(d->cmd, up ? d->staging : buf->buffer, up ? buf->buffer : d->staging, 1,
                         &region);
        if ((st = cmd_submit_wait(d))) return st;
        if (!up) memcpy((char *)host + off, d->staging_ptr, n);
    }
    return CO_OK;
}

static co_status upload(co_device *dev, co_buf *dst, const void *src, size_t bytes) {
    return transfer(dev, dst, 0, (void *)src, bytes, true);
}

static co_status download(co_device *dev, void *dst, co_buf *src, size_t bytes) {
    return transfer(dev, src, 0, dst, bytes, false);
}

static co_status write_at(co_device *dev, co_buf *dst, size_t offset, const void *src,
                          size_t bytes) {
    return transfer(dev, dst, offset, (void *)src, bytes, true);
}

static co_status read_at(co_device *dev, void *dst, co_buf *src, size_t offset, size_t bytes) {
    return transfer(dev, src, offset, dst, bytes, false);
}

/* ---- probe and release ------------------------------------------------- */

static void release(co_device *dev) {
    vk_device *d = dev->impl;
    if (!d) return;
    if (d->dev) {
        vk.DeviceWaitIdle(d->dev);
        if (d->staging_ptr) vk.UnmapMemory(d->dev, d->staging_mem);
        if (d->staging) vk.DestroyBuffer(d->dev, d->staging, NULL);
        if (d->staging_mem) vk.FreeMemory(d->dev, d->staging_mem, NULL);
        if (d->timestamps) vk.DestroyQueryPool(d->dev, d->timestamps, NULL);
        if (d->fence) vk.DestroyFence(d->dev, d->fence, NULL);
        if (d->pool) vk.DestroyCommandPool(d->dev, d->pool, NULL);
        vk.DestroyDevice(d->dev, NULL);
    }
    free(d);
    dev->impl = NULL;
}

static const char *vendor_name(uint32_t id) {
    switch (id) {
    case 0x10DE: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x8086: return "Intel";
    case 0x13B5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x10005: return "Mesa";
    default: return NULL;
    }
}

static bool has_extension(VkPhysicalDevice phys, const char *name) {
    uint32_t n = 0;
    if (vk.EnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) != VK_SUCCESS || !n)
        return false;
    VkExtensionProperties *ext = malloc(n * sizeof *ext);
    bool found = false;
    if (ext && vk.EnumerateDeviceExtensionProperties(phys, NULL, &n, ext) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = strcmp(ext[i].extensionName, name) == 0;
    free(ext);
    return found;
}

/* What the device reports, into info and d (no device made yet). */
static void describe(VkPhysicalDevice phys, vk_device *d, co_device_info *info) {
    VkPhysicalDeviceSubgroupProperties sub = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceMaintenance3Properties m3 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, .pNext = &sub};
    VkPhysicalDeviceDriverProperties drv = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, .pNext = &m3};
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
    VkPhysicalDeviceProperties base;
    vk.GetPhysicalDeviceProperties(phys, &base);
    const bool v12 = base.apiVersion >= VK_API_VERSION_1_2;
    const bool nv_sm = has_extension(phys, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    if (nv_sm) m3.pNext = &sub, sub.pNext = &sm;
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = v12 ? (void *)&drv : (void *)&m3};
    vk.GetPhysicalDeviceProperties2(phys, &p2);
    const VkPhysicalDeviceProperties *p = &p2.properties;
    const VkPhysicalDeviceLimits *lim = &p->limits;

    snprintf(info->backend, sizeof info->backend, "vulkan");
    snprintf(info->name, sizeof info->name, "%.127s", p->deviceName);
    const char *vendor = vendor_name(p->vendorID);
    if (vendor)
        snprintf(info->vendor, sizeof info->vendor, "%s", vendor);
    else
        snprintf(info->vendor, sizeof info->vendor, "vendor 0x%04x", p->vendorID);
    snprintf(info->platform, sizeof info->platform, "Vulkan");
    snprintf(info->api_version, sizeof info->api_version, "Vulkan %u.%u.%u",
             VK_API_VERSION_MAJOR(p->apiVersion), VK_API_VERSION_MINOR(p->apiVersion),
             VK_API_VERSION_PATCH(p->apiVersion));
    if (v12 && drv.driverName[0])
        snprintf(info->driver_version, sizeof info->driver_version, "%.24s %.38s", drv.driverName,
                 drv.driverInfo);
    else
        snprintf(info->driver_version, sizeof info->driver_version, "0x%08x", p->driverVersion);
    switch (p->deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU: info->type = CO_DEVICE_CPU; break;
    case VK_PHYSICAL_DEVICE_TYPE_OTHER: info->type = CO_DEVICE_ACCELERATOR; break;
    default: info->type = CO_DEVICE_GPU; /* discrete, integrated, virtual */
    }
    /* Vulkan reports no compute units: SMs on NVIDIA, cores on a CPU. */
    if (nv_sm)
        info->compute_units = sm.shaderSMCount;
    else if (info->type == CO_DEVICE_CPU)
        info->compute_units = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    info->max_work_group_size = lim->maxComputeWorkGroupInvocations;
    for (int i = 0; i < 3; i++) {
        info->max_work_item_sizes[i] = lim->maxComputeWorkGroupSize[i];
        d->max_groups[i] = lim->maxComputeWorkGroupCount[i];
    }
    info->local_mem_bytes = info->local_mem_arg_bytes = lim->maxComputeSharedMemorySize;
    VkPhysicalDeviceMemoryProperties mp;
    vk.GetPhysicalDeviceMemoryProperties(phys, &mp);
    for (uint32_t i = 0; i < mp.memoryHeapCount; i++)
        if ((mp.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            mp.memoryHeaps[i].size > info->global_mem_bytes)
            info->global_mem_bytes = (size_t)mp.memoryHeaps[i].size;
    /* A buffer is one allocation and one storage-buffer binding. */
    info->max_alloc_bytes = (size_t)m3.maxMemoryAllocationSize;
    if (lim->maxStorageBufferRange < info->max_alloc_bytes)
        info->max_alloc_bytes = lim->maxStorageBufferRange;
    d->max_push = lim->maxPushConstantsSize;
    d->max_uniform = lim->maxUniformBufferRange;
    d->caps.subgroup_size = sub.subgroupSize;
    d->caps.subgroup_ops =
        (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ? sub.supportedOperations : 0;
    d->ns_per_tick = lim->timestampPeriod;
    char ops[160];
    co_glsl_subgroup_words(d->caps.subgroup_ops, ops, sizeof ops);
    const int len = snprintf(
        info->limits, sizeof info->limits,
        "Vulkan: maxComputeWorkGroupInvocations %u, maxComputeWorkGroupSize %ux%ux%u, "
        "maxComputeWorkGroupCount %ux%ux%u, maxComputeSharedMemorySize %u B, subgroup %u (%s), "
        "timestampPeriod %g ns",
        lim->maxComputeWorkGroupInvocations, lim->maxComputeWorkGroupSize[0],
        lim->maxComputeWorkGroupSize[1], lim->maxComputeWorkGroupSize[2],
        lim->maxComputeWorkGroupCount[0], lim->maxComputeWorkGroupCount[1],
        lim->maxComputeWorkGroupCount[2], lim->maxComputeSharedMemorySize, sub.subgroupSize, ops,
        lim->timestampPeriod);
    (void)len; /* a longer line is cut: it is only shown */
}

/* The logical device: a compute queue (a compute-only family first, as
 * dedicated compute queues are), the features the shaders use where the
 * device has them, command buffer, fence, timestamps, memory types. */
static co_status open_device(VkPhysicalDevice phys, vk_device *d, co_device_info *info) {
    d->phys = phys;
    describe(phys, d, info);
    uint32_t nfam = 0;
    vk.GetPhysicalDeviceQueueFamilyProperties(phys, &nfam, NULL);
    VkQueueFamilyProperties fam[32];
    if (nfam > 32) nfam = 32;
    vk.GetPhysicalDeviceQueueFamilyProperties(phys, &nfam, fam);
    int best = -1;
    for (uint32_t i = 0; i < nfam; i++) {
        if (!(fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
        const bool dedicated = !(fam[i].queueFlags & VK_QUEUE_GRAPHICS_BIT);
        if (best < 0 ||
            (dedicated && fam[i].timestampValidBits &&
             ((fam[best].queueFlags & VK_QUEUE_GRAPHICS_BIT) || !fam[best].timestampValidBits)))
            best = (int)i;
    }
    if (best < 0) return co_fail(CO_ERR_UNSUPPORTED, "Vulkan: %s has no compute queue", info->name);
    d->family = (uint32_t)best;
    const uint32_t bits = fam[best].timestampValidBits;
    d->tick_mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    if (!bits) d->ns_per_tick = 0;

    /* Features: 8-bit storage (grayscale's bytes), float64 (peak's FMA). */
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceProperties base;
    vk.GetPhysicalDeviceProperties(phys, &base);
    const bool v12 = base.apiVersion >= VK_API_VERSION_1_2;
    if (v12) f2.pNext = &f12;
    /* The compiler's statistics for `coalesce il`, where the driver has them. */
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fx = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    const char *const stats_ext = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    if (has_extension(phys, stats_ext)) fx.pNext = f2.pNext, f2.pNext = &fx;
    vk.GetPhysicalDeviceFeatures2(phys, &f2);
    VkPhysicalDeviceVulkan12Features e12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .storageBuffer8BitAccess = f12.storageBuffer8BitAccess,
        .shaderInt8 = f12.shaderInt8};
    VkPhysicalDeviceFeatures2 e2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = v12 ? &e12 : NULL};
    e2.features.shaderFloat64 = f2.features.shaderFloat64;
    e2.features.shaderInt64 = f2.features.shaderInt64;
    d->caps.int8 = v12 && f12.storageBuffer8BitAccess && f12.shaderInt8;
    d->caps.fp64 = f2.features.shaderFloat64;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR ex = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
        .pNext = e2.pNext,
        .pipelineExecutableInfo = VK_TRUE};
    if (fx.pipelineExecutableInfo) e2.pNext = &ex;

    const float priority = 1.0f;
    const VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                        .queueFamilyIndex = d->family,
                                        .queueCount = 1,
                                        .pQueuePriorities = &priority};
    const VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                   .pNext = &e2,
                                   .queueCreateInfoCount = 1,
                                   .pQueueCreateInfos = &qi,
                                   .enabledExtensionCount = fx.pipelineExecutableInfo ? 1 : 0,
                                   .ppEnabledExtensionNames = &stats_ext};
    co_status st = VK(CreateDevice, (phys, &di, NULL, &d->dev));
    if (st) return st;
    if (fx.pipelineExecutableInfo) {
        d->GetPipelineExecutableProperties =
            (PFN_vkGetPipelineExecutablePropertiesKHR)vk.GetDeviceProcAddr(
                d->dev, "vkGetPipelineExecutablePropertiesKHR");
        d->GetPipelineExecutableStatistics =
            (PFN_vkGetPipelineExecutableStatisticsKHR)vk.GetDeviceProcAddr(
                d->dev, "vkGetPipelineExecutableStatisticsKHR");
    }
    vk.GetDeviceQueue(d->dev, d->family, 0, &d->queue);
    const VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                        .queueFamilyIndex = d->family};
    if ((st = VK(CreateCommandPool, (d->dev, &pi, NULL, &d->pool)))) return st;
    const VkCommandBufferAllocateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                            .commandPool = d->pool,
                                            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                            .commandBufferCount = 1};
    if ((st = VK(AllocateCommandBuffers, (d->dev, &ci, &d->cmd)))) return st;
    const VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if ((st = VK(CreateFence, (d->dev, &fi, NULL, &d->fence)))) return st;
    if (d->ns_per_tick > 0) {
        const VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                           .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                           .queryCount = 2};
        if ((st = VK(CreateQueryPool, (d->dev, &qpi, NULL, &d->timestamps)))) return st;
    }

    VkPhysicalDeviceMemoryProperties mp;
    vk.GetPhysicalDeviceMemoryProperties(phys, &mp);
    const VkMemoryPropertyFlags host =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    int buffer = memory_type(&mp, ~0u, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (buffer < 0) buffer = memory_type(&mp, ~0u, 0);
    int stage = memory_type(&mp, ~0u, host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (stage < 0) stage = memory_type(&mp, ~0u, host);
    if (buffer < 0 || stage < 0)
        return co_fail(CO_ERR_UNSUPPORTED, "Vulkan: %s has no host-visible memory type",
                       info->name);
    d->buffer_type = (uint32_t)buffer;
    d->staging_type = (uint32_t)stage;
    d->buffer_mapped = (mp.memoryTypes[buffer].propertyFlags & host) == host;
    return CO_OK;
}

/* GPUs first (discrete, integrated, virtual), then the rest, so that the
 * bare spec `vulkan` is the machine's GPU wherever it also has lavapipe. */
static int type_rank(VkPhysicalDevice phys) {
    VkPhysicalDeviceProperties p;
    vk.GetPhysicalDeviceProperties(phys, &p);
    switch (p.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

static co_status probe(co_context *ctx) {
    if (!loader_open()) return co_fail(CO_ERR_UNSUPPORTED, "%s", loader.why);
    uint32_t n = 0;
    VkResult r = vk.EnumeratePhysicalDevices(loader.instance, &n, NULL);
    if (r != VK_SUCCESS || n == 0)
        return co_fail(CO_ERR_UNSUPPORTED,
                       "Vulkan: no device (%s): install mesa-vulkan-drivers or a GPU driver",
                       r != VK_SUCCESS ? vk_result_name(r) : "the loader found no driver");
    VkPhysicalDevice phys[16];
    if (n > 16) n = 16;
    co_status st = VK(EnumeratePhysicalDevices, (loader.instance, &n, phys));
    if (st) return restate(CO_ERR_UNSUPPORTED, "");
    for (uint32_t i = 1; i < n; i++) /* a stable insertion sort by type */
        for (uint32_t j = i; j > 0 && type_rank(phys[j]) < type_rank(phys[j - 1]); j--) {
            VkPhysicalDevice t = phys[j];
            phys[j] = phys[j - 1], phys[j - 1] = t;
        }
    /* A device that fails to open (too old, no compute queue) is skipped;
     * the backend is available if any opened, else the last failure says
     * why not. */
    size_t added = 0;
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        vk.GetPhysicalDeviceProperties(phys[i], &p);
        co_device_info info;
        memset(&info, 0, sizeof info);
        vk_device *d = calloc(1, sizeof *d);
        if (!d) return co_fail(CO_ERR_NOMEM, "out of host memory probing Vulkan devices");
        co_device tmp = {.impl = d};
        if (p.apiVersion < VK_API_VERSION_1_1)
            st = co_fail(CO_ERR_UNSUPPORTED, "Vulkan: %s offers Vulkan %u.%u; 1.1 is needed",
                         p.deviceName, VK_API_VERSION_MAJOR(p.apiVersion),
                         VK_API_VERSION_MINOR(p.apiVersion));
        else
            st = open_device(phys[i], d, &info);
        snprintf(info.spec, sizeof info.spec, "vulkan:%zu", added);
        if (!st) st = co_context_add_device(ctx, &vulkan_backend, &info, d);
        if (st)
            release(&tmp);
        else
            added++;
    }
    return added ? CO_OK : restate(CO_ERR_UNSUPPORTED, "");
}

/* ---- programs and kernels ---------------------------------------------- */

static void pipe_destroy(vk_device *d, vk_pipe *p) {
    if (p->pipeline) vk.DestroyPipeline(d->dev, p->pipeline, NULL);
    if (p->layout) vk.DestroyPipelineLayout(d->dev, p->layout, NULL);
    if (p->dsl) vk.DestroyDescriptorSetLayout(d->dev, p->dsl, NULL);
    if (p->dpool) vk.DestroyDescriptorPool(d->dev, p->dpool, NULL);
    memset(p, 0, sizeof *p);
}

static void kernel_destroy(co_device *dev, co_kernel *k) {
    vk_device *d = dev->impl;
    for (size_t i = 0; i < k->npipes; i++) pipe_destroy(d, &k->pipes[i]);
    if (k->module) vk.DestroyShaderModule(d->dev, k->module, NULL);
    free(k);
}

static void program_free(co_device *dev, co_program *prog) {
    co_glsl_program_free(dev, prog, kernel_destroy);
}

static co_status kernel(co_device *dev, co_program *prog, const char *entry, co_kernel **out) {
    vk_device *d = dev->impl;
    if ((*out = co_glsl_kernel_find(prog, entry))) return CO_OK;
    co_kernel *k = calloc(1, sizeof *k + strlen(entry) + 1);
    if (!k) return co_fail(CO_ERR_NOMEM, "out of host memory");
    strcpy(k->entry, entry);
    void *spirv = NULL;
    size_t size = 0;
    co_status st = co_glsl_compile(CO_GLSL_VULKAN, prog->name, prog->source, prog->defines, entry,
                                   &spirv, &size);
    if (!st) {
        const VkShaderModuleCreateInfo mi = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = spirv};
        co_spirv_launch_facts(spirv, size, &k->facts);
        st = VK(CreateShaderModule, (d->dev, &mi, NULL, &k->module));
        if (st) {
            char note[160];
            snprintf(note, sizeof note, " (shader %.60s.comp, entry %.60s)", prog->name, entry);
            st = restate(CO_ERR_BUILD, note);
        }
    }
    free(spirv);
    if (!st) st = co_glsl_kernel_add(prog, entry, k);
    if (st) {
        kernel_destroy(dev, k);
        return st;
    }
    *out = k;
    return CO_OK;
}

static VkDescriptorType descriptor_type(const co_kernel *k, unsigned binding) {
    return k->facts.uniform_mask >> binding & 1 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

/* A compute pipeline of kernel k with `layout` and specialisation
 * constants spec[] (local size x, y, z; CO_LOCAL bytes). */
static co_status make_pipeline(vk_device *d, const co_kernel *k, VkPipelineLayout layout,
                               const uint32_t spec[4], VkPipelineCreateFlags flags,
                               VkPipeline *out) {
    const VkSpecializationMapEntry map[4] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}, {3, 12, 4}};
    const VkSpecializationInfo si = {
        .mapEntryCount = 4, .pMapEntries = map, .dataSize = 4 * sizeof *spec, .pData = spec};
    const VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = k->module,
                  .pName = "main",
                  .pSpecializationInfo = &si},
        .flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT | flags,
        .layout = layout};
    return VK(CreateComputePipelines, (d->dev, VK_NULL_HANDLE, 1, &ci, NULL, out));
}

/* The pipeline of kernel k for a launch signature, made on first use. */
static co_status pipe_for(vk_device *d, co_kernel *k, unsigned nbuf, unsigned npush,
                          const uint32_t spec[4], vk_pipe **out) {
    for (size_t i = 0; i < k->npipes; i++) {
        vk_pipe *p = &k->pipes[i];
        if (p->nbuf == nbuf && p->npush == npush && !memcmp(p->spec, spec, sizeof p->spec)) {
            *out = p;
            return CO_OK;
        }
    }
    if (k->npipes == MAX_PIPES) { /* a kernel launched many ways: the oldest goes */
        pipe_destroy(d, &k->pipes[0]);
        memmove(&k->pipes[0], &k->pipes[1], (MAX_PIPES - 1) * sizeof *k->pipes);
        k->npipes--;
    }
    vk_pipe *p = &k->pipes[k->npipes];
    memset(p, 0, sizeof *p);
    p->nbuf = nbuf, p->npush = npush;
    memcpy(p->spec, spec, sizeof p->spec);
    VkDescriptorSetLayoutBinding bind[MAX_BINDINGS];
    uint32_t nuniform = 0;
    for (unsigned i = 0; i < nbuf; i++) {
        nuniform += k->facts.uniform_mask >> i & 1;
        bind[i] = (VkDescriptorSetLayoutBinding){.binding = i,
                                                 .descriptorType = descriptor_type(k, i),
                                                 .descriptorCount = 1,
                                                 .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    }
    const VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = nbuf,
        .pBindings = bind};
    const VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
                                       .size = 4 * npush};
    const VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                            .setLayoutCount = 1,
                                            .pSetLayouts = &p->dsl,
                                            .pushConstantRangeCount = npush ? 1 : 0,
                                            .pPushConstantRanges = &range};
    const VkDescriptorPoolSize ps[2] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nbuf > nuniform ? nbuf - nuniform : 1},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nuniform}};
    const VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                            .maxSets = 1,
                                            .poolSizeCount = nuniform ? 2 : 1,
                                            .pPoolSizes = ps};
    co_status st = VK(CreateDescriptorSetLayout, (d->dev, &li, NULL, &p->dsl));
    if (!st) st = VK(CreatePipelineLayout, (d->dev, &pli, NULL, &p->layout));
    if (!st) st = make_pipeline(d, k, p->layout, p->spec, 0, &p->pipeline);
    if (!st) st = VK(CreateDescriptorPool, (d->dev, &dpi, NULL, &p->dpool));
    if (!st) {
        const VkDescriptorSetAllocateInfo ai = {.sType =
                                                    VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                                .descriptorPool = p->dpool,
                                                .descriptorSetCount = 1,
                                                .pSetLayouts = &p->dsl};
        st = VK(AllocateDescriptorSets, (d->dev, &ai, &p->set));
    }
    if (st) {
        pipe_destroy(d, p);
        return st;
    }
    k->npipes++;
    *out = p;
    return CO_OK;
}

/* ---- launch ------------------------------------------------------------ */

/* Submit, wait, and the time between the two timestamps (stamps), else
 * the host's time around the submission. */
static co_status submit_timed(vk_device *d, bool stamps, double *ms) {
    const double t0 = co_now_ms();
    co_status st = cmd_submit_wait(d);
    const double host_ms = co_now_ms() - t0;
    uint64_t t[2] = {0, 0};
    if (!st && stamps)
        st = VK(GetQueryPoolResults, (d->dev, d->timestamps, 0, 2, sizeof t, t, sizeof t[0],
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    if (!st)
        *ms = stamps ? (double)((t[1] - t[0]) & d->tick_mask) * d->ns_per_tick * 1e-6 : host_ms;
    return st;
}

/* Groups of a dispatch from base `at` of `total`, at most `most`. */
static uint32_t piece(uint32_t total, uint32_t at, uint32_t most) {
    return total - at < most ? total - at : most;
}

static co_status launch(co_device *dev, co_kernel *k, unsigned dims, const size_t global[3],
                        const size_t local[3], size_t nargs, const co_arg *args,
                        double *kernel_ms) {
    vk_device *d = dev->impl;
    co_glsl_shape shape;
    co_glsl_args a;
    co_status st = co_glsl_launch_shape(dev, "Vulkan", k->entry, dims, global, local,
                                        k->facts.num_groups, d->max_groups, &shape);
    if (!st)
        st = co_glsl_launch_args("Vulkan", k->entry, nargs, args, d->max_push / 4,
                                 "maxPushConstantsSize", &a, &shape);
    if (st) return st;
    const uint32_t *groups = shape.groups;
    const unsigned nbuf = a.nbuf, npush = a.nscalars;
    VkDescriptorBufferInfo bufs[MAX_BINDINGS];
    for (unsigned i = 0; i < nbuf; i++) {
        const size_t bytes = (a.bufs[i]->bytes + 3) / 4 * 4; /* as make_buffer made it */
        if (descriptor_type(k, i) == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER && bytes > d->max_uniform)
            return co_fail(CO_ERR_LIMIT,
                           "Vulkan: kernel '%s': uniform buffer %u of %zu bytes, over "
                           "%s's maxUniformBufferRange %u",
                           k->entry, i, bytes, dev->info.spec, d->max_uniform);
        bufs[i] = (VkDescriptorBufferInfo){a.bufs[i]->buffer, 0, VK_WHOLE_SIZE};
    }
    vk_pipe *p;
    st = pipe_for(d, k, nbuf, npush, shape.spec, &p);
    if (st) {
        char note[160];
        snprintf(note, sizeof note, " (kernel '%.100s')", k->entry);
        return restate(st, note);
    }
    VkWriteDescriptorSet w[MAX_BINDINGS];
    for (unsigned i = 0; i < nbuf; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = p->set,
                                      .dstBinding = i,
                                      .descriptorCount = 1,
                                      .descriptorType = descriptor_type(k, i),
                                      .pBufferInfo = &bufs[i]};
    if (nbuf) vk.UpdateDescriptorSets(d->dev, nbuf, w, 0, NULL); /* the last launch has ended */

    const bool stamps = kernel_ms && d->timestamps;
    if ((st = cmd_begin(d))) return st;
    if (stamps) {
        vk.CmdResetQueryPool(d->cmd, d->timestamps, 0, 2);
        vk.CmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, d->timestamps, 0);
    }
    vk.CmdBindPipeline(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    vk.CmdBindDescriptorSets(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &p->set, 0,
                             NULL);
    if (npush)
        vk.CmdPushConstants(d->cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4 * npush,
                            a.scalars);
    /* More groups than maxComputeWorkGroupCount: dispatches of at most
     * that many, each from its base group, so gl_WorkGroupID and
     * gl_GlobalInvocationID are those of one dispatch (gl_NumWorkGroups is
     * not: shaders that read it launch within the limit). */
    for (uint32_t z = 0; z < groups[2]; z += d->max_groups[2])
        for (uint32_t y = 0; y < groups[1]; y += d->max_groups[1])
            for (uint32_t x = 0; x < groups[0]; x += d->max_groups[0])
                vk.CmdDispatchBase(d->cmd, x, y, z, piece(groups[0], x, d->max_groups[0]),
                                   piece(groups[1], y, d->max_groups[1]),
                                   piece(groups[2], z, d->max_groups[2]));
    if (stamps)
        vk.CmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->timestamps, 1);
    double ms = 0;
    if ((st = submit_timed(d, stamps, &ms))) {
        char note[160];
        snprintf(note, sizeof note, " (kernel '%.100s')", k->entry);
        return restate(st, note);
    }
    if (kernel_ms) *kernel_ms = ms;
    return CO_OK;
}

/* dst = src (bytes of them) by vkCmdCopyBuffer between timestamps. */
static co_status copy(co_device *dev, co_buf *dst, co_buf *src, size_t bytes, double *ms) {
    vk_device *d = dev->impl;
    co_status st = check_size(dev, src, 0, bytes);
    if (!st) st = check_size(dev, dst, 0, bytes);
    if (st || !bytes) return st;
    const bool stamps = d->timestamps != VK_NULL_HANDLE;
    const VkBufferCopy region = {.size = bytes};
    if ((st = cmd_begin(d))) return st;
    if (stamps) {
        vk.CmdResetQueryPool(d->cmd, d->timestamps, 0, 2);
        vk.CmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, d->timestamps, 0);
    }
    vk.CmdCopyBuffer(d->cmd, src->buffer, dst->buffer, 1, &region);
    if (stamps)
        vk.CmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->timestamps, 1);
    return submit_timed(d, stamps, ms);
}

/* ---- what the compiler made of it (src/core/il.c) ---------------------- */

static const char *il_formats(const co_device *dev) {
    (void)dev;
    return "spirv";
}

/* The kernel's SPIR-V: the module it was made from, from the cache. */
static co_status kernel_spirv(const co_program *prog, const co_kernel *k, void **spirv,
                              size_t *size) {
    return co_glsl_compile(CO_GLSL_VULKAN, prog->name, prog->source, prog->defines, k->entry, spirv,
                           size);
}

/* The pipeline kernel k was launched with at group `local` (and `given`
 * bytes of CO_LOCAL, where not 0), NULL if it was not. */
static const vk_pipe *launched(const co_kernel *k, const size_t local[3], size_t given) {
    for (size_t i = 0; i < k->npipes; i++) {
        const uint32_t *s = k->pipes[i].spec;
        if (s[0] == local[0] && s[1] == local[1] && s[2] == local[2] && (!given || s[3] == given))
            return &k->pipes[i];
    }
    return NULL;
}

/* The driver's statistics of executable 0 of kernel k's pipeline p (made
 * again, capturing them): *n of them in *out (malloc'd). NULL with a
 * reason in *why where there are none. */
static co_status statistics(co_device *dev, const co_kernel *k, const vk_pipe *p,
                            VkPipelineExecutableStatisticKHR **out, uint32_t *n, const char **why) {
    vk_device *d = dev->impl;
    *out = NULL, *n = 0, *why = NULL;
    if (!d->GetPipelineExecutableStatistics || !d->GetPipelineExecutableProperties) {
        *why = "the driver lacks VK_KHR_pipeline_executable_properties";
        return CO_OK;
    }
    if (!p) {
        *why = "not launched at this group size";
        return CO_OK;
    }
    VkPipeline pipeline;
    co_status st = make_pipeline(d, k, p->layout, p->spec,
                                 VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR, &pipeline);
    if (st) return st;
    const VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR,
                                  .pipeline = pipeline};
    const VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                            .pipeline = pipeline};
    uint32_t executables = 0;
    st = vk_check("vkGetPipelineExecutablePropertiesKHR",
                  d->GetPipelineExecutableProperties(d->dev, &pi, &executables, NULL));
    if (!st && !executables) *why = "the driver lists no executable for the pipeline";
    if (!st && executables)
        st = vk_check("vkGetPipelineExecutableStatisticsKHR",
                      d->GetPipelineExecutableStatistics(d->dev, &ei, n, NULL));
    if (!st && *n && !(*out = calloc(*n, sizeof **out)))
        st = co_fail(CO_ERR_NOMEM, "out of host memory");
    for (uint32_t i = 0; !st && i < *n; i++)
        (*out)[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    if (!st && *n)
        st = vk_check("vkGetPipelineExecutableStatisticsKHR",
                      d->GetPipelineExecutableStatistics(d->dev, &ei, n, *out));
    if (st) free(*out), *out = NULL, *n = 0;
    vk.DestroyPipeline(d->dev, pipeline, NULL);
    return st;
}

static bool statistic_value(const VkPipelineExecutableStatisticKHR *s, double *v) {
    switch (s->format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: *v = s->value.b32; return true;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: *v = (double)s->value.i64; return true;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: *v = (double)s->value.u64; return true;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: *v = s->value.f64; return true;
    default: return false;
    }
}

/* The kernel's SPIR-V assembly, and after it, as comments, the driver's
 * statistics for the launch (or why there are none). */
static co_status program_text(co_device *dev, co_program *prog, co_kernel *k, const char *format,
                              const size_t local[3], char **out) {
    *out = NULL;
    if (strcmp(format, "spirv") != 0)
        return co_fail(CO_ERR_UNSUPPORTED, "Vulkan shows spirv, not '%s'", format);
    void *spirv = NULL;
    size_t size = 0;
    char *text = NULL;
    VkPipelineExecutableStatisticKHR *stats = NULL;
    uint32_t n = 0;
    const char *why = NULL;
    co_status st = kernel_spirv(prog, k, &spirv, &size);
    if (!st) st = co_spirv_text(spirv, size, &text);
    free(spirv);
    if (!st) st = statistics(dev, k, launched(k, local, 0), &stats, &n, &why);
    size_t len = text ? strlen(text) + 256 : 0;
    for (uint32_t i = 0; i < n; i++) len += 2 * VK_MAX_DESCRIPTION_SIZE + 64;
    if (!st && !(*out = malloc(len))) st = co_fail(CO_ERR_NOMEM, "out of host memory");
    if (!st) {
        size_t used = (size_t)snprintf(*out, len, "%s", text);
        if (why)
            used +=
                (size_t)snprintf(*out + used, len - used, "; driver statistics: none (%s)\n", why);
        else
            used += (size_t)snprintf(*out + used, len - used,
                                     "; driver statistics (VK_KHR_pipeline_executable_properties, "
                                     "groups of %zux%zux%zu):\n",
                                     local[0], local[1], local[2]);
        for (uint32_t i = 0; i < n; i++) {
            double v = 0;
            if (statistic_value(&stats[i], &v))
                used += (size_t)snprintf(*out + used, len - used, ";   %s = %g (%s)\n",
                                         stats[i].name, v, stats[i].description);
        }
    }
    free(text);
    free(stats);
    return st;
}

/* The group the launch gave, the device's largest (Vulkan has no per-
 * pipeline limit), the Workgroup variables' bytes, and what the driver
 * says (its register count; on NVIDIA the occupancy from it). */
static co_status kernel_resources(co_device *dev, co_program *prog, co_kernel *k,
                                  const size_t local[3], size_t dynamic_local, co_il_resources *r) {
    void *spirv = NULL;
    size_t size = 0;
    co_status st = kernel_spirv(prog, k, &spirv, &size);
    if (st) return st;
    const uint32_t spec[4] = {(uint32_t)local[0], (uint32_t)local[1], (uint32_t)local[2],
                              dynamic_local ? (uint32_t)dynamic_local : 4};
    long given = 0;
    r->shared_bytes = co_spirv_shared_bytes(spirv, size, spec, &given);
    free(spirv);
    r->max_group = (long)dev->info.max_work_group_size;
    VkPipelineExecutableStatisticKHR *stats = NULL;
    uint32_t n = 0;
    const char *why = NULL;
    if ((st = statistics(dev, k, launched(k, local, dynamic_local), &stats, &n, &why))) return st;
    for (uint32_t i = 0; i < n; i++) {
        double v = 0;
        char name[VK_MAX_DESCRIPTION_SIZE];
        for (size_t c = 0; c < sizeof name; c++)
            name[c] = (char)tolower((unsigned char)stats[i].name[c]);
        if (statistic_value(&stats[i], &v) && !strstr(name, "spill") &&
            (strstr(name, "register") || !strcmp(name, "vgprs")))
            r->registers = (long)v;
    }
    free(stats);
    const bool nvidia = strstr(dev->info.vendor, "NVIDIA") != NULL;
    if (nvidia && r->registers >= 0) co_il_estimate_occupancy(r, &dev->info, local, dynamic_local);
    snprintf(r->from, sizeof r->from, "SPIR-V; %s%s",
             why ? "no driver statistics: " : "VK_KHR_pipeline_executable_properties",
             why                           ? why
             : nvidia && r->registers >= 0 ? ", occupancy from sm_80-90 limits"
                                           : "");
    return CO_OK;
}

static const co_backend vulkan_backend = {
    .name = "vulkan",
    .probe = probe,
    .release = release,
    .alloc = alloc,
    .free = buf_free,
    .upload = upload,
    .download = download,
    .write = write_at,
    .read = read_at,
    .build = co_glsl_build,
    .program_free = program_free,
    .kernel = kernel,
    .launch = launch,
    .il_formats = il_formats,
    .program_text = program_text,
    .kernel_resources = kernel_resources,
    .copy = copy,
    .glsl = glsl_caps,
};

const co_backend *co_backend_vulkan(void) { return &vulkan_backend; }
