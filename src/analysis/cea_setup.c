/* cea_setup.c — the CEA's problem set-up and workspaces. */
#include "analysis/cea_impl.h"

static void rows_free(cea_rows *r)
{
    tvds_free(r->ptr);
    tvds_free(r->col);
    tvds_free(r->bc);
    tvds_free(r->be);
    memset(r, 0, sizeof *r);
}

void cea_problem_free(cea_problem *p)
{
    tvds_free(p->M);
    tvds_free(p->K);
    tvds_free(p->C);
    tvds_free(p->f);
    tvds_free(p->bil_ptr);
    tvds_free(p->bil_col);
    tvds_free(p->bil_val);
    sim_master_static_free(&p->ms);
    tvds_free(p->act_dof);
    tvds_free(p->act_ds);
    tvds_free(p->act_X);
    for (int j = 0; j < p->nextra && p->extra; j++)
        cea_problem_free(&p->extra[j]);
    tvds_free(p->extra);
    memset(p, 0, sizeof *p);
}

void cea_work_free(cea_work *w)
{
    if (!w) return;
    rows_free(&w->rows);
    cea_eig_work_free(&w->eig);
    void *ptrs[] = {w->J,  w->isj, w->F,  w->BJ, w->VT, w->sv,  w->superb, w->ZC,   w->ZE, w->T,
                    w->Mc, w->Kc,  w->Cc, w->Q,  w->Kt, w->KKT, w->krhs,   w->kpiv, w->geo};
    tvds_free(w->Ct);
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        tvds_free(ptrs[i]);
    memset(w, 0, sizeof *w);
}

int cea_work_alloc(cea_work *w, int N, int rows_cap, int nnz_cap, int nact, int ncand, int arpack)
{
    memset(w, 0, sizeof *w);
    int p_cap = nnz_cap < N ? nnz_cap : N;
    if (p_cap < 1) p_cap = 1;
    w->rows_cap = rows_cap;
    w->nnz_cap = nnz_cap;
    w->p_cap = p_cap;
    size_t n2 = (size_t)N * N;
    w->rows.ptr = tvds_malloc((size_t)(rows_cap + 1) * sizeof(int));
    w->rows.col = tvds_malloc((size_t)(nnz_cap + 1) * sizeof(int));
    w->rows.bc = tvds_malloc((size_t)(nnz_cap + 1) * sizeof(double));
    w->rows.be = tvds_malloc((size_t)(nnz_cap + 1) * sizeof(double));
    w->J = tvds_malloc((size_t)(nnz_cap + 1) * sizeof(int)); /* before deduplication */
    w->isj = tvds_malloc((size_t)N * sizeof(int));
    w->F = tvds_malloc((size_t)N * sizeof(int));
    w->BJ = tvds_malloc((size_t)(rows_cap > 0 ? rows_cap : 1) * p_cap * sizeof(double));
    w->VT = tvds_malloc((size_t)p_cap * p_cap * sizeof(double));
    w->sv = tvds_malloc((size_t)p_cap * sizeof(double));
    w->superb = tvds_malloc((size_t)p_cap * sizeof(double));
    w->ZC = tvds_malloc((size_t)p_cap * p_cap * sizeof(double));
    w->ZE = tvds_malloc((size_t)p_cap * p_cap * sizeof(double));
    w->T = tvds_malloc(n2 * sizeof(double));
    w->Mc = tvds_malloc(n2 * sizeof(double));
    w->Kc = tvds_malloc(n2 * sizeof(double));
    w->Cc = tvds_malloc(n2 * sizeof(double));
    w->Q = tvds_malloc((size_t)(ncand > 0 ? ncand : 1) * 2 * N * sizeof(double));
    size_t nk = (size_t)N + (size_t)rows_cap;
    w->Kt = tvds_malloc(n2 * sizeof(double));
    w->Ct = tvds_malloc(n2 * sizeof(double));
    w->KKT = tvds_malloc(nk * nk * sizeof(double));
    w->krhs = tvds_malloc(nk * sizeof(double));
    w->kpiv = tvds_malloc(nk * sizeof(int));
    w->geo = tvds_calloc((size_t)(nact > 0 ? nact : 1), sizeof *w->geo);
    w->rows.nrows = 0;
    if (!w->rows.ptr || !w->rows.col || !w->rows.bc || !w->rows.be || !w->J || !w->isj || !w->F ||
        !w->BJ || !w->VT || !w->sv || !w->superb || !w->ZC || !w->ZE || !w->T || !w->Mc || !w->Kc ||
        !w->Cc || !w->Q || !w->Kt || !w->Ct || !w->KKT || !w->krhs || !w->kpiv || !w->geo ||
        cea_eig_work_alloc(&w->eig, N, ncand, arpack)) {
        cea_work_free(w);
        return TVDS_ERR_NOMEM;
    }
    return TVDS_OK;
}

/* ---- Setup ----------------------------------------------------------------------------- */

static int find_xyz(const tvds_model *m, int sub, long node, int ncomp, int *dof, double *xy,
                    const char *what, const char *cname, const int *off, tvds_ctx *ctx)
{
    return sim_master_node_dofs(m, sub, node, ncomp, off, dof, xy, what, cname, ctx);
}

static int setup_contact(const tvds_model *m, int contact, const tvds_cea_options *o, int all_nodes,
                         double t_eval, const int *off, double s_ref, cea_problem *p,
                         tvds_ctx *ctx);

int cea_setup(const tvds_model *m, int contact, const tvds_cea_options *o, cea_problem *p,
              tvds_ctx *ctx)
{
    memset(p, 0, sizeof *p);
    if (!m || m->nsub < 1 || !m->subs) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: empty model");
    if (contact < TVDS_CEA_ALL_CONTACTS || contact >= m->ncontact)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact index %d out of [0, %d)", contact,
                          m->ncontact);
    double t_eval = o->t_eval >= 0 ? o->t_eval : (m->opt.t_end > 0 ? m->opt.t_end : 1e30);
    int off[m->nsub + 1];
    off[0] = 0;
    for (int i = 0; i < m->nsub; i++) {
        if (!m->subs[i] || m->subs[i]->n < 1 || !m->subs[i]->M || !m->subs[i]->K)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: substructure %d is empty", i);
        off[i + 1] = off[i] + m->subs[i]->n;
    }
    int N = off[m->nsub];
    if (N > 20000)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: %d DoFs: too many for dense eigenanalysis",
                          N);
    p->N = N;
    size_t n2 = (size_t)N * N;
    p->M = tvds_calloc(n2, sizeof(double));
    p->K = tvds_calloc(n2, sizeof(double));
    p->C = tvds_calloc(n2, sizeof(double));
    if (!p->M || !p->K || !p->C) goto nomem;
    /* Block-diagonal M, K, C of the free substructures. */
    for (int i = 0; i < m->nsub; i++) {
        const tvds_substructure *s = m->subs[i];
        double al = 0.0, be = 0.0;
        int kind = m->damping ? m->damping[i].kind : (s->C ? TVDS_DAMP_MATRIX : TVDS_DAMP_NONE);
        if (kind == TVDS_DAMP_RAYLEIGH) tvds_damping_at(&m->damping[i], t_eval, &al, &be);
        for (int c = 0; c < s->n; c++)
            for (int r = 0; r < s->n; r++) {
                size_t g = (size_t)(off[i] + c) * N + (size_t)(off[i] + r);
                size_t l = (size_t)c * s->n + r;
                p->M[g] = s->M[l];
                p->K[g] = s->K[l];
                if (kind == TVDS_DAMP_RAYLEIGH)
                    p->C[g] = al * s->M[l] + be * s->K[l];
                else if (kind == TVDS_DAMP_MATRIX && s->C)
                    p->C[g] = s->C[l];
            }
    }
    /* Springs and dampers; friction elements have no linear part about steady sliding. */
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *el = &m->elements[e];
        if (el->kind != TVDS_EL_SPRING && el->kind != TVDS_EL_DAMPER) continue;
        int g[2], ng = 0;
        double sg[2] = {1.0, -1.0};
        for (int k = 0; k < 2; k++) {
            if (el->sub[k] < 0) continue;
            if (el->sub[k] >= m->nsub || el->dof[k] < 0 || el->dof[k] >= m->subs[el->sub[k]]->n)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: element '%s': bad DoF",
                                  el->name ? el->name : "?");
            sg[ng] = k == 0 ? 1.0 : -1.0;
            g[ng++] = off[el->sub[k]] + el->dof[k];
        }
        double *X = el->kind == TVDS_EL_SPRING ? p->K : p->C;
        double v = el->kind == TVDS_EL_SPRING ? el->k : el->b;
        for (int a = 0; a < ng; a++)
            for (int b = 0; b < ng; b++)
                X[(size_t)g[b] * N + g[a]] += sg[a] * sg[b] * v;
    }
    if (!o->undamped)
        for (size_t i = 0; i < n2; i++)
            if (p->C[i] != 0.0) p->has_c = 1;
    /* Loads at t_eval: the preload of the static sliding state. */
    p->f = tvds_calloc((size_t)N, sizeof(double));
    if (!p->f) goto nomem;
    for (int l = 0; l < m->nload; l++) {
        const tvds_load *ld = &m->loads[l];
        if (ld->sub < 0 || ld->sub >= m->nsub || ld->dof < 0 || ld->dof >= m->subs[ld->sub]->n)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: load '%s': bad DoF",
                              ld->name ? ld->name : "?");
        double v = tvds_fn_eval(&ld->fn, t_eval);
        p->f[off[ld->sub] + ld->dof] += v;
        if (v != 0.0) p->has_load = 1;
    }
    p->deformed = o->state == TVDS_CEA_DEFORMED;

    /* Bilateral constraints: rows of both B_C and B_E (their perturbation is zero). */
    int nnz = 0;
    for (int b = 0; b < m->nbil; b++)
        nnz += m->bil[b].nterms;
    p->nbil = m->nbil;
    p->bil_nnz = nnz;
    p->bil_ptr = tvds_malloc((size_t)(m->nbil + 1) * sizeof(int));
    p->bil_col = tvds_malloc((size_t)(nnz + 1) * sizeof(int));
    p->bil_val = tvds_malloc((size_t)(nnz + 1) * sizeof(double));
    if (!p->bil_ptr || !p->bil_col || !p->bil_val) goto nomem;
    nnz = 0;
    for (int b = 0; b < m->nbil; b++) {
        p->bil_ptr[b] = nnz;
        for (int k = 0; k < m->bil[b].nterms; k++) {
            const tvds_term *t = &m->bil[b].terms[k];
            if (t->sub < 0 || t->sub >= m->nsub || t->dof < 0 || t->dof >= m->subs[t->sub]->n)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: constraint '%s': bad DoF",
                                  m->bil[b].name ? m->bil[b].name : "?");
            p->bil_col[nnz] = off[t->sub] + t->dof;
            p->bil_val[nnz] = t->coef;
            nnz++;
        }
    }
    p->bil_ptr[m->nbil] = nnz;

    /* Frequency scale of the whole system for the rigid-body filter. */
    double trk = 0.0, trm = 0.0;
    for (int i = 0; i < N; i++) {
        trk += fabs(p->K[(size_t)i * N + i]);
        trm += fabs(p->M[(size_t)i * N + i]);
    }
    p->fmin_hz = o->fmin_hz >= 0 ? o->fmin_hz : 1e-6 * sqrt(trk / trm) / (2.0 * TVDS_PI);
    p->solver = o->solver;
    p->wshift = o->shift_hz > 0.0 ? 2.0 * TVDS_PI * o->shift_hz : 0.0;
    p->chi_fixed = o->chi;
    p->ncand = o->nmodes + (o->nextra > 0 ? o->nextra : 0);

    if (contact == -1) return TVDS_OK;
    if (contact == TVDS_CEA_ALL_CONTACTS && m->ncontact < 1)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: the model has no contact");
    int all_c = contact == TVDS_CEA_ALL_CONTACTS;
    int rc = setup_contact(m, all_c ? 0 : contact, o, all_c, t_eval, off, NAN, p, ctx);
    if (rc || !all_c) return rc;
    p->nact_all = p->nact;
    if (m->ncontact < 2) return TVDS_OK;
    /* Abscissa of the first node of the first contact: the reference of every offset. */
    double s00 = 0.0;
    if (p->ms.length > 0 && (rc = tvds_cea_slave_abscissa(m, 0, 0, &s00, ctx))) return rc;
    p->extra = tvds_calloc((size_t)(m->ncontact - 1), sizeof *p->extra);
    if (!p->extra) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory");
    p->nextra = m->ncontact - 1;
    int any_deformable = !p->ms.rigid;
    for (int j = 1; j < m->ncontact; j++) {
        cea_problem *x = &p->extra[j - 1];
        x->N = N;
        x->deformed = p->deformed;
        x->has_load = p->has_load;
        x->chi_fixed = p->chi_fixed;
        if ((rc = setup_contact(m, j, o, 1, t_eval, off, s00, x, ctx))) return rc;
        p->nact_all += x->nact;
        if (!x->ms.rigid) any_deformable = 1;
        if (x->gen_static) p->gen_static = 1;
    }
    /* Several contacts: every node's row in the static state, its own preload stiffness
     * and the contact set. */
    if (any_deformable || p->nact_all > 1) p->gen_static = 1;
    return TVDS_OK;
nomem:
    return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory (%d DoFs)", N);
}

/* The contact fields of *p for contact `contact`: every slave node when all_nodes (or
 * o->slave is TVDS_CEA_ALL_SLAVES), else o->slave. Offsets along the master are taken from
 * s_ref (NaN: the contact's own first node). */
static int setup_contact(const tvds_model *m, int contact, const tvds_cea_options *o, int all_nodes,
                         double t_eval, const int *off, double s_ref, cea_problem *p, tvds_ctx *ctx)
{
    int N = p->N;
    const tvds_contact *c = &m->contacts[contact];
    const char *cname = c->name ? c->name : "?";
    const sim_master_type *kind = sim_masters[c->master_kind];
    if (c->dim != 2 && c->dim != 3)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s': 2D contacts (dim = 2) and 3D contacts on a face set, "
                          "a rigid plane or a rotating disc only",
                          cname);
    p->ncomp = c->dim == 3 ? 3 : 2;
    p->lateral = p->ncomp == 3 && !o->no_lateral && !o->undamped;
    if (o->slave < TVDS_CEA_ALL_SLAVES || o->slave >= c->nslave)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': slave index %d out of [0, %d)",
                          cname, o->slave, c->nslave);
    if (c->slave_sub < 0 || c->slave_sub >= m->nsub)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': bad slave substructure",
                          cname);
    p->has_contact = 1;
    p->mu = c->mu_k;
    int all = all_nodes || o->slave == TVDS_CEA_ALL_SLAVES;
    p->nact = all ? c->nslave : 1;
    p->act_dof = tvds_malloc((size_t)3 * p->nact * sizeof(int));
    p->act_ds = tvds_calloc((size_t)p->nact, sizeof(double));
    p->act_X = tvds_calloc((size_t)3 * p->nact, sizeof(double));
    if (!p->act_dof || !p->act_ds || !p->act_X) goto nomem;
    int rc = TVDS_OK;
    p->nact_all = p->nact;
    /* Several nodes: the contact set of the static state (and on a deformable master each
     * node's geometry and preload stiffness). */
    if (p->nact > 1) p->gen_static = 1;
    for (int a = 0; a < p->nact; a++) {
        rc = find_xyz(m, c->slave_sub, c->slave_nodes[all ? a : o->slave], p->ncomp,
                      p->act_dof + 3 * a, p->act_X + 3 * a, "slave", cname, off, ctx);
        if (rc) return rc;
    }
    for (int k = 0; k < 3; k++)
        p->slave_dof[k] = p->act_dof[k];
    if ((p->nact > 1 || !isnan(s_ref)) && kind->offsets) {
        /* Each node keeps its offset along the master from the first node (docs/cea.md,
         * "Several contact nodes"). */
        double s0 = s_ref;
        for (int a = 0; a < p->nact; a++) {
            double sa = 0.0;
            rc = tvds_cea_slave_abscissa(m, contact, a, &sa, ctx);
            if (rc) return rc;
            if (a == 0 && isnan(s_ref)) s0 = sa;
            p->act_ds[a] = sa - s0;
        }
        /* Every node's row in the static state and its own preload stiffness. */
        p->gen_static = 1;
    }
    /* Sliding velocity of the slave: its prescribed kinematics (Subs-a), or else single-term
     * imposed motions of its own DoFs (the drive of the slave body). */
    double vs[3] = {0.0, 0.0, 0.0}, vm[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < p->ncomp; k++)
        vs[k] = tvds_fn_deriv(&c->slave_kin[k], t_eval, 1);
    if (vs[0] == 0.0 && vs[1] == 0.0 && vs[2] == 0.0) {
        for (int b = 0; b < m->nbil; b++) {
            const tvds_bilateral *bl = &m->bil[b];
            if (bl->nterms != 1 || bl->terms[0].sub != c->slave_sub || bl->terms[0].coef == 0.0)
                continue;
            int dir = m->subs[bl->terms[0].sub]->dofs[bl->terms[0].dof].dir;
            if (dir == TVDS_DIR_X || dir == TVDS_DIR_Y || (dir == TVDS_DIR_Z && p->ncomp == 3))
                vs[dir] += tvds_fn_deriv(&bl->value, t_eval, 1) / bl->terms[0].coef;
        }
    }
    /* The master: the kind's checks, its nodes and frame data (engine/contact/master.h). */
    p->ms.type = kind;
    p->ms.ncomp = p->ncomp;
    p->ms.mu = p->mu;
    if ((rc = kind->static_setup(m, contact, t_eval, vs, off, &p->ms, vm, ctx))) return rc;
    if (p->ms.faces || kind->static_slide) p->gen_static = 1;
    for (int k = 0; k < 3; k++)
        p->ms.v_rel[k] = vs[k] - vm[k];
    if (p->chi_fixed == 0.0 && p->mu != 0.0 && p->ms.v_rel[0] == 0.0 && p->ms.v_rel[1] == 0.0 &&
        p->ms.v_rel[2] == 0.0 && !kind->static_slide)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s': no sliding velocity at t = %g (slave_kin, imposed "
                          "motions of the slave substructure and rigid master motion are all at "
                          "rest): give the sliding sign chi",
                          cname, t_eval);
    return TVDS_OK;
nomem:
    return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory (%d DoFs)", N);
}

int tvds_cea_slave_abscissa(const tvds_model *m, int contact, int slave, double *sa, tvds_ctx *ctx)
{
    if (!m || !sa || contact < 0 || contact >= m->ncontact)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: bad contact index %d", contact);
    const tvds_contact *ct = &m->contacts[contact];
    if (ct->master_kind == TVDS_MASTER_FACES && slave >= 0 && slave < ct->nslave) {
        *sa = 0.0; /* positions on a face set count from the undeformed placement */
        return TVDS_OK;
    }
    if (ct->master_kind == TVDS_MASTER_RIGID || ct->nmaster < 2 || slave < 0 || slave >= ct->nslave)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s' has no master surface or no slave %d",
                          ct->name ? ct->name : "?", slave);
    const tvds_substructure *ss = m->subs[ct->slave_sub], *ms = m->subs[ct->master_sub];
    int k = tvds_substructure_find_dof(ss, ct->slave_nodes[slave], TVDS_DIR_X);
    if (k < 0) k = tvds_substructure_find_dof(ss, ct->slave_nodes[slave], TVDS_DIR_Y);
    if (k < 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': slave node %ld unknown",
                          ct->name ? ct->name : "?", ct->slave_nodes[slave]);
    double px = ss->dofs[k].xyz[0], py = ss->dofs[k].xyz[1];
    double acc = 0.0, best = INFINITY;
    for (int i = 0; i + 1 < ct->nmaster; i++) {
        int a = tvds_substructure_find_dof(ms, ct->master_nodes[i], TVDS_DIR_X);
        int b = tvds_substructure_find_dof(ms, ct->master_nodes[i + 1], TVDS_DIR_X);
        if (a < 0 || b < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': master node unknown",
                              ct->name ? ct->name : "?");
        double ax = ms->dofs[a].xyz[0], ay = ms->dofs[a].xyz[1];
        double dx = ms->dofs[b].xyz[0] - ax, dy = ms->dofs[b].xyz[1] - ay;
        double len = hypot(dx, dy);
        double u = ((px - ax) * dx + (py - ay) * dy) / (len * len);
        if (u < 0.0) u = 0.0;
        if (u > 1.0) u = 1.0;
        double d = hypot(ax + u * dx - px, ay + u * dy - py);
        if (d < best) {
            best = d;
            *sa = acc + u * len;
        }
        acc += len;
    }
    return TVDS_OK;
}
