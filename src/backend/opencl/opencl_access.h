/* OpenCL objects behind coalesce handles, for code that calls an OpenCL
 * library directly (the CLBlast anchor). */
#ifndef CO_OPENCL_ACCESS_H
#define CO_OPENCL_ACCESS_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "backend/backend.h"

cl_command_queue co_opencl_queue(const co_device *dev);
cl_mem co_opencl_mem(const co_buf *buf);
/* The OpenCL error code's name ("CL_OUT_OF_RESOURCES"). */
const char *co_opencl_error_name(cl_int err);

#endif
