/* RGBA8 -> 8-bit gray (seed 002): gray = round(dot(rgb, (0.299, 0.587,
 * 0.114))), arguments (int width, int height, rgba, gray). A pixel is one
 * uint of the RGBA buffer (r in its low byte); gray is a byte array
 * (8-bit storage).
 *
 * gray_coalesced    one invocation per pixel, 16x16 groups by default.
 * gray_uncoalesced  one invocation per row, walking along it. */
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

CO_ARGS uniform Args { int width; int height; } args;
CO_BUFFER(0, readonly, uint, rgba)
CO_BUFFER(1, writeonly, uint8_t, gray)

/* The weights sum to 1 and channels are at most 255: v + 0.5 < 256. */
uint8_t gray_pixel(const uint p) {
    const vec3 rgb = vec3(p & 255u, (p >> 8) & 255u, (p >> 16) & 255u);
    return uint8_t(uint(dot(rgb, vec3(0.299, 0.587, 0.114)) + 0.5));
}

#if defined(ENTRY_gray_coalesced)
void main() {
    const uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= uint(args.width) || y >= uint(args.height)) return;
    const uint i = y * uint(args.width) + x;
    gray[i] = gray_pixel(rgba[i]);
}

#elif defined(ENTRY_gray_uncoalesced)
void main() {
    const uint y = gl_GlobalInvocationID.x, w = uint(args.width);
    if (y >= uint(args.height)) return;
    for (uint i = y * w; i < (y + 1u) * w; i++) gray[i] = gray_pixel(rgba[i]);
}
#endif
