/* sim_data.c — engine set-up: eigenbases or M^-1, contact-space flexibilities, buffers sized
 * once, the stable step, and tvds_data_free (tvds_data_create, in sim.c, adds the start). */
#include <lapacke.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "engine/elements_impl.h"
#include "engine/contact/face.h"
#include "engine/friction_laws_impl.h"
#include "engine/sim_impl.h"

static int sub_damping(const tvds_model *m, int i)
{
    return m->damping ? m->damping[i].kind : TVDS_DAMP_NONE;
}

/* Largest damping ratio of the top mode over the Rayleigh schedule (0 for none). */
static double rayleigh_xi_max(const tvds_damping *dp, double w)
{
    if (!dp || dp->kind != TVDS_DAMP_RAYLEIGH || w <= 0.0) return 0.0;
    double x1 = dp->alpha / (2.0 * w) + 0.5 * dp->beta * w;
    double x0 =
        (dp->t_hold > 0.0 || dp->t_ramp > 0.0) ? dp->alpha0 / (2.0 * w) + 0.5 * dp->beta0 * w : x1;
    return x1 > x0 ? x1 : x0;
}

/* Generalized eigenvalues of (K, M) of substructure s (values only). w2 has n entries. */
static int sub_eigvals(const tvds_substructure *s, double *w2, double *A, double *B,
                       const char *what, tvds_ctx *ctx)
{
    int n = s->n;
    /* A diagonal entry of M that is not a positive normal number makes M singular in double
     * precision: name it (1-based, as in the file) rather than let the eigensolver fail. */
    for (int i = 0; i < n; i++) {
        double mii = s->M[i + (size_t)i * n];
        if (!(mii > 0.0))
            return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                              "substructure '%s': M(%d,%d) = %g: the mass matrix is not positive "
                              "definite",
                              s->name ? s->name : "?", i + 1, i + 1, mii);
        if (mii < DBL_MIN)
            return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                              "substructure '%s': M(%d,%d) = %g is subnormal (below %g): the "
                              "mass matrix is singular in double precision",
                              s->name ? s->name : "?", i + 1, i + 1, mii, DBL_MIN);
    }
    memcpy(A, s->K, (size_t)n * n * sizeof(double));
    memcpy(B, s->M, (size_t)n * n * sizeof(double));
    lapack_int info = LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, *what, 'U', n, A, n, B, n, w2);
    if (info > n)
        return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                          "substructure '%s': mass matrix is not positive definite",
                          s->name ? s->name : "?");
    if (info != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_SOLVER,
                          "substructure '%s': eigensolver dsygvd failed (info %d)",
                          s->name ? s->name : "?", (int)info);
    double wmax = 0.0;
    for (int i = 0; i < n; i++)
        if (fabs(w2[i]) > wmax) wmax = fabs(w2[i]);
    for (int i = 0; i < n; i++) {
        if (w2[i] < 0.0) {
            if (w2[i] < -1e-9 * wmax && w2[i] < -1e-12)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "substructure '%s': stiffness matrix is indefinite "
                                  "(eigenvalue %g)",
                                  s->name ? s->name : "?", w2[i]);
            w2[i] = 0.0; /* rigid-body mode within round-off */
        }
    }
    return TVDS_OK;
}

/* Relative frequency error allowed at f_band by dt = auto under exact modal propagation. */
#define EXACT_PHASE_TOL 1e-3

/* Stable step of one substructure given its largest omega^2 and damping. */
static double sub_stable_dt(const tvds_model *m, int i, double w2max, const double *Phi_top,
                            double *xi_out)
{
    *xi_out = 0.0;
    if (w2max <= 0.0) return INFINITY;
    double w = sqrt(w2max), xi = 0.0;
    int kind = sub_damping(m, i);
    if (kind == TVDS_DAMP_RAYLEIGH) xi = rayleigh_xi_max(&m->damping[i], w);
    if (kind == TVDS_DAMP_MATRIX && Phi_top && m->subs[i]->C) {
        /* xi of the top mode: phi^T C phi / (2 w) with phi mass-normalised. */
        const tvds_substructure *s = m->subs[i];
        int n = s->n;
        double a = 0.0;
        for (int c = 0; c < n; c++)
            for (int r = 0; r < n; r++)
                a += Phi_top[r] * s->C[r + (size_t)c * n] * Phi_top[c];
        xi = a / (2.0 * w);
        if (xi < 0.0) xi = 0.0;
    }
    /* Backward-difference damping: stable for (w h)^2 + 4 xi (w h) < 4 (docs/theory.md):
     * w h = 2 (sqrt(1 + xi^2) - xi) = 2 / (sqrt(1 + xi^2) + xi), the second form without the
     * cancellation and, through hypot, without the overflow of xi^2 (xi = 5e297 gave inf - inf
     * and an "unbounded" step). */
    *xi_out = xi;
    return (2.0 / w) / (hypot(1.0, xi) + xi);
}

static int check_model(const tvds_model *m, tvds_ctx *ctx)
{
    if (!m || m->nsub < 1 || !m->subs)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "model has no substructure");
    for (int i = 0; i < m->nsub; i++) {
        const tvds_substructure *s = m->subs[i];
        if (!s || s->n < 1 || !s->M || !s->K || !s->dofs)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "substructure %d is empty or incomplete", i);
        if (sub_damping(m, i) == TVDS_DAMP_MATRIX && !s->C)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "substructure '%s': matrix damping requested but no C matrix",
                              s->name ? s->name : "?");
    }
    return TVDS_OK;
}

/* Exact modal propagation with dt = auto: *best becomes min(*best, the step of the band of
 * interest, docs/theory.md 10b): coupled modes at f_band keep a relative frequency error
 * (w h)^2 / 24 <= EXACT_PHASE_TOL. */
static int band_dt(const tvds_model *m, double *best, tvds_ctx *ctx)
{
    if (m->opt.integrator != TVDS_INTEGRATOR_EXACT || !m->opt.dt_auto) return TVDS_OK;
    if (!(m->opt.f_band > 0.0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "integrator = exact with dt = auto needs [run] f_band (the top of the "
                          "band of interest, Hz)");
    double hb = sqrt(24.0 * EXACT_PHASE_TOL) / (6.283185307179586 * m->opt.f_band);
    if (hb < *best) *best = hb;
    return TVDS_OK;
}

int tvds_stable_dt(const tvds_model *m, double *dt_crit, tvds_ctx *ctx)
{
    int rc = check_model(m, ctx);
    if (rc) return rc;
    double best = INFINITY;
    int exact = m->opt.integrator == TVDS_INTEGRATOR_EXACT;
    for (int i = 0; i < m->nsub && !rc; i++) {
        const tvds_substructure *s = m->subs[i];
        int n = s->n;
        double *A = tvds_malloc((size_t)n * n * sizeof(double));
        double *B = tvds_malloc((size_t)n * n * sizeof(double));
        double *w2 = tvds_malloc((size_t)n * sizeof(double));
        if (!A || !B || !w2) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (stable step)");
        } else {
            int vec = sub_damping(m, i) == TVDS_DAMP_MATRIX;
            rc = sub_eigvals(s, w2, A, B, vec ? "V" : "N", ctx);
            /* Exact modal propagation is stable at any step for the modal substructures; the
             * dense path keeps the limit of central differences. */
            if (!rc && !(exact && m->opt.modal && !vec)) {
                double xi;
                double dti =
                    sub_stable_dt(m, i, w2[n - 1], vec ? A + (size_t)(n - 1) * n : NULL, &xi);
                /* A damping ratio beyond a million on the top mode is no physical damping: it
                 * only shrinks the step towards zero. Say so instead of running for ever. */
                if (xi > 1e6)
                    rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                    "substructure '%s': its damping gives the highest mode "
                                    "(%.6g Hz) a damping ratio of %.3g, which limits the stable "
                                    "step of central differences to %.3g s: check the damping "
                                    "(Rayleigh alpha, beta or C.mtx)",
                                    s->name ? s->name : "?", sqrt(w2[n - 1]) / (8.0 * atan(1.0)),
                                    xi, dti);
                if (dti < best) best = dti;
            }
        }
        tvds_free(A);
        tvds_free(B);
        tvds_free(w2);
    }
    if (rc) return rc;
    rc = band_dt(m, &best, ctx);
    if (rc) return rc;
    *dt_crit = best;
    return TVDS_OK;
}

/* ---- Lifetime ----------------------------------------------------------------------------- */

void tvds_data_free(tvds_data **pd)
{
    if (!pd || !*pd) return;
    tvds_data *d = *pd;
    if (d->sub) {
        for (int i = 0; i < d->nsub; i++) {
            sim_sub *s = &d->sub[i];
            sim_exact_free(s);
            tvds_free(s->Y);
            tvds_free(s->mdiag);
            tvds_free(s->minv);
            tvds_free(s->kp);
            tvds_free(s->ki);
            tvds_free(s->kv);
            tvds_free(s->dgoff);
            tvds_free(s->dgv);
            tvds_free(s->w2);
            tvds_free(s->cdamp);
            tvds_free(s->x_prev);
            tvds_free(s->x);
            tvds_free(s->x_new);
            tvds_free(s->x_old);
            tvds_free(s->fext);
            tvds_free(s->fel);
            tvds_free(s->fdamp);
            tvds_free(s->tmp);
            tvds_free(s->fgrav);
            tvds_free(s->fbase);
            tvds_free(s->cpush);
            tvds_free(s->cand);
            tvds_free(s->cand_dof);
            tvds_free(s->G);
            tvds_free(s->gcomp);
            for (int w = 0; w < 3; w++) {
                tvds_free(s->uc[w]);
                tvds_free(s->ucv[w]);
            }
            tvds_free(s->ucl1);
            tvds_free(s->ysingle);
        }
    }
    tvds_free(d->sub);
    tvds_free(d->off);
    tvds_free(d->cp);
    for (int c = 0; c < d->nctc; c++) {
        if (d->mnodes_dofs) tvds_free(d->mnodes_dofs[c]);
        if (d->mnodes_X) tvds_free(d->mnodes_X[c]);
        if (d->mnodes_s) tvds_free(d->mnodes_s[c]);
        if (d->fnb_off) tvds_free(d->fnb_off[c]);
        if (d->fnb) tvds_free(d->fnb[c]);
        if (d->fedge) tvds_free(d->fedge[c]);
    }
    tvds_free(d->fnb_off);
    tvds_free(d->fnb);
    tvds_free(d->fedge);
    tvds_free(d->ctc_closed);
    tvds_free(d->mnodes_dofs);
    tvds_free(d->mnodes_X);
    tvds_free(d->mnodes_s);
    tvds_free(d->row);
    tvds_free(d->p_sub);
    tvds_free(d->p_dof);
    tvds_free(d->p_cand);
    tvds_free(d->p_row);
    tvds_free(d->p_next);
    tvds_free(d->comp_head);
    tvds_free(d->comp_used);
    tvds_free(d->comp_tail);
    tvds_free(d->cr_pos);
    tvds_free(d->cr_sub);
    tvds_free(d->cr_dof);
    tvds_free(d->cr_c);
    tvds_free(d->cp_q);
    tvds_free(d->cp_pc);
    tvds_free(d->cp_pr);
    tvds_free(d->cp_gsel);
    tvds_free(d->cp_gns);
    tvds_free(d->cp_glast);
    tvds_free(d->p_bc);
    tvds_free(d->p_be);
    tvds_free(d->W);
    tvds_free(d->wp_a);
    tvds_free(d->wp_b);
    tvds_free(d->wp_w);
    tvds_free(d->wp_g);
    tvds_free(d->wp_first);
    tvds_free(d->wr_end);
    tvds_free(d->wr_w);
    tvds_free(d->wp_len);
    tvds_free(d->W_lu);
    tvds_free(d->lam);
    tvds_free(d->rhs);
    tvds_free(d->ipiv);
    tvds_free(d->jpvt);
    tvds_free(d->ls_work);
    tvds_free(d->ls_W);
    tvds_free(d->lam_bil);
    tvds_free(d->bil_hint);
    tvds_free(d->load_hint);
    tvds_free(d->load_val);
    tvds_free(d->du_c);
    tvds_free(d->du_cv);
    tvds_free(d->cand_base);
    tvds_free(d->el_state);
    tvds_free(d->el_du);
    tvds_free(d->el_dv);
    tvds_free(d->el_f);
    tvds_free(d->el_res);
    tvds_free(d->rig_row);
    tvds_free(d->rig_fapp);
    tvds_free(d->rig_lam);
    tvds_free(d->pen_state);
    sim_channels_free(d);
    tvds_free(d);
    *pd = NULL;
}

#define ALLOC(p, count)                                                                            \
    do {                                                                                           \
        (p) = tvds_calloc((size_t)(count) > 0 ? (size_t)(count) : 1, sizeof *(p));                 \
        if (!(p)) goto nomem;                                                                      \
    } while (0)

/* Name of the face set of substructure S that contact C took its faces from (the same faces,
 * node for node), or "?". */
static const char *faceset_name(const tvds_substructure *S, const tvds_contact *C)
{
    for (int k = 0; k < S->nfsets; k++) {
        const tvds_faceset *fs = &S->fsets[k];
        int same = fs->nface == C->nface;
        for (int f = 0; same && f < fs->nface; f++) {
            size_t at = (size_t)f * TVDS_FACE_MAX_NODES;
            same = fs->nn[f] == C->face_nn[f];
            for (int q = 0; same && q < fs->nn[f]; q++)
                same = fs->nodes[at + q] == C->master_nodes[C->face_node[at + q]];
        }
        if (same) return fs->name ? fs->name : "?";
    }
    return "?";
}

/* Side the face normals of contact c point to (docs/formats.md: corners counter-clockwise seen
 * from the slave, so the normals point out of the master's body, toward the slave). Each face
 * f gives s_f = n_f . (c_f - G) at its centre c_f: G is the centroid of the master
 * substructure's points (its physical nodes and recovery points), inside a solid body; for a
 * body whose points all lie on one surface (a plate, a reduced model keeping only the face),
 * where every s_f vanishes, G is the slave substructure's centroid and the sign is reversed. With
 * S = sum s_f and T = sum |s_f|: S < -T / 2 (most faces, by their distance, on the wrong side)
 * refuses the set; |S| <= T / 2, or T below 1e-9 of the faces' extent, decides nothing. ctr
 * and nrm: each face's centre and unit normal (3 nf). */
static int face_orientation(const tvds_model *m, int c, const double *ctr, const double *nrm,
                            tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[c];
    const tvds_substructure *S = m->subs[C->master_sub];
    double ext = 0.0, lo[3] = {INFINITY, INFINITY, INFINITY},
           hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int f = 0; f < C->nface; f++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], ctr[3 * f + a]);
            hi[a] = fmax(hi[a], ctr[3 * f + a]);
        }
    for (int a = 0; a < 3; a++)
        ext = fmax(ext, hi[a] - lo[a]);
    for (int side = 0; side < 2; side++) {
        /* side 0: the master body's centroid (normals point away from it); 1: the slave
         * body's (normals point toward it). */
        const tvds_substructure *B = side == 0 ? S : m->subs[C->slave_sub];
        double G[3] = {0.0, 0.0, 0.0};
        long np = 0;
        for (int k = 0; k < B->n; k++)
            if (B->dofs[k].kind == TVDS_DOF_PHYSICAL) {
                for (int a = 0; a < 3; a++)
                    G[a] += B->dofs[k].xyz[a];
                np++;
            }
        for (int k = 0; k < B->nrec; k++) {
            for (int a = 0; a < 3; a++)
                G[a] += B->rec[k].xyz[a];
            np++;
        }
        if (np == 0) continue;
        for (int a = 0; a < 3; a++)
            G[a] /= (double)np;
        double sum = 0.0, tot = 0.0;
        for (int f = 0; f < C->nface; f++) {
            double sf = 0.0;
            for (int a = 0; a < 3; a++)
                sf += nrm[3 * f + a] * (ctr[3 * f + a] - G[a]);
            if (side == 1) sf = -sf;
            sum += sf;
            tot += fabs(sf);
        }
        if (!(tot > 1e-9 * ext * C->nface)) continue; /* every face through G: undecided */
        if (sum < -0.5 * tot)
            return TVDS_ERROR(
                ctx, TVDS_ERR_INVALID,
                "contact '%s': the normals of face set '%s' of substructure '%s' point into its "
                "own body (%s): list every face's corners counter-clockwise seen from the "
                "slave, outside the body",
                C->name ? C->name : "?", faceset_name(S, C), S->name ? S->name : "?",
                side == 0 ? "toward the centroid of its nodes"
                          : "away from the slave substructure's nodes");
        return TVDS_OK; /* decided by the first reference that sees the set's side */
    }
    return TVDS_OK;
}

/* Face-set master of contact c: node DoFs and coordinates, the faces sharing a node with each
 * face (the local search walks through them) and the face across each edge (-1: a free edge,
 * where the contact can be lost). Every face must have a proper normal at its centre. */
static int face_topology(const tvds_model *m, tvds_data *d, int c, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[c];
    int nf = C->nface, nm = C->nmaster, rc = TVDS_OK;
    const char *cn = C->name ? C->name : "?";
    long *dd = tvds_calloc((size_t)nm * 3, sizeof *dd);
    double *X = tvds_calloc((size_t)nm * 3, sizeof *X);
    int *cnt = tvds_calloc((size_t)nm + 1, sizeof *cnt), *nf_of = NULL, *mark = NULL;
    double *fc = tvds_calloc((size_t)nf * 6, sizeof *fc); /* face centres, then normals */
    d->mnodes_dofs[c] = dd;
    d->mnodes_X[c] = X;
    d->fnb_off[c] = tvds_calloc((size_t)nf + 1, sizeof(int));
    d->fedge[c] = tvds_calloc((size_t)nf * 4, sizeof(int));
    if (!dd || !X || !cnt || !fc || !d->fnb_off[c] || !d->fedge[c]) goto nomem;
    for (int k = 0; k < nm; k++) {
        int di[3];
        sim_node_dofs(m->subs[C->master_sub], C->master_nodes[k], di, X + 3 * k);
        for (int a = 0; a < 3; a++)
            dd[3 * k + a] = di[a];
    }
    /* Node -> faces (CSR). */
    for (int f = 0; f < nf; f++)
        for (int q = 0; q < C->face_nn[f]; q++)
            cnt[C->face_node[(size_t)f * TVDS_FACE_MAX_NODES + q] + 1]++;
    for (int k = 0; k < nm; k++)
        cnt[k + 1] += cnt[k];
    nf_of = tvds_calloc((size_t)cnt[nm] + 1, sizeof *nf_of);
    mark = tvds_calloc((size_t)nf, sizeof *mark);
    if (!nf_of || !mark) goto nomem;
    {
        int *fill = tvds_calloc((size_t)nm + 1, sizeof *fill);
        if (!fill) goto nomem;
        for (int f = 0; f < nf; f++)
            for (int q = 0; q < C->face_nn[f]; q++) {
                int k = C->face_node[(size_t)f * TVDS_FACE_MAX_NODES + q];
                nf_of[cnt[k] + fill[k]++] = f;
            }
        tvds_free(fill);
    }
    /* Face -> neighbour faces (sharing any node), two passes: count, then fill. */
    for (int pass = 0; pass < 2; pass++) {
        int tot = 0;
        for (int f = 0; f < nf; f++) {
            if (pass == 0) d->fnb_off[c][f] = tot;
            for (int q = 0; q < C->face_nn[f]; q++) {
                int k = C->face_node[(size_t)f * TVDS_FACE_MAX_NODES + q];
                for (int r = cnt[k]; r < cnt[k + 1]; r++) {
                    int g = nf_of[r];
                    if (g == f || mark[g] == f + 1) continue;
                    mark[g] = f + 1;
                    if (pass == 1) d->fnb[c][tot] = g;
                    tot++;
                }
            }
            for (int q = 0; q < C->face_nn[f]; q++) {
                int k = C->face_node[(size_t)f * TVDS_FACE_MAX_NODES + q];
                for (int r = cnt[k]; r < cnt[k + 1]; r++)
                    mark[nf_of[r]] = 0;
            }
        }
        if (pass == 0) {
            d->fnb_off[c][nf] = tot;
            d->fnb[c] = tvds_calloc((size_t)tot + 1, sizeof(int));
            if (!d->fnb[c]) goto nomem;
        }
    }
    /* Face across each edge: the other face holding both corners. */
    for (int f = 0; f < nf; f++) {
        int nn = C->face_nn[f], ncn = face_ncorner(nn);
        const int *fn = C->face_node + (size_t)f * TVDS_FACE_MAX_NODES;
        for (int e = 0; e < 4; e++) {
            d->fedge[c][4 * f + e] = -1;
            if (e >= ncn) continue;
            int a = fn[e], b = fn[(e + 1) % ncn];
            for (int r = cnt[a]; r < cnt[a + 1]; r++) {
                int g = nf_of[r];
                if (g == f) continue;
                const int *gn = C->face_node + (size_t)g * TVDS_FACE_MAX_NODES;
                int ncg = face_ncorner(C->face_nn[g]), qa = -1, qb = -1;
                for (int q = 0; q < ncg; q++) {
                    if (gn[q] == a) qa = q;
                    if (gn[q] == b) qb = q;
                }
                if (qa < 0 || qb < 0) continue;
                if ((qb + 1) % ncg == qa) {
                    d->fedge[c][4 * f + e] = g; /* g runs along the edge b -> a: consistent */
                } else if ((qa + 1) % ncg == qb) {
                    /* Both faces run a -> b: their normals point to opposite sides. */
                    rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                    "contact '%s': faces %d and %d share the edge %ld-%ld in the "
                                    "same direction, so their normals point to opposite sides: "
                                    "list every face's corners counter-clockwise seen from the "
                                    "slave",
                                    cn, f + 1, g + 1, C->master_nodes[a], C->master_nodes[b]);
                    goto done;
                }
            }
        }
        double P[3 * FACE_MAX_NODES], xi[2], n[3], t1[3], t2[3];
        for (int q = 0; q < nn; q++)
            for (int a = 0; a < 3; a++)
                P[3 * q + a] = X[3 * fn[q] + a];
        xi[0] = xi[1] = face_is_tri(nn) ? 1.0 / 3.0 : 0.0;
        if (face_frame(nn, P, xi, n, t1, t2) != 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "contact '%s': face %d (nodes %ld, %ld, %ld, ...) is degenerate "
                            "(zero area)",
                            cn, f + 1, C->master_nodes[fn[0]], C->master_nodes[fn[1]],
                            C->master_nodes[fn[2]]);
            break;
        }
        double N[FACE_MAX_NODES];
        face_shape(nn, xi, N, NULL);
        for (int a = 0; a < 3; a++) {
            fc[3 * f + a] = 0.0;
            for (int q = 0; q < nn; q++)
                fc[3 * f + a] += N[q] * P[3 * q + a];
            fc[3 * ((size_t)nf + f) + a] = n[a];
        }
    }
    if (rc == TVDS_OK) rc = face_orientation(m, c, fc, fc + 3 * (size_t)nf, ctx);
done:
    tvds_free(cnt);
    tvds_free(nf_of);
    tvds_free(mark);
    tvds_free(fc);
    return rc;
nomem:
    tvds_free(cnt);
    tvds_free(nf_of);
    tvds_free(mark);
    tvds_free(fc);
    return TVDS_ERR_NOMEM;
}

/* Substructures smaller than this stay on the modal path under run.path = auto: below it the
 * eigenbasis costs as little per step as the sparse passes. */
#define SIM_LUMPED_MIN_N 16

/* Does substructure i step on the lumped physical path (docs/theory.md 9c)? run.path = auto,
 * central differences, damping none or Rayleigh, M diagonal and K with at most n^2/4
 * nonzeros (then the O(nnz) passes cost less than the modal path's O(n) per contact DoF). */
static int sub_lumped(const tvds_model *m, int i)
{
    const tvds_substructure *S = m->subs[i];
    int n = S->n;
    if (m->opt.modal != TVDS_PATH_AUTO || m->opt.integrator != TVDS_INTEGRATOR_CENTRAL ||
        sub_damping(m, i) == TVDS_DAMP_MATRIX || n < SIM_LUMPED_MIN_N)
        return 0;
    size_t nnz = 0;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++) {
            if (r != c && S->M[r + (size_t)c * n] != 0.0) return 0;
            if (S->K[r + (size_t)c * n] != 0.0) nnz++;
        }
    return nnz <= (size_t)n * n / 4;
}

const char *tvds_substructure_path(const tvds_model *m, int i)
{
    if (!m || i < 0 || i >= m->nsub) return NULL;
    if (sub_lumped(m, i)) return "lumped";
    return m->opt.modal && sub_damping(m, i) != TVDS_DAMP_MATRIX ? "modal" : "physical";
}

/* The lumped path's arrays of substructure i: diag M, its inverse, K in compressed rows. */
static int sub_lumped_setup(const tvds_substructure *S, sim_sub *s)
{
    int n = S->n;
    size_t nnz = 0;
    for (size_t k = 0; k < (size_t)n * n; k++)
        nnz += S->K[k] != 0.0;
    s->mdiag = tvds_malloc((size_t)n * sizeof *s->mdiag);
    s->minv = tvds_malloc((size_t)n * sizeof *s->minv);
    s->kp = tvds_malloc((size_t)(n + 1) * sizeof *s->kp);
    s->ki = tvds_malloc((nnz > 0 ? nnz : 1) * sizeof *s->ki);
    s->kv = tvds_malloc((nnz > 0 ? nnz : 1) * sizeof *s->kv);
    if (!s->mdiag || !s->minv || !s->kp || !s->ki || !s->kv) return TVDS_ERR_NOMEM;
    int q = 0;
    for (int r = 0; r < n; r++) {
        s->mdiag[r] = S->M[r + (size_t)r * n];
        s->minv[r] = 1.0 / s->mdiag[r];
        s->kp[r] = q;
        for (int c = 0; c < n; c++) {
            double v = S->K[r + (size_t)c * n];
            if (v == 0.0) continue;
            s->ki[q] = c;
            s->kv[q++] = v;
        }
    }
    s->kp[n] = q;
    s->kx_ver = -1;
    /* Diagonal storage when K has few distinct diagonals (padding at most nnz): a chain, a
     * structured mesh numbered along its rows. */
    int *seen = tvds_calloc((size_t)(2 * n - 1), sizeof *seen), nd = 0;
    if (!seen) return TVDS_ERR_NOMEM;
    for (int r = 0; r < n; r++)
        for (int k = s->kp[r]; k < s->kp[r + 1]; k++)
            if (!seen[s->ki[k] - r + n - 1]++) nd++;
    if (nd > 0 && (size_t)nd * n <= 2 * nnz) {
        s->dgoff = tvds_malloc((size_t)nd * sizeof *s->dgoff);
        s->dgv = tvds_calloc((size_t)nd * n, sizeof *s->dgv);
        if (!s->dgoff || !s->dgv) {
            tvds_free(seen);
            return TVDS_ERR_NOMEM;
        }
        /* The main diagonal first (it initialises the products, sim_lumped_kx), then the
         * others in increasing offset. */
        int nk = 0, has_main = seen[n - 1] != 0;
        if (has_main) s->dgoff[nk++] = 0;
        for (int o = 0; o < 2 * n - 1; o++) {
            if (has_main && o == n - 1)
                seen[o] = 0;
            else if (seen[o])
                seen[o] = nk, s->dgoff[nk++] = o - (n - 1);
            else
                seen[o] = -1;
        }
        for (int r = 0; r < n; r++)
            for (int k = s->kp[r]; k < s->kp[r + 1]; k++)
                s->dgv[(size_t)seen[s->ki[k] - r + n - 1] * n + r] = s->kv[k];
        s->ndg = nd;
    }
    tvds_free(seen);
    return TVDS_OK;
}

/* Eigenbasis (modal) or M^-1 (physical) of substructure i. */
static int sub_setup(const tvds_model *m, int i, sim_sub *s, tvds_ctx *ctx)
{
    const tvds_substructure *S = m->subs[i];
    int n = S->n, rc = TVDS_OK;
    double *A = tvds_malloc((size_t)n * n * sizeof(double));
    double *B = tvds_malloc((size_t)n * n * sizeof(double));
    if (!A || !B) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (substructure set-up)");
        goto done;
    }
    s->damp_kind = sub_damping(m, i);
    s->lumped = sub_lumped(m, i);
    s->modal = m->opt.modal && s->damp_kind != TVDS_DAMP_MATRIX && !s->lumped;
    rc = sub_eigvals(S, s->w2, A, B, "V", ctx);
    if (rc) goto done;
    s->w2max = s->w2[n - 1];
    /* The stable step from the same eigensolution (tvds_stable_dt would solve again), with
     * its check of the damping (as tvds_stable_dt). */
    double xi;
    s->dt_cd = sub_stable_dt(
        m, i, s->w2max, s->damp_kind == TVDS_DAMP_MATRIX ? A + (size_t)(n - 1) * n : NULL, &xi);
    if (xi > 1e6 && !(m->opt.integrator == TVDS_INTEGRATOR_EXACT && s->modal)) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                        "substructure '%s': its damping gives the highest mode (%.6g Hz) a "
                        "damping ratio of %.3g, which limits the stable step of central "
                        "differences to %.3g s: check the damping (Rayleigh alpha, beta or C.mtx)",
                        S->name ? S->name : "?", sqrt(s->w2max) / (8.0 * atan(1.0)), xi, s->dt_cd);
        goto done;
    }
    if (s->lumped) {
        /* Y = M^-1 = diag(1 / m_jj), exactly the factors the steps use. */
        if ((rc = sub_lumped_setup(S, s))) {
            rc = TVDS_ERROR(ctx, rc, "out of memory (substructure set-up)");
            goto done;
        }
        memset(s->Y, 0, (size_t)n * n * sizeof(double));
        for (int j = 0; j < n; j++)
            s->Y[j + (size_t)j * n] = s->minv[j];
    } else if (s->modal) {
        /* A holds Phi (columns, Phi^T M Phi = I); Y(:,j) = Phi(j,:)^T. */
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                s->Y[k + (size_t)j * n] = A[j + (size_t)k * n];
    } else {
        memcpy(B, S->M, (size_t)n * n * sizeof(double));
        lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', n, B, n);
        if (info == 0) info = LAPACKE_dpotri(LAPACK_COL_MAJOR, 'U', n, B, n);
        if (info != 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                            "substructure '%s': mass matrix is not positive definite",
                            S->name ? S->name : "?");
            goto done;
        }
        for (int c = 0; c < n; c++)
            for (int r = 0; r <= c; r++) {
                double v = B[r + (size_t)c * n];
                s->Y[r + (size_t)c * n] = v;
                s->Y[c + (size_t)r * n] = v;
            }
    }
    /* Gravity and base-acceleration forces: M r with r the rigid-body field of a direction
     * (1 on physical translational DoFs of that direction, 0 on modal DoFs). */
    for (int k = 0; k < n; k++)
        s->tmp[k] = 0.0;
    double *fg = A, *fb = B; /* physical forces, reuse scratch */
    for (int r = 0; r < n; r++)
        fg[r] = fb[r] = 0.0;
    for (int c = 0; c < n; c++) {
        const tvds_dof *dc = &S->dofs[c];
        if (dc->kind != TVDS_DOF_PHYSICAL || dc->dir < 0 || dc->dir > 2) continue;
        double rg = m->gravity[dc->dir];
        double rb = m->has_base_acc ? m->base_dir[dc->dir] : 0.0;
        for (int r = 0; r < n; r++) {
            double Mrc = S->M[r + (size_t)c * n];
            fg[r] += Mrc * rg;
            fb[r] -= Mrc * rb;
        }
    }
    for (int k = 0; k < n; k++) {
        if (s->modal) {
            double ag = 0.0, ab = 0.0;
            for (int r = 0; r < n; r++) {
                ag += s->Y[k + (size_t)r * n] * fg[r];
                ab += s->Y[k + (size_t)r * n] * fb[r];
            }
            s->fgrav[k] = ag;
            s->fbase[k] = ab;
        } else {
            s->fgrav[k] = fg[k];
            s->fbase[k] = fb[k];
        }
    }
    s->fext_kind = 0;
    for (int k = 0; k < n; k++)
        if (s->fgrav[k] != 0.0 || s->fbase[k] != 0.0) s->fext_kind = 2;
    for (int l = 0; l < m->nload && s->fext_kind == 0; l++)
        if (m->loads[l].sub == i) s->fext_kind = 1;
    /* The one load of a modal substructure on a valid DoF is added in the predictor's pass. */
    s->load1 = -1;
    for (int l = 0, nl = 0; l < m->nload; l++)
        if (m->loads[l].sub == i && ++nl)
            s->load1 = nl == 1 && s->modal && m->loads[l].dof >= 0 && m->loads[l].dof < n ? l : -1;
done:
    tvds_free(A);
    tvds_free(B);
    return rc;
}

/* Stable step with the penalty springs (docs/theory.md, "Penalty contact"): a contact point
 * adds the stiffness kn d_n d_n^T + kt sum_k d_k d_k^T, d the relative-displacement operator
 * along the normal or a tangent. lambda_max(K + dK, M) <= lambda_max(K, M) + sum over the
 * springs of k d^T M^-1 d, and d^T M^-1 d is bounded by (sqrt(q_slave) + sqrt(q_master))^2 with
 * q the quadratic form of the slave's (master nodes') block of G = M^-1. The dampers cn, ct
 * enter the damped bound of the top mode with the same factors. Returns INFINITY without
 * penalty contacts. */
static double penalty_stable_dt(const tvds_model *m, const tvds_data *d)
{
    double w2 = 0.0, cw = 0.0, w2s = 0.0;
    int any = 0;
    for (int i = 0; i < d->ncp; i++) {
        const sim_cp *c = &d->cp[i];
        if (!c->pen) continue;
        const tvds_contact *C = &m->contacts[c->contact];
        const sim_sub *ss = &d->sub[C->slave_sub];
        double n[3] = {0, 0, 0}, gm = 0.0;
        if (C->master_kind == TVDS_MASTER_RIGID) {
            for (int a = 0; a < C->dim; a++)
                n[a] = C->rigid_normal[a];
            double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            for (int a = 0; a < 3; a++)
                n[a] /= l;
            /* Tangents: any orthonormal completion spans the same plane; the bound below
             * uses q(t1) + q(t2) = trace of G on the plane = tr(G_block) - q(n). */
        } else {
            const sim_sub *ms = &d->sub[C->master_sub];
            const long *dd = d->mnodes_dofs[c->contact];
            for (int k = 0; k < 2 * C->nmaster; k++) {
                int df = (int)dd[3 * (k / 2) + k % 2];
                if (df < 0) continue;
                int ci = ms->cand[df];
                double g = ms->G[ci + (size_t)ci * ms->ncand];
                if (g > gm) gm = g;
            }
            gm *= 2.0; /* a unit 2D direction on one node: at most the trace of its block */
        }
        /* Slave block of G along a unit direction, and its trace. */
        double tr = 0.0, qn = 0.0;
        for (int a = 0; a < C->dim; a++) {
            if (c->sdof[a] < 0) continue;
            int ia = ss->cand[c->sdof[a]];
            tr += ss->G[ia + (size_t)ia * ss->ncand];
            for (int b = 0; b < C->dim; b++) {
                if (c->sdof[b] < 0) continue;
                int ib = ss->cand[c->sdof[b]];
                qn += n[a] * ss->G[ia + (size_t)ib * ss->ncand] * n[b];
            }
        }
        if (C->master_kind != TVDS_MASTER_RIGID) qn = tr; /* normal unknown in advance */
        double qt = C->master_kind == TVDS_MASTER_RIGID ? tr - qn : tr;
        double fn = sqrt(qn) + sqrt(gm), ft = sqrt(qt > 0.0 ? qt : 0.0) + sqrt(gm);
        w2 += C->kn * fn * fn + C->kt * ft * ft;
        cw += C->cn * fn * fn + C->ct * ft * ft;
        any = 1;
    }
    if (!any) return INFINITY;
    for (int i = 0; i < d->nsub; i++)
        if (d->sub[i].w2max > w2s) w2s = d->sub[i].w2max;
    double w = sqrt(w2s + w2);
    if (!(w > 0.0)) return INFINITY;
    double xi = cw / (2.0 * w);
    return (2.0 / w) * (sqrt(1.0 + xi * xi) - xi);
}

static void mark_cand(sim_sub *s, int dof)
{
    if (dof >= 0 && dof < s->n && s->cand[dof] < 0) s->cand[dof] = s->ncand++;
}

int sim_data_setup(const tvds_model *m, tvds_data **pd, tvds_ctx *ctx)
{
    int rc;
    *pd = NULL;
    rc = check_model(m, ctx);
    if (rc) return rc;
    for (int c = 0; c < m->ncontact; c++)
        if (m->contacts[c].law == TVDS_LAW_PENALTY) {
            rc = tvds_pen_check(&m->contacts[c], ctx);
            if (rc) return rc;
        }
    if (m->opt.method < 0 || m->opt.method >= TVDS_METHOD_COUNT)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "unknown contact method %d", m->opt.method);

    tvds_data *d = tvds_calloc(1, sizeof *d);
    if (!d) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (run data)");
    d->nsub = m->nsub;
    d->method = m->opt.method;
    d->check.search_global = m->opt.search == TVDS_SEARCH_SCAN;
    d->check.reuse_off = m->opt.reuse_off != 0;
    ALLOC(d->sub, m->nsub);
    ALLOC(d->off, m->nsub);
    for (int i = 0, o = 0; i < m->nsub; i++) {
        sim_sub *s = &d->sub[i];
        int n = m->subs[i]->n;
        s->n = n;
        d->off[i] = o;
        o += n;
        ALLOC(s->Y, (size_t)n * n);
        s->Yx = s->Y; /* central differences; sim_exact_setup gives exact propagation its own */
        ALLOC(s->w2, n);
        ALLOC(s->cdamp, n);
        s->cd_a = s->cd_b = NAN;
        ALLOC(s->x_prev, n);
        ALLOC(s->x, n);
        ALLOC(s->x_new, n);
        ALLOC(s->x_old, n);
        s->ver_old = -1;
        ALLOC(s->fext, n);
        ALLOC(s->fel, n);
        ALLOC(s->fdamp, n);
        ALLOC(s->tmp, n);
        ALLOC(s->fgrav, n);
        ALLOC(s->fbase, n);
        ALLOC(s->cpush, n);
        ALLOC(s->cand, n);
        for (int k = 0; k < n; k++)
            s->cand[k] = -1;
        rc = sub_setup(m, i, s, ctx);
        if (rc) goto fail;
    }

    /* Contact points and candidates. */
    d->ncp = 0;
    for (int c = 0; c < m->ncontact; c++)
        d->ncp += m->contacts[c].nslave;
    ALLOC(d->cp, d->ncp);
    int rmax = m->nbil, pool = 0;
    for (int b = 0; b < m->nbil; b++) {
        const tvds_bilateral *B = &m->bil[b];
        pool += B->nterms;
        for (int k = 0; k < B->nterms; k++) {
            const tvds_term *T = &B->terms[k];
            if (T->sub < 0 || T->sub >= m->nsub || T->dof < 0 || T->dof >= m->subs[T->sub]->n) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "bilateral '%s': term %d has a bad DoF",
                                B->name ? B->name : "?", k);
                goto fail;
            }
            mark_cand(&d->sub[T->sub], T->dof);
        }
    }
    for (int c = 0, ip = 0; c < m->ncontact; c++) {
        const tvds_contact *C = &m->contacts[c];
        const char *cn = C->name ? C->name : "?";
        if (C->dim != 2 && C->dim != 3) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact '%s': dim must be 2 or 3", cn);
            goto fail;
        }
        if (C->slave_sub < 0 || C->slave_sub >= m->nsub) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact '%s': bad slave substructure", cn);
            goto fail;
        }
        if (C->master_kind == TVDS_MASTER_SURFACE || C->master_kind == TVDS_MASTER_SURFACE_C1) {
            if (C->dim != 2 || C->master_sub < 0 || C->master_sub >= m->nsub || C->nmaster < 2) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "contact '%s': a master surface needs dim 2, a master "
                                "substructure and at least 2 nodes",
                                cn);
                goto fail;
            }
            for (int k = 0; k < C->nmaster; k++) {
                int dd[3];
                double X[3];
                if (!sim_node_dofs(m->subs[C->master_sub], C->master_nodes[k], dd, X)) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                    "contact '%s': master node %ld has no physical DoF", cn,
                                    C->master_nodes[k]);
                    goto fail;
                }
                for (int a = 0; a < 2; a++)
                    mark_cand(&d->sub[C->master_sub], dd[a]);
            }
        } else if (C->master_kind == TVDS_MASTER_FACES) {
            if (C->law == TVDS_LAW_PENALTY) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "contact '%s': the penalty law needs a 2D master surface or a "
                                "rigid master (a face set takes the Lagrange law)",
                                cn);
                goto fail;
            }
            if (C->dim != 3 || C->master_sub < 0 || C->master_sub >= m->nsub || C->nface < 1 ||
                !C->face_nn || !C->face_node) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "contact '%s': a face set needs dim 3, a master substructure "
                                "and at least one face",
                                cn);
                goto fail;
            }
            for (int f = 0; f < C->nface; f++) {
                int nn = C->face_nn[f];
                if (!face_supported(nn)) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                    "contact '%s': face %d has %d nodes (3, 4, 6, 8 or 9)", cn,
                                    f + 1, nn);
                    goto fail;
                }
                for (int q = 0; q < nn; q++) {
                    int j = C->face_node[(size_t)f * TVDS_FACE_MAX_NODES + q];
                    if (j < 0 || j >= C->nmaster) {
                        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact '%s': face %d: bad node",
                                        cn, f + 1);
                        goto fail;
                    }
                }
            }
            for (int k = 0; k < C->nmaster; k++) {
                int dd[3];
                double X[3];
                if (!sim_node_dofs(m->subs[C->master_sub], C->master_nodes[k], dd, X) ||
                    dd[0] < 0 || dd[1] < 0 || dd[2] < 0) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                    "contact '%s': master node %ld needs ux, uy and uz", cn,
                                    C->master_nodes[k]);
                    goto fail;
                }
                for (int a = 0; a < 3; a++)
                    mark_cand(&d->sub[C->master_sub], dd[a]);
            }
        } else if (C->master_kind == TVDS_MASTER_DISC) {
            double nn = 0.0;
            for (int a = 0; a < 3; a++)
                nn += C->rigid_normal[a] * C->rigid_normal[a];
            if (C->dim != 3 || !(nn > 0.0) || C->law == TVDS_LAW_PENALTY) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "contact '%s': a rotating disc needs dim 3, an axis and the "
                                "Lagrange law",
                                cn);
                goto fail;
            }
        } else {
            double nn = 0.0, tt = 0.0;
            for (int a = 0; a < C->dim; a++) {
                nn += C->rigid_normal[a] * C->rigid_normal[a];
                tt += C->rigid_t1[a] * C->rigid_t1[a];
            }
            if (!(nn > 0.0) || !(tt > 0.0)) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "contact '%s': rigid master needs a normal and a tangent", cn);
                goto fail;
            }
        }
        for (int k = 0; k < C->nslave; k++, ip++) {
            sim_cp *p = &d->cp[ip];
            p->contact = c;
            p->node = C->slave_nodes[k];
            p->dim = C->dim;
            p->ntan = C->dim == 2 ? 1 : 2;
            p->seg = -1;
            p->esub[0] = p->esub[1] = -1;
            p->e_seg2d = -1;
            p->e_ver[0][0] = p->e_ver[1][0] = p->e_upv[0] = -1;
            if (!sim_node_dofs(m->subs[C->slave_sub], p->node, p->sdof, p->X)) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "contact '%s': slave node %ld has no physical DoF", cn, p->node);
                goto fail;
            }
            for (int a = 0; a < C->dim; a++)
                mark_cand(&d->sub[C->slave_sub], p->sdof[a]);
            p->Xmag = sqrt(p->X[0] * p->X[0] + p->X[1] * p->X[1] + p->X[2] * p->X[2]);
            p->pen = C->law == TVDS_LAW_PENALTY;
            p->state = p->state_prev = C->initially_stuck && !p->pen ? TVDS_STICK : TVDS_OPEN;
            p->row_n = p->row_t[0] = p->row_t[1] = -1;
            rmax += 1 + p->ntan;
            /* Entries of one row: the slave and the master nodes a row can touch. */
            int ent = SIM_ROW_MAX_CP; /* any kind: the bound */
            if (C->master_kind == TVDS_MASTER_RIGID || C->master_kind == TVDS_MASTER_DISC)
                ent = C->dim;
            if (C->master_kind == TVDS_MASTER_SURFACE || C->master_kind == TVDS_MASTER_SURFACE_C1)
                ent = 3 * C->dim; /* two master nodes */
            if (C->master_kind == TVDS_MASTER_FACES) {
                int nmax = 0;
                for (int f = 0; f < C->nface; f++)
                    if (C->face_nn[f] > nmax) nmax = C->face_nn[f];
                ent = 3 * (1 + nmax);
            }
            pool += (1 + p->ntan) * ent;
        }
    }
    /* Rigid stick-slip elements: their DoFs are candidates of a stick row (2 entries). */
    d->nrig = 0;
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *E = &m->elements[e];
        if (!sim_rigid_el(E)) continue;
        for (int k = 0; k < 2; k++) {
            if (k == 1 && E->sub[1] < 0) continue;
            if (E->sub[k] < 0 || E->sub[k] >= m->nsub || E->dof[k] < 0 ||
                E->dof[k] >= m->subs[E->sub[k]]->n) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element '%s': bad DoF",
                                E->name ? E->name : "?");
                goto fail;
            }
            mark_cand(&d->sub[E->sub[k]], E->dof[k]);
        }
        d->nrig++;
        rmax++;
        pool += 2;
    }
    /* Master surface geometry: DoFs, undeformed coordinates and arc length of each node. */
    if (m->ncontact > 0) {
        ALLOC(d->mnodes_dofs, m->ncontact);
        ALLOC(d->mnodes_X, m->ncontact);
        ALLOC(d->mnodes_s, m->ncontact);
        ALLOC(d->fnb_off, m->ncontact);
        ALLOC(d->fnb, m->ncontact);
        ALLOC(d->fedge, m->ncontact);
        ALLOC(d->ctc_closed, m->ncontact);
        d->nctc = m->ncontact;
    }
    d->rmax = rmax;
    d->pool_cap = pool;
    ALLOC(d->row, rmax);
    ALLOC(d->p_sub, pool);
    ALLOC(d->p_dof, pool);
    ALLOC(d->p_cand, pool);
    ALLOC(d->p_row, pool);
    ALLOC(d->p_next, pool);
    ALLOC(d->cr_sub, pool);
    ALLOC(d->cr_dof, pool);
    ALLOC(d->cr_c, pool);
    ALLOC(d->cp_q, pool);
    ALLOC(d->cp_pc, pool);
    ALLOC(d->cp_pr, pool);
    ALLOC(d->cp_gsel, (size_t)4 * pool);
    ALLOC(d->cp_gns, pool);
    ALLOC(d->cp_glast, pool);
    ALLOC(d->p_bc, pool);
    ALLOC(d->p_be, pool);
    ALLOC(d->W, (size_t)rmax * rmax);
    /* W's pair list (build_W): up to pool^2 pairs (a dense G), kept at 64 Ki pairs at most. */
    d->wp_cap = (size_t)pool * pool < 65536 ? pool * pool : 65536;
    d->wp_n = -1;
    ALLOC(d->wp_a, d->wp_cap);
    ALLOC(d->wp_b, d->wp_cap);
    ALLOC(d->wp_w, d->wp_cap);
    ALLOC(d->wp_g, d->wp_cap);
    ALLOC(d->wp_first, pool);
    ALLOC(d->wr_end, d->wp_cap);
    ALLOC(d->wr_w, d->wp_cap);
    ALLOC(d->wp_len, pool);
    ALLOC(d->W_lu, (size_t)rmax * rmax);
    ALLOC(d->lam, rmax);
    ALLOC(d->rhs, rmax);
    ALLOC(d->ipiv, rmax);
    ALLOC(d->jpvt, rmax);
    ALLOC(d->ls_W, (size_t)rmax * rmax);
    {
        /* Workspace of the rank-revealing solve for rmax rows (queried once). */
        double q = 0.0;
        lapack_int rank = 0;
        lapack_int rr = rmax > 0 ? rmax : 1;
        LAPACKE_dgelsy_work(LAPACK_COL_MAJOR, rr, rr, 1, d->ls_W, rr, d->lam, rr, d->jpvt, 0.1,
                            &rank, &q, -1);
        d->ls_lwork = (int)q + 1;
        if (d->ls_lwork < 4 * rr + 1) d->ls_lwork = 4 * rr + 1;
        ALLOC(d->ls_work, d->ls_lwork);
    }
    ALLOC(d->lam_bil, m->nbil);
    ALLOC(d->bil_hint, m->nbil);
    ALLOC(d->load_hint, m->nload);
    ALLOC(d->load_val, m->nload);
    ALLOC(d->cand_base, m->nsub);

    /* Candidate flexibilities G = M^-1 restricted to the candidates. */
    for (int i = 0; i < m->nsub; i++) {
        sim_sub *s = &d->sub[i];
        int n = s->n, nc = s->ncand;
        d->cand_base[i] = d->ncand_tot;
        d->ncand_tot += nc;
        ALLOC(s->cand_dof, nc);
        ALLOC(s->G, (size_t)nc * nc);
        for (int w = 0; w < 3; w++) {
            ALLOC(s->uc[w], nc);
            ALLOC(s->ucv[w], nc);
        }
        ALLOC(s->ucl1, nc);
        ALLOC(s->ysingle, nc);
        for (int k = 0; k < n; k++)
            if (s->cand[k] >= 0) s->cand_dof[s->cand[k]] = k;
        /* After cand_dof is filled: read before, every candidate took DoF 0's coordinate, and
         * the exact-stick update of a stuck row along t2 overwrote the coordinate of the row
         * along t1 (a shoe stuck on a moving master was held still). */
        for (int a = 0; a < nc; a++) {
            int j = s->cand_dof[a], k1 = -1, nz = 0;
            if (!s->modal) {
                k1 = j, nz = 1;
            } else {
                for (int k = 0; k < n; k++)
                    if (s->Y[k + (size_t)j * n] != 0.0) k1 = k, nz++;
            }
            s->ysingle[a] = nz == 1 ? k1 : -1;
        }
        if (s->modal) {
            rc = sim_cand_flex(s, NULL, ctx);
            if (rc) goto fail;
        } else {
            for (int b = 0; b < nc; b++)
                for (int a = 0; a < nc; a++)
                    s->G[a + (size_t)b * nc] = s->Y[s->cand_dof[a] + (size_t)s->cand_dof[b] * n];
        }
        rc = sim_cand_comp(m->subs[i], s, 0, ctx);
        if (rc) goto fail;
    }
    ALLOC(d->comp_head, d->ncand_tot);
    ALLOC(d->comp_used, d->ncand_tot);
    ALLOC(d->comp_tail, d->ncand_tot);
    ALLOC(d->cr_pos, d->ncand_tot);
    for (int k = 0; k < d->ncand_tot; k++)
        d->comp_head[k] = d->cr_pos[k] = -1;
    ALLOC(d->du_c, d->ncand_tot);
    ALLOC(d->du_cv, d->ncand_tot);
    d->du_ver = 1;

    /* Elements. */
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *E = &m->elements[e];
        for (int k = 0; k < 2; k++) {
            if (k == 1 && E->sub[1] < 0) continue;
            if (E->sub[k] < 0 || E->sub[k] >= m->nsub || E->dof[k] < 0 ||
                E->dof[k] >= m->subs[E->sub[k]]->n) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element '%s': bad DoF",
                                E->name ? E->name : "?");
                goto fail;
            }
        }
    }
    d->el_nstate = tvds_elements_state_size(m);
    ALLOC(d->el_state, d->el_nstate);
    ALLOC(d->el_du, m->nel);
    ALLOC(d->el_dv, m->nel);
    ALLOC(d->el_f, m->nel);
    ALLOC(d->el_res, (size_t)m->nel * TVDS_EL_NRES);
    ALLOC(d->rig_row, m->nel);
    ALLOC(d->rig_fapp, m->nel);
    ALLOC(d->rig_lam, m->nel);
    ALLOC(d->pen_state, (size_t)d->ncp * TVDS_PEN_NSTATE);
    d->law_init = 1;
    d->fel_used = m->nel > 0;
    for (int i = 0; i < d->ncp; i++)
        d->fel_used |= d->cp[i].pen;
    rc = tvds_elements_init(m, d->el_state, ctx);
    if (rc) goto fail;

    for (int c = 0; c < m->ncontact; c++) {
        const tvds_contact *C = &m->contacts[c];
        if (C->master_kind == TVDS_MASTER_FACES) {
            rc = face_topology(m, d, c, ctx);
            if (rc == TVDS_ERR_NOMEM) goto nomem;
            if (rc) goto fail;
            continue;
        }
        if (C->master_kind != TVDS_MASTER_SURFACE && C->master_kind != TVDS_MASTER_SURFACE_C1)
            continue;
        long *dd;
        double *X, *S;
        ALLOC(dd, (size_t)C->nmaster * 3);
        d->mnodes_dofs[c] = dd;
        ALLOC(X, (size_t)C->nmaster * 3);
        d->mnodes_X[c] = X;
        ALLOC(S, C->nmaster);
        d->mnodes_s[c] = S;
        for (int k = 0; k < C->nmaster; k++) {
            int di[3];
            sim_node_dofs(m->subs[C->master_sub], C->master_nodes[k], di, X + 3 * k);
            for (int a = 0; a < 3; a++)
                dd[3 * k + a] = di[a];
            if (k > 0) {
                double dx = X[3 * k] - X[3 * k - 3], dy = X[3 * k + 1] - X[3 * k - 2];
                S[k] = S[k - 1] + sqrt(dx * dx + dy * dy);
                if (!(S[k] > S[k - 1])) {
                    rc = TVDS_ERROR(
                        ctx, TVDS_ERR_INVALID, "contact '%s': master nodes %ld and %ld coincide",
                        C->name ? C->name : "?", C->master_nodes[k - 1], C->master_nodes[k]);
                    goto fail;
                }
            }
        }
    }

    /* Step size. */
    {
        /* tvds_stable_dt from the eigensolutions of sub_setup. */
        double dtc = INFINITY;
        for (int i = 0; i < d->nsub; i++)
            if (!(m->opt.integrator == TVDS_INTEGRATOR_EXACT && d->sub[i].modal) &&
                d->sub[i].dt_cd < dtc)
                dtc = d->sub[i].dt_cd;
        rc = band_dt(m, &dtc, ctx);
        if (rc) goto fail;
        double dtp = penalty_stable_dt(m, d);
        if (dtp < dtc) dtc = dtp;
        d->h_stable = dtc;
        if (m->opt.dt_auto) {
            if (!isfinite(dtc)) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "no finite stable step (no stiffness): set an explicit dt");
                goto fail;
            }
            d->h = m->opt.dt_safety * dtc;
        } else {
            d->h = m->opt.dt;
            if (!(d->h > 0.0)) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "time step dt = %g must be > 0", d->h);
                goto fail;
            }
            if (d->h > dtc && !m->opt.allow_unstable_dt) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_UNSTABLE_DT,
                                "time step dt = %.6g s is above the stability limit %.6g s of "
                                "central differences (set allow_unstable_dt to force it)",
                                d->h, dtc);
                goto fail;
            }
        }
        /* A step count no one means (dt = 1e-300 would run for ever): say how many, refuse
         * above [run] max_steps unless asked. */
        double nsteps = ceil(m->opt.t_end / d->h);
        if (m->opt.max_steps > 0 && !(nsteps <= (double)m->opt.max_steps)) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "t_end = %g s with dt = %.6g s takes %.3g steps, more than [run] "
                            "max_steps = %ld (raise max_steps, or 0 for no limit, if this is "
                            "meant)",
                            m->opt.t_end, d->h, nsteps, m->opt.max_steps);
            goto fail;
        }
    }

    if (m->opt.integrator == TVDS_INTEGRATOR_EXACT) {
        rc = sim_exact_setup(m, d, ctx);
        if (rc) goto fail;
    }

    rc = sim_channels_create(m, d);
    if (rc == TVDS_ERR_INVALID) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                        "a probe names a bad substructure, DoF or recovery row");
        goto fail;
    }
    if (rc) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (channels)");
        goto fail;
    }
    *pd = d;
    return TVDS_OK;

nomem:
    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (run data)");
fail:
    tvds_data_free(&d);
    return rc;
}
