/* cmd_cea.c — `tvds cea`: complex eigenvalue locus along the sliding path of a case. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_sweep.h"

static void cea_help(FILE *out)
{
    fprintf(
        out,
        "usage: tvds cea CASE [--positions N | --s0 A --s1 B] [--modes 20] [options] -o DIR\n"
        "\n"
        "Complex eigenvalue analysis along the sliding path (docs/cea.md): at each position s\n"
        "of the slave node along the master surface the substructures are coupled by primal\n"
        "assembly (compatibility B_C, equilibrium B_E with friction), linearised about the\n"
        "preloaded static sliding state (or the undeformed geometry, --state); the lowest\n"
        "complex eigenvalues are tracked across positions by MAC and the grid refines itself\n"
        "where a window could hide. Unstable windows get their predicted growth along the\n"
        "case's own path. Writes DIR/locus.csv, DIR/unstable.csv (damped), "
        "DIR/locus_undamped.csv,\n"
        "DIR/unstable_undamped.csv, DIR/locus.png, DIR/stability.png.\n"
        "\n"
        "options:\n"
        "  --positions N   number of positions (default 101), evenly spaced on [s0, s1]\n"
        "  --s0 A, --s1 B  first and last position [m] (default: the whole master surface).\n"
        "                  On a 3D face set, s is the distance the slave body has travelled\n"
        "                  along its direction of travel (the case's drive at t-eval) from\n"
        "                  its undeformed placement (s = 0); each slave node sits at its\n"
        "                  undeformed position + s along it, projected on the undeformed\n"
        "                  faces. Default: the travel over which every active node stays on\n"
        "                  the face set\n"
        "  --modes M       branches: lowest M oscillating eigenvalues (default 20)\n"
        "  --contact NAME  contact to analyse (default: the first one); 'all': every\n"
        "                  contact with all its slave nodes, positions those of the first\n"
        "  --chi +1|-1     sliding sign (default: from the case's kinematics)\n"
        "  --slave K       slave node of the contact, index in its node list (default 0);\n"
        "                  'all': every slave node of the contact at once, each with its\n"
        "                  normal row and friction term, s being the first node's position\n"
        "                  (on a face set, every node travels the same s: a line of slave\n"
        "                  nodes across a beam's width is --slave all)\n"
        "  --t-eval T      time of the steady state: damping schedule, sliding velocity\n"
        "                  (default: the case's t_end)\n"
        "  --solver S      auto (default: arpack from 200 DoFs up, dense should it fail;\n"
        "                  below, standard or qz),\n"
        "                  qz (LAPACK dggev), standard (dgeev): all eigenvalues, dense;\n"
        "                  arpack: shift-invert Arnoldi, the lowest ones only (large models)\n");
    fputs("  --shift-hz F    arpack with the complex shift i 2 pi F (complex LU), for crowded\n"
          "                  spectra: F at or below the lowest frequency wanted; it finds the\n"
          "                  candidates nearest F and misses none within h of it (h: the\n"
          "                  farthest kept one) with |Re| <= 0.25 h (docs/cea.md)\n"
          "  --state S       deformed (default): linearise about the preloaded static sliding\n"
          "                  state at each position (normal from the deformed master, alpha\n"
          "                  from the deformed positions, preload stiffness; as subs-b);\n"
          "                  undeformed: about the undeformed geometry (as subs-a)\n"
          "  --ds-min D      smallest spacing of the automatic refinement [m] (default 2.5e-4 x\n"
          "                  the surface: 0.025 mm on beam 2's edge; windows wider than 2 D are\n"
          "                  found where a branch nears zero or two branches approach)\n"
          "  --no-refine     the positions given only\n"
          "  --no-undamped   skip the undamped locus (locus_undamped.csv, unstable_undamped.csv)\n"
          "  --no-lateral-damping\n"
          "                  3D: keep the friction direction frozen against velocity\n"
          "                  perturbations, i.e. leave out the damping mu lambda_N / |v_t| of the\n"
          "                  relative velocity across the sliding direction (docs/cea.md,\n"
          "                  \"Lateral friction damping\"; for comparison)\n"
          "  --mirror x|y|z  the model is symmetric about the plane x = 0, y = 0 or z = 0 of its\n"
          "                  coordinates: each mode gets its antisymmetric share |u_A|^2/|u|^2\n"
          "                  over the translational physical DoFs (0: symmetric, e.g. the\n"
          "                  in-plane modes; 1: antisymmetric, e.g. lateral bending and\n"
          "                  torsion about z = 0), a column of locus.csv and unstable.csv and\n"
          "                  listed for each window; refused when a node has no mirror image\n"
          "                  (docs/cea.md, \"Symmetric and antisymmetric modes\")\n"
          "  --threads T     OpenMP threads over positions (default: OpenMP's)\n"
          "  --set S.K=V     override a case key (as 'tvds run')\n"
          "  -o, --output D  output directory (created; default out/<case name>/cea)\n"
          "  --resume        keep the positions already solved in D/cea.points (same case,\n"
          "                  options and input files) and solve only the others\n"
          "  -q, --quiet     no progress on stderr\n"
          "  -h, --help      this help\n"
          "\n"
          "Progress (positions done/total, rate, time left) goes to stderr after 2 s: in place\n"
          "on a terminal, else a line every 10 s. The output directory belongs to one command\n"
          "at a time (D/.lock); the outputs of an earlier CEA there are removed first, and\n"
          "D/status.json says \"running\", then \"ok\" or \"interrupted\". Ctrl-C, SIGTERM or\n"
          "SIGHUP stop within about a second (exit 3): the positions finished are tracked and\n"
          "written (locus.csv, unstable.csv; status.json: \"partial\": true and their count;\n"
          "refinement and the undamped locus may be missing); files are written whole (to a\n"
          "temporary name, then renamed). Each position solved is appended to D/cea.points\n"
          "(its eigenvalues and mode shapes, about 0.1 MB on the beam-on-beam); the same\n"
          "command with --resume solves only the missing ones and gives the locus of an\n"
          "uninterrupted CEA, byte for byte. It refuses a journal of other options or of an\n"
          "edited case or input file (a hash of them is in its first line), and cuts off a\n"
          "last record left incomplete. The journal is removed when the CEA completes.\n"
          "A position that cannot be solved (no static sliding state, a singular constraint\n"
          "operator, an eigensolver failure) is left out of the loci and listed with its\n"
          "reason in D/status.json (\"failed\"); the survey goes on (--resume tries it again).\n"
          "\n"
          "exit codes: 0 success (a missing gnuplot is a warning), 2 bad input or D in use,\n"
          "3 solver failure or interrupted, 1 internal error or an output that cannot be\n"
          "written.\n"
          "\n"
          "example:\n"
          "  tvds cea models/beam_on_beam/beam_on_beam.ini --positions 201 -o out/beam/cea\n",
          out);
}

/* A JSON string of text (quotes and backslashes escaped, control characters left out). */
static void json_string(FILE *f, const char *text)
{
    fputc('"', f);
    for (const char *c = text; *c; c++) {
        if (*c == '"' || *c == '\\') fputc('\\', f);
        if ((unsigned char)*c >= 0x20) fputc(*c, f);
    }
    fputc('"', f);
}

/* The positions of r that could not be solved, as the value of key: [{"s": ..., "status":
 * "TVDS_ERR_...", "reason": "..."}, ...]. */
static void json_failed(FILE *f, const char *key, const tvds_cea_result *r)
{
    fprintf(f, "  \"%s\": [", key);
    for (int i = 0; r && i < r->nfailed; i++) {
        const tvds_cea_failure *x = &r->failed[i];
        fprintf(f, "%s\n    {\"s\": %.17g, \"status\": \"%s\", \"reason\": ", i ? "," : "", x->s,
                tvds_status_name(x->status));
        json_string(f, x->reason);
        fputc('}', f);
    }
    fputs(r && r->nfailed ? "\n  ],\n" : "],\n", f);
}

/* DIR/status.json, replaced whole (temporary file, fsync, rename): what the CEA in DIR is
 * ("running", "ok", "interrupted"), whether locus.csv holds every position, and the positions
 * that could not be solved (damped r, undamped u; left out of the loci). */
static int cea_status(const char *dir, const char *status, const char *msg, int requested,
                      const tvds_cea_result *r, const tvds_cea_result *u, tvds_ctx *ctx)
{
    char path[4200], tmp[4220];
    snprintf(path, sizeof path, "%s/status.json", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    fprintf(f, "{\n  \"command\": \"cea\",\n  \"status\": \"%s\",\n", status);
    fprintf(f, "  \"partial\": %s,\n", r && !r->partial ? "false" : "true");
    fprintf(f, "  \"positions_requested\": %d,\n  \"positions_written\": %d,\n", requested,
            r ? r->npos : 0);
    fprintf(f, "  \"positions_failed\": %d,\n", r ? r->nfailed : 0);
    json_failed(f, "failed", r);
    json_failed(f, "failed_undamped", u);
    fputs("  \"message\": ", f);
    if (msg) {
        json_string(f, msg);
        fputs("\n}\n", f);
    } else {
        fputs("null\n}\n", f);
    }
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write failed: %s", path, strerror(e));
    }
    return TVDS_OK;
}

/* ---- The journal of solved positions, DIR/cea.points (--resume) -------------------------
 *
 * A text first line (the command's options and the inputs' hash), then one binary record per
 * position solved, written with one write() as it is solved: a header (magic, locus: 0 damped,
 * 1 undamped, sizes, s and the scalars), the eigenvalues and mode shapes, and a 64-bit FNV-1a
 * of the record. A record cut by a kill or a full disk is cut off before --resume appends. */

#define POINTS_MAGIC 0x31434456u /* "VDC1" */

typedef struct points_head {
    uint32_t magic;
    int32_t kind, ndof, nred, ncand, attempts, nops, pad;
    double s, chi, resid, lambda_n, slope;
} points_head;

static uint64_t fnv64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The callbacks' user: the progress line (first member: tvds_cli_progress_positions reads it)
 * and the journal. */
typedef struct cea_cb {
    tvds_cli_progress pg;
    int fd, kind, failed, err;
} cea_cb;

static void journal_solved(void *user, const tvds_cea_solved *v)
{
    cea_cb *c = user;
    if (c->fd < 0 || c->failed) return;
    size_t nd = (size_t)v->ncand * (2 + 2 * (size_t)v->ndof);
    size_t len = sizeof(points_head) + nd * sizeof(double) + sizeof(uint64_t);
    unsigned char *buf = malloc(len);
    if (!buf) {
        c->failed = 1;
        c->err = ENOMEM;
        return;
    }
    points_head h = {POINTS_MAGIC, c->kind,     v->ndof, v->nred, v->ncand,
                     v->attempts,  v->nops,     0,       v->s,    v->chi,
                     v->resid,     v->lambda_n, v->slope};
    unsigned char *q = buf;
    memcpy(q, &h, sizeof h);
    q += sizeof h;
    memcpy(q, v->lre, (size_t)v->ncand * sizeof(double));
    q += (size_t)v->ncand * sizeof(double);
    memcpy(q, v->lim, (size_t)v->ncand * sizeof(double));
    q += (size_t)v->ncand * sizeof(double);
    memcpy(q, v->u, (size_t)v->ncand * v->ndof * 2 * sizeof(double));
    q += (size_t)v->ncand * v->ndof * 2 * sizeof(double);
    uint64_t ck = fnv64(0xcbf29ce484222325ULL, buf, (size_t)(q - buf));
    memcpy(q, &ck, sizeof ck);
    off_t at = lseek(c->fd, 0, SEEK_END);
    ssize_t k = at >= 0 ? write(c->fd, buf, len) : -1;
    if (k != (ssize_t)len) {
        c->failed = 1;
        c->err = k < 0 ? errno : ENOSPC;
        if (at >= 0 && ftruncate(c->fd, at) != 0) c->err = errno;
    }
    free(buf);
}

/* Positions read back from the journal: per locus (0 damped, 1 undamped) the records and the
 * buffers they point into. */
typedef struct points_known {
    tvds_cea_solved *v[2];
    int n[2];
    double **data;
    int ndata;
} points_known;

static void points_known_free(points_known *k)
{
    for (int i = 0; i < k->ndata; i++)
        free(k->data[i]);
    free(k->data);
    free(k->v[0]);
    free(k->v[1]);
    memset(k, 0, sizeof *k);
}

/* Read path (signature sig on its first line, else exit 2: another CEA or changed inputs) into
 * *k; a record cut short or corrupt ends the reading and is cut off the file (*cut: bytes). A
 * missing file is none. Returns 0 or the exit code after printing the error. */
static int points_read(const char *path, const char *sig, points_known *k, long *cut)
{
    memset(k, 0, sizeof *k);
    *cut = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0
                               : tvds_cli_usage_error("%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t ll = getline(&line, &cap, f);
    if (ll <= 0 || line[ll - 1] != '\n') {
        free(line);
        fclose(f);
        return tvds_cli_usage_error("%s: not a CEA journal (run without --resume to start afresh)",
                                    path);
    }
    line[ll - 1] = '\0';
    if (strcmp(line, sig) != 0) {
        const char *a = strstr(line, " inputs="), *b = strstr(sig, " inputs=");
        int changed = a && b && a - line == b - sig && !strncmp(line, sig, (size_t)(a - line));
        int rc = tvds_cli_usage_error(
            changed ? "%s: the case file or a file it reads changed since this CEA began: run "
                      "without --resume to start afresh"
                    : "%s: written by another CEA (other case, positions or options): run "
                      "without --resume to start afresh",
            path);
        free(line);
        fclose(f);
        return rc;
    }
    free(line);
    long good = ftell(f);
    int cap_v[2] = {0, 0}, cap_d = 0;
    for (;;) {
        points_head h;
        if (fread(&h, sizeof h, 1, f) != 1) break;
        if (h.magic != POINTS_MAGIC || h.kind < 0 || h.kind > 1 || h.ndof < 1 ||
            h.ndof > 10000000 || h.ncand < 0 || h.ncand > 100000)
            break;
        size_t nd = (size_t)h.ncand * (2 + 2 * (size_t)h.ndof);
        double *d = malloc((nd ? nd : 1) * sizeof *d);
        uint64_t ck;
        if (!d) break;
        if (fread(d, sizeof *d, nd, f) != nd || fread(&ck, sizeof ck, 1, f) != 1 ||
            fnv64(fnv64(0xcbf29ce484222325ULL, &h, sizeof h), d, nd * sizeof *d) != ck) {
            free(d);
            break;
        }
        if (k->ndata == cap_d) {
            cap_d = cap_d ? 2 * cap_d : 64;
            double **g = realloc(k->data, (size_t)cap_d * sizeof *g);
            if (!g) {
                free(d);
                break;
            }
            k->data = g;
        }
        k->data[k->ndata++] = d;
        int kd = h.kind;
        if (k->n[kd] == cap_v[kd]) {
            cap_v[kd] = cap_v[kd] ? 2 * cap_v[kd] : 64;
            tvds_cea_solved *g = realloc(k->v[kd], (size_t)cap_v[kd] * sizeof *g);
            if (!g) break;
            k->v[kd] = g;
        }
        tvds_cea_solved *v = &k->v[kd][k->n[kd]++];
        *v = (tvds_cea_solved){.s = h.s,
                               .ndof = h.ndof,
                               .nred = h.nred,
                               .ncand = h.ncand,
                               .chi = h.chi,
                               .resid = h.resid,
                               .lambda_n = h.lambda_n,
                               .slope = h.slope,
                               .attempts = h.attempts,
                               .nops = h.nops,
                               .lre = d,
                               .lim = d + h.ncand,
                               .u = d + 2 * (size_t)h.ncand};
        good = ftell(f);
    }
    fseek(f, 0, SEEK_END);
    long end = ftell(f);
    fclose(f);
    if (end > good) {
        if (truncate(path, good) != 0)
            return tvds_cli_usage_error("%s: cannot cut off its last record: %s", path,
                                        strerror(errno));
        *cut = end - good;
    }
    return 0;
}

/* First line of the journal: the options that decide the locus (every argument but --resume,
 * -q, --threads and the output directory) and the inputs' hash. */
static void points_signature(int argc, char **argv, const char *inputs, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "# tvds cea points:");
    for (int i = 1; i < argc && len < n; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--resume") || !strcmp(a, "-q") || !strcmp(a, "--quiet") ||
            !strncmp(a, "--threads=", 10) || !strncmp(a, "--output=", 9))
            continue;
        if (!strcmp(a, "--threads") || !strcmp(a, "-o") || !strcmp(a, "--output")) {
            i++;
            continue;
        }
        int k = snprintf(buf + len, n - len, " %s", a);
        if (k > 0) len += (size_t)k;
    }
    if (len < n) snprintf(buf + len, n - len, " inputs=%s", inputs);
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

/* ---- The command ------------------------------------------------------------------------- */

/* What the command line asks for. */
typedef struct cea_args {
    const char *case_path, *outdir, *cname;
    tvds_cli_sets sets; /* --set overrides */
    tvds_cea_options o;
    int npos, have_s0, have_s1, norefine, noundamped, nolateral, quiet, resume;
    double s0, s1;
} cea_args;

/* Parse the command line into *a (a->sets holds the --set list). Returns -1 to go on, else the
 * exit code (0 after --help, 2 after an error it printed). */
static int cea_parse(int argc, char **argv, cea_args *a)
{
    const char *val;
    double v;
    int r;
    tvds_cea_options *o = &a->o;
    const tvds_cli_opt opts[] = {{"--output", "-o", &a->outdir, NULL, 0},
                                 {"--quiet", "-q", NULL, &a->quiet, 1},
                                 {"--resume", NULL, NULL, &a->resume, 1},
                                 {"--contact", NULL, &a->cname, NULL, 0},
                                 {"--no-refine", NULL, NULL, &a->norefine, 1},
                                 {"--no-undamped", NULL, NULL, &a->noundamped, 1},
                                 {"--no-lateral-damping", NULL, NULL, &a->nolateral, 1},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (tvds_cli_is_help(arg)) {
            cea_help(stdout);
            return 0;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) return 2;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--positions", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v < 1 || v > 1e6 || v != floor(v)) {
                tvds_cli_usage_error("cea: --positions %s: expected an integer >= 1", val);
                return 2;
            }
            a->npos = (int)v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--s0", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &a->s0)) {
                tvds_cli_usage_error("cea: --s0 %s: expected a position [m]", val);
                return 2;
            }
            a->have_s0 = 1;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--s1", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &a->s1)) {
                tvds_cli_usage_error("cea: --s1 %s: expected a position [m]", val);
                return 2;
            }
            a->have_s1 = 1;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--modes", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v < 1 || v > 10000 || v != floor(v)) {
                tvds_cli_usage_error("cea: --modes %s: expected an integer >= 1", val);
                return 2;
            }
            o->nmodes = (int)v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--chi", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || (v != 1.0 && v != -1.0)) {
                tvds_cli_usage_error("cea: --chi %s: expected +1 or -1", val);
                return 2;
            }
            o->chi = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--slave", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (strcmp(val, "all") == 0) {
                o->slave = TVDS_CEA_ALL_SLAVES;
            } else if (tvds_cli_parse_double(val, &v) || v < 0 || v > 1e6 || v != floor(v)) {
                tvds_cli_usage_error("cea: --slave %s: expected an index >= 0 or 'all'", val);
                return 2;
            } else {
                o->slave = (int)v;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--t-eval", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v < 0) {
                tvds_cli_usage_error("cea: --t-eval %s: expected a time >= 0 [s]", val);
                return 2;
            }
            o->t_eval = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--threads", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v < 1 || v > 1024 || v != floor(v)) {
                tvds_cli_usage_error("cea: --threads %s: expected an integer >= 1", val);
                return 2;
            }
            o->nthreads = (int)v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--mirror", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (!strcmp(val, "x") || !strcmp(val, "y") || !strcmp(val, "z")) {
                o->mirror = 1 + (val[0] - 'x');
            } else {
                tvds_cli_usage_error("cea: --mirror %s: expected x, y or z (the plane x = 0, "
                                     "y = 0 or z = 0)",
                                     val);
                return 2;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--state", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (!strcmp(val, "deformed"))
                o->state = TVDS_CEA_DEFORMED;
            else if (!strcmp(val, "undeformed"))
                o->state = TVDS_CEA_UNDEFORMED;
            else {
                tvds_cli_usage_error("cea: --state %s: expected deformed or undeformed", val);
                return 2;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--ds-min", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || !(v > 0)) {
                tvds_cli_usage_error("cea: --ds-min %s: expected a positive length [m]", val);
                return 2;
            }
            o->ds_min = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--shift-hz", NULL, &val)) != 0) {
            if (r < 0) return 2;
            double fs;
            if (tvds_cli_parse_double(val, &fs) || !(fs > 0) || !isfinite(fs)) {
                tvds_cli_usage_error("cea: --shift-hz %s: expected a frequency > 0 [Hz]", val);
                return 2;
            }
            o->shift_hz = fs;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--solver", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (!strcmp(val, "auto"))
                o->solver = TVDS_CEA_AUTO;
            else if (!strcmp(val, "qz"))
                o->solver = TVDS_CEA_QZ;
            else if (!strcmp(val, "standard"))
                o->solver = TVDS_CEA_STANDARD;
            else if (!strcmp(val, "arpack"))
                o->solver = TVDS_CEA_ARPACK;
            else {
                tvds_cli_usage_error("cea: --solver %s: expected auto, qz, standard or arpack",
                                     val);
                return 2;
            }
        } else if ((r = tvds_cli_case_or_set(argc, argv, &i, "cea", &a->sets, &a->case_path)) !=
                   0) {
            return r;
        }
    }
    if (!a->case_path) {
        tvds_cli_usage_error("cea: missing CASE (see 'tvds cea --help')");
        return 2;
    }
    return -1;
}

/* One CEA from the case read to the cleanup (cea_job_free). */
typedef struct cea_job {
    tvds_ctx ctx;
    tvds_model *m;
    tvds_cea_result *res, *und; /* the damped and the undamped locus */
    tvds_outdir *od;
    double *s;          /* the positions */
    char *dir;          /* the default output directory */
    cea_cb cb;          /* progress and journal */
    points_known known; /* positions of the journal (--resume) */
    tvds_cli_sets sets_copy;
    int contact, all_contacts;
    char ppath[4200], psig[8192]; /* the journal and its first line */
    struct timespec t0, t1;       /* the solve */
} cea_job;

static void cea_job_free(cea_job *j)
{
    tvds_cli_sigint(0);
    tvds_cli_sets_free(&j->sets_copy);
    if (j->cb.fd >= 0) close(j->cb.fd);
    points_known_free(&j->known);
    tvds_outdir_close(&j->od);
    tvds_cea_result_free(&j->res);
    tvds_cea_result_free(&j->und);
    tvds_model_free(&j->m);
    tvds_free(j->s);
    tvds_free(j->dir);
}

/* The contact, the positions (by default the master's length or the path over a face set) and
 * the output directory (by default out/NAME/cea). Returns 0 or the exit code. */
static int cea_positions(cea_args *a, cea_job *j)
{
    tvds_model *m = j->m;
    const char *cname = a->cname, *case_path = a->case_path;
    int contact = 0, npos = a->npos;
    if (m->ncontact < 1) {
        fprintf(stderr, "tvds: %s: the case has no contact to analyse\n", case_path);
        return 2;
    }
    j->all_contacts = cname && !strcmp(cname, "all");
    if (cname && !j->all_contacts) {
        contact = -1;
        for (int c = 0; c < m->ncontact; c++)
            if (m->contacts[c].name && !strcmp(m->contacts[c].name, cname)) contact = c;
        if (contact < 0) {
            fprintf(stderr, "tvds: %s: no contact '%s'\n", case_path, cname);
            return 2;
        }
    }
    j->contact = contact;
    if ((!a->have_s0 || !a->have_s1) && m->contacts[contact].master_kind == TVDS_MASTER_FACES) {
        /* Face set: the travel over which the active slave nodes stay on it. */
        double lo, hi;
        if (tvds_cea_path_range(m, contact, a->o.slave, a->o.t_eval, &lo, &hi, &j->ctx) !=
            TVDS_OK) {
            fprintf(stderr, "tvds: %s (give --s0 and --s1)\n", j->ctx.msg);
            return 2;
        }
        if (!a->have_s0) a->s0 = lo;
        if (!a->have_s1) a->s1 = hi;
    } else if (!a->have_s0 || !a->have_s1) {
        double L;
        if (tvds_cea_surface_length(m, contact, &L, &j->ctx) != TVDS_OK) {
            fprintf(stderr, "tvds: %s (give --s0 and --s1)\n", j->ctx.msg);
            return 2;
        }
        if (!a->have_s0) a->s0 = 0.0;
        if (!a->have_s1) a->s1 = L;
    }
    j->s = tvds_malloc((size_t)npos * sizeof *j->s);
    if (!j->s) return tvds_cli_report(TVDS_ERR_NOMEM, NULL);
    for (int i = 0; i < npos; i++)
        j->s[i] = npos == 1 ? a->s0 : a->s0 + (a->s1 - a->s0) * i / (npos - 1);
    if (!a->outdir) {
        const char *name = m->name ? m->name : "case";
        size_t len = strlen(name) + 16;
        j->dir = tvds_malloc(len);
        if (!j->dir) return tvds_cli_report(TVDS_ERR_NOMEM, NULL);
        snprintf(j->dir, len, "out/%s/cea", name);
        a->outdir = j->dir;
    }
    return 0;
}

/* The output directory, locked and cleared of an earlier CEA's outputs, status "running", and
 * the journal of solved positions (read back with --resume). Returns 0 or the exit code. */
static int cea_outdir(int argc, char **argv, const cea_args *a, cea_job *j)
{
    const char *outdir = a->outdir;
    /* The directory belongs to this command while it runs; the outputs of an earlier CEA there
     * go first, so that an interrupted or failed one leaves nothing that looks current. */
    static const char *const owned[] = {"locus.csv",
                                        "unstable.csv",
                                        "locus.png",
                                        "stability.png",
                                        "locus.gp",
                                        "stability.gp",
                                        "locus.csv.tmp",
                                        "unstable.csv.tmp",
                                        "locus_undamped.csv",
                                        "unstable_undamped.csv",
                                        "locus_undamped.csv.tmp",
                                        "unstable_undamped.csv.tmp",
                                        "status.json",
                                        "status.json.tmp",
                                        "cea.points"};
    /* Without --resume the journal of an earlier CEA goes too (the last name of owned). */
    int nowned = (int)(sizeof owned / sizeof *owned) - (a->resume ? 1 : 0);
    char inputs[17], *ppath = j->ppath, *psig = j->psig;
    int rc = tvds_outdir_open(outdir, &j->od, &j->ctx);
    if (!rc)
        rc = tvds_sweep_inputs_hash(a->case_path, j->sets_copy.v, j->sets_copy.n, inputs, &j->ctx);
    if (rc) return tvds_cli_report(rc, &j->ctx);
    snprintf(ppath, sizeof j->ppath, "%s/cea.points", outdir);
    points_signature(argc, argv, inputs, psig, sizeof j->psig);
    long pcut = 0;
    if (a->resume && (rc = points_read(ppath, psig, &j->known, &pcut)) != 0) return rc;
    rc = tvds_outdir_clear(j->od, owned, nowned, &j->ctx);
    if (!rc) rc = cea_status(outdir, "running", NULL, a->npos, NULL, NULL, &j->ctx);
    if (!rc) {
        j->cb.fd = open(ppath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
        struct stat st;
        if (j->cb.fd < 0 || fstat(j->cb.fd, &st) != 0)
            rc = TVDS_ERROR(&j->ctx, TVDS_ERR_IO, "%s: cannot open: %s", ppath, strerror(errno));
        else if (st.st_size == 0) {
            size_t sl = strlen(psig);
            psig[sl] = '\n';
            if (write(j->cb.fd, psig, sl + 1) != (ssize_t)(sl + 1))
                rc = TVDS_ERROR(&j->ctx, TVDS_ERR_WRITE, "%s: write failed: %s", ppath,
                                strerror(errno));
            psig[sl] = '\0';
        }
    }
    if (rc) return tvds_cli_report(rc, &j->ctx);
    if (a->resume && !a->quiet)
        fprintf(stderr,
                "cea: resuming: %d positions of the damped locus and %d of the undamped "
                "one already in %s%s\n",
                j->known.n[0], j->known.n[1], ppath,
                pcut ? " (its last record, cut short, removed)" : "");
    return 0;
}

/* The damped locus, then the undamped one; a stop keeps what was finished (status
 * "interrupted"). Returns 0 or the exit code. */
static int cea_solve(cea_args *a, cea_job *j)
{
    tvds_cea_options *o = &a->o;
    cea_cb *cb = &j->cb;
    const char *outdir = a->outdir;
    clock_gettime(CLOCK_MONOTONIC, &j->t0);
    if (a->norefine) o->refine = 0;
    if (a->nolateral) o->no_lateral = 1;
    o->stop = tvds_cli_stop_flag();
    tvds_cli_progress_init(&cb->pg, a->quiet, "cea");
    o->progress = tvds_cli_progress_positions;
    o->solved = journal_solved;
    o->user = cb;
    o->known = j->known.v[0];
    o->nknown = j->known.n[0];
    int run_contact = j->all_contacts ? TVDS_CEA_ALL_CONTACTS : j->contact;
    int rc = tvds_cea_run(j->m, run_contact, j->s, a->npos, o, &j->res, &j->ctx);
    if (!rc && !a->noundamped) {
        tvds_cea_options ou = *o;
        ou.undamped = 1;
        ou.known = j->known.v[1];
        ou.nknown = j->known.n[1];
        cb->kind = 1;
        cb->pg.prefix = "cea (undamped)";
        rc = tvds_cea_run(j->m, run_contact, j->s, a->npos, &ou, &j->und, &j->ctx);
    }
    tvds_cli_progress_clear(&cb->pg);
    if (cb->failed)
        fprintf(stderr,
                "tvds: warning: %s: write failed: %s (the positions after it are not kept for "
                "--resume)\n",
                j->ppath, strerror(cb->err));
    clock_gettime(CLOCK_MONOTONIC, &j->t1);
    if (rc == TVDS_ERR_INTERRUPTED) {
        /* Keep what was finished: the damped locus (partial when it was the one stopped),
         * and the undamped one when it had begun. */
        int sig = (int)*tvds_cli_stop_flag();
        char why[sizeof j->ctx.msg + 32];
        snprintf(why, sizeof why, "%s (%s)", j->ctx.msg, tvds_cli_signal_name(sig));
        tvds_ctx wctx;
        tvds_ctx_init(&wctx);
        int wrc = TVDS_OK;
        if (j->res) wrc = tvds_cea_write_csv(j->res, outdir, &wctx);
        if (!wrc && j->und) wrc = tvds_cea_write_csv_tag(j->und, outdir, "_undamped", &wctx);
        if (!wrc) wrc = cea_status(outdir, "interrupted", why, a->npos, j->res, j->und, &wctx);
        if (wrc) tvds_cli_report(wrc, &wctx);
        rc = tvds_cli_report(rc, &j->ctx);
        if (j->res)
            fprintf(stderr,
                    "tvds: cea: %d positions of the damped locus%s written to %s/locus.csv "
                    "(partial: see %s/status.json)\n",
                    j->res->npos, j->und ? " and the undamped one begun" : "", outdir, outdir);
        return rc;
    }
    if (rc) return tvds_cli_report(rc, &j->ctx);
    return 0;
}

/* The summary on stdout (and the fallback warning of ARPACK on stderr). */
static void cea_summary(const cea_args *a, const cea_job *j)
{
    const tvds_cea_result *res = j->res, *und = j->und;
    const tvds_contact *C = &j->m->contacts[j->contact];
    const char *outdir = a->outdir;
    printf("cea: %s, contact '%s', mu = %g, chi = %+g\n", a->case_path, C->name ? C->name : "?",
           C->mu_k, res->chi);
    printf("  %d positions on [%g, %g] m (%d given, %d added by refinement down to %.3g m%s), "
           "%d DoFs -> %d after primal assembly, %d branches, %.3f s\n",
           res->npos, a->s0, a->s1, a->npos, res->nrefined, res->ds_min,
           res->capped ? ", capped" : "", res->ndof, res->nred, res->nbranch,
           (double)(j->t1.tv_sec - j->t0.tv_sec) + 1e-9 * (double)(j->t1.tv_nsec - j->t0.tv_nsec));
    {
        double lmin = INFINITY, lmax = -INFINITY;
        for (int i = 0; i < res->npos; i++) {
            if (res->lambda_n[i] < lmin) lmin = res->lambda_n[i];
            if (res->lambda_n[i] > lmax) lmax = res->lambda_n[i];
        }
        printf("  linearised about the %s state; static normal force %.6g ... %.6g N\n",
               a->o.state == TVDS_CEA_DEFORMED ? "deformed (preloaded sliding)" : "undeformed",
               lmin, lmax);
    }
    printf("  largest backward error of the eigenpairs %.2g%s\n", res->resid_max,
           res->resid_max > 1e-8 ? " (inaccurate: try --solver qz or standard)" : "");
    if (res->arpack)
        printf("  eigenvalues by shift-invert Arnoldi (ARPACK): %.1f operator applications per "
               "position, at most %d run%s at one position\n",
               res->arpack_nops, res->arpack_attempts, res->arpack_attempts == 1 ? "" : "s");
    if (res->arpack_failure[0])
        fprintf(stderr,
                "tvds: cea: warning: the shift-invert Arnoldi failed (%s); the dense eigenproblem "
                "computed the locus instead\n",
                res->arpack_failure);
    for (int k = 0; k < 2; k++) {
        const tvds_cea_result *r = k ? und : res;
        if (!r || !r->nfailed) continue;
        fprintf(stderr,
                "tvds: cea: warning: %d position%s of the %s locus could not be solved and %s "
                "left out (%s/status.json); the first: %s\n",
                r->nfailed, r->nfailed == 1 ? "" : "s", k ? "undamped" : "damped",
                r->nfailed == 1 ? "is" : "are", outdir, r->failed[0].reason);
        printf("  %d position%s of the %s locus failed:", r->nfailed, r->nfailed == 1 ? "" : "s",
               k ? "undamped" : "damped");
        for (int i = 0; i < r->nfailed && i < 8; i++)
            printf(" %g", r->failed[i].s);
        printf("%s m\n", r->nfailed > 8 ? " ..." : "");
    }
    if (res->nwin == 0) printf("  no unstable window\n");
    for (int w = 0; w < res->nwin; w++) {
        const tvds_cea_window *cw = &res->win[w];
        printf("  unstable: branch %d, s in [%.6g, %.6g] m, f in [%.6g, %.6g] Hz, max Re %.4g 1/s",
               cw->branch, cw->s_start, cw->s_end, cw->f_min, cw->f_max, cw->re_max);
        if (res->anti) printf(", antisymmetric share %.3g", cw->anti_peak);
        if (isfinite(cw->growth_pred))
            printf(", crossed at t = %.4g ... %.4g s, predicted growth %.3g", cw->t_start,
                   cw->t_end, cw->growth_pred);
        printf("\n");
    }
    if (und) {
        double rmax = -INFINITY;
        for (int w = 0; w < und->nwin; w++)
            if (und->win[w].re_max > rmax) rmax = und->win[w].re_max;
        printf("  undamped locus: %d unstable window(s)%s", und->nwin, und->nwin ? "" : "\n");
        if (und->nwin) printf(", max Re %.4g 1/s (%s/unstable_undamped.csv)\n", rmax, outdir);
    }
    printf("  %s/locus.csv, %s/unstable.csv\n", outdir, outdir);
}

/* The predicted growth along the case's own path, locus.csv and unstable.csv (damped and
 * undamped), status "ok", the journal removed, the plots and the summary. Returns 0 or the
 * exit code. */
static int cea_output(const cea_args *a, cea_job *j)
{
    tvds_model *m = j->m;
    const char *outdir = a->outdir;
    int contact = j->contact, rc;
    /* Predicted growth along the case's own path (its slave from its start, 0 .. t_end). */
    double s_ini;
    int have_path =
        m->opt.t_end > 0 && tvds_cea_slave_abscissa(m, contact, a->o.slave < 0 ? 0 : a->o.slave,
                                                    &s_ini, &j->ctx) == TVDS_OK;
    if (have_path) {
        rc = tvds_cea_growth(j->res, m, contact, s_ini, m->opt.t_end, 0.0, &j->ctx);
        if (!rc && j->und)
            rc = tvds_cea_growth(j->und, m, contact, s_ini, m->opt.t_end, 0.0, &j->ctx);
        if (rc) return tvds_cli_report(rc, &j->ctx);
    }
    rc = tvds_cea_write_csv(j->res, outdir, &j->ctx);
    if (!rc && j->und) rc = tvds_cea_write_csv_tag(j->und, outdir, "_undamped", &j->ctx);
    if (!rc) rc = cea_status(outdir, "ok", NULL, a->npos, j->res, j->und, &j->ctx);
    if (!rc) {
        /* Every position is in locus.csv now: the journal is no longer needed. */
        close(j->cb.fd);
        j->cb.fd = -1;
        remove(j->ppath);
    }
    if (rc) return tvds_cli_report(rc, &j->ctx);
    int prc = tvds_cea_plot(j->res, outdir, &j->ctx);
    cea_summary(a, j);
    if (prc == TVDS_WARN_NO_GNUPLOT) {
        fprintf(stderr, "tvds: warning: %s\n", j->ctx.msg);
    } else if (prc != TVDS_OK) {
        return tvds_cli_report(prc, &j->ctx);
    } else {
        printf("  %s/locus.png, %s/stability.png\n", outdir, outdir);
    }
    return 0;
}

int tvds_cmd_cea(int argc, char **argv)
{
    cea_args a = {.o = tvds_cea_options_default(), .npos = 101};
    int rc = cea_parse(argc, argv, &a);
    if (rc >= 0) {
        tvds_cli_sets_free(&a.sets);
        return rc;
    }
    cea_job j;
    memset(&j, 0, sizeof j);
    j.cb.fd = -1;
    /* The overrides again for the inputs' hash (tvds_cli_read_case frees the list). */
    for (int i = 0; i < a.sets.n; i++)
        if (tvds_cli_sets_add(&j.sets_copy, a.sets.v[i])) {
            tvds_cli_sets_free(&j.sets_copy);
            tvds_cli_sets_free(&a.sets);
            return tvds_cli_report(TVDS_ERR_NOMEM, NULL);
        }
    /* From here a stop signal is a clean stop (the CEA sees the flag before its first
     * position), not a kill half way through the set-up. */
    tvds_cli_sigint(1);
    if ((rc = tvds_cli_read_case(a.case_path, &a.sets, &j.m, &j.ctx)) != 0) {
        tvds_cli_sigint(0);
        tvds_cli_sets_free(&j.sets_copy);
        return rc;
    }
    if (!(rc = cea_positions(&a, &j)) && !(rc = cea_outdir(argc, argv, &a, &j)) &&
        !(rc = cea_solve(&a, &j)))
        rc = cea_output(&a, &j);
    cea_job_free(&j);
    return rc;
}
