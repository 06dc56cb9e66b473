/* An image pipeline on a device with libcoalesce: PNG in -> box filter ->
 * grayscale -> PNG out, the image kept in device buffers from the upload to
 * the download (the context's copy counter shows exactly one of each).
 *
 * The box filter runs before grayscale: it takes RGBA8 or float32 images,
 * grayscale gives 8-bit gray, and both are linear, so blurring the colours
 * and then taking the gray is the blurred gray (up to the rounding of one
 * step). The result is then checked: the same calls again with the
 * library's check mode on (each verified against its workload's reference,
 * as `coalesce run` verifies) must give the same bytes.
 *
 *   cc image_pipeline.c $(pkg-config --cflags --libs coalesce) -o image_pipeline
 *   ./image_pipeline [DEVICE [IN.png [OUT.png [RADIUS]]]]
 * DEVICE: a spec (cuda, opencl:gpu, vulkan:gpu, opencl, omp, ...; "gpu": the
 * first GPU found, else omp). Without IN.png a test picture is drawn and
 * written to pipeline_in.png first. OUT.png: pipeline_out.png. RADIUS: 4.
 * Exit 0 checked, 1 wrong or failed, 2 usage, 3 the device is not here. */
#include <coalesce.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call)                                                                                  \
    do {                                                                                           \
        co_status s_ = (call);                                                                     \
        if (s_ != CO_OK) {                                                                         \
            fprintf(stderr, "image_pipeline: %s: %s\n", co_status_name(s_), co_last_error());      \
            rc = s_ == CO_ERR_UNSUPPORTED ? 3 : 1;                                                 \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* A 301 x 203 picture (odd sizes: no tile divides them): colour gradients,
 * a disc and a grid of thin lines, which the box filter visibly softens. */
static co_status draw_test_picture(const char *path) {
    enum { W = 301, H = 203 };
    unsigned char *px = malloc(4 * W * H);
    if (!px) return CO_ERR_NOMEM;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            unsigned char *p = px + 4 * (y * W + x);
            const int dx = x - 2 * W / 3, dy = y - H / 2;
            const int disc = dx * dx + dy * dy < (H / 3) * (H / 3);
            const int line = x % 16 == 0 || y % 16 == 0;
            p[0] = (unsigned char)(line ? 255 : 255 * x / W);
            p[1] = (unsigned char)(line ? 255 : disc ? 230 : 255 * y / H);
            p[2] = (unsigned char)(line ? 255 : disc ? 40 : 128);
            p[3] = 255;
        }
    co_status st = co_image_save_png(path, W, H, 4, px);
    free(px);
    return st;
}

/* The first device of a spec list that is here. */
static co_status pick(co_context *ctx, const char *spec, size_t *device) {
    static const char *const gpus[] = {"cuda", "opencl:gpu", "vulkan:gpu", "omp"};
    size_t count;
    if (strcmp(spec, "gpu") != 0) return co_device_select(ctx, spec, device, 1, &count);
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
        if (co_device_select(ctx, gpus[i], device, 1, &count) == CO_OK) return CO_OK;
    return CO_ERR_UNSUPPORTED;
}

/* in (RGBA8) -> blur (RGBA8) -> gray (8-bit), all buffers on `device`. */
static co_status pipeline(co_context *ctx, size_t device, size_t w, size_t h, unsigned radius,
                          co_buffer *in, co_buffer *blur, co_buffer *gray) {
    co_status st = co_boxfilter(ctx, device, NULL, CO_FORMAT_RGBA8, w, h, radius, CO_BORDER_CLAMP,
                                co_mem_buffer(in), 4 * w, co_mem_buffer(blur), 4 * w);
    if (st == CO_OK)
        st = co_grayscale(ctx, device, NULL, w, h, co_mem_buffer(blur), 4 * w, co_mem_buffer(gray),
                          w);
    return st;
}

int main(int argc, char **argv) {
    if (argc > 5) {
        fprintf(stderr, "usage: %s [DEVICE [IN.png [OUT.png [RADIUS]]]]\n", argv[0]);
        return 2;
    }
    const char *spec = argc > 1 ? argv[1] : "gpu";
    const char *in_path = argc > 2 ? argv[2] : NULL;
    const char *out_path = argc > 3 ? argv[3] : "pipeline_out.png";
    char *end = NULL;
    const long r = argc > 4 ? strtol(argv[4], &end, 10) : 4;
    if ((end && *end) || r < 0 || r > 2047) {
        fprintf(stderr, "image_pipeline: RADIUS '%s' must be an integer 0..2047\n", argv[4]);
        return 2;
    }
    const unsigned radius = (unsigned)r;

    int rc = 0;
    co_context *ctx = NULL;
    co_image img = {0};
    co_buffer *in = NULL, *blur = NULL, *gray = NULL, *gray2 = NULL;
    unsigned char *out = NULL, *out2 = NULL;
    size_t device, w, h;
    co_copy_stats copies;
    TRY(co_context_create(&ctx));
    co_status st = pick(ctx, spec, &device);
    if (st != CO_OK) {
        fprintf(stderr, "image_pipeline: no device '%s' here: %s\n", spec, co_last_error());
        rc = st == CO_ERR_INVALID ? 2 : 3;
        goto done;
    }
    if (!in_path) {
        in_path = "pipeline_in.png";
        TRY(draw_test_picture(in_path));
    }
    TRY(co_image_load(in_path, 4, &img));
    w = (size_t)img.width, h = (size_t)img.height;
    if (!(out = malloc(w * h)) || !(out2 = malloc(w * h))) {
        fprintf(stderr, "image_pipeline: out of memory\n");
        rc = 1;
        goto done;
    }

    /* One upload, two calls on the device, one download. */
    TRY(co_buffer_create(ctx, device, 4 * w * h, &in));
    TRY(co_buffer_create(ctx, device, 4 * w * h, &blur));
    TRY(co_buffer_create(ctx, device, w * h, &gray));
    TRY(co_buffer_create(ctx, device, w * h, &gray2));
    TRY(co_context_reset_copies(ctx));
    TRY(co_buffer_upload(in, img.pixels, 4 * w * h));
    TRY(pipeline(ctx, device, w, h, radius, in, blur, gray));
    TRY(co_buffer_download(gray, out, w * h));
    TRY(co_context_copies(ctx, &copies));
    TRY(co_image_save_png(out_path, (int)w, (int)h, 1, out));
    const co_device_info *info = co_device_get(ctx, device);
    printf("%s (%zux%zu) -> box filter r=%u -> grayscale -> %s on %s (%s): %llu upload, "
           "%llu download\n",
           in_path, w, h, radius, out_path, info->spec, info->name,
           (unsigned long long)copies.uploads, (unsigned long long)copies.downloads);
    if (copies.uploads != 1 || copies.downloads != 1) {
        fprintf(stderr, "image_pipeline: WRONG: the pipeline copied through the host\n");
        rc = 1;
    }

    /* The check: the same calls verified against the workloads' references. */
    TRY(co_context_set_check(ctx, true));
    TRY(pipeline(ctx, device, w, h, radius, in, blur, gray2));
    TRY(co_buffer_download(gray2, out2, w * h));
    if (memcmp(out, out2, w * h) != 0) {
        fprintf(stderr, "image_pipeline: WRONG: the checked run gave other pixels\n");
        rc = 1;
    } else {
        printf("checked: the box filter and grayscale agree with their references\n");
    }
done:
    free(out), free(out2);
    co_buffer_free(in), co_buffer_free(blur), co_buffer_free(gray), co_buffer_free(gray2);
    co_image_free(&img);
    co_context_destroy(ctx);
    return rc;
}
