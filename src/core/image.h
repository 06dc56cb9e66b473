/* 8-bit images in and out as PNG, through stb. */
#ifndef CO_IMAGE_H
#define CO_IMAGE_H

#include "coalesce.h"

/* co_image, co_image_load, co_image_save_png, co_image_free: public
 * (include/coalesce.h). */

/* The channels the file itself holds (1 gray, 2 gray + alpha, 3 RGB,
 * 4 RGBA), without decoding its pixels. */
co_status co_image_channels(const char *path, int *channels);

/* Animated GIF (src/core/gif.c, giflib): nframes frames of w x h palette
 * indices, one 256-colour palette (RGB triples), delay_cs hundredths of a
 * second a frame, looping. CO_ERR_UNSUPPORTED in a build without giflib. */
co_status co_gif_save(const char *path, int w, int h, size_t nframes,
                      const unsigned char *const *frames, const unsigned char palette[768],
                      int delay_cs);
/* A 6x7x6 colour cube (252 colours) and RGB(A) pixels as its indices. */
void co_gif_cube_palette(unsigned char pal[768]);
void co_gif_to_cube(const unsigned char *px, int channels, size_t n, unsigned char *out);

#endif
