/* disc_write.c — the disc brake on disk: full models, Craig–Bampton reductions and the case
 * file pressing the pads on the disc (docs/models.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fe/beams_impl.h"
#include "tvds/tvds_disc.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"

#define DW_PI 3.14159265358979323846

static int join(char *buf, size_t cap, const char *dir, const char *name, tvds_ctx *ctx)
{
    if ((size_t)snprintf(buf, cap, "%s/%s", dir, name) >= cap)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "path too long: %s/%s", dir, name);
    return TVDS_OK;
}

/* Write m as DIR/<name>_full and its reduction on boundary (face sets named in it carried) as
 * DIR/<name>. Frees m. */
static int write_pair(tvds_fe_model *m, const char *name, const char *boundary, int nmodes,
                      const char *dir, tvds_reduce_stats *st, cholmod_common *cc, tvds_ctx *ctx)
{
    char path[4096], full[256];
    snprintf(full, sizeof full, "%s_full", name);
    tvds_substructure *s = NULL;
    int rc = join(path, sizeof path, dir, full, ctx);
    if (!rc) rc = tvds_fe_model_write(m, path, ctx);
    tvds_reduce_opts o = tvds_reduce_opts_default();
    o.nmodes = nmodes;
    tvds_reduce_spec sp = {boundary, NULL, NULL, NULL};
    if (!rc) rc = tvds_reduce_fe(m, &sp, &o, &s, st, cc, ctx);
    if (!rc) {
        tvds_free(s->name);
        s->name = tvds_strdup(name);
        if (!s->name) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    if (!rc) rc = join(path, sizeof path, dir, name, ctx);
    if (!rc) rc = tvds_substructure_write(s, path, ctx);
    tvds_substructure_free(&s);
    tvds_fe_model_free(&m, cc);
    return rc;
}

static const tvds_nodeset *find_set(const tvds_fe_model *m, const char *name)
{
    for (int k = 0; k < m->nsets; k++)
        if (!strcmp(m->sets[k].name, name)) return &m->sets[k];
    return NULL;
}

static const double *node_xyz(const tvds_fe_model *m, long node)
{
    for (int q = 0; q < m->n; q++)
        if (m->dofs[q].node == node) return m->dofs[q].xyz;
    return NULL;
}

/* Consistent nodal forces of a unit pressure on the pad's back face (annular sector of bilinear
 * quads in (r, theta)): node (i, j) receives the integral of its shape function times r dr
 * dtheta, int N_i r dr = (r2 - r1)(2 r1 + r2) / 6 at the inner node, (r2 - r1)(r1 + 2 r2) / 6 at
 * the outer one, times half the element's angle. area[(pad_nr + 1)(pad_nt + 1)], i fastest. */
static double back_shares(const tvds_disc_params *p, double *area)
{
    int ni = p->pad_nr + 1;
    double dt = p->pad_arc_deg * DW_PI / 180 / p->pad_nt, total = 0;
    memset(area, 0, sizeof(double) * (size_t)ni * (p->pad_nt + 1));
    for (int j = 0; j < p->pad_nt; j++)
        for (int i = 0; i < p->pad_nr; i++) {
            double r1 = p->pad_r_in + (p->pad_r_out - p->pad_r_in) * i / p->pad_nr;
            double r2 = p->pad_r_in + (p->pad_r_out - p->pad_r_in) * (i + 1) / p->pad_nr;
            double a1 = (r2 - r1) * (2 * r1 + r2) / 6 * dt / 2;
            double a2 = (r2 - r1) * (r1 + 2 * r2) / 6 * dt / 2;
            for (int dj = 0; dj < 2; dj++) {
                area[i + ni * (j + dj)] += a1;
                area[i + 1 + ni * (j + dj)] += a2;
            }
            total += 2 * (a1 + a2);
        }
    return total;
}

/* The case: pads pressed on the disc's ring faces by a uniform pressure on their backs
 * (smooth ramp over t_ramp), held tangentially at their leading abutments; then the disc spins
 * up about +z to omega (smooth, over the next t_ramp), its ring faces turning under the pads
 * (master = disc:ring_* with omega: docs/theory.md 3d), and turns on to t_end. */
static int write_case(const tvds_disc_params *p, tvds_fe_model *const pad[2], const char *dir,
                      tvds_ctx *ctx)
{
    const double pressure = 1e6, t_ramp = 0.01;
    char path[4096];
    int rc = join(path, sizeof path, dir, "disc_brake.ini", ctx);
    if (rc) return rc;
    int nb = (p->pad_nr + 1) * (p->pad_nt + 1);
    double *area = tvds_malloc((size_t)nb * sizeof(double));
    if (!area) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    double total = back_shares(p, area);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path); /* written whole, then renamed into place */
    FILE *f = fopen(tmp, "w");
    if (!f) {
        tvds_free(area);
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create", tmp);
    }
    fprintf(f,
            "# Disc brake (tvds model disc-brake; docs/models.md): %d pad(s) pressed on a disc of\n"
            "# %g mm outer diameter clamped at r = %g mm, by %g MPa on their backplates (%.6g N\n"
            "# per pad, smooth ramp over %g s), held tangentially at their leading abutments\n"
            "# (backplate end face at the larger angle), mu = 0.3. %s\n",
            p->pads, 2000 * p->r_out, 1000 * p->r_hub, pressure / 1e6, pressure * total, t_ramp,
            p->omega > 0 ? "Then the disc spins up to\n# omega (smooth ramp over the next "
                           "interval as long) and turns on: the pads slide."
                         : "The disc does not turn: a\n# static press that settles into "
                           "stick (no sliding velocity).");
    fprintf(f,
            "[run]\nname = disc_brake\nmethod = subs-b\ndt = auto\nt_end = %g\nout_dt = 1e-4\n\n",
            (p->omega > 0 ? 3 : 2) * t_ramp);
    fprintf(f, "[substructure disc]\ndir = disc\ndamping = rayleigh\nalpha = 10\nbeta = 1e-7\n\n");
    for (int s = 0; s < p->pads; s++) {
        const char *nm = s ? "pad_in" : "pad_out";
        fprintf(f, "[substructure %s]\ndir = %s\ndamping = rayleigh\nalpha = 10\nbeta = 1e-7\n\n",
                nm, nm);
    }
    for (int s = 0; s < p->pads; s++) {
        const char *nm = s ? "pad_in" : "pad_out";
        fprintf(f, "[contact %s]\nslave = %s:friction_nodes\nmaster = disc:%s\nmu = 0.3\n",
                s ? "inner" : "outer", nm, s ? "ring_in" : "ring_out");
        if (p->omega > 0)
            fprintf(f, "point = 0 0 0\nnormal = 0 0 1\nomega = smooth %.17g %g %g\n", p->omega,
                    t_ramp, 2 * t_ramp);
        fprintf(f, "\n");
        const tvds_nodeset *back = find_set(pad[s], "back"), *lead = find_set(pad[s], "abut_lead");
        for (int k = 0; back && k < back->n && k < nb; k++)
            fprintf(f, "[load %s_p%d]\ndof = %s:%ld:uz\nf = smooth %.17g 0 %g\n\n", nm, k + 1, nm,
                    back->nodes[k], (s ? 1.0 : -1.0) * pressure * area[k], t_ramp);
        for (int k = 0; lead && k < lead->n; k++) {
            const double *x = node_xyz(pad[s], lead->nodes[k]);
            double r = x ? hypot(x[0], x[1]) : 1, et[2] = {x ? -x[1] / r : 0, x ? x[0] / r : 0};
            fprintf(f, "# tangential abutment: e_theta . u = 0\n[constraint %s_a%d]\nterms =", nm,
                    k + 1);
            for (int c = 0; c < 2; c++)
                if (fabs(et[c]) > 1e-12) /* coefficients must be non-zero */
                    fprintf(f, " %s:%ld:%s*%.17g", nm, lead->nodes[k], c ? "uy" : "ux", et[c]);
            fprintf(f, "\n\n");
        }
    }
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    tvds_free(area);
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot write", path);
    }
    return rc;
}

int tvds_disc_brake_write(const tvds_disc_params *p, const char *dir, tvds_reduce_stats *stats,
                          cholmod_common *cc, tvds_ctx *ctx)
{
    int rc = tvds_disc_check(p, ctx);
    if (!rc) rc = tvds_mkdir_p(dir, ctx);
    tvds_fe_model *disc = NULL, *pad[2] = {NULL, NULL};
    if (!rc) rc = tvds_disc_build(p, &disc, cc, ctx);
    for (int s = 0; !rc && s < p->pads; s++)
        rc = tvds_pad_build(p, s ? -1 : +1, &pad[s], cc, ctx);
    /* The case first: it reads the pads' sets, which write_pair frees. */
    if (!rc) rc = write_case(p, pad, dir, ctx);
    if (!rc) {
        /* The ring nodes are retained over the full circle: the disc turns under the pads. */
        const char *b = p->pads == 2 ? "face:ring_out,face:ring_in" : "face:ring_out";
        rc = write_pair(disc, "disc", b, p->modes, dir, stats ? &stats[0] : NULL, cc, ctx);
        disc = NULL;
    }
    for (int s = 0; !rc && s < p->pads; s++) {
        rc = write_pair(pad[s], s ? "pad_in" : "pad_out", "face:friction,back,abut_lead,abut_trail",
                        p->pad_modes, dir, stats ? &stats[1 + s] : NULL, cc, ctx);
        pad[s] = NULL;
    }
    tvds_fe_model_free(&disc, cc);
    tvds_fe_model_free(&pad[0], cc);
    tvds_fe_model_free(&pad[1], cc);
    return rc;
}
