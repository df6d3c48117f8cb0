/* segment2d_c1.c — master kind: the nodes of a 2D master surface joined by a C1 curve, cubic
 * Hermite segments with tangents from averaged nodal normals (hermite.h, docs/theory.md 4b). The
 * master point at xi = c->alpha on segment seg is carried by nodes seg and seg + 1 with the
 * Hermite position weights H00, H01. */
#include <math.h>
#include <string.h>

#include "engine/contact/hermite.h"
#include "engine/contact/master.h"

/* The C1 segment seg of contact ic in configuration conf: its two nodes and their neighbours
 * (four nodes at most), O(1). */
static void c1_segment_at(const tvds_model *m, const tvds_data *d, int ic, int seg, int conf,
                          tvds_c1_seg *s)
{
    const tvds_contact *C = &m->contacts[ic];
    double P0[2], P1[2], P2[2], P3[2];
    int first = seg == 0, last = seg + 2 >= C->nmaster;
    sim_master_node_pos(m, d, ic, seg, conf, P1);
    sim_master_node_pos(m, d, ic, seg + 1, conf, P2);
    if (!first) sim_master_node_pos(m, d, ic, seg - 1, conf, P0);
    if (!last) sim_master_node_pos(m, d, ic, seg + 2, conf, P3);
    tvds_c1_segment(first ? NULL : P0, P1, P2, last ? NULL : P3, s);
}

/* Closest point on the curve: the straight-segment search gives the segment and a start
 * (segment2d), the projection on the curve moves to a neighbouring segment while its parameter
 * leaves [0, 1] (at most two moves, never back), then xi is clamped to [0, 1]. */
static int c1_closest(const tvds_model *m, tvds_data *d, sim_cp *c, int conf, const double Q[3],
                      double t, int keep, tvds_ctx *ctx)
{
    if (!keep) {
        int rc = sim_master_segment2d.closest(m, d, c, conf, Q, t, 0, ctx);
        if (rc) return rc;
        const tvds_contact *C = &m->contacts[c->contact];
        int nseg = C->nmaster - 1, prev = -1;
        double xi = c->alpha;
        for (int guard = 0; guard < 3; guard++) {
            tvds_c1_seg sg;
            c1_segment_at(m, d, c->contact, c->seg, conf, &sg);
            xi = tvds_c1_project(&sg, Q, c->alpha);
            if (xi > 1.0 && c->seg < nseg - 1 && c->seg + 1 != prev) {
                prev = c->seg++;
                c->alpha = 0.0;
            } else if (xi < 0.0 && c->seg > 0 && c->seg - 1 != prev) {
                prev = c->seg--;
                c->alpha = 1.0;
            } else {
                break;
            }
        }
        c->alpha = xi < 0.0 ? 0.0 : xi > 1.0 ? 1.0 : xi;
    }
    /* The material position of the slave along the master: undeformed arc length of the nodes,
     * xi in between. */
    const double *S = d->mnodes_s[c->contact];
    c->s = S[c->seg] + c->alpha * (S[c->seg + 1] - S[c->seg]);
    return TVDS_OK;
}

static void c1_frame(const tvds_model *m, const tvds_data *d, sim_cp *c, int conf)
{
    tvds_c1_seg sg;
    c1_segment_at(m, d, c->contact, c->seg, conf, &sg);
    double t[2], n[2];
    tvds_c1_frame(&sg, c->alpha, t, n);
    c->t[0][0] = t[0], c->t[0][1] = t[1], c->t[0][2] = 0.0;
    c->n[0] = n[0], c->n[1] = n[1], c->n[2] = 0.0;
    memset(c->t[1], 0, sizeof c->t[1]);
}

static int c1_weights(const tvds_model *m, const tvds_data *d, const sim_cp *c,
                      int node[SIM_MASTER_MAX_NODES], double N[SIM_MASTER_MAX_NODES])
{
    double w[2];
    tvds_c1_weights(c->alpha, w);
    node[0] = c->seg;
    node[1] = c->seg + 1;
    N[0] = w[0];
    N[1] = w[1];
    return 2;
}

static void c1_point(const tvds_model *m, const tvds_data *d, const sim_cp *c, int conf, double t,
                     double P[3], double Pm[3])
{
    tvds_c1_seg sg;
    c1_segment_at(m, d, c->contact, c->seg, conf, &sg);
    double x[2], w[2];
    tvds_c1_eval(&sg, c->alpha, x, NULL, NULL);
    tvds_c1_weights(c->alpha, w);
    for (int q = 0; q < 2; q++) {
        P[q] = x[q];
        Pm[q] = w[0] * fabs(sg.P1[q]) + w[1] * fabs(sg.P2[q]) + fabs(sg.m1[q]) + fabs(sg.m2[q]);
    }
    P[2] = Pm[2] = 0.0;
}

static void c1_motion(const tvds_model *m, const sim_cp *c, double t, int deriv, double out[3])
{
    out[0] = out[1] = out[2] = 0.0; /* the master point moves with its nodes only */
}

/* ---- Static state (master.h) ---- */

static int c1_static_setup(const tvds_model *m, int ic, double t, const double vs[3],
                           const int *off, sim_master_static *ms, double vm[3], tvds_ctx *ctx)
{
    ms->smooth = 1;
    return sim_seg2d_static_setup(m, ic, t, vs, off, ms, vm, ctx);
}

/* The same curve and weights as the engine's (hermite.h). */
static int c1_static_at(const sim_master_static *ms, const double X[3], double s, sim_master_at *g)
{
    sim_seg2d_static_locate(ms, s, g);
    tvds_c1_frame_xy(ms->nmaster, ms->master_xy, g->seg, g->alpha, g->t, g->n, g->wgt);
    return SIM_AT_OK;
}

const sim_master_type sim_master_segment2d_c1 = {
    .name = "segment2d_c1",
    .prescribed = 0,
    .closest = c1_closest,
    .frame = c1_frame,
    .weights = c1_weights,
    .point = c1_point,
    .setup = sim_seg2d_setup,
    .motion = c1_motion,
    .offsets = 1,
    .static_setup = c1_static_setup,
    .static_at = c1_static_at,
    .static_nodes = sim_seg2d_static_nodes,
    .static_place = sim_seg2d_static_place,
    .static_sep = sim_seg2d_static_sep,
    .static_follow = sim_seg2d_static_follow,
    .static_kg = sim_seg2d_static_kg,
};
