/* In front of every compute shader of kernels/ (the GLSL backends:
 * src/backend/vulkan/vulkan.c, src/backend/opengl/opengl.c; the compiler
 * defines VULKAN for the one, GL_SPIRV for the other). A shader file holds
 * one section per entry point, chosen by -DENTRY_<entry>, each with its
 * own main().
 *
 * The launch interface, as for the OpenCL kernels: of a kernel's arguments,
 * the buffers are bindings 0, 1, ... in order (CO_BUFFER), the scalars
 * (int, uint, float) the members of the entry's CO_ARGS block in order, and
 * a CO_LOCAL(bytes) argument the specialisation constant CO_LOCAL_BYTES,
 * which sizes a shared array. The work-group size comes from the launch
 * (specialisation constants 0-2): gl_WorkGroupSize is the launch's local
 * size. Tunables arrive as defines, each with an #ifndef default in the
 * file. */
#version 450
#extension GL_GOOGLE_cpp_style_line_directive : require
/* [[unroll]]: loops over a register tile must unroll, so that its array
 * stays in registers (NVIDIA's driver left gemm_reg2d's rolled: 61.3 ms
 * against its OpenCL twin's 4.0 at 4096^2, docs/results/2026-12-02-h200-o.md). */
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint CO_LOCAL_BYTES = 4;

/* The scalars' block: push constants on Vulkan; OpenGL has none, so there a
 * uniform block at binding 16, past the buffers' (std140 puts 4-byte
 * scalars where push constants have them). */
#ifdef VULKAN
#define CO_ARGS layout(push_constant)
#else
#define CO_ARGS layout(std140, binding = 16)
/* OpenGL has no dispatch from a base group: a launch of more groups than
 * GL_MAX_COMPUTE_WORK_GROUP_COUNT is dispatched in pieces, each with its
 * first group here, so that the ids are the whole launch's (as Vulkan's
 * vkCmdDispatchBase makes them). */
layout(std140, binding = 17) uniform CoBase { uvec4 co_base; };
#define gl_WorkGroupID (gl_WorkGroupID + co_base.xyz)
#define gl_GlobalInvocationID (gl_GlobalInvocationID + co_base.xyz * gl_WorkGroupSize)
#endif

/* Binding b: a runtime array `name` of T; qual is readonly, writeonly,
 * coherent or empty. CO_BUFFER_VIEW: another view of binding b's buffer
 * (float and vec4 views of one buffer): on Vulkan two blocks at binding b;
 * OpenGL's linker refuses that, so there the view is binding b + 18, where
 * the backend binds the same buffer. */
#define CO_BUFFER(b, qual, T, name) \
    layout(std430, binding = b) qual buffer CoBuf_##name { T name[]; };
#ifdef VULKAN
#define CO_BUFFER_VIEW(b, qual, T, name) CO_BUFFER(b, qual, T, name)
#else
#define CO_BUFFER_VIEW(b, qual, T, name) CO_BUFFER(b + 18, qual, T, name)
#endif

/* OpenCL's work-item functions, for shaders ported from kernels/*.cl. */
#define co_global_id(d) gl_GlobalInvocationID[d]
#define co_local_id(d) gl_LocalInvocationID[d]
#define co_group_id(d) gl_WorkGroupID[d]
#define co_num_groups(d) gl_NumWorkGroups[d]
#define co_global_size(d) (gl_NumWorkGroups[d] * gl_WorkGroupSize[d])

/* -DCO_FP_STRICT, the dialect's "round as host C does": the backend marks
 * every float operation NoContraction (shaderc.c), and co_div / co_sqrt
 * round correctly where Vulkan allows 2.5 ulp and more: through double,
 * whose quotient and root round to the correctly rounded float (53 bits
 * against 2 x 24 + 2). Such a shader needs shaderFloat64. */
#ifdef CO_FP_STRICT
float co_div(float a, float b) { return float(double(a) / double(b)); }
float co_sqrt(float x) { return float(sqrt(double(x))); }
double co_div(double a, double b) { return a / b; }
double co_sqrt(double x) { return sqrt(x); }
#endif
/* Headers shared with kernels/*.cl (#include "NAME.cl", expanded as for
 * OpenCL) see CO_GLSL; their functions' CO_INLINE is nothing here. */
#define CO_GLSL 1
#define CO_INLINE
