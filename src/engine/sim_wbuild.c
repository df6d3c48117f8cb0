/* sim_wbuild.c — the contact-space operator W = h^2 B_C G B_E^T (nr x nr) of the assembled rows,
 * G = M^-1 restricted to the candidate DoFs (docs/theory.md 9, docs/performance.md "W").
 *
 * Two constructions of the same sums:
 * - pairs: W_ij sums bc_a G(a, b) be_b over the pairs of entries of rows i and j in one bucket
 *   of G's components. Its cost is the number of such pairs: O(nr) when G is local (lumped
 *   masses), O((nr e)^2) when G is dense (e entries per row: 15 for a node on a 4-node face).
 *   The 2D path and every W whose G is local take it; it keeps the pairs for the next build.
 * - points (3D, dense G): the rows of one contact point share its entries (DoF c_e, direction
 *   slot d_e, shape weight w_e) and differ only by their 3-vectors (B_C: n or t_k; B_E: the
 *   normal row's n - sum mu s_k t_k or t_k), so W's block between points p and q is
 *   h^2 V_p^T Gt_pq E_q with Gt_pq(i, j) = sum_{e in p, d_e = i} sum_{f in q, d_f = j}
 *   w_e w_f G(c_e, c_f). Per point p, H_p(i, u) = sum_{e in p, d_e = i} w_e G(c_e, u) over the
 *   candidates u the points q >= p use (e nu multiply-adds), then per pair q >= p the 3 x 3 Gt_pq
 *   from H_p (3 e) and the block and its transpose (G is symmetric) from Gt_pq (<= 54 each).
 *   A bilateral row, or a rigid element's stick row (B_E = B_C), is a point of one slot.
 *   Chosen when its operation count is below the pairs'; the sums' order differs from the pairs'
 *   (round-off, bounded by (2 e + 15) eps h^2 (|B_C| |G| |B_E|^T)_ij: tests/check_wbuild.c). */
#include <math.h>

#include "engine/sim_impl.h"

/* Entries of one unit in at most this many runs of one substructure (a contact point: the slave
 * and the master substructure); a unit over more falls back to the pairs. */
#define WB_RUNS 4
/* Points up to which the 3 x 3 blocks Gt of every pair are kept between builds (72 bytes per
 * pair: 29 MB at 640 points). */
#define WB_CACHE_MAX 640

struct sim_wbuild {
    int ucap, ecap;
    int nused;          /* candidates the units of the last units_make use */
    int *uid;           /* ncand_tot: used index of a candidate (run numbering), -1 */
    int *usub, *uloc;   /* ecap: substructure and candidate (its own numbering) of each used one */
    int *ulast, *uperm; /* ecap: last unit using it; its position by last unit, descending */
    int *u_row0, *u_nrow, *u_ns, *u_eoff, *u_nrun, *u_pref; /* ucap (u_eoff: ucap + 1) */
    int *u_rsub, *u_rbeg, *u_rend;                          /* ucap x WB_RUNS */
    int *u_rsl;            /* ucap x WB_RUNS x 2: where slots 1 and 2 of each run begin */
    unsigned long *u_mask; /* ucap: bit s % 64 set when the unit has entries in substructure s */
    int *cnt;              /* ucap + 1 */
    int *itmp;             /* ecap: scratch of the permutation */
    int *e_u, *e_slot, *e_loc, *e_sub; /* ecap: the units' entries, each unit's by substructure */
    double *e_w;                       /* ecap */
    double *vc, *ve;                   /* 3 x rmax: each row's B_C and B_E directions */
    double *H;                         /* 3 x ecap: H_p(slot, used candidate) */
    int *u_dirty;                      /* ucap: the unit computes its H and its pairs */
    int *pe_u;                         /* ecap: used candidate of each pool entry */
    double *f;                         /* ecap: B_E^T lambda on the used candidates */
    long f_ver;                        /* du_ver of f */
    int *fs_off;                       /* nsub + 1: f's nonzeros by substructure: */
    int *fs_loc;                       /* ecap: their candidates (own numbering) */
    double *fs_val;                    /* ecap */
    /* Per contact point, the entries its cached Gt were computed from (candidate, direction,
     * weight: SIM_ROW_MAX_CP each) and their generation; per pair of points a <= b,
     * Gt_ab (9, a's slots first) and the generations it was computed from (gt NULL: no cache,
     * more than WB_CACHE_MAX points). */
    int ncp;
    int *s_ne, *s_cand, *s_dir;
    double *s_w;
    long *s_gen;
    double *gt;   /* ncp x ncp x 9 */
    long *gt_gen; /* ncp x ncp x 2 */
};

void sim_wbuild_free(tvds_data *d)
{
    sim_wbuild *w = d->wb;
    if (!w) return;
    tvds_free(w->uid), tvds_free(w->usub), tvds_free(w->uloc), tvds_free(w->ulast);
    tvds_free(w->uperm), tvds_free(w->u_row0), tvds_free(w->u_nrow), tvds_free(w->u_ns);
    tvds_free(w->u_eoff), tvds_free(w->u_nrun), tvds_free(w->u_pref), tvds_free(w->u_rsub);
    tvds_free(w->u_rbeg), tvds_free(w->u_rend), tvds_free(w->u_rsl), tvds_free(w->u_mask),
        tvds_free(w->cnt);
    tvds_free(w->itmp);
    tvds_free(w->pe_u), tvds_free(w->f), tvds_free(w->fs_off), tvds_free(w->fs_loc);
    tvds_free(w->fs_val);
    tvds_free(w->u_dirty), tvds_free(w->s_ne), tvds_free(w->s_cand), tvds_free(w->s_dir);
    tvds_free(w->s_w), tvds_free(w->s_gen), tvds_free(w->gt), tvds_free(w->gt_gen);
    tvds_free(w->e_u), tvds_free(w->e_slot), tvds_free(w->e_loc), tvds_free(w->e_sub);
    tvds_free(w->e_w), tvds_free(w->vc), tvds_free(w->ve), tvds_free(w->H);
    tvds_free(w);
    d->wb = NULL;
}

int sim_wbuild_create(tvds_data *d)
{
    sim_wbuild *w = tvds_calloc(1, sizeof *w);
    if (!w) return TVDS_ERR_NOMEM;
    d->wb = w;
    int uc = d->rmax > 0 ? d->rmax : 1, ec = d->pool_cap > 0 ? d->pool_cap : 1;
    int nc = d->ncand_tot > 0 ? d->ncand_tot : 1;
    w->ucap = uc;
    w->ecap = ec;
#define WB_ALLOC(p, n)                                                                             \
    if (!((p) = tvds_calloc((size_t)(n), sizeof *(p)))) goto nomem
    WB_ALLOC(w->uid, nc);
    WB_ALLOC(w->usub, ec);
    WB_ALLOC(w->uloc, ec);
    WB_ALLOC(w->ulast, ec);
    WB_ALLOC(w->uperm, ec);
    WB_ALLOC(w->u_row0, uc);
    WB_ALLOC(w->u_nrow, uc);
    WB_ALLOC(w->u_ns, uc);
    WB_ALLOC(w->u_eoff, uc + 1);
    WB_ALLOC(w->u_nrun, uc);
    WB_ALLOC(w->u_pref, uc);
    WB_ALLOC(w->u_rsub, (size_t)uc * WB_RUNS);
    WB_ALLOC(w->u_rbeg, (size_t)uc * WB_RUNS);
    WB_ALLOC(w->u_rend, (size_t)uc * WB_RUNS);
    WB_ALLOC(w->u_rsl, (size_t)uc * WB_RUNS * 2);
    WB_ALLOC(w->u_mask, uc);
    WB_ALLOC(w->cnt, uc + 1);
    WB_ALLOC(w->itmp, ec);
    WB_ALLOC(w->e_u, ec);
    WB_ALLOC(w->e_slot, ec);
    WB_ALLOC(w->e_loc, ec);
    WB_ALLOC(w->e_sub, ec);
    WB_ALLOC(w->e_w, ec);
    WB_ALLOC(w->vc, 3 * (size_t)uc);
    WB_ALLOC(w->ve, 3 * (size_t)uc);
    WB_ALLOC(w->H, 3 * (size_t)ec);
    WB_ALLOC(w->u_dirty, uc);
    WB_ALLOC(w->pe_u, ec);
    WB_ALLOC(w->f, ec);
    WB_ALLOC(w->fs_off, d->nsub + 1);
    WB_ALLOC(w->fs_loc, ec);
    WB_ALLOC(w->fs_val, ec);
    int np3 = 0;
    for (int i = 0; i < d->ncp; i++)
        np3 |= d->cp[i].ntan == 2;
    if (np3 && d->ncp <= WB_CACHE_MAX) {
        size_t n = (size_t)d->ncp;
        w->ncp = d->ncp;
        WB_ALLOC(w->s_ne, n);
        WB_ALLOC(w->s_cand, n * SIM_ROW_MAX_CP);
        WB_ALLOC(w->s_dir, n * SIM_ROW_MAX_CP);
        WB_ALLOC(w->s_w, n * SIM_ROW_MAX_CP);
        WB_ALLOC(w->s_gen, n);
        WB_ALLOC(w->gt, 9 * n * n);
        WB_ALLOC(w->gt_gen, 2 * n * n);
        for (size_t i = 0; i < n; i++)
            w->s_ne[i] = -1;
        for (size_t k = 0; k < 2 * n * n; k++)
            w->gt_gen[k] = -1;
    }
#undef WB_ALLOC
    for (int k = 0; k < nc; k++)
        w->uid[k] = -1;
    return TVDS_OK;
nomem:
    sim_wbuild_free(d);
    return TVDS_ERR_NOMEM;
}

/* The pool's entries in buckets by component of G (docs/theory.md 9b), each bucket in pool
 * order and the buckets in the order of their first entry: for a G without zero blocks (one
 * component per substructure) the sums below take their terms in the order of the plain
 * double loop over the rows' entries. */
static inline int bucket_key(const tvds_data *d, int sb, int a)
{
    return d->cand_base[sb] + (d->check.rows_dense ? 0 : d->sub[sb].gcomp[a]);
}

static void bucket_entries(tvds_data *d)
{
    for (int u = 0; u < d->ncomp_used; u++)
        d->comp_head[d->comp_used[u]] = -1;
    d->ncomp_used = 0;
    for (int e = 0; e < d->pool_n; e++) {
        int sb = d->p_sub[e];
        int key = bucket_key(d, sb, d->p_cand[e] - d->cand_base[sb]);
        d->p_next[e] = -1;
        if (d->comp_head[key] < 0) {
            d->comp_head[key] = e;
            d->comp_used[d->ncomp_used++] = key;
        } else {
            d->p_next[d->comp_tail[key]] = e;
        }
        d->comp_tail[key] = e;
    }
}

/* The pairs of entries of one bucket that the pairs' construction sums. */
static double bucket_pairs(const tvds_data *d)
{
    double np = 0.0;
    for (int u = 0; u < d->ncomp_used; u++) {
        double k = 0.0;
        for (int a = d->comp_head[d->comp_used[u]]; a >= 0; a = d->p_next[a])
            k += 1.0;
        np += k * k;
    }
    return np;
}

/* Clear the band of the previous W (outside it W is zero already): then all of W is zero. */
static void clear_band(tvds_data *d)
{
    int n0 = d->W_n;
    if (n0 <= 2) {
        /* One or two rows: the whole W (outside the band it is zero already). */
        if (n0 >= 1) d->W[0] = 0.0;
        if (n0 == 2) d->W[1] = d->W[2] = d->W[3] = 0.0;
    } else {
        for (int j = 0; j < n0; j++) {
            int i0 = j - d->W_ku > 0 ? j - d->W_ku : 0;
            int i1 = j + d->W_kl < n0 ? j + d->W_kl + 1 : n0;
            for (int i = i0; i < i1; i++)
                d->W[i + (size_t)j * n0] = 0.0;
        }
    }
}

static void finish(tvds_data *d, int kl, int ku)
{
    d->W_n = d->nrow;
    d->W_kl = kl;
    d->W_ku = ku;
    d->W_np = d->pool_n;
    d->W_dense = d->check.rows_dense;
    d->W_valid = 1;
    d->W_lu_ok = 0;
}

/* The pairs' construction: only the band (W_kl, W_ku) is recorded for the solve. With
 * bucketed = 1 the buckets are those of this pool already. */
static void build_pairs(tvds_data *d, int bucketed)
{
    int nr = d->nrow;
    int kl = 0, ku = 0;
    if (d->W_struct && d->wp_n >= 0) {
        /* The pool's structure is the last build's: its pairs, in its order (the same sums). */
        const int *restrict pa = d->wp_a, *restrict pb = d->wp_b;
        const double *restrict pg = d->wp_g, *restrict bc = d->p_bc, *restrict be = d->p_be;
        double *restrict W = d->W;
        for (int r = 0, p = 0; r < d->wr_n; r++) {
            double w = W[d->wr_w[r]];
            for (; p < d->wr_end[r]; p++)
                w += bc[pa[p]] * pg[p] * be[pb[p]];
            W[d->wr_w[r]] = w;
        }
        kl = d->W_kl;
        ku = d->W_ku;
    } else {
        if (!bucketed) bucket_entries(d);
        int np = 0;
        for (int u = 0; u < d->ncomp_used; u++) {
            int head = d->comp_head[d->comp_used[u]];
            for (int a = head; a >= 0; a = d->p_next[a]) {
                int sb = d->p_sub[a], i = d->p_row[a];
                const sim_sub *s = &d->sub[sb];
                const double *g = s->G + (d->p_cand[a] - d->cand_base[sb]);
                double bca = d->p_bc[a];
                d->wp_first[a] = np;
                for (int b = head; b >= 0; b = d->p_next[b], np++) {
                    int j = d->p_row[b];
                    int cb = d->p_cand[b] - d->cand_base[sb];
                    double gab = g[(size_t)cb * s->ncand];
                    d->W[i + (size_t)j * nr] += bca * gab * d->p_be[b];
                    if (i - j > kl) kl = i - j;
                    if (j - i > ku) ku = j - i;
                    if (np < d->wp_cap) {
                        d->wp_a[np] = a;
                        d->wp_b[np] = b;
                        d->wp_w[np] = i + j * nr;
                        d->wp_g[np] = gab;
                    }
                }
                d->wp_len[a] = np - d->wp_first[a];
            }
        }
        d->wp_n = np <= d->wp_cap ? np : -1;
        d->wr_n = 0;
        for (int p = 0; p < d->wp_n; p++) {
            if (p == 0 || d->wp_w[p] != d->wp_w[p - 1]) d->wr_w[d->wr_n++] = d->wp_w[p];
            d->wr_end[d->wr_n - 1] = p + 1;
        }
    }
    double h2 = d->h * d->h;
    if (nr <= 2) {
        /* The whole W (zero outside the band: scaled, still zero). */
        if (nr >= 1) d->W[0] *= h2;
        if (nr == 2) d->W[1] *= h2, d->W[2] *= h2, d->W[3] *= h2;
    } else {
        for (int j = 0; j < nr; j++) {
            int i0 = j - ku > 0 ? j - ku : 0, i1 = j + kl < nr ? j + kl + 1 : nr;
            for (int i = i0; i < i1; i++)
                d->W[i + (size_t)j * nr] *= h2;
        }
    }
    finish(d, kl, ku);
    d->w_points_last = 0;
    d->w_pair_builds++;
}

/* The units of the points' construction from the rows: a contact point's consecutive rows
 * (normal, then stick rows) share its entries in three direction slots; any other row is a unit
 * of one slot whose entries' weights are its coefficients. Each unit's entries are ordered by
 * substructure (runs), the used candidates numbered, and ordered by the last unit using them,
 * descending (unit p then needs the first u_pref[p] of them). Returns the number of units, or
 * -1 when a unit does not fit (more than WB_RUNS substructures, B_E != B_C on a one-slot row). */
static int units_make(tvds_data *d)
{
    sim_wbuild *w = d->wb;
    int nu = 0, ne = 0, nused = 0;
    for (int r = 0; r < d->nrow; r++) {
        const sim_row *R = &d->row[r];
        int contact = R->kind == 1 || R->kind == 2;
        double *vc = w->vc + 3 * r, *ve = w->ve + 3 * r;
        if (contact) {
            /* The directions sim_assemble gave the entries' coefficients e_w vc[e_dir] and
             * e_w ve[e_dir], by the same operations. */
            const sim_cp *cr = &d->cp[R->cp];
            const double *v = R->kind == 1 ? cr->n : cr->t[R->k];
            for (int a = 0; a < 3; a++) {
                vc[a] = ve[a] = v[a];
                if (R->kind == 1)
                    for (int k = 0; k < cr->ntan; k++)
                        if (!cr->tstick[k]) ve[a] -= cr->mu_t[k] * cr->sdir[k] * cr->t[k][a];
            }
        } else {
            vc[0] = ve[0] = 1.0;
            vc[1] = vc[2] = ve[1] = ve[2] = 0.0;
        }
        if (contact && nu > 0 && w->u_ns[nu - 1] == 3 && d->row[w->u_row0[nu - 1]].cp == R->cp &&
            d->row[w->u_row0[nu - 1]].kind != 0 && d->row[w->u_row0[nu - 1]].kind != 3) {
            w->u_nrow[nu - 1]++;
            const sim_row *R0 = &d->row[w->u_row0[nu - 1]];
            for (int e = 0; e < R->ne; e++)
                w->pe_u[R->off + e] = w->pe_u[R0->off + e];
            continue;
        }
        int u = nu++;
        w->u_row0[u] = r;
        w->u_nrow[u] = 1;
        w->u_ns[u] = contact ? 3 : 1;
        w->u_eoff[u] = ne;
        w->u_nrun[u] = 0;
        w->u_mask[u] = 0;
        const sim_cp *c = contact ? &d->cp[R->cp] : NULL;
        if (contact && c->ne != R->ne) goto fail;
        /* Entries by substructure: one pass per distinct substructure, in order of appearance. */
        for (int e0 = 0; e0 < R->ne; e0++) {
            int sb = d->p_sub[R->off + e0], seen = 0;
            for (int q = 0; q < w->u_nrun[u]; q++)
                seen |= w->u_rsub[u * WB_RUNS + q] == sb;
            if (seen) continue;
            if (w->u_nrun[u] == WB_RUNS) goto fail;
            int q = w->u_nrun[u]++;
            w->u_rsub[u * WB_RUNS + q] = sb;
            w->u_rbeg[u * WB_RUNS + q] = ne;
            w->u_mask[u] |= 1ul << (sb % 64);
            /* The run's entries by slot: slot k from u_rsl[run][k] (u_rbeg for k = 0). */
            for (int sl = 0; sl < 3; sl++) {
                if (sl > 0) w->u_rsl[(u * WB_RUNS + q) * 2 + sl - 1] = ne;
                for (int e = e0; e < R->ne; e++) {
                    int pe = R->off + e;
                    if (d->p_sub[pe] != sb || (contact ? c->e_dir[e] : 0) != sl) continue;
                    if (!contact && d->p_be[pe] != d->p_bc[pe]) goto fail;
                    int g = d->p_cand[pe];
                    if (w->uid[g] < 0) {
                        w->uid[g] = nused;
                        w->usub[nused] = sb;
                        w->uloc[nused] = g - d->cand_base[sb];
                        nused++;
                    }
                    w->ulast[w->uid[g]] = u;
                    w->pe_u[pe] = w->uid[g];
                    w->e_u[ne] = w->uid[g];
                    w->e_slot[ne] = contact ? c->e_dir[e] : 0;
                    w->e_w[ne] = contact ? c->e_w[e] : d->p_bc[pe];
                    w->e_loc[ne] = g - d->cand_base[sb];
                    w->e_sub[ne] = sb;
                    ne++;
                }
            }
            w->u_rend[u * WB_RUNS + q] = ne;
        }
    }
    w->u_eoff[nu] = ne;
    /* Reset the candidates' map for the next build (it was read only here). */
    for (int k = 0; k < nused; k++)
        w->uid[d->cand_base[w->usub[k]] + w->uloc[k]] = -1;
    /* Order the used candidates by last unit, descending (counting sort). */
    for (int u = 0; u <= nu; u++)
        w->cnt[u] = 0;
    for (int k = 0; k < nused; k++)
        w->cnt[w->ulast[k]]++;
    for (int u = nu - 1, acc = 0; u >= 0; u--) {
        int c = w->cnt[u];
        w->cnt[u] = acc; /* first position of the candidates last used by unit u */
        acc += c;
        w->u_pref[u] = acc;
    }
    for (int k = 0; k < nused; k++)
        w->uperm[k] = w->cnt[w->ulast[k]]++;
    /* Permute usub, uloc and renumber the entries. */
    int *tmp = w->itmp;
    for (int k = 0; k < nused; k++)
        tmp[w->uperm[k]] = w->usub[k];
    for (int k = 0; k < nused; k++)
        w->usub[k] = tmp[k];
    for (int k = 0; k < nused; k++)
        tmp[w->uperm[k]] = w->uloc[k];
    for (int k = 0; k < nused; k++)
        w->uloc[k] = tmp[k];
    for (int k = 0; k < ne; k++)
        w->e_u[k] = w->uperm[w->e_u[k]];
    for (int k = 0; k < d->pool_n; k++)
        w->pe_u[k] = w->uperm[w->pe_u[k]];
    w->f_ver = -1;
    w->nused = nused;
    return nu;
fail:
    for (int k = 0; k < nused; k++)
        w->uid[d->cand_base[w->usub[k]] + w->uloc[k]] = -1;
    return -1;
}

/* Multiply-adds of the points' construction for nu units (units_make done). */
static double points_cost(const tvds_data *d, int nu)
{
    const sim_wbuild *w = d->wb;
    double c = 0.0;
    for (int p = 0; p < nu; p++) {
        /* H_p, then the pairs (q, p), q <= p: Gt and the blocks. */
        int ne = w->u_eoff[p + 1] - w->u_eoff[p];
        c += (double)ne * w->u_pref[p] + (p + 1.0) * (3.0 * ne + 20.0);
    }
    return c;
}

/* Does contact unit p's point have the entries of its snapshot? If not, take them (a new
 * generation: every cached Gt of the point is stale). */
static int point_dirty(tvds_data *d, int p)
{
    sim_wbuild *w = d->wb;
    const sim_row *R = &d->row[w->u_row0[p]];
    const sim_cp *c = &d->cp[R->cp];
    int i = R->cp, ne = c->ne, same = w->s_ne[i] == ne;
    const int *pc = d->p_cand + R->off;
    int *sc = w->s_cand + (size_t)i * SIM_ROW_MAX_CP, *sd = w->s_dir + (size_t)i * SIM_ROW_MAX_CP;
    double *sw = w->s_w + (size_t)i * SIM_ROW_MAX_CP;
    for (int e = 0; e < ne && same; e++)
        same = sc[e] == pc[e] && sd[e] == c->e_dir[e] && sw[e] == c->e_w[e];
    if (same) return 0;
    w->s_ne[i] = ne;
    for (int e = 0; e < ne; e++)
        sc[e] = pc[e], sd[e] = c->e_dir[e], sw[e] = c->e_w[e];
    w->s_gen[i]++;
    return 1;
}

/* W's blocks between units a and b (and b, a) from Gt_ab (a's slots first). */
static void write_blocks(tvds_data *d, int a, int b, double Gt[3][3], int *kl, int *ku)
{
    const sim_wbuild *w = d->wb;
    int nr = d->nrow, nsa = w->u_ns[a], nsb = w->u_ns[b];
    double h2 = d->h * d->h, *W = d->W;
    for (int x = 0; x < w->u_nrow[a]; x++) {
        int r = w->u_row0[a] + x;
        const double *vcr = w->vc + 3 * r, *ver = w->ve + 3 * r;
        double t[3] = {0.0, 0.0, 0.0}, g[3] = {0.0, 0.0, 0.0};
        for (int i = 0; i < nsa; i++)
            for (int j = 0; j < nsb; j++) {
                t[j] += vcr[i] * Gt[i][j]; /* (V_a^T Gt)_r */
                g[j] += ver[i] * Gt[i][j]; /* (E_a^T Gt)_r: the mirror, G symmetric */
            }
        for (int y = 0; y < w->u_nrow[b]; y++) {
            int s = w->u_row0[b] + y;
            const double *ves = w->ve + 3 * s, *vcs = w->vc + 3 * s;
            double v = 0.0;
            for (int j = 0; j < nsb; j++)
                v += t[j] * ves[j];
            W[r + (size_t)s * nr] = h2 * v;
            if (s - r > *ku) *ku = s - r;
            if (r - s > *kl) *kl = r - s;
            if (a == b) continue;
            double v2 = 0.0;
            for (int j = 0; j < nsb; j++)
                v2 += g[j] * vcs[j];
            W[s + (size_t)r * nr] = h2 * v2;
            if (s - r > *kl) *kl = s - r;
            if (r - s > *ku) *ku = r - s;
        }
    }
}

/* The cached Gt of contact units p <= q (their points' entries unchanged since it was
 * computed), or NULL. */
static double *gt_slot(tvds_data *d, int p, int q, int *fresh)
{
    sim_wbuild *w = d->wb;
    *fresh = 0;
    if (!w->gt || w->u_ns[p] != 3 || w->u_ns[q] != 3) return NULL;
    int a = d->row[w->u_row0[p]].cp, b = d->row[w->u_row0[q]].cp;
    size_t k = (size_t)a * w->ncp + b;
    *fresh = w->gt_gen[2 * k] == w->s_gen[a] && w->gt_gen[2 * k + 1] == w->s_gen[b];
    return w->gt + 9 * k;
}

static void gt_store(tvds_data *d, int p, int q, double Gt[3][3])
{
    int fresh;
    double *g = gt_slot(d, p, q, &fresh);
    if (!g) return;
    sim_wbuild *w = d->wb;
    int a = d->row[w->u_row0[p]].cp, b = d->row[w->u_row0[q]].cp;
    size_t k = (size_t)a * w->ncp + b;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            g[3 * i + j] = Gt[i][j];
    w->gt_gen[2 * k] = w->s_gen[a];
    w->gt_gen[2 * k + 1] = w->s_gen[b];
}

static void build_points(tvds_data *d, int nu)
{
    sim_wbuild *w = d->wb;
    int kl = 0, ku = 0, nused = w->nused;
    double *H = w->H;
    /* Dirty units compute their H and their pairs; a pair of clean contact units comes from
     * the cache when fresh, else its first unit is made dirty. */
    for (int p = 0; p < nu; p++)
        w->u_dirty[p] = w->u_ns[p] != 3 || !w->gt || point_dirty(d, p);
    for (int p = 0; p < nu; p++) {
        if (w->u_dirty[p]) continue;
        for (int q = p; q < nu; q++) {
            int fresh;
            if (w->u_dirty[q] || !(w->u_mask[p] & w->u_mask[q])) continue;
            gt_slot(d, p, q, &fresh);
            if (!fresh) {
                w->u_dirty[p] = 1;
                break;
            }
        }
    }
    int clean_before = 0;
    for (int p = 0; p < nu; p++) {
        int dirty = w->u_dirty[p], nsp = w->u_ns[p];
        if (dirty) {
            /* H_p(i, u) = sum_{e in p, slot i} w_e G(c_e, u): over the candidates of the units
             * >= p (the prefix), or all when a clean unit before p pairs with it. */
            int P = clean_before ? nused : w->u_pref[p];
            for (int u = 0; u < P; u++) {
                int sb = w->usub[u], q = 0;
                double h[3] = {0.0, 0.0, 0.0};
                while (q < w->u_nrun[p] && w->u_rsub[p * WB_RUNS + q] != sb)
                    q++;
                if (q < w->u_nrun[p]) {
                    const sim_sub *s = &d->sub[sb];
                    const double *col = s->G + (size_t)w->uloc[u] * s->ncand;
                    const int *sl = w->u_rsl + (p * WB_RUNS + q) * 2;
                    int k0 = w->u_rbeg[p * WB_RUNS + q], k3 = w->u_rend[p * WB_RUNS + q];
                    for (int k = k0; k < sl[0]; k++)
                        h[0] += w->e_w[k] * col[w->e_loc[k]];
                    for (int k = sl[0]; k < sl[1]; k++)
                        h[1] += w->e_w[k] * col[w->e_loc[k]];
                    for (int k = sl[1]; k < k3; k++)
                        h[2] += w->e_w[k] * col[w->e_loc[k]];
                }
                for (int i = 0; i < nsp; i++)
                    H[i * nused + u] = h[i];
            }
        } else {
            clean_before = 1;
        }
        for (int q = dirty ? 0 : p; q < nu; q++) {
            if (!(w->u_mask[p] & w->u_mask[q])) continue; /* no substructure in common */
            double Gt[3][3] = {{0.0}};
            if (!dirty) {
                /* Clean p: the fresh cached pairs with clean q >= p (dirty q does the rest). */
                int fresh;
                const double *g = w->u_dirty[q] ? NULL : gt_slot(d, p, q, &fresh);
                if (!g) continue;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        Gt[i][j] = g[3 * i + j];
                write_blocks(d, p, q, Gt, &kl, &ku);
                d->w_gt_reused++;
                continue;
            }
            if (q < p && w->u_dirty[q]) continue; /* done by q */
            /* Gt_pq(i, j) = sum_{f in q, slot j} w_f H_p(i, u_f): run by run, slot by slot. */
            if (nsp == 3) {
                const double *H0 = H, *H1 = H + nused, *H2 = H + 2 * (size_t)nused;
                for (int r = 0; r < w->u_nrun[q]; r++) {
                    const int *sl = w->u_rsl + (q * WB_RUNS + r) * 2;
                    int b[4] = {w->u_rbeg[q * WB_RUNS + r], sl[0], sl[1],
                                w->u_rend[q * WB_RUNS + r]};
                    for (int j = 0; j < 3; j++) {
                        double a0 = 0.0, a1 = 0.0, a2 = 0.0;
                        for (int f = b[j]; f < b[j + 1]; f++) {
                            int u = w->e_u[f];
                            double wf = w->e_w[f];
                            a0 += wf * H0[u], a1 += wf * H1[u], a2 += wf * H2[u];
                        }
                        Gt[0][j] += a0, Gt[1][j] += a1, Gt[2][j] += a2;
                    }
                }
            } else {
                for (int f = w->u_eoff[q]; f < w->u_eoff[q + 1]; f++) {
                    int u = w->e_u[f], j = w->e_slot[f];
                    double wf = w->e_w[f];
                    for (int i = 0; i < nsp; i++)
                        Gt[i][j] += wf * H[i * nused + u];
                }
            }
            write_blocks(d, p, q, Gt, &kl, &ku);
            if (q >= p) {
                gt_store(d, p, q, Gt);
            } else {
                double T[3][3];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        T[i][j] = Gt[j][i];
                gt_store(d, q, p, T);
            }
        }
    }
    d->wp_n = -1; /* no pairs kept: the candidate corrections come from sim_wbuild_du */
    finish(d, kl, ku);
    d->w_points_last = 1;
    d->w_point_builds++;
}

void sim_build_W(tvds_data *d)
{
    if (d->wb_dim == 0) {
        /* Points' construction only for 3D contact points: the 2D path keeps its sums. */
        d->wb_dim = 2;
        for (int i = 0; i < d->ncp; i++)
            if (d->cp[i].ntan == 2 && !d->cp[i].pen) d->wb_dim = 3;
    }
    clear_band(d);
    int bucketed = 0;
    if (d->wb_dim == 3 && d->wb && !(d->W_struct && d->wp_n >= 0 && d->check.w_points <= 0)) {
        bucket_entries(d); /* the candidate corrections walk the buckets */
        bucketed = 1;
        int nu = d->check.w_points < 0 ? -1 : units_make(d);
        if (nu >= 0 && (d->check.w_points > 0 || points_cost(d, nu) < bucket_pairs(d))) {
            build_points(d, nu);
            return;
        }
    }
    build_pairs(d, bucketed); /* one call: inlined */
}

double sim_wbuild_du(tvds_data *d, int sb, int a)
{
    sim_wbuild *w = d->wb;
    int nused = w->nused;
    if (w->f_ver != d->du_ver) {
        /* f = B_E^T lambda merged per used candidate: O(pool) once per set of multipliers. */
        for (int u = 0; u < nused; u++)
            w->f[u] = 0.0;
        for (int b = 0; b < d->pool_n; b++) {
            double l = d->lam[d->p_row[b]];
            if (l != 0.0) w->f[w->pe_u[b]] += l * d->p_be[b];
        }
        /* Its nonzeros by substructure (counting sort). */
        for (int i = 0; i <= d->nsub; i++)
            w->fs_off[i] = 0;
        for (int k = 0; k < nused; k++)
            if (w->f[k] != 0.0) w->fs_off[w->usub[k] + 1]++;
        for (int i = 0; i < d->nsub; i++)
            w->fs_off[i + 1] += w->fs_off[i];
        for (int k = 0; k < nused; k++)
            if (w->f[k] != 0.0) {
                int q = w->fs_off[w->usub[k]]++;
                w->fs_loc[q] = w->uloc[k];
                w->fs_val[q] = w->f[k];
            }
        for (int i = d->nsub; i > 0; i--)
            w->fs_off[i] = w->fs_off[i - 1];
        w->fs_off[0] = 0;
        w->f_ver = d->du_ver;
    }
    const sim_sub *s = &d->sub[sb];
    const double *g = s->G + (size_t)a * s->ncand; /* G(., a) = G(a, .): G symmetric */
    const int *loc = w->fs_loc;
    const double *fv = w->fs_val;
    double u = 0.0;
    for (int k = w->fs_off[sb]; k < w->fs_off[sb + 1]; k++)
        u += g[loc[k]] * fv[k];
    return -(d->h * d->h) * u;
}
