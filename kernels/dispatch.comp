/* Seed 002's first program in GLSL (kernels/dispatch.cl says what each
 * invocation writes): gl_GlobalInvocationID flattened to the buffer index,
 * gl_WorkGroupID and gl_LocalInvocationIndex (GLSL's own flattening of
 * gl_LocalInvocationID: x + X * (y + Y * z), as OpenCL's above). */

#if defined(ENTRY_dispatch_ids)
CO_BUFFER(0, writeonly, uvec4, ids)
void main() {
    const uvec3 size = gl_NumWorkGroups * gl_WorkGroupSize, g = gl_GlobalInvocationID;
    const uint i = g.x + size.x * (g.y + size.y * g.z);
    const uint group = gl_WorkGroupID.x +
                       gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    const uint items = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    ids[i] = uvec4(i, group, gl_LocalInvocationIndex, group * items + gl_LocalInvocationIndex);
}
#endif
