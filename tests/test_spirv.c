/* What the GLSL backends' shader compiler (src/backend/glsl/shaderc.c)
 * hands the driver, read from the SPIR-V itself (no device needed):
 * -DCO_FP_STRICT leaves no float operation a driver may contract (each one
 * NoContraction, none fused into Fma by shaderc's optimiser), the module
 * stays valid where the decorations were added, a GLSL twin that
 * #includes a .cl header of defines builds, and what the backends read of
 * a module for a launch, for Vulkan and OpenGL alike. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/glsl/glsl.h"
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
    *ok =
        co_glsl_compile(CO_GLSL_VULKAN, "raytrace", source, defines, entry, &spirv, &size) == CO_OK;
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
        for (int k = 0; k < 16; k++) {
            const int e = k & 1, dbl = k >> 1 & 1, space = k >> 2 & 1, once = k >> 3;
            char defines[128];
            snprintf(defines, sizeof defines,
                     "-DCO_FP_STRICT -DRT_DOUBLE=%d -DRT_SPACE=%d -DRT_NMAX=3 -DRT_FMA_ONCE=%d",
                     dbl, space, once);
            bool ok;
            const facts f = compile(source, entries[e], defines, &ok);
            snprintf(what, sizeof what,
                     "%s [%s]%s: %zu float operations, %zu NoContraction (%zu on them), "
                     "%zu Fma, %zu misplaced",
                     entries[e], defines, run ? " from the cache" : "", f.arith, f.marked,
                     f.arith_marked, f.fma, f.annotations_after_types);
            /* Every Fma is one the source writes (glslang keeps each function
             * once), where RT_FMA is fma() (double, or RT_FMA_ONCE): the
             * motion's (rt_animate's one, as in raytrace.cl) and the
             * ray-sphere tests', 5 each (RT_HIT): the two loops to RT_NMAX,
             * four unrolled and the tail each (50), and the two loops to n
             * (10). In float also kernels/float_rn.cl's division (4,
             * rt_animate's 1 / r too) and root (3), with RT_FMA_ONCE 0 kept
             * behind a constant false. */
            const size_t rt_fmas = dbl || once ? 60 : 0, motion = dbl || once ? 1 : 0;
            const size_t fmas = e ? motion + (dbl ? 0 : 4) : rt_fmas + (dbl ? 0 : 7);
            check(ok && f.arith > 5 && f.arith_marked == f.arith && f.marked >= f.arith &&
                      f.fma == fmas && !f.annotations_after_types,
                  what);
            if (e == 0) {
                snprintf(what, sizeof what, "rt_render [%s]: %zu uniform blocks", defines,
                         f.uniform_vars);
                check(ok && f.uniform_vars == (size_t)(space == 1), what);
            }
        }
    /* What the launch reads of a module, for both targets: OpenGL's storage
     * buffers are Uniform BufferBlocks (SPIR-V 1.0) and must not count as
     * uniform blocks; the group's and CO_LOCAL's specialisation constants
     * that the optimiser kept (OpenGL refuses any other); gl_NumWorkGroups. */
    /* (A strict module is not optimised: it keeps CO_LOCAL_BYTES. copy_vec4
     * reads and writes its buffers as floats (the tail) and as vec4s: both
     * at bindings 0 and 1 on Vulkan; on OpenGL, CO_BUFFER_VIEW moves the
     * vec4 views to 18 and 19. 0: not checked.) */
    static const struct {
        const char *source, *entry, *defines;
        uint32_t uniform, spec_ids;
        bool num_groups;
        uint64_t storage[2]; /* Vulkan, OpenGL */
    } reads[] = {
        {"raytrace",
         "rt_render",
         "-DCO_FP_STRICT -DRT_DOUBLE=0 -DRT_SPACE=1 -DRT_NMAX=3 -DRT_FMA_ONCE=0",
         1,
         15,
         false,
         {0, 0}},
        {"raytrace",
         "rt_render",
         "-DCO_FP_STRICT -DRT_DOUBLE=0 -DRT_SPACE=0 -DRT_NMAX=3 -DRT_FMA_ONCE=1",
         0,
         15,
         false,
         {0, 0}},
        {"copy", "copy_vec4", "", 0, 7, false, {3, 3 | 3ull << 18}},
        {"dispatch", "dispatch_ids", "", 0, 7, true, {0, 0}},
    };
    for (size_t r = 0; r < sizeof reads / sizeof *reads; r++)
        for (int t = 0; t < 2; t++) {
            char *src = co_shader_source(reads[r].source);
            void *spirv = NULL;
            size_t size = 0;
            const co_glsl_target target = t ? CO_GLSL_OPENGL : CO_GLSL_VULKAN;
            const bool ok = src && co_glsl_compile(target, reads[r].source, src, reads[r].defines,
                                                   reads[r].entry, &spirv, &size) == CO_OK;
            co_spirv_facts facts = {.uniform_mask = 99, .spec_ids = 99};
            if (ok) co_spirv_launch_facts(spirv, size, &facts);
            const uint32_t uniform = facts.uniform_mask, ids = facts.spec_ids;
            const bool groups = facts.num_groups;
            const uint64_t storage = facts.storage_mask;
            snprintf(what, sizeof what,
                     "%s %s [%s] for %s: uniform bindings 0x%x, storage 0x%llx, specialisation "
                     "constants 0x%x, %s gl_NumWorkGroups",
                     reads[r].source, reads[r].entry, reads[r].defines, t ? "OpenGL" : "Vulkan",
                     uniform, (unsigned long long)storage, ids, groups ? "reads" : "does not read");
            /* OpenGL's modules have CO_ARGS and CoBase as uniform blocks too,
             * at bindings 16 and 17, past the mask's. */
            check(ok && uniform == reads[r].uniform && (ids & 15) == reads[r].spec_ids &&
                      groups == reads[r].num_groups &&
                      (!reads[r].storage[t] || storage == reads[r].storage[t]),
                  what);
            free(spirv);
            free(src);
        }
    free(source);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
