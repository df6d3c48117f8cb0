/* check_fe_input.c — full models read by `tvds reduce` with the checks of a substructure: each
 * defect refused with one line naming its file (and line), nothing written; linear readers. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#define TVDS_TEST_CHOLMOD
#include "tvds_test.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"

#ifndef TVDS_BIN
#define TVDS_BIN "build/bin/tvds"
#endif

static char dir[256];
static char *err_text;

static void setup(void)
{
    cc_setup();
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_check_fe_input_");
    err_text = NULL;
    char cmd[600];
    /* beam 2 of the shipped model: 600 DoFs, clamped, symmetric lower-triangle files. */
    snprintf(cmd, sizeof cmd, "cp -r models/beam_on_beam/beam2_full '%s/m'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void teardown(void)
{
    free(err_text);
    cc_teardown();
    if (tvds_test_rmtree(dir) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

/* Run a shell command in dir (the model is dir/m). */
static void sh(const char *fmt, const char *arg)
{
    char c[1500], cmd[1800];
    snprintf(c, sizeof c, fmt, arg);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s", dir, c);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* `tvds reduce --model m --boundary top -o out EXTRA`: exit code; stderr in err_text. */
static int reduce(const char *extra)
{
    char cmd[2048], p[400];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && OMP_THREAD_LIMIT=1 OPENBLAS_NUM_THREADS=1 %s/%s reduce --model m "
             "--boundary top -o out %s >stdout 2>stderr",
             dir, getenv("PWD") ? getenv("PWD") : ".", TVDS_BIN, extra);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    free(err_text);
    snprintf(p, sizeof p, "%s/stderr", dir);
    err_text = tvds_test_slurp(p, NULL);
    ck_assert_ptr_nonnull(err_text);
    return WEXITSTATUS(st);
}

/* Exit code 2, one line on stderr containing every fragment, and no output directory. */
static void refused(const char *extra, const char *f1, const char *f2)
{
    ck_assert_int_eq(reduce(extra), 2);
    int lines = 0;
    for (const char *c = err_text; *c; c++)
        lines += *c == '\n';
    ck_assert_msg(lines == 1, "stderr is not one line:\n%s", err_text);
    ck_assert_msg(strstr(err_text, f1) != NULL, "'%s' not in: %s", f1, err_text);
    ck_assert_msg(!f2 || strstr(err_text, f2) != NULL, "'%s' not in: %s", f2, err_text);
    char p[400];
    struct stat sb;
    snprintf(p, sizeof p, "%s/out", dir);
    ck_assert_msg(stat(p, &sb) != 0, "an output directory was left behind");
}

START_TEST(test_clean_model_reduces)
{
    ck_assert_int_eq(reduce("--modes 10"), 0);
}
END_TEST

/* A 'general' file holding one triangle only (what many exporters write) is refused: taken as
 * given it is a different, unsymmetric matrix (f1 = 365 485 Hz instead of 45.5 Hz). */
START_TEST(test_general_one_triangle)
{
    sh("sed -i '1s/symmetric/general/' m/K.mtx", NULL);
    refused("", "m/K.mtx: K is declared 'general' but holds only its lower triangle", NULL);
}
END_TEST

/* A genuinely asymmetric K (both triangles, one pair differs) is refused with the pair. */
START_TEST(test_asymmetric_K)
{
    /* Mirror every off-diagonal entry, then perturb the first one above round-off by 1e-3. */
    sh("awk 'NR<=3{next} {print} $1!=$2{m=$3; if(!d && $3*$3>1){m=$3*1.001; d=1}; print $2, $1, m}'"
       " m/K.mtx > body && n=$(wc -l < body) && "
       "{ echo '%%%%MatrixMarket matrix coordinate real general'; echo \"600 600 $n\"; cat body; }"
       " > m/K.mtx",
       NULL);
    refused("", "m/K.mtx: K is not symmetric: K(", "difference");
}
END_TEST

/* The DoFs of one node with different coordinates: refused at the line, before tvds writes a
 * substructure that `tvds check` would refuse. */
START_TEST(test_inconsistent_coordinates)
{
    sh("sed -i '4s/^\\([0-9]*\\) uy [^ ]*/\\1 uy 9/' m/dofs.txt", NULL);
    refused("", "m/dofs.txt:4: node 2 uy has coordinates (9,", "share its coordinates");
}
END_TEST

/* M with a positive diagonal but not positive definite: blamed on M.mtx, nothing written. */
START_TEST(test_mass_not_posdef)
{
    sh("awk 'NR>3 && $1==3 && $2==1 {$3=1e-4} {print}' m/M.mtx > x && mv x m/M.mtx", NULL);
    refused("", "m/M.mtx: M is not positive definite", "DoF 3 (node 3 ux)");
}
END_TEST

/* A negative stiffness on the diagonal is a defect of K, not an unrestrained boundary. */
START_TEST(test_negative_diagonal)
{
    sh("awk 'NR>3 && $1==$2 && $1==500 {$3=-$3} {print}' m/K.mtx > x && mv x m/K.mtx", NULL);
    refused("", "m/K.mtx: K is not positive semidefinite: negative diagonal K(500,500)",
            "node 253 uy");
}
END_TEST

START_TEST(test_too_many_modes)
{
    refused("--modes 500", "500 fixed-interface modes asked for, but the interior has 400 DoFs",
            "at most 399");
}
END_TEST

/* A size line declaring 2e9 x 2e9 is refused before anything is allocated for it. */
START_TEST(test_huge_declared_size)
{
    sh("printf '%%%%%%%%MatrixMarket matrix coordinate real symmetric\\n2000000000 2000000000 "
       "1\\n1 1 1\\n' > m/M.mtx",
       NULL);
    refused("",
            "m/M.mtx:2: size line declares 2000000000 x 2000000000, but m/dofs.txt lists "
            "600 DoFs",
            "the mass matrix must be 600 x 600");
}
END_TEST

/* In the library: a singular interior (unrestrained boundary) and an indefinite one (negative
 * stiffness with a positive diagonal) get different messages. Bar of 4 unit springs and unit
 * masses, free-free; boundary DoF 0. */
static void spring_chain(double k3, cholmod_sparse **M, cholmod_sparse **K, int restrained)
{
    const int n = 5;
    cholmod_triplet *Tm = cholmod_allocate_triplet(n, n, n, 1, CHOLMOD_REAL, &cc);
    cholmod_triplet *Tk = cholmod_allocate_triplet(n, n, 3 * n, 1, CHOLMOD_REAL, &cc);
    int *mi = Tm->i, *mj = Tm->j, *ki = Tk->i, *kj = Tk->j;
    double *mx = Tm->x, *kx = Tk->x;
    for (int i = 0; i < n; i++) {
        mi[i] = mj[i] = i;
        mx[i] = 1.0;
    }
    Tm->nnz = n;
    int t = 0;
    for (int e = 0; e < n - 1; e++) {
        double k = e == 3 ? k3 : 1.0;
        int a = e, b = e + 1;
        ki[t] = a, kj[t] = a, kx[t++] = k;
        ki[t] = b, kj[t] = b, kx[t++] = k;
        ki[t] = a, kj[t] = b, kx[t++] = -k;
    }
    if (restrained) ki[t] = 0, kj[t] = 0, kx[t++] = 1.0; /* ground spring at DoF 0 */
    Tk->nnz = (size_t)t;
    *M = cholmod_triplet_to_sparse(Tm, 0, &cc);
    *K = cholmod_triplet_to_sparse(Tk, 0, &cc);
    cholmod_free_triplet(&Tm, &cc);
    cholmod_free_triplet(&Tk, &cc);
}

START_TEST(test_singular_vs_indefinite_interior)
{
    tvds_ctx ctx;
    tvds_reduce_opts o = tvds_reduce_opts_default();
    o.nmodes = 2;
    o.k_name = "chain/K.mtx";
    tvds_substructure *s = NULL;
    cholmod_sparse *M, *K;
    int b = 4; /* the last DoF retained: the chain hangs from it */
    /* Free-free chain, boundary at its end: restrained, reduces. */
    spring_chain(1.0, &M, &K, 0);
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_reduce_cb(M, K, NULL, 1, &b, 0, NULL, 0, NULL, &o, &s, NULL, &cc, &ctx),
                     TVDS_OK);
    tvds_substructure_free(&s);
    cholmod_free_sparse(&M, &cc);
    cholmod_free_sparse(&K, &cc);
    /* Last spring cut (k = 0): the interior floats, a zero-energy motion. */
    spring_chain(0.0, &M, &K, 0);
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_reduce_cb(M, K, NULL, 1, &b, 0, NULL, 0, NULL, &o, &s, NULL, &cc, &ctx),
                     TVDS_ERR_NOT_POSDEF);
    ck_assert_msg(strstr(ctx.msg, "do not restrain every rigid-body motion"), "%s", ctx.msg);
    cholmod_free_sparse(&M, &cc);
    cholmod_free_sparse(&K, &cc);
    /* Last spring negative, grounded at DoF 0: the diagonal stays positive but K is
     * indefinite: a negative stiffness, blamed on K. */
    spring_chain(-0.5, &M, &K, 1);
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_reduce_cb(M, K, NULL, 1, &b, 0, NULL, 0, NULL, &o, &s, NULL, &cc, &ctx),
                     TVDS_ERR_NOT_POSDEF);
    ck_assert_msg(strstr(ctx.msg, "chain/K.mtx: K is not positive semidefinite") &&
                      strstr(ctx.msg, "negative stiffness"),
                  "%s", ctx.msg);
    ck_assert_ptr_null(s);
    cholmod_free_sparse(&M, &cc);
    cholmod_free_sparse(&K, &cc);
}
END_TEST

/* 300 000 DoF lines and a 100 000-node set read within the default 4 s timeout: a reader that
 * compares each line with every earlier one takes about 25 s here. */
START_TEST(test_readers_linear)
{
    const int nn = 100000;
    char p[400], q[400];
    snprintf(p, sizeof p, "%s/dofs.txt", dir);
    snprintf(q, sizeof q, "%s/sets.txt", dir);
    FILE *f = fopen(p, "w"), *g = fopen(q, "w");
    ck_assert(f && g);
    fprintf(g, "set all");
    for (int i = 0; i < nn; i++) {
        long node = 7L * (nn - i); /* ids out of order */
        for (int d = 0; d < 3; d++)
            fprintf(f, "%ld %s %d 0.5 0\n", node, d == 0 ? "ux" : d == 1 ? "uy" : "uz", i);
        fprintf(g, "%s%ld", i % 16 == 15 ? " \\\n " : " ", node);
    }
    fprintf(g, "\n");
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(fclose(g), 0);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int n = 0, ns = 0, cnt = 0, *idx = NULL;
    tvds_dof *d = NULL;
    tvds_nodeset *sets = NULL;
    ck_assert_int_eq(tvds_fe_dofs_read(p, q, &n, &d, &ns, &sets, &ctx), TVDS_OK);
    ck_assert_int_eq(n, 3 * nn);
    ck_assert_int_eq(ns, 1);
    ck_assert_int_eq(sets[0].n, nn);
    ck_assert_int_eq(tvds_reduce_parse_spec("all.y", n, d, ns, sets, &cnt, &idx, &ctx), TVDS_OK);
    ck_assert_int_eq(cnt, nn);
    ck_assert_int_eq(idx[nn - 1], 3 * (nn - 1) + 1);
    tvds_free(idx);
    tvds_free(d);
    tvds_fe_sets_free(ns, &sets);
    /* A repeated (node, dir) in the last line is still found, with both lines. */
    f = fopen(p, "a");
    fprintf(f, "7 uz 99999 0.5 0\n");
    fclose(f);
    ck_assert_int_eq(tvds_fe_dofs_read(p, NULL, &n, &d, NULL, NULL, &ctx), TVDS_ERR_INVALID);
    ck_assert_msg(strstr(ctx.msg, ":300001: node 7 uz listed twice (first on line 300000)"), "%s",
                  ctx.msg);
}
END_TEST

/* ---- The output directory: one owner, all old or all new, stopped by a signal ---------------- */

/* The bytes of dir/out/file (NULL when missing), caller frees. */
static char *out_file(const char *file, long *len)
{
    char p[400];
    snprintf(p, sizeof p, "%s/out/%s", dir, file);
    return tvds_test_slurp(p, len);
}

/* Whether dir/out holds the same M.mtx, K.mtx and dofs.txt as dir/ref. */
static int out_same_as(const char *ref)
{
    static const char *const files[] = {"M.mtx", "K.mtx", "dofs.txt"};
    int same = 1;
    for (int i = 0; i < 3; i++) {
        char p[400];
        long la = 0, lb = 0;
        snprintf(p, sizeof p, "%s/%s/%s", dir, ref, files[i]);
        char *a = tvds_test_slurp(p, &la), *b = out_file(files[i], &lb);
        same &= a && b && la == lb && !memcmp(a, b, (size_t)la);
        free(a);
        free(b);
    }
    return same;
}

/* Start `tvds ARGS` in dir (stderr to dir/stderr) and return its pid: the process is tvds
 * itself (exec), so that a signal reaches it. */
static pid_t spawn(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && OMP_THREAD_LIMIT=1 OPENBLAS_NUM_THREADS=1 exec %s/%s %s >stdout "
             "2>stderr",
             dir, getenv("PWD") ? getenv("PWD") : ".", TVDS_BIN, args);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Wait (up to 20 s) until process pid owns dir/out: its pid is in out/.lock, and the signal
 * handlers are installed right after; a slow start on a loaded machine must not turn the test's
 * signal into one that reaches the process before them. */
static void wait_owner(pid_t pid)
{
    char want[32];
    snprintf(want, sizeof want, "pid %ld\n", (long)pid);
    for (int k = 0; k < 2000; k++) {
        char *l = out_file(".lock", NULL);
        int ok = l && !strncmp(l, want, strlen(want));
        free(l);
        if (ok) return;
        nap(0.01);
    }
    ck_abort_msg("process %ld did not take out/.lock", (long)pid);
}

/* A second reduce into a directory another process owns stops at once with exit code 2 and
 * leaves the files alone. Before: both wrote into it (exit 0). */
START_TEST(test_outdir_busy)
{
    ck_assert_int_eq(reduce("--modes 10"), 0);
    long l0 = 0, l1 = 0;
    char *k0 = out_file("K.mtx", &l0);
    char p[400];
    snprintf(p, sizeof p, "%s/out", dir);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_outdir *od = NULL;
    ck_assert_int_eq(tvds_outdir_open(p, &od, &ctx), TVDS_OK);
    ck_assert_int_eq(reduce("--modes 12"), 2);
    ck_assert_msg(strstr(err_text, "output directory in use by another tvds process"), "%s",
                  err_text);
    tvds_outdir_close(&od);
    char *k1 = out_file("K.mtx", &l1);
    ck_assert(k0 && k1 && l0 == l1 && !memcmp(k0, k1, (size_t)l0));
    free(k0);
    free(k1);
    ck_assert_int_eq(reduce("--modes 12"), 0); /* free again */
}
END_TEST

/* A 12 000-DoF solid (a few seconds of reduction) in dir/blk and the outputs of its full
 * reduction in dir/rb/out; dir/out holds the 600-DoF beam's reduction (version A, in dir/refA). */
static double long_setup(void)
{
    char bin[600];
    snprintf(bin, sizeof bin, "%s/%s", getenv("PWD") ? getenv("PWD") : ".", TVDS_BIN);
    sh("%s model block --dofs 12000 -o blk >/dev/null", bin);
    ck_assert_int_eq(reduce("--modes 10"), 0);
    sh("cp -r out refA%s", "");
    double t0 = mono_s();
    int st;
    sh("mkdir rb%s", ""); /* named out as well: the name is in the files' comments */
    pid_t pid = spawn("reduce --model blk --boundary patch --modes 30 -o rb/out");
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return mono_s() - t0;
}

/* SIGTERM, SIGINT, SIGHUP stop a reduce within a second (the watchdog's 0.5 s grace; 2 s
 * allowed for a loaded machine), exit code 3, one line naming the signal, and the directory as
 * it was. Before: the default action killed the process (no exit code, no message). */
START_TEST(test_reduce_signals)
{
    double T = long_setup();
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    static const char *const names[] = {"SIGTERM", "SIGINT", "SIGHUP"};
    for (int i = 0; i < 3; i++) {
        pid_t pid = spawn("reduce --model blk --boundary patch --modes 30 -o out");
        wait_owner(pid);
        nap(0.3 * T * (i + 1) / 3.0); /* reading, factorization, eigensolver */
        double t0 = mono_s();
        ck_assert_int_eq(kill(pid, sigs[i]), 0);
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        double dt = mono_s() - t0;
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 3, "%s: status %d", names[i], st);
        ck_assert_msg(dt < 2.0, "%s: stopped after %.2f s", names[i], dt);
        char p[400];
        snprintf(p, sizeof p, "%s/stderr", dir);
        char *e = tvds_test_slurp(p, NULL);
        ck_assert_msg(e && strstr(e, "interrupted") && strstr(e, names[i]) &&
                          strchr(e, '\n') == e + strlen(e) - 1,
                      "%s: %s", names[i], e);
        free(e);
        ck_assert_msg(out_same_as("refA"), "%s: the output directory changed", names[i]);
        snprintf(p, sizeof p, "%s/out/.new", dir);
        struct stat sb;
        ck_assert_msg(stat(p, &sb) != 0, "%s: a stage was left", names[i]);
        fprintf(stderr, "fe_input: %s stopped reduce in %.2f s\n", names[i], dt);
    }
}
END_TEST

/* kill -9 at points spread over a reduction: the directory then reads as version A or B,
 * whole, or is refused by its manifest, never a mix; the next reduce completes. */
START_TEST(test_reduce_sigkill)
{
    double T = long_setup();
    int as_a = 0, as_b = 0, refused_n = 0;
    for (int i = 1; i <= 4; i++) {
        sh("rm -rf out && cp -r refA out%s", "");
        pid_t pid = spawn("reduce --model blk --boundary patch --modes 30 -o out");
        nap(T * (0.4 + 0.15 * i)); /* the later ones may find the reduction written */
        kill(pid, SIGKILL);
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        char p[400];
        snprintf(p, sizeof p, "%s/out", dir);
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_substructure *sub = NULL;
        int rc = tvds_substructure_read(p, NULL, &sub, &ctx);
        tvds_substructure_free(&sub);
        if (rc) {
            ck_assert_msg(strstr(ctx.msg, "manifest.txt"), "kill %d: %s", i, ctx.msg);
            refused_n++;
        } else if (out_same_as("refA")) {
            as_a++;
        } else {
            ck_assert_msg(out_same_as("rb/out"), "kill %d: a directory of two versions was read",
                          i);
            as_b++;
        }
    }
    fprintf(stderr, "fe_input: 4 kills: %d old, %d new, %d refused\n", as_a, as_b, refused_n);
    int st;
    pid_t pid = spawn("reduce --model blk --boundary patch --modes 30 -o out");
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert(out_same_as("rb/out"));
}
END_TEST

Suite *fe_input_suite(void)
{
    Suite *s = suite_create("fe_input");
    TCase *tc = tcase_create("fe_input");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_clean_model_reduces);
    tcase_add_test(tc, test_general_one_triangle);
    tcase_add_test(tc, test_asymmetric_K);
    tcase_add_test(tc, test_inconsistent_coordinates);
    tcase_add_test(tc, test_mass_not_posdef);
    tcase_add_test(tc, test_negative_diagonal);
    tcase_add_test(tc, test_too_many_modes);
    tcase_add_test(tc, test_huge_declared_size);
    tcase_add_test(tc, test_singular_vs_indefinite_interior);
    tcase_add_test(tc, test_outdir_busy);
    suite_add_tcase(s, tc);
    /* 300 000 lines: long under valgrind, so left out of valgrind-fast (still in make test). */
    TCase *tl = tcase_create("fe_input_large");
    tcase_set_tags(tl, "long");
    tcase_add_checked_fixture(tl, setup, teardown);
    tcase_add_test(tl, test_readers_linear);
    suite_add_tcase(s, tl);
    /* Processes signalled and killed: seconds each, left out of valgrind-fast. */
    TCase *to = tcase_create("outdir");
    tcase_set_tags(to, "long");
    tcase_set_timeout(to, 120);
    tcase_add_checked_fixture(to, setup, teardown);
    tcase_add_test(to, test_reduce_signals);
    tcase_add_test(to, test_reduce_sigkill);
    suite_add_tcase(s, to);
    return s;
}
