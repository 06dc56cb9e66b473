/* Animated GIF through giflib (Debian libgif-dev): frames of palette
 * indices under one global palette, a Netscape loop extension and a
 * graphics control block (the delay) before each frame. Without giflib
 * (COALESCE_HAVE_GIFLIB unset) co_gif_save says so. */
#include "core/image.h"

#include <stdio.h>
#include <string.h>

#include "core/workload.h"

void co_gif_cube_palette(unsigned char pal[768]) {
    memset(pal, 0, 768);
    for (int r = 0; r < 6; r++)
        for (int g = 0; g < 7; g++)
            for (int b = 0; b < 6; b++) {
                unsigned char *p = pal + 3 * (r * 42 + g * 6 + b);
                p[0] = (unsigned char)(r * 51), p[1] = (unsigned char)(g * 255 / 6),
                p[2] = (unsigned char)(b * 51);
            }
}

void co_gif_to_cube(const unsigned char *px, int channels, size_t n, unsigned char *out) {
    for (size_t i = 0; i < n; i++, px += channels) {
        const int r = (px[0] * 5 + 127) / 255, g = (px[1] * 6 + 127) / 255,
                  b = (px[2] * 5 + 127) / 255;
        out[i] = (unsigned char)(r * 42 + g * 6 + b);
    }
}

#ifdef COALESCE_HAVE_GIFLIB
#include <errno.h>
#include <fcntl.h>
#include <gif_lib.h>
#include <unistd.h>

co_status co_gif_save(const char *path, int w, int h, size_t nframes,
                      const unsigned char *const *frames, const unsigned char palette[768],
                      int delay_cs) {
    int err = 0;
    /* EGifOpenFileName creates the file 0600: open it as other outputs are (umask). */
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) return co_fail(CO_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    GifFileType *g = EGifOpenFileHandle(fd, &err);
    if (!g) {
        close(fd);
        return co_fail(CO_ERR_IO, "cannot write '%s': %s", path, GifErrorString(err));
    }
    GifColorType colours[256];
    for (int i = 0; i < 256; i++)
        colours[i] = (GifColorType){palette[3 * i], palette[3 * i + 1], palette[3 * i + 2]};
    ColorMapObject *map = GifMakeMapObject(256, colours);
    EGifSetGifVersion(g, true); /* GIF89a: the extensions below */
    bool ok = map && EGifPutScreenDesc(g, w, h, 8, 0, map) == GIF_OK;
    /* NETSCAPE2.0: loop for ever */
    static const unsigned char loop[3] = {1, 0, 0};
    ok = ok && EGifPutExtensionLeader(g, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
         EGifPutExtensionBlock(g, 11, "NETSCAPE2.0") == GIF_OK &&
         EGifPutExtensionBlock(g, 3, loop) == GIF_OK && EGifPutExtensionTrailer(g) == GIF_OK;
    for (size_t f = 0; ok && f < nframes; f++) {
        const unsigned char gce[4] = {0, (unsigned char)(delay_cs & 255),
                                      (unsigned char)(delay_cs >> 8), 0};
        ok = EGifPutExtension(g, GRAPHICS_EXT_FUNC_CODE, 4, gce) == GIF_OK &&
             EGifPutImageDesc(g, 0, 0, w, h, false, NULL) == GIF_OK;
        for (int y = 0; ok && y < h; y++)
            ok = EGifPutLine(g, (GifPixelType *)frames[f] + (size_t)y * w, w) == GIF_OK;
    }
    const int werr = g->Error;
    GifFreeMapObject(map);
    if (EGifCloseFile(g, &err) != GIF_OK)
        ok = false;
    else
        err = werr;
    if (!ok) return co_fail(CO_ERR_IO, "error writing '%s': %s", path, GifErrorString(err));
    return CO_OK;
}
#else
co_status co_gif_save(const char *path, int w, int h, size_t nframes,
                      const unsigned char *const *frames, const unsigned char palette[768],
                      int delay_cs) {
    (void)w, (void)h, (void)nframes, (void)frames, (void)palette, (void)delay_cs;
    return co_fail(CO_ERR_UNSUPPORTED,
                   "cannot write '%s': this coalesce was built without "
                   "giflib (install libgif-dev and rebuild)",
                   path);
}
#endif
