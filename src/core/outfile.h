/* Files written whole (result documents, reports, the tuning database,
 * images): written aside and renamed into place, so that a reader never
 * sees half of one, without replacing what the path names when it is not a
 * plain file (src/core/outfile.c). */
#ifndef CO_OUTFILE_H
#define CO_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "coalesce.h"

typedef struct co_outfile {
    FILE *f;          /* write here */
    const char *name; /* the path as the caller gave it (messages) */
    char *dest;       /* where the rename goes: the path, or its symbolic link's target */
    char *tmp;        /* the file written aside; NULL where written in place */
} co_outfile;

/* Whether path names a device or a FIFO (through a link too): written in
 * place, never renamed over. */
bool co_outfile_special(const char *path);
/* Opens path for writing. A regular file, or none yet, is written aside
 * (DEST.tmp.PID) and renamed over at co_outfile_close; through a symbolic
 * link, over the link's target (the link stays); a device or a FIFO
 * (/dev/null, a pipe) is written in place, as a rename would replace it; a
 * directory is refused. CO_ERR_IO naming path and the reason. */
co_status co_outfile_open(co_outfile *o, const char *path);
/* Closes o: where every write and the close succeeded, renamed into place;
 * else the aside file removed and CO_ERR_IO naming the path and the reason. */
co_status co_outfile_close(co_outfile *o);
/* Closes o without committing it (the caller's own failure): the aside file removed. */
void co_outfile_discard(co_outfile *o);

#endif
