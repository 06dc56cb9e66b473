/* What the two GLSL backends share (src/backend/glsl/): the vulkan and the
 * opengl backend run the same compute shaders (kernels/<name>.comp behind
 * kernels/prelude.glsl), compiled to SPIR-V by shaderc (shaderc.c), read
 * back by SPIRV-Tools (spirv.c), launched by the same rules (glsl.c).
 * The workloads ask a device's shader capabilities here. */
#ifndef CO_GLSL_H
#define CO_GLSL_H

#include "backend/backend.h"

/* The API a module is compiled for: Vulkan 1.1, or OpenGL 4.5 with
 * ARB_gl_spirv (no push constants: the prelude's CO_ARGS block is a
 * uniform block there; storage buffers are SPIR-V 1.0 BufferBlocks). */
typedef enum co_glsl_target { CO_GLSL_VULKAN, CO_GLSL_OPENGL } co_glsl_target;

/* Subgroup operations a compute shader may use (Vulkan's
 * VkSubgroupFeatureFlagBits, GL_KHR_shader_subgroup's bits: the same). */
enum {
    CO_GLSL_SUBGROUP_BASIC = 1,
    CO_GLSL_SUBGROUP_VOTE = 2,
    CO_GLSL_SUBGROUP_ARITHMETIC = 4,
    CO_GLSL_SUBGROUP_BALLOT = 8,
    CO_GLSL_SUBGROUP_SHUFFLE = 16
};

/* A GLSL device's shader capabilities. */
typedef struct co_glsl_caps {
    unsigned subgroup_size, subgroup_ops; /* ops: in compute shaders; 0 none */
    bool int8;                            /* 8-bit loads and stores in storage buffers */
    bool fp64;                            /* double precision */
    /* co_glsl_fma_once's answer once asked (0: not yet; 1 once; 2 twice):
     * a probe shader only the callers who need it pay for */
    int fma_rounds;
} co_glsl_caps;

/* dev's capabilities if it runs GLSL shaders (a vulkan or opengl device),
 * else NULL. */
const co_glsl_caps *co_glsl_device(const co_device *dev);

/* Subgroup operations as words ("basic,vote,arithmetic"; "none"), for limits. */
void co_glsl_subgroup_words(unsigned ops, char *out, size_t len);

/* GLSL 450 compute shader `source` (kernels/<name>.comp with its prelude)
 * to SPIR-V for `target`, with `defines` ("-DWG=256 ...") and
 * -DENTRY_<entry>, through the cache directory (kind "spirv"). *spirv:
 * malloc'd words, *size in bytes. CO_ERR_BUILD with the log. */
co_status co_glsl_compile(co_glsl_target target, const char *name, const char *source,
                          const char *defines, const char *entry, void **spirv, size_t *size);

/* ---- a module, read (spirv.c) ---- */

/* For `coalesce il`: a module as SPIR-V assembly (SPIRV-Tools, friendly
 * names; *out malloc'd), and the bytes of its Workgroup variables with
 * specialisation constants 0-2 (the group) and 3 (CO_LOCAL_BYTES) at
 * spec[]: those of constant size returned, those sized by CO_LOCAL_BYTES
 * in *dynamic; -1 where a size cannot be evaluated. */
co_status co_spirv_text(const void *spirv, size_t size, char **out);
long co_spirv_shared_bytes(const void *spirv, size_t size, const uint32_t spec[4], long *dynamic);
/* What a launch needs to know of a module: whether it reads
 * gl_NumWorkGroups (its dispatch cannot be split); the bindings below
 * CO_GLSL_MAX_BINDINGS it declares as uniform blocks, and those below 64
 * of its storage buffers (masks; a storage buffer is of the StorageBuffer
 * class, or a SPIR-V 1.0 BufferBlock); the specialisation constants it
 * still has (ids below 32: the optimiser drops those the shader does not
 * use, and OpenGL refuses a value for any of them). */
typedef struct co_spirv_facts {
    bool num_groups;
    uint32_t uniform_mask, spec_ids;
    uint64_t storage_mask;
} co_spirv_facts;
void co_spirv_launch_facts(const void *spirv, size_t size, co_spirv_facts *out);

/* ---- programs (glsl.c) ---- */

/* A source and its defines: the GLSL backends compile nothing at build
 * time; each entry point is its own module (the source compiled with
 * -DENTRY_<entry>), made when it is looked up. Each backend defines its
 * co_kernel, allocated alone (pointers stay valid as the list grows). */
struct co_program {
    char *name, *source, *defines;
    co_kernel **kernels;
    char **entries; /* kernels[i]'s entry point */
    size_t nkernels;
};
/* The backends' `build`. */
co_status co_glsl_build(co_device *dev, const char *name, const char *source, const char *defines,
                        co_program **out);
/* prog's kernel of `entry`, or NULL; add: k appended as entry's (on
 * failure, CO_ERR_NOMEM, k is the caller's still). */
co_kernel *co_glsl_kernel_find(const co_program *prog, const char *entry);
co_status co_glsl_kernel_add(co_program *prog, const char *entry, co_kernel *k);
/* Frees prog, each kernel through the backend's destroy. */
void co_glsl_program_free(co_device *dev, co_program *prog,
                          void (*destroy)(co_device *dev, co_kernel *k));

/* ---- the launch rules (glsl.c) ---- */

enum { CO_GLSL_MAX_BINDINGS = 16, CO_GLSL_MAX_SCALARS = 32 };

/* A launch's shape: groups a dimension, and spec[] = local size x, y, z
 * and CO_LOCAL bytes (4 where the launch gives none). Checked against the
 * device's limits; `max_groups` matters only where the kernel reads
 * gl_NumWorkGroups (num_groups), else the backend splits the dispatch.
 * `api` names the API in messages ("Vulkan", "OpenGL"). */
typedef struct co_glsl_shape {
    uint32_t groups[3], spec[4];
} co_glsl_shape;
/* The arguments of a launch: buffers (bindings 0, 1, ... in order),
 * scalars (the CO_ARGS block's 4-byte members in order), and CO_LOCAL's
 * bytes into shape->spec[3]. */
typedef struct co_glsl_args {
    co_buf *bufs[CO_GLSL_MAX_BINDINGS];
    uint32_t scalars[CO_GLSL_MAX_SCALARS];
    unsigned nbuf, nscalars;
} co_glsl_args;

co_status co_glsl_launch_shape(const co_device *dev, const char *api, const char *entry,
                               unsigned dims, const size_t global[3], const size_t local[3],
                               bool num_groups, const uint32_t max_groups[3], co_glsl_shape *out);
/* max_scalars: the bytes of scalars the API takes, over 4 (its limit's
 * name in `scalars_limit`). */
co_status co_glsl_launch_args(const char *api, const char *entry, size_t nargs, const co_arg *args,
                              unsigned max_scalars, const char *scalars_limit, co_glsl_args *out,
                              co_glsl_shape *shape);

/* ---- probes: what a driver does, found by running it (glsl.c) ---- */

/* Shader `source` (whole, entry main: binding 0 reads `in`, binding 1
 * writes what is read back into `out`, `bytes` each) over `n` invocations
 * in one group, through dev's own backend. */
co_status co_glsl_probe(co_device *dev, const char *name, const char *source, size_t n,
                        const void *in, void *out, size_t bytes);
/* Whether fma() rounds once on GLSL device dev (GLSL lets it round twice:
 * NVIDIA's rounds once, lavapipe's twice); probed at the first call, kept
 * in dev's caps; false where the probe cannot run, the choice that is
 * right everywhere. */
bool co_glsl_fma_once(co_device *dev);

#endif
