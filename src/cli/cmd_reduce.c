/* cmd_reduce.c — `tvds reduce`: Craig–Bampton reduction of a full Matrix Market model into a
 * substructure directory (docs/reduce.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"

static void reduce_help(FILE *out)
{
    fprintf(
        out,
        "usage: tvds reduce (--model DIR | --mass M.mtx --stiffness K.mtx --dofs dofs.txt\n"
        "                    [--sets sets.txt]) --boundary SPEC (--modes N | --fcut HZ)\n"
        "                   [--recover SPEC] [--faces LIST] [--sigma S] [--tol T]\n"
        "                   [--no-mass-check] -o OUTDIR [--verbose] [-q]\n"
        "\n"
        "Craig-Bampton reduction of a full FE model (sparse symmetric M and K in Matrix\n"
        "Market files, one DoF label per line in dofs.txt: '<node> <ux|uy|uz|rx|ry|rz> <x>\n"
        "<y> <z>'). The boundary DoFs are kept as physical DoFs, followed by N fixed-interface\n"
        "modes (mass-normalised, labelled with their frequency). OUTDIR receives a\n"
        "substructure directory (M.mtx, K.mtx, dofs.txt, sets.txt, recovery rows).\n"
        "\n"
        "Sets: every node set and every face set ('face <name> <node>...' lines of sets.txt,\n"
        "3D contact surfaces) whose nodes are all retained is written to the substructure's\n"
        "sets.txt (a face set needs ux, uy and uz of each of its nodes); the others are left\n"
        "out. Naming a face set in --boundary retains its nodes.\n"
        "\n"
        "options:\n"
        "  --model DIR      DIR/M.mtx, DIR/K.mtx, DIR/dofs.txt and DIR/sets.txt (if present)\n"
        "  --mass, --stiffness, --dofs, --sets   the same files named one by one\n"
        "  --boundary SPEC  retained DoFs: comma-separated items, each a node-set name\n"
        "                   (all DoFs of its nodes, set order), SET.y (one direction),\n"
        "                   a face-set name or face:NAME (all DoFs of the face set's\n"
        "                   nodes, face order), set:NAME, NODE, NODE.x, or #INDEX\n"
        "                   (0-based DoF index)\n"
        "  --modes N        fixed-interface modes to keep (default 20)\n"
        "  --fcut HZ        keep the fixed-interface modes below HZ (with --modes: at most N)\n"
        "  --recover SPEC   interior DoFs to recover (rows of the reduction basis)\n"
        "  --faces LIST     face sets (comma-separated) that must reach the substructure:\n"
        "                   an error names the first node not retained (a face set named\n"
        "                   in --boundary is checked the same way)\n"
        "  --sigma S        eigensolver shift, <= 0 [rad^2/s^2] (default 0)\n"
        "  --tol T          ARPACK relative tolerance (default 1e-12)\n"
        "  --no-mass-check  skip the sparse Cholesky of M that proves it positive definite\n"
        "                   (the diagonal and the reduced mass are still checked)\n"
        "  -o, --output DIR output substructure directory (created)\n"
        "  --verbose        print sizes, times and peak memory\n"
        "  -q, --quiet      no progress line\n"
        "  -h, --help       this help\n"
        "\n"
        "The input is checked before anything is computed or written: M and K symmetric (a\n"
        "'general' file holding one triangle is refused), the DoFs of a node at one position,\n"
        "node sets, declared sizes against dofs.txt and memory, M positive definite, no\n"
        "negative stiffness on the diagonal; N must be below the number of interior DoFs.\n"
        "The boundary must restrain every rigid-body motion (the interior stiffness K_ii must\n"
        "be positive definite); otherwise the command stops with exit code 2, names a DoF and\n"
        "tells an unrestrained boundary from a negative stiffness in K.\n"
        "\n"
        "OUTDIR is locked while the command runs (a second reduce or import into it stops\n"
        "with exit code 2) and its files are replaced as a whole: written into OUTDIR/.new,\n"
        "listed with their checksums in OUTDIR/manifest.txt, then renamed into place; a\n"
        "directory whose files differ from its manifest is refused by every reader. On a\n"
        "terminal a progress line shows the stage (read, factor, modes, constraint modes,\n"
        "projection, write), its progress and the time left. Ctrl-C, SIGTERM or SIGHUP stop\n"
        "the reduction within a second (not inside one sparse factorization) and leave\n"
        "OUTDIR as it was (exit code 3); a second signal kills at once.\n"
        "exit codes: 0 success, 1 internal error, 2 bad input or OUTDIR in use, 3 solver\n"
        "failure or interrupted.\n"
        "\n"
        "example:\n"
        "  tvds model beam-on-beam -o out/bob\n"
        "  tvds reduce --model out/bob/beam2_full --boundary top --modes 20 --recover T.y \\\n"
        "      -o out/beam2_cb --verbose\n"
        "  tvds import calculix pad.inp -o pad_full    # *SURFACE CONTACT -> face set\n"
        "  tvds reduce --model pad_full --boundary face:CONTACT --modes 30 -o pad_cb\n");
}

/* Whether p names something (never opened here: a FIFO would block; the reader refuses what
 * is not a regular file). */
static int file_exists(const char *p)
{
    return access(p, F_OK) == 0;
}

/* Progress line on stderr (a terminal, not -q): stage k of 6, its progress, the time left.
 * Stages 2-5 are the library's (tvds_reduce_progress), 1 and 6 reading and writing. */
typedef struct red_progress {
    int tty, shown;
    double t0, last, stage_t0;
    int stage;
} red_progress;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void red_line(red_progress *p, int stage, const char *name, long done, long total)
{
    if (!p->tty) return;
    double t = mono_s();
    if (stage != p->stage) {
        p->stage = stage;
        p->stage_t0 = t;
    } else if (t - p->last < 0.25) { /* at most 4 updates a second */
        return;
    }
    p->last = t;
    double in = t - p->stage_t0;
    char what[80] = "";
    if (total > 0 && done > 0 && done < total)
        snprintf(what, sizeof what, "%ld/%ld, %.0f s left", done, total,
                 in * (double)(total - done) / (double)done);
    else if (total == 0 && done > 0)
        snprintf(what, sizeof what, "%ld solves", done);
    fprintf(stderr, "\rreduce [%d/6] %-16s %-28s %7.1f s ", stage, name, what, t - p->t0);
    fflush(stderr);
    p->shown = 1;
}

static void red_progress_lib(void *user, const tvds_reduce_progress *pr)
{
    red_line(user, pr->index + 1, pr->stage, pr->done, pr->total);
}

static void red_clear(red_progress *p)
{
    if (p->shown) fprintf(stderr, "\r%78s\r", "");
    p->shown = 0;
}

/* Exit code 3 and one line when a stop signal came during a step that cannot be cut (reading,
 * writing); 0 otherwise. */
static int stopped_at(const char *where, red_progress *p)
{
    int sig = (int)*tvds_cli_stop_flag();
    if (!sig) return 0;
    red_clear(p);
    fprintf(stderr, "tvds: reduce: interrupted %s (%s); the output directory is unchanged\n", where,
            tvds_cli_signal_name(sig));
    return 3;
}

static void print_stats(const tvds_reduce_stats *st, FILE *out)
{
    fprintf(out,
            "reduce: n = %d DoFs (nnz K = %ld), boundary %d, interior %d, modes %d"
            " (highest %.6g Hz)\n"
            "reduce: rcond(K_ii) ~ %.3g\n"
            "reduce: factor %.3f s (nnz L = %ld), constraint modes %.3f s, eigenmodes %.3f s"
            " (%d restarts, %d solves), projection %.3f s, total %.3f s\n"
            "reduce: peak memory (max RSS) %.1f MiB\n",
            st->n, st->nnz_K, st->nb, st->ni, st->nm, st->f_max_hz, st->rcond_Kii, st->t_factor,
            st->nnz_L, st->t_static, st->t_modes, st->arpack_iter, st->arpack_nops, st->t_project,
            st->t_total, st->peak_rss_kb / 1024.0);
}

int tvds_cmd_reduce(int argc, char **argv)
{
    const char *model = NULL, *mpath = NULL, *kpath = NULL, *dpath = NULL, *spath = NULL;
    const char *bspec = NULL, *rspec = NULL, *fspec = NULL, *outdir = NULL, *val;
    tvds_reduce_opts opt = tvds_reduce_opts_default();
    int verbose = 0, modes_given = 0, no_mass_check = 0, quiet = 0, r;
    const tvds_cli_opt opts[] = {{"--verbose", "-v", NULL, &verbose, 1},
                                 {"--quiet", "-q", NULL, &quiet, 1},
                                 {"--model", NULL, &model, NULL, 0},
                                 {"--no-mass-check", NULL, NULL, &no_mass_check, 1},
                                 {"--mass", NULL, &mpath, NULL, 0},
                                 {"--stiffness", NULL, &kpath, NULL, 0},
                                 {"--dofs", NULL, &dpath, NULL, 0},
                                 {"--sets", NULL, &spath, NULL, 0},
                                 {"--boundary", NULL, &bspec, NULL, 0},
                                 {"--recover", NULL, &rspec, NULL, 0},
                                 {"--faces", NULL, &fspec, NULL, 0},
                                 {"--output", "-o", &outdir, NULL, 0},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (tvds_cli_is_help(a)) {
            reduce_help(stdout);
            return 0;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) return 2;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--modes", NULL, &val)) != 0) {
            int v;
            if (r < 0) return 2;
            if (tvds_cli_parse_int(val, &v) || v < 1 || v > 100000)
                return tvds_cli_usage_error("reduce: --modes %s: need an integer >= 1", val);
            opt.nmodes = v;
            modes_given = 1;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--fcut", NULL, &val)) != 0) {
            double v;
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v <= 0)
                return tvds_cli_usage_error("reduce: --fcut %s: need a frequency > 0 [Hz]", val);
            opt.f_cut_hz = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--sigma", NULL, &val)) != 0) {
            double v;
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v > 0)
                return tvds_cli_usage_error("reduce: --sigma %s: need a shift <= 0", val);
            opt.sigma = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--tol", NULL, &val)) != 0) {
            double v;
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v <= 0 || v >= 1)
                return tvds_cli_usage_error("reduce: --tol %s: need 0 < tol < 1", val);
            opt.tol = v;
        } else {
            return tvds_cli_usage_error("reduce: unexpected argument '%s' (see 'tvds reduce "
                                        "--help')",
                                        a);
        }
    }
    if (opt.f_cut_hz > 0 && !modes_given) opt.nmodes = 0;
    char mbuf[4096], kbuf[4096], dbuf[4096], sbuf[4096];
    if (model) {
        if (mpath || kpath || dpath)
            return tvds_cli_usage_error("reduce: --model and --mass/--stiffness/--dofs exclude "
                                        "each other");
        snprintf(mbuf, sizeof mbuf, "%s/M.mtx", model);
        snprintf(kbuf, sizeof kbuf, "%s/K.mtx", model);
        snprintf(dbuf, sizeof dbuf, "%s/dofs.txt", model);
        snprintf(sbuf, sizeof sbuf, "%s/sets.txt", model);
        mpath = mbuf;
        kpath = kbuf;
        dpath = dbuf;
        if (!spath && file_exists(sbuf)) spath = sbuf;
    }
    if (!mpath || !kpath || !dpath)
        return tvds_cli_usage_error("reduce: give --model DIR or --mass, --stiffness and --dofs "
                                    "(see 'tvds reduce --help')");
    if (!bspec) return tvds_cli_usage_error("reduce: missing --boundary SPEC");
    if (!outdir) return tvds_cli_usage_error("reduce: missing -o OUTDIR");

    /* The output directory is this command's from the start: a second reduce (or import) into
     * it is refused at once instead of mixing its files with ours. One that did not exist is
     * removed again when the reduction fails. */
    struct stat sb;
    int existed = stat(outdir, &sb) == 0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_outdir *od = NULL;
    int rc = tvds_outdir_open(outdir, &od, &ctx);
    if (rc) return tvds_cli_report(rc, &ctx);
    red_progress pg = {!quiet && isatty(STDERR_FILENO), 0, mono_s(), 0, 0, 0};
    tvds_cli_sigint(1);
    /* The reduction checks the flag between its steps; a factorization or the reading of a
     * large file cannot be cut, and nothing is written before the commit, so after 0.5 s the
     * watchdog ends the process itself. */
    tvds_cli_outdir_undo undo = {outdir, existed, &od};
    tvds_cli_stop_watchdog("reduce", 0.5, tvds_cli_outdir_undo_fn, &undo);
    opt.stop = tvds_cli_stop_flag();
    opt.progress = red_progress_lib;
    opt.progress_user = &pg;
    cholmod_common cc;
    int exit_code = 0;
    rc = tvds_cholmod_start(&cc);
    if (rc) {
        tvds_cli_stop_watchdog_end();
        tvds_cli_sigint(0);
        tvds_cli_outdir_undo_fn(&undo);
        return tvds_cli_report(rc, NULL);
    }
    tvds_cholmod_ctx(&ctx);
    tvds_fe_model *fe = NULL;
    tvds_substructure *s = NULL;
    tvds_reduce_stats st;
    memset(&st, 0, sizeof st);
    /* Every check of the input runs before anything is written: a defect is reported against
     * its file and leaves the output directory as it was. */
    tvds_fe_paths paths = {mpath, kpath, dpath, spath, !no_mass_check};
    red_line(&pg, 1, "read", 0, 0);
    rc = tvds_fe_model_read(&paths, &fe, &cc, &ctx);
    if (!rc && (exit_code = stopped_at("while reading the model", &pg))) goto out;
    opt.m_name = mpath;
    opt.k_name = kpath;
    tvds_reduce_spec spec = {bspec, rspec, fspec, spath ? spath : "sets.txt"};
    if (!rc && fspec && !spath)
        rc = TVDS_ERROR(&ctx, TVDS_ERR_INVALID, "reduce: --faces needs a sets file (--sets)");
    if (!rc) rc = tvds_reduce_fe(fe, &spec, &opt, &s, &st, &cc, &ctx);
    if (!rc) { /* the substructure is named after its directory */
        const char *base = strrchr(outdir, '/');
        base = base && base[1] ? base + 1 : outdir;
        char *nm = tvds_strdup(base);
        if (!nm) {
            rc = TVDS_ERROR(&ctx, TVDS_ERR_NOMEM, "out of memory");
        } else {
            tvds_free(s->name);
            s->name = nm;
        }
    }
    if (!rc) rc = tvds_substructure_validate(s, &ctx);
    /* Written into OUTDIR/.new, committed by its manifest, renamed into place. */
    char stage[4200];
    const char *const *owned;
    int nowned = tvds_substructure_files(&owned);
    if (!rc) red_line(&pg, 6, "write", 0, 0);
    if (!rc) rc = tvds_commit_begin(outdir, stage, sizeof stage, &ctx);
    if (!rc) rc = tvds_substructure_write(s, stage, &ctx);
    if (!rc && (exit_code = stopped_at("while writing (nothing committed)", &pg))) goto out;
    /* The renames into place are never cut half way; a signal during them comes too late to
     * stop anything. */
    tvds_cli_stop_critical(1);
    if (!rc) rc = tvds_commit_end(outdir, owned, nowned, &ctx);
    tvds_cli_stop_watchdog_end();
    tvds_cli_stop_critical(0);
    red_clear(&pg);
    if (!rc) {
        printf("reduce: wrote %s (%d DoFs: %d boundary + %d modes, %d recovery rows, %d node "
               "sets, %d face sets)\n",
               outdir, s->n, st.nb, st.nm, s->nrec, s->nsets, s->nfsets);
        if (st.nfsets_left)
            printf("reduce: %d face set(s) left out: not every node retained with ux, uy, uz\n",
                   st.nfsets_left);
        if (verbose) print_stats(&st, stdout);
    }
out:
    red_clear(&pg);
    tvds_cli_stop_watchdog_end();
    tvds_cli_sigint(0);
    tvds_substructure_free(&s);
    tvds_fe_model_free(&fe, &cc);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    tvds_outdir_close(&od);
    if (rc || exit_code) tvds_cli_outdir_undo_fn(&undo);
    if (exit_code) return exit_code;
    if (rc) return tvds_cli_report(rc, &ctx);
    return 0;
}
