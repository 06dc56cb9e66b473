/* Image files through stb_image / stb_image_write (compiled here, once). */
#include "core/image.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/outfile.h"

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

/* stb's PNG bytes into the FILE (ferror says if any write failed). */
static void png_chunk(void *file, void *data, int size) {
    fwrite(data, 1, (size_t)size, (FILE *)file);
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
    /* stb's own file writer does not check its writes: through ours, which
     * does (a full disk is an error) and renames the whole file into place. */
    co_outfile o;
    co_status st = co_outfile_open(&o, path);
    if (st) return st;
    if (!stbi_write_png_to_func(png_chunk, o.f, width, height, channels, pixels,
                                width * channels)) {
        co_outfile_discard(&o);
        return co_fail(CO_ERR_NOMEM, "cannot write PNG '%s': out of host memory", path);
    }
    return co_outfile_close(&o);
}

void co_image_free(co_image *img) {
    if (img && img->pixels) stbi_image_free(img->pixels);
    if (img) memset(img, 0, sizeof *img);
}
