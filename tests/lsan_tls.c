/* The tests' LeakSanitizer settings against dynamic TLS (tests/CMakeLists.txt,
 * TEST_ENV): threads alive at exit, like PoCL's workers, each with a block
 * of a dlopen'd library's thread-local storage. With ASan's __tls_get_addr
 * interception on, GCC 12's runtime takes a block at 16 mod 4096 for glibc
 * 2.19's layout and records a garbage range, and the tracer dies scanning it
 * at exit ("Tracer caught signal 11"); the settings must exit cleanly, with
 * no leak reported either (the blocks stay reachable through the threads).
 * Built with the library (LSAN_TLS_LIB) or as that library. */
#ifdef LSAN_TLS_LIB
__thread int lsan_tls_small[4];
int *lsan_tls_touch(void) {
    lsan_tls_small[0]++;
    return lsan_tls_small;
}
#else
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { THREADS = 64 };
static int *(*touch)(void);
static pthread_barrier_t started;
static void *small[THREADS]; /* allocations that move where the next blocks land */

static void *worker(void *arg) {
    (void)arg;
    touch();
    pthread_barrier_wait(&started);
    for (;;) pause(); /* alive at exit */
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: lsan_tls path/to/liblsan_tls_lib.so\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "lsan_tls: %s\n", dlerror());
        return 1;
    }
    *(void **)&touch = dlsym(lib, "lsan_tls_touch");
    if (!touch || pthread_barrier_init(&started, NULL, THREADS + 1)) return 1;
    for (int i = 0; i < THREADS; i++) {
        pthread_t t;
        small[i] = malloc(40);
        if (pthread_create(&t, NULL, worker, NULL)) return 1;
    }
    pthread_barrier_wait(&started);
    printf("lsan_tls: %d threads with dynamic TLS alive at exit\n", THREADS);
    return 0;
}
#endif
