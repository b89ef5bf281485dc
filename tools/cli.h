/* Subcommands of the `clpool` tool; each returns the process exit status (0, 1 or 2, see clpool.c). */
#ifndef CLPOOL_TOOLS_CLI_H
#define CLPOOL_TOOLS_CLI_H

#include <clpool/clpool.h>

/* A context on `device` (NULL: default); on failure prints "WHO: STATUS: message" and returns NULL. */
clpool_context *cli_open_context(const char *device, const char *who);

/* `clpool COMMAND --help`: the command's usage on stdout; returns exit status 0. */
int cli_help(const char *command);

/* 1 if arg is --help or -h. */
int cli_is_help(const char *arg);

/* A usage error: "clpool COMMAND: MESSAGE (see 'clpool COMMAND --help')" on stderr; returns exit status 2. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Timing helpers (cli_time.c): the median of v[0..n) (sorts v), a monotonic clock in ms. */
double cli_median(double *v, int n);
double cli_now_ms(void);

int cli_onnx_test(int argc, char **argv);
int cli_bench(int argc, char **argv);
/* `clpool bench --startup` (tools/cli_startup.c): R rounds of fresh processes; returns the exit status. */
int cli_bench_startup(const char *device, int repeat, int csv);
/* One start-up case in this process (the hidden `bench --startup-case NAME --pace MS`): prints its first
 * result's ms, then each later call's. */
int cli_bench_startup_child(const char *name, const char *device, int pace_ms);

#endif
