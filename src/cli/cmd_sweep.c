/* cmd_sweep.c — `tvds sweep`: a grid of runs over case parameters (OpenMP threads over runs;
 * MPI ranks when built with `make MPI=1`), one CSV row per run and a squeal-propensity map. */
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tvds/tvds_bench.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_sweep.h"

#ifdef TVDS_MPI
#include <mpi.h>
#endif

static void sweep_help(FILE *out)
{
    fprintf(out,
            "usage: tvds sweep CASE --grid SECTION.KEY=A:B:N [--grid ...] -o DIR [options]\n"
            "\n"
            "Runs CASE once per point of the grid (each --grid key takes N values evenly spaced\n"
            "from A to B; the last --grid varies fastest) and writes DIR/sweep.csv, one row per\n"
            "run: index, the parameters, status, unstable (1/0), RMS and peak of the channel,\n"
            "dominant frequency [Hz], growth rate [1/s] (CEA: largest real part), CPU seconds;\n"
            "and DIR/squeal_map.png over the first two parameters (docs/performance.md).\n"
            "Runs are spread over OpenMP threads; with an MPI build (make MPI=1) and mpirun,\n"
            "over ranks too: rank r runs r, r + size, ...; rank 0 gathers one CSV. The rows do\n"
            "not depend on threads or ranks (cpu_s aside).\n"
            "\n"
            "options:\n"
            "  --grid K=A:B:N  a grid axis (a case key as for --set; at most 8 axes)\n"
            "  --mode M        transient (default: time integration to t_end) or cea (complex\n"
            "                  eigenvalues along the master surface)\n"
            "  --channel NAME  history channel for RMS, peak and frequency (default: the first)\n"
            "  --positions N   CEA positions along the surface (default 21)\n"
            "  --no-refine     CEA: the positions given only (no automatic refinement)\n"
            "  --set K=V       fixed override applied to every run (repeatable)\n"
            "  --threads N     OpenMP threads (default: OpenMP's default)\n"
            "  -o, --output D  output directory (created; one sweep at a time: DIR/.lock)\n"
            "  --resume        keep the runs already finished in DIR/sweep.points.csv (same\n"
            "                  case, grid and options, and the same inputs: a hash of the case\n"
            "                  file, the overrides and every file the case reads) and run only\n"
            "                  the missing ones\n"
            "  -q, --quiet     no progress on stderr\n"
            "  -h, --help      this help\n"
            "\n"
            "Transient runs are unstable when the RMS of the channel's fluctuation grows by more\n"
            "than 5 %% from the second to the last quarter of the run, or when the run diverges.\n"
            "\n"
            "Each run is appended to DIR/sweep.points.csv as it finishes. Ctrl-C, SIGTERM or\n"
            "SIGHUP stop the sweep within about a second, CEA runs included (exit 3): the\n"
            "finished runs stay there and in sweep.csv, and '--resume' completes the grid; the\n"
            "final sweep.csv is the same as an uninterrupted sweep's (cpu_s aside). A journal\n"
            "line cut by a full disk or a kill is removed before --resume appends. Without\n"
            "--resume a sweep clears DIR's sweep outputs first. Progress (runs done/total,\n"
            "rate, time left) goes to stderr after 2 s: in place on a terminal, else a line\n"
            "every 10 s.\n"
            "\n"
            "example:\n"
            "  tvds sweep bench/cases/beam_on_beam.ini --grid contact.tip.mu=0.1:0.5:5 \\\n"
            "      --grid substructure.beam2.beta=1e-8:8e-8:4 --set run.t_end=0.01 -o out/sweep\n");
}

/* Parse the arguments; 0 to go on, otherwise the exit code (-1: --help printed, exit 0). */
typedef struct sweep_args {
    const char *case_path, *outdir;
    int resume, quiet;
    tvds_sweep_axis ax[TVDS_SWEEP_MAX_AXES];
    int nax;
    tvds_sweep_opts o;
    tvds_cli_sets sets;
} sweep_args;

static int parse_args(int argc, char **argv, sweep_args *a)
{
    memset(a, 0, sizeof *a);
    a->o = tvds_sweep_opts_default();
    const char *val;
    const tvds_cli_opt opts[] = {
        {"--channel", NULL, &a->o.channel, NULL, 0},      {"--output", "-o", &a->outdir, NULL, 0},
        {"--resume", NULL, NULL, &a->resume, 1},          {"--quiet", "-q", NULL, &a->quiet, 1},
        {"--no-refine", NULL, NULL, &a->o.cea_refine, 0}, {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int r;
        if (tvds_cli_is_help(s)) {
            sweep_help(stdout);
            return -1;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--grid", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (a->nax >= TVDS_SWEEP_MAX_AXES)
                return tvds_cli_usage_error("sweep: at most %d --grid axes", TVDS_SWEEP_MAX_AXES);
            tvds_ctx ctx;
            tvds_ctx_init(&ctx);
            int rc = tvds_sweep_axis_parse(val, &a->ax[a->nax], &ctx);
            if (rc) return tvds_cli_report(rc, &ctx);
            a->nax++;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--mode", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (!strcmp(val, "transient"))
                a->o.mode = TVDS_SWEEP_TRANSIENT;
            else if (!strcmp(val, "cea"))
                a->o.mode = TVDS_SWEEP_CEA;
            else
                return tvds_cli_usage_error("sweep: --mode %s: transient or cea", val);
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--positions", NULL, &val)) != 0) {
            if (r < 0) return 2;
            int v;
            if (tvds_cli_parse_int(val, &v) || v < 2 || v > 100000)
                return tvds_cli_usage_error("sweep: --positions %s: need an integer >= 2", val);
            a->o.cea_npos = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--threads", NULL, &val)) != 0) {
            if (r < 0) return 2;
            int v;
            if (tvds_cli_parse_int(val, &v) || v < 1 || v > 1024)
                return tvds_cli_usage_error("sweep: --threads %s: need an integer >= 1", val);
            a->o.nthreads = v;
        } else if ((r = tvds_cli_opt_set(argc, argv, &i, &a->sets)) != 0) {
            if (r < 0) return -r;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) return 2;
        } else if (s[0] == '-' && s[1]) {
            return tvds_cli_usage_error("sweep: unknown option '%s' (see 'tvds sweep --help')", s);
        } else if (!a->case_path) {
            a->case_path = s;
        } else {
            return tvds_cli_usage_error("sweep: unexpected argument '%s'", s);
        }
    }
    if (!a->case_path) return tvds_cli_usage_error("sweep: missing CASE (see 'tvds sweep --help')");
    if (!a->nax) return tvds_cli_usage_error("sweep: give at least one --grid SECTION.KEY=A:B:N");
    if (!a->outdir) return tvds_cli_usage_error("sweep: missing -o DIR");
    if (tvds_sweep_count(a->ax, a->nax) < 0)
        return tvds_cli_usage_error("sweep: the grid is too large");
    a->o.sets = a->sets.v;
    a->o.nsets = a->sets.n;
    return 0;
}

/* Rows as flat doubles for MPI: index, params, status, unstable, rms, peak, f, growth, cpu. */
#define ROW_FIELDS (9 + TVDS_SWEEP_MAX_AXES)

#ifdef TVDS_MPI
static void pack(const tvds_sweep_row *r, double *v)
{
    v[0] = (double)r->index;
    for (int i = 0; i < TVDS_SWEEP_MAX_AXES; i++)
        v[1 + i] = r->param[i];
    double *w = v + 1 + TVDS_SWEEP_MAX_AXES;
    w[0] = r->status;
    w[1] = r->unstable;
    w[2] = r->rms;
    w[3] = r->peak;
    w[4] = r->f_dom;
    w[5] = r->growth;
    w[6] = r->cpu_seconds;
}

static void unpack(const double *v, tvds_sweep_row *r)
{
    r->index = (long)v[0];
    for (int i = 0; i < TVDS_SWEEP_MAX_AXES; i++)
        r->param[i] = v[1 + i];
    const double *w = v + 1 + TVDS_SWEEP_MAX_AXES;
    r->status = (int)w[0];
    r->unstable = (int)w[1];
    r->rms = w[2];
    r->peak = w[3];
    r->f_dom = w[4];
    r->growth = w[5];
    r->cpu_seconds = w[6];
}
#endif

/* The outputs a sweep owns in DIR (cleared by a sweep that does not resume). */
static const char *const sweep_files[] = {
    "sweep.csv",           "sweep.csv.tmp",  "sweep.points.csv", "squeal_map.dat",
    "squeal_unstable.dat", "squeal_map.png", "squeal_map.gp"};

/* First line of the journal: everything that decides the rows (case, mode, channel, options,
 * fixed overrides, grid), so that --resume never mixes the runs of two different sweeps. */
static void journal_signature(const sweep_args *a, const char *inputs, char *buf, size_t n)
{
    size_t len = 0;
#define SIG_APPEND(...)                                                                            \
    do {                                                                                           \
        int k_ = snprintf(buf + len, len < n ? n - len : 0, __VA_ARGS__);                          \
        if (k_ > 0) len += (size_t)k_;                                                             \
        if (len >= n) len = n - 1;                                                                 \
    } while (0)
    SIG_APPEND("# tvds sweep points: case=%s mode=%s channel=%s positions=%d growth_tol=%.17g",
               a->case_path, a->o.mode == TVDS_SWEEP_CEA ? "cea" : "transient",
               a->o.channel ? a->o.channel : "(first)", a->o.cea_npos, a->o.growth_tol);
    if (!a->o.cea_refine) SIG_APPEND(" refine=0");
    for (int i = 0; i < a->sets.n; i++)
        SIG_APPEND(" set=%s", a->sets.v[i]);
    for (int i = 0; i < a->nax; i++)
        SIG_APPEND(" grid=%s=%.17g:%.17g:%d", a->ax[i].key, a->ax[i].a, a->ax[i].b, a->ax[i].n);
    SIG_APPEND(" inputs=%s", inputs); /* last: tvds_sweep_journal_read names a change of it */
#undef SIG_APPEND
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

typedef struct journal {
    int fd;
    int nax;
    int failed, err; /* a write failed (errno err): no line is appended after it */
    long done, total;
    tvds_cli_progress *pg;
} journal;

/* row_done: one write() per finished run (O_APPEND), so a killed sweep leaves whole lines; a
 * write cut short (full disk) is cut back to the last whole line, and the journal closed to
 * further lines. */
static void journal_row(void *user, const tvds_sweep_row *row)
{
    journal *j = user;
    char line[1024];
    int len = tvds_sweep_journal_line(row, j->nax, line, sizeof line);
    if (!j->failed) {
        off_t at = j->fd >= 0 ? lseek(j->fd, 0, SEEK_END) : -1;
        ssize_t k = at >= 0 ? write(j->fd, line, (size_t)len) : -1;
        if (k != len) {
            j->failed = 1;
            j->err = k < 0 ? errno : ENOSPC;
            if (at >= 0 && ftruncate(j->fd, at) != 0) j->err = errno;
        }
    }
    j->done++;
    if (j->pg) tvds_cli_progress_count(j->pg, "runs", j->done, j->total);
}

/* The output directory: rank 0 opens (locks) it and clears a fresh sweep's files. */
static int sweep_open_outdir(const sweep_args *a, int rank, tvds_outdir **od, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    if (rank == 0) {
        rc = tvds_outdir_open(a->outdir, od, ctx);
        if (!rc && !a->resume)
            rc = tvds_outdir_clear(*od, sweep_files,
                                   (int)(sizeof sweep_files / sizeof *sweep_files), ctx);
    }
#ifdef TVDS_MPI
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return rc;
}

/* The inputs' hash: --resume refuses a journal begun on another case text or input file. The
 * case is read as for the grid's first point (a grid key may be one the case needs). */
static int sweep_inputs_hash(const sweep_args *a, char inputs[17], tvds_ctx *ctx)
{
    char first[TVDS_SWEEP_MAX_AXES][192];
    const char **hov = calloc((size_t)a->sets.n + TVDS_SWEEP_MAX_AXES, sizeof *hov);
    int nhov = 0;
    for (int i = 0; hov && i < a->sets.n; i++)
        hov[nhov++] = a->sets.v[i];
    for (int i = 0; hov && i < a->nax; i++) {
        snprintf(first[i], sizeof first[i], "%s=%.17g", a->ax[i].key, a->ax[i].a);
        hov[nhov++] = first[i];
    }
    int rc = hov ? tvds_sweep_inputs_hash(a->case_path, hov, nhov, inputs, ctx)
                 : TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "sweep: out of memory");
    free(hov);
    return rc;
}

/* --resume: the runs already in the journal are marked done; a last line cut by a full disk or a
 * kill goes before new lines are appended after it. */
static int sweep_resume_read(const sweep_args *a, int rank, const char *jpath, const char *sig,
                             long total, unsigned char *done, long *nprev, long *cut, tvds_ctx *ctx)
{
    tvds_sweep_row *prev = NULL;
    int rc = tvds_sweep_journal_read(jpath, sig, a->nax, total, &prev, nprev, ctx);
    if (!rc && rank == 0) rc = tvds_sweep_journal_trim(jpath, cut, ctx);
    for (long i = 0; !rc && i < *nprev; i++)
        done[prev[i].index] = 1;
    tvds_free(prev);
    return rc;
}

/* The journal that receives the new runs, opened for appending; rank 0 writes the signature line
 * into a new one. */
static int sweep_journal_open(const char *jpath, char *sig, int rank, int *fd, tvds_ctx *ctx)
{
    *fd = open(jpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    struct stat st;
    if (*fd < 0 || fstat(*fd, &st) != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", jpath, strerror(errno));
    int rc = TVDS_OK;
    if (st.st_size == 0 && rank == 0) {
        size_t sl = strlen(sig);
        sig[sl] = '\n';
        if (write(*fd, sig, sl + 1) != (ssize_t)(sl + 1))
            rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write failed: %s", jpath, strerror(errno));
        sig[sl] = '\0';
    }
    return rc;
}

/* Rank 0's output: sweep.csv from the journal, the map, the summary line. Returns the exit code. */
static int sweep_output(const sweep_args *a, int size, const char *jpath, const char *sig,
                        long total, double wall, int exit_code, int interrupted, tvds_ctx *ctx)
{
    /* sweep.csv comes from the journal: the runs of this session and of the earlier ones
     * (--resume), bit for bit as computed. */
    tvds_sweep_row *all = NULL;
    long nall = 0;
    tvds_ctx_init(ctx);
    int rc = tvds_sweep_journal_read(jpath, sig, a->nax, total, &all, &nall, ctx);
    if (!rc) rc = tvds_sweep_write_csv(a->outdir, a->ax, a->nax, all, nall, ctx);
    if (rc) {
        int ec = tvds_cli_report(rc, ctx);
        if (!exit_code) exit_code = ec;
    }
    if (exit_code && !interrupted) rc = exit_code; /* no plot, no "wrote" line */
    if (interrupted)
        fprintf(stderr,
                "tvds: sweep: %ld of %ld runs finished, kept in %s and %s/sweep.csv; run the "
                "same command with --resume to complete the grid\n",
                nall, total, jpath, a->outdir);
    if (!rc && !interrupted) {
        tvds_ctx_init(ctx);
        int pr2 = tvds_sweep_plot(a->outdir, a->ax, a->nax, all, nall, a->o.mode, ctx);
        if (pr2 > 0)
            fprintf(stderr, "tvds: warning: %s\n", ctx->msg[0] ? ctx->msg : tvds_strerror(pr2));
        else if (pr2 < 0)
            exit_code = tvds_cli_report(pr2, ctx);
    }
    long nun = 0;
    double cpu = 0.0;
    for (long i = 0; !interrupted && i < nall; i++) {
        nun += all[i].unstable;
        cpu += all[i].cpu_seconds;
    }
    int nt = a->o.nthreads > 0 ? a->o.nthreads : omp_get_max_threads();
    if (!interrupted && !exit_code)
        printf("sweep: %ld runs (%ld unstable) in %.3f s wall, %.3f runs/s, %.3f CPU s; %d "
               "thread(s) x %d rank(s); wrote %s/sweep.csv and %s/squeal_map.png\n",
               nall, nun, wall, wall > 0 ? nall / wall : 0.0, cpu, nt, size, a->outdir, a->outdir);
    tvds_free(all);
    return exit_code;
}

int tvds_cmd_sweep(int argc, char **argv)
{
    int rank = 0, size = 1;
#ifdef TVDS_MPI
    int mpi_inited = 0;
    MPI_Initialized(&mpi_inited);
    if (!mpi_inited) MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#define SWEEP_RETURN(code)                                                                         \
    do {                                                                                           \
        int code_ = (code);                                                                        \
        MPI_Finalize();                                                                            \
        return code_;                                                                              \
    } while (0)
#else
#define SWEEP_RETURN(code) return (code)
#endif
    sweep_args a;
    int pr = parse_args(argc, argv, &a);
    if (pr) {
        tvds_cli_sets_free(&a.sets);
        SWEEP_RETURN(pr < 0 ? 0 : pr);
    }
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_outdir *od = NULL;
    int rc = sweep_open_outdir(&a, rank, &od, &ctx);
    if (rc) {
        tvds_cli_sets_free(&a.sets);
        int ec = rank == 0 ? tvds_cli_report(rc, &ctx) : 2;
        tvds_outdir_close(&od);
#ifdef TVDS_MPI
        MPI_Abort(MPI_COMM_WORLD, ec);
#endif
        return ec;
    }
    char jpath[4200], sig[4096], inputs[17];
    snprintf(jpath, sizeof jpath, "%s/sweep.points.csv", a.outdir);
    rc = sweep_inputs_hash(&a, inputs, &ctx);
    if (rc) {
        int ec = tvds_cli_report(rc, &ctx);
        tvds_outdir_close(&od);
        tvds_cli_sets_free(&a.sets);
        SWEEP_RETURN(ec);
    }
    journal_signature(&a, inputs, sig, sizeof sig);
    long total = tvds_sweep_count(a.ax, a.nax);
    long share = (total + size - 1) / size;
    tvds_sweep_row *rows = calloc((size_t)(share > 0 ? share : 1), sizeof *rows);
    if (!rows) {
        tvds_cli_sets_free(&a.sets);
        SWEEP_RETURN(1);
    }
    /* Runs already finished (--resume), then the journal that receives the new ones. */
    unsigned char *done = calloc((size_t)(total > 0 ? total : 1), 1);
    long nprev = 0, cut = 0;
    rc = done ? TVDS_OK : TVDS_ERR_NOMEM;
    if (!rc && a.resume)
        rc = sweep_resume_read(&a, rank, jpath, sig, total, done, &nprev, &cut, &ctx);
    tvds_cli_progress pg;
    tvds_cli_progress_init(&pg, a.quiet || rank != 0, "sweep");
    pg.base = nprev;
    journal jr = {-1, a.nax, 0, 0, nprev, total, &pg};
#ifdef TVDS_MPI
    /* Rank 0 opens the journal and writes its first line before any rank appends a run. */
    if (rank != 0) MPI_Barrier(MPI_COMM_WORLD);
#endif
    if (!rc) rc = sweep_journal_open(jpath, sig, rank, &jr.fd, &ctx);
#ifdef TVDS_MPI
    if (rank == 0) MPI_Barrier(MPI_COMM_WORLD);
#endif
    if (rc) {
        int ec = tvds_cli_report(rc, &ctx);
        if (jr.fd >= 0) close(jr.fd);
        free(done);
        free(rows);
        tvds_outdir_close(&od);
        tvds_cli_sets_free(&a.sets);
        SWEEP_RETURN(ec);
    }
    if (a.resume && rank == 0)
        printf("sweep: resuming: %ld of %ld runs already in %s%s\n", nprev, total, jpath,
               cut ? " (its last line, cut short, removed)" : "");
    a.o.done = done;
    a.o.row_done = journal_row;
    a.o.user = &jr;
    a.o.stop = tvds_cli_stop_flag();
    tvds_cli_sigint(1);
    long nrows = 0;
    double w0 = tvds_bench_now();
    rc = tvds_sweep_run(a.case_path, a.ax, a.nax, &a.o, rank, size, rows, &nrows, &ctx);
    double wall = tvds_bench_now() - w0;
    tvds_cli_sigint(0);
    tvds_cli_progress_clear(&pg);
    close(jr.fd);
    free(done);
    int exit_code = 0, interrupted = rc == TVDS_ERR_INTERRUPTED;
    if ((!rc || interrupted) && jr.failed) {
        rc = TVDS_ERROR(&ctx, TVDS_ERR_WRITE,
                        "%s: write failed: %s (the journal keeps the runs before it; --resume "
                        "runs the others again)",
                        jpath, strerror(jr.err));
        interrupted = 0;
    }
    if (rc) exit_code = tvds_cli_report(rc, &ctx);
    tvds_sweep_row *all = rows;
#ifdef TVDS_MPI
    long nall = nrows;
    int worst = exit_code;
    MPI_Allreduce(&exit_code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst) {
        free(rows);
        tvds_cli_sets_free(&a.sets);
        SWEEP_RETURN(worst);
    }
    double *buf = malloc((size_t)(nrows > 0 ? nrows : 1) * ROW_FIELDS * sizeof *buf);
    int cnt = (int)(nrows * ROW_FIELDS), *cnts = NULL, *displ = NULL;
    double *recv = NULL;
    for (long i = 0; buf && i < nrows; i++)
        pack(&rows[i], buf + i * ROW_FIELDS);
    if (rank == 0) {
        cnts = calloc((size_t)size, sizeof *cnts);
        displ = calloc((size_t)size, sizeof *displ);
        recv = malloc((size_t)(total > 0 ? total : 1) * ROW_FIELDS * sizeof *recv);
    }
    MPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 1; r < size; r++)
            displ[r] = displ[r - 1] + cnts[r - 1];
    MPI_Gatherv(buf, cnt, MPI_DOUBLE, recv, cnts, displ, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double wall_max = wall;
    MPI_Reduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    wall = tvds_bench_now() - w0;
    free(buf);
    if (rank == 0) {
        all = calloc((size_t)(total > 0 ? total : 1), sizeof *all);
        nall = 0;
        for (int r = 0; all && r < size; r++)
            nall += cnts[r] / ROW_FIELDS;
        for (long i = 0; all && i < nall; i++)
            unpack(recv + i * ROW_FIELDS, &all[i]);
        free(rows);
        rows = NULL;
    }
    free(cnts);
    free(displ);
    free(recv);
#endif
    if (rank == 0 && (!exit_code || interrupted || jr.failed)) {
        if (all != rows) free(all);
        all = NULL;
        exit_code = sweep_output(&a, size, jpath, sig, total, wall, exit_code, interrupted, &ctx);
    }
    if (all != rows) tvds_free(all);
    free(rows);
    tvds_outdir_close(&od);
    tvds_cli_sets_free(&a.sets);
    SWEEP_RETURN(exit_code);
}
