/* sim_channels.c — names and buffers of the published channels (probes, elements, contacts,
 * energies) and of the summary scalars, sized once at set-up; sim_record.c writes the values. */
#include <stdio.h>
#include <string.h>

#include "engine/elements_impl.h"
#include "engine/sim_impl.h"

/* Per contact point channels. */
static const char *const cc_names[CC_N] = {
    "lambda_n [N]", "lambda_t [N]", "state [-]",     "gap [m]",        "alpha [-]",
    "segment [-]",  "s [m]",        "v_slide [m/s]", "p_friction [W]", "p_wear [W]"};

static const char *const en_names[EN_N] = {"kinetic [J]",
                                           "strain [J]",
                                           "damping dissipation [J]",
                                           "friction dissipation [J]",
                                           "external work [J]",
                                           "element work [J]",
                                           "constraint work [J]",
                                           "balance error [J]",
                                           "element dissipation [J]"};

/* Element result channels (ElasticFriction elements only), TVDS_EL_NRES per element. */
static const char *const el_names[TVDS_EL_NRES] = {".Fi [N]",   ".sf [-]", ".dx [m]",
                                                   ".dv [m/s]", ".Pp [W]", ".Pl [W]"};

static const char *const sm_names[SM_N] = {"steps [-]",
                                           "dt [s]",
                                           "t [s]",
                                           "energy balance error [-]",
                                           "energy max [J]",
                                           "film iterations mean [-]",
                                           "film iterations max [-]",
                                           "active set iterations max [-]",
                                           "active set non-converged steps [-]",
                                           "film non-converged steps [-]",
                                           "redundant constraint solves [-]",
                                           "film direct finishes [-]",
                                           "active set least-index steps [-]",
                                           "energy balance bound [-]",
                                           "energy balance above bound [-]"};

static int n_ef(const tvds_model *m)
{
    int k = 0;
    for (int e = 0; e < m->nel; e++)
        k += m->elements[e].kind == TVDS_EL_ELASTIC_FRICTION;
    return k;
}

static char *dupf(const char *a, const char *b, const char *c)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s%s%s", a, b ? b : "", c ? c : "");
    return tvds_strdup(buf);
}

static const char *cp_prefix(const tvds_model *m, const sim_cp *c, char *buf, size_t n)
{
    const tvds_contact *C = &m->contacts[c->contact];
    const char *nm = C->name ? C->name : "contact";
    if (C->nslave == 1)
        snprintf(buf, n, "%s.", nm);
    else
        snprintf(buf, n, "%s.%ld.", nm, c->node);
    return buf;
}

int sim_channels_create(const tvds_model *m, tvds_data *d)
{
    int cnt[TVDS_GROUP_COUNT];
    cnt[TVDS_GROUP_HISTORY] = 1 + m->nprobe + TVDS_EL_NRES * n_ef(m);
    d->el_ch0 = 1 + m->nprobe;
    cnt[TVDS_GROUP_CONTACTS] = 1 + CC_N * d->ncp;
    cnt[TVDS_GROUP_ENERGY] = 1 + EN_N;
    for (int g = 0; g < TVDS_GROUP_COUNT; g++) {
        d->chname[g] = tvds_calloc((size_t)cnt[g], sizeof(char *));
        d->chval[g] = tvds_calloc((size_t)cnt[g], sizeof(double));
        if (!d->chname[g] || !d->chval[g]) return TVDS_ERR_NOMEM;
        d->nch[g] = cnt[g];
        d->chname[g][0] = tvds_strdup("t [s]");
        if (!d->chname[g][0]) return TVDS_ERR_NOMEM;
    }
    d->nprobe = m->nprobe;
    d->rec_every = 1;
    d->probes_stale = 0;
    d->prow = tvds_calloc((size_t)(m->nprobe > 0 ? m->nprobe : 1), sizeof(double *));
    d->pdot = tvds_calloc((size_t)(m->nprobe > 0 ? 3 * m->nprobe : 1), sizeof(double));
    d->pdotv = tvds_calloc((size_t)(m->nprobe > 0 ? 3 * m->nprobe : 1), sizeof(long));
    d->pone = tvds_calloc((size_t)(m->nprobe > 0 ? m->nprobe : 1), sizeof(int));
    if (!d->prow || !d->pdot || !d->pdotv || !d->pone) return TVDS_ERR_NOMEM;
    for (int p = 0; p < m->nprobe; p++) {
        const tvds_probe *P = &m->probes[p];
        static const char *const units[3] = {" [m]", " [m/s]", " [m/s^2]"};
        int kind = P->kind >= 0 && P->kind <= 2 ? P->kind : 0;
        d->chname[TVDS_GROUP_HISTORY][1 + p] = dupf(P->name ? P->name : "probe", units[kind], NULL);
        if (!d->chname[TVDS_GROUP_HISTORY][1 + p]) return TVDS_ERR_NOMEM;
        if (P->sub < 0 || P->sub >= d->nsub) return TVDS_ERR_INVALID;
        const sim_sub *s = &d->sub[P->sub];
        const tvds_substructure *S = m->subs[P->sub];
        int n = s->n;
        double *row = tvds_calloc((size_t)n, sizeof(double));
        if (!row) return TVDS_ERR_NOMEM;
        d->prow[p] = row;
        if (P->dof >= 0 && P->dof < n) {
            if (s->modal)
                memcpy(row, s->Y + (size_t)P->dof * n, (size_t)n * sizeof(double));
            else
                row[P->dof] = 1.0;
        } else if (P->rec >= 0 && P->rec < S->nrec) {
            const double *rr = S->rec[P->rec].row;
            for (int j = 0; j < n; j++) {
                if (rr[j] == 0.0) continue;
                if (s->modal)
                    for (int k = 0; k < n; k++)
                        row[k] += rr[j] * s->Y[k + (size_t)j * n];
                else
                    row[j] += rr[j];
            }
        } else {
            return TVDS_ERR_INVALID;
        }
        int nz = 0;
        d->pone[p] = -1;
        for (int k = 0; k < n; k++)
            if (row[k] != 0.0) nz++, d->pone[p] = k;
        if (nz != 1) d->pone[p] = -1;
    }
    for (int e = 0, j = 0; e < m->nel; e++) {
        const tvds_element *E = &m->elements[e];
        if (E->kind != TVDS_EL_ELASTIC_FRICTION) continue;
        for (int k = 0; k < TVDS_EL_NRES; k++) {
            char **slot = &d->chname[TVDS_GROUP_HISTORY][d->el_ch0 + TVDS_EL_NRES * j + k];
            *slot = dupf(E->name ? E->name : "element", el_names[k], NULL);
            if (!*slot) return TVDS_ERR_NOMEM;
        }
        j++;
    }
    for (int i = 0; i < d->ncp; i++) {
        char pre[256];
        cp_prefix(m, &d->cp[i], pre, sizeof pre);
        for (int k = 0; k < CC_N; k++) {
            char **slot = &d->chname[TVDS_GROUP_CONTACTS][1 + CC_N * i + k];
            *slot = dupf(pre, cc_names[k], NULL);
            if (!*slot) return TVDS_ERR_NOMEM;
        }
    }
    for (int k = 0; k < EN_N; k++) {
        d->chname[TVDS_GROUP_ENERGY][1 + k] = tvds_strdup(en_names[k]);
        if (!d->chname[TVDS_GROUP_ENERGY][1 + k]) return TVDS_ERR_NOMEM;
    }
    d->nsum = SM_N + 2 * m->ncontact;
    d->sumname = tvds_calloc((size_t)d->nsum, sizeof(char *));
    d->sumval = tvds_calloc((size_t)d->nsum, sizeof(double));
    if (!d->sumname || !d->sumval) return TVDS_ERR_NOMEM;
    for (int k = 0; k < SM_N; k++) {
        d->sumname[k] = tvds_strdup(sm_names[k]);
        if (!d->sumname[k]) return TVDS_ERR_NOMEM;
    }
    for (int c = 0; c < m->ncontact; c++) {
        const char *nm = m->contacts[c].name ? m->contacts[c].name : "contact";
        d->sumname[SM_N + 2 * c] = dupf(nm, ".mean p_friction [W]", NULL);
        d->sumname[SM_N + 2 * c + 1] = dupf(nm, ".mean p_wear [W]", NULL);
        if (!d->sumname[SM_N + 2 * c] || !d->sumname[SM_N + 2 * c + 1]) return TVDS_ERR_NOMEM;
    }
    return TVDS_OK;
}

void sim_channels_free(tvds_data *d)
{
    for (int g = 0; g < TVDS_GROUP_COUNT; g++) {
        if (d->chname[g])
            for (int k = 0; k < d->nch[g]; k++)
                tvds_free(d->chname[g][k]);
        tvds_free(d->chname[g]);
        tvds_free(d->chval[g]);
        d->chname[g] = NULL;
        d->chval[g] = NULL;
    }
    if (d->sumname)
        for (int k = 0; k < d->nsum; k++)
            tvds_free(d->sumname[k]);
    tvds_free(d->sumname);
    tvds_free(d->sumval);
    if (d->prow)
        for (int p = 0; p < d->nprobe; p++)
            tvds_free(d->prow[p]);
    tvds_free(d->prow);
    d->prow = NULL;
    tvds_free(d->pdot);
    tvds_free(d->pone);
    d->pone = NULL;
    tvds_free(d->pdotv);
    d->pdot = NULL;
    d->pdotv = NULL;
}
