/*
 * Loads the library named by its second argument with dlopen() and calls its plugin_work three
 * times (each calling plugin_inner twice), then writes the library's functions' addresses to
 * the file named by its first argument ("func NAME 0xADDRESS"). Not built with
 * -finstrument-functions: the library's are the only calls traced.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT LIBRARY\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[2], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    void (*work)(int) = (void (*)(int)) dlsym(lib, "plugin_work");
    void (*functions)(FILE *) = (void (*)(FILE *)) dlsym(lib, "plugin_functions");
    if (!work || !functions) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    for (int i = 0; i < 3; i++) {
        work(2);
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    functions(out);
    fclose(out);
    return 0;
}
