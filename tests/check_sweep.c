/* check_sweep.c — parameter sweeps: grid parsing, determinism over threads and shares (the
 * MPI split), CSV output, and the stability verdict on the SDND100 friction shoe. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tvds/tvds_sweep.h"
#include "tvds_test.h"

#define SHOE_CASE "models/shoe/sdnd100a_lagrange.ini"
#ifndef TVDS_BIN
#define TVDS_BIN "build/bin/tvds"
#endif

START_TEST(test_axis_parse)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_sweep_axis a;
    ck_assert_int_eq(tvds_sweep_axis_parse("contact.tip.mu=0.1:0.5:5", &a, &ctx), TVDS_OK);
    ck_assert_str_eq(a.key, "contact.tip.mu");
    ck_assert_double_eq(a.a, 0.1);
    ck_assert_double_eq(a.b, 0.5);
    ck_assert_int_eq(a.n, 5);
    ck_assert_int_eq(tvds_sweep_axis_parse("run.dt=1e-5", &a, &ctx), TVDS_OK);
    ck_assert_int_eq(a.n, 1);
    ck_assert_double_eq(a.a, 1e-5);
    static const char *const bad[] = {"mu=0.1:0.5:5",
                                      "run.t_end",
                                      "run.t_end=0.1:0.2",
                                      "run.t_end=0.1:0.2:0",
                                      "run.t_end=a:0.2:3",
                                      "run.t_end=0.1:0.2:3x",
                                      "=1:2:3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tvds_ctx_init(&ctx);
        ck_assert_msg(tvds_sweep_axis_parse(bad[i], &a, &ctx) == TVDS_ERR_INVALID, "%s", bad[i]);
        ck_assert(strstr(ctx.msg, "--grid") != NULL);
    }
    tvds_sweep_axis g[2] = {a, a};
    g[0].n = 3;
    g[1].n = 4;
    ck_assert_int_eq(tvds_sweep_count(g, 2), 12);
    g[1].n = 0;
    ck_assert_int_eq(tvds_sweep_count(g, 2), -1);
}
END_TEST

static void shoe_grid(tvds_sweep_axis ax[2])
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_sweep_axis_parse("contact.base.mu=0.05:0.15:3", &ax[0], &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_sweep_axis_parse("run.dt=1e-5:2e-5:2", &ax[1], &ctx), TVDS_OK);
}

static int same_row(const tvds_sweep_row *a, const tvds_sweep_row *b)
{
    /* Bitwise equal results (NaN equal to NaN); cpu_seconds is a measurement, not a result. */
    const double x[] = {a->param[0], a->param[1], a->rms, a->peak, a->f_dom, a->growth};
    const double y[] = {b->param[0], b->param[1], b->rms, b->peak, b->f_dom, b->growth};
    if (a->index != b->index || a->status != b->status || a->unstable != b->unstable) return 0;
    for (int i = 0; i < 6; i++)
        if (!(x[i] == y[i] || (isnan(x[i]) && isnan(y[i])))) return 0;
    return 1;
}

/* 1 thread, 2 threads, and two shares of stride 2 (what two MPI ranks run) give the same rows;
 * the CSV files of 1 and 2 threads are identical but for the cpu_s column. */
START_TEST(test_threads_and_shares_agree)
{
    tvds_sweep_axis ax[2];
    shoe_grid(ax);
    const char *sets[] = {"run.t_end=0.05"};
    tvds_sweep_opts o = tvds_sweep_opts_default();
    o.sets = sets;
    o.nsets = 1;
    tvds_sweep_row r1[6], r2[6], s0[3], s1[3];
    long n1 = 0, n2 = 0, m0 = 0, m1 = 0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    o.nthreads = 1;
    ck_assert_msg(tvds_sweep_run(SHOE_CASE, ax, 2, &o, 0, 1, r1, &n1, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    o.nthreads = 2;
    ck_assert_int_eq(tvds_sweep_run(SHOE_CASE, ax, 2, &o, 0, 1, r2, &n2, &ctx), TVDS_OK);
    o.nthreads = 1;
    ck_assert_int_eq(tvds_sweep_run(SHOE_CASE, ax, 2, &o, 0, 2, s0, &m0, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_sweep_run(SHOE_CASE, ax, 2, &o, 1, 2, s1, &m1, &ctx), TVDS_OK);
    ck_assert_int_eq(n1, 6);
    ck_assert_int_eq(n2, 6);
    ck_assert_int_eq(m0, 3);
    ck_assert_int_eq(m1, 3);
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(r1[i].index, i);
        ck_assert_msg(same_row(&r1[i], &r2[i]), "run %d differs between 1 and 2 threads", i);
        ck_assert_msg(same_row(&r1[i], i % 2 ? &s1[i / 2] : &s0[i / 2]),
                      "run %d differs between the serial run and its share", i);
        /* Last axis fastest: run i has mu = 0.05 + 0.05 (i / 2), dt = 1e-5 (1 + i % 2). */
        ck_assert_double_eq_tol(r1[i].param[0], 0.05 + 0.05 * (i / 2), 1e-15);
        ck_assert_double_eq_tol(r1[i].param[1], 1e-5 * (1 + i % 2), 1e-20);
        ck_assert_int_eq(r1[i].status, TVDS_OK);
        ck_assert(r1[i].cpu_seconds >= 0.0);
    }
    /* Rows handed in any order come out sorted: write the 2-thread rows reversed. */
    char d1[] = "/tmp/tvds_sweep1_XXXXXX", d2[] = "/tmp/tvds_sweep2_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(d1));
    ck_assert_ptr_nonnull(mkdtemp(d2));
    tvds_sweep_row rev[6];
    for (int i = 0; i < 6; i++)
        rev[i] = r2[5 - i];
    ck_assert_int_eq(tvds_sweep_write_csv(d1, ax, 2, r1, 6, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_sweep_write_csv(d2, ax, 2, rev, 6, &ctx), TVDS_OK);
    char p1[128], p2[128], l1[1024], l2[1024];
    snprintf(p1, sizeof p1, "%s/sweep.csv", d1);
    snprintf(p2, sizeof p2, "%s/sweep.csv", d2);
    FILE *f1 = fopen(p1, "r"), *f2 = fopen(p2, "r");
    ck_assert_ptr_nonnull(f1);
    ck_assert_ptr_nonnull(f2);
    int lines = 0;
    while (fgets(l1, sizeof l1, f1)) {
        ck_assert_ptr_nonnull(fgets(l2, sizeof l2, f2));
        *strrchr(l1, ',') = '\0'; /* drop cpu_s */
        *strrchr(l2, ',') = '\0';
        ck_assert_str_eq(l1, l2);
        lines++;
    }
    ck_assert_ptr_null(fgets(l2, sizeof l2, f2));
    fclose(f1);
    fclose(f2);
    ck_assert_int_eq(lines, 7);
    unlink(p1);
    unlink(p2);
    rmdir(d1);
    rmdir(d2);
}
END_TEST

/* SDND100 with Coulomb friction: the released shoe's oscillation decays (by 4 mu m g / k per
 * cycle), so every run is stable with a negative growth rate, and a larger mu decays faster.
 * Its peak is the release amplitude DY = 0.85 mm cos 45 deg. */
START_TEST(test_shoe_is_stable)
{
    tvds_sweep_axis ax;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_sweep_axis_parse("contact.base.mu=0.05:0.1:2", &ax, &ctx), TVDS_OK);
    tvds_sweep_row r[2];
    long n = 0;
    tvds_sweep_opts o = tvds_sweep_opts_default();
    o.channel = "dy";
    ck_assert_msg(tvds_sweep_run(SHOE_CASE, &ax, 1, &o, 0, 1, r, &n, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    ck_assert_int_eq(n, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(r[i].unstable, 0);
        ck_assert(r[i].growth < 0.0);
        ck_assert_double_eq_tol(r[i].peak, 0.85e-3 * sqrt(0.5), 1e-3 * 0.85e-3);
    }
    ck_assert(r[1].growth < r[0].growth);
    /* An unknown channel or key is an input error of the sweep, not a row. */
    o.channel = "nope";
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_sweep_run(SHOE_CASE, &ax, 1, &o, 0, 1, r, &n, &ctx), TVDS_ERR_INVALID);
    ck_assert(strstr(ctx.msg, "nope") != NULL);
    o.channel = NULL;
    snprintf(ax.key, sizeof ax.key, "contact.base.nosuchkey");
    tvds_ctx_init(&ctx);
    ck_assert(tvds_sweep_run(SHOE_CASE, &ax, 1, &o, 0, 1, r, &n, &ctx) < 0);
    ck_assert(strstr(ctx.msg, "nosuchkey") != NULL);
}
END_TEST

/* Free vibration u = u0 cos(100 t) (tests/data/case/oscillator.ini) over 2 s: RMS u0 / sqrt 2,
 * peak u0, dominant frequency 100 / (2 pi) = 15.915 Hz, no growth (stable). Tolerances: the
 * spectrum of the last second (Hann, zero-padded to a 0.15 Hz bin, parabolic peak) places a
 * pure tone within a small fraction of a bin (the parabola's bias on a Hann peak is a few
 * percent of a bin): 0.02 Hz; central differences shift the frequency by (omega h)^2 / 24 =
 * 4e-6 only. The RMS over 31.8 cycles differs from u0 / sqrt 2
 * by at most 1 / (4 pi 31.8) = 0.25 % (the unfinished cycle). */
START_TEST(test_oscillator_measures)
{
    tvds_sweep_axis ax;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_sweep_axis_parse("initial.release.u0=1e-3:2e-3:2", &ax, &ctx), TVDS_OK);
    const char *sets[] = {"run.t_end=2", "run.out_dt=1e-4"};
    tvds_sweep_opts o = tvds_sweep_opts_default();
    o.sets = sets;
    o.nsets = 2;
    tvds_sweep_row r[2];
    long n = 0;
    ck_assert_msg(tvds_sweep_run("tests/data/case/oscillator.ini", &ax, 1, &o, 0, 1, r, &n, &ctx) ==
                      TVDS_OK,
                  "%s", ctx.msg);
    ck_assert_int_eq(n, 2);
    for (int i = 0; i < 2; i++) {
        double u0 = 1e-3 * (1 + i);
        ck_assert_int_eq(r[i].status, TVDS_OK);
        ck_assert_int_eq(r[i].unstable, 0);
        ck_assert_double_eq_tol(r[i].peak, u0, 1e-9 * u0);
        ck_assert_double_eq_tol(r[i].rms, u0 / sqrt(2.0), 2.5e-3 * u0);
        ck_assert_double_eq_tol(r[i].f_dom, 100.0 / (2.0 * 3.14159265358979323846), 0.02);
        ck_assert(fabs(r[i].growth) < 0.02);
    }
}
END_TEST

/* Read a CSV file without its last column into buf; returns the number of lines. */
static int csv_without_last(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[1024];
    int n = 0;
    buf[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        char *c = strrchr(line, ',');
        if (c) *c = '\0';
        strncat(buf, line, size - strlen(buf) - 2);
        strcat(buf, "\n");
        n++;
    }
    fclose(f);
    return n;
}

/* The `tvds sweep` command with --threads 1 and --threads 2, in a child whose OpenMP thread
 * limit is lifted (the test runner itself runs with OMP_THREAD_LIMIT=1): same CSV but cpu_s. */
START_TEST(test_cli_two_threads)
{
    char dir[64];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_sweepcli_");
    char cmd[1024], p1[128], p2[128];
    static char a[8192], b[8192];
    for (int t = 1; t <= 2; t++) {
        snprintf(cmd, sizeof cmd,
                 "env -u OMP_THREAD_LIMIT OMP_NUM_THREADS=2 %s sweep %s --grid "
                 "contact.base.mu=0.05:0.15:3 --grid run.dt=1e-5:2e-5:2 --set run.t_end=0.05 "
                 "--threads %d -o %s/t%d >%s/t%d.out 2>&1",
                 TVDS_BIN, SHOE_CASE, t, dir, t, dir, t);
        ck_assert_msg(system(cmd) == 0, "%s", cmd);
    }
    snprintf(p1, sizeof p1, "%s/t1/sweep.csv", dir);
    snprintf(p2, sizeof p2, "%s/t2/sweep.csv", dir);
    ck_assert_int_eq(csv_without_last(p1, a, sizeof a), 7);
    ck_assert_int_eq(csv_without_last(p2, b, sizeof b), 7);
    ck_assert_str_eq(a, b);
    ck_assert(strstr(a, "index,contact.base.mu,run.dt,status,unstable") == a);
    snprintf(p1, sizeof p1, "%s/t2/squeal_map.png", dir);
    ck_assert_msg(access(p1, F_OK) == 0, "no squeal map %s", p1);
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
}
END_TEST

/* The journal cut back to its last whole line (what a full disk or a kill leaves), so that the
 * next line appended starts on a line of its own. Before, --resume appended to the fragment and
 * every later read of the journal failed on the merged line. */
START_TEST(test_journal_trim)
{
    char d[] = "/tmp/tvds_trim_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(d));
    char p[256];
    snprintf(p, sizeof p, "%s/j.csv", d);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    long cut = -1;
    ck_assert_int_eq(tvds_sweep_journal_trim(p, &cut, &ctx), TVDS_OK); /* missing: fine */
    ck_assert_int_eq(cut, 0);
    tvds_test_write_file(NULL, p, "# sig\n0,1,2\n1,0.5,0.2");
    ck_assert_int_eq(tvds_sweep_journal_trim(p, &cut, &ctx), TVDS_OK);
    ck_assert_int_eq(cut, 9);
    char *t = tvds_test_slurp(p, NULL);
    ck_assert_str_eq(t, "# sig\n0,1,2\n");
    free(t);
    ck_assert_int_eq(tvds_sweep_journal_trim(p, &cut, &ctx), TVDS_OK); /* whole: untouched */
    ck_assert_int_eq(cut, 0);
    /* A fragment longer than the 4 KiB read block, after a whole line. */
    char big[9000];
    memset(big, '7', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "# sig\n", 6);
    tvds_test_write_file(NULL, p, big);
    ck_assert_int_eq(tvds_sweep_journal_trim(p, &cut, &ctx), TVDS_OK);
    ck_assert_int_eq(cut, (long)sizeof big - 1 - 6);
    t = tvds_test_slurp(p, NULL);
    ck_assert_str_eq(t, "# sig\n");
    free(t);
    tvds_test_rmtree(d);
}
END_TEST

/* The inputs' hash changes with the case text, an override, a file of a substructure directory
 * and a table file, and only with them; a FIFO given as the case is refused at once. */
START_TEST(test_inputs_hash)
{
    char d[] = "/tmp/tvds_hash_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(d));
    char sub[300], cp[300], cmd[900];
    snprintf(sub, sizeof sub, "%s/shoe", d);
    snprintf(cmd, sizeof cmd, "cp -r tests/data/case/shoe %s", sub);
    ck_assert_int_eq(system(cmd), 0);
    const char *text = "[run]\nname = h\ndt = 1e-4\nt_end = 0.01\n\n[substructure shoe]\ndir = "
                       "shoe\n\n[load f]\ndof = shoe:1:ux\nf = table force.txt\n";
    tvds_test_write_file(d, "c.ini", text);
    tvds_test_write_file(d, "force.txt", "0 0\n1 1\n");
    snprintf(cp, sizeof cp, "%s/c.ini", d);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    char h0[17], h1[17];
    const char *set1[] = {"run.dt=5e-5"};
    ck_assert_msg(tvds_sweep_inputs_hash(cp, NULL, 0, h0, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(strlen(h0), 16);
    ck_assert_int_eq(tvds_sweep_inputs_hash(cp, NULL, 0, h1, &ctx), TVDS_OK);
    ck_assert_str_eq(h0, h1);
    ck_assert_int_eq(tvds_sweep_inputs_hash(cp, set1, 1, h1, &ctx), TVDS_OK);
    ck_assert_str_ne(h0, h1);
    /* The case text (one digit). */
    char *t2 = strdup(text);
    *strstr(t2, "1e-4") = '2';
    tvds_test_write_file(d, "c.ini", t2);
    free(t2);
    ck_assert_int_eq(tvds_sweep_inputs_hash(cp, NULL, 0, h1, &ctx), TVDS_OK);
    ck_assert_str_ne(h0, h1);
    tvds_test_write_file(d, "c.ini", text);
    ck_assert_int_eq(tvds_sweep_inputs_hash(cp, NULL, 0, h1, &ctx), TVDS_OK);
    ck_assert_str_eq(h0, h1);
    /* The table file. */
    tvds_test_write_file(d, "force.txt", "0 0\n1 2\n");
    ck_assert_int_eq(tvds_sweep_inputs_hash(cp, NULL, 0, h1, &ctx), TVDS_OK);
    ck_assert_str_ne(h0, h1);
    tvds_test_write_file(d, "force.txt", "0 0\n1 1\n");
    /* A matrix of the substructure (the spring 1e4 -> 2e4 N/m in x). */
    char *k = tvds_test_slurp("tests/data/case/shoe/K.mtx", NULL);
    ck_assert_ptr_nonnull(k);
    char *e = strstr(k, "1 1 10000");
    ck_assert_ptr_nonnull(e);
    e[4] = '2';
    tvds_test_write_file(sub, "K.mtx", k);
    free(k);
    ck_assert_int_eq(tvds_sweep_inputs_hash(cp, NULL, 0, h1, &ctx), TVDS_OK);
    ck_assert_str_ne(h0, h1);
    /* A FIFO as the case file: refused by name, without waiting for a writer. */
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/fifo.ini", d);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    tvds_ctx_init(&ctx);
    time_t t0 = time(NULL);
    ck_assert_int_eq(tvds_sweep_inputs_hash(fifo, NULL, 0, h1, &ctx), TVDS_ERR_IO);
    ck_assert_msg(strstr(ctx.msg, "fifo.ini") && strstr(ctx.msg, "not a regular file"), "%s",
                  ctx.msg);
    ck_assert_int_le(time(NULL) - t0, 2);
    tvds_test_rmtree(d);
}
END_TEST

Suite *sweep_suite(void)
{
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("grid");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_axis_parse);
    tcase_add_test(tc, test_threads_and_shares_agree);
    tcase_add_test(tc, test_shoe_is_stable);
    tcase_add_test(tc, test_cli_two_threads);
    tcase_add_test(tc, test_oscillator_measures);
    tcase_add_test(tc, test_journal_trim);
    tcase_add_test(tc, test_inputs_hash);
    suite_add_tcase(s, tc);
    return s;
}
