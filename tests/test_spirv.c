/* What the Vulkan backend's shader compiler (src/backend/vulkan/shaderc.c)
 * hands the driver, read from the SPIR-V itself (no device needed):
 * -DCO_FP_STRICT leaves no float operation a driver may contract (each one
 * NoContraction, none fused into Fma by shaderc's optimiser), the module
 * stays valid where the decorations were added, and a GLSL twin that
 * #includes a .cl header of defines builds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/vulkan/vulkan_access.h"
#include "core/workload.h"

static int failures;

static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

typedef struct facts {
    size_t arith, marked, arith_marked, fma, uniform_vars, annotations_after_types;
} facts;

static bool is_arith(uint32_t op) { /* OpFAdd FSub FMul FDiv, VectorTimesScalar, Dot */
    return op == 129 || op == 131 || op == 133 || op == 136 || op == 142 || op == 148;
}

/* Counts over module w[0..n): float operations, NoContraction decorations
 * and which operations carry one, GLSL.std.450 Fma (50), Uniform
 * variables, and annotations after the first type (misplaced). */
static facts read_module(const uint32_t *w, size_t n) {
    facts f = {0};
    const uint32_t bound = n > 5 ? w[3] : 0;
    unsigned char *marked = calloc(bound + 1, 1);
    bool types = false;
    for (size_t i = 5; marked && i < n;) {
        const uint32_t len = w[i] >> 16, op = w[i] & 0xFFFF;
        if (!len || len > n - i) break;
        if (op >= 19 && op <= 39) types = true;
        if (op >= 71 && op <= 75 && types) f.annotations_after_types++;
        if (op == 71 && len == 3 && w[i + 2] == 42 && w[i + 1] < bound) {
            f.marked++;
            marked[w[i + 1]] = 1;
        }
        if (op == 12 && len >= 5 && w[i + 4] == 50) f.fma++;
        if (op == 59 && len >= 4 && w[i + 3] == 2) f.uniform_vars++;
        i += len;
    }
    for (size_t i = 5; marked && i < n;) { /* decorations come first: a second pass */
        const uint32_t len = w[i] >> 16, op = w[i] & 0xFFFF;
        if (!len || len > n - i) break;
        if (is_arith(op) && len > 2) {
            f.arith++;
            f.arith_marked += w[i + 2] < bound && marked[w[i + 2]];
        }
        i += len;
    }
    free(marked);
    return f;
}

static facts compile(const char *source, const char *entry, const char *defines, bool *ok) {
    void *spirv = NULL;
    size_t size = 0;
    facts f = {0};
    *ok = co_glsl_compile("raytrace", source, defines, entry, &spirv, &size) == CO_OK;
    if (!*ok) printf("     %s\n", co_last_error());
    if (*ok) f = read_module(spirv, size / 4);
    free(spirv);
    return f;
}

int main(void) {
    char dir[] = "/tmp/coalesce-spirv-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("COALESCE_CACHE_DIR", dir, 1);
    char *source = co_shader_source("raytrace");
    check(source && strstr(source, "#define RT_SPHERES"),
          "raytrace.comp has its #include \"raytrace_layout.cl\" expanded");
    if (!source) return 1; /* (the directory stays: nothing was written) */
    static const char *const entries[] = {"rt_render", "rt_animate"};
    char what[256];
    for (int run = 0; run < 2; run++) /* compiled, then from the cache */
        for (int k = 0; k < 8; k++) {
            const int e = k & 1, dbl = k >> 1 & 1, space = k >> 2;
            char defines[128];
            snprintf(defines, sizeof defines,
                     "-DCO_FP_STRICT -DRT_DOUBLE=%d -DRT_SPACE=%d -DRT_NMAX=3", dbl, space);
            bool ok;
            const facts f = compile(source, entries[e], defines, &ok);
            snprintf(what, sizeof what,
                     "%s [%s]%s: %zu float operations, %zu NoContraction (%zu on them), "
                     "%zu Fma, %zu misplaced",
                     entries[e], defines, run ? " from the cache" : "", f.arith, f.marked,
                     f.arith_marked, f.fma, f.annotations_after_types);
            /* Every Fma is one the source writes (glslang keeps each function
             * once): rt_animate's motion's fma(), as in raytrace.cl; in float,
             * also the shader's fma probe (1) and kernels/float_rn.cl's
             * division (4, rt_animate's 1 / r too) and root (3). */
            const size_t fmas = (size_t)e + (dbl ? 0 : e ? 5 : 8);
            check(ok && f.arith > 5 && f.arith_marked == f.arith && f.marked >= f.arith &&
                      f.fma == fmas && !f.annotations_after_types,
                  what);
            if (e == 0) {
                snprintf(what, sizeof what, "rt_render [%s]: %zu uniform blocks", defines,
                         f.uniform_vars);
                check(ok && f.uniform_vars == (size_t)(space == 1), what);
            }
        }
    free(source);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
