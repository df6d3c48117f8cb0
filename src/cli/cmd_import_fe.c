/* cmd_import_fe.c — `tvds import abaqus` and `tvds import nastran`: the matrices another FE
 * code writes, as a full-model directory that `tvds reduce` reads (docs/formats.md). */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_import_impl.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"

static void abaqus_help(FILE *out)
{
    fprintf(out,
            "usage: tvds import abaqus JOB[.inp] [-o DIR] [--stiffness FILE] [--mass FILE]\n"
            "                          [--no-deck] [--no-mass-check]\n"
            "\n"
            "Import the global matrices of an Abaqus/Standard matrix generation step as a\n"
            "full-model directory (M.mtx, K.mtx, dofs.txt, sets.txt) for 'tvds reduce'.\n"
            "Nothing is run: first run the job with a step\n"
            "    *STEP\n"
            "    *MATRIX GENERATE, STIFFNESS, MASS\n"
            "    *MATRIX OUTPUT, STIFFNESS, MASS, FORMAT=COORDINATE\n"
            "    *END STEP\n"
            "which writes JOB_STIF<step>.mtx and JOB_MASS<step>.mtx, one line per term 'row\n"
            "node, row DoF, column node, column DoF, value' (FORMAT=MATRIX INPUT writes the\n"
            "same lines, also read). One triangle of a symmetric matrix, or both with equal\n"
            "mirrored terms. DoFs 1-3 become ux uy uz, 4-6 rx ry rz; the DoFs are every (node,\n"
            "DoF) the files name, in ascending node then DoF order. JOB.inp, when present,\n"
            "gives the *NODE coordinates, *NSET node sets and *SURFACE face sets as for\n"
            "'tvds import calculix' (a flat deck: no *PART / *INSTANCE); without it the\n"
            "coordinates are 0 and there are no sets.\n"
            "\n"
            "The model is checked as 'tvds reduce' checks its input before anything is\n"
            "written; errors are one line 'file:line: message'.\n"
            "\n"
            "options:\n"
            "  -o, --output DIR   output directory (default: JOB_full)\n"
            "  --stiffness FILE   the stiffness file (default: the one JOB_STIF*.mtx)\n"
            "  --mass FILE        the mass file (default: the one JOB_MASS*.mtx)\n"
            "  --no-deck          do not read JOB.inp\n"
            "  --no-mass-check    skip the sparse Cholesky that proves M positive definite\n"
            "  -h, --help         this help\n"
            "\n"
            "exit codes: 0 success, 1 internal error, 2 bad input.\n"
            "\n"
            "example:\n"
            "  abaqus job=pad        # pad.inp with the step above\n"
            "  tvds import abaqus pad.inp -o pad_full\n"
            "  tvds reduce --model pad_full --boundary face:CONTACT --modes 30 -o pad_cb\n");
}

static void nastran_help(FILE *out)
{
    fprintf(out,
            "usage: tvds import nastran FILE.pch [-o DIR] [--stiffness NAME] [--mass NAME]\n"
            "                           [--bulk FILE.bdf] [--no-mass-check]\n"
            "\n"
            "Import two DMIG matrices of a Nastran punch (or bulk data) file as a full-model\n"
            "directory (M.mtx, K.mtx, dofs.txt) for 'tvds reduce'. DMIG entries in small field\n"
            "(8 columns), large field (DMIG*, 16 columns, '*' continuations) or free field\n"
            "(commas), with continuation lines; IFO 6 (symmetric: each term once, in either\n"
            "triangle) or IFO 1 (square: both triangles); TIN 1 (single precision, rounded\n"
            "to float) or TIN 2 (double). Grid components 1-3 become ux uy uz, 4-6 rx ry rz;\n"
            "scalar points (component 0) are refused. The DoFs are every (grid, component)\n"
            "the two matrices name, in ascending grid then component order. Coordinates come\n"
            "from the GRID entries of the file and of --bulk (CP and CD blank or 0); without\n"
            "any they are 0. Entries before BEGIN BULK and entries other than DMIG and GRID\n"
            "are skipped; ENDDATA ends a file.\n"
            "\n"
            "The model is checked as 'tvds reduce' checks its input before anything is\n"
            "written; errors are one line 'file:line: message'.\n"
            "\n"
            "options:\n"
            "  -o, --output DIR   output directory (default: FILE_full)\n"
            "  --stiffness NAME   the stiffness DMIG (default: the one name beginning with K,\n"
            "                     not K4, e.g. KAAX)\n"
            "  --mass NAME        the mass DMIG (default: the one name beginning with M)\n"
            "  --bulk FILE        a bulk data file with the GRID entries\n"
            "  --no-mass-check    skip the sparse Cholesky that proves M positive definite\n"
            "  -h, --help         this help\n"
            "\n"
            "exit codes: 0 success, 1 internal error, 2 bad input.\n"
            "\n"
            "example (docs/formats.md gives the Nastran requests that punch the matrices):\n"
            "  tvds import nastran pad.pch --bulk pad.bdf -o pad_full\n"
            "  tvds reduce --model pad_full --boundary 101,102,103 --modes 30 -o pad_cb\n");
}

/* The one file matching pattern; 0, or prints the usage error and returns 2. */
static int find_one(const char *pattern, const char *option, char *out, size_t n)
{
    glob_t g;
    int r = glob(pattern, 0, NULL, &g);
    size_t found = r == 0 ? g.gl_pathc : 0;
    if (found == 1) snprintf(out, n, "%s", g.gl_pathv[0]);
    if (r == 0) globfree(&g);
    if (found == 1) return 0;
    return tvds_cli_usage_error("import abaqus: %s files match %s: name one with %s",
                                found ? "several" : "no", pattern, option);
}

/* Check, write and report; frees m. */
static int finish(tvds_fe_model **m, const tvds_fe_paths *names, tvds_cli_import_dir *dir,
                  const char *source)
{
    int rc = tvds_fe_model_check(*m, names, &dir->cc, &dir->ctx);
    rc = tvds_cli_import_write(dir, *m, rc, &dir->ctx);
    if (!rc && !dir->sig)
        printf("import: wrote %s (%d DoFs, nnz K = %ld, %d node sets, %d face sets; %s)\n",
               dir->undo.dir, (*m)->n, (long)cholmod_nnz((*m)->K, &dir->cc), (*m)->nsets,
               (*m)->nfsets, source);
    tvds_fe_model_free(m, &dir->cc);
    return rc;
}

int tvds_cmd_import_abaqus(int argc, char **argv)
{
    const char *job, *outdir = NULL, *kpath = NULL, *mpath = NULL;
    int no_mass_check = 0, no_deck = 0, r;
    const tvds_cli_opt opts[] = {{"--output", "-o", &outdir, NULL, 0},
                                 {"--stiffness", NULL, &kpath, NULL, 0},
                                 {"--mass", NULL, &mpath, NULL, 0},
                                 {"--no-deck", NULL, NULL, &no_deck, 1},
                                 {"--no-mass-check", NULL, NULL, &no_mass_check, 1},
                                 {NULL, NULL, NULL, NULL, 0}};
    if ((r = tvds_cli_import_args(argc, argv, opts, abaqus_help, "import abaqus", &job, 1)))
        return r < 0 ? 0 : r;
    if (!job)
        return tvds_cli_usage_error("import abaqus: usage 'tvds import abaqus JOB[.inp] [-o DIR]' "
                                    "(see 'tvds import abaqus --help')");
    char base[4096], inp[4200], kbuf[4200], mbuf[4200], dbuf[4200];
    size_t l = strlen(job);
    int given_inp = l > 4 && strcmp(job + l - 4, ".inp") == 0;
    snprintf(base, sizeof base, "%.*s", (int)(given_inp ? l - 4 : l), job);
    snprintf(inp, sizeof inp, "%s.inp", base);
    const char *deck = no_deck || (!given_inp && access(inp, F_OK) != 0) ? NULL : inp;
    if (!kpath) {
        char pat[4200];
        snprintf(pat, sizeof pat, "%s_STIF*.mtx", base);
        if ((r = find_one(pat, "--stiffness", kbuf, sizeof kbuf))) return r;
        kpath = kbuf;
    }
    if (!mpath) {
        char pat[4200];
        snprintf(pat, sizeof pat, "%s_MASS*.mtx", base);
        if ((r = find_one(pat, "--mass", mbuf, sizeof mbuf))) return r;
        mpath = mbuf;
    }
    if (!outdir) {
        snprintf(dbuf, sizeof dbuf, "%s_full", base);
        outdir = dbuf;
    }
    tvds_cli_import_dir dir;
    int rc = tvds_cli_import_begin(&dir, "import", outdir);
    if (rc) return rc;
    tvds_fe_model *m = NULL;
    tvds_ccx_info info;
    rc = tvds_import_abaqus(kpath, mpath, deck, &m, &info, &dir.cc, &dir.ctx);
    if (!rc) {
        char source[600];
        if (deck)
            snprintf(source, sizeof source, "%d nodes with coordinates in %.500s", info.nodes,
                     deck);
        else
            snprintf(source, sizeof source, "no deck: coordinates 0");
        tvds_fe_paths names = {mpath, kpath, deck ? deck : kpath, NULL, !no_mass_check};
        rc = finish(&m, &names, &dir, source);
        if (!rc && !dir.sig) tvds_cli_import_dropped(&info);
    }
    tvds_fe_model_free(&m, &dir.cc);
    return tvds_cli_import_end(&dir, rc, &dir.ctx);
}

int tvds_cmd_import_nastran(int argc, char **argv)
{
    const char *pch, *outdir = NULL, *kname = NULL, *mname = NULL, *bulk = NULL;
    int no_mass_check = 0, r;
    const tvds_cli_opt opts[] = {{"--output", "-o", &outdir, NULL, 0},
                                 {"--stiffness", NULL, &kname, NULL, 0},
                                 {"--mass", NULL, &mname, NULL, 0},
                                 {"--bulk", NULL, &bulk, NULL, 0},
                                 {"--no-mass-check", NULL, NULL, &no_mass_check, 1},
                                 {NULL, NULL, NULL, NULL, 0}};
    if ((r = tvds_cli_import_args(argc, argv, opts, nastran_help, "import nastran", &pch, 1)))
        return r < 0 ? 0 : r;
    if (!pch)
        return tvds_cli_usage_error("import nastran: usage 'tvds import nastran FILE.pch [-o DIR]' "
                                    "(see 'tvds import nastran --help')");
    char dbuf[4200];
    if (!outdir) {
        const char *dot = strrchr(pch, '.'), *slash = strrchr(pch, '/');
        size_t l = dot && (!slash || dot > slash) ? (size_t)(dot - pch) : strlen(pch);
        snprintf(dbuf, sizeof dbuf, "%.*s_full", (int)l, pch);
        outdir = dbuf;
    }
    tvds_cli_import_dir dir;
    int rc = tvds_cli_import_begin(&dir, "import", outdir);
    if (rc) return rc;
    tvds_fe_model *m = NULL;
    tvds_ccx_info info;
    rc = tvds_import_nastran(pch, kname, mname, bulk, &m, &info, &dir.cc, &dir.ctx);
    if (!rc) {
        char source[600];
        if (info.nodes)
            snprintf(source, sizeof source, "coordinates from %d GRID entries", info.nodes);
        else
            snprintf(source, sizeof source, "no GRID entry: coordinates 0");
        tvds_fe_paths names = {pch, pch, bulk ? bulk : pch, NULL, !no_mass_check};
        rc = finish(&m, &names, &dir, source);
    }
    tvds_fe_model_free(&m, &dir.cc);
    return tvds_cli_import_end(&dir, rc, &dir.ctx);
}
