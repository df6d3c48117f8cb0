/* sim_data.c — engine set-up: the substructures (sim_subs.c), contact points and masters,
 * contact-space flexibilities, buffers sized once, the stable step, and tvds_data_free
 * (tvds_data_create, in sim.c, adds the start). */
#include <lapacke.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "engine/elements_impl.h"
#include "engine/contact/face.h"
#include "engine/contact/master.h"
#include "engine/friction_laws_impl.h"
#include "engine/sim_impl.h"

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
    sim_wbuild_free(d);
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
        int rigid = sim_masters[C->master_kind]->prescribed; /* no master nodes */
        if (rigid) {
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
        if (!rigid) qn = tr; /* normal unknown in advance */
        double qt = rigid ? tr - qn : tr;
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

/* ---- Set-up, stage by stage ----------------------------------------------------------------
 * sim_data_setup runs the stages below in order. Each returns TVDS_OK or an error already in
 * ctx; on an error sim_data_setup frees the partial run data with tvds_data_free, which takes
 * any stage's partial state (every pointer calloc'd, NULL until allocated). */

/* ALLOC's target in the stages that allocate. */
static int setup_nomem(tvds_ctx *ctx)
{
    return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (run data)");
}

/* Model checks before any allocation. */
static int setup_check(const tvds_model *m, tvds_ctx *ctx)
{
    int rc = sim_check_model(m, ctx);
    if (rc) return rc;
    for (int c = 0; c < m->ncontact; c++)
        if (m->contacts[c].law == TVDS_LAW_PENALTY) {
            rc = tvds_pen_check(&m->contacts[c], ctx);
            if (rc) return rc;
        }
    if (m->opt.method < 0 || m->opt.method >= TVDS_METHOD_COUNT)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "unknown contact method %d", m->opt.method);
    return TVDS_OK;
}

/* Per substructure: its state vectors and its eigenbasis or M^-1 (sim_sub_setup). */
static int setup_subs(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
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
        int rc = sim_sub_setup(m, i, s, ctx);
        if (rc) return rc;
    }
    return TVDS_OK;
nomem:
    return setup_nomem(ctx);
}

/* Bilateral constraints: their DoFs are candidates; *pool counts their entries. */
static int setup_bilaterals(const tvds_model *m, tvds_data *d, int *pool, tvds_ctx *ctx)
{
    for (int b = 0; b < m->nbil; b++) {
        const tvds_bilateral *B = &m->bil[b];
        *pool += B->nterms;
        for (int k = 0; k < B->nterms; k++) {
            const tvds_term *T = &B->terms[k];
            if (T->sub < 0 || T->sub >= m->nsub || T->dof < 0 || T->dof >= m->subs[T->sub]->n)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "bilateral '%s': term %d has a bad DoF",
                                  B->name ? B->name : "?", k);
            sim_mark_cand(&d->sub[T->sub], T->dof);
        }
    }
    return TVDS_OK;
}

/* The contact points of contact c from d->cp[*ip] on: slave DoFs (candidates), start state;
 * *rmax and *pool grow by their rows and row entries (ent each). */
static int setup_points(const tvds_model *m, tvds_data *d, int c, int *ip, int ent, int *rmax,
                        int *pool, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[c];
    const char *cn = C->name ? C->name : "?";
    for (int k = 0; k < C->nslave; k++, (*ip)++) {
        sim_cp *p = &d->cp[*ip];
        p->contact = c;
        p->node = C->slave_nodes[k];
        p->dim = C->dim;
        p->ntan = C->dim == 2 ? 1 : 2;
        p->seg = -1;
        p->esub[0] = p->esub[1] = -1;
        p->e_seg2d = -1;
        p->e_ver[0][0] = p->e_ver[1][0] = p->e_upv[0] = -1;
        if (!sim_node_dofs(m->subs[C->slave_sub], p->node, p->sdof, p->X))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "contact '%s': slave node %ld has no physical DoF", cn, p->node);
        for (int a = 0; a < C->dim; a++)
            sim_mark_cand(&d->sub[C->slave_sub], p->sdof[a]);
        p->Xmag = sqrt(p->X[0] * p->X[0] + p->X[1] * p->X[1] + p->X[2] * p->X[2]);
        p->pen = C->law == TVDS_LAW_PENALTY;
        p->state = p->state_prev = C->initially_stuck && !p->pen ? TVDS_STICK : TVDS_OPEN;
        p->row_n = p->row_t[0] = p->row_t[1] = -1;
        *rmax += 1 + p->ntan;
        *pool += (1 + p->ntan) * ent;
    }
    return TVDS_OK;
}

/* Contacts: each one's checks, master (its kind's setup hook) and points (setup_points). */
static int setup_contacts(const tvds_model *m, tvds_data *d, int *rmax, int *pool, tvds_ctx *ctx)
{
    d->ncp = 0;
    for (int c = 0; c < m->ncontact; c++)
        d->ncp += m->contacts[c].nslave;
    ALLOC(d->cp, d->ncp);
    for (int c = 0, ip = 0; c < m->ncontact; c++) {
        const tvds_contact *C = &m->contacts[c];
        const char *cn = C->name ? C->name : "?";
        if (C->dim != 2 && C->dim != 3)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact '%s': dim must be 2 or 3", cn);
        if (C->slave_sub < 0 || C->slave_sub >= m->nsub)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact '%s': bad slave substructure", cn);
        /* The kind's checks and master DoFs (engine/contact/master.h); ent: entries of one
         * row, the slave and the master nodes a row can touch. */
        int ent = SIM_ROW_MAX_CP, rc = sim_masters[C->master_kind]->setup(m, d, c, &ent, ctx);
        if (rc) return rc;
        rc = setup_points(m, d, c, &ip, ent, rmax, pool, ctx);
        if (rc) return rc;
    }
    return TVDS_OK;
nomem:
    return setup_nomem(ctx);
}

/* Rigid stick-slip elements: their DoFs are candidates of a stick row (2 entries). */
static int setup_rigid_elements(const tvds_model *m, tvds_data *d, int *rmax, int *pool,
                                tvds_ctx *ctx)
{
    d->nrig = 0;
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *E = &m->elements[e];
        if (!sim_rigid_el(E)) continue;
        for (int k = 0; k < 2; k++) {
            if (k == 1 && E->sub[1] < 0) continue;
            if (E->sub[k] < 0 || E->sub[k] >= m->nsub || E->dof[k] < 0 ||
                E->dof[k] >= m->subs[E->sub[k]]->n)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element '%s': bad DoF",
                                  E->name ? E->name : "?");
            sim_mark_cand(&d->sub[E->sub[k]], E->dof[k]);
        }
        d->nrig++;
        (*rmax)++;
        *pool += 2;
    }
    return TVDS_OK;
}

/* The run buffers sized once: rmax constraint rows, pool row entries. */
static int setup_buffers(const tvds_model *m, tvds_data *d, int rmax, int pool, tvds_ctx *ctx)
{
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
    return TVDS_OK;
nomem:
    return setup_nomem(ctx);
}

/* Candidate flexibilities G = M^-1 restricted to the candidates. */
static int setup_cand_flex(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    int rc;
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
            if (rc) return rc;
        } else {
            for (int b = 0; b < nc; b++)
                for (int a = 0; a < nc; a++)
                    s->G[a + (size_t)b * nc] = s->Y[s->cand_dof[a] + (size_t)s->cand_dof[b] * n];
        }
        rc = sim_cand_comp(m->subs[i], s, 0, ctx);
        if (rc) return rc;
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
    if (sim_wbuild_create(d)) goto nomem;
    return TVDS_OK;
nomem:
    return setup_nomem(ctx);
}

/* Elements: DoF checks, state and force buffers, initial state. */
static int setup_elements(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *E = &m->elements[e];
        for (int k = 0; k < 2; k++) {
            if (k == 1 && E->sub[1] < 0) continue;
            if (E->sub[k] < 0 || E->sub[k] >= m->nsub || E->dof[k] < 0 ||
                E->dof[k] >= m->subs[E->sub[k]]->n)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element '%s': bad DoF",
                                  E->name ? E->name : "?");
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
    return tvds_elements_init(m, d->el_state, ctx);
nomem:
    return setup_nomem(ctx);
}

/* Master geometry: face topology of face sets; DoFs, undeformed coordinates and arc length of
 * the nodes of 2D master surfaces. */
static int setup_master_geometry(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    int rc;
    for (int c = 0; c < m->ncontact; c++) {
        const tvds_contact *C = &m->contacts[c];
        if (sim_masters[C->master_kind]->face_set) {
            rc = face_topology(m, d, c, ctx);
            if (rc == TVDS_ERR_NOMEM) goto nomem;
            if (rc) return rc;
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
                if (!(S[k] > S[k - 1]))
                    return TVDS_ERROR(
                        ctx, TVDS_ERR_INVALID, "contact '%s': master nodes %ld and %ld coincide",
                        C->name ? C->name : "?", C->master_nodes[k - 1], C->master_nodes[k]);
            }
        }
    }
    return TVDS_OK;
nomem:
    return setup_nomem(ctx);
}

/* The step: tvds_stable_dt from the eigensolutions of sim_sub_setup, the band of interest and the
 * penalty springs; then dt = auto or the given dt, checked against it and [run] max_steps. */
static int setup_step(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    int rc;
    double dtc = INFINITY;
    for (int i = 0; i < d->nsub; i++)
        if (!(m->opt.integrator == TVDS_INTEGRATOR_EXACT && d->sub[i].modal) &&
            d->sub[i].dt_cd < dtc)
            dtc = d->sub[i].dt_cd;
    rc = sim_band_dt(m, &dtc, ctx);
    if (rc) return rc;
    double dtp = penalty_stable_dt(m, d);
    if (dtp < dtc) dtc = dtp;
    d->h_stable = dtc;
    if (m->opt.dt_auto) {
        if (!isfinite(dtc))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "no finite stable step (no stiffness): set an explicit dt");
        d->h = m->opt.dt_safety * dtc;
    } else {
        d->h = m->opt.dt;
        if (!(d->h > 0.0))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "time step dt = %g must be > 0", d->h);
        if (d->h > dtc && !m->opt.allow_unstable_dt)
            return TVDS_ERROR(ctx, TVDS_ERR_UNSTABLE_DT,
                              "time step dt = %.6g s is above the stability limit %.6g s of "
                              "central differences (set allow_unstable_dt to force it)",
                              d->h, dtc);
    }
    /* A step count no one means (dt = 1e-300 would run for ever): say how many, refuse
     * above [run] max_steps unless asked. */
    double nsteps = ceil(m->opt.t_end / d->h);
    if (m->opt.max_steps > 0 && !(nsteps <= (double)m->opt.max_steps))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "t_end = %g s with dt = %.6g s takes %.3g steps, more than [run] "
                          "max_steps = %ld (raise max_steps, or 0 for no limit, if this is "
                          "meant)",
                          m->opt.t_end, d->h, nsteps, m->opt.max_steps);
    return TVDS_OK;
}

int sim_data_setup(const tvds_model *m, tvds_data **pd, tvds_ctx *ctx)
{
    *pd = NULL;
    int rc = setup_check(m, ctx);
    if (rc) return rc;
    tvds_data *d = tvds_calloc(1, sizeof *d);
    if (!d) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (run data)");
    d->nsub = m->nsub;
    d->method = m->opt.method;
    d->check.search_global = m->opt.search == TVDS_SEARCH_SCAN;
    d->check.reuse_off = m->opt.reuse_off != 0;
    int rmax = m->nbil, pool = 0;
    if ((rc = setup_subs(m, d, ctx)) || (rc = setup_bilaterals(m, d, &pool, ctx)) ||
        (rc = setup_contacts(m, d, &rmax, &pool, ctx)) ||
        (rc = setup_rigid_elements(m, d, &rmax, &pool, ctx)) ||
        (rc = setup_buffers(m, d, rmax, pool, ctx)) || (rc = setup_cand_flex(m, d, ctx)) ||
        (rc = setup_elements(m, d, ctx)) || (rc = setup_master_geometry(m, d, ctx)) ||
        (rc = setup_step(m, d, ctx)))
        goto fail;
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
fail:
    tvds_data_free(&d);
    return rc;
}
