/*
 * A library the program dl_main loads with dlopen() after it started, built with
 * -finstrument-functions: its calls are traced at addresses no state dump at start could name,
 * only LTTng-UST's lttng_ust_dl:dlopen event (liblttng-ust-dl.so preloaded).
 */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void plugin_inner(int i) {
    sink += i;
}

__attribute__((noinline)) void plugin_work(int n) {
    for (int i = 0; i < n; i++) {
        plugin_inner(i);
    }
}

/* the addresses of its functions, as the program writes them: "func NAME 0xADDRESS" */
__attribute__((no_instrument_function)) void plugin_functions(FILE *out) {
    fprintf(out, "func plugin_work %p\nfunc plugin_inner %p\n", (void *) plugin_work, (void *) plugin_inner);
}
