/* copy's problem layout, shared with its anchor variant (src/anchors/devcopy.c). */
#ifndef CO_COPY_H
#define CO_COPY_H

#include "core/workload.h"

/* Arrays of a copy problem, in this order: src (input), dst (output), float32. */
enum { COPY_SRC = 0, COPY_DST = 1 };

/* Anchor `api`: the device-to-device copy of the API itself
 * (clEnqueueCopyBuffer, cuMemcpyDtoDAsync, vkCmdCopyBuffer), timed by device events. */
bool copy_has_api(const co_device *dev, const char **why);
co_status copy_run_api(co_job *job);

#endif
