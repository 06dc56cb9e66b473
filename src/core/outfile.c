/* Files written whole (outfile.h). */
#include "core/outfile.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"

static void release(co_outfile *o) {
    free(o->dest);
    free(o->tmp);
    o->dest = o->tmp = NULL;
    o->f = NULL;
}

bool co_outfile_special(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

co_status co_outfile_open(co_outfile *o, const char *path) {
    *o = (co_outfile){.name = path};
    if (!path || !*path) return co_fail(CO_ERR_INVALID, "no file named to write");
    struct stat st;
    const bool exists = stat(path, &st) == 0; /* (through a link) */
    if (exists && S_ISDIR(st.st_mode))
        return co_fail(CO_ERR_IO, "cannot write '%s': %s", path, strerror(EISDIR));
    const bool link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
    /* a device or a FIFO; or a dangling link, whose target is made through it */
    const bool in_place = co_outfile_special(path) || (link && !exists);
    if (!in_place) {
        o->dest = link ? realpath(path, NULL) : strdup(path);
        o->tmp = o->dest ? malloc(strlen(o->dest) + 32) : NULL;
        if (!o->tmp) {
            release(o);
            return co_fail(CO_ERR_NOMEM, "out of host memory");
        }
        snprintf(o->tmp, strlen(o->dest) + 32, "%s.tmp.%ld", o->dest, (long)getpid());
    }
    o->f = fopen(in_place ? path : o->tmp, "wb");
    if (!o->f) {
        const int e = errno;
        release(o);
        return co_fail(CO_ERR_IO, "cannot write '%s': %s", path, strerror(e));
    }
    return CO_OK;
}

co_status co_outfile_close(co_outfile *o) {
    if (!o->f) return co_fail(CO_ERR_IO, "cannot write '%s': not open", o->name);
    /* A failed write left its errno (nothing that succeeded since sets it);
     * a buffered one shows at fclose. */
    int e = ferror(o->f) ? (errno ? errno : EIO) : 0;
    if (fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
    if (!e && o->tmp && rename(o->tmp, o->dest) != 0) e = errno;
    if (e && o->tmp) remove(o->tmp);
    const char *name = o->name;
    release(o);
    return e ? co_fail(CO_ERR_IO, "cannot write '%s': %s", name, strerror(e)) : CO_OK;
}

void co_outfile_discard(co_outfile *o) {
    if (o->f) fclose(o->f);
    if (o->tmp) remove(o->tmp);
    release(o);
}
