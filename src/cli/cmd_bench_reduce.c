/* cmd_bench_reduce.c — `tvds bench`'s reduction rows ('tvds reduce' on generated solids beside
 * scipy, each in a child process with its own memory figure) and the multi-node CEA rows. */
/* wait4 (the rusage of one child), mkdtemp and gmtime_r are BSD/POSIX extensions of glibc. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd_bench_impl.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"
#include "tvds/tvds_sim.h"
#include "tvds/tvds_sweep.h"

/* Multi-node CEA (opt-in, --cea-dofs N): seconds per position with m = 1, 10, 100 active
 * contact nodes on tvds_bench_cea_chain(N, m), about the preloaded state, the dense
 * eigenproblem (standard form, dgeev), the shift-invert Arnoldi (ARPACK) with its real shift and
 * with the complex shift at the chain's ground-spring frequency (the bottom of its spectrum,
 * tvds_bench_cea_chain) side by side in the same run; the dense one is left out above
 * CEA_DENSE_MAX DoFs, where one position takes a quarter of an hour and 3 GB more
 * (docs/cea.md, "Cost"). which: bit k runs solver k (1 dense, 2 real shift, 4 complex). */
#define CEA_DENSE_MAX 2500
int bench_cea_nodes(btab *t, int N, int R, int which)
{
    static const char *const kname[3] = {"dense", "arpack", "arpack complex shift"};
    const int counts[3] = {1, 10, 100};
    double l0 = bench_load1();
    int reps = R < 16 ? R : 16;
    for (int q = 0; q < 3; q++) {
        if (counts[q] > N / 4) break;
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_model *m = tvds_bench_cea_chain(N, counts[q]);
        if (!m) return TVDS_ERR_NOMEM;
        tvds_cea_options o = tvds_cea_options_default();
        o.nthreads = 1;
        o.refine = 0;
        o.t_eval = 0.5;
        o.slave = TVDS_CEA_ALL_SLAVES;
        double s[2] = {0.0, 1.0}, sec[3] = {NAN, NAN, NAN}, cpu[3] = {NAN, NAN, NAN};
        tvds_cea_result *keep[3] = {NULL, NULL, NULL};
        for (int k = 0; k < 3; k++) {
            if (!(which & (1 << k)) || (k == 0 && N > CEA_DENSE_MAX)) continue;
            o.solver = k == 0 ? TVDS_CEA_STANDARD : TVDS_CEA_ARPACK;
            o.shift_hz = k == 2 ? TVDS_BENCH_CEA_CHAIN_FG : 0.0;
            double v[16], c[16];
            for (int r = 0; r < reps; r++) {
                tvds_cea_result *res = NULL;
                double t0 = tvds_bench_now(), c0 = tvds_bench_thread_cpu();
                int rc = tvds_cea_run(m, 0, s, 2, &o, &res, &ctx);
                v[r] = (tvds_bench_now() - t0) / 2;
                c[r] = (tvds_bench_thread_cpu() - c0) / 2;
                if (rc) {
                    bench_fail("cea-nodes", rc, &ctx);
                    tvds_model_free(&m);
                    for (int j = 0; j < 3; j++)
                        tvds_cea_result_free(&keep[j]);
                    return rc;
                }
                if (r == 0)
                    keep[k] = res;
                else
                    tvds_cea_result_free(&res);
            }
            sec[k] = bench_median(v, reps);
            cpu[k] = bench_median(c, reps);
        }
        char item[64];
        for (int k = 0; k < 3; k++) {
            if (!(which & (1 << k))) continue;
            snprintf(item, sizeof item, "%d nodes: %s, s per position", counts[q], kname[k]);
            if (!keep[k]) {
                bench_add(t, "cea-nodes", item, NAN, "s", "not run above %d DoFs", CEA_DENSE_MAX);
            } else if (k == 0) {
                bench_add(t, "cea-nodes", item, sec[0], "s",
                          "%d DoFs, 1 thread, 20 branches, dgeev; CPU %.3g s", N, cpu[0]);
            } else {
                bench_add(t, "cea-nodes", item, sec[k], "s",
                          "%d DoFs, %.0f operator applications, %d run(s); CPU %.3g s", N,
                          keep[k]->arpack_nops, keep[k]->arpack_attempts, cpu[k]);
            }
        }
        /* Against the dense result, else the real shift's: time ratio and the largest relative
         * frequency difference. */
        for (int k = 1; k < 3; k++) {
            int ref = keep[0] ? 0 : (k == 2 && keep[1] ? 1 : -1);
            if (!keep[k] || ref < 0) continue;
            int nb = keep[ref]->nbranch < keep[k]->nbranch ? keep[ref]->nbranch : keep[k]->nbranch;
            double dev = 0.0;
            for (int i2 = 0; i2 < keep[ref]->npos * nb; i2++) {
                double d = fabs(keep[k]->freq[i2] - keep[ref]->freq[i2]) / keep[ref]->freq[i2];
                if (!(d <= dev)) dev = d;
            }
            snprintf(item, sizeof item, "%d nodes: %s / %s time", counts[q],
                     ref ? "arpack" : "dense", k == 2 ? "complex shift" : "arpack");
            bench_add(t, "cea-nodes", item, sec[ref] / sec[k], "x",
                      "same run (CPU ratio %.3g); largest relative frequency difference %.1e",
                      cpu[ref] / cpu[k], dev);
        }
        for (int k = 0; k < 3; k++)
            tvds_cea_result_free(&keep[k]);
        tvds_model_free(&m);
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        bench_add(t, "cea-nodes", "peak RSS of the bench process", (double)ru.ru_maxrss / 1048576.0,
                  "GiB", "%s",
                  N > CEA_DENSE_MAX || !(which & 1) ? "arpack only" : "dense workspace included");
    bench_add(t, "cea-nodes", "load average after", bench_load1(), "", "%.2f before", l0);
    return TVDS_OK;
}

/* Run argv as a child (stdout to log) with an address-space limit (bytes, 0: none) and a wall
 * limit (s); *wall, *maxrss_kib (of that child alone, wait4) on return. 0 ok, 1 failed, 2 timed
 * out (the child is killed). */
static int run_child(char *const argv[], const char *log, double limit_bytes, double limit_s,
                     double *wall, double *cpu, long *maxrss_kib)
{
    double t0 = tvds_bench_now();
    fflush(stdout); /* or the child would write the parent's pending output again */
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        if (!freopen(log, "w", stdout)) _exit(127);
        if (limit_bytes > 0) {
            struct rlimit rl = {(rlim_t)limit_bytes, (rlim_t)limit_bytes};
            setrlimit(RLIMIT_AS, &rl);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int st = 0, timed_out = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        pid_t w = wait4(pid, &st, WNOHANG, &ru);
        if (w == pid) break;
        if (w < 0) return 1;
        if (limit_s > 0 && tvds_bench_now() - t0 > limit_s && !timed_out) {
            kill(pid, SIGKILL);
            timed_out = 1;
        }
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    *wall = tvds_bench_now() - t0;
    *cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    *maxrss_kib = ru.ru_maxrss;
    if (timed_out) return 2;
    return (WIFEXITED(st) && WEXITSTATUS(st) == 0) ? 0 : 1;
}

/* The python with scipy: Debian's /usr/bin/python3 first (another python3 may come first on
 * PATH without it), NULL when none imports scipy. */
static const char *scipy_python(void)
{
    static const char *const cand[] = {"/usr/bin/python3", "python3"};
    for (int i = 0; i < 2; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s -c 'import scipy.sparse.linalg' >/dev/null 2>&1", cand[i]);
        if (system(cmd) == 0) return cand[i];
    }
    return NULL;
}

/* Max relative difference between the modal frequencies of the tvds output (dofs.txt of the
 * reduced substructure) and scipy's "f=" list. */
static double freq_agreement(const char *red, const char *scipy_log)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *s = NULL;
    if (tvds_substructure_read(red, NULL, &s, &ctx) != TVDS_OK) return -1.0;
    double worst = -1.0;
    FILE *f = fopen(scipy_log, "r");
    char line[8192];
    const char *fp = NULL;
    while (f && fgets(line, sizeof line, f))
        if ((fp = strstr(line, " f="))) break;
    if (f) fclose(f);
    if (fp) {
        char *p = (char *)fp + 3, *end;
        for (int k = 0; k < s->n; k++) {
            if (s->dofs[k].kind != TVDS_DOF_MODAL) continue;
            double v = strtod(p, &end);
            if (end == p) break;
            worst = fmax(worst, fabs(s->dofs[k].freq_hz / v - 1.0));
            p = *end == ',' ? end + 1 : end;
        }
    }
    tvds_substructure_free(&s);
    return worst;
}

/* Echo the stage lines of a child's log ('tvds reduce --verbose'), which the table leaves out. */
static void print_log(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        fputs(line, stdout);
    if (f) fclose(f);
}

/* `tvds reduce` of the generated 3D solid (beam 2 as hexahedra, `tvds model block`) at each
 * size, boundary = the 10 x 10-node patch (300 DoFs), 20 modes, as a child process; beside it
 * the same reduction by scipy (bench/cb_scipy.py) when scipy is installed. */
int bench_reduce(btab *t, const char *dir, const char *sizes, double scipy_limit_s)
{
    char self[4096];
    ssize_t ls = readlink("/proc/self/exe", self, sizeof self - 1);
    if (ls <= 0) return TVDS_ERR_IO;
    self[ls] = '\0';
    const char *py = scipy_python();
    const char *script = access("bench/cb_scipy.py", R_OK) == 0 ? "bench/cb_scipy.py" : NULL;
    if (!py || !script)
        printf("reduce: scipy comparison skipped: %s\n",
               !script ? "bench/cb_scipy.py not found (run from the source tree)"
                       : "no python3 with scipy (Debian python3-scipy; 'make bench' installs it)");
    /* scipy's memory is capped below the machine's so that a fill-in it cannot hold fails
     * in its own process (MemoryError) instead of pushing the machine into swap. */
    double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    double cap = phys > 0 ? 0.5 * phys : 0;
    char *list = tvds_strdup(sizes), *save = NULL;
    if (!list) return TVDS_ERR_NOMEM;
    int rc = TVDS_OK;
    for (char *it = strtok_r(list, ",", &save); it && !rc; it = strtok_r(NULL, ",", &save)) {
        double want;
        if (tvds_cli_parse_double(it, &want) || want < 1e3 || want > 1e8) {
            fprintf(stderr, "tvds: bench: --reduce-sizes: '%s' is not a size in 1e3 .. 1e8\n", it);
            rc = TVDS_ERR_INVALID;
            break;
        }
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        cholmod_common cc;
        if (tvds_cholmod_start(&cc) != TVDS_OK) {
            rc = TVDS_ERR_SOLVER;
            break;
        }
        tvds_block_params bp = tvds_block_default();
        tvds_block_size_for(&bp, want);
        tvds_fe_model *fe = NULL;
        char full[4200], red[4200], logp[4200], slog[4200], nm[16];
        snprintf(full, sizeof full, "%s/block_%s", dir, it);
        snprintf(red, sizeof red, "%s/block_%s_cb", dir, it);
        snprintf(logp, sizeof logp, "%s/reduce_%s.log", dir, it);
        snprintf(slog, sizeof slog, "%s/scipy_%s.log", dir, it);
        double tg = tvds_bench_now();
        rc = tvds_block_build(&bp, &fe, &cc, &ctx);
        if (!rc) rc = tvds_fe_model_write(fe, full, &ctx);
        int n = fe ? fe->n : 0;
        tvds_fe_model_free(&fe, &cc);
        cholmod_finish(&cc);
        if (rc) {
            bench_fail("reduce model", rc, &ctx);
            break;
        }
        tg = tvds_bench_now() - tg;
        double la = bench_load1(), wall = 0, swall = 0, cpu = 0, scpu = 0;
        long rss = 0, srss = 0;
        char *targv[] = {self,      "reduce", "--model", full, "--boundary", "patch",
                         "--modes", "20",     "-o",      red,  "--verbose",  NULL};
        if (run_child(targv, logp, 0, 0, &wall, &cpu, &rss) != 0) {
            fprintf(stderr, "tvds: bench: 'tvds reduce' failed (log %s)\n", logp);
            rc = TVDS_ERR_SOLVER;
            break;
        }
        snprintf(nm, sizeof nm, "n=%.3g", (double)n);
        char item[64];
        snprintf(item, sizeof item, "%s tvds reduce wall", nm);
        bench_add(
            t, "reduce", item, wall, "s",
            "block %dx%dx%d hex8, %d DoFs, 300 boundary + 20 modes, whole command, CPU %.1f s; "
            "load %.2f",
            bp.nx, bp.ny, bp.nz, n, cpu, la);
        snprintf(item, sizeof item, "%s tvds reduce peak memory", nm);
        bench_add(t, "reduce", item, rss / 1024.0, "MiB", "max RSS of the child (wait4)");
        if (py && script) {
            char *sargv[] = {(char *)py, (char *)script, full, "patch", "20", NULL};
            int sr = run_child(sargv, slog, cap, scipy_limit_s, &swall, &scpu, &srss);
            snprintf(item, sizeof item, "%s scipy wall", nm);
            if (sr == 0) {
                double agree = freq_agreement(red, slog);
                bench_add(t, "reduce", item, swall, "s",
                          "bench/cb_scipy.py: splu + eigsh shift-invert, same model, CPU %.1f s; "
                          "load %.2f",
                          scpu, bench_load1());
                snprintf(item, sizeof item, "%s scipy peak memory", nm);
                bench_add(t, "reduce", item, srss / 1024.0, "MiB", "max RSS of the child (wait4)");
                snprintf(item, sizeof item, "%s tvds / scipy wall", nm);
                bench_add(t, "reduce", item, wall / swall, "-", "%s",
                          wall < swall ? "tvds faster" : "scipy faster");
                snprintf(item, sizeof item, "%s max rel. freq. difference", nm);
                bench_add(t, "reduce", item, agree, "-", "20 fixed-interface modes, tvds vs scipy");
            } else {
                bench_add(t, "reduce", item, swall, "s", "%s (log %s)",
                          sr == 2 ? "stopped at the time limit" : "failed (memory cap or error)",
                          slog);
            }
        }
        printf("reduce: generated %d DoFs in %.1f s\n", n, tg);
        print_log(logp);
        bench_rm_tree(full);
        bench_rm_tree(red);
    }
    tvds_free(list);
    return rc;
}
