/* case_loads.c — the [load] and [constraint] sections into the model. A node set or a face set
 * may stand where a node is accepted: the section becomes one model entry per node (per node
 * and direction for a pressure) here, at set-up, so the time loop sees plain nodal loads and
 * one-term constraints (no allocation, O(entries) per step). Face integrals: Gauss rules exact
 * for the polynomial integrands of every supported face (docs/case-file.md, [load NAME]). */
#include <math.h>
#include <string.h>

#include "core/face_shape_impl.h"
#include "io/case_impl.h"

/* ---- Sets of a substructure ------------------------------------------------------------------ */

/* The nodes of the node set or face set `name` of s (a face set: its distinct nodes in order of
 * first appearance), freshly allocated. *fset: the face set's index, or -1 for a node set.
 * Returns 0, 1 when s has no such set, or -1 when out of memory. */
static int set_nodes(const tvds_substructure *s, const char *name, int *n, long **nodes, int *fset)
{
    *fset = -1;
    int k = tvds_substructure_find_set(s, name);
    if (k >= 0) {
        const tvds_nodeset *ns = &s->sets[k];
        *nodes = tvds_malloc((size_t)(ns->n > 0 ? ns->n : 1) * sizeof **nodes);
        if (!*nodes) return -1;
        memcpy(*nodes, ns->nodes, (size_t)ns->n * sizeof **nodes);
        *n = ns->n;
        return 0;
    }
    k = tvds_substructure_find_faceset(s, name);
    if (k < 0) return 1;
    const tvds_faceset *fs = &s->fsets[k];
    *fset = k;
    int cap = 0;
    for (int f = 0; f < fs->nface; f++)
        cap += fs->nn[f];
    *nodes = tvds_malloc((size_t)(cap > 0 ? cap : 1) * sizeof **nodes);
    if (!*nodes) return -1;
    int m = 0;
    for (int f = 0; f < fs->nface; f++)
        for (int a = 0; a < fs->nn[f]; a++) {
            long id = fs->nodes[(size_t)f * TVDS_FACE_MAX_NODES + a];
            int seen = 0;
            for (int j = 0; j < m && !seen; j++)
                seen = (*nodes)[j] == id;
            if (!seen) (*nodes)[m++] = id;
        }
    *n = m;
    return 0;
}

/* ---- Face integrals -------------------------------------------------------------------------- */

/* Gauss points on the reference face: 3 x 3 on [-1, 1]^2 (exact to degree 5 in each variable:
 * N_a times a component of a1 x a2 of a 9-node face); the 7-point rule on the triangle (exact to
 * degree 5: N_a times a1 x a2 of a 6-node face has degree 4). */
static int gauss_points(int nn, double xi[9][2], double w[9])
{
    if (face_is_tri(nn)) {
        const double r = sqrt(15.0);
        const double a = (6.0 - r) / 21.0, b = (6.0 + r) / 21.0;
        const double wa = (155.0 - r) / 2400.0, wb = (155.0 + r) / 2400.0;
        const double p[7][3] = {{1.0 / 3.0, 1.0 / 3.0, 9.0 / 80.0},
                                {a, a, wa},
                                {1.0 - 2.0 * a, a, wa},
                                {a, 1.0 - 2.0 * a, wa},
                                {b, b, wb},
                                {1.0 - 2.0 * b, b, wb},
                                {b, 1.0 - 2.0 * b, wb}};
        for (int g = 0; g < 7; g++)
            xi[g][0] = p[g][0], xi[g][1] = p[g][1], w[g] = p[g][2];
        return 7;
    }
    const double s = sqrt(0.6), x1[3] = {-s, 0.0, s}, w1[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
    int g = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++, g++)
            xi[g][0] = x1[i], xi[g][1] = x1[j], w[g] = w1[i] * w1[j];
    return 9;
}

/* Over the faces of fs, accumulate into out (rows of the node list `nodes`, n rows of 3):
 * area mode: out[3 a] += integral of N_a dA; normal mode: out[3 a + i] += integral of N_a n_i dA
 * with n the unit normal of the face's node order (a1 x a2). Node coordinates from the DoF table
 * (ux). Returns 0, or the face index + 1 of a face with a node outside the table or a
 * degenerate point (|a1 x a2| = 0). */
static int face_integrals(const tvds_substructure *s, const tvds_faceset *fs, int n,
                          const long *nodes, int normal, double *out)
{
    for (int f = 0; f < fs->nface; f++) {
        int nn = fs->nn[f];
        const long *fn = fs->nodes + (size_t)f * TVDS_FACE_MAX_NODES;
        double P[TVDS_FACE_MAX_NODES][3];
        int row[TVDS_FACE_MAX_NODES];
        for (int a = 0; a < nn; a++) {
            int d = tvds_substructure_find_dof(s, fn[a], TVDS_DIR_X);
            if (d < 0) return f + 1;
            memcpy(P[a], s->dofs[d].xyz, sizeof P[a]);
            row[a] = -1;
            for (int j = 0; j < n && row[a] < 0; j++)
                if (nodes[j] == fn[a]) row[a] = j;
        }
        double xi[9][2], w[9];
        int ng = gauss_points(nn, xi, w);
        for (int g = 0; g < ng; g++) {
            double N[FACE_MAX_NODES], dN[2 * FACE_MAX_NODES], a1[3] = {0, 0, 0}, a2[3] = {0, 0, 0};
            face_shape(nn, xi[g], N, dN);
            for (int a = 0; a < nn; a++)
                for (int i = 0; i < 3; i++) {
                    a1[i] += dN[2 * a] * P[a][i];
                    a2[i] += dN[2 * a + 1] * P[a][i];
                }
            /* a1 x a2 dxi = n dA */
            double c[3] = {a1[1] * a2[2] - a1[2] * a2[1], a1[2] * a2[0] - a1[0] * a2[2],
                           a1[0] * a2[1] - a1[1] * a2[0]};
            double J = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            if (!(J > 0.0)) return f + 1;
            for (int a = 0; a < nn; a++) {
                double *o = out + 3 * (size_t)row[a];
                if (normal)
                    for (int i = 0; i < 3; i++)
                        o[i] += w[g] * N[a] * c[i];
                else
                    o[0] += w[g] * N[a] * J;
            }
        }
    }
    return 0;
}

/* ---- Appending model entries ----------------------------------------------------------------- */

/* f scaled: w f(t) for every kind (the value is linear in amp, offset and the table values);
 * by division when div (an equal split: F / n as the user would write it). */
static int fn_scaled(const tvds_fn *f, double w, int div, tvds_fn *out)
{
    *out = *f;
    out->tab_t = out->tab_v = NULL;
    out->amp = div ? f->amp / w : f->amp * w;
    out->offset = div ? f->offset / w : f->offset * w;
    if (f->ntab > 0) {
        out->tab_t = tvds_malloc((size_t)f->ntab * sizeof(double));
        out->tab_v = tvds_malloc((size_t)f->ntab * sizeof(double));
        if (!out->tab_t || !out->tab_v) {
            tvds_fn_clear(out);
            return TVDS_ERR_NOMEM;
        }
        memcpy(out->tab_t, f->tab_t, (size_t)f->ntab * sizeof(double));
        for (int i = 0; i < f->ntab; i++)
            out->tab_v[i] = div ? f->tab_v[i] / w : f->tab_v[i] * w;
    }
    return TVDS_OK;
}

/* A new load at the end of m->loads (capacity *cap), named after section sec, or NULL. */
static tvds_load *new_load(case_parser *p, tvds_model *m, int sec, int *cap)
{
    if (m->nload == *cap) {
        int nc = *cap ? 2 * *cap : 8;
        tvds_load *nl = tvds_realloc(m->loads, (size_t)nc * sizeof *nl);
        if (!nl) return NULL;
        m->loads = nl;
        *cap = nc;
    }
    tvds_load *l = &m->loads[m->nload];
    memset(l, 0, sizeof *l);
    l->name = tvds_strdup(p->secs[sec].name);
    if (!l->name) return NULL;
    m->nload++; /* counted once it owns something: a failed build frees it */
    return l;
}

static tvds_bilateral *new_constraint(case_parser *p, tvds_model *m, int sec, int nterms, int *cap)
{
    if (m->nbil == *cap) {
        int nc = *cap ? 2 * *cap : 8;
        tvds_bilateral *nb = tvds_realloc(m->bil, (size_t)nc * sizeof *nb);
        if (!nb) return NULL;
        m->bil = nb;
        *cap = nc;
    }
    tvds_bilateral *b = &m->bil[m->nbil];
    memset(b, 0, sizeof *b);
    b->name = tvds_strdup(p->secs[sec].name);
    if (!b->name) return NULL;
    m->nbil++;
    b->terms = tvds_calloc((size_t)nterms, sizeof *b->terms);
    return b->terms ? b : NULL;
}

/* "SUB:SET:DIR" with SET a node set or face set of SUB (not an integer, not "mode")? Then its
 * substructure, node list (allocated), face set (or -1) and direction. Returns 1 when the text
 * names a set, 0 when it is a plain DoF reference, or an error status (< 0 never; the codes are
 * positive: the caller tells them apart by *is_set). */
static int parse_set_ref(case_parser *p, const tvds_model *m, const case_entry *e, const char *key,
                         const char *text, int *is_set, int *sub, int *n, long **nodes, int *fset,
                         int *dir)
{
    char buf[256];
    char *f[4];
    *is_set = 0;
    int rc = case_copy_value(p, e, key, text, buf, sizeof buf);
    if (rc) return rc;
    if (case_split_colon(buf, f) != 3 || case_is_integer_text(f[1]) || !strcmp(f[1], "mode"))
        return TVDS_OK;
    *sub = tvds_model_find_sub(m, f[0]);
    if (*sub < 0)
        return case_err_ent(p, TVDS_ERR_INVALID, e, "%s: unknown substructure '%s'", key, f[0]);
    const tvds_substructure *s = m->subs[*sub];
    *dir = case_dir_from_name(f[2]);
    if (*dir < 0)
        return case_err_ent(p, TVDS_ERR_PARSE, e,
                            "%s: unknown direction '%s' (expected ux, uy, uz, rx, ry or rz)", key,
                            f[2]);
    rc = set_nodes(s, f[1], n, nodes, fset);
    if (rc < 0) return case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
    if (rc > 0)
        return case_err_ent(p, TVDS_ERR_INVALID, e,
                            "%s: '%s' is neither a node number nor a node set or face set of "
                            "substructure '%s'",
                            key, f[1], f[0]);
    if (*n == 0) {
        tvds_free(*nodes);
        *nodes = NULL;
        return case_err_ent(p, TVDS_ERR_INVALID, e, "%s: set '%s' is empty", key, f[1]);
    }
    *is_set = 1;
    return TVDS_OK;
}

/* ---- [load NAME] ----------------------------------------------------------------------------- */

static const char *const split_words[] = {"equal", "area", NULL};

/* pressure = P(t) on faces = SUB:FACESET: f_a = -P integral of N_a n dA, n the face normal of
 * the node order (outward: the side a contact slave comes from), so P > 0 pushes into the body. */
static int build_pressure(case_parser *p, tvds_model *m, int sec, int *cap)
{
    case_entry *ef = case_get(p, sec, "faces");
    if (!ef) return case_missing(p, sec, "faces");
    static const char *const other[] = {"dof", "f", "split", NULL};
    for (int i = 0; other[i]; i++) {
        case_entry *x = case_get(p, sec, other[i]);
        if (x)
            return case_err_ent(p, TVDS_ERR_INVALID, x,
                                "%s does not apply to a pressure load (faces = SUB:FACESET)",
                                other[i]);
    }
    char buf[256];
    char *f[4];
    int rc = case_copy_value(p, ef, "faces", ef->value, buf, sizeof buf);
    if (rc) return rc;
    if (case_split_colon(buf, f) != 2)
        return case_err_ent(p, TVDS_ERR_PARSE, ef, "faces: '%s' is not SUB:FACESET", ef->value);
    int sub = tvds_model_find_sub(m, f[0]);
    if (sub < 0)
        return case_err_ent(p, TVDS_ERR_INVALID, ef, "faces: unknown substructure '%s'", f[0]);
    const tvds_substructure *s = m->subs[sub];
    if (tvds_substructure_find_faceset(s, f[1]) < 0)
        return case_err_ent(p, TVDS_ERR_INVALID, ef,
                            "faces: substructure '%s' has no face set '%s'", f[0], f[1]);
    tvds_fn P = {0};
    if ((rc = case_get_fn(p, sec, "pressure", 1, &P))) return rc;
    int n, fset;
    long *nodes = NULL;
    double *c = NULL;
    if (set_nodes(s, f[1], &n, &nodes, &fset) || !(c = tvds_calloc((size_t)n * 3, sizeof *c))) {
        rc = case_err_ent(p, TVDS_ERR_NOMEM, ef, "out of memory");
        goto done;
    }
    int bad = face_integrals(s, &s->fsets[fset], n, nodes, 1, c);
    if (bad) {
        rc = case_err_ent(p, TVDS_ERR_INVALID, ef,
                          "faces: face %d of set '%s' is degenerate or has a node without "
                          "coordinates",
                          bad, f[1]);
        goto done;
    }
    for (int a = 0; a < n && !rc; a++)
        for (int i = 0; i < 3 && !rc; i++) {
            if (c[3 * a + i] == 0.0) continue; /* a flat face set: the in-plane components */
            int d = tvds_substructure_find_dof(s, nodes[a], TVDS_DIR_X + i);
            if (d < 0) {
                rc = case_err_ent(p, TVDS_ERR_INVALID, ef,
                                  "faces: node %ld of face set '%s' has no DoF %s", nodes[a], f[1],
                                  case_dir_names[TVDS_DIR_X + i]);
                break;
            }
            tvds_load *l = new_load(p, m, sec, cap);
            if (!l || fn_scaled(&P, -c[3 * a + i], 0, &l->fn)) {
                rc = case_err_ent(p, TVDS_ERR_NOMEM, ef, "out of memory");
                break;
            }
            l->sub = sub;
            l->dof = d;
        }
done:
    tvds_free(c);
    tvds_free(nodes);
    tvds_fn_clear(&P);
    return rc;
}

int case_build_load(case_parser *p, tvds_model *m, int sec, int *cap)
{
    if (case_get(p, sec, "pressure")) return build_pressure(p, m, sec, cap);
    case_entry *ef = case_get(p, sec, "faces");
    if (ef) return case_err_ent(p, TVDS_ERR_INVALID, ef, "faces: only with pressure");
    case_entry *e = case_get(p, sec, "dof");
    if (!e) return case_missing(p, sec, "dof");
    int is_set = 0, sub = -1, n = 0, fset = -1, dir = -1;
    long *nodes = NULL;
    int rc = parse_set_ref(p, m, e, "dof", e->value, &is_set, &sub, &n, &nodes, &fset, &dir);
    if (rc) return rc;
    int split = 0;
    case_entry *es = case_get(p, sec, "split");
    if (!is_set) {
        if (es)
            return case_err_ent(p, TVDS_ERR_INVALID, es,
                                "split only applies to a load on a node set or face set");
        tvds_load *l = new_load(p, m, sec, cap);
        if (!l) return case_err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
        if ((rc = case_parse_dof_ref(p, m, e, "dof", e->value, &l->sub, &l->dof))) return rc;
        return case_get_fn(p, sec, "f", 1, &l->fn);
    }
    tvds_fn F = {0};
    double *wt = NULL;
    if ((rc = case_get_enum(p, sec, "split", split_words, &split))) goto done;
    if ((rc = case_get_fn(p, sec, "f", 1, &F))) goto done;
    const tvds_substructure *s = m->subs[sub];
    double area = 0.0;
    if (split == 1) {
        if (fset < 0) {
            rc = case_err_ent(p, TVDS_ERR_INVALID, es,
                              "split = area needs a face set in dof (a node set has no faces)");
            goto done;
        }
        if (!(wt = tvds_calloc((size_t)n * 3, sizeof *wt))) {
            rc = case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
            goto done;
        }
        int bad = face_integrals(s, &s->fsets[fset], n, nodes, 0, wt);
        if (bad) {
            rc = case_err_ent(p, TVDS_ERR_INVALID, e,
                              "dof: face %d of the face set is degenerate or has a node without "
                              "coordinates",
                              bad);
            goto done;
        }
        for (int a = 0; a < n; a++)
            area += wt[3 * a];
    }
    for (int a = 0; a < n; a++) {
        int d = tvds_substructure_find_dof(s, nodes[a], dir);
        if (d < 0) {
            rc = case_err_ent(p, TVDS_ERR_INVALID, e, "dof: node %ld of the set has no DoF %s",
                              nodes[a], case_dir_names[dir]);
            break;
        }
        tvds_load *l = new_load(p, m, sec, cap);
        if (!l || (split == 1 ? fn_scaled(&F, wt[3 * a] / area, 0, &l->fn)
                              : fn_scaled(&F, (double)n, 1, &l->fn))) {
            rc = case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
            break;
        }
        l->sub = sub;
        l->dof = d;
    }
done:
    tvds_free(wt);
    tvds_free(nodes);
    tvds_fn_clear(&F);
    return rc;
}

/* ---- [constraint NAME] ----------------------------------------------------------------------- */

/* terms = SUB:SET:DIR[*COEF] (one term): the imposed motion coef u = value(t) at every node of
 * the set, one constraint each. */
static int build_set_constraint(case_parser *p, tvds_model *m, int sec, const case_entry *e,
                                const char *tok, double coef, int *cap)
{
    int is_set, sub, n, fset, dir;
    long *nodes = NULL;
    int rc = parse_set_ref(p, m, e, "terms", tok, &is_set, &sub, &n, &nodes, &fset, &dir);
    if (rc) return rc;
    tvds_fn V = {0};
    if ((rc = case_get_fn(p, sec, "value", 0, &V))) goto done;
    const tvds_substructure *s = m->subs[sub];
    for (int a = 0; a < n; a++) {
        int d = tvds_substructure_find_dof(s, nodes[a], dir);
        if (d < 0) {
            rc = case_err_ent(p, TVDS_ERR_INVALID, e, "terms: node %ld of the set has no DoF %s",
                              nodes[a], case_dir_names[dir]);
            break;
        }
        tvds_bilateral *b = new_constraint(p, m, sec, 1, cap);
        if (!b || fn_scaled(&V, 1.0, 0, &b->value)) {
            rc = case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
            break;
        }
        b->nterms = 1;
        b->terms[0].sub = sub;
        b->terms[0].dof = d;
        b->terms[0].coef = coef;
    }
done:
    tvds_fn_clear(&V);
    tvds_free(nodes);
    return rc;
}

int case_build_constraint(case_parser *p, tvds_model *m, int sec, int *cap)
{
    int rc;
    case_entry *e = case_get(p, sec, "terms");
    if (!e) return case_missing(p, sec, "terms");
    size_t len = strlen(e->value);
    char *buf = tvds_malloc(len + 1);
    char **tok = tvds_malloc((len / 2 + 2) * sizeof *tok);
    if (!buf || !tok) {
        tvds_free(buf);
        tvds_free(tok);
        return case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
    }
    memcpy(buf, e->value, len + 1);
    int nt = case_split_ws(buf, tok, (int)(len / 2 + 1));
    double *coef = tvds_malloc((size_t)(nt > 0 ? nt : 1) * sizeof *coef);
    rc = coef ? TVDS_OK : case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
    if (!rc && nt == 0) rc = case_err_ent(p, TVDS_ERR_PARSE, e, "terms: empty");
    /* Coefficients first, then which terms name sets. */
    int nset = 0;
    for (int i = 0; !rc && i < nt; i++) {
        coef[i] = 1.0;
        char *star = strchr(tok[i], '*');
        if (star) {
            *star = '\0';
            if (!case_parse_double(star + 1, &coef[i]) || coef[i] == 0.0) {
                rc = case_err_ent(p, TVDS_ERR_PARSE, e,
                                  "terms: coefficient '%s' is not a finite nonzero number",
                                  star + 1);
                break;
            }
        }
        char tb[256];
        char *f[4];
        if ((rc = case_copy_value(p, e, "terms", tok[i], tb, sizeof tb))) break;
        if (case_split_colon(tb, f) == 3 && !case_is_integer_text(f[1]) && strcmp(f[1], "mode"))
            nset++;
    }
    if (!rc && nset > 0 && nt > 1)
        rc = case_err_ent(p, TVDS_ERR_INVALID, e,
                          "terms: a node set or face set is an imposed motion of each of its "
                          "nodes: give it as the only term");
    if (!rc && nset > 0) rc = build_set_constraint(p, m, sec, e, tok[0], coef[0], cap);
    if (!rc && nset == 0) {
        tvds_bilateral *b = new_constraint(p, m, sec, nt, cap);
        if (!b) rc = case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
        for (int i = 0; !rc && i < nt; i++) {
            tvds_term *t = &b->terms[i];
            t->coef = coef[i];
            if ((rc = case_parse_dof_ref(p, m, e, "terms", tok[i], &t->sub, &t->dof))) break;
            for (int j = 0; j < i; j++)
                if (b->terms[j].sub == t->sub && b->terms[j].dof == t->dof) {
                    rc = case_err_ent(p, TVDS_ERR_INVALID, e, "terms: DoF '%s' appears twice",
                                      tok[i]);
                    break;
                }
            b->nterms = i + 1;
        }
        if (!rc) rc = case_get_fn(p, sec, "value", 0, &b->value);
    }
    tvds_free(coef);
    tvds_free(buf);
    tvds_free(tok);
    return rc;
}
