/* 8-bit images in and out as PNG, through stb. */
#ifndef CO_IMAGE_H
#define CO_IMAGE_H

#include "coalesce.h"

typedef struct co_image {
    int width, height, channels; /* channels 1..4, interleaved, rows packed */
    unsigned char *pixels;       /* owned: co_image_free */
} co_image;

/* Load a PNG (or any format stb reads) converted to `channels` (1..4). */
co_status co_image_load(const char *path, int channels, co_image *out);
/* The channels the file itself holds (1 gray, 2 gray + alpha, 3 RGB,
 * 4 RGBA), without decoding its pixels. */
co_status co_image_channels(const char *path, int *channels);
/* Write pixels (width x height x channels, rows packed) as PNG. */
co_status co_image_save_png(const char *path, int width, int height, int channels,
                            const unsigned char *pixels);
void co_image_free(co_image *img);

#endif
