/* cmd_bench_impl.h — what the files of `tvds bench` share: the result table (cmd_bench_table.c),
 * the helpers of the sections, and the sections (cmd_bench_steps.c: per-step costs and sweeps;
 * cmd_bench_reduce.c: the reduction and the multi-node CEA), run from cmd_bench.c's table. */
#ifndef TVDS_CMD_BENCH_IMPL_H
#define TVDS_CMD_BENCH_IMPL_H

#include <stddef.h>

#include "cli/cli.h"

typedef struct brow {
    char section[32], item[64], unit[24], note[160];
    double value;
} brow;

typedef struct btab {
    brow r[128];
    int n;
} btab;

/* One row of the table, printed on stdout as it is added (note: printf format, NULL: none). */
void bench_add(btab *t, const char *section, const char *item, double value, const char *unit,
               const char *fmt, ...) TVDS_PRINTF(6, 7);
/* DIR/bench.csv and DIR/bench.md of the table; 0 or -1. */
int bench_write_outputs(const btab *t, const char *dir, const char *machine, const char *case_path);
/* Remove a directory tree that bench wrote (regular files and directories only). */
void bench_rm_tree(const char *path);
/* Median of v[0..n-1] (sorts v). */
double bench_median(double *v, int n);
/* "CPU model, N logical cores, tvds VERSION, date" into buf. */
void bench_machine_string(char *buf, size_t size);
/* One line "tvds: bench: what: message" on stderr; returns rc. */
int bench_fail(const char *what, int rc, const tvds_ctx *ctx);
/* The 1-minute load average (-1 when unknown). */
double bench_load1(void);

/* The sections (docs/performance.md); each adds its rows to t and returns a status. */
int bench_methods(btab *t, const char *case_path, int R, int quick);
int bench_reduce(btab *t, const char *dir, const char *sizes, double scipy_limit_s);
int bench_size(btab *t, const char *dir, int R, int quick);
int bench_contacts(btab *t, const char *dir, int R, int quick);
int bench_plate(btab *t, const char *dir, int R, int quick);
int bench_bob3d(btab *t, const char *dir, int R, int quick);
/* cmd_bench_pads.c: pads of m = 1 .. 256 nodes on a Craig-Bampton plate. */
int bench_padplate(btab *t, const char *dir, int R, int quick);
int bench_sweep(btab *t, const char *case_path, int R, int quick);
int bench_setup_large(btab *t, const char *dir);
int bench_cea_nodes(btab *t, int N, int R, int which);

#endif
