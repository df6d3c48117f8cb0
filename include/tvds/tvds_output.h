/* tvds_output.h — run outputs (docs/outputs.md): crash-safe CSV channel files and an atomically
 * replaced summary.json. */
#ifndef TVDS_OUTPUT_H
#define TVDS_OUTPUT_H

#include "tvds/tvds.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create directory dir and its missing parents (mode 0777 & ~umask). An existing directory is
 * fine; an existing non-directory is TVDS_ERR_IO. */
TVDS_API int tvds_mkdir_p(const char *dir, tvds_ctx *ctx);

/* Shortest decimal text of v that reads back to the same double (%.15g, %.16g or %.17g);
 * "nan", "inf", "-inf" for non-finite values. buf needs 32 bytes. Returns the length. */
TVDS_API int tvds_format_double(double v, char buf[32]);

/* A CSV file of numeric rows with a header row of column names. Rows are formatted into a
 * buffer and written with whole lines only (POSIX write of complete rows), so a process killed
 * at any time leaves a file whose every line is complete. */
typedef struct tvds_csv tvds_csv;

/* Create (truncate) path and write the header names[0..ncol-1] (quoted when they contain a
 * comma or a quote). The header reaches the file before this returns. *w owned by the caller
 * (tvds_csv_close). */
TVDS_API int tvds_csv_open(const char *path, int ncol, const char *const *names, tvds_csv **w,
                           tvds_ctx *ctx);
/* Append one row of ncol values. Buffered: the row reaches the file at the next flush, when
 * the buffer fills, or at close. */
TVDS_API int tvds_csv_row(tvds_csv *w, const double *values, tvds_ctx *ctx);
/* Write the buffered rows to the file. */
TVDS_API int tvds_csv_flush(tvds_csv *w, tvds_ctx *ctx);
/* Rows written so far (flushed or not). */
TVDS_API long tvds_csv_rows(const tvds_csv *w);
/* Flush and close; accepts NULL and clears *w. Returns the first write error. */
TVDS_API int tvds_csv_close(tvds_csv **w, tvds_ctx *ctx);

/* Contents of summary.json (docs/outputs.md). Strings may be NULL (written as null). */
typedef struct tvds_summary_info {
    const char *case_name;
    const char *method;
    const char *status;      /* "ok", "running", "diverged", "interrupted", "failed", ... */
    const char *status_code; /* tvds_status_name of the final status */
    const char *message;     /* one line, or NULL */
    long steps;
    double dt;                /* [s] */
    double t_end;             /* requested end time [s] */
    double t_reached;         /* simulated time reached [s] */
    double cpu_seconds;       /* process CPU time of the stepping loop, outputs excluded [s] */
    double us_per_step;       /* cpu_seconds / steps [us] */
    double wall_seconds;      /* wall-clock time of the whole run, outputs included [s] */
    double setup_cpu_seconds; /* CPU time of the run's setup (tvds_data_create) [s] */
    int nscalars;
    const char *const *scalar_names; /* nscalars: engine summary scalars (tvds_summary) */
    const double *scalar_values;
} tvds_summary_info;

/* Write summary.json atomically: to "path.tmp", then rename over path, so that readers and a
 * killed process only ever see a complete file. Non-finite numbers are written as null. */
TVDS_API int tvds_summary_write(const char *path, const tvds_summary_info *s, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
