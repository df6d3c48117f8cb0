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
    int nsub;                     /* substructures, 0: no "paths" object */
    const char *const *sub_names; /* nsub names */
    const char *const *sub_paths; /* nsub stepping paths (tvds_substructure_path) */
    /* Contacts none of whose points closed during the run: written as the list
     * "contacts_never_closed" when open_contacts is not NULL (the final summary), else left
     * out. */
    int nopen;
    const char *const *open_contacts; /* nopen names */
} tvds_summary_info;

/* Write summary.json atomically: to "path.tmp", then rename over path, so that readers and a
 * killed process only ever see a complete file. Non-finite numbers are written as null. */
TVDS_API int tvds_summary_write(const char *path, const tvds_summary_info *s, tvds_ctx *ctx);

/* An output directory owned by one process (docs/outputs.md): created with its parents, locked
 * through DIR/.lock (flock, exclusive; released by the kernel when the process ends, however it
 * ends), with 64 KiB of disk space held in the lock file so that a run stopped by a full disk
 * can still write its summary. *d owned by the caller (tvds_outdir_close).
 * Returns TVDS_ERR_BUSY, naming the directory and the owner's pid, when another process owns
 * it; TVDS_ERR_IO when it cannot be created. */
typedef struct tvds_outdir tvds_outdir;
TVDS_API int tvds_outdir_open(const char *dir, tvds_outdir **d, tvds_ctx *ctx);
/* The directory's path as given to tvds_outdir_open. */
TVDS_API const char *tvds_outdir_path(const tvds_outdir *d);
/* Give the space reserve back to the file system (after a write failed for lack of space). */
TVDS_API void tvds_outdir_release_reserve(tvds_outdir *d);
/* Remove DIR/files[i] (names relative to the directory; a missing file is fine): the outputs
 * of an earlier run that this run owns and would otherwise leave stale. */
TVDS_API int tvds_outdir_clear(tvds_outdir *d, const char *const *files, int nfiles, tvds_ctx *ctx);
/* Remove a directory that an earlier tvds run owned: when dir exists, take it (TVDS_ERR_BUSY
 * when another process owns it), remove files[] and the lock file, then the directory itself
 * if nothing else (a user's file) is left in it. */
TVDS_API int tvds_outdir_remove(const char *dir, const char *const *files, int nfiles,
                                tvds_ctx *ctx);
/* Release the lock and the reserve; accepts NULL and clears *d. DIR/.lock stays (empty). */
TVDS_API void tvds_outdir_close(tvds_outdir **d);

/* The files of a directory replaced as one (a substructure, a full model; docs/reliability.md):
 *   tvds_commit_begin(dir, stage) creates the empty staging directory dir/.new (removing what a
 *     killed writer left there) and names it in stage (size bytes);
 *   the caller writes every file of the new version into stage;
 *   tvds_commit_end(dir, owned) syncs them, writes dir/manifest.txt (each file's size and
 *     FNV-1a 64 checksum of 8-byte words) to a temporary name and renames it into place (the
 *     commit point), renames the staged files into dir, and removes the files of owned[] (names the
 * writer may produce) that this version does not have; tvds_commit_abort(dir) drops the stage
 * (nothing of dir changed). A process killed before the commit point leaves the old files and their
 * manifest; one killed after it leaves files that tvds_manifest_check refuses. The caller owns dir
 * (tvds_outdir). Returns TVDS_OK, TVDS_ERR_IO, TVDS_ERR_WRITE, TVDS_ERR_NOMEM. */
TVDS_API int tvds_commit_begin(const char *dir, char *stage, size_t size, tvds_ctx *ctx);
TVDS_API int tvds_commit_end(const char *dir, const char *const *owned, int nowned, tvds_ctx *ctx);
TVDS_API void tvds_commit_abort(const char *dir);
/* When dir has a manifest.txt: every file it lists must have its size and checksum, and no file
 * of owned[] may be there unlisted; TVDS_ERR_INVALID naming the first file that differs
 * otherwise. No manifest (a directory written by hand or by an older tvds): TVDS_OK. */
TVDS_API int tvds_manifest_check(const char *dir, const char *const *owned, int nowned,
                                 tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
