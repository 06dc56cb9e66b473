/* Every embedded kernel file compiles under NVRTC (no GPU needed): once
 * with the file's own defaults (its #ifndef tunables), and once with the
 * default tunables of each CUDA variant of the workload the file belongs to
 * (file "gemm" or "gemm_*" for workload "gemm"). A small kernel using every
 * mapping of kernels/dialect.h checks the dialect itself.
 *
 * Usage: test_nvrtc [ARCH]   (default sm_90, the H200)
 * Exit: 0 all compiled, 1 a failure (the NVRTC log is printed),
 *       77 NVRTC cannot be opened (ctest: skipped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_access.h"
#include "core/workload.h"

/* Beyond the rules of dialect.h: the OpenCL built-ins it maps for CUDA. */
static const char dialect_probe[] =
    "__constant float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};\n"
    "float helper(float x) { return mad(x, 2.0f, 1.0f); }\n"
    "CO_INLINE uint twice(uint x) { return 2u * x; }\n"
    "__kernel void dialect_probe(__global float *CO_RESTRICT out, __global int *counter,\n"
    "                            __global uint *bits, __constant float *coef,\n"
    "                            const int n, const float s) {\n"
    "    __local float tile[64];\n"
    "    const size_t lid = get_local_id(0), gid = get_global_id(0);\n"
    "    tile[lid] = (float)gid * s;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
    "    float v = tile[(lid + 1) % get_local_size(0)] + table[gid & 3] + coef[0];\n"
    "    v = fma(v, sqrt(fabs(v)), fmin(v, fmax(v, 0.5f)));\n"
    "    v = clamp(helper(v), -1.0f, 1.0f) + mix(0.0f, 1.0f, 0.5f);\n"
    "    v += native_sqrt(2.0f) + native_rsqrt(2.0f) + native_divide(v, 3.0f)\n"
    "       + native_exp(v) + native_log(2.0f) + native_recip(v) + native_sin(v)\n"
    "       + native_cos(v) + native_powr(2.0f, v) + as_float(as_uint(v));\n"
    "    uchar c = (uchar)1; ushort h = (ushort)2; ulong l = (ulong)3;\n"
    "    v += (float)(c + h + l + clamp((int)gid, 0, n) + twice((uint)gid));\n"
    "    atomic_add(counter, 1); atomic_inc(counter); atomic_max(counter, n);\n"
    "    atomic_cmpxchg(counter, 0, 1); atomic_or(bits, 1u); atomic_xchg(bits, 2u);\n"
    "    if (gid == 0) {\n"
    "        float4 q = CO_LOAD4(out, 1);\n"
    "        CO_STORE4(CO_FLOAT4(q.x, q.y, q.z, q.w + (float)get_num_groups(0)), out, 1);\n"
    "    }\n"
    "    if ((int)gid < n) out[gid] = v + (float)get_group_id(0) + (float)get_global_size(0);\n"
    "}\n"
    "__kernel void dialect_probe_local(__global float *out, CO_LOCAL_ARG(float, mem)) {\n"
    "    CO_LOCAL_ARG_MEMORY(float, mem);\n"
    "    CO_LOCAL_PTR float *half = mem + get_local_size(0);\n"
    "    half[get_local_id(0)] = (float)get_local_id(0);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = half[get_local_size(0) - 1 - get_local_id(0)];\n"
    "}\n";

static int failures;

/* Compile `source`, print one line, and the log on failure. Returns 77 if
 * NVRTC cannot be opened, else 0. */
static int compile(const char *name, const char *source, const char *defines, const char *arch) {
    void *bin = NULL;
    size_t size = 0;
    double t0 = co_now_ms();
    co_status st = co_cuda_compile(name, source, defines, arch, &bin, &size);
    double ms = co_now_ms() - t0;
    free(bin);
    if (st == CO_ERR_UNSUPPORTED) {
        printf("SKIPPED: NVRTC not found (%s)\n", co_last_error());
        return 77;
    }
    if (st != CO_OK) {
        failures++;
        printf("FAIL %s.cl [%s] %s: %s\n%s\n", name, defines, arch, co_status_name(st),
               co_last_error());
    } else {
        printf("ok   %s.cl [%s] %s: %zu bytes, %.0f ms\n", name, defines, arch, size, ms);
    }
    return 0;
}

/* "-DTS=16 -DWPT=8" from a variant's default tunables, on GPUs or in general. */
static void variant_defines(const co_variant *v, bool gpu, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < v->nparams && used < len; i++) {
        const co_param_def *p = &v->params[i];
        if (!co_param_is_host(v, i))
            used += (size_t)snprintf(out + used, len - used, "%s-D%s=%ld", used ? " " : "", p->name,
                                     gpu && p->def_gpu ? p->def_gpu : p->def);
    }
}

/* Define sets a kernel file is built with that no variant declares. */
static const struct {
    const char *file, *defines;
} extra_defines[] = {
    {"peak", "-DPEAK_BLOCKED=1"}, /* src/core/peak.c on CPU devices */
    {"peak", "-DPEAK_FP64=1"},    /* its float64 FMA kernel */
    /* src/workloads/raytrace.c: precision x where the scene lives. */
    {"raytrace", "-DRT_DOUBLE=0 -DRT_SPACE=1 -DRT_NMAX=64"},
    {"raytrace", "-DRT_DOUBLE=0 -DRT_SPACE=2 -DRT_NMAX=64"},
    {"raytrace", "-DRT_DOUBLE=1 -DRT_SPACE=0 -DRT_NMAX=64"},
    {"raytrace", "-DRT_DOUBLE=1 -DRT_SPACE=1 -DRT_NMAX=64"},
    {"raytrace", "-DRT_DOUBLE=1 -DRT_SPACE=2 -DRT_NMAX=64"},
    /* boxfilter: RGBA8 (BF_U8, BF_CH 4), the passes through raw sums, the textures; boxfilter_fused:
     * the fused pass */
    {"boxfilter", "-DBF_U8=1 -DBF_CH=4 -DBF_FIRST=1 -DBF_FINAL=0 -DTILE=16"},
    {"boxfilter", "-DBF_FIRST=0 -DBF_FINAL=1 -DTILE=32 -DSY=4"},
    {"boxfilter", "-DBF_IMAGES=1 -DBF_BORDER=2 -DLMAX=7168 -DNT=256"},
    {"boxfilter", "-DBF_U8=1 -DBF_CH=4 -DBF_IMAGES=1 -DBF_BORDER=1 -DLMAX=6144"},
    /* box_quad: RGBA8, four pixels a work-item (uint4 accesses, mul_hi); r > 7 sums its
     * quads' totals (QS: in blocks) and divides by Granlund and Montgomery's constants;
     * r > 127 unpacked */
    {"boxfilter_quad", "-DQNT=64 -DQB=2 -DBF_RADIUS=1 -DQALIGNED=1"},
    {"boxfilter_quad", "-DQNT=128 -DQB=4 -DBF_RADIUS=7 -DQALIGNED=0 -DMAXREG=64"},
    {"boxfilter_quad", "-DQNT=64 -DQB=2 -DBF_RADIUS=17 -DQALIGNED=1 -DQMAGIC=1 -DQSHIFT=1"},
    {"boxfilter_quad",
     "-DQNT=256 -DQB=1 -DBF_RADIUS=127 -DQALIGNED=0 -DQMAGIC=1 -DQSHIFT=1 -DQS=8"},
    {"boxfilter_quad",
     "-DQNT=256 -DQB=1 -DBF_RADIUS=300 -DQALIGNED=1 -DQMAGIC=1 -DQSHIFT=1 -DQGM=1 -DQS=16"},
    {"boxfilter_fused", "-DNT=256 -DBF_BATCH=8 -DMAXREG=56"},             /* __maxnreg__ */
    {"boxfilter_fused", "-DNT=512 -DBF_BATCH=8 -DBF_HIST=3 -DLMAX=4736"}, /* registers */
    {"boxfilter_fused", "-DBF_U8=1 -DBF_CH=4 -DNT=256 -DBF_BATCH=8 -DBF_HIST=-1"},
    {"boxfilter_fused", "-DBF_U8=1 -DBF_PX4=1 -DNT=128 -DBF_BATCH=8 -DBF_HIST=-1 -DLMAX=1536"},
    {"boxfilter_fused", "-DNT=256 -DBF_BATCH=16 -DBF_HIST=-1 -DBF_BLOCKS=1"},
    /* r > 64: the parts' first windows compensated (BF_KAHAN0), fused and ring */
    {"boxfilter_fused", "-DNT=256 -DBF_BATCH=16 -DBF_HIST=-1 -DBF_BLOCKS=1 -DBF_KAHAN0=1"},
    {"boxfilter_fused", "-DBF_RING=1 -DNT=256 -DBF_BATCH=16 -DBF_BLOCKS=1 -DBF_LD=3 -DBF_KAHAN0=1"},
    /* the ring pass: local memory sized at launch */
    {"boxfilter_fused", "-DBF_RING=1 -DNT=384 -DBF_BATCH=8 -DBF_BLOCKS=1 -DPF=4"},
    {"boxfilter_fused", "-DBF_RING=1 -DBF_U8=1 -DBF_CH=4 -DNT=256 -DBF_BATCH=4 -DPF=2 -DMAXREG=64"},
    {"boxfilter_fused", "-DBF_RING=1 -DBF_U8=1 -DBF_PX4=1 -DNT=64 -DBF_BATCH=4 -DPF=2 -DMAXREG=64"},
    /* ... with leaving rows carried in registers and the row pitch compiled in */
    {"boxfilter_fused", "-DBF_RING=1 -DNT=256 -DBF_BATCH=32 -DBF_BLOCKS=1 -DBF_LD=1 "
                        "-DBF_PITCH=8192 -DBF_RADIUS=64 -DBF_RING_ROWS=160 -DPF=1"},
    {"boxfilter_fused",
     "-DBF_RING=1 -DBF_U8=1 -DBF_PX4=1 -DNT=128 -DBF_BATCH=16 -DBF_LD=15 -DBF_PITCH=1000 "
     "-DBF_RADIUS=15 -DBF_RING_ROWS=48"},
    /* ... 384 columns, 16-row batches with block sums */
    {"boxfilter_fused", "-DBF_RING=1 -DNT=384 -DBF_BATCH=16 -DBF_BLOCKS=1 -DBF_LD=3 -DPF=2"},
    /* pipelined (the H200's default at r = 57-63; here at r = 64, rows read four columns at a
     * time): block sums after __syncwarp (a block is a warp's BATCH columns), or a barrier */
    {"boxfilter_fused",
     "-DBF_RING=1 -DBF_PIPE=1 -DNT=256 -DBF_BATCH=16 -DBF_BLOCKS=1 -DBF_LD=1 "
     "-DBF_VEC=1 -DBF_GROUP=384 -DBF_PITCH=8192 -DBF_RADIUS=64 -DBF_RING_ROWS=160 "
     "-DCHAINS=4 -DPF=3"},
    {"boxfilter_fused",
     "-DBF_RING=1 -DBF_PIPE=1 -DBF_U8=1 -DBF_CH=4 -DNT=128 -DBF_BATCH=8 -DBF_BLOCKS=1"},
    /* unpipelined, 32-row batches of 32-pixel parts four columns at a time: the H200's at r = 64 */
    {"boxfilter_fused", "-DBF_RING=1 -DNT=192 -DBF_BATCH=32 -DBF_BLOCKS=1 -DBF_LD=1 -DBF_VEC=1 "
                        "-DBF_GROUP=320 -DBF_PITCH=8192 -DBF_RADIUS=64 -DBF_RING_ROWS=160 -DPF=1"},
    /* unpipelined, four columns at a time: the H200's default at r = 4-24 (here r = 16's) */
    {"boxfilter_fused",
     "-DBF_RING=1 -DNT=256 -DBF_BATCH=16 -DBF_BLOCKS=0 -DBF_LD=1 -DBF_VEC=1 "
     "-DBF_GROUP=288 -DBF_PITCH=8192 -DBF_RADIUS=16 -DBF_RING_ROWS=48 -DCHAINS=2 -DPF=2"},
    /* ZSTORE at r = 4 (the zero border's columns outside the image zeroed where stored) */
    {"boxfilter_fused",
     "-DBF_RING=1 -DNT=256 -DBF_BATCH=16 -DBF_BLOCKS=0 -DBF_LD=9 -DBF_VEC=1 "
     "-DBF_GROUP=288 -DBF_PITCH=8192 -DBF_RADIUS=4 -DBF_RING_ROWS=32 -DCHAINS=2 -DPF=2 "
     "-DBF_ZSTORE=1"},
    /* dependent adds in chains: 32-row batches (the H200's default at r = 25-48), and uneven ones */
    {"boxfilter_fused", "-DBF_RING=1 -DCHAINS=2 -DNT=256 -DBF_BATCH=32 -DBF_BLOCKS=1 -DBF_LD=1 "
                        "-DBF_PITCH=8192 -DPF=1"},
    /* the work-items per group capping registers (RGBA8, r = 31: 32-row batches in 512) */
    {"boxfilter_fused",
     "-DBF_RING=1 -DBF_U8=1 -DBF_CH=4 -DNT=256 -DBF_BATCH=32 -DBF_BLOCKS=1 -DBF_LD=31 "
     "-DBF_GROUP=512 -DCHAINS=2 -DPF=1"},
    {"boxfilter_fused", "-DCHAINS=4 -DBF_U8=1 -DBF_CH=4 -DNT=128 -DBF_BATCH=8 -DBF_HIST=-1"},
    /* gray8: 8-bit integer sums, one channel (the passes, the texture, fused and ring) */
    {"boxfilter", "-DBF_U8=1 -DBF_CH=1 -DBF_FIRST=1 -DBF_FINAL=0 -DTILE=16"},
    {"boxfilter", "-DBF_U8=1 -DBF_CH=1 -DBF_IMAGES=1 -DBF_BORDER=0"},
    {"boxfilter_fused", "-DBF_U8=1 -DBF_CH=1 -DNT=256 -DBF_BATCH=8 -DBF_HIST=3 -DLMAX=4736"},
    {"boxfilter_fused", "-DBF_RING=1 -DBF_U8=1 -DBF_CH=1 -DNT=256 -DBF_BATCH=16 -DBF_BLOCKS=1 "
                        "-DBF_LD=1 -DBF_PITCH=8192 -DBF_RADIUS=16 -DBF_RING_ROWS=48 -DCHAINS=2"},
    /* gemm_warp (its tunables are host_params: src/workloads/gemm.c makes the defines): B in
     * 4-byte copies (N % 4 != 0), loads through registers (float4 and scalar), the other
     * fragment layouts, a pass of 512 work-items over 8-deep slices, one warp */
    {"gemm_warp", "-DVA=1 -DVB=1"},
    {"gemm_warp", "-DASYNC=0 -DBK=8 -DSTAGES=2"},
    {"gemm_warp", "-DASYNC=0 -DBK=8 -DSTAGES=3 -DVA=1 -DVB=1"},
    {"gemm_warp", "-DBM=256 -DWM=64 -DWN=64 -DTM=16 -DTN=8 -DWARP_MINB=1"},
    {"gemm_warp", "-DBN=256 -DWN=64 -DTN=16 -DWARP_MINB=1 -DASYNC=0 -DBK=8"},
    {"gemm_warp", "-DBM=256 -DBK=8 -DVA=1 -DWARP_MINB=1"},
    {"gemm_warp", "-DBM=32 -DBN=32 -DWM=32 -DWN=32 -DTM=8 -DTN=4 -DSTAGES=5 -DWARP_MINB=16"},
};

/* A second compile of the same source and defines comes from the cache
 * directory (one entry, the same bytes); other defines are another entry. */
static void check_cache(const char *source, const char *arch) {
    char dir[] = "/tmp/coalesce-nvrtc-XXXXXX", cmd[256];
    if (!mkdtemp(dir)) return;
    char *saved = getenv("COALESCE_CACHE_DIR") ? strdup(getenv("COALESCE_CACHE_DIR")) : NULL;
    setenv("COALESCE_CACHE_DIR", dir, 1);
    void *a = NULL, *b = NULL, *c = NULL;
    size_t na = 0, nb = 0, nc = 0;
    co_status st = co_cuda_compile("dialect_probe", source, "", arch, &a, &na);
    snprintf(cmd, sizeof cmd, "test $(ls '%s/cuda' | wc -l) -eq 1", dir);
    bool one = !st && system(cmd) == 0;
    if (!st) st = co_cuda_compile("dialect_probe", source, "", arch, &b, &nb);
    bool same = !st && one && system(cmd) == 0 && na == nb && memcmp(a, b, na) == 0;
    if (!st) st = co_cuda_compile("dialect_probe", source, "-DUNUSED=1", arch, &c, &nc);
    snprintf(cmd, sizeof cmd, "test $(ls '%s/cuda' | wc -l) -eq 2", dir);
    bool two = !st && system(cmd) == 0;
    printf("%s cache: one entry per source and defines, the same bytes again\n",
           same && two ? "ok  " : "FAIL");
    if (!(same && two)) failures++;
    free(a), free(b), free(c);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
    if (saved)
        setenv("COALESCE_CACHE_DIR", saved, 1);
    else
        unsetenv("COALESCE_CACHE_DIR");
    free(saved);
}

static bool belongs_to(const char *file, const char *workload) {
    size_t n = strlen(workload);
    return strncmp(file, workload, n) == 0 && (file[n] == 0 || file[n] == '_');
}

/* ptxas's report in the layouts its versions write: an entry's figures
 * found by its own lines, whatever comes around them. */
static void check_ptxas_figures(void) {
    static const char *const logs[] = {
        /* NVRTC 13.0: each entry's lines in turn, a helper's properties first */
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Function properties for helper\n"
        "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Compiling entry function 'box_rows' for 'sm_90'\n"
        "ptxas info    : Function properties for box_rows\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 384 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function 'box_rows_t' for 'sm_90'\n"
        "ptxas info    : Function properties for box_rows_t\n"
        "    16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads\n"
        "ptxas info    : Used 72 registers, 4096 bytes smem, 384 bytes cmem[0]\n",
        /* the registers before the properties, entries in the other order */
        "ptxas info    : Compiling entry function 'box_rows_t' for 'sm_90'\n"
        "ptxas info    : Used 72 registers, 4096 bytes smem, 384 bytes cmem[0]\n"
        "ptxas info    : Function properties for box_rows_t\r\n"
        "    16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads\n"
        "ptxas info    : Compiling entry function 'box_rows' for 'sm_90'\n"
        "ptxas info    : Used 40 registers, 2048 bytes smem, 384 bytes cmem[0]\n"
        "ptxas info    : Function properties for box_rows\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n",
        /* no "Compiling entry function" lines */
        "ptxas info    : Function properties for box_rows_t\n"
        "    16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads\n"
        "ptxas info    : Used 72 registers, 4096 bytes smem, 384 bytes cmem[0]\n"
        "ptxas info    : Function properties for box_rows\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 40 registers, 2048 bytes smem, 384 bytes cmem[0]\n"};
    for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
        co_il_resources a = {.registers = -1, .stack_bytes = -1, .shared_bytes = -1};
        co_il_resources b = a, none = a;
        co_cuda_ptxas_figures(logs[i], "box_rows", &a);
        co_cuda_ptxas_figures(logs[i], "box_rows_t", &b);
        co_cuda_ptxas_figures(logs[i], "box", &none);
        if (a.registers != 40 || a.shared_bytes != 2048 || a.stack_bytes != 0 ||
            b.registers != 72 || b.shared_bytes != 4096 || b.stack_bytes != 16 ||
            b.spill_stores != 12 || b.spill_loads != 8 || none.registers != -1) {
            printf("FAIL ptxas report layout %zu: box_rows %ld regs %ld smem %ld stack, "
                   "box_rows_t %ld regs %ld smem %ld stack %ld/%ld spills, box %ld regs\n",
                   i, a.registers, a.shared_bytes, a.stack_bytes, b.registers, b.shared_bytes,
                   b.stack_bytes, b.spill_stores, b.spill_loads, none.registers);
            failures++;
        }
    }
}

/* The cubin's attributes: a kernel's registers and frame as ptxas -v
 * reports them (test_il compares ptxas's figures with the driver's), and
 * nothing from a buffer that is not a whole cubin. */
static void check_cubin_figures(const char *arch) {
    static const char source[] = /* CUDA C++, as NVRTC takes it (no dialect) */
        "extern \"C\" __global__ void one(float *x) { x[threadIdx.x] *= 2.0f; }\n"
        "extern \"C\" __global__ void two(float *x, int n) {\n"
        "    float acc[16];\n"
        "    for (int k = 0; k < 16; k++) acc[k] = x[k * n + threadIdx.x];\n"
        "    float s = 0;\n"
        "    for (int j = 0; j < n; j++)\n"
        "        for (int k = 0; k < 16; k++) s += acc[k] * x[j * 16 + k] * acc[(k + j) % 16];\n"
        "    x[threadIdx.x] = s;\n"
        "}\n"
        "extern \"C\" __global__ void three(float *x) {\n"
        "    __shared__ float t[100];\n"
        "    t[threadIdx.x] = x[threadIdx.x];\n"
        "    __syncthreads();\n"
        "    x[threadIdx.x] = t[99 - threadIdx.x];\n"
        "}\n";
    void *bin = NULL;
    size_t size = 0;
    if (strncmp(arch, "sm_", 3)) return; /* PTX: no cubin */
    const co_status st = co_cuda_compile("figures", source, "", arch, &bin, &size);
    if (st) {
        if (st != CO_ERR_UNSUPPORTED) { /* no NVRTC: compile() says so */
            printf("FAIL cubin figures: the test kernels did not build: %s\n", co_last_error());
            failures++;
        }
        free(bin);
        return;
    }
    co_il_resources one = {.registers = -1, .stack_bytes = -1, .shared_bytes = -1}, two = one,
                    three = one, none = one, cut = one;
    co_cuda_cubin_figures(bin, size, "one", &one);
    co_cuda_cubin_figures(bin, size, "three", &three);
    co_cuda_cubin_figures(bin, size, "two", &two);
    co_cuda_cubin_figures(bin, size, "on", &none);
    co_cuda_cubin_figures(bin, size / 2, "two", &cut);
    free(bin);
    /* `one`: a handful of registers, no frame, no shared memory (no section: left as it
     * was); `two` indexes its array: a frame of 64 bytes; `three`: 400 bytes shared */
    if (one.registers < 4 || one.registers > 32 || one.stack_bytes != 0 || two.registers < 4 ||
        two.stack_bytes != 64 || three.shared_bytes != 400 || one.shared_bytes != -1 ||
        none.registers != -1 || cut.registers != -1) {
        printf("FAIL cubin figures: one %ld regs %ld stack %ld shared, two %ld regs %ld stack, "
               "three %ld shared, a name's prefix %ld regs, half a cubin %ld regs\n",
               one.registers, one.stack_bytes, one.shared_bytes, two.registers, two.stack_bytes,
               three.shared_bytes, none.registers, cut.registers);
        failures++;
    } else {
        printf("ok   cubin figures: one %ld registers, two %ld registers, %ld bytes frame, three "
               "%ld bytes shared\n",
               one.registers, two.registers, two.stack_bytes, three.shared_bytes);
    }
}

int main(int argc, char **argv) {
    const char *arch = argc > 1 ? argv[1] : "sm_90";
    const char *const *names = co_kernel_names();
    const co_workload *const *workloads;
    size_t nworkloads = co_workloads(&workloads);
    char *first = NULL;
    check_ptxas_figures();
    check_cubin_figures(arch);

    for (size_t f = 0; names[f]; f++) {
        char *source = co_kernel_source(names[f]);
        if (!source) {
            printf("FAIL %s: co_kernel_source returned nothing\n", names[f]);
            failures++;
            continue;
        }
        if (compile(names[f], source, "", arch) == 77) {
            free(source);
            return failures ? 1 : 77; /* the report's layouts need no NVRTC */
        }
        for (size_t e = 0; e < sizeof extra_defines / sizeof *extra_defines; e++)
            if (strcmp(extra_defines[e].file, names[f]) == 0)
                compile(names[f], source, extra_defines[e].defines, arch);
        /* Each distinct define set of the file's workload's CUDA variants. */
        char done[32][256];
        size_t ndone = 0;
        for (size_t w = 0; w < nworkloads; w++) {
            if (!belongs_to(names[f], workloads[w]->name)) continue;
            for (size_t i = 0; i < 2 * workloads[w]->nvariants; i++) {
                const co_variant *var = &workloads[w]->variants[i / 2];
                char defines[256];
                if (!(var->on & CO_ON_CUDA) || var->nparams == 0) continue;
                variant_defines(var, i % 2 == 0, defines, sizeof defines);
                bool seen = false;
                for (size_t d = 0; d < ndone; d++) seen = seen || strcmp(done[d], defines) == 0;
                if (seen) continue;
                if (ndone < sizeof done / sizeof *done) strcpy(done[ndone++], defines);
                compile(names[f], source, defines, arch);
            }
        }
        if (!first)
            first = source;
        else
            free(source);
    }

    compile("co_spin", co_cuda_spin_source(), "", arch); /* the CUDA timer's */
    /* The dialect alone: the prelude of any kernel source, up to its #line. */
    if (first) {
        char *cut = strstr(first, "#line 1 \"");
        if (cut) {
            *cut = 0;
            size_t len = strlen(first) + sizeof dialect_probe;
            char *probe = malloc(len);
            if (probe) {
                snprintf(probe, len, "%s%s", first, dialect_probe);
                compile("dialect_probe", probe, "", arch);
                check_cache(probe, arch);
                free(probe);
            }
        }
        free(first);
    }
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
