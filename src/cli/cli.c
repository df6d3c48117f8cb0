/* cli.c — helpers shared by the `tvds` subcommands: error lines, option values, strict numbers,
 * --set lists, reading a case, and the progress line of runs. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tvds/tvds_case.h"

int tvds_cli_usage_error(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tvds: %s\n", buf);
    return 2;
}

int tvds_cli_report(int status, const tvds_ctx *ctx)
{
    const char *msg = ctx && ctx->msg[0] ? ctx->msg : tvds_strerror(status);
    /* One line: cut at the first newline should a message ever contain one. */
    int n = (int)strcspn(msg, "\n");
    fprintf(stderr, "tvds: %.*s\n", n, msg);
    return tvds_status_exit_code(status);
}

int tvds_cli_sets_add(tvds_cli_sets *s, const char *item)
{
    if (s->n == s->cap) {
        int nc = s->cap ? 2 * s->cap : 8;
        const char **nv = realloc(s->v, (size_t)nc * sizeof *nv);
        if (!nv) return -1;
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = item;
    return 0;
}

void tvds_cli_sets_free(tvds_cli_sets *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

int tvds_cli_opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt,
                       const char **value)
{
    const char *a = argv[*i];
    size_t nl = strlen(lng);
    if (strncmp(a, lng, nl) == 0 && a[nl] == '=') {
        *value = a + nl + 1;
        return 1;
    }
    if (strcmp(a, lng) != 0 && !(shrt && strcmp(a, shrt) == 0)) return 0;
    if (*i + 1 >= argc) {
        tvds_cli_usage_error("%s: option %s needs a value", argv[0], a);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int tvds_cli_opt_set(int argc, char **argv, int *i, tvds_cli_sets *sets)
{
    const char *val;
    int r = tvds_cli_opt_value(argc, argv, i, "--set", NULL, &val);
    if (r <= 0) return r < 0 ? -2 : 0;
    if (tvds_cli_sets_add(sets, val)) return -tvds_cli_report(TVDS_ERR_NOMEM, NULL);
    return 1;
}

int tvds_cli_case_arg(const char *cmd, const char *a, const char **case_path)
{
    if (a[0] == '-' && a[1] != '\0')
        return tvds_cli_usage_error("%s: unknown option '%s' (see 'tvds %s --help')", cmd, a, cmd);
    if (*case_path)
        return tvds_cli_usage_error("%s: more than one case file ('%s', '%s')", cmd, *case_path, a);
    *case_path = a;
    return 0;
}

int tvds_cli_parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(x)) return -1;
    *v = x;
    return 0;
}

int tvds_cli_parse_int(const char *s, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || x < INT_MIN || x > INT_MAX) return -1;
    *v = (int)x;
    return 0;
}

int tvds_cli_read_case(const char *path, tvds_cli_sets *sets, tvds_model **m, tvds_ctx *ctx)
{
    tvds_ctx_init(ctx);
    int rc = tvds_case_read(path, sets->v, sets->n, m, ctx);
    tvds_cli_sets_free(sets);
    return rc ? tvds_cli_report(rc, ctx) : 0;
}

/* ---- Progress line ------------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tvds_cli_progress_init(tvds_cli_progress *p, int quiet, const char *prefix)
{
    memset(p, 0, sizeof *p);
    p->quiet = quiet;
    p->tty = !quiet && isatty(STDERR_FILENO);
    p->last = -1e300;
    p->start = now_s();
    p->prefix = prefix;
}

void tvds_cli_progress_show(void *user, const tvds_progress *pr)
{
    tvds_cli_progress *p = user;
    if (!p->tty || pr->wall_s < 2.0) return;
    double t = now_s();
    if (t - p->last < 0.25) return; /* at most 4 updates a second */
    p->last = t;
    double frac = pr->t_end > 0 ? pr->t / pr->t_end : 0.0;
    double left = frac > 0 ? pr->wall_s * (1.0 - frac) / frac : 0.0;
    fprintf(stderr, "\r  %5.1f%%  t = %-11.6g s  %10.0f steps/s  %6.0f s left   ", 100.0 * frac,
            pr->t, pr->steps_per_s, left);
    fflush(stderr);
    p->shown = 1;
}

void tvds_cli_progress_count(tvds_cli_progress *p, const char *what, long done, long total)
{
    if (p->quiet) return;
    double t = now_s(), el = t - p->start;
    if (el < 2.0 || t - p->last < (p->tty ? 0.25 : 10.0)) return;
    p->last = t;
    long mine = done - p->base;
    double rate = el > 0 && mine > 0 ? (double)mine / el : 0.0;
    char left[32] = "?";
    if (rate > 0) snprintf(left, sizeof left, "%.0f s", (double)(total - done) / rate);
    if (p->tty) {
        fprintf(stderr, "\r  %s: %ld/%ld %s  %8.3g /s  %s left   ", p->prefix, done, total, what,
                rate, left);
        p->shown = 1;
    } else {
        fprintf(stderr, "%s: %ld/%ld %s, %.3g /s, %s left\n", p->prefix, done, total, what, rate,
                left);
    }
    fflush(stderr);
}

void tvds_cli_progress_positions(void *user, int done, int total)
{
    tvds_cli_progress_count(user, "positions", done, total);
}

void tvds_cli_progress_clear(tvds_cli_progress *p)
{
    if (p->shown) {
        fprintf(stderr, "\r%72s\r", "");
        fflush(stderr);
    }
    p->shown = 0;
}

/* ---- Stop signals ------------------------------------------------------------------------- */

static volatile sig_atomic_t stop_flag = 0;

/* SIGINT (Ctrl-C), SIGTERM (kill, job schedulers, systemd) and SIGHUP (closed terminal or ssh
 * session) all ask for the same clean stop; the flag holds the signal's number so that the
 * summary can name it. */
static void on_stop_signal(int sig)
{
    stop_flag = sig;
}

volatile sig_atomic_t *tvds_cli_stop_flag(void)
{
    return &stop_flag;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP ((int)(sizeof stop_signals / sizeof stop_signals[0]))

void tvds_cli_sigint(int install)
{
    static struct sigaction old[NSTOP];
    for (int i = 0; i < NSTOP; i++) {
        if (install) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_stop_signal;
            sigemptyset(&sa.sa_mask);
            sa.sa_flags = SA_RESETHAND; /* a second signal kills at once */
            sigaction(stop_signals[i], &sa, &old[i]);
        } else {
            sigaction(stop_signals[i], &old[i], NULL);
        }
    }
}

const char *tvds_cli_signal_name(int sig)
{
    return sig == SIGINT    ? "SIGINT"
           : sig == SIGTERM ? "SIGTERM"
           : sig == SIGHUP  ? "SIGHUP"
                            : "signal";
}

/* ---- Option tables -------------------------------------------------------------------------- */

int tvds_cli_opt_table(int argc, char **argv, int *i, const tvds_cli_opt *t)
{
    const char *a = argv[*i];
    for (; t->lng; t++) {
        if (t->str) {
            int r = tvds_cli_opt_value(argc, argv, i, t->lng, t->shrt, t->str);
            if (r) return r;
        } else if (!strcmp(a, t->lng) || (t->shrt && !strcmp(a, t->shrt))) {
            *t->flag = t->set_to;
            return 1;
        }
    }
    return 0;
}

int tvds_cli_is_help(const char *a)
{
    return !strcmp(a, "-h") || !strcmp(a, "--help");
}

int tvds_cli_case_or_set(int argc, char **argv, int *i, const char *cmd, tvds_cli_sets *sets,
                         const char **case_path)
{
    int r = tvds_cli_opt_set(argc, argv, i, sets);
    if (r) return r < 0 ? -r : 0;
    return tvds_cli_case_arg(cmd, argv[*i], case_path);
}
