/* SGEMM on caller data with libcoalesce: C = A * B on one device, checked
 * against a plain loop here.
 *
 *   cc sgemm.c $(pkg-config --cflags --libs coalesce) -o sgemm
 *   ./sgemm [DEVICE [M N K]]        DEVICE: omp (default), c, opencl, cuda:0, ...
 */
#include <coalesce.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t arg_size(const char *s) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    return *s && !*end ? (size_t)v : 0;
}

int main(int argc, char **argv) {
    const char *spec = argc > 1 ? argv[1] : "omp";
    size_t m = 129, n = 67, k = 93; /* odd on purpose: no tile divides them */
    if (argc == 5) {
        m = arg_size(argv[2]);
        n = arg_size(argv[3]);
        k = arg_size(argv[4]);
    } else if (argc != 1 && argc != 2) {
        fprintf(stderr, "usage: %s [DEVICE [M N K]]\n", argv[0]);
        return 2;
    }
    if (strcmp(co_version(), COALESCE_VERSION))
        fprintf(stderr, "note: header %s, library %s\n", COALESCE_VERSION, co_version());

    co_context *ctx;
    if (co_context_create(&ctx) != CO_OK) {
        fprintf(stderr, "sgemm: %s\n", co_last_error());
        return 1;
    }
    size_t device, count;
    co_status st = co_device_select(ctx, spec, &device, 1, &count);
    if (st != CO_OK) {
        fprintf(stderr, "sgemm: %s\n", co_last_error());
        co_context_destroy(ctx);
        return st == CO_ERR_UNSUPPORTED ? 3 : 2;
    }

    float *a = malloc(m * k * sizeof *a), *b = malloc(k * n * sizeof *b);
    float *c = malloc(m * n * sizeof *c);
    int rc = 0;
    if (!a || !b || !c) {
        fprintf(stderr, "sgemm: out of memory\n");
        rc = 1;
        goto done;
    }
    for (size_t i = 0; i < m * k; i++) a[i] = (float)((i * 7) % 11) / 11.0f - 0.5f;
    for (size_t i = 0; i < k * n; i++) b[i] = (float)((i * 5) % 13) / 13.0f - 0.5f;

    st = co_sgemm(ctx, device, NULL, m, n, k, a, b, c);
    if (st != CO_OK) {
        fprintf(stderr, "sgemm: %s\n", co_last_error());
        rc = 1;
    } else {
        double worst = 0;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                double ref = 0;
                for (size_t p = 0; p < k; p++) ref += (double)a[i * k + p] * b[p * n + j];
                worst = fmax(worst, fabs(ref - c[i * n + j]));
            }
        /* float32 sums of k products of magnitude <= 1/4 */
        const double tol = 1e-5 * (double)k;
        printf("sgemm %zux%zux%zu on %s (%s), libcoalesce %s: max error %.2e %s\n", m, n, k,
               co_device_get(ctx, device)->spec, co_device_get(ctx, device)->name, co_version(),
               worst, worst <= tol ? "ok" : "WRONG");
        rc = worst <= tol ? 0 : 1;
    }
done:
    free(a);
    free(b);
    free(c);
    co_context_destroy(ctx);
    return rc;
}
