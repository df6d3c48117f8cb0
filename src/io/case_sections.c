/* case_sections.c — case-file sections into the model: run, substructure, element, initial,
 * probe (constraints and loads are in case_loads.c, the contact sections in case_contact.c). */
#include <math.h>
#include <string.h>

#include "io/case_impl.h"

/* ---- Sections into the model ---------------------------------------------------------------- */

static const char *const method_words[] = {"subs-a", "subs-b", "subs-c", "film", NULL};
static const char *const path_words[] = {"physical", "modal", "auto", NULL};
static const char *const nonconv_words[] = {"warn", "error", NULL};
static const char *const integrator_words[] = {"central", "exact", NULL};
static const char *const search_words[] = {"walk", "scan", NULL}; /* enum tvds_search */
static const char *const reuse_words[] = {"on", "off", NULL};     /* tvds_options.reuse_off */
static const char *const yesno_dummy[] = {NULL};

int case_build_run(case_parser *p, tvds_model *m, const char *default_name)
{
    int sec = case_find_section(p, "run", NULL);
    if (sec < 0)
        return case_err_line(p, TVDS_ERR_PARSE, p->lineno,
                             "missing section [run] (t_end is required)");
    tvds_options *o = &m->opt;
    int rc;
    case_entry *e = case_get(p, sec, "name");
    if (e && !case_valid_name(e->value))
        return case_err_ent(p, TVDS_ERR_PARSE, e,
                            "name '%s' may only use letters, digits, '_' and '-'", e->value);
    m->name = tvds_strdup(e ? e->value : default_name);
    if (!m->name) return case_err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    if ((rc = case_get_enum(p, sec, "method", method_words, &o->method))) return rc;
    e = case_get(p, sec, "dt");
    if (e && strcmp(e->value, "auto") == 0) {
        o->dt_auto = 1;
    } else if (e) {
        if ((rc = case_get_num(p, sec, "dt", 1, &o->dt, 0.0, 1, HUGE_VAL))) return rc;
        o->dt_auto = 0;
    }
    if ((rc = case_get_num(p, sec, "dt_safety", 0, &o->dt_safety, 0.0, 1, 1.0))) return rc;
    if ((rc = case_get_bool(p, sec, "allow_unstable_dt", &o->allow_unstable_dt))) return rc;
    if ((rc = case_get_num(p, sec, "t_end", 1, &o->t_end, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = case_get_num(p, sec, "out_dt", 0, &o->out_dt, 0.0, 0, HUGE_VAL))) return rc;
    double w[2];
    int given;
    if ((rc = case_get_vec(p, sec, "window", 2, w, &given))) return rc;
    if (given) {
        e = case_get(p, sec, "window");
        if (!(w[1] > w[0]) || w[0] < 0)
            return case_err_ent(p, TVDS_ERR_INVALID, e, "window: need 0 <= T0 < T1 (got %g %g)",
                                w[0], w[1]);
        if (w[1] > o->t_end * (1 + 1e-12))
            return case_err_ent(p, TVDS_ERR_INVALID, e, "window: T1 = %g is after t_end = %g", w[1],
                                o->t_end);
        o->win_t0 = w[0];
        o->win_t1 = w[1];
    }
    if ((rc = case_get_num(p, sec, "film_tol", 0, &o->film_tol, 0.0, 1, 1.0))) return rc;
    if ((rc = case_get_int(p, sec, "film_maxit", &o->film_maxit, 1, 1000000))) return rc;
    if ((rc = case_get_num(p, sec, "v_stick", 0, &o->v_stick, 0.0, 0, HUGE_VAL))) return rc;
    if ((rc = case_get_enum(p, sec, "path", path_words, &o->modal))) return rc;
    if ((rc = case_get_enum(p, sec, "nonconverged", nonconv_words, &o->nonconverged_error)))
        return rc;
    {
        double ms = (double)o->max_steps;
        if ((rc = case_get_num(p, sec, "max_steps", 0, &ms, 0.0, 0, 1e18))) return rc;
        if (ms != floor(ms))
            return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "max_steps"),
                                "max_steps = %g: need a whole number (0: no limit)", ms);
        o->max_steps = (long)ms;
    }
    if ((rc = case_get_enum(p, sec, "integrator", integrator_words, &o->integrator))) return rc;
    if ((rc = case_get_num(p, sec, "f_band", 0, &o->f_band, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = case_get_enum(p, sec, "search", search_words, &o->search))) return rc;
    if ((rc = case_get_enum(p, sec, "reuse", reuse_words, &o->reuse_off))) return rc;
    if (!o->dt_auto && o->dt > o->t_end)
        return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "dt"),
                            "dt = %g is longer than t_end = %g", o->dt, o->t_end);
    (void)yesno_dummy;
    return TVDS_OK;
}

static const char *const damping_words[] = {"none", "rayleigh", "matrix", NULL};

int case_build_substructures(case_parser *p, tvds_model *m)
{
    int n = case_count_type(p, "substructure");
    if (n == 0)
        return case_err_line(p, TVDS_ERR_PARSE, p->lineno > 0 ? p->lineno : 1,
                             "no [substructure NAME] section");
    m->subs = tvds_calloc((size_t)n, sizeof *m->subs);
    m->damping = tvds_calloc((size_t)n, sizeof *m->damping);
    if (!m->subs || !m->damping) return case_err_line(p, TVDS_ERR_NOMEM, 1, "out of memory");
    for (int sec = 0; sec < p->nsec; sec++) {
        if (strcmp(p->secs[sec].type, "substructure") != 0) continue;
        case_entry *e = case_get(p, sec, "dir");
        if (!e) return case_missing(p, sec, "dir");
        char *dir = case_join_path(p->base_dir, e->value);
        if (!dir) return case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
        tvds_substructure *s = NULL;
        int rc = tvds_substructure_read(dir, p->secs[sec].name, &s, p->ctx);
        tvds_free(dir);
        if (rc) {
            if (!p->failed) p->failed = rc;
            if (p->ctx && p->ctx->status == TVDS_OK)
                case_err_ent(p, rc, e, "dir: cannot read substructure '%s': %s", e->value,
                             tvds_strerror(rc));
            return rc;
        }
        int k = m->nsub++;
        m->subs[k] = s;
        if (!s->name || strcmp(s->name, p->secs[sec].name) != 0) {
            char *nn = tvds_strdup(p->secs[sec].name);
            if (!nn) return case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
            tvds_free(s->name);
            s->name = nn;
        }
        tvds_damping *d = &m->damping[k];
        d->kind = TVDS_DAMP_NONE;
        if ((rc = case_get_enum(p, sec, "damping", damping_words, &d->kind))) return rc;
        static const char *const rk[] = {"alpha", "beta", "alpha0", "beta0", "t_hold", "t_ramp"};
        if (d->kind != TVDS_DAMP_RAYLEIGH)
            for (int i = 0; i < 6; i++) {
                case_entry *x = case_get(p, sec, rk[i]);
                if (x)
                    return case_err_ent(p, TVDS_ERR_INVALID, x,
                                        "%s only applies with damping = rayleigh", rk[i]);
            }
        if (d->kind == TVDS_DAMP_RAYLEIGH) {
            if ((rc = case_get_num(p, sec, "alpha", 0, &d->alpha, 0.0, 0, HUGE_VAL))) return rc;
            if ((rc = case_get_num(p, sec, "beta", 0, &d->beta, 0.0, 0, HUGE_VAL))) return rc;
            d->alpha0 = d->alpha;
            d->beta0 = d->beta;
            if ((rc = case_get_num(p, sec, "alpha0", 0, &d->alpha0, 0.0, 0, HUGE_VAL))) return rc;
            if ((rc = case_get_num(p, sec, "beta0", 0, &d->beta0, 0.0, 0, HUGE_VAL))) return rc;
            if ((rc = case_get_num(p, sec, "t_hold", 0, &d->t_hold, 0.0, 0, HUGE_VAL))) return rc;
            if ((rc = case_get_num(p, sec, "t_ramp", 0, &d->t_ramp, 0.0, 0, HUGE_VAL))) return rc;
        }
        if (d->kind == TVDS_DAMP_MATRIX && !s->C)
            return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "damping"),
                                "damping = matrix but substructure '%s' has no C matrix", s->name);
    }
    return TVDS_OK;
}

static const char *const eltype_words[] = {"spring", "damper", "elastic_friction", NULL};
static const char *const kindF_words[] = {"stick-slip", "continuous", NULL};
static const char *const kindPS_words[] = {"unloaded", "preload-dx", "preload-force", NULL};
static const char *const kindTrans_words[] = {"gevrey", "tanh", NULL};

int case_build_element(case_parser *p, tvds_model *m, int sec, tvds_element *el)
{
    int rc;
    el->name = tvds_strdup(p->secs[sec].name);
    if (!el->name) return case_err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    case_entry *et = case_get(p, sec, "type");
    if (!et) return case_missing(p, sec, "type");
    if ((rc = case_get_enum(p, sec, "type", eltype_words, &el->kind))) return rc;
    case_entry *e1 = case_get(p, sec, "dof1"), *e2 = case_get(p, sec, "dof2");
    if (!e1) return case_missing(p, sec, "dof1");
    if ((rc = case_parse_dof_ref(p, m, e1, "dof1", e1->value, &el->sub[0], &el->dof[0]))) return rc;
    el->sub[1] = -1;
    el->dof[1] = -1;
    if (e2 && strcmp(e2->value, "ground") != 0) {
        if ((rc = case_parse_dof_ref(p, m, e2, "dof2", e2->value, &el->sub[1], &el->dof[1])))
            return rc;
        if (el->sub[1] == el->sub[0] && el->dof[1] == el->dof[0])
            return case_err_ent(p, TVDS_ERR_INVALID, e2, "dof2: same DoF as dof1");
    }
    /* Keys that do not apply to the type are errors: they would be silently ignored. */
    static const char *const ef_only[] = {"kindF",  "Fst",       "Fsl",       "dvL",     "rigid",
                                          "kindPS", "dxSD0",     "Fs0",       "dFfrel",  "eps_dvsl",
                                          "eps_dI", "kindTrans", "eps_sigma", "eps_tau", NULL};
    if (el->kind != TVDS_EL_ELASTIC_FRICTION)
        for (int i = 0; ef_only[i]; i++) {
            case_entry *x = case_get(p, sec, ef_only[i]);
            if (x)
                return case_err_ent(p, TVDS_ERR_INVALID, x,
                                    "%s only applies to type = elastic_friction", ef_only[i]);
        }
    if (el->kind == TVDS_EL_SPRING) {
        case_entry *x = case_get(p, sec, "b");
        if (x) return case_err_ent(p, TVDS_ERR_INVALID, x, "b does not apply to type = spring");
        return case_get_num(p, sec, "k", 1, &el->k, 0.0, 0, HUGE_VAL);
    }
    if (el->kind == TVDS_EL_DAMPER) {
        case_entry *x = case_get(p, sec, "k");
        if (x) return case_err_ent(p, TVDS_ERR_INVALID, x, "k does not apply to type = damper");
        return case_get_num(p, sec, "b", 1, &el->b, 0.0, 0, HUGE_VAL);
    }
    /* elastic_friction */
    if ((rc = case_get_num(p, sec, "k", 1, &el->k, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = case_get_num(p, sec, "b", 0, &el->b, 0.0, 0, HUGE_VAL))) return rc;
    el->kindF = TVDS_EF_STICK_SLIP;
    if ((rc = case_get_enum(p, sec, "kindF", kindF_words, &el->kindF))) return rc;
    if ((rc = case_get_fn(p, sec, "Fsl", 1, &el->Fsl))) return rc;
    if (el->kindF == TVDS_EF_STICK_SLIP) {
        if ((rc = case_get_fn(p, sec, "Fst", 1, &el->Fst))) return rc;
        case_entry *x = case_get(p, sec, "dvL");
        if (x)
            return case_err_ent(p, TVDS_ERR_INVALID, x, "dvL only applies with kindF = continuous");
    } else {
        case_entry *x = case_get(p, sec, "Fst");
        if (x)
            return case_err_ent(p, TVDS_ERR_INVALID, x, "Fst only applies with kindF = stick-slip");
        if ((rc = case_get_num(p, sec, "dvL", 1, &el->dvL, 0.0, 1, HUGE_VAL))) return rc;
    }
    if ((rc = case_get_bool(p, sec, "rigid", &el->rigid))) return rc;
    el->kindPS = TVDS_EF_UNLOADED;
    if ((rc = case_get_enum(p, sec, "kindPS", kindPS_words, &el->kindPS))) return rc;
    case_entry *xd = case_get(p, sec, "dxSD0"), *xf = case_get(p, sec, "Fs0");
    if (xd && el->kindPS != TVDS_EF_PRELOAD_DX)
        return case_err_ent(p, TVDS_ERR_INVALID, xd, "dxSD0 only applies with kindPS = preload-dx");
    if (xf && el->kindPS != TVDS_EF_PRELOAD_FORCE)
        return case_err_ent(p, TVDS_ERR_INVALID, xf,
                            "Fs0 only applies with kindPS = preload-force");
    if ((rc = case_get_num(p, sec, "dxSD0", el->kindPS == TVDS_EF_PRELOAD_DX, &el->dxSD0, -HUGE_VAL,
                           0, HUGE_VAL)))
        return rc;
    if ((rc = case_get_num(p, sec, "Fs0", el->kindPS == TVDS_EF_PRELOAD_FORCE, &el->Fs0, -HUGE_VAL,
                           0, HUGE_VAL)))
        return rc;
    el->dFfrel = 0.01;
    el->eps_dvsl = 1e-6;
    el->eps_dI = 1e-9;
    el->kindTrans = TVDS_EF_GEVREY;
    el->eps_sigma = 0.1;
    el->eps_tau = 0.1;
    if ((rc = case_get_num(p, sec, "dFfrel", 0, &el->dFfrel, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = case_get_num(p, sec, "eps_dvsl", 0, &el->eps_dvsl, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = case_get_num(p, sec, "eps_dI", 0, &el->eps_dI, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = case_get_enum(p, sec, "kindTrans", kindTrans_words, &el->kindTrans))) return rc;
    if ((rc = case_get_num(p, sec, "eps_sigma", 0, &el->eps_sigma, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = case_get_num(p, sec, "eps_tau", 0, &el->eps_tau, 0.0, 1, HUGE_VAL))) return rc;
    return TVDS_OK;
}

/* [initial NAME]: dof = SUB:NODE:DIR or SUB:SET:DIR; appends to m->ics (capacity cap). */
int case_build_initial(case_parser *p, tvds_model *m, int sec, int *cap)
{
    int rc;
    case_entry *e = case_get(p, sec, "dof");
    if (!e) return case_missing(p, sec, "dof");
    double u0 = 0.0, v0 = 0.0;
    if ((rc = case_get_num(p, sec, "u0", 0, &u0, -HUGE_VAL, 0, HUGE_VAL))) return rc;
    if ((rc = case_get_num(p, sec, "v0", 0, &v0, -HUGE_VAL, 0, HUGE_VAL))) return rc;
    char buf[256];
    char *f[4];
    if ((rc = case_copy_value(p, e, "dof", e->value, buf, sizeof buf))) return rc;
    int nf = case_split_colon(buf, f);
    int sub = -1, ndof = 0;
    int dofs_buf[1];
    int *dofs = dofs_buf;
    if (nf == 3 && !case_is_integer_text(f[1]) && strcmp(f[1], "mode") != 0) {
        sub = tvds_model_find_sub(m, f[0]);
        if (sub < 0)
            return case_err_ent(p, TVDS_ERR_INVALID, e, "dof: unknown substructure '%s'", f[0]);
        const tvds_substructure *s = m->subs[sub];
        int k = tvds_substructure_find_set(s, f[1]);
        if (k < 0)
            return case_err_ent(p, TVDS_ERR_INVALID, e,
                                "dof: substructure '%s' has no node set '%s'", f[0], f[1]);
        int dir = case_dir_from_name(f[2]);
        if (dir < 0) return case_err_ent(p, TVDS_ERR_PARSE, e, "dof: unknown direction '%s'", f[2]);
        const tvds_nodeset *ns = &s->sets[k];
        dofs = tvds_malloc((size_t)(ns->n > 0 ? ns->n : 1) * sizeof *dofs);
        if (!dofs) return case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
        for (int i = 0; i < ns->n; i++) {
            int d = tvds_substructure_find_dof(s, ns->nodes[i], dir);
            if (d < 0) {
                tvds_free(dofs);
                return case_err_ent(p, TVDS_ERR_INVALID, e,
                                    "dof: node %ld of set '%s' has no DoF %s", ns->nodes[i], f[1],
                                    case_dir_names[dir]);
            }
            dofs[ndof++] = d;
        }
    } else {
        if ((rc = case_parse_dof_ref(p, m, e, "dof", e->value, &sub, &dofs_buf[0]))) return rc;
        ndof = 1;
    }
    rc = TVDS_OK;
    for (int i = 0; i < ndof && !rc; i++) {
        for (int j = 0; j < m->nic; j++)
            if (m->ics[j].sub == sub && m->ics[j].dof == dofs[i]) {
                rc = case_err_ent(p, TVDS_ERR_INVALID, e,
                                  "dof: DoF %d of '%s' already has initial conditions", dofs[i] + 1,
                                  m->subs[sub]->name);
                break;
            }
        if (rc) break;
        if (m->nic == *cap) {
            int nc = *cap ? 2 * *cap : 16;
            tvds_initial *ni = tvds_realloc(m->ics, (size_t)nc * sizeof *ni);
            if (!ni) {
                rc = case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
                break;
            }
            m->ics = ni;
            *cap = nc;
        }
        tvds_initial *ic = &m->ics[m->nic++];
        ic->sub = sub;
        ic->dof = dofs[i];
        ic->u0 = u0;
        ic->v0 = v0;
    }
    if (dofs != dofs_buf) tvds_free(dofs);
    return rc;
}

static const char *const quantity_words[] = {"u", "v", "a", NULL};

int case_build_probe(case_parser *p, tvds_model *m, int sec, tvds_probe *pr)
{
    int rc;
    pr->name = tvds_strdup(p->secs[sec].name);
    if (!pr->name) return case_err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    pr->kind = TVDS_PROBE_U;
    if ((rc = case_get_enum(p, sec, "quantity", quantity_words, &pr->kind))) return rc;
    case_entry *ed = case_get(p, sec, "dof"), *ep = case_get(p, sec, "point");
    pr->dof = -1;
    pr->rec = -1;
    if (ed && ep)
        return case_err_ent(p, TVDS_ERR_INVALID, ep, "give either dof or point, not both");
    if (!ed && !ep) return case_missing(p, sec, "dof' or 'point");
    if (ed) return case_parse_dof_ref(p, m, ed, "dof", ed->value, &pr->sub, &pr->dof);
    char buf[256];
    char *f[4];
    if ((rc = case_copy_value(p, ep, "point", ep->value, buf, sizeof buf))) return rc;
    if (case_split_colon(buf, f) != 2)
        return case_err_ent(p, TVDS_ERR_PARSE, ep, "point: '%s' is not SUB:RECOVERY", ep->value);
    pr->sub = tvds_model_find_sub(m, f[0]);
    if (pr->sub < 0)
        return case_err_ent(p, TVDS_ERR_INVALID, ep, "point: unknown substructure '%s'", f[0]);
    const tvds_substructure *s = m->subs[pr->sub];
    for (int i = 0; i < s->nrec; i++)
        if (s->rec[i].name && strcmp(s->rec[i].name, f[1]) == 0) pr->rec = i;
    if (pr->rec < 0)
        return case_err_ent(p, TVDS_ERR_INVALID, ep,
                            "point: substructure '%s' has no recovery point '%s'", f[0], f[1]);
    return TVDS_OK;
}
