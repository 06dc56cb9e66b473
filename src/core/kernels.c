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
        fprintf(stderr, "coalesce: warning: COALESCE_KERNEL_DIR '%s' is not a directory (%s); "
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

char *co_kernel_source(const char *name) {
    return with_prelude(name, ".cl", co_embedded_kernel_names, co_embedded_kernel_sources,
                        "dialect", ".h", co_embedded_dialect);
}

/* GLSL: the prelude holds #version and GL_GOOGLE_cpp_style_line_directive,
 * which lets the #line name the file. */
char *co_shader_source(const char *name) {
    return with_prelude(name, ".comp", co_embedded_shader_names, co_embedded_shader_sources,
                        "prelude", ".glsl", co_embedded_shader_prelude);
}
