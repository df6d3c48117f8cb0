/* cmd_model.c — `tvds model`: generate shipped FE models (the beam-on-beam pair of the
 * Machines 2022 paper), full and Craig–Bampton-reduced (docs/models.md). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_disc.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"

static void model_help(FILE *out)
{
    fprintf(out,
            "usage: tvds model beam-on-beam -o DIR [--set key=value]... [--verbose]\n"
            "       tvds model beam-on-beam-3d -o DIR [--set key=value]... [--verbose]\n"
            "       tvds model block --dofs N -o DIR\n"
            "       tvds model disc-brake -o DIR [--set key=value]... [--verbose]\n"
            "\n"
            "Build the plane-stress FE models (9-node quadrilaterals) of the paper's two beams:\n"
            "beam 1 (aluminium, 75 x 1.5 x 10 mm, 30 deg, tip C at x = s0 on beam 2's upper\n"
            "edge, end A tied to a carriage with DoFs A.x, A.y) and beam 2 (polycarbonate\n"
            "cantilever, 100 x 2 x 20 mm, clamped at B, x = 0; upper edge at y = 0). Writes\n"
            "  DIR/beam1_full, DIR/beam2_full   full models: M.mtx, K.mtx, dofs.txt, sets.txt\n"
            "  DIR/beam1, DIR/beam2             Craig-Bampton substructures: beam 1 retains\n"
            "                                   A.x A.y C.x C.y, beam 2 its 100 upper-edge nodes\n"
            "                                   (200 DoFs); 20 fixed-interface modes each;\n"
            "                                   beam 2 recovers T (free end, mid-height, y)\n"
            "\n"
            "'beam-on-beam-3d' builds the same pair as solids of 8-node hexahedra with\n"
            "incompatible modes (nx x ny x nz per beam, z across the width, centred on z = 0;\n"
            "default beam 1 40 x 2 x 4, beam 2 50 x 2 x 4): beam 1 retains its carriage A\n"
            "(A.x A.y A.z, the end section translates without rotating) and the tip line C\n"
            "(nz + 1 nodes across its width on beam 2's upper face, 3 DoFs each); beam 2 its\n"
            "upper-face nodes, with the face set 'top' (4-node faces, normal +y) as the\n"
            "contact master; 20 fixed-interface modes each; beam 2 recovers T.y.\n"
            "\n"
            "'block' writes a full model (no reduction) of beam 2 as a solid: a polycarbonate\n"
            "box 100 x 20 x 2 mm of 8-node hexahedra, clamped at x = 0, with about N DoFs\n"
            "(elements in the box's proportions, at least one through the thickness) and node\n"
            "sets top (face z = 2 mm), patch (10 x 10 nodes of it at the free end) and tip,\n"
            "and the face set top_faces (the 4-node faces of z = 2 mm off the clamped end,\n"
            "normal +z; 'tvds reduce --boundary face:top_faces' keeps it as a 3D contact\n"
            "surface): the solid of the reduction benchmark (docs/performance.md).\n"
            "\n"
            "'disc-brake' builds an annular cast-iron disc of 8-node hexahedra (350 mm outer\n"
            "diameter, 10 mm thick, clamped at r = 87.5 mm; nr x nt x nz = 4 x 24 x 2) and one\n"
            "or two pads (60 deg, r = 132.5 .. 172.5 mm, 15 mm friction material on a 5 mm steel\n"
            "backplate) on its faces, and writes DIR/disc_full, DIR/pad_out_full,\n"
            "DIR/pad_in_full (full models), their Craig-Bampton reductions DIR/disc (boundary:\n"
            "the face sets ring_out, normal +z, and ring_in, normal -z, over the full circle),\n"
            "DIR/pad_out, DIR/pad_in (boundary: face set friction, node sets back, abut_lead,\n"
            "abut_trail) and the case DIR/disc_brake.ini (pads pressed by 1 MPa, the disc not\n"
            "turning). Keys disc.KEY (r_out r_hub thick E nu rho nr nt nz modes), pad.KEY\n"
            "(r_in r_out arc theta thick E nu rho nr nt nz modes), back.KEY (thick E nu rho),\n"
            "pads (docs/models.md).\n"
            "\n"
            "options:\n"
            "  -o, --output DIR   output directory (created)\n"
            "  --dofs N           block: about N DoFs (1e3 .. 1e8)\n"
            "  --set key=value    s0, modes1, modes2, beam1.KEY, beam2.KEY with KEY one of\n"
            "                     length thick width E nu rho angle nx ny nz (SI units, degrees);\n"
            "                     beam1.a_support=carriage (default: A's end section translates\n"
            "                     without rotating) or pin (rotation about A free)\n"
            "  --verbose          print the reductions' sizes, times and peak memory\n"
            "  -h, --help         this help\n"
            "\n"
            "example:\n"
            "  tvds model beam-on-beam -o out/bob --set s0=0.03 --set beam2.nx=100\n"
            "  tvds model block --dofs 1e5 -o out/block\n");
}

static int model_block(double ndofs, const char *outdir)
{
    if (!(ndofs > 0)) return tvds_cli_usage_error("model: block needs --dofs N");
    if (!outdir) return tvds_cli_usage_error("model: missing -o DIR");
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    cholmod_common cc;
    int rc = tvds_cholmod_start(&cc);
    if (rc) return tvds_cli_report(rc, NULL);
    tvds_cholmod_ctx(&ctx);
    tvds_block_params p = tvds_block_default();
    tvds_block_size_for(&p, ndofs);
    tvds_fe_model *m = NULL;
    rc = tvds_block_build(&p, &m, &cc, &ctx);
    if (!rc) rc = tvds_mkdir_p(outdir, &ctx);
    if (!rc) rc = tvds_fe_model_write(m, outdir, &ctx);
    if (!rc)
        printf("model: wrote %s (block %d x %d x %d hexahedra, %d DoFs, nnz K upper %ld)\n", outdir,
               p.nx, p.ny, p.nz, m->n, (long)cholmod_nnz(m->K, &cc));
    tvds_fe_model_free(&m, &cc);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    return rc ? tvds_cli_report(rc, &ctx) : 0;
}

static int model_disc(const char *outdir, const char **sets, int nset, int verbose)
{
    if (!outdir) return tvds_cli_usage_error("model: missing -o DIR");
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_disc_params p = tvds_disc_default();
    for (int k = 0; k < nset; k++) {
        int rc = tvds_disc_set(&p, sets[k], &ctx);
        if (rc) return tvds_cli_report(rc, &ctx);
    }
    cholmod_common cc;
    int rc = tvds_cholmod_start(&cc);
    if (rc) return tvds_cli_report(rc, NULL);
    tvds_cholmod_ctx(&ctx);
    tvds_reduce_stats st[3];
    memset(st, 0, sizeof st);
    rc = tvds_disc_brake_write(&p, outdir, st, &cc, &ctx);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    if (rc) return tvds_cli_report(rc, &ctx);
    static const char *const names[3] = {"disc", "pad_out", "pad_in"};
    for (int b = 0; b < 1 + p.pads; b++) {
        printf("model: wrote %s/%s_full (%d DoFs), %s/%s (%d boundary + %d modes)\n", outdir,
               names[b], st[b].n, outdir, names[b], st[b].nb, st[b].nm);
        if (verbose)
            printf("model: %s reduction: fixed-interface modes up to %.6g Hz, total %.3f s, "
                   "peak RSS %.1f MiB\n",
                   names[b], st[b].f_max_hz, st[b].t_total, st[b].peak_rss_kb / 1024.0);
    }
    printf("model: wrote %s/disc_brake.ini\n", outdir);
    return 0;
}

static int model_main(int argc, char **argv, const char **sets)
{
    const char *outdir = NULL, *val, *which = NULL;
    double ndofs = 0.0;
    int verbose = 0, r;
    int nset = 0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    const tvds_cli_opt opts[] = {{"--verbose", "-v", NULL, &verbose, 1},
                                 {"--output", "-o", &outdir, NULL, 0},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (tvds_cli_is_help(a)) {
            model_help(stdout);
            return 0;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) return 2;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--dofs", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &ndofs) || ndofs < 1e3 || ndofs > 1e8)
                return tvds_cli_usage_error("model: --dofs %s: need a number in 1e3 .. 1e8", val);
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--set", NULL, &val)) != 0) {
            if (r < 0) return 2;
            sets[nset++] = val; /* applied once the model (2D or 3D defaults) is known */
        } else if (a[0] == '-' && a[1] != '\0') {
            return tvds_cli_usage_error("model: unknown option '%s' (see 'tvds model --help')", a);
        } else if (!which) {
            which = a;
        } else {
            return tvds_cli_usage_error("model: more than one model name ('%s', '%s')", which, a);
        }
    }
    if (!which)
        return tvds_cli_usage_error("model: missing model name (beam-on-beam, beam-on-beam-3d, "
                                    "block, disc-brake)");
    if (strcmp(which, "block") == 0) return model_block(ndofs, outdir);
    if (strcmp(which, "disc-brake") == 0) return model_disc(outdir, sets, nset, verbose);
    int solid = strcmp(which, "beam-on-beam-3d") == 0;
    if (!solid && strcmp(which, "beam-on-beam") != 0)
        return tvds_cli_usage_error(
            "model: unknown model '%s' (known: beam-on-beam, beam-on-beam-3d, block, "
            "disc-brake)",
            which);
    if (!outdir) return tvds_cli_usage_error("model: missing -o DIR");
    tvds_bob_params p = solid ? tvds_bob3d_default() : tvds_bob_default();
    for (int k = 0; k < nset; k++) {
        int rc = tvds_bob_set(&p, sets[k], &ctx);
        if (rc) return tvds_cli_report(rc, &ctx);
    }
    cholmod_common cc;
    int rc = tvds_cholmod_start(&cc);
    if (rc) return tvds_cli_report(rc, NULL);
    tvds_cholmod_ctx(&ctx);
    tvds_reduce_stats st[2];
    memset(st, 0, sizeof st);
    rc = solid ? tvds_bob3d_write(&p, outdir, st, &cc, &ctx)
               : tvds_bob_write(&p, outdir, st, &cc, &ctx);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    if (rc) return tvds_cli_report(rc, &ctx);
    printf("model: wrote %s/beam1_full (%d DoFs), %s/beam1 (%d boundary + %d modes)\n", outdir,
           st[0].n, outdir, st[0].nb, st[0].nm);
    printf("model: wrote %s/beam2_full (%d DoFs), %s/beam2 (%d boundary + %d modes)\n", outdir,
           st[1].n, outdir, st[1].nb, st[1].nm);
    if (verbose)
        for (int b = 0; b < 2; b++)
            printf("model: beam%d reduction: fixed-interface modes up to %.6g Hz, factor %.3f s, "
                   "constraint modes %.3f s, eigenmodes %.3f s, projection %.3f s, total %.3f s, "
                   "peak RSS %.1f MiB\n",
                   b + 1, st[b].f_max_hz, st[b].t_factor, st[b].t_static, st[b].t_modes,
                   st[b].t_project, st[b].t_total, st[b].peak_rss_kb / 1024.0);
    return 0;
}

int tvds_cmd_model(int argc, char **argv)
{
    const char **sets = tvds_calloc((size_t)argc, sizeof *sets); /* the --set values */
    if (!sets) return tvds_cli_usage_error("model: out of memory");
    int r = model_main(argc, argv, sets);
    tvds_free((void *)sets);
    return r;
}
