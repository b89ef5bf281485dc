/* Subcommands of the `clpool` tool; each returns the process exit code. */
#ifndef CLPOOL_TOOLS_CLI_H
#define CLPOOL_TOOLS_CLI_H

int cli_onnx_test(int argc, char **argv);
int cli_demo(int argc, char **argv);
int cli_bench(int argc, char **argv);

#endif
