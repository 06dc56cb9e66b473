/* GLSL compute shaders to SPIR-V at run time: shaderc's C API, linked
 * statically (vulkan.cmake says why), and the cache directory in front of
 * it, keyed like the NVRTC cache (compiler version, target, source name,
 * length and hash, defines, entry). */
#include <shaderc/shaderc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/vulkan/vulkan_access.h"

/* One compiler per process, made on the first compile: the runner is
 * single-threaded. Kept to the end (it is still reachable: no leak). */
static shaderc_compiler_t compiler(void) {
    static shaderc_compiler_t c;
    if (!c) c = shaderc_compiler_initialize();
    return c;
}

/* Each "-DNAME=VALUE" (or "-DNAME") of defines as a macro. */
static co_status add_defines(shaderc_compile_options_t opts, const char *defines,
                             const char *name) {
    const char *ws = " \t\r\n";
    for (const char *p = defines + strspn(defines, ws); *p; p += strspn(p, ws)) {
        const size_t len = strcspn(p, ws);
        if (len < 3 || strncmp(p, "-D", 2) != 0)
            return co_fail(CO_ERR_INVALID,
                           "Vulkan: shader %s.comp: option '%.*s' is not -DNAME=VALUE", name,
                           (int)len, p);
        const char *eq = memchr(p, '=', len);
        const size_t nlen = (eq ? (size_t)(eq - p) : len) - 2;
        const char *value = eq ? eq + 1 : "1";
        const size_t vlen = eq ? len - (size_t)(eq + 1 - p) : 1;
        shaderc_compile_options_add_macro_definition(opts, p + 2, nlen, value, vlen);
        p += len;
    }
    return CO_OK;
}

static co_status compile(const char *name, const char *source, const char *defines,
                         const char *entry, void **spirv, size_t *size) {
    shaderc_compiler_t c = compiler();
    shaderc_compile_options_t opts = shaderc_compile_options_initialize();
    if (!c || !opts) {
        shaderc_compile_options_release(opts);
        return co_fail(CO_ERR_NOMEM, "Vulkan: cannot start the shader compiler (shaderc)");
    }
    shaderc_compile_options_set_target_env(opts, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_1);
    shaderc_compile_options_set_optimization_level(opts, shaderc_optimization_level_performance);
    char macro[128];
    snprintf(macro, sizeof macro, "ENTRY_%s", entry);
    shaderc_compile_options_add_macro_definition(opts, macro, strlen(macro), "1", 1);
    co_status st = add_defines(opts, defines, name);
    char file[96];
    snprintf(file, sizeof file, "%s.comp", name);
    shaderc_compilation_result_t r = NULL;
    if (!st) {
        r = shaderc_compile_into_spv(c, source, strlen(source), shaderc_glsl_compute_shader, file,
                                     "main", opts);
        if (!r) st = co_fail(CO_ERR_NOMEM, "Vulkan: shaderc returned no result for %s", file);
    }
    if (!st && shaderc_result_get_compilation_status(r) != shaderc_compilation_status_success) {
        const char *log = shaderc_result_get_error_message(r);
        st = co_fail(CO_ERR_BUILD,
                     "shader %s (entry %s) failed to build (shaderc, GLSL 450 for Vulkan 1.1) "
                     "with '%s':\n%s",
                     file, entry, defines, log && *log ? log : "(no log)");
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

co_status co_glsl_compile(const char *name, const char *source, const char *defines,
                          const char *entry, void **spirv, size_t *size) {
    *spirv = NULL;
    *size = 0;
    if (!defines) defines = "";
    unsigned version = 0, revision = 0;
    shaderc_get_spv_version(&version, &revision);
    const size_t len = strlen(source), key_len = strlen(defines) + strlen(entry) + 256;
    char *key = malloc(key_len);
    if (!key) return co_fail(CO_ERR_NOMEM, "out of host memory");
    snprintf(key, key_len, "shaderc spv %u.%u vulkan1.1 %s.comp %zu %016llx %s -DENTRY_%s", version,
             revision, name, len, (unsigned long long)co_hash(CO_HASH_SEED, source, len), defines,
             entry);
    co_status st = CO_OK;
    if (co_cache_get("vulkan", key, spirv, size) && *size >= 20 && *size % 4 == 0 &&
        *(const unsigned *)*spirv == 0x07230203u) { /* SPIR-V's magic number */
        free(key);
        return CO_OK;
    }
    free(*spirv);
    *spirv = NULL;
    if (!(st = compile(name, source, defines, entry, spirv, size)))
        co_cache_put("vulkan", key, *spirv, *size);
    free(key);
    return st;
}
