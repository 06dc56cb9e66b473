/* LD_PRELOAD shim: after each clBuildProgram, write the program's binary
 * (NVIDIA: PTX) to $DUMP_DIR/prog-N.ptx and its options to prog-N.opt. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
static int n;
CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program p, cl_uint nd, const cl_device_id *d,
                                               const char *opt, void (*cb)(cl_program, void *), void *ud) {
    cl_int (*real)(cl_program, cl_uint, const cl_device_id *, const char *, void (*)(cl_program, void *), void *) =
        (cl_int (*)(cl_program, cl_uint, const cl_device_id *, const char *, void (*)(cl_program, void *), void *))dlsym(RTLD_NEXT, "clBuildProgram");
    cl_int err = real(p, nd, d, opt, cb, ud);
    const char *dir = getenv("DUMP_DIR");
    if (err || !dir) return err;
    size_t size = 0;
    clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    unsigned char *bin = malloc(size + 1);
    unsigned char *bins[1] = {bin};
    clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL);
    char path[1024];
    snprintf(path, sizeof path, "%s/prog-%d.ptx", dir, n);
    FILE *f = fopen(path, "wb"); if (f) { fwrite(bin, 1, size, f); fclose(f); }
    snprintf(path, sizeof path, "%s/prog-%d.opt", dir, n++);
    f = fopen(path, "w"); if (f) { fprintf(f, "%s\n", opt ? opt : ""); fclose(f); }
    free(bin);
    return err;
}
