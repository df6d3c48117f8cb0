/* disc.c — the disc-brake model: an annular disc of 8-node hexahedra clamped at its hub, pads
 * on backplates over its friction ring, full models, Craig–Bampton reductions and a case file
 * pressing the pads on the disc (docs/models.md). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fe/beams_impl.h"
#include "fe/disc_impl.h"
#include "tvds/tvds_disc.h"
#include "tvds/tvds_io.h"

#define DB_PI 3.14159265358979323846

tvds_disc_params tvds_disc_default(void)
{
    tvds_disc_params p;
    memset(&p, 0, sizeof p);
    /* Disc: 350 mm outer diameter, 10 mm thick (the TD-1 brake's scale), clamped at half the
     * outer radius (b / a = 0.5, the thin-plate reference's ratio); grey cast iron. */
    p.r_out = 0.175;
    p.r_hub = 0.0875;
    p.thick = 0.010;
    p.E = 125e9;
    p.nu = 0.3;
    p.rho = 7200;
    /* 4 x 24 x 2: 15 degree sectors (8 per wavelength of the 3-diameter mode), the pad's
     * radial extent over two element rings: 3 node rings x 24 x 2 faces = 144 ring nodes. */
    p.nr = 4;
    p.nt = 24;
    p.nz = 2;
    p.modes = 20;
    p.pads = 2;
    /* Pads: 40 mm radial x 60 degrees, centred at 90 degrees, 15 mm of friction material on a
     * 5 mm steel backplate. */
    p.pad_r_in = 0.1325;
    p.pad_r_out = 0.1725;
    p.pad_arc_deg = 60;
    p.pad_theta_deg = 90;
    p.pad_thick = 0.015;
    p.pad_E = 2e9;
    p.pad_nu = 0.25;
    p.pad_rho = 2500;
    p.back_thick = 0.005;
    p.back_E = 210e9;
    p.back_nu = 0.3;
    p.back_rho = 7850;
    p.pad_nr = 2;
    p.pad_nt = 4;
    p.pad_nz = 2;
    p.pad_modes = 10;
    /* 10 rad/s: 1.5 m/s at the pads' mean radius, a brake dragged at walking pace. */
    p.omega = 10;
    return p;
}

static int need_int(const char *kv, double v, int *dst, tvds_ctx *ctx)
{
    if (v < 1 || v != floor(v) || v > 1e6)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: need a positive integer", kv);
    *dst = (int)v;
    return TVDS_OK;
}

int tvds_disc_set(tvds_disc_params *p, const char *kv, tvds_ctx *ctx)
{
    const char *eq = kv ? strchr(kv, '=') : NULL;
    if (!eq || eq == kv)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: expected key=value", kv ? kv : "");
    char key[64];
    size_t kl = (size_t)(eq - kv);
    if (kl >= sizeof key) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: key too long", kv);
    memcpy(key, kv, kl);
    key[kl] = '\0';
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || errno || !isfinite(v))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: value is not a number", kv);
    static const struct {
        const char *key;
        size_t off;
        int is_int;
    } table[] = {
#define DK(k, f, i) {k, offsetof(tvds_disc_params, f), i}
        DK("disc.r_out", r_out, 0),
        DK("disc.r_hub", r_hub, 0),
        DK("disc.thick", thick, 0),
        DK("disc.E", E, 0),
        DK("disc.nu", nu, 0),
        DK("disc.rho", rho, 0),
        DK("disc.nr", nr, 1),
        DK("disc.nt", nt, 1),
        DK("disc.nz", nz, 1),
        DK("disc.modes", modes, 1),
        DK("disc.omega", omega, 0),
        DK("pads", pads, 1),
        DK("pad.r_in", pad_r_in, 0),
        DK("pad.r_out", pad_r_out, 0),
        DK("pad.arc", pad_arc_deg, 0),
        DK("pad.theta", pad_theta_deg, 0),
        DK("pad.thick", pad_thick, 0),
        DK("pad.E", pad_E, 0),
        DK("pad.nu", pad_nu, 0),
        DK("pad.rho", pad_rho, 0),
        DK("pad.nr", pad_nr, 1),
        DK("pad.nt", pad_nt, 1),
        DK("pad.nz", pad_nz, 1),
        DK("pad.modes", pad_modes, 1),
        DK("back.thick", back_thick, 0),
        DK("back.E", back_E, 0),
        DK("back.nu", back_nu, 0),
        DK("back.rho", back_rho, 0),
#undef DK
    };
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        if (strcmp(key, table[t].key)) continue;
        char *dst = (char *)p + table[t].off;
        if (table[t].is_int) return need_int(kv, v, (int *)(void *)dst, ctx);
        *(double *)(void *)dst = v;
        return TVDS_OK;
    }
    return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: unknown key '%s'", kv, key);
}

static int material_ok(double E, double nu, double rho)
{
    return E > 0 && rho > 0 && nu > -1 && nu < 0.5;
}

int tvds_disc_check(const tvds_disc_params *p, tvds_ctx *ctx)
{
    if (!(p->r_hub > 0 && p->r_out > p->r_hub && p->thick > 0 && material_ok(p->E, p->nu, p->rho)))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "disc: need 0 < r_hub < r_out, thick, E, rho > 0, -1 < nu < 0.5");
    if (p->nr < 1 || p->nz < 1 || p->nt < 4 || p->nt % 4)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "disc: need nr, nz >= 1 and nt a multiple of 4 (a mesh symmetric under "
                          "quarter turns, so that doublet pairs are equal), got nr %d nt %d nz %d",
                          p->nr, p->nt, p->nz);
    if ((p->nr + 1.0) * p->nt * (p->nz + 1.0) > 2e6)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "disc: mesh too large");
    if (p->pads != 1 && p->pads != 2)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "disc: pads must be 1 or 2, got %d", p->pads);
    if (!(p->pad_r_in >= p->r_hub && p->pad_r_out <= p->r_out && p->pad_r_out > p->pad_r_in))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "pad: need r_hub <= pad.r_in < pad.r_out <= r_out (the pad over the "
                          "disc's ring)");
    if (!(p->pad_arc_deg > 0 && p->pad_arc_deg < 180 && isfinite(p->pad_theta_deg)))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "pad: need 0 < arc < 180 degrees");
    if (!(p->pad_thick > 0 && p->back_thick > 0 && material_ok(p->pad_E, p->pad_nu, p->pad_rho) &&
          material_ok(p->back_E, p->back_nu, p->back_rho)))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "pad: need thick, back.thick, E, rho > 0, -1 < nu < 0.5");
    if (p->pad_nr < 1 || p->pad_nt < 1 || p->pad_nz < 1 ||
        (p->pad_nr + 1.0) * (p->pad_nt + 1.0) * (p->pad_nz + 2.0) > 1e6)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "pad: need nr, nt, nz >= 1 (and a smaller mesh)");
    if (p->modes < 1 || p->pad_modes < 1)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "disc, pad: modes >= 1");
    return TVDS_OK;
}

/* A mesh of hexahedra: node coordinates (id - 1), elements' 8 node ids (tvds_hex8_corner
 * order, positive Jacobian) and material index, equation of node id / dir at
 * eq[3 (id - 1) + dir] (-1: fixed). */
typedef struct hexmesh {
    long nnode;
    double (*xyz)[3]; /* nnode */
    int nel;
    long (*en)[8]; /* nel */
    int *mat;      /* nel */
    int *eq;       /* 3 nnode */
    int neq;
    double mats[2][3]; /* E, nu, rho */
} hexmesh;

static int mesh_alloc(hexmesh *g, long nnode, int nel, tvds_ctx *ctx)
{
    memset(g, 0, sizeof *g);
    g->nnode = nnode;
    g->nel = nel;
    g->xyz = tvds_calloc((size_t)nnode, sizeof *g->xyz);
    g->en = tvds_calloc((size_t)nel, sizeof *g->en);
    g->mat = tvds_calloc((size_t)nel, sizeof *g->mat);
    g->eq = tvds_malloc((size_t)(3 * nnode) * sizeof *g->eq);
    if (!g->xyz || !g->en || !g->mat || !g->eq)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    return TVDS_OK;
}

static void mesh_free(hexmesh *g)
{
    tvds_free(g->xyz);
    tvds_free(g->en);
    tvds_free(g->mat);
    tvds_free(g->eq);
    memset(g, 0, sizeof *g);
}

/* Assemble the upper triangles of K and M and label the DoFs. */
static int mesh_model(const hexmesh *g, const char *name, tvds_fe_model **out, cholmod_common *cc,
                      tvds_ctx *ctx)
{
    size_t nz = (size_t)g->nel * 300;
    cholmod_triplet *TK =
        cholmod_allocate_triplet((size_t)g->neq, (size_t)g->neq, nz, 1, CHOLMOD_REAL, cc);
    cholmod_triplet *TM =
        cholmod_allocate_triplet((size_t)g->neq, (size_t)g->neq, nz, 1, CHOLMOD_REAL, cc);
    tvds_fe_model *m = tvds_calloc(1, sizeof *m);
    int rc = TVDS_OK;
    if (!TK || !TM || !m) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", name);
    for (int el = 0; !rc && el < g->nel; el++) {
        double x[8][3], Ke[24][24], Me[24][24];
        int e[24];
        for (int l = 0; l < 8; l++) {
            long id = g->en[el][l];
            for (int c = 0; c < 3; c++) {
                x[l][c] = g->xyz[id - 1][c];
                e[3 * l + c] = g->eq[3 * (id - 1) + c];
            }
        }
        const double *mt = g->mats[g->mat[el]];
        if (!tvds_hex8_iso_((const double(*)[3])x, mt[0], mt[1], mt[2], 1, Ke, Me)) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: element %d is degenerate", name, el + 1);
            break;
        }
        for (int r = 0; r < 24; r++)
            for (int q = 0; q < 24; q++) {
                if (e[r] < 0 || e[q] < 0 || e[r] > e[q]) continue;
                size_t t = TK->nnz++;
                TM->nnz++;
                ((int *)TK->i)[t] = ((int *)TM->i)[t] = e[r];
                ((int *)TK->j)[t] = ((int *)TM->j)[t] = e[q];
                ((double *)TK->x)[t] = Ke[r][q];
                ((double *)TM->x)[t] = Me[r][q];
            }
    }
    if (!rc) {
        m->name = tvds_strdup(name);
        m->n = g->neq;
        m->K = cholmod_triplet_to_sparse(TK, 0, cc);
        m->M = cholmod_triplet_to_sparse(TM, 0, cc);
        m->dofs = tvds_calloc((size_t)g->neq, sizeof *m->dofs);
        if (!m->name || !m->K || !m->M || !m->dofs)
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", name);
    }
    cholmod_free_triplet(&TK, cc);
    cholmod_free_triplet(&TM, cc);
    for (long id = 1; !rc && id <= g->nnode; id++)
        for (int d = 0; d < 3; d++) {
            int q = g->eq[3 * (id - 1) + d];
            if (q < 0) continue;
            m->dofs[q].kind = TVDS_DOF_PHYSICAL;
            m->dofs[q].node = id;
            m->dofs[q].dir = d;
            memcpy(m->dofs[q].xyz, g->xyz[id - 1], sizeof m->dofs[q].xyz);
        }
    if (rc)
        tvds_fe_model_free(&m, cc);
    else
        *out = m;
    return rc;
}

/* Append an empty face set of nface 4-node faces to m; *f receives its node array. */
static int add_faceset(tvds_fe_model *m, const char *name, int nface, long **f, tvds_ctx *ctx)
{
    tvds_faceset *fs = tvds_realloc(m->fsets, (size_t)(m->nfsets + 1) * sizeof *fs);
    if (!fs) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    m->fsets = fs;
    fs = &m->fsets[m->nfsets++];
    memset(fs, 0, sizeof *fs);
    fs->name = tvds_strdup(name);
    fs->nn = tvds_malloc((size_t)nface * sizeof(int));
    fs->nodes = tvds_calloc((size_t)nface * TVDS_FACE_MAX_NODES, sizeof(long));
    if (!fs->name || !fs->nn || !fs->nodes) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    fs->nface = nface;
    for (int k = 0; k < nface; k++)
        fs->nn[k] = 4;
    *f = fs->nodes;
    return TVDS_OK;
}

/* ---- disc --------------------------------------------------------------------------------- */

/* Node (i, j, k): radius ring i (0 at the hub), angle j (mod nt), layer k (0 at z = -h/2). */
static long d_id(const tvds_disc_params *p, int i, int j, int k)
{
    return 1 + (j % p->nt) + (long)p->nt * (i + (p->nr + 1L) * k);
}

static double d_r(const tvds_disc_params *p, int i)
{
    return i == p->nr ? p->r_out : p->r_hub + (p->r_out - p->r_hub) * i / p->nr;
}

/* Element rings [i0, i1) of the friction ring: radial span overlapping the pad's. */
static void ring_range(const tvds_disc_params *p, int *i0, int *i1)
{
    *i0 = p->nr;
    *i1 = 0;
    for (int i = 0; i < p->nr; i++)
        if (d_r(p, i + 1) > p->pad_r_in && d_r(p, i) < p->pad_r_out) {
            if (i < *i0) *i0 = i;
            *i1 = i + 1;
        }
}

/* The face set of the ring on side +1 (z = h/2, normal +z) or -1 (z = -h/2, normal -z), ring
 * by ring in theta order, first edge along +theta. */
static int disc_ring(const tvds_disc_params *p, int side, tvds_fe_model *m, tvds_ctx *ctx)
{
    int i0, i1;
    ring_range(p, &i0, &i1);
    const char *name = side > 0 ? "ring_out" : "ring_in";
    int k = side > 0 ? p->nz : 0, nf = (i1 - i0) * p->nt;
    long *f;
    int rc = add_faceset(m, name, nf, &f, ctx);
    for (int i = i0; !rc && i < i1; i++)
        for (int j = 0; j < p->nt; j++, f += TVDS_FACE_MAX_NODES) {
            /* a1 = +theta; a2 = -r (side +1) or +r (side -1): n = a1 x a2 = side z */
            int ia = side > 0 ? i + 1 : i, ib = side > 0 ? i : i + 1;
            f[0] = d_id(p, ia, j, k);
            f[1] = d_id(p, ia, j + 1, k);
            f[2] = d_id(p, ib, j + 1, k);
            f[3] = d_id(p, ib, j, k);
        }
    return rc;
}

int tvds_disc_build(const tvds_disc_params *p, tvds_fe_model **out, cholmod_common *cc,
                    tvds_ctx *ctx)
{
    *out = NULL;
    int rc = tvds_disc_check(p, ctx);
    if (rc) return rc;
    hexmesh g;
    long nn = (p->nr + 1L) * p->nt * (p->nz + 1);
    rc = mesh_alloc(&g, nn, p->nr * p->nt * p->nz, ctx);
    for (int k = 0; !rc && k <= p->nz; k++)
        for (int i = 0; i <= p->nr; i++)
            for (int j = 0; j < p->nt; j++) {
                long id = d_id(p, i, j, k);
                /* the angle from j / nt of a full turn by quadrant, so that the quarter-turn
                 * images of a node are exact (cos and sin swapped and negated) */
                int q = (4 * j) / p->nt, jr = j - q * p->nt / 4;
                double t = 2 * DB_PI * jr / p->nt, c = cos(t), s = sin(t), r = d_r(p, i);
                double cq[4] = {c, -s, -c, s}, sq[4] = {s, c, -s, -c};
                g.xyz[id - 1][0] = r * cq[q];
                g.xyz[id - 1][1] = r * sq[q];
                g.xyz[id - 1][2] = p->thick * ((double)k / p->nz - 0.5);
                for (int d = 0; d < 3; d++)
                    g.eq[3 * (id - 1) + d] = i == 0 ? -1 : g.neq++;
            }
    int el = 0;
    for (int k = 0; !rc && k < p->nz; k++)
        for (int i = 0; i < p->nr; i++)
            for (int j = 0; j < p->nt; j++, el++)
                for (int l = 0; l < 8; l++) { /* local axes (r, theta, z): right-handed */
                    int o[3];
                    tvds_hex8_corner(l, o);
                    g.en[el][l] = d_id(p, i + o[0], j + o[1], k + o[2]);
                }
    g.mats[0][0] = p->E;
    g.mats[0][1] = p->nu;
    g.mats[0][2] = p->rho;
    if (!rc) rc = mesh_model(&g, "disc", out, cc, ctx);
    if (!rc) rc = disc_ring(p, +1, *out, ctx);
    if (!rc && p->pads == 2) rc = disc_ring(p, -1, *out, ctx);
    if (rc) tvds_fe_model_free(out, cc);
    mesh_free(&g);
    return rc;
}

/* ---- pads --------------------------------------------------------------------------------- */

/* Pad node (i, j, k): radial i, angular j (increasing theta), layer k (0 on the disc, pad_nz
 * at the backplate, pad_nz + 1 the back face). */
static long p_id(const tvds_disc_params *p, int i, int j, int k)
{
    return 1 + i + (p->pad_nr + 1L) * (j + (p->pad_nt + 1L) * k);
}

static double p_theta(const tvds_disc_params *p, int j)
{
    return (p->pad_theta_deg - 0.5 * p->pad_arc_deg + p->pad_arc_deg * j / p->pad_nt) * DB_PI / 180;
}

int tvds_pad_build(const tvds_disc_params *p, int side, tvds_fe_model **out, cholmod_common *cc,
                   tvds_ctx *ctx)
{
    *out = NULL;
    int rc = tvds_disc_check(p, ctx);
    if (rc) return rc;
    const char *name = side > 0 ? "pad_out" : "pad_in";
    int nk = p->pad_nz + 2; /* node layers */
    long nn = (p->pad_nr + 1L) * (p->pad_nt + 1) * nk;
    hexmesh g;
    rc = mesh_alloc(&g, nn, p->pad_nr * p->pad_nt * (p->pad_nz + 1), ctx);
    long *nodes = tvds_malloc((size_t)nn * sizeof(long));
    if (!rc && !nodes) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    for (int k = 0; !rc && k < nk; k++)
        for (int j = 0; j <= p->pad_nt; j++)
            for (int i = 0; i <= p->pad_nr; i++) {
                long id = p_id(p, i, j, k);
                double r = p->pad_r_in + (p->pad_r_out - p->pad_r_in) * i / p->pad_nr;
                double d =
                    k <= p->pad_nz ? p->pad_thick * k / p->pad_nz : p->pad_thick + p->back_thick;
                double t = p_theta(p, j);
                g.xyz[id - 1][0] = r * cos(t);
                g.xyz[id - 1][1] = r * sin(t);
                g.xyz[id - 1][2] = side * (0.5 * p->thick + d);
                for (int c = 0; c < 3; c++)
                    g.eq[3 * (id - 1) + c] = g.neq++;
            }
    int el = 0;
    for (int k = 0; !rc && k <= p->pad_nz; k++)
        for (int j = 0; j < p->pad_nt; j++)
            for (int i = 0; i < p->pad_nr; i++, el++) {
                g.mat[el] = k == p->pad_nz;   /* the last layer is the backplate */
                for (int l = 0; l < 8; l++) { /* (r, theta, z) right-handed: z up */
                    int o[3];
                    tvds_hex8_corner(l, o);
                    g.en[el][l] = p_id(p, i + o[0], j + o[1], side > 0 ? k + o[2] : k + 1 - o[2]);
                }
            }
    g.mats[0][0] = p->pad_E;
    g.mats[0][1] = p->pad_nu;
    g.mats[0][2] = p->pad_rho;
    g.mats[1][0] = p->back_E;
    g.mats[1][1] = p->back_nu;
    g.mats[1][2] = p->back_rho;
    if (!rc) rc = mesh_model(&g, name, out, cc, ctx);
    tvds_fe_model *m = rc ? NULL : *out;
    long *f = NULL;
    if (!rc) rc = add_faceset(m, "friction", p->pad_nr * p->pad_nt, &f, ctx);
    for (int j = 0; !rc && j < p->pad_nt; j++)
        for (int i = 0; i < p->pad_nr; i++, f += TVDS_FACE_MAX_NODES) {
            /* outward normal -side z: a1 = +theta, a2 = +r (side +1) or -r (side -1) */
            int ia = side > 0 ? i : i + 1, ib = side > 0 ? i + 1 : i;
            f[0] = p_id(p, ia, j, 0);
            f[1] = p_id(p, ia, j + 1, 0);
            f[2] = p_id(p, ib, j + 1, 0);
            f[3] = p_id(p, ib, j, 0);
        }
    int n = 0;
    for (int j = 0; !rc && j <= p->pad_nt; j++)
        for (int i = 0; i <= p->pad_nr; i++)
            nodes[n++] = p_id(p, i, j, 0);
    if (!rc) rc = tvds_fe_add_set_(m, "friction_nodes", n, nodes, ctx);
    n = 0;
    for (int j = 0; !rc && j <= p->pad_nt; j++)
        for (int i = 0; i <= p->pad_nr; i++)
            nodes[n++] = p_id(p, i, j, nk - 1);
    if (!rc) rc = tvds_fe_add_set_(m, "back", n, nodes, ctx);
    for (int e = 0; !rc && e < 2; e++) {
        n = 0;
        for (int k = p->pad_nz; k < nk; k++)
            for (int i = 0; i <= p->pad_nr; i++)
                nodes[n++] = p_id(p, i, e ? p->pad_nt : 0, k);
        rc = tvds_fe_add_set_(m, e ? "abut_lead" : "abut_trail", n, nodes, ctx);
    }
    if (rc) tvds_fe_model_free(out, cc);
    mesh_free(&g);
    tvds_free(nodes);
    return rc;
}
