/* Kernel sources: embedded at build time (cmake/EmbedKernels.cmake), or
 * read from $COALESCE_KERNEL_DIR while developing kernels. The dialect
 * prelude goes in front of every source. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/workload.h"

extern const char *const co_embedded_kernel_names[];
extern const char *const co_embedded_kernel_sources[];
extern const char *const co_embedded_dialect;
extern const char *const co_embedded_shader_names[];
extern const char *const co_embedded_shader_sources[];
extern const char *const co_embedded_shader_prelude;

const char *const *co_kernel_names(void) { return co_embedded_kernel_names; }

#define PATH_LEN 4096
#define NAME_LEN 64 /* room kept for "/name.comp" */

static char *read_file(const char *dir, const char *name, const char *ext) {
    char path[PATH_LEN];
    int n = snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    if (n < 0 || (size_t)n >= sizeof path) return NULL; /* never a cut path */
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long len = ftell(f);
        if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)len + 1))) {
            size_t got = fread(text, 1, (size_t)len, f);
            text[got] = 0;
        }
    }
    fclose(f);
    return text;
}

/* A kernel directory that is not there would silently mean the built-in
 * kernels run, not the ones being developed: said once per process, on
 * stderr, since it is no error of the run itself. */
static bool kernel_dir_usable(const char *dir) {
    static atomic_flag warned = ATOMIC_FLAG_INIT;
    struct stat st;
    int err = strlen(dir) + NAME_LEN >= PATH_LEN ? ENAMETOOLONG
              : stat(dir, &st)                   ? errno
              : S_ISDIR(st.st_mode)              ? 0
                                                 : ENOTDIR;
    if (err && !atomic_flag_test_and_set(&warned))
        fprintf(stderr,
                "coalesce: warning: COALESCE_KERNEL_DIR '%s' is not a directory (%s); "
                "using the built-in kernels\n",
                dir, strerror(err));
    return !err;
}

/* `name` + ext from $COALESCE_KERNEL_DIR or the embedded table, with its
 * prelude (prelude_name + prelude_ext there, else the embedded one) in front
 * and a #line so that messages point into the file. */
static char *with_prelude(const char *name, const char *ext, const char *const *names,
                          const char *const *sources, const char *prelude_name,
                          const char *prelude_ext, const char *embedded_prelude) {
    if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(name)) return NULL;
    const char *dir = getenv("COALESCE_KERNEL_DIR");
    char *disk_src = NULL, *disk_prelude = NULL;
    const char *src = NULL, *prelude = embedded_prelude;
    if (dir && *dir && kernel_dir_usable(dir)) {
        disk_src = read_file(dir, name, ext);
        disk_prelude = read_file(dir, prelude_name, prelude_ext);
        src = disk_src;
        if (disk_prelude) prelude = disk_prelude;
    }
    for (size_t i = 0; !src && names[i]; i++)
        if (strcmp(names[i], name) == 0) src = sources[i];
    char *out = NULL;
    if (src) {
        const char *fmt = "%s\n#line 1 \"%s%s\"\n%s";
        int len = snprintf(NULL, 0, fmt, prelude, name, ext, src);
        if (len > 0 && (out = malloc((size_t)len + 1)))
            snprintf(out, (size_t)len + 1, fmt, prelude, name, ext, src);
    }
    free(disk_src);
    free(disk_prelude);
    return out;
}

/* A kernel file's own text, from $COALESCE_KERNEL_DIR or the embedded table. */
static char *own_text(const char *name, const char *ext, const char *const *names,
                      const char *const *sources) {
    const char *dir = getenv("COALESCE_KERNEL_DIR");
    if (dir && *dir && kernel_dir_usable(dir)) {
        char *text = read_file(dir, name, ext);
        if (text) return text;
    }
    for (size_t i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0) {
            const size_t n = strlen(sources[i]) + 1;
            char *text = malloc(n);
            return text ? memcpy(text, sources[i], n) : NULL;
        }
    return NULL;
}

/* `src` (from file `file`) with each line `#include "NAME.cl"` that names a
 * kernel file replaced by that file's text, between #lines, so that two
 * kernel files share one header (kernels/boxfilter_common.cl): the OpenCL
 * and NVRTC compilers get one string, no include path. One level: an
 * included file's own #includes stay as they are. NULL: out of memory. */
static char *with_includes(char *src, const char *file, const char *const *names,
                           const char *const *sources) {
    static const char directive[] = "#include \"";
    char marker[NAME_LEN + 32];
    snprintf(marker, sizeof marker, "#line 1 \"%s\"\n", file);
    const char *p = strstr(src, marker); /* the file's line 1, after the prelude */
    const char *at = p ? strstr(p, directive) : NULL;
    if (!at) return src;
    p += strlen(marker);
    size_t cap = strlen(src) + 1, len = (size_t)(p - src);
    char *out = malloc(cap);
    if (out) memcpy(out, src, len);
    int line = 1; /* the file's line at p */
    for (; out && at; at = strstr(p, directive)) {
        const char *name = at + sizeof directive - 1, *end = strchr(name, '"');
        char *text = NULL;
        char base[NAME_LEN];
        const size_t n = end ? (size_t)(end - name) : 0;
        const bool line_start = at[-1] == '\n'; /* (at > the marker) */
        if (line_start && n > 3 && n - 3 < sizeof base && !strncmp(end - 3, ".cl", 3)) {
            memcpy(base, name, n - 3);
            base[n - 3] = 0;
            text = own_text(base, ".cl", names, sources);
        }
        const char *next = text ? strchr(at, '\n') : at + 1;
        if (!next) next = at + strlen(at);
        for (const char *q = p; q < next; q++) line += *q == '\n';
        const char *keep_end = text ? at : next;
        const size_t head = (size_t)(keep_end - p);
        const size_t more = head + (text ? strlen(text) + strlen(base) + strlen(file) + 64 : 0);
        if (len + more + 1 > cap) {
            cap = 2 * (len + more + 1);
            char *grown = realloc(out, cap);
            if (!grown) {
                free(out);
                out = NULL;
                free(text);
                break;
            }
            out = grown;
        }
        memcpy(out + len, p, head);
        len += head;
        if (text)
            len += (size_t)snprintf(out + len, cap - len, "#line 1 \"%s.cl\"\n%s\n#line %d \"%s\"",
                                    base, text, line + 1, file);
        free(text);
        p = next;
    }
    if (out) {
        const size_t tail = strlen(p) + 1;
        if (len + tail > cap) {
            char *grown = realloc(out, len + tail);
            if (!grown) free(out);
            out = grown;
        }
        if (out) memcpy(out + len, p, tail);
    }
    free(src);
    return out;
}

/* `name` + ext with its prelude, each line `#include "NAME.cl"` expanded. */
static char *source_text(const char *name, const char *ext, const char *const *names,
                         const char *const *sources, const char *prelude_name,
                         const char *prelude_ext, const char *embedded_prelude) {
    char *src =
        with_prelude(name, ext, names, sources, prelude_name, prelude_ext, embedded_prelude);
    char file[NAME_LEN + 8];
    snprintf(file, sizeof file, "%.*s%s", NAME_LEN - 1, name, ext);
    return src ? with_includes(src, file, co_embedded_kernel_names, co_embedded_kernel_sources)
               : NULL;
}

char *co_kernel_source(const char *name) {
    return source_text(name, ".cl", co_embedded_kernel_names, co_embedded_kernel_sources, "dialect",
                       ".h", co_embedded_dialect);
}

/* GLSL: the prelude holds #version and GL_GOOGLE_cpp_style_line_directive,
 * which lets the #line name the file; an included kernel file is a header
 * written for both (boxfilter_common.cl's first part, under CO_GLSL). */
char *co_shader_source(const char *name) {
    return source_text(name, ".comp", co_embedded_shader_names, co_embedded_shader_sources,
                       "prelude", ".glsl", co_embedded_shader_prelude);
}
