/* check_reliability.c — allocation-failure injection end to end, fuzz reproducers, long runs
 * and interrupted runs (docs/reliability.md). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tvds/tvds_case.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_run.h"
#include "tvds_test.h"
#include "tvds/tvds_sim.h"
#include "tvds/tvds_spectrum.h"
#include "tvds/tvds_reduce.h"
#include "core/test_hooks_impl.h"

#ifndef TVDS_BIN
#define TVDS_BIN "build/bin/tvds"
#endif

/* Upper bound on the allocations of one operation: the loops stop at the first success, this
 * only guards against an operation that never succeeds. */
#define MAX_ALLOCS 20000

static char tmpdir[64];

static void tmp_setup(void)
{
    tvds_test_mkdtemp(tmpdir, sizeof tmpdir, "/tmp/tvds_rel_");
}

static void tmp_teardown(void)
{
    if (!tmpdir[0]) return;
    ck_assert_int_eq(tvds_test_rmtree(tmpdir), 0);
    tmpdir[0] = '\0';
}

/* The error contract of a failed call under injection. */
static void check_nomem(int rc, const tvds_ctx *ctx, long k, const char *what)
{
    ck_assert_msg(rc == TVDS_ERR_NOMEM, "%s, allocation %ld failing: status %s (%s)", what, k,
                  tvds_status_name(rc), ctx->msg);
    ck_assert_msg(ctx->status == TVDS_ERR_NOMEM, "%s, allocation %ld: ctx holds %s", what, k,
                  tvds_status_name(ctx->status));
    ck_assert_msg(ctx->msg[0] != '\0', "%s, allocation %ld: no message", what, k);
}

/* ---- Allocation failures: Matrix Market (sparse reader, CHOLMOD's allocations included) ---- */

static const char *const mm_files[] = {
    "tests/data/mmio/good_general.mtx", "tests/data/mmio/good_symmetric.mtx",
    "tests/data/mmio/good_array_sym.mtx", "tests/data/mmio/good_integer_crlf.mtx"};

START_TEST(test_alloc_mm_read)
{
    const char *path = mm_files[_i];
    cholmod_common cc;
    ck_assert_int_eq(tvds_cholmod_start(&cc), TVDS_OK);
    long k, in_cholmod = 0;
    for (k = 0; k < MAX_ALLOCS; k++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_cholmod_ctx(&ctx);
        cholmod_sparse *A = NULL;
        tvds_alloc_fail_after(k);
        int rc = tvds_mm_read(path, &A, &cc, &ctx);
        tvds_alloc_fail_after(-1);
        tvds_cholmod_ctx(NULL);
        if (rc == TVDS_OK) {
            ck_assert_ptr_nonnull(A);
            ck_assert(cholmod_check_sparse(A, &cc));
            cholmod_free_sparse(&A, &cc);
            break;
        }
        check_nomem(rc, &ctx, k, path);
        ck_assert_ptr_null(A);
        in_cholmod += strstr(ctx.msg, "CHOLMOD") != NULL;
    }
    ck_assert_msg(k > 0 && k < MAX_ALLOCS, "%s: %ld allocations", path, k);
    /* The injection reached CHOLMOD's own allocations (SuiteSparse_config routed to
     * tvds_malloc by tvds_cholmod_start): the triplet and the sparse matrix. */
    ck_assert_msg(in_cholmod >= 2, "%s: only %ld failures inside CHOLMOD", path, in_cholmod);
    ck_assert_int_eq(cholmod_finish(&cc), 1);
}
END_TEST

/* CHOLMOD's allocations are counted: a CHOLMOD dense matrix is one tvds allocation or more,
 * and a failing one is CHOLMOD_OUT_OF_MEMORY, routed to the context as NOMEM. */
START_TEST(test_cholmod_alloc_routed)
{
    cholmod_common cc;
    ck_assert_int_eq(tvds_cholmod_start(&cc), TVDS_OK);
    long before = tvds_alloc_count();
    cholmod_dense *X = cholmod_zeros(10, 10, CHOLMOD_REAL, &cc);
    ck_assert_ptr_nonnull(X);
    ck_assert_int_ge(tvds_alloc_count(), before + 1);
    cholmod_free_dense(&X, &cc);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cholmod_ctx(&ctx);
    tvds_alloc_fail_after(0);
    X = cholmod_zeros(10, 10, CHOLMOD_REAL, &cc);
    tvds_alloc_fail_after(-1);
    tvds_cholmod_ctx(NULL);
    ck_assert_ptr_null(X);
    ck_assert_int_eq(cc.status, CHOLMOD_OUT_OF_MEMORY);
    ck_assert_int_eq(ctx.status, TVDS_ERR_NOMEM);
    ck_assert_int_eq(cholmod_finish(&cc), 1);
}
END_TEST

/* ---- Allocation failures: substructure directories (M, K, C, tables, CHOLMOD checks) ------- */

static const char *const sub_dirs[] = {"tests/data/substructure/full",
                                       "tests/data/substructure/shoe", "tests/data/case/bar"};

START_TEST(test_alloc_substructure_read)
{
    const char *dir = sub_dirs[_i];
    long k, in_cholmod = 0;
    for (k = 0; k < MAX_ALLOCS; k++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_substructure *s = NULL;
        tvds_alloc_fail_after(k);
        int rc = tvds_substructure_read(dir, NULL, &s, &ctx);
        tvds_alloc_fail_after(-1);
        if (rc == TVDS_OK) {
            ck_assert_ptr_nonnull(s);
            ck_assert_int_eq(tvds_substructure_validate(s, &ctx), TVDS_OK);
            tvds_substructure_free(&s);
            ck_assert_ptr_null(s);
            break;
        }
        check_nomem(rc, &ctx, k, dir);
        ck_assert_ptr_null(s);
        in_cholmod += strstr(ctx.msg, "CHOLMOD") != NULL;
    }
    ck_assert_msg(k > 0 && k < MAX_ALLOCS, "%s: %ld allocations", dir, k);
    /* The positive-definiteness checks (CHOLMOD LL' of M and of K + sigma M) were reached. */
    ck_assert_msg(in_cholmod >= 2, "%s: only %ld failures inside CHOLMOD", dir, in_cholmod);
}
END_TEST

/* ---- Allocation failures: case file, model, engine data, a short run with outputs ---------- */

/* A free oscillator; the SDND100 shoe with a Lagrange friction contact on a rigid plane; the
 * shoe on the deformable bar's edge, driven by a constraint (two substructures). (The case
 * files of tests/data/reliability/ are ours, so that changes to models/ do not move these
 * tests; tests/data/case/valid.ini is read by the fuzz tests, its penalty contact does not
 * run yet.) */
static const char *const case_files[] = {"tests/data/case/oscillator.ini",
                                         "tests/data/reliability/shoe_friction.ini",
                                         "tests/data/reliability/contact_lost.ini"};

/* Read the case, create the engine's data, take a few steps, then run it with outputs.
 * Returns the first error. */
static int case_to_run(const char *path, const char *outdir, tvds_ctx *ctx)
{
    const char *ov[] = {"run.t_end=2e-3", "run.out_dt=1e-4", "run.window=0 2e-3"};
    tvds_model *m = NULL;
    int rc = tvds_case_read(path, ov, 3, &m, ctx);
    if (rc != TVDS_OK) {
        ck_assert_ptr_null(m);
        return rc;
    }
    tvds_data *d = NULL;
    rc = tvds_data_create(m, &d, ctx);
    if (rc != TVDS_OK) {
        ck_assert_ptr_null(d);
        tvds_model_free(&m);
        return rc;
    }
    for (int k = 0; k < 20 && rc == TVDS_OK; k++)
        rc = tvds_step(m, d, ctx);
    tvds_data_free(&d);
    ck_assert_ptr_null(d);
    if (rc == TVDS_OK) {
        tvds_run_opts o = tvds_run_opts_default();
        rc = tvds_run(m, outdir, &o, ctx);
    }
    tvds_model_free(&m);
    ck_assert_ptr_null(m);
    return rc;
}

START_TEST(test_alloc_case_run)
{
    const char *path = case_files[_i];
    tmp_setup();
    char out[128];
    snprintf(out, sizeof out, "%s/out", tmpdir);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_msg(case_to_run(path, out, &ctx) == TVDS_OK, "%s: %s", path, ctx.msg);
    long k;
    for (k = 0; k < MAX_ALLOCS; k++) {
        tvds_ctx_init(&ctx);
        tvds_alloc_fail_after(k);
        int rc = case_to_run(path, out, &ctx);
        tvds_alloc_fail_after(-1);
        if (rc == TVDS_OK) break;
        check_nomem(rc, &ctx, k, path);
    }
    ck_assert_msg(k > 0 && k < MAX_ALLOCS, "%s: %ld allocations", path, k);
    tmp_teardown();
}
END_TEST

/* ---- Matrix Market: declared size far above the entries (fuzz finding, fixed) -------------- */

/* A three-line file declaring 2^31 - 1 rows and columns: the duplicate check used markers of
 * one long per row and per column (2 x 17 GB, touched), which got the process killed by the
 * kernel's OOM killer after minutes. The search is O(entries) when the size is out of
 * proportion, and a declared size whose row and column arrays alone would take more than a
 * quarter of the machine's memory is refused at the size line, before anything is allocated
 * (CHOLMOD's column pointers would need O(columns) too). The first file is
 * tests/fuzz/regress/mm/huge_size_duplicate.mtx. */
START_TEST(test_mm_huge_declared_size)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int r = 0, c = 0;
    double *A = NULL;
    const char *dup = "tests/fuzz/regress/mm/huge_size_duplicate.mtx";
    ck_assert_int_eq(tvds_mm_read_dense(dup, &r, &c, &A, NULL, &ctx), TVDS_ERR_PARSE);
    char want[256];
    snprintf(want, sizeof want,
             "%s:2: size line declares 2147483647 x 2147483647: its row and "
             "column arrays alone would take",
             dup);
    ck_assert_msg(strncmp(ctx.msg, want, strlen(want)) == 0, "%s", ctx.msg);
    ck_assert_ptr_null(A);

    tmp_setup();
    char path[128];
    snprintf(path, sizeof path, "%s/huge.mtx", tmpdir);
    tvds_test_write_file(NULL, path,
                         "%%MatrixMarket matrix coordinate real general\n"
                         "2147483647 2147483647 2\n1 1 1\n2147483647 2147483647 2\n");
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_mm_read_dense(path, &r, &c, &A, NULL, &ctx), TVDS_ERR_PARSE);
    snprintf(want, sizeof want, "%s:2: size line declares 2147483647 x 2147483647", path);
    ck_assert_msg(strncmp(ctx.msg, want, strlen(want)) == 0, "%s", ctx.msg);
    ck_assert_ptr_null(A);
    tmp_teardown();
}
END_TEST

/* Differential test of the two duplicate searches: random coordinate files with duplicates and
 * mirrored symmetric entries, read once with their true size (bucket search) and once with a
 * size line of 70000 (sorted search); the messages after the path agree. */
START_TEST(test_mm_duplicate_searches_agree)
{
    tmp_setup();
    uint64_t st = 0x2545F4914F6CDD1Dull;
    int ndup = 0;
    for (int trial = 0; trial < 300; trial++) {
        int sym = trial % 2, n = 2 + trial % 5;
        int npos = sym ? n * (n + 1) / 2 : n * n; /* more is refused by the size check */
        int nnz = 1 + trial % (npos < 7 ? npos : 7);
        char body[2048];
        int len = 0;
        for (int e = 0; e < nnz; e++) {
            st ^= st >> 12;
            st ^= st << 25;
            st ^= st >> 27;
            uint64_t v = st * 0x2545F4914F6CDD1Dull;
            int i = 1 + (int)(v % (uint64_t)n), j = 1 + (int)((v >> 20) % (uint64_t)n);
            len += snprintf(body + len, sizeof body - (size_t)len, "%d %d %d\n", i, j, e + 1);
        }
        char msg[2][1024];
        for (int big = 0; big < 2; big++) {
            char path[128], text[2300];
            snprintf(path, sizeof path, "%s/d%d.mtx", tmpdir, big);
            int dim = big ? 70000 : n; /* 2 x 70000 > 4 nnz + 65536: sorted search */
            snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real %s\n%d %d %d\n%s",
                     sym ? "symmetric" : "general", dim, dim, nnz, body);
            tvds_test_write_file(NULL, path, text);
            cholmod_common cc;
            ck_assert_int_eq(tvds_cholmod_start(&cc), TVDS_OK);
            tvds_ctx ctx;
            tvds_ctx_init(&ctx);
            cholmod_sparse *S = NULL;
            int rc = tvds_mm_read(path, &S, &cc, &ctx);
            cholmod_free_sparse(&S, &cc);
            cholmod_finish(&cc);
            snprintf(msg[big], sizeof msg[big], "%s",
                     rc == TVDS_ERR_PARSE ? ctx.msg + strlen(path) : "no duplicate");
        }
        ndup += strcmp(msg[0], "no duplicate") != 0;
        ck_assert_msg(strcmp(msg[0], msg[1]) == 0, "trial %d:\n%s\n  bucket: %s\n  sorted: %s",
                      trial, body, msg[0], msg[1]);
    }
    ck_assert_int_ge(ndup, 100); /* most trials do have a duplicate or a mirrored pair */
    tmp_teardown();
}
END_TEST

/* ---- Fuzz seeds and reproducers: every file obeys the readers' error contract --------------- */

/* Calls fn on every regular file of dir (a missing directory has no files); returns the count. */
static int for_each_file(const char *dir, void (*fn)(const char *path))
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        fn(path);
        n++;
    }
    closedir(d);
    return n;
}

static void mm_contract(const char *path)
{
    cholmod_common cc;
    ck_assert_int_eq(tvds_cholmod_start(&cc), TVDS_OK);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    cholmod_sparse *A = NULL;
    int rc = tvds_mm_read(path, &A, &cc, &ctx);
    if (rc == TVDS_OK) {
        ck_assert_ptr_nonnull(A);
        ck_assert(cholmod_check_sparse(A, &cc));
    } else {
        ck_assert_msg(rc == TVDS_ERR_PARSE, "%s: %s (%s)", path, tvds_status_name(rc), ctx.msg);
        ck_assert_ptr_null(A);
        ck_assert_msg(strncmp(ctx.msg, path, strlen(path)) == 0 && ctx.msg[strlen(path)] == ':',
                      "%s: message does not start with the path: %s", path, ctx.msg);
    }
    cholmod_free_sparse(&A, &cc);
    cholmod_finish(&cc);
}

START_TEST(test_fuzz_mm_files)
{
    int n = for_each_file("tests/fuzz/corpus/mm", mm_contract);
    ck_assert_int_ge(n, 40); /* the seeds include every file of tests/data/mmio */
    for_each_file("tests/fuzz/regress/mm", mm_contract);
}
END_TEST

static void case_contract(const char *path)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read(path, NULL, 0, &m, &ctx);
    ck_assert_msg((rc == TVDS_OK) == (m != NULL), "%s: status %d, model %p", path, rc, (void *)m);
    if (rc != TVDS_OK) {
        ck_assert_msg(rc < 0 && ctx.status == rc && ctx.msg[0], "%s: status %d, ctx %d '%s'", path,
                      rc, ctx.status, ctx.msg);
        ck_assert_msg(strchr(ctx.msg, '\n') == NULL, "%s: message of several lines", path);
    }
    tvds_model_free(&m);
}

/* Case files of the fuzz corpus name substructures relative to the corpus directory, where
 * there are none: each must fail cleanly (or succeed), never crash. */
START_TEST(test_fuzz_case_files)
{
    ck_assert_int_ge(for_each_file("tests/fuzz/corpus/case", case_contract), 3);
    for_each_file("tests/fuzz/regress/case", case_contract);
}
END_TEST

/* ---- Bad-input catalogue through the CLI (docs/reliability.md) ---------------------------- */

/* Run `tvds ARGS... -o tmpdir/out` with stdout discarded and stderr captured; returns the exit
 * status (-1 when killed) and the stderr text in err (malloc'ed, caller frees). */
static int run_cli(const char *const *args, int nargs, char **err)
{
    char errp[192], out[192];
    snprintf(errp, sizeof errp, "%s/stderr.txt", tmpdir);
    snprintf(out, sizeof out, "%s/out", tmpdir);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        const char *argv[32];
        int n = 0;
        argv[n++] = TVDS_BIN;
        for (int k = 0; k < nargs && n < 28; k++)
            argv[n++] = args[k];
        argv[n++] = "-o";
        argv[n++] = out;
        argv[n] = NULL;
        if (!freopen("/dev/null", "w", stdout) || !freopen(errp, "w", stderr)) _exit(126);
        execv(TVDS_BIN, (char *const *)argv);
        _exit(127);
    }
    int wst = 0;
    ck_assert_int_eq(waitpid(pid, &wst, 0), pid);
    FILE *f = fopen(errp, "r");
    ck_assert_ptr_nonnull(f);
    char buf[2048];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    *err = strdup(buf);
    return WIFEXITED(wst) ? WEXITSTATUS(wst) : -1;
}

typedef struct cli_case {
    const char *args[8];
    int exit_code;
    const char *msg; /* stderr is exactly "tvds: " msg "\n" (prefix: only its start) */
    int prefix;
    const char *status; /* summary.json "status" of a run that started, or NULL */
} cli_case;

#define OSC "tests/data/case/oscillator.ini"
static const cli_case cli_cases[] = {
    {{"run", OSC, "--set", "run.dt=0.03"},
     2,
     OSC ": time step dt = 0.03 s is above the stability limit 0.02 s of central differences "
         "(set allow_unstable_dt to force it)",
     0,
     NULL},
    {{"run", OSC, "--set", "run.dt=0.0201", "--set", "run.allow_unstable_dt=yes", "--set",
      "run.t_end=100"},
     3,
     "t = 2.0301 s, step 101: runaway energy",
     1,
     "diverged"},
    {{"run", "tests/data/reliability/contact_lost.ini"},
     3,
     "t = 0.5001 s, step 5000: contact 'slide': slave node 1 left the master surface past its "
     "last node 30 (alpha = 1.0002)",
     0,
     "contact_lost"},
    {{"run", "tests/data/reliability/bad_mass.ini"},
     2,
     "tests/data/reliability/../substructure/bad_m_indefinite/M.mtx: substructure 'bad': M is "
     "not positive definite: its Cholesky factorization (LL', natural order) breaks down at DoF "
     "2 (node 1 uy)",
     0,
     NULL},
    {{"run", "tests/data/case/bad_key.ini"},
     2,
     "tests/data/case/bad_key.ini:5: unknown key 'speed' in [run]",
     0,
     NULL},
    {{"run", OSC, "--set", "run.nosuch=1"},
     2,
     "--set run.nosuch=1: unknown key 'nosuch' in [run]",
     0,
     NULL},
    {{"run", OSC, "--set", "run.dt"}, 2, "--set run.dt: expected section.key=value", 0, NULL},
    {{"run", OSC, "--set", "contact.tip.mu=0.2"},
     2,
     "--set contact.tip.mu=0.2: no section [contact tip] in the case file",
     0,
     NULL},
    {{"run", OSC, "--set", "run.dt=-1"}, 2, "--set run.dt=-1: dt = -1 must be > 0", 0, NULL},
    {{"run", OSC, "--set", "substructure.shoe.dir=nowhere"},
     2,
     "tests/data/case/nowhere: not a substructure directory: No such file or directory",
     0,
     NULL},
};

START_TEST(test_cli_catalogue)
{
    const cli_case *c = &cli_cases[_i];
    tmp_setup();
    int nargs = 0;
    while (nargs < 8 && c->args[nargs])
        nargs++;
    char *err = NULL;
    int code = run_cli(c->args, nargs, &err);
    ck_assert_msg(code == c->exit_code, "exit %d, expected %d; stderr: %s", code, c->exit_code,
                  err);
    char want[1024];
    snprintf(want, sizeof want, "tvds: %s%s", c->msg, c->prefix ? "" : "\n");
    if (c->prefix) {
        ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "stderr '%s' does not start with '%s'",
                      err, want);
        ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
    } else {
        ck_assert_str_eq(err, want);
    }
    free(err);
    if (c->status) {
        char summ[192], word[96];
        snprintf(summ, sizeof summ, "%s/out/summary.json", tmpdir);
        snprintf(word, sizeof word, "\"status\": \"%s\"", c->status);
        char *js = tvds_test_slurp(summ, NULL);
        ck_assert_ptr_nonnull(js);
        ck_assert_msg(strstr(js, word) != NULL, "summary.json lacks %s: %s", word, js);
        free(js);
    }
    tmp_teardown();
}
END_TEST

/* ---- Long runs: constant memory over 10^6 steps ------------------------------------------- */

typedef struct mem_probe {
    long calls;
    long count0;  /* tvds_alloc_count at the first progress call */
    long changed; /* progress calls that saw another count */
    long rss0_kb, rss_max_kb;
} mem_probe;

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    long size = 0, resident = 0;
    int ok = fscanf(f, "%ld %ld", &size, &resident) == 2;
    fclose(f);
    return ok ? resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

static void on_progress(void *user, const tvds_progress *p)
{
    mem_probe *mp = user;
    long c = tvds_alloc_count(), r = rss_kb();
    if (mp->calls++ == 0) {
        mp->count0 = c;
        mp->rss0_kb = mp->rss_max_kb = r;
        return;
    }
    mp->changed += c != mp->count0;
    if (r > mp->rss_max_kb) mp->rss_max_kb = r;
    (void)p;
}

/* The oscillator case (one node, u = u0 cos(100 t)) for 10^6 steps of 1e-4 s: no allocation
 * and no growth of the resident set while stepping and writing 10^4 output rows. */
START_TEST(test_long_run_constant_memory)
{
    tmp_setup();
    const char *ov[] = {"run.t_end=100", "run.out_dt=0.01"};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read("tests/data/case/oscillator.ini", ov, 2, &m, &ctx) == TVDS_OK,
                  "%s", ctx.msg);
    mem_probe mp = {0};
    tvds_run_result res;
    tvds_run_opts o = tvds_run_opts_default();
    o.progress = on_progress;
    o.user = &mp;
    o.progress_interval = 0.02;
    /* summary.json is refreshed from inside the loop too: that path must not allocate. */
    o.summary_interval = 0.05;
    o.result = &res;
    char out[128];
    snprintf(out, sizeof out, "%s/long", tmpdir);
    int rc = tvds_run(m, out, &o, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_ge(res.steps, 1000000);
    ck_assert_double_eq_tol(res.t_reached, 100.0, 1e-4);
    ck_assert_int_ge(mp.calls, 3);
    ck_assert_msg(mp.changed == 0, "%ld of %ld progress calls saw allocations", mp.changed,
                  mp.calls);
    /* Resident set: CSV and JSON buffers are allocated before the first progress call; a leak
     * of even one byte per step would add a megabyte. */
    ck_assert_msg(mp.rss_max_kb - mp.rss0_kb < 1024, "resident set grew by %ld kB",
                  mp.rss_max_kb - mp.rss0_kb);
    /* Physics: undamped central differences conserve a modified energy exactly, so after
     * 10^6 steps the amplitude of u = u0 cos(100 t) (u0 = 1e-3 m) is still u0 within the
     * scheme's (omega h / 2)^2 / 2 = 1.25e-5: the peak of the last 10 s of samples (every
     * 0.01 s, about 160 periods, so the samples come within 1 % of the crest) lies in
     * [0.99 u0, (1 + 1e-4) u0]. */
    char hist[192];
    snprintf(hist, sizeof hist, "%s/history.csv", out);
    FILE *f = fopen(hist, "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    long rows = 0;
    double peak = 0.0, t = 0.0, u = 0.0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%lf,%lf", &t, &u) == 2) {
            rows++;
            if (t >= 90.0 && fabs(u) > peak) peak = fabs(u);
        }
    fclose(f);
    ck_assert_int_ge(rows, 10000);
    ck_assert_double_ge(peak, 0.99e-3);
    ck_assert_double_le(peak, 1e-3 * (1.0 + 1e-4));
    tvds_model_free(&m);
    tmp_teardown();
}
END_TEST

/* The SDND100 shoe sliding on its plane with Coulomb friction (Lagrange contact, two
 * constraints), 10^6 engine steps: no allocation at all in the time loop, and the motion
 * stops where the analytic solution says (r = 0.05 mm after the 4th half cycle, t = 4 pi / 100
 * s) and stays there for the remaining ten seconds: the long run does not drift. */
START_TEST(test_long_steps_no_alloc)
{
    const char *ov[] = {"run.t_end=11"};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read("tests/data/reliability/shoe_friction.ini", ov, 1, &m, &ctx) ==
                      TVDS_OK,
                  "%s", ctx.msg);
    tvds_data *d = NULL;
    ck_assert_msg(tvds_data_create(m, &d, &ctx) == TVDS_OK, "%s", ctx.msg);
    long before = tvds_alloc_count();
    for (long k = 0; k < 1000000; k++) {
        int rc = tvds_step(m, d, &ctx);
        ck_assert_msg(rc == TVDS_OK, "step %ld: %s", k, ctx.msg);
    }
    ck_assert_int_eq(tvds_alloc_count(), before);
    ck_assert_int_ge(tvds_data_steps(d), 1000000);
    /* SDND100 reference at rest: DY = r cos 45 = 0.05 mm * 0.70711 = 3.5355e-5 m; tolerance
     * 5e-3 relative, the reference's own on its last extremum (docs/validation.md). */
    int n = 0;
    const char *const *names = NULL;
    const double *vals = NULL;
    ck_assert_int_eq(tvds_channels(d, TVDS_GROUP_HISTORY, &n, &names, &vals), TVDS_OK);
    int col = -1;
    for (int k = 0; k < n; k++)
        if (strncmp(names[k], "dy", 2) == 0) col = k;
    ck_assert_int_ge(col, 0);
    ck_assert_double_eq_tol(vals[col], 0.05e-3 * sqrt(0.5), 5e-3 * 3.5355e-5);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* ---- SIGINT: `tvds run` stops cleanly, outputs valid, status "interrupted" ---------------- */

static int count_fields(const char *b, const char *e)
{
    int n = 1;
    for (const char *p = b; p < e; p++)
        n += *p == ',';
    return n;
}

START_TEST(test_sigint_interrupted)
{
    tmp_setup();
    char out[128];
    snprintf(out, sizeof out, "%s/run", tmpdir);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char err[192];
        snprintf(err, sizeof err, "%s/stderr.txt", tmpdir);
        if (!freopen("/dev/null", "w", stdout) || !freopen(err, "w", stderr)) _exit(126);
        /* 10^7 steps (tens of seconds): still running when the signal comes. */
        execl(TVDS_BIN, TVDS_BIN, "run", "tests/data/case/oscillator.ini", "-o", out, "--set",
              "run.t_end=1000", "--set", "run.out_dt=1e-3", (char *)NULL);
        _exit(127);
    }
    /* Wait until the run has written its first rows, then interrupt it. */
    char hist[192], summ[192];
    snprintf(hist, sizeof hist, "%s/history.csv", out);
    snprintf(summ, sizeof summ, "%s/summary.json", out);
    struct stat st;
    for (int k = 0; k < 200 && (stat(summ, &st) != 0 || stat(hist, &st) != 0); k++)
        tvds_test_sleep_s(0.05);
    tvds_test_sleep_s(0.5);
    ck_assert_int_eq(kill(pid, SIGINT), 0);
    int wst = 0;
    ck_assert_int_eq(waitpid(pid, &wst, 0), pid);
    ck_assert_msg(WIFEXITED(wst), "tvds run did not exit normally (signal %d)",
                  WIFSIGNALED(wst) ? WTERMSIG(wst) : 0);
    ck_assert_int_eq(WEXITSTATUS(wst), tvds_status_exit_code(TVDS_ERR_INTERRUPTED));

    /* One line on stderr saying so. */
    char errp[192];
    snprintf(errp, sizeof errp, "%s/stderr.txt", tmpdir);
    char *es = tvds_test_slurp(errp, NULL);
    ck_assert_ptr_nonnull(es);
    ck_assert_msg(strstr(es, "interrupted") != NULL, "stderr: %s", es);
    free(es);

    char *js = tvds_test_slurp(summ, NULL);
    ck_assert_ptr_nonnull(js);
    ck_assert_msg(strstr(js, "\"status\": \"interrupted\"") != NULL, "summary.json: %s", js);
    ck_assert_ptr_nonnull(strstr(js, "TVDS_ERR_INTERRUPTED"));
    /* A complete JSON object (ends with '}' and a newline). */
    size_t n = strlen(js);
    while (n > 0 && (js[n - 1] == '\n' || js[n - 1] == ' '))
        n--;
    ck_assert(n > 0 && js[n - 1] == '}');
    free(js);

    /* history.csv: a header and whole rows only, every row as many fields as the header, time
     * strictly increasing; the run stopped well before t_end. */
    char *h = tvds_test_slurp(hist, NULL);
    ck_assert_ptr_nonnull(h);
    size_t hn = strlen(h);
    ck_assert(hn > 0 && h[hn - 1] == '\n');
    const char *line = h, *nl = strchr(h, '\n');
    int nf = count_fields(line, nl);
    ck_assert_int_ge(nf, 2);
    long rows = 0;
    double tprev = -1.0;
    for (line = nl + 1; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        ck_assert_ptr_nonnull(nl);
        ck_assert_int_eq(count_fields(line, nl), nf);
        double t = strtod(line, NULL);
        ck_assert(t > tprev);
        tprev = t;
        rows++;
    }
    ck_assert_int_ge(rows, 2);
    ck_assert(tprev < 1000.0);
    free(h);
    tmp_teardown();
}
END_TEST

/* ---- Special files refused by name, never opened for a blocking read --------------------------
 */

/* Each reader given a FIFO (no writer: an open for reading without O_NONBLOCK blocks for ever)
 * refuses it at once with its path. Before: every one of them hung in fopen (alarm fired). */
static const char *const fifo_readers[] = {
    "case file",           "Matrix Market",    "substructure dofs.txt", "full-model dofs.txt",
    "full-model sets.txt", "full-model M.mtx", "CalculiX *INCLUDE",     "CalculiX .sti",
    "table file",          "history file"};

static void fifo_at(const char *dir, const char *file)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    unlink(p);
    ck_assert_msg(mkfifo(p, 0600) == 0, "mkfifo %s: %s", p, strerror(errno));
}

START_TEST(test_fifo_refused_at_once)
{
    tmp_setup();
    alarm(15); /* a blocking open ends the test (and, without fork, the runner) */
    cholmod_common cc;
    ck_assert_int_eq(tvds_cholmod_start(&cc), TVDS_OK);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cholmod_ctx(&ctx);
    char p[400], q[400], text[800], cwd[512];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    const char *what = fifo_readers[_i], *fifo = NULL;
    int rc = TVDS_OK;
    if (!strcmp(what, "case file")) {
        fifo_at(tmpdir, fifo = "case.ini");
        tvds_model *m = NULL;
        snprintf(p, sizeof p, "%s/case.ini", tmpdir);
        rc = tvds_case_read(p, NULL, 0, &m, &ctx);
        ck_assert_ptr_null(m);
    } else if (!strcmp(what, "Matrix Market")) {
        fifo_at(tmpdir, fifo = "A.mtx");
        cholmod_sparse *A = NULL;
        snprintf(p, sizeof p, "%s/A.mtx", tmpdir);
        rc = tvds_mm_read(p, &A, &cc, &ctx);
    } else if (!strcmp(what, "substructure dofs.txt")) {
        snprintf(p, sizeof p, "cp -r tests/data/substructure/full %s/sub", tmpdir);
        ck_assert_int_eq(system(p), 0);
        snprintf(p, sizeof p, "%s/sub", tmpdir);
        fifo_at(p, fifo = "dofs.txt");
        tvds_substructure *sub = NULL;
        rc = tvds_substructure_read(p, NULL, &sub, &ctx);
        ck_assert_ptr_null(sub);
    } else if (!strncmp(what, "full-model", 10)) {
        snprintf(p, sizeof p, "cp -r models/beam_on_beam/beam2_full %s/fm", tmpdir);
        ck_assert_int_eq(system(p), 0);
        snprintf(p, sizeof p, "%s/fm", tmpdir);
        fifo = strchr(what, ' ') + 1;
        fifo_at(p, fifo);
        char mp[450], kp[450], dp[450], sp[450];
        snprintf(mp, sizeof mp, "%s/M.mtx", p);
        snprintf(kp, sizeof kp, "%s/K.mtx", p);
        snprintf(dp, sizeof dp, "%s/dofs.txt", p);
        snprintf(sp, sizeof sp, "%s/sets.txt", p);
        tvds_fe_paths paths = {mp, kp, dp, sp, 0};
        tvds_fe_model *m = NULL;
        rc = tvds_fe_model_read(&paths, &m, &cc, &ctx);
        ck_assert_ptr_null(m);
    } else if (!strncmp(what, "CalculiX", 8)) {
        tvds_test_write_file(tmpdir, "job.inp", "*NODE\n1, 0\n2, 1\n*INCLUDE, INPUT=more.inc\n");
        tvds_test_write_file(tmpdir, "more.inc", "3, 2\n");
        tvds_test_write_file(tmpdir, "job.dof", "2.1\n3.1\n");
        tvds_test_write_file(tmpdir, "job.sti", "1 1 1\n2 2 1\n");
        tvds_test_write_file(tmpdir, "job.mas", "1 1 1\n2 2 1\n");
        fifo_at(tmpdir, fifo = strstr(what, "INCLUDE") ? "more.inc" : "job.sti");
        snprintf(p, sizeof p, "%s/job.inp", tmpdir);
        tvds_fe_model *m = NULL;
        rc = tvds_import_calculix(p, &m, NULL, &cc, &ctx);
        ck_assert_ptr_null(m);
    } else if (!strcmp(what, "table file")) {
        fifo_at(tmpdir, fifo = "force.txt");
        snprintf(text, sizeof text,
                 "[run]\nt_end = 0.01\ndt = 1e-4\n[substructure shoe]\ndir = "
                 "%s/tests/data/case/shoe\n[load f]\ndof = shoe:1:ux\nf = table force.txt\n",
                 cwd);
        tvds_test_write_file(tmpdir, "t.ini", text);
        snprintf(p, sizeof p, "%s/t.ini", tmpdir);
        tvds_model *m = NULL;
        rc = tvds_case_read(p, NULL, 0, &m, &ctx);
        ck_assert_ptr_null(m);
    } else {
        fifo_at(tmpdir, fifo = "history.csv");
        snprintf(p, sizeof p, "%s/history.csv", tmpdir);
        double *t = NULL, *x = NULL;
        long n = 0;
        rc = tvds_history_read_channel(p, "x", &t, &x, &n, NULL, &ctx);
        ck_assert_ptr_null(t);
    }
    alarm(0);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    ck_assert_msg(rc == TVDS_ERR_IO, "%s: status %d (%s)", what, rc, ctx.msg);
    snprintf(q, sizeof q, "%s: not a regular file", fifo);
    ck_assert_msg(strstr(ctx.msg, q) != NULL, "%s: '%s' not in '%s'", what, q, ctx.msg);
    tmp_teardown();
}
END_TEST

Suite *reliability_suite(void)
{
    Suite *s = suite_create("reliability");

    TCase *ta = tcase_create("alloc");
    tcase_add_loop_test(ta, test_alloc_mm_read, 0, (int)(sizeof mm_files / sizeof mm_files[0]));
    tcase_add_test(ta, test_cholmod_alloc_routed);
    tcase_add_loop_test(ta, test_alloc_substructure_read, 0,
                        (int)(sizeof sub_dirs / sizeof sub_dirs[0]));
    tcase_add_loop_test(ta, test_alloc_case_run, 0,
                        (int)(sizeof case_files / sizeof case_files[0]));
    tcase_set_timeout(ta, 30);
    suite_add_tcase(s, ta);

    TCase *tc = tcase_create("catalogue");
    tcase_add_loop_test(tc, test_cli_catalogue, 0, (int)(sizeof cli_cases / sizeof cli_cases[0]));
    tcase_set_timeout(tc, 20);
    suite_add_tcase(s, tc);

    TCase *tf = tcase_create("fuzz_files");
    tcase_add_test(tf, test_fuzz_mm_files);
    tcase_add_test(tf, test_fuzz_case_files);
    tcase_add_test(tf, test_mm_huge_declared_size);
    tcase_add_test(tf, test_mm_duplicate_searches_agree);
    suite_add_tcase(s, tf);

    TCase *tq = tcase_create("special_files");
    tcase_add_loop_test(tq, test_fifo_refused_at_once, 0,
                        (int)(sizeof fifo_readers / sizeof fifo_readers[0]));
    tcase_set_timeout(tq, 20);
    suite_add_tcase(s, tq);

    /* Long and process-spawning tests: tagged "long", left out of the valgrind run. */
    TCase *tl = tcase_create("long");
    tcase_add_test(tl, test_long_run_constant_memory);
    tcase_add_test(tl, test_long_steps_no_alloc);
    tcase_add_test(tl, test_sigint_interrupted);
    tcase_set_tags(tl, "long");
    tcase_set_timeout(tl, 60);
    suite_add_tcase(s, tl);
    return s;
}
