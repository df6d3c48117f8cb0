/* cmd_bench.c — `tvds bench`: per-step cost of every contact method, modal vs physical path,
 * CEA, reduction of a large model and per-step cost vs reduced size; one table (CSV + Markdown).
 * The sections are a table (name, function, help) over cmd_bench_steps.c and cmd_bench_reduce.c;
 * the result table is cmd_bench_table.c's. */
/* mkdtemp is a BSD/POSIX extension of glibc. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd_bench_impl.h"
#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_output.h"

/* ---- Sections ---------------------------------------------------------------------------------
 */

/* What every section may read: the options of the command. */
typedef struct bench_env {
    const char *case_path; /* the beam-on-beam case */
    const char *work;      /* temporary directory of the generated models */
    const char *rsizes;    /* --reduce-sizes */
    int R, quick, large;   /* --repeats, --quick, --large */
    int cea_dofs;          /* --cea-dofs (0: not asked) */
    int cea_which;         /* --cea-solvers: bit 1 dense, 2 arpack, 4 complex shift */
    double scipy_limit;    /* --scipy-limit [s] */
} bench_env;

static int sec_methods(btab *t, const bench_env *e)
{
    return bench_methods(t, e->case_path, e->R, e->quick);
}

static int sec_reduce(btab *t, const bench_env *e)
{
    return bench_reduce(t, e->work, e->rsizes, e->scipy_limit);
}

static int sec_size(btab *t, const bench_env *e)
{
    return bench_size(t, e->work, e->R, e->quick);
}

static int sec_contacts(btab *t, const bench_env *e)
{
    return bench_contacts(t, e->work, e->R, e->quick);
}

static int sec_plate(btab *t, const bench_env *e)
{
    return bench_plate(t, e->work, e->R, e->quick);
}

static int sec_bob3d(btab *t, const bench_env *e)
{
    return bench_bob3d(t, e->work, e->R, e->quick);
}

static int sec_pads(btab *t, const bench_env *e)
{
    return bench_padplate(t, e->work, e->R, e->quick);
}

static int sec_sweep(btab *t, const bench_env *e)
{
    return bench_sweep(t, e->case_path, e->R, e->quick);
}

static int sec_large(btab *t, const bench_env *e)
{
    return e->large ? bench_setup_large(t, e->work) : TVDS_OK;
}

static int sec_cea_nodes(btab *t, const bench_env *e)
{
    return e->cea_dofs ? bench_cea_nodes(t, e->cea_dofs, e->R, e->cea_which) : TVDS_OK;
}

/* The sections in the order they run. Without --only every one runs (those with an option of
 * their own when it is given); --only NAME runs the section NAME alone when it is marked so, and
 * the multi-node CEA also runs beside it when --cea-dofs asks for it. */
typedef struct bench_section {
    const char *name;
    int (*run)(btab *t, const bench_env *e);
    int alone; /* 1: --only NAME runs it alone */
    int asked; /* 1: runs whenever its option asks for it, --only or not */
    const char *help;
} bench_section;

static const bench_section sections[] = {
    {"methods", sec_methods, 0, 0,
     "per contact method, modal vs physical path, CEA seconds per position"},
    {"reduce", sec_reduce, 1, 0, "'tvds reduce' wall time and peak memory (beside scipy)"},
    {"size", sec_size, 0, 0, "per-step cost vs reduced size n"},
    {"contacts", sec_contacts, 1, 0, "per-step cost vs the number of contact nodes"},
    {"plate", sec_plate, 0, 0, "3D node-to-face contact on a plate"},
    {"bob3d", sec_bob3d, 1, 0, "the 3D beam-on-beam"},
    {"pads", sec_pads, 1, 0, "pads of m = 1 .. 256 nodes on a Craig-Bampton plate"},
    {"sweep", sec_sweep, 1, 0, "sweep efficiency on 1 and 2 workers"},
    {"large", sec_large, 0, 0, "set-up of large reduced models (with --large)"},
    {"cea-nodes", sec_cea_nodes, 1, 1,
     "multi-node CEA (with --cea-dofs; 600 DoFs alone unless --cea-dofs)"},
};
#define NSECTIONS ((int)(sizeof sections / sizeof sections[0]))

static const bench_section *find_section(const char *name)
{
    for (int k = 0; k < NSECTIONS; k++)
        if (!strcmp(sections[k].name, name) && sections[k].alone) return &sections[k];
    return NULL;
}

static void bench_help(FILE *out)
{
    fprintf(out,
            "usage: tvds bench [-o DIR] [--case CASE] [--repeats R] [--quick] [--large]\n"
            "                  [--reduce-sizes N,N,...]\n"
            "                  [--only reduce|contacts|cea-nodes|sweep|bob3d|pads]\n"
            "                  [--cea-dofs N] [--cea-solvers dense,arpack,complex]\n"
            "                  [--scipy-limit S]\n"
            "\n"
            "Benchmarks of tvds on this machine (docs/performance.md). Every figure is the median\n"
            "of R runs (default 3). Prints one table and writes DIR/bench.csv and DIR/bench.md\n"
            "(default DIR bench/results):\n"
            "  - per contact method on the beam-on-beam case (default\n"
            "    models/beam_on_beam/beam_on_beam.ini, the study's case, or when it is missing\n"
            "    bench/cases/beam_on_beam.ini): us per step, steps per second, CPU of the full\n"
            "    transient (extrapolated from a measured segment, and for subs-b measured once\n"
            "    with central differences and with exact propagation; not with --quick), FiLm\n"
            "    iterations per step, ratio to FiLm;\n"
            "  - modal vs dense physical path (time ratio, max relative history difference);\n"
            "  - CEA seconds per position;\n"
            "  - 'tvds reduce' wall time and peak memory on a generated 3D solid (beam 2 as\n"
            "    8-node hexahedra, 'tvds model block') at each size of --reduce-sizes\n"
            "    (default 1e4,1e5), beside the same reduction by scipy (bench/cb_scipy.py)\n"
            "    where python3-scipy is installed;\n"
            "  - per-step cost vs the number m of contact nodes (504-DoF track, m = 1 .. 16 and\n"
            "    128): quadratic and straight-line fits, the target m = 16 <= 10 us;\n"
            "  - per-step cost vs reduced size n (synthetic track, one sliding contact): linear\n"
            "    fit, slope and R^2;\n"
            "  - 3D node-to-face contact: us per step of a slider on a plate of 8 x 8 faces\n"
            "    (4-node and 9-node faces), subs-b and FiLm;\n"
            "  - the 3D beam-on-beam (models/beam_on_beam/beam_on_beam_3d.ini on the default\n"
            "    'tvds model beam-on-beam-3d' pair): us per step, subs-b and FiLm;\n"
            "  - pads of m = 1, 4, 16, 64, 256 nodes sliding on a 1019-DoF Craig-Bampton plate\n"
            "    (interleaved rounds): us per step, the exponent of m, the ratios to m = 16\n"
            "    (targets 10 and 100) and subs-b against FiLm;\n"
            "  - sweep efficiency: 8 runs of the case on 1 and on 2 OpenMP workers, with the\n"
            "    load average (target >= 90 %% of ideal).\n"
            "\n"
            "options:\n"
            "  --case CASE     beam-on-beam case to time\n"
            "  --repeats R     runs per figure (median), default 3 (methods: at least 5)\n"
            "  --quick         short segments, small models (a smoke run, not a benchmark)\n"
            "  --large         also the set-up of reduced models of n = 2000, 3000, 5000\n"
            "                  (eigenbasis and flexibilities; a few minutes)\n"
            "  --reduce-sizes L  comma-separated DoF counts of the reduction rows (1e6 takes\n"
            "                  minutes: 'make bench BENCH_SIZES=1e4,1e5,1e6')\n"
            "  --only S        run one section only (below)\n"
            "  --cea-dofs N    also time the CEA with 1, 10, 100 contact nodes on a generated\n"
            "                  chain of N DoFs, dense eigenanalysis (~N^3; 2000 takes minutes,\n"
            "                  left out above 2500) beside the shift-invert Arnoldi with\n"
            "                  its real shift and with a complex shift\n"
            "  --cea-solvers L the solvers of those rows, comma-separated: dense, arpack,\n"
            "                  complex (default all three)\n"
            "  --scipy-limit S stop scipy after S seconds (default 1800)\n"
            "  -o, --output D  output directory (created)\n"
            "  -h, --help      this help\n"
            "\n"
            "sections, in the order they run (--only: those marked alone):\n");
    for (int k = 0; k < NSECTIONS; k++)
        fprintf(out, "  %-10s %-6s %s\n", sections[k].name, sections[k].alone ? "alone" : "",
                sections[k].help);
}

int tvds_cmd_bench(int argc, char **argv)
{
    /* The study's case when it is there, else the bench's own copy of the same model. */
    const char *outdir = "bench/results", *val;
    const char *case_path = access("models/beam_on_beam/beam_on_beam.ini", R_OK) == 0
                                ? "models/beam_on_beam/beam_on_beam.ini"
                                : "bench/cases/beam_on_beam.ini";
    int R = 3, quick = 0, large = 0, cea_dofs = 0, cea_which = 7;
    const char *rsizes = NULL, *only = NULL, *cea_solvers = NULL;
    double scipy_limit = 1800.0;
    const tvds_cli_opt opts[] = {{"--quick", NULL, NULL, &quick, 1},
                                 {"--large", NULL, NULL, &large, 1},
                                 {"--reduce-sizes", NULL, &rsizes, NULL, 0},
                                 {"--only", NULL, &only, NULL, 0},
                                 {"--cea-solvers", NULL, &cea_solvers, NULL, 0},
                                 {"--output", "-o", &outdir, NULL, 0},
                                 {"--case", NULL, &case_path, NULL, 0},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (tvds_cli_is_help(a)) {
            bench_help(stdout);
            return 0;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) return 2;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--repeats", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_int(val, &R) || R < 1 || R > 15)
                return tvds_cli_usage_error("bench: --repeats %s: need an integer in 1..15", val);
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--cea-dofs", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_int(val, &cea_dofs) || cea_dofs < 8 || cea_dofs > 10000)
                return tvds_cli_usage_error("bench: --cea-dofs %s: need an integer in 8..10000",
                                            val);
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--scipy-limit", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &scipy_limit) || scipy_limit <= 0)
                return tvds_cli_usage_error("bench: --scipy-limit %s: need seconds > 0", val);
        } else {
            return tvds_cli_usage_error("bench: unexpected argument '%s' (see 'tvds bench "
                                        "--help')",
                                        a);
        }
    }
    if (cea_solvers) {
        cea_which = 0;
        char buf[128];
        snprintf(buf, sizeof buf, "%s", cea_solvers);
        for (char *sv = NULL, *tok = strtok_r(buf, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
            if (strcmp(tok, "dense") == 0)
                cea_which |= 1;
            else if (strcmp(tok, "arpack") == 0)
                cea_which |= 2;
            else if (strcmp(tok, "complex") == 0)
                cea_which |= 4;
            else
                return tvds_cli_usage_error("bench: --cea-solvers %s: expected a comma-separated "
                                            "list of dense, arpack, complex",
                                            cea_solvers);
        }
        if (!cea_which)
            return tvds_cli_usage_error("bench: --cea-solvers: name at least one solver");
    }
    /* A case that cannot be read is one error line before anything runs. */
    tvds_ctx ctx;
    tvds_model *m = NULL;
    tvds_cli_sets none = {0};
    int code = tvds_cli_read_case(case_path, &none, &m, &ctx);
    tvds_model_free(&m);
    if (code) return code;
    if ((code = tvds_mkdir_p(outdir, &ctx)) != 0) return tvds_cli_report(code, &ctx);
    /* Generated models (the 1e5-DoF solid is ~180 MB, 1e6 2 GB) go to a temporary directory. */
    const char *tmp = getenv("TMPDIR");
    char work[1024];
    snprintf(work, sizeof work, "%s/tvds_bench_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(work))
        return tvds_cli_usage_error("bench: cannot create a directory in %s: %s",
                                    tmp && *tmp ? tmp : "/tmp", strerror(errno));
    char machine[512];
    bench_machine_string(machine, sizeof machine);
    printf("tvds bench on %s%s\ncase %s\n", machine, quick ? " (--quick: smoke run)" : "",
           case_path);
    printf("%-10s %-34s %14s %-10s %s\n", "section", "item", "value", "unit", "note");
    btab *t = calloc(1, sizeof *t);
    if (!t) return 1;
    double t0 = tvds_bench_now();
    const bench_section *alone = only ? find_section(only) : NULL;
    if (only && !alone) {
        free(t);
        bench_rm_tree(work);
        return tvds_cli_usage_error("bench: --only %s: the sections that run alone are "
                                    "'reduce', 'contacts', 'cea-nodes', 'sweep' and 'bob3d'",
                                    only);
    }
    if (alone && alone->run == sec_cea_nodes && !cea_dofs) cea_dofs = 600;
    if (!rsizes) rsizes = quick ? "1e4" : "1e4,1e5";
    const bench_env env = {case_path, work,     rsizes,    R,          quick,
                           large,     cea_dofs, cea_which, scipy_limit};
    int rc = TVDS_OK;
    for (int k = 0; k < NSECTIONS && !rc; k++)
        if (!only || &sections[k] == alone || sections[k].asked) rc = sections[k].run(t, &env);
    bench_rm_tree(work);
    bench_add(t, "bench", "total wall time", tvds_bench_now() - t0, "s", NULL);
    int wr = bench_write_outputs(t, outdir, machine, case_path);
    free(t);
    if (wr) return tvds_cli_usage_error("bench: cannot write %s/bench.csv or bench.md", outdir);
    printf("wrote %s/bench.csv and %s/bench.md\n", outdir, outdir);
    return rc ? tvds_status_exit_code(rc) : 0;
}
