/* case_print.c — model summary for `tvds check` and substructure frequency ranges. */
#include "tvds/tvds_case.h"
#include "tvds/tvds_sim.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

static const double TWO_PI_C = 6.283185307179586476925286766559;

int tvds_substructure_freq_range(const tvds_substructure *s, double *fmin_hz, double *fmax_hz,
                                 tvds_ctx *ctx)
{
    if (!s || s->n <= 0 || !s->M || !s->K)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "frequency range: empty substructure");
    size_t nn = (size_t)s->n * (size_t)s->n;
    double *A = tvds_malloc(nn * sizeof *A), *B = tvds_malloc(nn * sizeof *B);
    double *w = tvds_malloc((size_t)s->n * sizeof *w);
    if (!A || !B || !w) {
        tvds_free(A);
        tvds_free(B);
        tvds_free(w);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    memcpy(A, s->K, nn * sizeof *A);
    memcpy(B, s->M, nn * sizeof *B);
    lapack_int info = LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'N', 'U', s->n, A, s->n, B, s->n, w);
    int rc = TVDS_OK;
    if (info > s->n)
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                        "substructure '%s': mass matrix is not positive definite",
                        s->name ? s->name : "?");
    else if (info != 0)
        rc = TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "substructure '%s': dsygvd failed (info %d)",
                        s->name ? s->name : "?", (int)info);
    if (!rc) {
        /* Eigenvalues ascending; tiny negative ones are rigid-body modes in round-off. */
        double lo = w[0] > 0 ? w[0] : 0.0, hi = w[s->n - 1] > 0 ? w[s->n - 1] : 0.0;
        if (fmin_hz) *fmin_hz = sqrt(lo) / TWO_PI_C;
        if (fmax_hz) *fmax_hz = sqrt(hi) / TWO_PI_C;
    }
    tvds_free(A);
    tvds_free(B);
    tvds_free(w);
    return rc;
}

static const char *dir_name(int d)
{
    static const char *const names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
    return d >= 0 && d < 6 ? names[d] : "?";
}

static void print_dof(const tvds_model *m, int sub, int dof, FILE *out)
{
    const tvds_substructure *s = m->subs[sub];
    const tvds_dof *d = &s->dofs[dof];
    if (d->kind == TVDS_DOF_MODAL)
        fprintf(out, "%s:mode:%ld", s->name, d->node);
    else
        fprintf(out, "%s:%ld:%s", s->name, d->node, dir_name(d->dir));
}

static void print_fn(const tvds_fn *f, FILE *out)
{
    char buf[160];
    int n = tvds_fn_format(f, buf, sizeof buf);
    fprintf(out, "%s%s", buf, n >= (int)sizeof buf ? "..." : "");
}

int tvds_model_print(const tvds_model *m, FILE *out, tvds_ctx *ctx)
{
    if (!m || !out) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_model_print: NULL argument");
    const tvds_options *o = &m->opt;
    int rc = TVDS_OK;
    fprintf(out, "case        %s", m->name ? m->name : "?");
    if (m->case_path) fprintf(out, "  (%s)", m->case_path);
    fprintf(out, "\n");
    fprintf(out, "method      %s\n",
            tvds_method_name(o->method) ? tvds_method_name(o->method) : "?");
    fprintf(out, "t_end       %.6g s   out_dt %.6g s%s\n", o->t_end, o->out_dt,
            o->out_dt == 0 ? " (every step)" : "");
    if (o->win_t1 > o->win_t0) fprintf(out, "window      %.6g .. %.6g s\n", o->win_t0, o->win_t1);
    fprintf(out, "path        %s\n",
            o->modal == TVDS_PATH_AUTO ? "auto"
            : o->modal                 ? "modal"
                                       : "physical");
    if (o->integrator == TVDS_INTEGRATOR_EXACT)
        fprintf(out, "integrator  exact modal propagation, f_band %.6g Hz\n", o->f_band);
    if (o->search == TVDS_SEARCH_SCAN)
        fprintf(out, "search      scan (the whole master surface every step)\n");
    if (o->reuse_off) fprintf(out, "reuse       off (every kept quantity rebuilt every step)\n");

    fprintf(out, "\nsubstructures (%d)\n", m->nsub);
    double fmax_all = 0.0;
    for (int i = 0; i < m->nsub; i++) {
        const tvds_substructure *s = m->subs[i];
        int nphys = 0, nmodal = 0;
        for (int k = 0; k < s->n; k++) {
            if (s->dofs[k].kind == TVDS_DOF_MODAL)
                nmodal++;
            else
                nphys++;
        }
        double fmin = 0, fmax = 0;
        int frc = tvds_substructure_freq_range(s, &fmin, &fmax, ctx);
        if (frc && !rc) rc = frc;
        static const char *const dk[] = {"none", "rayleigh", "matrix"};
        const tvds_damping *d = m->damping ? &m->damping[i] : NULL;
        fprintf(out, "  %-12s %4d DoFs (%d physical, %d modal)  sets %d  recovery %d  path %s",
                s->name, s->n, nphys, nmodal, s->nsets, s->nrec, tvds_substructure_path(m, i));
        if (!frc)
            fprintf(out, "  f = %.6g .. %.6g Hz", fmin, fmax);
        else
            fprintf(out, "  f = (failed)");
        if (d) {
            fprintf(out, "  damping %s", d->kind >= 0 && d->kind < 3 ? dk[d->kind] : "?");
            if (d->kind == TVDS_DAMP_RAYLEIGH)
                fprintf(out, " alpha %g beta %g (alpha0 %g beta0 %g hold %g ramp %g)", d->alpha,
                        d->beta, d->alpha0, d->beta0, d->t_hold, d->t_ramp);
        }
        fprintf(out, "\n");
        if (fmax > fmax_all) fmax_all = fmax;
    }

    if (m->ncontact) fprintf(out, "\ncontacts (%d)\n", m->ncontact);
    for (int i = 0; i < m->ncontact; i++) {
        const tvds_contact *c = &m->contacts[i];
        fprintf(out, "  %-12s %dD  %d slave node(s) of %s  against ", c->name, c->dim, c->nslave,
                m->subs[c->slave_sub]->name);
        if (c->master_kind == TVDS_MASTER_RIGID)
            fprintf(out, "rigid (normal %g %g %g)", c->rigid_normal[0], c->rigid_normal[1],
                    c->rigid_normal[2]);
        else if (c->master_kind == TVDS_MASTER_DISC)
            fprintf(out, "rotating disc (centre %g %g %g, axis %g %g %g)", c->rigid_point[0],
                    c->rigid_point[1], c->rigid_point[2], c->rigid_normal[0], c->rigid_normal[1],
                    c->rigid_normal[2]);
        else if (c->master_kind == TVDS_MASTER_FACES)
            fprintf(out, "%d faces (%d nodes) of %s", c->nface, c->nmaster,
                    m->subs[c->master_sub]->name);
        else if (c->master_kind == TVDS_MASTER_FACES_ROT)
            fprintf(out, "%d faces (%d nodes) of %s turning about (%g %g %g) + s (%g %g %g)",
                    c->nface, c->nmaster, m->subs[c->master_sub]->name, c->rigid_point[0],
                    c->rigid_point[1], c->rigid_point[2], c->rigid_normal[0], c->rigid_normal[1],
                    c->rigid_normal[2]);
        else
            fprintf(out, "%d master nodes of %s (%s)", c->nmaster, m->subs[c->master_sub]->name,
                    c->master_kind == TVDS_MASTER_SURFACE_C1 ? "C1 Hermite" : "C0 segments");
        fprintf(out, "  mu_s %g mu_k %g", c->mu_s, c->mu_k);
        if (c->anisotropic) fprintf(out, " (axes %g %g)", c->mu_axis[0], c->mu_axis[1]);
        fprintf(out, "  %s\n", c->law == TVDS_LAW_PENALTY ? "penalty" : "lagrange");
    }
    if (m->nbil) fprintf(out, "\nconstraints (%d)\n", m->nbil);
    for (int i = 0; i < m->nbil; i++) {
        const tvds_bilateral *b = &m->bil[i];
        fprintf(out, "  %-12s", b->name);
        for (int k = 0; k < b->nterms; k++) {
            fprintf(out, " %s%g*", k ? "+ " : "", b->terms[k].coef);
            print_dof(m, b->terms[k].sub, b->terms[k].dof, out);
        }
        fprintf(out, " = ");
        print_fn(&b->value, out);
        fprintf(out, "\n");
    }
    if (m->nload) fprintf(out, "\nloads (%d)\n", m->nload);
    for (int i = 0; i < m->nload; i++) {
        fprintf(out, "  %-12s ", m->loads[i].name);
        print_dof(m, m->loads[i].sub, m->loads[i].dof, out);
        fprintf(out, "  f = ");
        print_fn(&m->loads[i].fn, out);
        fprintf(out, " N\n");
    }
    if (m->gravity[0] != 0 || m->gravity[1] != 0 || m->gravity[2] != 0) {
        fprintf(out, "\ngravity     %g %g %g m/s^2 x ", m->gravity[0], m->gravity[1],
                m->gravity[2]);
        print_fn(&m->gravity_fn, out);
        fprintf(out, "\n");
    }
    if (m->has_base_acc) {
        fprintf(out, "\nbase        dir %g %g %g  acc ", m->base_dir[0], m->base_dir[1],
                m->base_dir[2]);
        print_fn(&m->base_acc, out);
        fprintf(out, " m/s^2\n");
    }
    if (m->nel) fprintf(out, "\nelements (%d)\n", m->nel);
    for (int i = 0; i < m->nel; i++) {
        static const char *const ek[] = {"spring", "damper", "elastic_friction"};
        const tvds_element *e = &m->elements[i];
        fprintf(out, "  %-12s %s ", e->name, e->kind >= 0 && e->kind < 3 ? ek[e->kind] : "?");
        print_dof(m, e->sub[0], e->dof[0], out);
        fprintf(out, " - ");
        if (e->sub[1] < 0)
            fprintf(out, "ground");
        else
            print_dof(m, e->sub[1], e->dof[1], out);
        fprintf(out, "  k %g N/m  b %g N s/m\n", e->k, e->b);
    }
    if (m->nic) fprintf(out, "\ninitial conditions on %d DoF(s)\n", m->nic);
    if (m->nprobe) fprintf(out, "\nprobes (%d)\n", m->nprobe);
    for (int i = 0; i < m->nprobe; i++) {
        const tvds_probe *p = &m->probes[i];
        fprintf(out, "  %-12s %c of ", p->name, "uva"[p->kind >= 0 && p->kind < 3 ? p->kind : 0]);
        if (p->dof >= 0)
            print_dof(m, p->sub, p->dof, out);
        else
            fprintf(out, "%s:%s", m->subs[p->sub]->name, m->subs[p->sub]->rec[p->rec].name);
        fprintf(out, "\n");
    }

    /* Step and validation: exactly what a run does before its first step (tvds_data_create:
     * every check, the stable step of substructures and penalty contacts, the step count), so
     * that check passes what run accepts and nothing else. */
    fprintf(out, "\ntime step\n");
    tvds_data *d = NULL;
    tvds_ctx dctx;
    tvds_ctx_init(&dctx);
    int drc = rc ? TVDS_OK : tvds_data_create(m, &d, &dctx);
    if (!rc && !drc) {
        double dt_crit = tvds_data_stable_dt(d), dt = tvds_data_dt(d);
        if (isfinite(dt_crit))
            fprintf(out, "  stable dt   %.6g s%s\n", dt_crit,
                    o->integrator == TVDS_INTEGRATOR_EXACT
                        ? " (exact modal propagation: band step and explicit terms)"
                        : "");
        else
            fprintf(out, "  stable dt   unbounded (no stiffness)\n");
        if (o->dt_auto)
            fprintf(out, "  chosen dt   %.6g s (auto, safety %g)", dt, o->dt_safety);
        else
            fprintf(out, "  chosen dt   %.6g s (given)%s", dt,
                    dt > dt_crit ? "  ABOVE the stable step (allowed)" : "");
        fprintf(out, "  steps %.0f\n", ceil(o->t_end / dt));
    } else if (!rc) {
        fprintf(out, "  (not set up: see the error)\n");
        /* Input errors the engine finds name the case, as tvds run does. */
        const char *cp = m->case_path;
        if (tvds_status_exit_code(drc) == 2 && cp && strncmp(dctx.msg, cp, strlen(cp)) != 0)
            rc = tvds_error_at(ctx, drc, dctx.src_file, dctx.src_line, "%s: %s", cp, dctx.msg);
        else
            rc = tvds_error_at(ctx, drc, dctx.src_file, dctx.src_line, "%s", dctx.msg);
    }
    tvds_data_free(&d);
    return rc;
}
