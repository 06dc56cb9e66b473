/* GLSL compute shaders to SPIR-V at run time, for Vulkan or OpenGL:
 * shaderc's C API, linked statically (glsl.cmake says why), and the cache
 * directory in front of it, keyed like the NVRTC cache (compiler version,
 * target, source name, length and hash, defines, entry). -DCO_FP_STRICT
 * (the dialect's "round as host C does") marks every float operation
 * NoContraction. */
#include <shaderc/shaderc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/glsl/glsl.h"

/* One compiler per process, made on the first compile: the runner is
 * single-threaded. Kept to the end (it is still reachable: no leak). */
static shaderc_compiler_t compiler(void) {
    static shaderc_compiler_t c;
    if (!c) c = shaderc_compiler_initialize();
    return c;
}

/* The API's name in messages, and the target in cache keys. */
static const char *api_of(co_glsl_target t) { return t == CO_GLSL_OPENGL ? "OpenGL" : "Vulkan"; }
static const char *env_of(co_glsl_target t) {
    return t == CO_GLSL_OPENGL ? "opengl4.5" : "vulkan1.1";
}

/* Each "-DNAME=VALUE" (or "-DNAME") of defines as a macro. */
static co_status add_defines(shaderc_compile_options_t opts, const char *defines, const char *name,
                             const char *api) {
    const char *ws = " \t\r\n";
    for (const char *p = defines + strspn(defines, ws); *p; p += strspn(p, ws)) {
        const size_t len = strcspn(p, ws);
        if (len < 3 || strncmp(p, "-D", 2) != 0)
            return co_fail(CO_ERR_INVALID, "%s: shader %s.comp: option '%.*s' is not -DNAME=VALUE",
                           api, name, (int)len, p);
        const char *eq = memchr(p, '=', len);
        const size_t nlen = (eq ? (size_t)(eq - p) : len) - 2;
        const char *value = eq ? eq + 1 : "1";
        const size_t vlen = eq ? len - (size_t)(eq + 1 - p) : 1;
        shaderc_compile_options_add_macro_definition(opts, p + 2, nlen, value, vlen);
        p += len;
    }
    return CO_OK;
}

/* Whether defines ("-DA=1 -DB ...") define name. */
static bool defines_name(const char *defines, const char *name) {
    const size_t len = strlen(name);
    for (const char *p = strstr(defines, name); p; p = strstr(p + 1, name))
        if (p - defines >= 2 && !strncmp(p - 2, "-D", 2) && strchr(" \t=", p[len] ? p[len] : ' '))
            return true;
    return false;
}

static co_status compile(co_glsl_target target, const char *name, const char *source,
                         const char *defines, const char *entry, void **spirv, size_t *size) {
    const char *api = api_of(target);
    shaderc_compiler_t c = compiler();
    shaderc_compile_options_t opts = shaderc_compile_options_initialize();
    if (!c || !opts) {
        shaderc_compile_options_release(opts);
        return co_fail(CO_ERR_NOMEM, "%s: cannot start the shader compiler (shaderc)", api);
    }
    if (target == CO_GLSL_OPENGL)
        shaderc_compile_options_set_target_env(opts, shaderc_target_env_opengl,
                                               shaderc_env_version_opengl_4_5);
    else
        shaderc_compile_options_set_target_env(opts, shaderc_target_env_vulkan,
                                               shaderc_env_version_vulkan_1_1);
    /* shaderc's optimiser fuses a*b + c into Fma before NoContraction can be
     * marked (no_contraction): a strict shader goes to the driver as glslang
     * wrote it, and the driver optimises it. (spirv-opt -O after the marking
     * keeps it, but the ray tracer took 1-6% longer on NVIDIA's driver so:
     * docs/results/2026-12-03-h200-s.md.) */
    const bool strict = defines_name(defines, "CO_FP_STRICT");
    shaderc_compile_options_set_optimization_level(
        opts, strict ? shaderc_optimization_level_zero : shaderc_optimization_level_performance);
    char macro[128];
    snprintf(macro, sizeof macro, "ENTRY_%s", entry);
    shaderc_compile_options_add_macro_definition(opts, macro, strlen(macro), "1", 1);
    co_status st = add_defines(opts, defines, name, api);
    char file[96];
    snprintf(file, sizeof file, "%s.comp", name);
    shaderc_compilation_result_t r = NULL;
    if (!st) {
        r = shaderc_compile_into_spv(c, source, strlen(source), shaderc_glsl_compute_shader, file,
                                     "main", opts);
        if (!r) st = co_fail(CO_ERR_NOMEM, "%s: shaderc returned no result for %s", api, file);
    }
    if (!st && shaderc_result_get_compilation_status(r) != shaderc_compilation_status_success) {
        const char *log = shaderc_result_get_error_message(r);
        st = co_fail(CO_ERR_BUILD,
                     "shader %s (entry %s) failed to build (shaderc, GLSL 450 for %s) "
                     "with '%s':\n%s",
                     file, entry, target == CO_GLSL_OPENGL ? "OpenGL 4.5" : "Vulkan 1.1", defines,
                     log && *log ? log : "(no log)");
    }
    if (!st) {
        const size_t len = shaderc_result_get_length(r);
        void *words = malloc(len ? len : 4);
        if (!words)
            st = co_fail(CO_ERR_NOMEM, "out of host memory");
        else {
            memcpy(words, shaderc_result_get_bytes(r), len);
            *spirv = words;
            *size = len;
        }
    }
    shaderc_result_release(r);
    shaderc_compile_options_release(opts);
    return st;
}

/* Float arithmetic that a driver may contract: OpFAdd, FSub, FMul, FDiv,
 * FRem, FMod, the vector and matrix products, OpDot. */
static bool fp_arith(uint32_t op) {
    return op == 129 || op == 131 || op == 133 || op == 136 || (op >= 140 && op <= 146) ||
           op == 148;
}

/* -DCO_FP_STRICT: every float operation of module words[0..*n) decorated
 * NoContraction (42), as GLSL's `precise` on each (OpenCL's FP_CONTRACT
 * OFF), so that no driver fuses a*b + c. The decorations go after the
 * module's last annotation (the prelude's SpecIds make one). A new module
 * of *n words; NULL: out of memory, or no annotation section. */
static uint32_t *no_contraction(const uint32_t *words, size_t *n) {
    const size_t len_in = *n, bound = len_in > 5 ? words[3] : 0;
    unsigned char *done = calloc(bound / 8 + 1, 1); /* ids decorated so */
    uint32_t *ids = malloc((len_in / 3 + 1) * sizeof *ids);
    size_t at = 0, count = 0;
    for (int pass = 0; done && ids && pass < 2; pass++)
        for (size_t i = 5; i < len_in;) {
            const uint32_t len = words[i] >> 16, op = words[i] & 0xFFFF;
            if (!len || len > len_in - i) break;
            if (pass == 0 && op >= 71 && op <= 75) at = i + len; /* annotations */
            uint32_t id = 0; /* pass 0: one marked NoContraction; 1: a result to mark */
            if (pass == 0 && op == 71 && len == 3 && words[i + 2] == 42) id = words[i + 1];
            if (pass == 1 && fp_arith(op) && len > 2) id = words[i + 2];
            if (id && id < bound && !(done[id / 8] & 1u << id % 8)) {
                done[id / 8] |= (unsigned char)(1u << id % 8);
                if (pass == 1) ids[count++] = id;
            }
            i += len;
        }
    uint32_t *out = done && ids && at ? malloc((len_in + 3 * count) * sizeof *out) : NULL;
    if (out) {
        memcpy(out, words, at * sizeof *out);
        for (size_t k = 0; k < count; k++)
            out[at + 3 * k] = 3u << 16 | 71, out[at + 3 * k + 1] = ids[k], out[at + 3 * k + 2] = 42;
        memcpy(out + at + 3 * count, words + at, (len_in - at) * sizeof *out);
        *n = len_in + 3 * count;
    }
    free(done);
    free(ids);
    return out;
}

static co_status cached_compile(co_glsl_target target, const char *name, const char *source,
                                const char *defines, const char *entry, void **spirv,
                                size_t *size) {
    unsigned version = 0, revision = 0;
    shaderc_get_spv_version(&version, &revision);
    const size_t len = strlen(source), key_len = strlen(defines) + strlen(entry) + 256;
    char *key = malloc(key_len);
    if (!key) return co_fail(CO_ERR_NOMEM, "out of host memory");
    snprintf(key, key_len, "shaderc spv %u.%u %s %s.comp %zu %016llx %s -DENTRY_%s", version,
             revision, env_of(target), name, len,
             (unsigned long long)co_hash(CO_HASH_SEED, source, len), defines, entry);
    co_status st = CO_OK;
    if (co_cache_get("spirv", key, spirv, size) && *size >= 20 && *size % 4 == 0 &&
        *(const unsigned *)*spirv == 0x07230203u) { /* SPIR-V's magic number */
        free(key);
        return CO_OK;
    }
    free(*spirv);
    *spirv = NULL;
    if (!(st = compile(target, name, source, defines, entry, spirv, size)))
        co_cache_put("spirv", key, *spirv, *size);
    free(key);
    return st;
}

co_status co_glsl_compile(co_glsl_target target, const char *name, const char *source,
                          const char *defines, const char *entry, void **spirv, size_t *size) {
    *spirv = NULL;
    *size = 0;
    if (!defines) defines = "";
    co_status st = cached_compile(target, name, source, defines, entry, spirv, size);
    if (st || !defines_name(defines, "CO_FP_STRICT")) return st;
    size_t words = *size / 4;
    uint32_t *strict = no_contraction(*spirv, &words);
    free(*spirv);
    *spirv = strict;
    *size = strict ? words * 4 : 0;
    if (strict) return CO_OK;
    return co_fail(CO_ERR_NOMEM,
                   "%s: shader %s.comp: cannot mark it CO_FP_STRICT (out of "
                   "memory, or a module without annotations)",
                   api_of(target), name);
}
