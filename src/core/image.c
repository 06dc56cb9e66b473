/* Image files through stb_image / stb_image_write (compiled here, once). */
#include "core/image.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"

/* For the whole file: GCC reports stb's static declarations that have no
 * definition (the thread-local setters) at the end of the unit, after a pop. */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
/* static: stb stays private to this file, so a client linking its own copy
 * (or the static library) sees no duplicate or foreign stbi_* symbol. */
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#include <stb_image.h>
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#pragma GCC diagnostic pop

co_status co_image_load(const char *path, int channels, co_image *out) {
    if (!out) return co_fail(CO_ERR_INVALID, "co_image_load: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path) return co_fail(CO_ERR_INVALID, "co_image_load: path is NULL");
    if (channels < 1 || channels > 4)
        return co_fail(CO_ERR_INVALID, "co_image_load: channels is %d (1..4)", channels);
    int w, h, file_channels;
    errno = 0;
    unsigned char *px = stbi_load(path, &w, &h, &file_channels, channels);
    if (!px)
        return co_fail(CO_ERR_IO, "cannot read image '%s': %s", path,
                       errno ? strerror(errno) : stbi_failure_reason());
    *out = (co_image){.width = w, .height = h, .channels = channels, .pixels = px};
    return CO_OK;
}

co_status co_image_channels(const char *path, int *channels) {
    int w, h;
    errno = 0;
    if (!stbi_info(path, &w, &h, channels))
        return co_fail(CO_ERR_IO, "cannot read image '%s': %s", path,
                       errno ? strerror(errno) : stbi_failure_reason());
    return CO_OK;
}

co_status co_image_save_png(const char *path, int width, int height, int channels,
                            const unsigned char *pixels) {
    if (!path || !pixels)
        return co_fail(CO_ERR_INVALID, "co_image_save_png: %s is NULL", !path ? "path" : "pixels");
    if (width < 1 || height < 1 || channels < 1 || channels > 4 || width > INT_MAX / channels)
        return co_fail(CO_ERR_INVALID,
                       "co_image_save_png: a %dx%d image of %d channels (sizes from 1, "
                       "channels 1..4, a row under 2^31 bytes)",
                       width, height, channels);
    errno = 0;
    if (!stbi_write_png(path, width, height, channels, pixels, width * channels))
        return co_fail(CO_ERR_IO, "cannot write PNG '%s'%s%s", path, errno ? ": " : "",
                       errno ? strerror(errno) : "");
    return CO_OK;
}

void co_image_free(co_image *img) {
    if (img && img->pixels) stbi_image_free(img->pixels);
    if (img) memset(img, 0, sizeof *img);
}
