/* Subcommands of the `clpool` tool; each returns the process exit code. */
#ifndef CLPOOL_TOOLS_CLI_H
#define CLPOOL_TOOLS_CLI_H

#include <clpool/clpool.h>

/* A context on `device` (NULL: default); on failure prints "WHO: STATUS: message" and returns NULL. */
clpool_context *cli_open_context(const char *device, const char *who);

int cli_onnx_test(int argc, char **argv);
int cli_demo(int argc, char **argv);
int cli_bench(int argc, char **argv);

#endif
