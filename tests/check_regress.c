/* check_regress.c — answer-file regression of the tvds command line: short shipped cases run by
 * the built binary, outputs compared with the stored answers of tests/data/regress/ within a
 * float tolerance justified per quantity. TVDS_REGRESS_UPDATE=1 rewrites the answer files. */
#include <check.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tvds/tvds.h"
#include "tvds/tvds_io.h"
#include "tvds_test.h"

#ifndef TVDS_BIN
#define TVDS_BIN "build/bin/tvds"
#endif

#define ANSWERS "tests/data/regress"

/* Tolerances (tests/data/regress/README.md).
 *
 * RTOL_RUN: engine runs are deterministic and single-threaded; across compilers and BLAS builds
 * only the rounding of individual operations changes (FMA contraction, summation order of
 * small dense products): a few ulp (~1e-16) per operation. Central differences on these stable,
 * non-chaotic shoes accumulate such errors at most linearly over the <= 1.5e5 steps of a case:
 * <= ~1e-11 of the quantity's scale. 1e-9 of the column's largest magnitude leaves two decades
 * of margin and still catches any change of the scheme or the friction law: a stick/slip event
 * moved by one step changes DY by v h ~ 1e-3 of its amplitude. (A decision threshold hit within
 * round-off would flip an event: with continuous data this has probability ~1e-12 per event.)
 *
 * RTOL_EIG: complex eigenvalues of `tvds cea` come from LAPACK with backward error ~1e-15
 * (printed by the command); for these well-separated (or exactly coalesced, conjugate) pairs
 * the forward error is of the same order relative to |lambda|. Real parts that are zero in
 * exact arithmetic (mu below the flutter threshold) are pure round-off of order
 * eps |lambda| ~ 1e-13 1/s: ATOL_EIG = 1e-9 (1/s, and dimensionless for damping ratios).
 *
 * RTOL_MODES: ARPACK (tolerance 1e-12 on the residual, deterministic start vector) gives
 * Rayleigh-quotient eigenvalues accurate to ~(1e-12)^2 relative; the frequencies of the reduced
 * pencil (K_r, M_r), solved here by LAPACK dsygv, carry the round-off of the CHOLMOD solves of
 * the constraint modes, ~1e-13. 1e-9 relative on each frequency. */
#define RTOL_RUN   1e-9
#define RTOL_EIG   1e-9
#define ATOL_EIG   1e-9
#define RTOL_MODES 1e-9

static char dir[256];

static void setup(void)
{
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_check_regress_");
}

static void teardown(void)
{
    if (tvds_test_rmtree(dir) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

static int updating(void)
{
    const char *e = getenv("TVDS_REGRESS_UPDATE");
    return e && strcmp(e, "1") == 0;
}

/* Run "tvds ARGS" (output in the temporary directory); returns the exit code. */
static int tvds(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s >'%s/log' 2>&1", TVDS_BIN, args, dir);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void run_ok(const char *args)
{
    int rc = tvds(args);
    if (rc != 0) {
        char p[400], line[300] = "";
        snprintf(p, sizeof p, "%s/log", dir);
        FILE *f = fopen(p, "r");
        if (f) {
            if (!fgets(line, sizeof line, f)) line[0] = '\0';
            fclose(f);
        }
        ck_abort_msg("tvds %s: exit %d: %s", args, rc, line);
    }
}

static void copy_file(const char *src, const char *dst)
{
    FILE *a = fopen(src, "rb"), *b = a ? fopen(dst, "wb") : NULL;
    ck_assert_msg(a && b, "cannot copy %s to %s", src, dst);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0)
        ck_assert(fwrite(buf, 1, n, b) == n);
    fclose(a);
    ck_assert(fclose(b) == 0);
}

/* ---- CSV tables: a header row of names, then rows of numbers (empty field = NaN) ---- */

#define MAXCOL 32

typedef struct table {
    int nrow, ncol;
    char head[MAXCOL][96];
    double *v; /* nrow x ncol, row-major */
} table;

static void table_read(const char *path, table *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s: cannot read", path);
    char line[8192];
    ck_assert_msg(fgets(line, sizeof line, f) != NULL, "%s: empty", path);
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line, *e;; p = e + 1) {
        e = strchr(p, ',');
        if (e) *e = '\0';
        ck_assert_msg(t->ncol < MAXCOL, "%s: too many columns", path);
        size_t len = strlen(p);
        ck_assert_msg(len < sizeof t->head[0], "%s: column name too long", path);
        memcpy(t->head[t->ncol++], p, len + 1);
        if (!e) break;
    }
    int cap = 64;
    t->v = malloc((size_t)cap * t->ncol * sizeof(double));
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '\n' || line[0] == '\0') continue;
        if (t->nrow == cap) {
            cap *= 2;
            t->v = realloc(t->v, (size_t)cap * t->ncol * sizeof(double));
        }
        ck_assert(t->v != NULL);
        char *p = line;
        for (int j = 0; j < t->ncol; j++) {
            char *end;
            double x = strtod(p, &end);
            if (end == p) x = NAN; /* empty field */
            t->v[(size_t)t->nrow * t->ncol + j] = x;
            p = strchr(end, ',');
            ck_assert_msg(p || j == t->ncol - 1, "%s: row %d has %d fields", path, t->nrow + 2,
                          j + 1);
            if (p) p++;
        }
        t->nrow++;
    }
    fclose(f);
}

/* Compare the table in got with the answer file name (under tests/data/regress/): same header
 * and shape; in the selected columns (cols: comma-separated names, NULL = all)
 * |got - answer| <= rtol * (largest |answer| of the column) + atol, NaN where the answer has
 * NaN. With TVDS_REGRESS_UPDATE=1 the answer file is rewritten from got instead. */
static void check_csv(const char *got, const char *name, const char *cols, double rtol, double atol)
{
    char ans[512];
    snprintf(ans, sizeof ans, "%s/%s", ANSWERS, name);
    if (updating()) {
        copy_file(got, ans);
        fprintf(stderr, "regress: rewrote %s\n", ans);
        return;
    }
    table g, a;
    table_read(got, &g);
    table_read(ans, &a);
    ck_assert_msg(g.ncol == a.ncol, "%s: %d columns, answer %d", name, g.ncol, a.ncol);
    ck_assert_msg(g.nrow == a.nrow, "%s: %d rows, answer %d", name, g.nrow, a.nrow);
    int checked = 0;
    for (int j = 0; j < a.ncol; j++) {
        ck_assert_msg(strcmp(g.head[j], a.head[j]) == 0, "%s: column %d is '%s', answer '%s'", name,
                      j + 1, g.head[j], a.head[j]);
        if (cols) {
            /* Whole-name match inside the comma-separated list. */
            size_t len = strlen(a.head[j]);
            const char *p = cols;
            int sel = 0;
            while (!sel && (p = strstr(p, a.head[j])) != NULL) {
                sel = (p == cols || p[-1] == ',') && (p[len] == ',' || p[len] == '\0');
                p += len;
            }
            if (!sel) continue;
        }
        double scale = 0.0;
        for (int i = 0; i < a.nrow; i++) {
            double x = fabs(a.v[(size_t)i * a.ncol + j]);
            if (x > scale) scale = x;
        }
        double tol = rtol * scale + atol;
        for (int i = 0; i < a.nrow; i++) {
            double x = g.v[(size_t)i * g.ncol + j], y = a.v[(size_t)i * a.ncol + j];
            if (isnan(y)) {
                ck_assert_msg(isnan(x), "%s: row %d, '%s': %.17g, answer empty", name, i + 2,
                              a.head[j], x);
                continue;
            }
            ck_assert_msg(fabs(x - y) <= tol,
                          "%s: row %d, '%s': %.17g, answer %.17g (difference %.3g > tolerance "
                          "%.3g)",
                          name, i + 2, a.head[j], x, y, fabs(x - y), tol);
        }
        checked++;
    }
    ck_assert_msg(checked > 0, "%s: no column selected", name);
    free(g.v);
    free(a.v);
}

/* Selected scalars of summary.json ("summary" object keys, with units) as a one-row table. */
static void summary_table(const char *json, const char *const *keys, int nkeys, const char *out)
{
    FILE *f = fopen(json, "rb");
    ck_assert_msg(f != NULL, "%s: cannot read", json);
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    FILE *o = fopen(out, "w");
    ck_assert(o != NULL);
    for (int k = 0; k < nkeys; k++)
        fprintf(o, "%s%s", k ? "," : "", keys[k]);
    fputc('\n', o);
    for (int k = 0; k < nkeys; k++) {
        char pat[200];
        snprintf(pat, sizeof pat, "\"%s\": ", keys[k]);
        const char *p = strstr(text, pat);
        ck_assert_msg(p != NULL, "%s: no key '%s'", json, keys[k]);
        char *end;
        double x = strtod(p + strlen(pat), &end);
        ck_assert_msg(end != p + strlen(pat), "%s: '%s' is not a number", json, keys[k]);
        fprintf(o, "%s%.17g", k ? "," : "", x);
    }
    fputc('\n', o);
    ck_assert(fclose(o) == 0);
}

/* ---- Engine runs: Lagrange shoes (exact stick) ---- */

/* Contact columns with physical content; gap, alpha, segment and s are identically zero (or
 * round-off) on the rigid plane and left out. */
#define SHOE_CONTACT_COLS                                                                          \
    "base.lambda_n [N],base.lambda_t [N],base.state [-],base.v_slide [m/s],"                       \
    "base.p_friction [W],base.p_wear [W]"

static const char *const shoe_keys[] = {"steps [-]", "energy max [J]", "base.mean p_friction [W]",
                                        "base.mean p_wear [W]"};

/* The output file rel (below dir) against the answer file name: check_csv. */
static void check_output(const char *rel, const char *name, const char *cols, double rtol,
                         double atol)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    check_csv(p, name, cols, rtol, atol);
}

/* The shoe summary keys of run directory sub (below dir) against the answer file name. */
static void check_shoe_summary(const char *sub, const char *name)
{
    char p[512], q[512];
    snprintf(p, sizeof p, "%s/%s/summary.json", dir, sub);
    snprintf(q, sizeof q, "%s/%s/summary.csv", dir, sub);
    summary_table(p, shoe_keys, 4, q);
    check_csv(q, name, NULL, RTOL_RUN, 0.0);
}

/* SDND100 modeling A over its first 1.6 half cycles (stick-slip reversal at pi/100 s). */
START_TEST(test_sdnd100a)
{
    char args[1024];
    snprintf(args, sizeof args,
             "run models/shoe/sdnd100a_lagrange.ini -o '%s/a' --set run.t_end=0.05 "
             "--set run.out_dt=1e-3",
             dir);
    run_ok(args);
    check_output("a/history.csv", "sdnd100a_history.csv", NULL, RTOL_RUN, 0.0);
    check_output("a/contacts.csv", "sdnd100a_contacts.csv", SHOE_CONTACT_COLS, RTOL_RUN, 0.0);
    check_shoe_summary("a", "sdnd100a_summary.csv");
}
END_TEST

/* SDND100 modeling B: two substructures, 2D node-to-segment contact on a blocked plane. */
START_TEST(test_sdnd100b)
{
    char args[1024];
    snprintf(args, sizeof args,
             "run models/shoe/sdnd100b.ini -o '%s/b' --set run.t_end=0.05 --set run.out_dt=1e-3",
             dir);
    run_ok(args);
    check_output("b/history.csv", "sdnd100b_history.csv", NULL, RTOL_RUN, 0.0);
}
END_TEST

/* SDND104 stick-slip (a0 = 1.5 m/s^2) over 1.5 s: base excitation, stick/slip events, window
 * mean of the wear power. */
START_TEST(test_sdnd104)
{
    char args[1024];
    snprintf(args, sizeof args,
             "run models/shoe/sdnd104.ini -o '%s/w' --set 'base.acc=harmonic 1.5 1 0' "
             "--set run.t_end=1.5 --set 'run.window=0.5 1.5' --set run.out_dt=1e-2",
             dir);
    run_ok(args);
    check_output("w/history.csv", "sdnd104_history.csv", NULL, RTOL_RUN, 0.0);
    check_shoe_summary("w", "sdnd104_summary.csv");
}
END_TEST

/* ---- Complex eigenvalue analysis ---- */

/* Column named name of t (must exist). */
static int table_col(const table *t, const char *name)
{
    for (int j = 0; j < t->ncol; j++)
        if (strcmp(t->head[j], name) == 0) return j;
    ck_abort_msg("no column '%s'", name);
    return -1;
}

/* The largest real part of a window as a plateau: the positions of sub/locus.csv (below dir)
 * whose largest real part is within the comparison's tolerance, RTOL_EIG |max| + ATOL_EIG, of
 * the largest one cannot be told apart, so any of them is a right "s at max Re". The reported
 * position must be one of them, and the plateau must span the answer's window [s_in, s_out]
 * (the case's real part is flat along s). The answer's own "s at max Re" is not compared. */
static void check_flat_max(const char *sub, const char *answer)
{
    char p[600];
    table loc, got, ans;
    snprintf(p, sizeof p, "%s/%s/locus.csv", dir, sub);
    table_read(p, &loc);
    snprintf(p, sizeof p, "%s/%s/unstable.csv", dir, sub);
    table_read(p, &got);
    snprintf(p, sizeof p, "%s/%s", ANSWERS, answer);
    table_read(p, &ans);
    ck_assert_int_eq(got.nrow, 1);
    ck_assert_int_eq(ans.nrow, 1);
    int cs = table_col(&loc, "position [m]"), cr = table_col(&loc, "real part [1/s]");
    double rmax = -INFINITY;
    for (int i = 0; i < loc.nrow; i++)
        rmax = fmax(rmax, loc.v[(size_t)i * loc.ncol + cr]);
    double tol = RTOL_EIG * fabs(rmax) + ATOL_EIG, lo = INFINITY, hi = -INFINITY;
    double s_at = got.v[table_col(&got, "s at max Re [m]")];
    double s_in = ans.v[table_col(&ans, "s_in [m]")], s_out = ans.v[table_col(&ans, "s_out [m]")];
    double stol = RTOL_EIG * fmax(fabs(s_in), fabs(s_out)); /* positions: 0.1 + k 0.2, exact */
    int on_plateau = 0;
    for (int i = 0; i < loc.nrow; i++) {
        double s = loc.v[(size_t)i * loc.ncol + cs], r = loc.v[(size_t)i * loc.ncol + cr];
        if (r < rmax - tol) continue;
        lo = fmin(lo, s);
        hi = fmax(hi, s);
        on_plateau |= fabs(s - s_at) <= stol;
    }
    ck_assert_msg(on_plateau,
                  "%s: s at max Re %.17g is not on the plateau [%g, %g] of the largest real part "
                  "%.17g (within %.3g)",
                  answer, s_at, lo, hi, rmax, tol);
    ck_assert_msg(fabs(lo - s_in) <= stol && fabs(hi - s_out) <= stol,
                  "%s: plateau of the largest real part [%.17g, %.17g], window [%g, %g]", answer,
                  lo, hi, s_in, s_out);
    free(loc.v);
    free(got.v);
    free(ans.v);
}

/* Friction oscillator on a belt below (mu = 0.5: two distinct stable frequencies) and above
 * (mu = 0.7: coalesced, one unstable branch) the flutter threshold 0.6458. */
START_TEST(test_cea)
{
    char args[1024];
    snprintf(args, sizeof args,
             "cea tests/data/cea/flutter.ini --s0 0.1 --s1 0.9 --positions 5 --modes 4 "
             "--threads 1 --set contact.tip.mu=0.5 -o '%s/c5'",
             dir);
    run_ok(args);
    check_output("c5/locus.csv", "flutter_mu05_locus.csv",
                 "position [m],branch,frequency [Hz],real part [1/s],damping ratio,unstable",
                 RTOL_EIG, ATOL_EIG);
    snprintf(args, sizeof args,
             "cea tests/data/cea/flutter.ini --s0 0.1 --s1 0.9 --positions 5 --modes 4 "
             "--threads 1 -o '%s/c7'",
             dir);
    run_ok(args);
    /* The coalesced pair has equal frequencies: compare the unstable window (branch order
     * within an exactly degenerate pair is not a property of tvds). On this rigid belt the
     * real part does not depend on s: the position of its largest value is an argmax of
     * round-off (another BLAS kernel moves it from 0.7 to 0.5). It is checked as a plateau
     * (check_flat_max), every other column against the answer. */
    check_output("c7/unstable.csv", "flutter_mu07_unstable.csv",
                 "branch,s_start [m],s_end [m],f_min [Hz],f_max [Hz],max real part [1/s],"
                 "s_in [m],s_out [m],f at max Re [Hz],t_start [s],t_end [s],predicted growth",
                 RTOL_EIG, ATOL_EIG);
    if (!updating()) check_flat_max("c7", "flutter_mu07_unstable.csv");
}
END_TEST

/* ---- Craig-Bampton reduction ---- */

/* Mode frequencies labelled in dofs.txt ("mode K FREQ") into a table. */
static void modes_table(const char *dofs, const char *out)
{
    FILE *f = fopen(dofs, "r"), *o = fopen(out, "w");
    ck_assert(f && o);
    fprintf(o, "mode,frequency [Hz]\n");
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        int k;
        double fr;
        if (sscanf(line, " mode %d %lf", &k, &fr) == 2) {
            fprintf(o, "%d,%.17g\n", k, fr);
            n++;
        }
    }
    fclose(f);
    ck_assert(fclose(o) == 0);
    ck_assert_msg(n > 0, "%s: no mode lines", dofs);
}

/* Lowest nf frequencies [Hz] of the reduced pencil (K, M) of a substructure directory. */
static void pencil_table(const char *sub, int nf, const char *out)
{
    char p[600];
    int n, m, nk, mk;
    double *M = NULL, *K = NULL;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    snprintf(p, sizeof p, "%s/M.mtx", sub);
    ck_assert_msg(tvds_mm_read_dense(p, &n, &m, &M, NULL, &ctx) == TVDS_OK, "%s", ctx.msg);
    snprintf(p, sizeof p, "%s/K.mtx", sub);
    ck_assert_msg(tvds_mm_read_dense(p, &nk, &mk, &K, NULL, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert(n == m && nk == n && mk == n && n >= nf);
    double *w = malloc((size_t)n * sizeof *w);
    ck_assert(w != NULL);
    int info = LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', n, K, n, M, n, w);
    ck_assert_msg(info == 0, "dsygv: info %d", info);
    FILE *o = fopen(out, "w");
    ck_assert(o != NULL);
    fprintf(o, "k,frequency [Hz]\n");
    const double two_pi = 6.283185307179586477;
    for (int i = 0; i < nf; i++) {
        ck_assert_msg(w[i] > 0.0, "reduced pencil: eigenvalue %d = %g <= 0", i, w[i]);
        fprintf(o, "%d,%.17g\n", i + 1, sqrt(w[i]) / two_pi);
    }
    ck_assert(fclose(o) == 0);
    free(w);
    tvds_free(M);
    tvds_free(K);
}

/* A coarse beam 2 (20 x 2 elements) generated by `tvds model`, reduced by `tvds reduce` on its
 * upper edge with 6 fixed-interface modes: the modes' frequencies and the lowest 8 frequencies
 * of the reduced substructure. */
START_TEST(test_reduce)
{
    char args[1024], p[512], q[512];
    snprintf(args, sizeof args,
             "model beam-on-beam -o '%s/bob' --set beam2.nx=20 --set beam1.nx=8 --set modes1=4 "
             "--set modes2=4",
             dir);
    run_ok(args);
    snprintf(args, sizeof args,
             "reduce --model '%s/bob/beam2_full' --boundary top --modes 6 --recover T.y "
             "-o '%s/cb'",
             dir, dir);
    run_ok(args);
    snprintf(p, sizeof p, "%s/cb/dofs.txt", dir);
    snprintf(q, sizeof q, "%s/cb_modes.csv", dir);
    modes_table(p, q);
    check_csv(q, "beam2_cb_modes.csv", NULL, RTOL_MODES, 0.0);
    snprintf(p, sizeof p, "%s/cb", dir);
    snprintf(q, sizeof q, "%s/cb_pencil.csv", dir);
    pencil_table(p, 8, q);
    check_csv(q, "beam2_cb_pencil.csv", NULL, RTOL_MODES, 0.0);
}
END_TEST

/* ---- `tvds validate --doc`: the generated part of a Markdown file ---- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: cannot read", path);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The table replaces exactly the lines between the markers (a marker quoted in the prose is
 * not one), the rest of the file is kept byte for byte, and a second run gives the same file. */
START_TEST(test_validate_doc)
{
    static const char head[] = "# Page\nThe lines `<!-- tvds validate: begin -->` delimit it.\n"
                               "<!-- tvds validate: begin -->\nold table\n";
    static const char tail[] = "<!-- tvds validate: end -->\nAfter.\n";
    char p[400], args[1024];
    snprintf(p, sizeof p, "%s/page.md", dir);
    FILE *f = fopen(p, "w");
    ck_assert(f != NULL);
    fputs(head, f);
    fputs(tail, f);
    ck_assert(fclose(f) == 0);
    snprintf(args, sizeof args, "validate --filter law:sdnd104-analytic --doc '%s'", p);
    ck_assert_int_eq(tvds(args), 0);
    char first[65536];
    snprintf(first, sizeof first, "%s", slurp(p));
    size_t lh = strlen(head) - strlen("old table\n");
    ck_assert(strncmp(first, head, lh) == 0);
    ck_assert_ptr_null(strstr(first, "old table"));
    ck_assert_ptr_nonnull(strstr(first, "| law:sdnd104-analytic | P(a0=15) | 15.2670996 |"));
    size_t lf = strlen(first), lt = strlen(tail);
    ck_assert(lf > lt && strcmp(first + lf - lt, tail) == 0);
    ck_assert_int_eq(tvds(args), 0);
    ck_assert_str_eq(slurp(p), first);
    /* Without the marker lines: bad input, file untouched. */
    f = fopen(p, "w");
    ck_assert(f != NULL);
    fputs("no markers\n", f);
    ck_assert(fclose(f) == 0);
    ck_assert_int_eq(tvds(args), 2);
    ck_assert_str_eq(slurp(p), "no markers\n");
}
END_TEST

Suite *regress_suite(void)
{
    Suite *s = suite_create("regress");
    TCase *tc = tcase_create("answers");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_sdnd100a);
    tcase_add_test(tc, test_sdnd100b);
    tcase_add_test(tc, test_sdnd104);
    tcase_add_test(tc, test_cea);
    tcase_add_test(tc, test_reduce);
    suite_add_tcase(s, tc);
    TCase *td = tcase_create("validate-doc");
    tcase_add_checked_fixture(td, setup, teardown);
    tcase_add_test(td, test_validate_doc);
    suite_add_tcase(s, td);
    return s;
}
