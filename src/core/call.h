/* What src/core/api.c offers the code built on the library inside this
 * tree (the MPI driver, tools/mpi/): a buffer's memory, and one run of any
 * workload's variant on the caller's memory with the workload's own
 * options, as the public calls do for the options they take. */
#ifndef CO_CALL_H
#define CO_CALL_H

#include "backend/backend.h"

/* The buffer's host memory on the host devices (c, omp), else NULL; its
 * device buffer (NULL on the host devices) and its device. */
void *co_buffer_host(const co_buffer *b);
co_buf *co_buffer_buf(const co_buffer *b);
co_device *co_buffer_dev(const co_buffer *b);

/* Run `workload`'s `variant` (NULL: the device's default) once on `device`
 * with the options `opts` (as co_run's), problem array i bound to mems[i]
 * for i < nmems (a co_mem with neither buf nor host: the call's own memory,
 * as for the arrays the public calls do not take). Inputs are read, outputs
 * written in place (host pointers on a device: copied in and out). Check
 * mode (co_context_set_check) verifies it. Statuses: as the public calls. */
co_status co_call(co_context *ctx, size_t device, const char *workload, const char *variant,
                  const co_option *opts, size_t nopts, const co_mem *mems, size_t nmems);

#endif
