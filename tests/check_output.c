/* check_output.c — output files: CSV round trip, whole lines after an abrupt stop, summary.json
 * that parses back, directories. */
#include <check.h>
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tvds/tvds_case.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_run.h"
#include "tvds_test.h"

static char tmpdir[256];

static void make_tmpdir(void)
{
    tvds_test_mkdtemp(tmpdir, sizeof tmpdir, "/tmp/tvds_check_output_");
}

static void rm_tree(const char *dir)
{
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
}

/* Check that text is whole CSV lines of ncol numbers after the header; returns the row count,
 * -1 when some line is broken. Values go to out (row-major) when out is not NULL. */
static long parse_csv_rows(const char *text, int ncol, double *out, long maxrows)
{
    const char *p = strchr(text, '\n');
    if (!p) return -1;
    p++;
    long rows = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        if (!nl) return -1; /* a line without its end: broken */
        for (int c = 0; c < ncol; c++) {
            char *end;
            double v = strtod(p, &end);
            if (end == p) return -1;
            if (out && rows < maxrows) out[rows * ncol + c] = v;
            p = end;
            if (c < ncol - 1) {
                if (*p != ',') return -1;
                p++;
            }
        }
        if (p != nl) return -1;
        p = nl + 1;
        rows++;
    }
    return rows;
}

START_TEST(test_format_double)
{
    char b[32];
    tvds_format_double(0.1, b);
    ck_assert_str_eq(b, "0.1");
    tvds_format_double(-2.5e-7, b);
    ck_assert_str_eq(b, "-2.5e-07");
    tvds_format_double(NAN, b);
    ck_assert_str_eq(b, "nan");
    tvds_format_double(-INFINITY, b);
    ck_assert_str_eq(b, "-inf");
    const double vals[] = {1.0 / 3.0, 2.0 / 3.0, 1e-300,    5e-324,
                           DBL_MAX,   -0.0,      0.1 + 0.2, 6.010407640085654e-4};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        int n = tvds_format_double(vals[i], b);
        ck_assert_int_le(n, 24);
        double back = strtod(b, NULL);
        ck_assert_msg(memcmp(&back, &vals[i], sizeof back) == 0, "%s does not round-trip", b);
    }
}
END_TEST

START_TEST(test_csv_round_trip)
{
    make_tmpdir();
    char path[400];
    snprintf(path, sizeof path, "%s/h.csv", tmpdir);
    const char *names[3] = {"t [s]", "tip_uy [m]", "odd, \"name\""};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_csv *w = NULL;
    ck_assert_int_eq(tvds_csv_open(path, 3, names, &w, &ctx), TVDS_OK);
    /* the header is in the file at once */
    char *text = tvds_test_slurp(path, NULL);
    ck_assert_str_eq(text, "t [s],tip_uy [m],\"odd, \"\"name\"\"\"\n");
    free(text);
    enum { NROW = 5000 };
    double *rows = malloc(sizeof(double) * 3 * NROW);
    for (int i = 0; i < NROW; i++) {
        rows[3 * i] = i * 1e-5;
        rows[3 * i + 1] = sin(0.37 * i) * 1e-3 / 3.0;
        rows[3 * i + 2] = i % 7 == 0 ? -0.0 : exp(-i * 0.01) * 1e300;
        ck_assert_int_eq(tvds_csv_row(w, &rows[3 * i], &ctx), TVDS_OK);
    }
    ck_assert_int_eq(tvds_csv_rows(w), NROW);
    ck_assert_int_eq(tvds_csv_close(&w, &ctx), TVDS_OK);
    ck_assert_ptr_null(w);
    text = tvds_test_slurp(path, NULL);
    double *back = malloc(sizeof(double) * 3 * NROW);
    ck_assert_int_eq(parse_csv_rows(text, 3, back, NROW), NROW);
    ck_assert_int_eq(memcmp(rows, back, sizeof(double) * 3 * NROW), 0); /* bit for bit */
    free(text);
    free(rows);
    free(back);
    tvds_csv_close(&w, &ctx); /* NULL is fine */
    rm_tree(tmpdir);
}
END_TEST

/* A writer killed at any moment leaves only whole lines: SIGKILL in the middle of writing. */
START_TEST(test_csv_abrupt_stop)
{
    make_tmpdir();
    char path[400], spath[400];
    snprintf(path, sizeof path, "%s/h.csv", tmpdir);
    snprintf(spath, sizeof spath, "%s/summary.json", tmpdir);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        const char *names[4] = {"t [s]", "a", "b", "c"};
        tvds_csv *w = NULL;
        if (tvds_csv_open(path, 4, names, &w, NULL)) _exit(1);
        tvds_summary_info s;
        memset(&s, 0, sizeof s);
        s.case_name = "abrupt";
        s.status = "running";
        for (long i = 0;; i++) {
            double v[4] = {i * 1e-6, 1.0 / (double)(i + 3), -(double)i * 1e-9, sqrt((double)i)};
            if (tvds_csv_row(w, v, NULL)) _exit(1);
            if (i % 4096 == 0) {
                tvds_csv_flush(w, NULL);
                s.steps = i;
                tvds_summary_write(spath, &s, NULL);
            }
            if (i == 100000) {
                char c = 1;
                if (write(fds[1], &c, 1) != 1) _exit(1); /* tell the parent: kill me now */
            }
        }
    }
    close(fds[1]);
    char c;
    ck_assert_int_eq(read(fds[0], &c, 1), 1);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    close(fds[0]);
    ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    long len;
    char *text = tvds_test_slurp(path, &len);
    ck_assert_ptr_nonnull(text);
    /* SIGKILL can stop the write of a block between two pages (Linux checks for a fatal signal
     * before copying each page): whole rows up to the last newline, then at most a part of a
     * block, which readers drop (docs/reliability.md). */
    char *last = strrchr(text, '\n');
    ck_assert_ptr_nonnull(last);
    ck_assert_msg(text + len - (last + 1) < 65536, "%ld bytes after the last newline",
                  (long)(text + len - (last + 1)));
    last[1] = '\0';
    long rows = parse_csv_rows(text, 4, NULL, 0);
    ck_assert_msg(rows >= 100000 - 4096, "rows %ld: file not valid or too short", rows);
    free(text);
    /* the summary is complete JSON of the last periodic write */
    text = tvds_test_slurp(spath, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "\"status\": \"running\""));
    size_t n = strlen(text);
    ck_assert(n > 2 && text[n - 2] == '}' && text[n - 1] == '\n');
    free(text);
    rm_tree(tmpdir);
}
END_TEST

/* ---- A minimal JSON reader: validates the whole text and finds top-level values ------------- */

typedef struct jp {
    const char *p;
} jp;

static void jws(jp *j)
{
    while (isspace((unsigned char)*j->p))
        j->p++;
}

static int jvalue(jp *j);

static int jstring(jp *j, char *out, size_t size)
{
    if (*j->p != '"') return 0;
    j->p++;
    size_t n = 0;
    while (*j->p && *j->p != '"') {
        char ch = *j->p++;
        if ((unsigned char)ch < 0x20) return 0;
        if (ch == '\\') {
            char e = *j->p++;
            if (e == 'u') {
                for (int k = 0; k < 4; k++)
                    if (!isxdigit((unsigned char)*j->p++)) return 0;
                ch = '?';
            } else if (strchr("\"\\/bfnrt", e)) {
                ch = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            } else {
                return 0;
            }
        }
        if (out && n + 1 < size) out[n++] = ch;
    }
    if (out) out[n] = '\0';
    if (*j->p != '"') return 0;
    j->p++;
    return 1;
}

static int jvalue(jp *j)
{
    jws(j);
    if (*j->p == '{') {
        j->p++;
        jws(j);
        if (*j->p == '}') return j->p++, 1;
        for (;;) {
            jws(j);
            if (!jstring(j, NULL, 0)) return 0;
            jws(j);
            if (*j->p++ != ':') return 0;
            if (!jvalue(j)) return 0;
            jws(j);
            if (*j->p == ',') {
                j->p++;
                continue;
            }
            if (*j->p == '}') return j->p++, 1;
            return 0;
        }
    }
    if (*j->p == '[') {
        j->p++;
        jws(j);
        if (*j->p == ']') return j->p++, 1;
        for (;;) {
            if (!jvalue(j)) return 0;
            jws(j);
            if (*j->p == ',') {
                j->p++;
                continue;
            }
            if (*j->p == ']') return j->p++, 1;
            return 0;
        }
    }
    if (*j->p == '"') return jstring(j, NULL, 0);
    if (!strncmp(j->p, "null", 4)) return j->p += 4, 1;
    if (!strncmp(j->p, "true", 4)) return j->p += 4, 1;
    if (!strncmp(j->p, "false", 5)) return j->p += 5, 1;
    /* JSON number: -?digits[.digits][e[+-]digits] */
    const char *s = j->p;
    if (*j->p == '-') j->p++;
    if (!isdigit((unsigned char)*j->p)) return 0;
    while (isdigit((unsigned char)*j->p))
        j->p++;
    if (*j->p == '.') {
        j->p++;
        if (!isdigit((unsigned char)*j->p)) return 0;
        while (isdigit((unsigned char)*j->p))
            j->p++;
    }
    if (*j->p == 'e' || *j->p == 'E') {
        j->p++;
        if (*j->p == '+' || *j->p == '-') j->p++;
        if (!isdigit((unsigned char)*j->p)) return 0;
        while (isdigit((unsigned char)*j->p))
            j->p++;
    }
    return j->p > s;
}

static int json_valid(const char *text)
{
    jp j = {text};
    if (!jvalue(&j)) return 0;
    jws(&j);
    return *j.p == '\0';
}

/* Text of the value after "key": (first occurrence). */
static const char *json_find(const char *text, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(text, pat);
    return p ? p + strlen(pat) : NULL;
}

START_TEST(test_summary_json)
{
    make_tmpdir();
    char path[400], tmp[420];
    snprintf(path, sizeof path, "%s/summary.json", tmpdir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    const char *names[4] = {"energy_balance_error [J]", "wear_power \"tip\" [W]", "nan_value",
                            "film_iterations"};
    const double vals[4] = {1.0 / 3.0, 15.26709959, NAN, 12};
    tvds_summary_info s;
    memset(&s, 0, sizeof s);
    s.case_name = "sdnd104";
    s.method = "subs-b";
    s.status = "diverged";
    s.status_code = "TVDS_ERR_DIVERGED";
    s.message = "t = 0.1 s: non-finite \"state\"\tat step 3\n";
    s.steps = 1234567;
    s.dt = 1e-4;
    s.t_end = 12;
    s.t_reached = 0.1;
    s.cpu_seconds = 0.5;
    s.us_per_step = 0.5e6 / 1234567.0;
    s.wall_seconds = 0.75;
    s.nscalars = 4;
    s.scalar_names = names;
    s.scalar_values = vals;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_summary_write(path, &s, &ctx), TVDS_OK);
    ck_assert_int_ne(access(tmp, F_OK), 0); /* renamed, not left behind */
    char *text = tvds_test_slurp(path, NULL);
    ck_assert_msg(json_valid(text), "invalid JSON:\n%s", text);
    ck_assert_int_eq(strtol(json_find(text, "steps"), NULL, 10), 1234567);
    ck_assert(strtod(json_find(text, "us_per_step"), NULL) == s.us_per_step);
    ck_assert(strtod(json_find(text, "energy_balance_error [J]"), NULL) == 1.0 / 3.0);
    ck_assert_int_eq(strncmp(json_find(text, "nan_value"), "null", 4), 0);
    jp j = {json_find(text, "message")};
    char msg[256];
    ck_assert(jstring(&j, msg, sizeof msg));
    ck_assert_str_eq(msg, s.message);
    free(text);
    /* Replacing keeps a valid file; an empty summary is valid too. */
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tvds_summary_write(path, &s, &ctx), TVDS_OK);
    text = tvds_test_slurp(path, NULL);
    ck_assert_msg(json_valid(text), "invalid JSON:\n%s", text);
    ck_assert_int_eq(strncmp(json_find(text, "case"), "null", 4), 0);
    free(text);
    /* unwritable place: an error, not a crash */
    snprintf(path, sizeof path, "%s/no/such/dir/summary.json", tmpdir);
    ck_assert_int_eq(tvds_summary_write(path, &s, &ctx), TVDS_ERR_IO);
    rm_tree(tmpdir);
}
END_TEST

START_TEST(test_mkdir_p)
{
    make_tmpdir();
    char path[400];
    snprintf(path, sizeof path, "%s/a/b/c", tmpdir);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_mkdir_p(path, &ctx), TVDS_OK);
    struct stat st;
    ck_assert(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    ck_assert_int_eq(tvds_mkdir_p(path, &ctx), TVDS_OK); /* existing: fine */
    char file[420];
    snprintf(file, sizeof file, "%s/f", path);
    FILE *f = fopen(file, "w");
    fclose(f);
    snprintf(path, sizeof path, "%s/a/b/c/f/g", tmpdir);
    ck_assert_int_eq(tvds_mkdir_p(path, &ctx), TVDS_ERR_IO);
    rm_tree(tmpdir);
}
END_TEST

/* ---- The run driver on a real model (the one-node oscillator of tests/data/case) ------------- */

static tvds_model *oscillator(const char *const *ov, int nov)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read("tests/data/case/oscillator.ini", ov, nov, &m, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    return m;
}

/* Times of the rows of a CSV file (column 0); returns the count, -1 when a line is broken. */
static long csv_times(const char *path, int ncol, double *t, long max)
{
    char *text = tvds_test_slurp(path, NULL);
    ck_assert_ptr_nonnull(text);
    double *all = malloc(sizeof(double) * (size_t)ncol * (size_t)max);
    long n = parse_csv_rows(text, ncol, all, max);
    for (long i = 0; i < n && i < max; i++)
        t[i] = all[i * ncol];
    free(all);
    free(text);
    return n;
}

START_TEST(test_run_sampling)
{
    make_tmpdir();
    const char *ov[] = {"run.out_dt=2.5e-4"};
    tvds_model *m = oscillator(ov, 1);
    tvds_run_result res;
    tvds_run_opts o = tvds_run_opts_default();
    o.result = &res;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc = tvds_run(m, tmpdir, &o, &ctx);
    if (rc == TVDS_ERR_INTERNAL && strstr(ctx.msg, "engine not built yet")) { /* placeholder */
        tvds_model_free(&m);
        rm_tree(tmpdir);
        return;
    }
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(res.status, TVDS_OK);
    ck_assert(res.dt == 1e-4 && res.cpu_seconds >= 0 && res.wall_seconds > 0);
    ck_assert(fabs(res.t_reached - 0.05) < 1e-9);
    char path[400];
    snprintf(path, sizeof path, "%s/history.csv", tmpdir);
    double t[400];
    long n = csv_times(path, 2, t, 400);
    ck_assert_int_eq(n, res.rows);
    /* t = 0, then the first step on or after each multiple of 2.5e-4 s (steps of 1e-4 s):
     * 3e-4, 5e-4, 8e-4, 1e-3, ... and the last state at t_end. */
    ck_assert(t[0] == 0.0);
    const double out_dt = 2.5e-4, dt = 1e-4;
    for (long k = 1; k < n; k++) {
        double target = k * out_dt;
        if (target > 0.05) target = 0.05;
        ck_assert_msg(t[k] >= target - 1e-9 && t[k] < target + dt - 1e-9,
                      "row %ld at t = %.17g for target %g", k, t[k], target);
    }
    ck_assert_int_eq(n, 201);
    ck_assert(fabs(t[n - 1] - 0.05) < 1e-9);
    snprintf(path, sizeof path, "%s/summary.json", tmpdir);
    char *js = tvds_test_slurp(path, NULL);
    ck_assert_msg(json_valid(js), "%s", js);
    ck_assert_ptr_nonnull(strstr(js, "\"status\": \"ok\""));
    free(js);
    tvds_model_free(&m);
    rm_tree(tmpdir);
}
END_TEST

static void stop_at_20ms(void *user, const tvds_progress *p)
{
    if (p->t >= 0.02) *(volatile sig_atomic_t *)user = 1;
}

START_TEST(test_run_stop_flag)
{
    make_tmpdir();
    tvds_model *m = oscillator(NULL, 0);
    volatile sig_atomic_t stop = 0;
    tvds_run_opts o = tvds_run_opts_default();
    o.progress = stop_at_20ms;
    o.user = (void *)&stop;
    o.progress_interval = 0.0; /* every step */
    o.stop = &stop;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc = tvds_run(m, tmpdir, &o, &ctx);
    if (rc == TVDS_ERR_INTERNAL && strstr(ctx.msg, "engine not built yet")) {
        tvds_model_free(&m);
        rm_tree(tmpdir);
        return;
    }
    ck_assert_int_eq(rc, TVDS_ERR_INTERRUPTED);
    ck_assert_msg(strncmp(ctx.msg, "interrupted at t = 0.02", 23) == 0, "%s", ctx.msg);
    char path[400];
    snprintf(path, sizeof path, "%s/history.csv", tmpdir);
    double t[100];
    long n = csv_times(path, 2, t, 100);
    ck_assert_int_eq(n, 21); /* 0, 1e-3, ..., 0.02: whole lines, nothing after the stop */
    ck_assert(fabs(t[n - 1] - 0.02) < 1e-9);
    snprintf(path, sizeof path, "%s/summary.json", tmpdir);
    char *js = tvds_test_slurp(path, NULL);
    ck_assert_msg(json_valid(js), "%s", js);
    ck_assert_ptr_nonnull(strstr(js, "\"status\": \"interrupted\""));
    ck_assert_ptr_nonnull(strstr(js, "\"status_code\": \"TVDS_ERR_INTERRUPTED\""));
    free(js);
    tvds_model_free(&m);
    rm_tree(tmpdir);
}
END_TEST

/* A step above the stability limit (forced) diverges: the files up to the last valid state
 * stay valid, summary.json says "diverged". */
START_TEST(test_run_diverged)
{
    make_tmpdir();
    const char *ov[] = {"run.dt=0.021", "run.allow_unstable_dt=yes", "run.t_end=100",
                        "run.out_dt=0"};
    tvds_model *m = oscillator(ov, 4);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc = tvds_run(m, tmpdir, NULL, &ctx);
    if (rc == TVDS_ERR_INTERNAL && strstr(ctx.msg, "engine not built yet")) {
        tvds_model_free(&m);
        rm_tree(tmpdir);
        return;
    }
    ck_assert_msg(rc == TVDS_ERR_DIVERGED, "rc %d: %s", rc, ctx.msg);
    ck_assert_int_eq(tvds_status_exit_code(rc), 3);
    char path[400];
    snprintf(path, sizeof path, "%s/history.csv", tmpdir);
    double t[10000];
    long n = csv_times(path, 2, t, 10000);
    ck_assert_int_gt(n, 2);
    for (long k = 1; k < n; k++)
        ck_assert(t[k] > t[k - 1]);
    snprintf(path, sizeof path, "%s/energy.csv", tmpdir);
    char *text = tvds_test_slurp(path, NULL);
    int ncol = 1;
    for (const char *q = text; *q && *q != '\n'; q++)
        ncol += *q == ',';
    ck_assert_int_eq(parse_csv_rows(text, ncol, NULL, 0), n);
    ck_assert(text[strlen(text) - 1] == '\n');
    free(text);
    snprintf(path, sizeof path, "%s/summary.json", tmpdir);
    char *js = tvds_test_slurp(path, NULL);
    ck_assert_msg(json_valid(js), "%s", js);
    ck_assert_ptr_nonnull(strstr(js, "\"status\": \"diverged\""));
    free(js);
    tvds_model_free(&m);
    rm_tree(tmpdir);
}
END_TEST

Suite *output_suite(void)
{
    Suite *s = suite_create("output");
    TCase *tc = tcase_create("output");
    tcase_add_test(tc, test_format_double);
    tcase_add_test(tc, test_csv_round_trip);
    tcase_add_test(tc, test_csv_abrupt_stop);
    tcase_add_test(tc, test_summary_json);
    tcase_add_test(tc, test_mkdir_p);
    tcase_add_test(tc, test_run_sampling);
    tcase_add_test(tc, test_run_stop_flag);
    tcase_add_test(tc, test_run_diverged);
    tcase_set_timeout(tc, 10);
    suite_add_tcase(s, tc);
    return s;
}
