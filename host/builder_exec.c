/*
 * clpool-builder: the background build's helper process (host/builder.c; docs/design.md, "Tiers"),
 * started by libclpool with its own file's path. It loads that library and serves the one build request
 * on stdin there, so that PoCL's code generation holds no lock of the caller's process. A library without
 * a link to libOpenCL (the Python package's) takes the clXxx functions from the ICD loader, loaded first
 * into the global scope.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBRARY < REQUEST\nclpool's background build helper, started by libclpool\n",
                argv[0]);
        return 2;
    }
    dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL); /* absent: the library's own link must provide it */
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *serve = library ? dlsym(library, "clpool_builder_serve") : NULL;
    if (!serve) {
        fprintf(stderr, "%s: %s\n", argv[0], dlerror());
        return 1;
    }
    int (*fn)(int);
    memcpy(&fn, &serve, sizeof fn);
    return fn(0);
}
