/* The `opengl` backend: compute shaders on OpenGL 4.5 with ARB_gl_spirv,
 * seed 002's API, through EGL without a window: a display per EGL device
 * (EGL_EXT_platform_device; Mesa's surfaceless platform where devices
 * cannot be listed) and a configless, surfaceless core context on each.
 * libEGL.so.1 is opened with dlopen and every GL entry point resolved by
 * eglGetProcAddress, so one binary runs with or without EGL or a driver.
 *
 * The shaders are the vulkan backend's (kernels/<name>.comp behind
 * kernels/prelude.glsl), compiled by shaderc for OpenGL (glsl/shaderc.c),
 * handed to the driver as SPIR-V (glShaderBinary, glSpecializeShader).
 * The launch rules are theirs too (glsl/glsl.c): the buffers are
 * shader-storage bindings 0, 1, ... in order (a binding the shader
 * declares `uniform`: that uniform-buffer binding), the scalars the
 * prelude's CO_ARGS uniform block (binding 16; a second view of a buffer,
 * CO_BUFFER_VIEW, binding 18 on), the group size and
 * CO_LOCAL's bytes specialisation constants 0-3: a program per kernel and
 * (group, local bytes), linked on its first launch and kept. A launch of
 * more groups than GL_MAX_COMPUTE_WORK_GROUP_COUNT goes in pieces, each
 * with its first group in the prelude's CoBase block (binding 17).
 *
 * Kernel time: GL_TIMESTAMP queries before and after the dispatch, the
 * work before it finished first (llvmpipe reads 0 for GL_TIME_ELAPSED
 * around compute dispatches). Buffers are immutable storage written and
 * read with glNamedBufferSubData; a launch without timing returns at once
 * (`finish` waits). A context is current in one thread at a time: each
 * call makes the device's current in the calling thread and releases it.
 * Mesa's llvmpipe is a CPU device, as lavapipe is Vulkan's. */
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/glsl/glsl.h"

/* GL_KHR_shader_subgroup and GL_NVX_gpu_memory_info, GL_NV_shader_thread_group
 * (not in glcorearb.h) */
#define CO_GL_SUBGROUP_SIZE 0x9532
#define CO_GL_SUBGROUP_SUPPORTED_STAGES 0x9533
#define CO_GL_DEDICATED_VIDMEM_NVX 0x9047 /* KiB */
#define CO_GL_SM_COUNT_NV 0x933B

/* The prelude's bindings: CO_ARGS and CoBase blocks, and CO_BUFFER_VIEW's
 * second view of storage binding b at b + VIEW_BINDING. */
enum { ARGS_BINDING = 16, BASE_BINDING = 17, VIEW_BINDING = 18, MAX_PROGS = 8, MAX_DISPLAYS = 16 };

/* ---- EGL and GL: entry points resolved by name ---- */

// clang-format off
#define EGL_FUNCS(X)                                                                          \
    X(GetProcAddress) X(GetError) X(QueryString) X(Initialize) X(BindAPI)       \
    X(CreateContext) X(DestroyContext) X(MakeCurrent) X(GetCurrentContext)

#define GL_FUNCS(X)                                                                           \
    X(GetError, GETERROR) X(GetString, GETSTRING) X(GetStringi, GETSTRINGI)                   \
    X(GetIntegerv, GETINTEGERV) X(GetIntegeri_v, GETINTEGERI_V)                               \
    X(GetInteger64v, GETINTEGER64V) X(CreateBuffers, CREATEBUFFERS)                           \
    X(NamedBufferStorage, NAMEDBUFFERSTORAGE) X(NamedBufferSubData, NAMEDBUFFERSUBDATA)       \
    X(GetNamedBufferSubData, GETNAMEDBUFFERSUBDATA)                                           \
    X(CopyNamedBufferSubData, COPYNAMEDBUFFERSUBDATA) X(DeleteBuffers, DELETEBUFFERS)         \
    X(CreateShader, CREATESHADER) X(ShaderBinary, SHADERBINARY)                               \
    X(SpecializeShader, SPECIALIZESHADER) X(GetShaderiv, GETSHADERIV)                         \
    X(GetShaderInfoLog, GETSHADERINFOLOG) X(DeleteShader, DELETESHADER)                       \
    X(CreateProgram, CREATEPROGRAM) X(AttachShader, ATTACHSHADER) X(LinkProgram, LINKPROGRAM) \
    X(GetProgramiv, GETPROGRAMIV) X(GetProgramInfoLog, GETPROGRAMINFOLOG)                     \
    X(DeleteProgram, DELETEPROGRAM) X(UseProgram, USEPROGRAM)                                 \
    X(BindBufferBase, BINDBUFFERBASE) X(DispatchCompute, DISPATCHCOMPUTE)                     \
    X(MemoryBarrier, MEMORYBARRIER) X(GenQueries, GENQUERIES) X(DeleteQueries, DELETEQUERIES) \
    X(QueryCounter, QUERYCOUNTER) X(GetQueryObjectui64v, GETQUERYOBJECTUI64V) X(Finish, FINISH)
// clang-format on

#define EGL_FIELD(name) PFNEGL##name##PROC_T name;
#define GL_FIELD(name, upper) PFNGL##upper##PROC name;
typedef EGLDisplay (*egl_platform_display_fn)(EGLenum, void *, const EGLint *);
/* <EGL/egl.h> names its pointer types in capitals: spell them per function. */
typedef __eglMustCastToProperFunctionPointerType (*PFNEGLGetProcAddressPROC_T)(const char *);
typedef EGLint (*PFNEGLGetErrorPROC_T)(void);
typedef const char *(*PFNEGLQueryStringPROC_T)(EGLDisplay, EGLint);
typedef EGLBoolean (*PFNEGLInitializePROC_T)(EGLDisplay, EGLint *, EGLint *);
typedef EGLBoolean (*PFNEGLBindAPIPROC_T)(EGLenum);
typedef EGLContext (*PFNEGLCreateContextPROC_T)(EGLDisplay, EGLConfig, EGLContext, const EGLint *);
typedef EGLBoolean (*PFNEGLDestroyContextPROC_T)(EGLDisplay, EGLContext);
typedef EGLBoolean (*PFNEGLMakeCurrentPROC_T)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
typedef EGLContext (*PFNEGLGetCurrentContextPROC_T)(void);

static struct {
    void *lib;
    bool tried, ok;
    char why[160];
    EGL_FUNCS(EGL_FIELD)
    PFNEGLQUERYDEVICESEXTPROC QueryDevicesEXT;
    PFNEGLQUERYDEVICESTRINGEXTPROC QueryDeviceStringEXT;
    egl_platform_display_fn GetPlatformDisplayEXT;
} egl;

static struct { GL_FUNCS(GL_FIELD) } gl;

/* A function of lib by name (dlsym gives it as an object pointer). */
typedef void (*any_fn)(void);
static any_fn sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    any_fn fn;
    _Static_assert(sizeof fn == sizeof p, "function and data pointers differ in size");
    memcpy(&fn, &p, sizeof fn);
    return fn;
}

/* libEGL.so.1 and every entry point, once; false with the reason in egl.why. */
static bool egl_open(void) {
    if (egl.tried) return egl.ok;
    egl.tried = true;
    egl.lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!egl.lib) {
        const char *e = dlerror();
        snprintf(egl.why, sizeof egl.why, "cannot open libEGL.so.1 (%s)", e ? e : "not found");
        return false;
    }
#define EGL_LOAD(name) egl.name = (PFNEGL##name##PROC_T)sym(egl.lib, "egl" #name);
    EGL_FUNCS(EGL_LOAD)
#undef EGL_LOAD
    bool all = true;
#define EGL_HAS(name) all = all && egl.name;
    EGL_FUNCS(EGL_HAS)
#undef EGL_HAS
    if (!all) {
        snprintf(egl.why, sizeof egl.why, "libEGL.so.1 lacks EGL 1.5's entry points");
        return false;
    }
    egl.QueryDevicesEXT = (PFNEGLQUERYDEVICESEXTPROC)egl.GetProcAddress("eglQueryDevicesEXT");
    egl.QueryDeviceStringEXT =
        (PFNEGLQUERYDEVICESTRINGEXTPROC)egl.GetProcAddress("eglQueryDeviceStringEXT");
    egl.GetPlatformDisplayEXT =
        (egl_platform_display_fn)egl.GetProcAddress("eglGetPlatformDisplayEXT");
    const char *missing = NULL;
#define GL_LOAD(name, upper)                                                                       \
    gl.name = (PFNGL##upper##PROC)egl.GetProcAddress("gl" #name);                                  \
    if (!gl.name && !missing) missing = "gl" #name;
    GL_FUNCS(GL_LOAD)
#undef GL_LOAD
    if (missing || !egl.GetPlatformDisplayEXT) {
        snprintf(egl.why, sizeof egl.why, "EGL gives no %s",
                 missing ? missing : "eglGetPlatformDisplayEXT");
        return false;
    }
    return egl.ok = true;
}

static const char *gl_error_name(GLenum e) {
    switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    default: return "an unknown GL error";
    }
}

/* The GL errors since the last check, as a status: what `what` did. */
static co_status gl_check(const char *what) {
    const GLenum e = gl.GetError();
    if (e == GL_NO_ERROR) return CO_OK;
    while (gl.GetError() != GL_NO_ERROR) {
    }
    return co_fail(e == GL_OUT_OF_MEMORY ? CO_ERR_NOMEM : CO_ERR_DEVICE, "OpenGL: %s: %s", what,
                   gl_error_name(e));
}

/* ---- devices, buffers, kernels ---- */

typedef struct gl_device {
    EGLDisplay dpy;
    EGLContext ctx;
    uint32_t max_groups[3];
    GLint max_uniform_block;
    GLuint args, base; /* the CO_ARGS and CoBase blocks' buffers */
    GLuint queries[2]; /* GL_TIMESTAMP before and after a dispatch */
    bool probed;       /* caps.int8 found yet (glsl_caps) */
    co_glsl_caps caps;
} gl_device;

struct co_buf {
    GLuint id;
    size_t bytes;
};

typedef struct gl_prog {
    uint32_t spec[4]; /* local size x, y, z; CO_LOCAL bytes */
    GLuint program;
} gl_prog;

struct co_kernel {
    void *spirv; /* the module, specialised per launch signature */
    size_t size;
    co_spirv_facts facts; /* its bindings, constants, gl_NumWorkGroups */
    gl_prog progs[MAX_PROGS];
    size_t nprogs;
    char entry[];
};

static const co_backend opengl_backend;

/* A context is current in one thread at a time, and the library's calls on
 * one context may come from any thread (one at a time): each entry point
 * makes the device's context current for its GL calls (current) and
 * releases it after (leave). The *_in functions run inside. */
static co_status current(const gl_device *d) {
    if (egl.GetCurrentContext() == d->ctx) return CO_OK;
    if (egl.MakeCurrent(d->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, d->ctx)) return CO_OK;
    return co_fail(CO_ERR_DEVICE,
                   "OpenGL: eglMakeCurrent failed (EGL error 0x%x): is the context current "
                   "in another thread?",
                   (unsigned)egl.GetError());
}

static void leave(const gl_device *d) {
    egl.MakeCurrent(d->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

/* An entry point's body: `call` with dev's context current. */
#define SCOPED(dev, call)                                                                          \
    do {                                                                                           \
        const gl_device *scoped_ = (dev)->impl;                                                    \
        co_status st_ = current(scoped_);                                                          \
        if (!st_) st_ = (call), leave(scoped_);                                                    \
        return st_;                                                                                \
    } while (0)

static co_status alloc_in(co_device *dev, size_t bytes, co_buf **out) {
    if (dev->info.max_alloc_bytes && bytes > dev->info.max_alloc_bytes)
        return co_fail(CO_ERR_LIMIT,
                       "OpenGL: a buffer of %zu bytes is over %s's %zu "
                       "(GL_MAX_SHADER_STORAGE_BLOCK_SIZE: a buffer is one storage block)",
                       bytes, dev->info.spec, dev->info.max_alloc_bytes);
    co_status st;
    co_buf *b = calloc(1, sizeof *b);
    if (!b) return co_fail(CO_ERR_NOMEM, "out of host memory");
    b->bytes = bytes;
    gl.CreateBuffers(1, &b->id);
    /* Whole words, at least one: a shader reads uint-sized views of it. */
    gl.NamedBufferStorage(b->id, (GLsizeiptr)((bytes + 3) / 4 * 4 + (bytes ? 0 : 4)), NULL,
                          GL_DYNAMIC_STORAGE_BIT);
    if ((st = gl_check("glNamedBufferStorage"))) {
        gl.DeleteBuffers(1, &b->id);
        free(b);
        return st;
    }
    *out = b;
    return CO_OK;
}

static void free_in(co_buf *buf) {
    if (buf) gl.DeleteBuffers(1, &buf->id);
    free(buf);
}

static co_status check_size(const co_device *dev, const co_buf *buf, size_t offset, size_t bytes) {
    if (offset > buf->bytes || bytes > buf->bytes - offset)
        return co_fail(CO_ERR_INVALID, "OpenGL: %zu bytes at offset %zu of a %zu-byte buffer on %s",
                       bytes, offset, buf->bytes, dev->info.spec);
    return CO_OK;
}

static co_status write_in(co_device *dev, co_buf *dst, size_t offset, const void *src,
                          size_t bytes) {
    co_status st = check_size(dev, dst, offset, bytes);
    if (st || !bytes) return st;
    gl.NamedBufferSubData(dst->id, (GLintptr)offset, (GLsizeiptr)bytes, src);
    return gl_check("glNamedBufferSubData");
}

static co_status read_in(co_device *dev, void *dst, co_buf *src, size_t offset, size_t bytes) {
    co_status st = check_size(dev, src, offset, bytes);
    if (st || !bytes) return st;
    gl.GetNamedBufferSubData(src->id, (GLintptr)offset, (GLsizeiptr)bytes, dst);
    return gl_check("glGetNamedBufferSubData (a kernel before it may have failed)");
}

static co_status alloc(co_device *dev, size_t bytes, co_buf **out) {
    SCOPED(dev, alloc_in(dev, bytes, out));
}

static void buf_free(co_device *dev, co_buf *buf) {
    if (!buf || current(dev->impl)) {
        free(buf);
        return;
    }
    free_in(buf);
    leave(dev->impl);
}

static co_status write_at(co_device *dev, co_buf *dst, size_t offset, const void *src,
                          size_t bytes) {
    SCOPED(dev, write_in(dev, dst, offset, src, bytes));
}

static co_status read_at(co_device *dev, void *dst, co_buf *src, size_t offset, size_t bytes) {
    SCOPED(dev, read_in(dev, dst, src, offset, bytes));
}

static co_status upload(co_device *dev, co_buf *dst, const void *src, size_t bytes) {
    return write_at(dev, dst, 0, src, bytes);
}

static co_status download(co_device *dev, void *dst, co_buf *src, size_t bytes) {
    return read_at(dev, dst, src, 0, bytes);
}

static void release(co_device *dev) {
    gl_device *d = dev->impl;
    if (!d) return;
    if (d->ctx && !current(d)) {
        GLuint bufs[2] = {d->args, d->base};
        gl.DeleteBuffers(2, bufs);
        gl.DeleteQueries(2, d->queries);
        leave(d);
    }
    if (d->ctx) egl.DestroyContext(d->dpy, d->ctx);
    /* The display stays initialised: EGL gives every context on one device
     * the same display, and terminating it would end the others'. */
    free(d);
    dev->impl = NULL;
}

static void kernel_destroy(co_device *dev, co_kernel *k) {
    if (k->nprogs && !current(dev->impl)) {
        for (size_t i = 0; i < k->nprogs; i++) gl.DeleteProgram(k->progs[i].program);
        leave(dev->impl);
    }
    free(k->spirv);
    free(k);
}

static void program_free(co_device *dev, co_program *prog) {
    co_glsl_program_free(dev, prog, kernel_destroy);
}

static co_status kernel(co_device *dev, co_program *prog, const char *entry, co_kernel **out) {
    if ((*out = co_glsl_kernel_find(prog, entry))) return CO_OK;
    co_kernel *k = calloc(1, sizeof *k + strlen(entry) + 1);
    if (!k) return co_fail(CO_ERR_NOMEM, "out of host memory");
    strcpy(k->entry, entry);
    co_status st = co_glsl_compile(CO_GLSL_OPENGL, prog->name, prog->source, prog->defines, entry,
                                   &k->spirv, &k->size);
    if (!st) {
        co_spirv_launch_facts(k->spirv, k->size, &k->facts);
        st = co_glsl_kernel_add(prog, entry, k);
    }
    if (st) {
        kernel_destroy(dev, k);
        return st;
    }
    *out = k;
    return CO_OK;
}

/* A program of module k specialised with spec[] (local size, CO_LOCAL
 * bytes), linked; CO_ERR_BUILD with the driver's log. Only the constants
 * the module has are given: OpenGL fails on any other. */
static co_status link_program(const co_kernel *k, const uint32_t spec[4], GLuint *out) {
    GLuint index[4], value[4], n = 0;
    for (GLuint i = 0; i < 4; i++)
        if (k->facts.spec_ids >> i & 1) index[n] = i, value[n++] = spec[i];
    char log[4096] = "";
    GLint ok = 0;
    const GLuint shader = gl.CreateShader(GL_COMPUTE_SHADER);
    gl.ShaderBinary(1, &shader, GL_SHADER_BINARY_FORMAT_SPIR_V, k->spirv, (GLsizei)k->size);
    gl.SpecializeShader(shader, "main", n, index, value);
    gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) gl.GetShaderInfoLog(shader, sizeof log, NULL, log);
    GLuint program = 0;
    if (ok) {
        program = gl.CreateProgram();
        gl.AttachShader(program, shader);
        gl.LinkProgram(program);
        gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
        if (!ok) gl.GetProgramInfoLog(program, sizeof log, NULL, log), gl.DeleteProgram(program);
    }
    gl.DeleteShader(shader); /* the program keeps what it needs */
    co_status st = gl_check("glSpecializeShader");
    if (!ok || st)
        return co_fail_log(CO_ERR_BUILD, log[0] ? log : "(no log)",
                           "OpenGL: kernel '%s' at a group of %ux%ux%u (%u local bytes) failed to "
                           "%s",
                           k->entry, spec[0], spec[1], spec[2], spec[3],
                           program ? "link" : "specialise (glSpecializeShader)");
    *out = program;
    return CO_OK;
}

/* The program of kernel k for spec[], made on first use. */
static co_status program_for(co_kernel *k, const uint32_t spec[4], GLuint *out) {
    for (size_t i = 0; i < k->nprogs; i++)
        if (!memcmp(k->progs[i].spec, spec, sizeof k->progs[i].spec)) {
            *out = k->progs[i].program;
            return CO_OK;
        }
    if (k->nprogs == MAX_PROGS) { /* a kernel launched many ways: the oldest goes */
        gl.DeleteProgram(k->progs[0].program);
        memmove(&k->progs[0], &k->progs[1], (MAX_PROGS - 1) * sizeof *k->progs);
        k->nprogs--;
    }
    gl_prog *p = &k->progs[k->nprogs];
    co_status st = link_program(k, spec, &p->program);
    if (st) return st;
    memcpy(p->spec, spec, sizeof p->spec);
    k->nprogs++;
    *out = p->program;
    return CO_OK;
}

/* The time between the two timestamps around the work just queued. */
static co_status stamps_ms(const gl_device *d, double *ms) {
    GLuint64 t[2] = {0, 0};
    gl.GetQueryObjectui64v(d->queries[0], GL_QUERY_RESULT, &t[0]);
    gl.GetQueryObjectui64v(d->queries[1], GL_QUERY_RESULT, &t[1]);
    co_status st = gl_check("GL_TIMESTAMP queries");
    if (!st) *ms = (double)(t[1] - t[0]) * 1e-6;
    return st;
}

static uint32_t piece(uint32_t total, uint32_t at, uint32_t most) {
    return total - at < most ? total - at : most;
}

static co_status launch_in(co_device *dev, co_kernel *k, unsigned dims, const size_t global[3],
                           const size_t local[3], size_t nargs, const co_arg *args,
                           double *kernel_ms) {
    gl_device *d = dev->impl;
    co_glsl_shape shape;
    co_glsl_args a;
    co_status st = co_glsl_launch_shape(dev, "OpenGL", k->entry, dims, global, local,
                                        k->facts.num_groups, d->max_groups, &shape);
    if (!st)
        st =
            co_glsl_launch_args("OpenGL", k->entry, nargs, args, (unsigned)d->max_uniform_block / 4,
                                "GL_MAX_UNIFORM_BLOCK_SIZE", &a, &shape);
    if (st) return st;
    for (unsigned i = 0; i < a.nbuf; i++)
        if (k->facts.uniform_mask >> i & 1 && a.bufs[i]->bytes > (size_t)d->max_uniform_block)
            return co_fail(CO_ERR_LIMIT,
                           "OpenGL: kernel '%s': uniform buffer %u of %zu bytes, over %s's "
                           "GL_MAX_UNIFORM_BLOCK_SIZE %d",
                           k->entry, i, a.bufs[i]->bytes, dev->info.spec, d->max_uniform_block);
    GLuint program = 0;
    if ((st = program_for(k, shape.spec, &program))) return st;
    gl.UseProgram(program);
    /* Each buffer where the module has a block for it: its binding, and
     * its second view's. */
    for (unsigned i = 0; i < a.nbuf; i++) {
        if (k->facts.uniform_mask >> i & 1) gl.BindBufferBase(GL_UNIFORM_BUFFER, i, a.bufs[i]->id);
        if (k->facts.storage_mask >> i & 1)
            gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, i, a.bufs[i]->id);
        if (k->facts.storage_mask >> (VIEW_BINDING + i) & 1)
            gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, VIEW_BINDING + i, a.bufs[i]->id);
    }
    if (a.nscalars) {
        gl.NamedBufferSubData(d->args, 0, 4 * (GLsizeiptr)a.nscalars, a.scalars);
        gl.BindBufferBase(GL_UNIFORM_BUFFER, ARGS_BINDING, d->args);
    }
    /* Timed: the uploads before it finished first (glFinish), as Vulkan's
     * transfers are, so that the pair of timestamps holds the kernel alone. */
    if (kernel_ms) gl.Finish(), gl.QueryCounter(d->queries[0], GL_TIMESTAMP);
    const uint32_t *groups = shape.groups, *most = d->max_groups;
    for (uint32_t z = 0; z < groups[2]; z += most[2])
        for (uint32_t y = 0; y < groups[1]; y += most[1])
            for (uint32_t x = 0; x < groups[0]; x += most[0]) {
                const uint32_t base[4] = {x, y, z, 0};
                gl.NamedBufferSubData(d->base, 0, sizeof base, base);
                gl.BindBufferBase(GL_UNIFORM_BUFFER, BASE_BINDING, d->base);
                gl.DispatchCompute(piece(groups[0], x, most[0]), piece(groups[1], y, most[1]),
                                   piece(groups[2], z, most[2]));
            }
    /* What the kernel wrote, seen by the next kernel and by buffer reads. */
    gl.MemoryBarrier(GL_ALL_BARRIER_BITS);
    if (kernel_ms) gl.QueryCounter(d->queries[1], GL_TIMESTAMP);
    char what[160];
    snprintf(what, sizeof what, "kernel '%.100s'", k->entry);
    if ((st = gl_check(what))) return st;
    return kernel_ms ? stamps_ms(d, kernel_ms) : CO_OK;
}

static co_status launch(co_device *dev, co_kernel *k, unsigned dims, const size_t global[3],
                        const size_t local[3], size_t nargs, const co_arg *args,
                        double *kernel_ms) {
    SCOPED(dev, launch_in(dev, k, dims, global, local, nargs, args, kernel_ms));
}

static co_status finish_in(void) {
    gl.Finish();
    return gl_check("glFinish (a kernel before it failed)");
}

static co_status finish(co_device *dev) { SCOPED(dev, finish_in()); }

/* dst = src (bytes of them) by glCopyNamedBufferSubData between timestamps. */
static co_status copy_in(co_device *dev, co_buf *dst, co_buf *src, size_t bytes, double *ms) {
    gl_device *d = dev->impl;
    co_status st = check_size(dev, src, 0, bytes);
    if (!st) st = check_size(dev, dst, 0, bytes);
    if (st || !bytes) return st;
    gl.Finish();
    gl.QueryCounter(d->queries[0], GL_TIMESTAMP);
    gl.CopyNamedBufferSubData(src->id, dst->id, 0, 0, (GLsizeiptr)bytes);
    gl.QueryCounter(d->queries[1], GL_TIMESTAMP);
    if ((st = gl_check("glCopyNamedBufferSubData"))) return st;
    return stamps_ms(d, ms);
}

static co_status copy(co_device *dev, co_buf *dst, co_buf *src, size_t bytes, double *ms) {
    SCOPED(dev, copy_in(dev, dst, src, bytes, ms));
}

/* ---- the device's shader capabilities ---- */

/* 8-bit storage: OpenGL lists no SPIR-V extension for it, yet Mesa and
 * NVIDIA run it; a small shader decides, once per device (bytes in, bytes
 * out, checked). */
enum { PROBE_N = 64 };
static const char int8_probe[] =
    "#version 450\n"
    "#extension GL_EXT_shader_8bit_storage : require\n"
    "#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require\n"
    "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n"
    "layout(std430, binding = 0) buffer In { uint8_t a[]; };\n"
    "layout(std430, binding = 1) buffer Out { uint8_t b[]; };\n"
    "void main() { uint i = gl_GlobalInvocationID.x; b[i] = uint8_t(uint(a[i]) * 3u + 1u); }\n";

static bool probe_int8(co_device *dev) {
    uint8_t in[PROBE_N], out[PROBE_N] = {0};
    for (int i = 0; i < PROBE_N; i++) in[i] = (uint8_t)(i * 37 + 11);
    bool right = !co_glsl_probe(dev, "int8-probe", int8_probe, PROBE_N, in, out, PROBE_N);
    for (int i = 0; right && i < PROBE_N; i++) right = out[i] == (uint8_t)(in[i] * 3 + 1);
    return right;
}

static const co_glsl_caps *glsl_caps(const co_device *dev) {
    gl_device *d = dev->impl;
    if (!d->probed) {
        d->probed = true;
        d->caps.int8 = probe_int8((co_device *)dev); /* (the device's own state) */
    }
    return &d->caps;
}

/* ---- finding devices ---- */

static bool has_gl_extension(const char *name) {
    GLint n = 0;
    gl.GetIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++) {
        const char *e = (const char *)gl.GetStringi(GL_EXTENSIONS, (GLuint)i);
        if (e && strcmp(e, name) == 0) return true;
    }
    return false;
}

static bool has_word(const char *list, const char *word) {
    const size_t len = strlen(word);
    for (const char *p = list ? strstr(list, word) : NULL; p; p = strstr(p + 1, word))
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == 0)) return true;
    return false;
}

static GLint gl_int(GLenum what) {
    GLint v = 0;
    gl.GetIntegerv(what, &v);
    return v;
}

/* What the context reports, into info and d. */
static void describe(gl_device *d, bool software, co_device_info *info) {
    const char *renderer = (const char *)gl.GetString(GL_RENDERER);
    const char *vendor = (const char *)gl.GetString(GL_VENDOR);
    const char *version = (const char *)gl.GetString(GL_VERSION);
    snprintf(info->backend, sizeof info->backend, "opengl");
    snprintf(info->name, sizeof info->name, "%.127s", renderer ? renderer : "?");
    snprintf(info->vendor, sizeof info->vendor, "%.63s", vendor ? vendor : "?");
    snprintf(info->platform, sizeof info->platform, "OpenGL (EGL)");
    /* GL_VERSION: "4.5.0 NVIDIA 580.159.04", "4.5 (Core Profile) Mesa 22.3.6" */
    const char *space = version ? strchr(version, ' ') : NULL;
    snprintf(info->api_version, sizeof info->api_version, "OpenGL %.*s",
             space ? (int)(space - version) : 16, version ? version : "?");
    const char *driver = space ? space + 1 : "";
    if (!strncmp(driver, "(Core Profile) ", 15)) driver += 15;
    snprintf(info->driver_version, sizeof info->driver_version, "%.63s", driver);
    info->type =
        software || (renderer && strstr(renderer, "llvmpipe")) ? CO_DEVICE_CPU : CO_DEVICE_GPU;
    if (info->type == CO_DEVICE_CPU)
        info->compute_units = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    else if (has_gl_extension("GL_NV_shader_thread_group"))
        info->compute_units = (unsigned)gl_int(CO_GL_SM_COUNT_NV);
    info->max_work_group_size = (size_t)gl_int(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS);
    GLint size[3] = {0}, count[3] = {0};
    for (GLuint i = 0; i < 3; i++) {
        gl.GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, i, &size[i]);
        gl.GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i, &count[i]);
        info->max_work_item_sizes[i] = (size_t)size[i];
        d->max_groups[i] = (uint32_t)count[i];
    }
    const GLint shared = gl_int(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE);
    info->local_mem_bytes = info->local_mem_arg_bytes = (size_t)shared;
    if (info->type == CO_DEVICE_CPU)
        info->global_mem_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    else if (has_gl_extension("GL_NVX_gpu_memory_info"))
        info->global_mem_bytes = (size_t)gl_int(CO_GL_DEDICATED_VIDMEM_NVX) << 10;
    GLint64 block = 0;
    gl.GetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    info->max_alloc_bytes = (size_t)block;
    if (info->global_mem_bytes && info->global_mem_bytes < info->max_alloc_bytes)
        info->max_alloc_bytes = info->global_mem_bytes;
    d->max_uniform_block = gl_int(GL_MAX_UNIFORM_BLOCK_SIZE);
    /* The driver's subgroups, shown; the shaders have none: OpenGL takes
     * SPIR-V 1.0, and subgroup operations need 1.3. */
    if (has_gl_extension("GL_KHR_shader_subgroup") &&
        (gl_int(CO_GL_SUBGROUP_SUPPORTED_STAGES) & GL_COMPUTE_SHADER_BIT))
        d->caps.subgroup_size = (unsigned)gl_int(CO_GL_SUBGROUP_SIZE);
    d->caps.fp64 = true; /* core since OpenGL 4.0 */
    const int len = snprintf(
        info->limits, sizeof info->limits,
        "OpenGL: MAX_COMPUTE_WORK_GROUP_INVOCATIONS %zu, MAX_COMPUTE_WORK_GROUP_SIZE %dx%dx%d, "
        "MAX_COMPUTE_WORK_GROUP_COUNT %dx%dx%d, MAX_COMPUTE_SHARED_MEMORY_SIZE %d B, "
        "MAX_SHADER_STORAGE_BLOCK_SIZE %lld B, subgroup %u (no operations in SPIR-V 1.0)",
        info->max_work_group_size, size[0], size[1], size[2], count[0], count[1], count[2], shared,
        (long long)block, d->caps.subgroup_size);
    (void)len; /* a longer line is cut: it is only shown */
}

/* A core 4.5 context on display dpy, checked for SPIR-V and compute, and
 * the objects every launch uses. */
static co_status open_device(EGLDisplay dpy, bool software, gl_device *d, co_device_info *info) {
    EGLint major = 0, minor = 0;
    if (!egl.Initialize(dpy, &major, &minor))
        return co_fail(CO_ERR_UNSUPPORTED, "OpenGL: eglInitialize failed (EGL error 0x%x)",
                       (unsigned)egl.GetError());
    const char *ext = egl.QueryString(dpy, EGL_EXTENSIONS);
    if (!has_word(ext, "EGL_KHR_surfaceless_context") ||
        !(has_word(ext, "EGL_KHR_no_config_context") ||
          has_word(ext, "EGL_MESA_configless_context")))
        return co_fail(CO_ERR_UNSUPPORTED,
                       "OpenGL: the EGL display has no context without a surface and a "
                       "config (EGL_KHR_surfaceless_context, EGL_KHR_no_config_context)");
    static const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                   4,
                                   EGL_CONTEXT_MINOR_VERSION,
                                   5,
                                   EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                   EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                   EGL_NONE};
    d->dpy = dpy;
    if (!egl.BindAPI(EGL_OPENGL_API) ||
        !(d->ctx = egl.CreateContext(dpy, (EGLConfig)0, EGL_NO_CONTEXT, attrs)))
        return co_fail(CO_ERR_UNSUPPORTED,
                       "OpenGL: no OpenGL 4.5 core context on the EGL display (EGL error 0x%x)",
                       (unsigned)egl.GetError());
    co_status st = current(d);
    if (st) return st;
    if (!has_gl_extension("GL_ARB_gl_spirv"))
        st = co_fail(CO_ERR_UNSUPPORTED,
                     "OpenGL: %s has no GL_ARB_gl_spirv (SPIR-V shaders, which the shared "
                     "GLSL needs)",
                     (const char *)gl.GetString(GL_RENDERER));
    if (!st) {
        describe(d, software, info);
        GLuint bufs[2];
        gl.CreateBuffers(2, bufs);
        d->args = bufs[0], d->base = bufs[1];
        gl.NamedBufferStorage(d->args, 4 * CO_GLSL_MAX_SCALARS, NULL, GL_DYNAMIC_STORAGE_BIT);
        gl.NamedBufferStorage(d->base, 16, NULL, GL_DYNAMIC_STORAGE_BIT);
        gl.GenQueries(2, d->queries);
        st = gl_check("making the launch's buffers and queries");
    }
    leave(d);
    return st;
}

/* The EGL displays to open: one per EGL device, GPUs first (as Vulkan's
 * devices), else Mesa's surfaceless one; software[i]: Mesa's software
 * rasteriser (llvmpipe). */
static size_t displays(EGLDisplay *out, bool *software) {
    const char *client = egl.QueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    size_t n = 0;
    EGLDeviceEXT devs[MAX_DISPLAYS];
    EGLint ndev = 0;
    if (egl.QueryDevicesEXT && has_word(client, "EGL_EXT_platform_device") &&
        egl.QueryDevicesEXT(MAX_DISPLAYS, devs, &ndev))
        for (int soft = 0; soft < 2; soft++)
            for (EGLint i = 0; i < ndev; i++) {
                const char *dext = egl.QueryDeviceStringEXT
                                       ? egl.QueryDeviceStringEXT(devs[i], EGL_EXTENSIONS)
                                       : NULL;
                if (has_word(dext, "EGL_MESA_device_software") != soft) continue;
                EGLDisplay dpy = egl.GetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
                if (dpy == EGL_NO_DISPLAY) continue;
                software[n] = soft;
                out[n++] = dpy;
            }
    if (!n && has_word(client, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay dpy =
            egl.GetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (dpy != EGL_NO_DISPLAY) software[n] = false, out[n++] = dpy;
    }
    return n;
}

static co_status probe(co_context *ctx) {
    if (!egl_open()) return co_fail(CO_ERR_UNSUPPORTED, "OpenGL: %s", egl.why);
    EGLDisplay dpys[MAX_DISPLAYS];
    bool software[MAX_DISPLAYS];
    const size_t n = displays(dpys, software);
    if (!n)
        return co_fail(CO_ERR_UNSUPPORTED,
                       "OpenGL: EGL lists no device (EGL_EXT_platform_device) and has no "
                       "surfaceless platform");
    size_t added = 0;
    char why[512] = "";
    for (size_t i = 0; i < n; i++) {
        gl_device *d = calloc(1, sizeof *d);
        if (!d) return co_fail(CO_ERR_NOMEM, "out of host memory");
        co_device_info info = {0};
        co_status st = open_device(dpys[i], software[i], d, &info);
        snprintf(info.spec, sizeof info.spec, "opengl:%zu", added);
        if (!st) st = co_context_add_device(ctx, &opengl_backend, &info, d);
        if (st) {
            snprintf(why, sizeof why, "%s", co_last_error());
            if (d->ctx) egl.MakeCurrent(d->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            if (d->ctx) egl.DestroyContext(d->dpy, d->ctx);
            free(d);
            continue;
        }
        added++;
    }
    if (!added) return co_fail(CO_ERR_UNSUPPORTED, "%s", why);
    return CO_OK;
}

/* ---- what the compiler made of it (src/core/il.c) ---- */

static const char *il_formats(const co_device *dev) {
    (void)dev;
    return "spirv";
}

static co_status program_text(co_device *dev, co_program *prog, co_kernel *k, const char *format,
                              const size_t local[3], char **out) {
    (void)dev, (void)prog, (void)local;
    *out = NULL;
    if (strcmp(format, "spirv") != 0)
        return co_fail(CO_ERR_UNSUPPORTED, "OpenGL shows spirv, not '%s'", format);
    return co_spirv_text(k->spirv, k->size, out);
}

/* The group the launch gave, the device's largest, the Workgroup
 * variables' bytes; OpenGL says nothing of registers. */
static co_status kernel_resources(co_device *dev, co_program *prog, co_kernel *k,
                                  const size_t local[3], size_t dynamic_local, co_il_resources *r) {
    (void)prog;
    const uint32_t spec[4] = {(uint32_t)local[0], (uint32_t)local[1], (uint32_t)local[2],
                              dynamic_local ? (uint32_t)dynamic_local : 4};
    long given = 0;
    r->shared_bytes = co_spirv_shared_bytes(k->spirv, k->size, spec, &given);
    r->max_group = (long)dev->info.max_work_group_size;
    snprintf(r->from, sizeof r->from, "SPIR-V; OpenGL reports no registers");
    return CO_OK;
}

static const co_backend opengl_backend = {
    .name = "opengl",
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
    .finish = finish,
    .il_formats = il_formats,
    .program_text = program_text,
    .kernel_resources = kernel_resources,
    .copy = copy,
    .glsl = glsl_caps,
};

const co_backend *co_backend_opengl(void) { return &opengl_backend; }
