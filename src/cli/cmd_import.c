/* cmd_import.c — `tvds import`: bring a full FE model written by another code into a full-model
 * directory that `tvds reduce` reads (docs/formats.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cmd_import_impl.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"

static void import_help(FILE *out)
{
    fprintf(out,
            "usage: tvds import calculix JOB.inp [-o DIR] [--no-mass-check]\n"
            "       tvds import abaqus JOB[.inp] ...   (see 'tvds import abaqus --help')\n"
            "       tvds import nastran FILE.pch ...   (see 'tvds import nastran --help')\n"
            "\n"
            "Import the matrices of a CalculiX job as a full-model directory (M.mtx, K.mtx,\n"
            "dofs.txt, sets.txt) for 'tvds reduce'. Nothing is run: first run the job with a\n"
            "step\n"
            "    *STEP\n"
            "    *FREQUENCY, SOLVER=MATRIXSTORAGE\n"
            "    *END STEP\n"
            "(ccx -i JOB), which writes JOB.sti (stiffness), JOB.mas (mass), both the upper\n"
            "triangle as 'row col value', and JOB.dof ('node.direction' per line, in matrix\n"
            "order, constrained DoFs left out). tvds reads those three beside JOB.inp, and from\n"
            "JOB.inp (and the files it *INCLUDEs) the *NODE coordinates, the *NSET node sets\n"
            "(GENERATE, sets named inside sets, keyword lines continued by a trailing comma,\n"
            "'**' comments, keywords in any case), the solid *ELEMENTs (C3D4, C3D10, C3D8,\n"
            "C3D8R, C3D8I, C3D20, C3D20R; other types are skipped), *ELSET element sets and\n"
            "*SURFACE definitions. Directions 1-3 become ux uy uz, 4-6 rx ry rz. Node sets keep\n"
            "the nodes that have a DoF, in their order; a set none of whose nodes has a DoF (a\n"
            "clamped face) is left out and named in the report.\n"
            "\n"
            "Surfaces: '*SURFACE, NAME=S, TYPE=ELEMENT' with lines '<element or element set>,\n"
            "S<k>' becomes face set S (3- or 6-node triangles, 4- or 8-node quadrilaterals, the\n"
            "element faces of the CalculiX manual), each face with its corners counter-clockwise\n"
            "seen from outside the element (the normal points out: the side a slave touches).\n"
            "A face with a node without ux, uy, uz (clamped) is left out and counted in the\n"
            "report. 'TYPE=NODE' surfaces become node sets. Elements, element sets and node sets\n"
            "must be defined above the lines that use them. Then\n"
            "'tvds reduce --boundary face:S' retains the surface's nodes and carries S.\n"
            "\n"
            "The model is checked as 'tvds reduce' checks its input (symmetry, positive mass\n"
            "diagonal, M positive definite, no negative stiffness on the diagonal) before\n"
            "anything is written; errors are one line 'file:line: message'.\n"
            "\n"
            "options:\n"
            "  -o, --output DIR   output directory (default: JOB_full beside JOB.inp)\n"
            "  --no-mass-check    skip the sparse Cholesky that proves M positive definite\n"
            "  -h, --help         this help\n"
            "\n"
            "DIR is locked while the command runs (a second import or reduce into it stops\n"
            "with exit code 2) and its files are replaced as a whole (DIR/.new, then\n"
            "DIR/manifest.txt, then renamed into place; see 'tvds reduce --help'). Ctrl-C,\n"
            "SIGTERM or SIGHUP stop the import within a second and leave DIR as it was.\n"
            "\n"
            "exit codes: 0 success, 1 internal error, 2 bad input or DIR in use,\n"
            "3 interrupted.\n"
            "\n"
            "example:\n"
            "  ccx -i pad            # pad.inp with *FREQUENCY, SOLVER=MATRIXSTORAGE\n"
            "  tvds import calculix pad.inp -o pad_full\n"
            "  tvds reduce --model pad_full --boundary face:CONTACT --modes 30 -o pad_cb\n");
}

int tvds_cmd_import(int argc, char **argv)
{
    const char *pos[2], *outdir = NULL;
    int no_mass_check = 0;
    const tvds_cli_opt opts[] = {{"--output", "-o", &outdir, NULL, 0},
                                 {"--no-mass-check", NULL, NULL, &no_mass_check, 1},
                                 {NULL, NULL, NULL, NULL, 0}};
    if (argc > 1 && strcmp(argv[1], "abaqus") == 0)
        return tvds_cmd_import_abaqus(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "nastran") == 0)
        return tvds_cmd_import_nastran(argc - 1, argv + 1);
    int r = tvds_cli_import_args(argc, argv, opts, import_help, "import", pos, 2);
    if (r) return r < 0 ? 0 : r;
    const char *format = pos[0], *inp = pos[1];
    if (!format || !inp)
        return tvds_cli_usage_error("import: usage 'tvds import calculix JOB.inp [-o DIR]' (see "
                                    "'tvds import --help')");
    if (strcmp(format, "calculix") != 0 && strcmp(format, "ccx") != 0)
        return tvds_cli_usage_error(
            "import: unknown format '%s' (known: calculix, abaqus, nastran); for Matrix "
            "Market files from other codes see docs/formats.md",
            format);
    char dbuf[4096];
    if (!outdir) {
        size_t l = strlen(inp);
        snprintf(dbuf, sizeof dbuf, "%.*s_full", (int)(l > 4 ? l - 4 : l), inp);
        outdir = dbuf;
    }
    tvds_cli_import_dir dir;
    int rc = tvds_cli_import_begin(&dir, "import", outdir);
    if (rc) return rc;
    tvds_fe_model *m = NULL;
    tvds_ccx_info info;
    rc = tvds_import_calculix(inp, &m, &info, &dir.cc, &dir.ctx);
    if (!rc) {
        /* Checked in memory, with the job's own file names, before anything is written. */
        size_t l = strlen(inp) - 4;
        char mas[4096], sti[4096], dof[4096];
        snprintf(mas, sizeof mas, "%.*s.mas", (int)l, inp);
        snprintf(sti, sizeof sti, "%.*s.sti", (int)l, inp);
        snprintf(dof, sizeof dof, "%.*s.dof", (int)l, inp);
        tvds_fe_paths names = {mas, sti, dof, NULL, !no_mass_check};
        rc = tvds_fe_model_check(m, &names, &dir.cc, &dir.ctx);
        if (rc == TVDS_ERR_NOT_POSDEF && info.lowmass_elements > 0 &&
            strstr(dir.ctx.msg, "M is not positive definite")) {
            /* The cause and the remedy (docs/formats.md, "Element types whose mass CalculiX
             * integrates at the stiffness points"). */
            char why[sizeof dir.ctx.msg];
            snprintf(why, sizeof why, "%s", dir.ctx.msg);
            tvds_ctx_init(&dir.ctx);
            rc = TVDS_ERROR(&dir.ctx, TVDS_ERR_NOT_POSDEF,
                            "%s: CalculiX integrates the mass of %s (%d of the %d elements) at "
                            "its stiffness points, so each element mass is singular and this "
                            "mesh's M too; mesh with C3D20 or C3D8 (full integration) or more "
                            "elements until M is positive definite (--no-mass-check imports it "
                            "as it is, with massless motions the reduced model keeps)",
                            why, info.lowmass_type, info.lowmass_elements, info.elements);
        }
    }
    rc = tvds_cli_import_write(&dir, m, rc, &dir.ctx);
    if (!rc && !dir.sig) {
        printf("import: wrote %s (%d DoFs of %d nodes, nnz K = %ld, %d node sets, %d face sets "
               "from %d solid elements)\n",
               outdir, m->n, info.nodes, (long)cholmod_nnz(m->K, &dir.cc), m->nsets, m->nfsets,
               info.elements);
        tvds_cli_import_dropped(&info);
    }
    tvds_fe_model_free(&m, &dir.cc);
    return tvds_cli_import_end(&dir, rc, &dir.ctx);
}
