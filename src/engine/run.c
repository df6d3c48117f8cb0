/* run.c — the run driver: step to t_end, sampled CSV outputs, periodic summary.json, CPU time. */
#include "tvds/tvds_run.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_sim.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const group_files[TVDS_GROUP_COUNT] = {"history.csv", "contacts.csv",
                                                          "energy.csv"};

/* Every file a run writes into its directory: removed when a new run starts, so that nothing
 * of an earlier run (a summary saying "ok", a CSV of another model) survives next to the new
 * one. */
static const char *const owned_files[] = {"history.csv", "contacts.csv", "energy.csv",
                                          "summary.json", "summary.json.tmp"};
#define NOWNED ((int)(sizeof owned_files / sizeof owned_files[0]))

tvds_run_opts tvds_run_opts_default(void)
{
    tvds_run_opts o;
    memset(&o, 0, sizeof o);
    o.progress_interval = 0.25;
    o.summary_interval = 2.0;
    return o;
}

const char *tvds_run_status_word(int code)
{
    switch (code) {
    case TVDS_OK:
        return "ok";
    case TVDS_ERR_INTERRUPTED:
        return "interrupted";
    case TVDS_ERR_DIVERGED:
        return "diverged";
    case TVDS_ERR_CONTACT_LOST:
        return "contact_lost";
    case TVDS_ERR_SINGULAR:
        return "singular";
    case TVDS_ERR_SOLVER:
        return "solver_failure";
    case TVDS_ERR_PARSE:
    case TVDS_ERR_INVALID:
    case TVDS_ERR_NOT_POSDEF:
    case TVDS_ERR_UNSTABLE_DT:
        return "invalid_input";
    case TVDS_ERR_WRITE:
        return "write_failed";
    case TVDS_WARN_NOT_CONVERGED:
    case TVDS_WARN_CONTACT_OPEN:
        return "warning";
    default:
        return code > 0 ? "ok" : "failed";
    }
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct run_state {
    const tvds_model *m;
    tvds_data *d;
    tvds_outdir *od; /* the locked output directory */
    char *dir;
    char *summary_path;
    tvds_csv *csv[TVDS_GROUP_COUNT];
    const double *vals[TVDS_GROUP_COUNT];
    double wall0, cpu0, cpu_out; /* start times; CPU spent in outputs */
    double cpu_setup;            /* CPU time of tvds_data_create */
    double last_row_t;           /* time of the last row written */
    double out_dt;               /* row interval aimed at (tvds_run_result.out_dt) */
    const char **sub_names;      /* nsub, for summary.json's "paths" */
    const char **sub_paths;
    const char **open_names; /* ncontact: the contacts that never closed (final summary) */
    int nopen;
    int final; /* 1: the summary after the run (writes "contacts_never_closed") */
} run_state;

static char *path_in(const char *dir, const char *file)
{
    size_t a = strlen(dir), b = strlen(file);
    char *p = tvds_malloc(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, file, b + 1);
    return p;
}

/* Time of the state the channels describe: column 0 ("t [s]") of the history group. With
 * central differences the engine may publish the state at t_n after computing u_{n+1}, so this
 * can lag tvds_data_time by a step; sampling and the end of the run follow this time. */
static double channel_time(const run_state *rs)
{
    if (rs->csv[TVDS_GROUP_HISTORY] && rs->vals[TVDS_GROUP_HISTORY])
        return rs->vals[TVDS_GROUP_HISTORY][0];
    return tvds_data_time(rs->d);
}

/* Probe publication period for tvds_set_record: 1 when every step is written (out_dt <= 0
 * or below the step), else 0 (on demand, from write_rows). */
static int out_dt_steps(const tvds_model *m, const tvds_data *d)
{
    return m->opt.out_dt > tvds_data_dt(d) ? 0 : 1;
}

static int write_rows(run_state *rs, tvds_ctx *ctx)
{
    tvds_channels_update(rs->m, rs->d); /* the probes the engine deferred (tvds_set_record) */
    for (int g = 0; g < TVDS_GROUP_COUNT; g++)
        if (rs->csv[g]) {
            int rc = tvds_csv_row(rs->csv[g], rs->vals[g], ctx);
            if (rc) return rc;
        }
    rs->last_row_t = channel_time(rs);
    return TVDS_OK;
}

static int flush_all(run_state *rs, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    for (int g = 0; g < TVDS_GROUP_COUNT; g++) {
        int r = tvds_csv_flush(rs->csv[g], ctx);
        if (r && !rc) rc = r;
    }
    return rc;
}

static void fill_result(const run_state *rs, tvds_run_result *r, int status)
{
    memset(r, 0, sizeof *r);
    r->status = status;
    r->steps = rs->d ? tvds_data_steps(rs->d) : 0;
    r->dt = rs->d ? tvds_data_dt(rs->d) : 0.0;
    r->t_reached = rs->d ? channel_time(rs) : 0.0;
    double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - rs->cpu0 - rs->cpu_out;
    r->cpu_seconds = cpu > 0 ? cpu : 0.0;
    r->us_per_step = r->steps > 0 ? 1e6 * r->cpu_seconds / (double)r->steps : 0.0;
    r->wall_seconds = clock_s(CLOCK_MONOTONIC) - rs->wall0;
    r->setup_cpu_seconds = rs->cpu_setup;
    r->rows = tvds_csv_rows(rs->csv[TVDS_GROUP_HISTORY]);
    r->out_dt = rs->out_dt;
}

static int write_summary(run_state *rs, const char *status, int code, const char *message,
                         tvds_ctx *ctx)
{
    tvds_run_result r;
    fill_result(rs, &r, code);
    tvds_summary_info s;
    memset(&s, 0, sizeof s);
    s.case_name = rs->m->name;
    s.method = tvds_method_name(rs->m->opt.method);
    s.status = status;
    s.status_code = tvds_status_name(code);
    s.message = message;
    s.steps = r.steps;
    s.dt = r.dt;
    s.t_end = rs->m->opt.t_end;
    s.t_reached = r.t_reached;
    s.cpu_seconds = r.cpu_seconds;
    s.us_per_step = r.us_per_step;
    s.wall_seconds = r.wall_seconds;
    s.setup_cpu_seconds = r.setup_cpu_seconds;
    if (rs->final && rs->open_names) {
        s.nopen = rs->nopen;
        s.open_contacts = rs->open_names;
    }
    if (rs->sub_names && rs->sub_paths) {
        s.nsub = rs->m->nsub;
        s.sub_names = rs->sub_names;
        s.sub_paths = rs->sub_paths;
    }
    if (rs->d) {
        int n = 0;
        const char *const *names = NULL;
        const double *vals = NULL;
        if (tvds_summary(rs->d, &n, &names, &vals) == TVDS_OK && n > 0) {
            s.nscalars = n;
            s.scalar_names = names;
            s.scalar_values = vals;
        }
    }
    return tvds_summary_write(rs->summary_path, &s, ctx);
}

/* Open the CSV of every group the engine publishes. */
static int open_groups(run_state *rs, tvds_ctx *ctx)
{
    for (int g = 0; g < TVDS_GROUP_COUNT; g++) {
        int n = 0;
        const char *const *names = NULL;
        const double *vals = NULL;
        if (tvds_channels(rs->d, g, &n, &names, &vals) != TVDS_OK || n <= 0) continue;
        char *path = path_in(rs->dir, group_files[g]);
        if (!path) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        int rc = tvds_csv_open(path, n, names, &rs->csv[g], ctx);
        tvds_free(path);
        if (rc) return rc;
        rs->vals[g] = vals;
    }
    return TVDS_OK;
}

int tvds_run(const tvds_model *m, const char *outdir, const tvds_run_opts *o, tvds_ctx *ctx)
{
    if (!m) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_run: NULL model");
    tvds_run_opts opts = o ? *o : tvds_run_opts_default();
    run_state rs;
    memset(&rs, 0, sizeof rs);
    rs.m = m;
    rs.wall0 = clock_s(CLOCK_MONOTONIC);
    rs.cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    int rc = TVDS_OK;

    if (outdir) {
        rs.dir = tvds_strdup(outdir);
    } else {
        const char *name = m->name ? m->name : "case";
        rs.dir = tvds_malloc(strlen(name) + 5);
        if (rs.dir) sprintf(rs.dir, "out/%s", name);
    }
    rs.summary_path = rs.dir ? path_in(rs.dir, "summary.json") : NULL;
    if (m->nsub > 0) {
        rs.sub_names = tvds_calloc((size_t)m->nsub, sizeof *rs.sub_names);
        rs.sub_paths = tvds_calloc((size_t)m->nsub, sizeof *rs.sub_paths);
        for (int i = 0; rs.sub_names && rs.sub_paths && i < m->nsub; i++) {
            rs.sub_names[i] = m->subs[i]->name ? m->subs[i]->name : "?";
            rs.sub_paths[i] = tvds_substructure_path(m, i);
        }
    }
    rs.open_names = tvds_calloc((size_t)m->ncontact + 1, sizeof *rs.open_names);
    if (!rs.dir || !rs.summary_path || !rs.open_names ||
        (m->nsub > 0 && (!rs.sub_names || !rs.sub_paths))) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = tvds_outdir_open(rs.dir, &rs.od, ctx))) goto done;
    if ((rc = tvds_outdir_clear(rs.od, owned_files, NOWNED, ctx))) goto done;

    tvds_ctx ectx; /* engine errors: kept apart so that the summary can quote them */
    tvds_ctx_init(&ectx);
    rc = tvds_data_create(m, &rs.d, &ectx);
    /* The stepping loop's CPU time starts here: setup (eigenbases, ...) is reported apart. */
    double cpu_now = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    rs.cpu_setup = cpu_now - rs.cpu0;
    rs.cpu0 = cpu_now;
    if (rc) {
        write_summary(&rs, tvds_run_status_word(rc), rc, ectx.msg, NULL);
        /* Input errors found by the engine (a step above the stable one, ...) name the case. */
        int input = tvds_status_exit_code(rc) == 2;
        const char *cp = m->case_path;
        if (input && cp && strncmp(ectx.msg, cp, strlen(cp)) != 0)
            tvds_error_at(ctx, rc, ectx.src_file, ectx.src_line, "%s: %s", cp, ectx.msg);
        else
            tvds_error_at(ctx, rc, ectx.src_file, ectx.src_line, "%s", ectx.msg);
        goto done;
    }
    /* Displacement probes are computed only for the rows written (write_rows). */
    tvds_set_record(rs.d, out_dt_steps(m, rs.d));
    if ((rc = open_groups(&rs, ctx))) goto failed;
    if ((rc = write_rows(&rs, ctx))) goto failed; /* the initial state */
    if ((rc = write_summary(&rs, "running", TVDS_OK, NULL, ctx))) goto failed;

    const double t_end = m->opt.t_end, dt = tvds_data_dt(rs.d);
    /* Aligned rows: out_dt becomes the nearest multiple k dt (k >= 1), so that the rows land
     * every k steps and every metric sees uniform samples. Unaligned (the default), the rows are
     * the first steps on or after the multiples of out_dt: the same rows when out_dt is already
     * a multiple of dt. */
    double out_dt = m->opt.out_dt;
    if (opts.align_out && out_dt > 0.0) {
        double k = floor(out_dt / dt + 0.5);
        out_dt = (k < 1.0 ? 1.0 : k) * dt;
    }
    rs.out_dt = out_dt;
    double next_sample = out_dt; /* t = 0 already written */
    double next_progress = rs.wall0 + opts.progress_interval;
    double next_summary = rs.wall0 + opts.summary_interval;
    /* Tolerance on times: a step that lands within a millionth of a step of a target counts. */
    const double eps = 1e-6 * dt;
    int step_rc = TVDS_OK;
    unsigned long nloop = 0;
    rs.cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID); /* the loop's CPU time starts at its first step */
    /* The run ends when the recorded state reaches t_end; the bound on the engine's own time
     * only guards against a channel time that does not advance. */
    while (channel_time(&rs) < t_end - eps && tvds_data_time(rs.d) < t_end + 2.0 * dt) {
        if (opts.stop && *opts.stop) {
            step_rc = TVDS_ERR_INTERRUPTED;
            int sig = (int)*opts.stop;
            const char *sn = sig == SIGTERM  ? " (SIGTERM)"
                             : sig == SIGHUP ? " (SIGHUP)"
                             : sig == SIGINT ? " (SIGINT)"
                                             : "";
            tvds_error_at(&ectx, TVDS_ERR_INTERRUPTED, __FILE__, __LINE__,
                          "interrupted at t = %.9g s after %ld steps%s", channel_time(&rs),
                          tvds_data_steps(rs.d), sn);
            break;
        }
        step_rc = tvds_step(m, rs.d, &ectx);
        if (step_rc < 0) break;
        step_rc = TVDS_OK;
        double t = channel_time(&rs);
        /* A new state only (the first step may publish the initial state again). */
        if (t > rs.last_row_t + eps && (out_dt <= 0.0 || t >= next_sample - eps)) {
            double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            rc = write_rows(&rs, ctx);
            if (out_dt > 0.0) next_sample = (floor((t + eps) / out_dt) + 1.0) * out_dt;
            rs.cpu_out += clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
            if (rc) goto failed;
        }
        /* The wall clock is read every 64 steps only: it would cost a fair part of a step of a
         * small model (~0.1 us). */
        if ((++nloop & 63) != 0 && opts.progress_interval > 0.0) continue;
        double now = clock_s(CLOCK_MONOTONIC);
        if (now >= next_progress && opts.progress) {
            double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            tvds_progress pg;
            pg.t = t;
            pg.t_end = t_end;
            pg.steps = tvds_data_steps(rs.d);
            pg.wall_s = now - rs.wall0;
            pg.steps_per_s = pg.wall_s > 0 ? (double)pg.steps / pg.wall_s : 0.0;
            opts.progress(opts.user, &pg);
            next_progress = now + opts.progress_interval;
            rs.cpu_out += clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        }
        if (now >= next_summary) {
            double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            rc = flush_all(&rs, ctx);
            if (!rc) rc = write_summary(&rs, "running", TVDS_OK, NULL, ctx);
            next_summary = now + opts.summary_interval;
            rs.cpu_out += clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
            if (rc) goto failed;
        }
    }
    /* The last state reached is always in the files (end of run, divergence or interrupt). */
    if (channel_time(&rs) > rs.last_row_t + eps && (rc = write_rows(&rs, ctx))) goto failed;
    if ((rc = flush_all(&rs, ctx))) goto failed;
    long nonconv = tvds_data_nonconverged(rs.d);
    if (!step_rc && nonconv > 0) {
        /* Reached t_end, but some steps' contact solve stopped before its tolerance: the
         * answer is not trusted silently (summary status "warning", return value > 0). */
        step_rc = TVDS_WARN_NOT_CONVERGED;
        tvds_error_at(&ectx, step_rc, __FILE__, __LINE__,
                      "%ld of %ld steps stopped before the contact solve converged (FiLm "
                      "film_maxit = %d, film_tol = %g; see \"film non-converged steps\" and "
                      "\"active set non-converged steps\")",
                      nonconv, tvds_data_steps(rs.d), m->opt.film_maxit, m->opt.film_tol);
    }
    /* A contact none of whose points closed in the whole run (a gap never reached, a face set
     * the slave passed through) does nothing: the run's answer holds, but it is said (summary
     * status "warning", "contacts_never_closed", return value > 0). */
    for (int c = 0; c < m->ncontact; c++)
        if (tvds_contact_closed_steps(rs.d, c) == 0)
            rs.open_names[rs.nopen++] = m->contacts[c].name ? m->contacts[c].name : "?";
    if (!step_rc && rs.nopen > 0) {
        step_rc = TVDS_WARN_CONTACT_OPEN;
        tvds_error_at(&ectx, step_rc, __FILE__, __LINE__,
                      "contact%s '%s'%s never closed during the run (t = 0 to %.9g s, %ld steps): "
                      "its gap stayed open (see \"contacts_never_closed\" in summary.json)",
                      rs.nopen > 1 ? "s" : "", rs.open_names[0],
                      rs.nopen > 2 ? " and others" : (rs.nopen == 2 ? " and one other" : ""),
                      channel_time(&rs), tvds_data_steps(rs.d));
    }
    rs.final = 1;
    rc = write_summary(&rs, tvds_run_status_word(step_rc), step_rc, step_rc ? ectx.msg : NULL, ctx);
    if (rc) goto failed;
    if (step_rc) {
        tvds_error_at(ctx, step_rc, ectx.src_file, ectx.src_line, "%s", ectx.msg);
        rc = step_rc;
    }
    goto done;

failed:
    /* An output could not be written (disk full, I/O error): the CSVs end at their last whole
     * row (tvds_csv_flush truncates a cut one); the space reserve is given back so that
     * summary.json can say why the run stopped. */
    for (int g = 0; g < TVDS_GROUP_COUNT; g++)
        tvds_csv_close(&rs.csv[g], NULL);
    tvds_outdir_release_reserve(rs.od);
    {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s; the CSV files end at their last whole row",
                 ctx && ctx->msg[0] ? ctx->msg : tvds_strerror(rc));
        tvds_ctx sctx;
        tvds_ctx_init(&sctx);
        /* Even the summary cannot be written: the error says so, not only the CSV's. */
        if (write_summary(&rs, tvds_run_status_word(rc), rc, msg, &sctx) != TVDS_OK && ctx)
            tvds_error_at(ctx, rc, ctx->src_file, ctx->src_line,
                          "%.500s; summary.json not written either: %.500s", msg, sctx.msg);
    }

done:
    if (opts.result) fill_result(&rs, opts.result, rc);
    for (int g = 0; g < TVDS_GROUP_COUNT; g++) {
        int r = tvds_csv_close(&rs.csv[g], ctx);
        if (r && !rc) rc = r;
    }
    tvds_data_free(&rs.d);
    tvds_outdir_close(&rs.od);
    tvds_free(rs.dir);
    tvds_free(rs.summary_path);
    tvds_free(rs.sub_names);
    tvds_free(rs.sub_paths);
    tvds_free(rs.open_names);
    return rc;
}

int tvds_run_record_failure(const char *outdir, const char *case_name, int code,
                            const char *message, tvds_ctx *ctx)
{
    if (!outdir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_run_record_failure: NULL dir");
    tvds_outdir *od = NULL;
    int rc = tvds_outdir_open(outdir, &od, ctx);
    if (!rc) rc = tvds_outdir_clear(od, owned_files, NOWNED, ctx);
    char *path = rc ? NULL : path_in(outdir, "summary.json");
    if (!rc && !path) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    if (!rc) {
        tvds_summary_info s;
        memset(&s, 0, sizeof s);
        s.case_name = case_name;
        s.status = tvds_run_status_word(code);
        s.status_code = tvds_status_name(code);
        s.message = message;
        s.dt = s.t_end = s.t_reached = NAN;
        rc = tvds_summary_write(path, &s, ctx);
    }
    tvds_free(path);
    tvds_outdir_close(&od);
    return rc;
}
