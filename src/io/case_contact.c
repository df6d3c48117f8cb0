/* case_contact.c — case-file contact sections into the model: slave, master surface, face set,
 * rigid plane or rotating disc, friction, law, prescribed slave kinematics. */
#include <math.h>
#include <string.h>

#include "io/case_impl.h"

static const char *const law_words[] = {"lagrange", "penalty", NULL};
static const char *const surface_words[] = {"c0", "c1", NULL};

/* master = SUB:FACESET: the contact's faces, with the distinct nodes of the set in
 * master_nodes (order of first appearance) and each face's nodes as indices into them.
 * Returns 1 when the value does not name a face set (then it is a node set or an error), 0
 * when the faces were taken, or an error code. */
static int parse_faces_ref(case_parser *p, const tvds_model *m, const case_entry *e,
                           tvds_contact *c)
{
    char buf[256];
    char *f[4];
    int rc = case_copy_value(p, e, "master", e->value, buf, sizeof buf);
    if (rc) return rc;
    if (case_split_colon(buf, f) != 2) return 1;
    int is = tvds_model_find_sub(m, f[0]);
    if (is < 0) return 1;
    const tvds_substructure *s = m->subs[is];
    int k = tvds_substructure_find_faceset(s, f[1]);
    if (k < 0) return 1;
    const tvds_faceset *fs = &s->fsets[k];
    size_t cap = (size_t)fs->nface * TVDS_FACE_MAX_NODES;
    c->face_nn = tvds_malloc((size_t)fs->nface * sizeof *c->face_nn);
    c->face_node = tvds_malloc(cap * sizeof *c->face_node);
    c->master_nodes = tvds_malloc(cap * sizeof *c->master_nodes);
    if (!c->face_nn || !c->face_node || !c->master_nodes)
        return case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
    c->nface = fs->nface;
    c->nmaster = 0;
    for (int q = 0; q < fs->nface; q++) {
        c->face_nn[q] = fs->nn[q];
        for (int i = 0; i < TVDS_FACE_MAX_NODES; i++) {
            size_t at = (size_t)q * TVDS_FACE_MAX_NODES + i;
            c->face_node[at] = -1;
            if (i >= fs->nn[q]) continue;
            long nd = fs->nodes[at];
            int j = 0;
            while (j < c->nmaster && c->master_nodes[j] != nd)
                j++;
            if (j == c->nmaster) c->master_nodes[c->nmaster++] = nd;
            c->face_node[at] = j;
        }
    }
    c->master_sub = is;
    return 0;
}

/* ---- The master kinds: their syntax in a [contact] section ------------------------------- */

/* A master kind as the case file names it: `master = WORD` (rigid, disc) or a reference
 * SUB:SET (a node set: the 2D surface; a face set: 3D faces); the dimensions it works in (its
 * default first); whether law = penalty applies; and its own parser, called once the keys that
 * belong to other kinds have been refused. A new kind is an entry here, its parser and, when it
 * owns keys, its bit in kind_keys. */
enum { K_SURFACE = 1, K_FACES = 2, K_RIGID = 4, K_DISC = 8, K_FACES_ROT = 16 };

typedef struct master_syntax {
    int bit;
    const char *word;   /* the value of `master` that selects the kind; NULL: a SUB:SET reference */
    const char *form;   /* `master = ...` as messages write it */
    const char *name;   /* how messages name it */
    int dim, dim_other; /* the default dimension, and the other one it accepts (0: none) */
    int penalty;        /* law = penalty applies */
    int (*parse)(case_parser *p, tvds_model *m, int sec, case_entry *em, tvds_contact *c);
} master_syntax;

/* The keys that belong to some master kinds only, with the kinds that take them. */
static const struct {
    const char *key;
    int kinds;
} kind_keys[] = {{"omega", K_DISC | K_FACES_ROT},
                 {"point", K_RIGID | K_DISC | K_FACES_ROT},
                 {"normal", K_RIGID | K_DISC | K_FACES_ROT},
                 {"t1", K_RIGID},
                 {"motion_x", K_RIGID},
                 {"motion_y", K_RIGID},
                 {"motion_z", K_RIGID},
                 {"surface", K_SURFACE}};

/* SUB:NODESET, 2D: straight segments between the nodes, or the C1 curve (surface = c1). */
static int parse_node_surface(case_parser *p, tvds_model *m, int sec, case_entry *em,
                              tvds_contact *c)
{
    int rc =
        case_parse_nodes_ref(p, m, em, "master", &c->master_sub, &c->nmaster, &c->master_nodes);
    if (rc) return rc;
    if (c->nmaster < 2)
        return case_err_ent(p, TVDS_ERR_INVALID, em,
                            "master: a master surface needs a node set of at least 2 nodes");
    if ((rc = case_check_translations(p, m, em, c->master_sub, c->nmaster, c->master_nodes, 2)))
        return rc;
    int smooth = 0;
    if ((rc = case_get_enum(p, sec, "surface", surface_words, &smooth))) return rc;
    c->master_kind = smooth ? TVDS_MASTER_SURFACE_C1 : TVDS_MASTER_SURFACE;
    return TVDS_OK;
}

/* SUB:FACESET, 3D: the faces were taken when the kind was recognised. */
static int parse_face_set(case_parser *p, tvds_model *m, int sec, case_entry *em, tvds_contact *c)
{
    (void)sec;
    c->master_kind = TVDS_MASTER_FACES;
    return case_check_translations(p, m, em, c->master_sub, c->nmaster, c->master_nodes, 3);
}

/* rigid: a line (2D) or plane (3D) through point with normal (unit), tangent t1 (given, or
 * n x e_z, or e_x projected when n is along z) and the prescribed motion of the point. */
static int parse_rigid(case_parser *p, tvds_model *m, int sec, case_entry *em, tvds_contact *c)
{
    (void)m;
    (void)em;
    int rc, given;
    c->master_kind = TVDS_MASTER_RIGID;
    c->master_sub = -1;
    if ((rc = case_get_vec(p, sec, "point", 3, c->rigid_point, &given))) return rc;
    if ((rc = case_get_vec(p, sec, "normal", 3, c->rigid_normal, &given))) return rc;
    if (!given) return case_missing(p, sec, "normal");
    case_entry *en = case_get(p, sec, "normal");
    double *nv = c->rigid_normal;
    if (nv[0] == 0 && nv[1] == 0 && nv[2] == 0)
        return case_err_ent(p, TVDS_ERR_INVALID, en, "normal: zero vector");
    if (c->dim == 2 && nv[2] != 0)
        return case_err_ent(p, TVDS_ERR_INVALID, en,
                            "normal: a 2D contact works in the x-y plane (z component must be 0)");
    case_normalize3(nv);
    double *t1 = c->rigid_t1;
    if ((rc = case_get_vec(p, sec, "t1", 3, t1, &given))) return rc;
    if (given) {
        case_entry *et = case_get(p, sec, "t1");
        if (t1[0] == 0 && t1[1] == 0 && t1[2] == 0)
            return case_err_ent(p, TVDS_ERR_INVALID, et, "t1: zero vector");
        case_normalize3(t1);
        double dot = t1[0] * nv[0] + t1[1] * nv[1] + t1[2] * nv[2];
        if (fabs(dot) > 1e-9)
            return case_err_ent(p, TVDS_ERR_INVALID, et,
                                "t1 is not perpendicular to the normal (cosine %g)", dot);
    } else {
        t1[0] = nv[1];
        t1[1] = -nv[0];
        t1[2] = 0.0;
        if (hypot(t1[0], t1[1]) < 1e-6) {
            t1[0] = 1.0 - nv[0] * nv[0];
            t1[1] = -nv[0] * nv[1];
            t1[2] = -nv[0] * nv[2];
        }
        case_normalize3(t1);
    }
    static const char *const mk[3] = {"motion_x", "motion_y", "motion_z"};
    for (int k = 0; k < 3; k++)
        if ((rc = case_get_fn(p, sec, mk[k], 0, &c->rigid_motion[k]))) return rc;
    return TVDS_OK;
}

/* disc: a rigid disc face turning about the axis (point, normal) with omega(t); its frame and
 * motion follow from the axis and omega. */
static int parse_disc(case_parser *p, tvds_model *m, int sec, case_entry *em, tvds_contact *c)
{
    int rc = case_get_fn(p, sec, "omega", 1, &c->omega);
    if (rc) return rc;
    if ((rc = parse_rigid(p, m, sec, em, c))) return rc;
    c->master_kind = TVDS_MASTER_DISC;
    return TVDS_OK;
}

/* SUB:FACESET with omega: the face set turns with its substructure about the axis through
 * point (default the origin) along normal (right-handed with omega). */
static int parse_face_set_rot(case_parser *p, tvds_model *m, int sec, case_entry *em,
                              tvds_contact *c)
{
    int rc = case_check_translations(p, m, em, c->master_sub, c->nmaster, c->master_nodes, 3);
    if (rc) return rc;
    if ((rc = case_get_fn(p, sec, "omega", 1, &c->omega))) return rc;
    int given;
    if ((rc = case_get_vec(p, sec, "point", 3, c->rigid_point, &given))) return rc;
    if ((rc = case_get_vec(p, sec, "normal", 3, c->rigid_normal, &given))) return rc;
    if (!given) return case_missing(p, sec, "normal");
    double *nv = c->rigid_normal;
    if (nv[0] == 0 && nv[1] == 0 && nv[2] == 0)
        return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "normal"),
                            "normal: zero vector (the axis the face set turns about)");
    case_normalize3(nv);
    c->master_kind = TVDS_MASTER_FACES_ROT;
    return TVDS_OK;
}

static const master_syntax master_kinds[] = {
    {K_SURFACE, NULL, "SUB:NODESET (2D)", "a node-set master surface", 2, 0, 1, parse_node_surface},
    {K_FACES, NULL, "SUB:FACESET", "a face set", 3, 0, 0, parse_face_set},
    {K_RIGID, "rigid", "rigid", "a rigid master", 3, 2, 1, parse_rigid},
    {K_DISC, "disc", "disc", "a rotating disc", 3, 0, 0, parse_disc},
    {K_FACES_ROT, NULL, "SUB:FACESET with omega", "a turning face set", 3, 0, 0,
     parse_face_set_rot},
};
#define NKINDS ((int)(sizeof master_kinds / sizeof master_kinds[0]))

static const master_syntax *kind_of_bit(int bit)
{
    for (int i = 0; i < NKINDS; i++)
        if (master_kinds[i].bit == bit) return &master_kinds[i];
    return NULL;
}

/* The kind `master = VALUE` names: a word of the table, a face set (taken into c; turning
 * when the section gives omega), or a node set. NULL with *rc set on an error. */
static const master_syntax *master_kind(case_parser *p, const tvds_model *m, int sec,
                                        case_entry *em, tvds_contact *c, int *rc)
{
    *rc = TVDS_OK;
    for (int i = 0; i < NKINDS; i++)
        if (master_kinds[i].word && strcmp(em->value, master_kinds[i].word) == 0)
            return &master_kinds[i];
    int r = parse_faces_ref(p, m, em, c);
    if (r < 0) {
        *rc = r;
        return NULL;
    }
    if (r == 0) return kind_of_bit(case_get(p, sec, "omega") ? K_FACES_ROT : K_FACES);
    return kind_of_bit(K_SURFACE);
}

/* "KEY only applies with master = rigid or disc" for a key of other kinds than k. */
static int refuse_other_keys(case_parser *p, int sec, const master_syntax *k)
{
    for (size_t i = 0; i < sizeof kind_keys / sizeof kind_keys[0]; i++) {
        case_entry *x = case_get(p, sec, kind_keys[i].key);
        if (!x || (kind_keys[i].kinds & k->bit)) continue;
        char owners[160] = "";
        for (int j = 0; j < NKINDS; j++) {
            if (!(kind_keys[i].kinds & master_kinds[j].bit)) continue;
            size_t l = strlen(owners);
            snprintf(owners + l, sizeof owners - l, "%s%s", l ? " or " : "", master_kinds[j].form);
        }
        return case_err_ent(p, TVDS_ERR_INVALID, x, "%s only applies with master = %s (not %s)",
                            kind_keys[i].key, owners, k->name);
    }
    return TVDS_OK;
}

/* The master of a [contact] section: its kind, the dimension, the kind's own keys. */
static int parse_master(case_parser *p, tvds_model *m, int sec, case_entry *em, tvds_contact *c,
                        const master_syntax **kind)
{
    int rc;
    const master_syntax *k = master_kind(p, m, sec, em, c, &rc);
    if (!k) return rc;
    *kind = k;
    c->dim = k->dim;
    if ((rc = case_get_int(p, sec, "dim", &c->dim, 2, 3))) return rc;
    if (c->dim != k->dim && c->dim != k->dim_other)
        return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "dim"),
                            "dim: %s is a %dD master (dim = %d)", k->name, k->dim, k->dim);
    if ((rc = refuse_other_keys(p, sec, k))) return rc;
    if ((rc = k->parse(p, m, sec, em, c))) return rc;
    if (c->master_sub >= 0 && c->master_sub == c->slave_sub)
        return case_err_ent(p, TVDS_ERR_INVALID, em,
                            "master: slave and master are in the same substructure '%s'",
                            m->subs[c->slave_sub]->name);
    return TVDS_OK;
}

int case_build_contact(case_parser *p, tvds_model *m, int sec, tvds_contact *c)
{
    int rc;
    c->name = tvds_strdup(p->secs[sec].name);
    if (!c->name) return case_err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    case_entry *es = case_get(p, sec, "slave"), *em = case_get(p, sec, "master");
    if (!es) return case_missing(p, sec, "slave");
    if (!em) return case_missing(p, sec, "master");
    if ((rc = case_parse_nodes_ref(p, m, es, "slave", &c->slave_sub, &c->nslave, &c->slave_nodes)))
        return rc;
    const master_syntax *kind = NULL;
    if ((rc = parse_master(p, m, sec, em, c, &kind))) return rc;
    if ((rc = case_check_translations(p, m, es, c->slave_sub, c->nslave, c->slave_nodes, c->dim)))
        return rc;
    /* Friction */
    case_entry *emu = case_get(p, sec, "mu"), *ems = case_get(p, sec, "mu_s"),
               *emk = case_get(p, sec, "mu_k");
    if (emu && (ems || emk))
        return case_err_ent(p, TVDS_ERR_INVALID, ems ? ems : emk,
                            "give either mu or mu_s/mu_k, not both");
    double mu = 0.0;
    if ((rc = case_get_num(p, sec, "mu", 0, &mu, 0.0, 0, HUGE_VAL))) return rc;
    c->mu_s = c->mu_k = mu;
    if (ems && (rc = case_get_num(p, sec, "mu_s", 0, &c->mu_s, 0.0, 0, HUGE_VAL))) return rc;
    if (emk && (rc = case_get_num(p, sec, "mu_k", 0, &c->mu_k, 0.0, 0, HUGE_VAL))) return rc;
    if (ems && !emk) c->mu_k = c->mu_s;
    if (emk && !ems) c->mu_s = c->mu_k;
    int given;
    if ((rc = case_get_vec(p, sec, "mu_axis", 2, c->mu_axis, &given))) return rc;
    if (given) {
        if (c->mu_axis[0] < 0 || c->mu_axis[1] < 0)
            return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "mu_axis"),
                                "mu_axis: friction coefficients must be >= 0");
        c->anisotropic = 1;
    }
    c->exact_stick = 1;
    if ((rc = case_get_bool(p, sec, "exact_stick", &c->exact_stick))) return rc;
    c->v_stick = m->opt.v_stick;
    if ((rc = case_get_num(p, sec, "v_stick", 0, &c->v_stick, 0.0, 0, HUGE_VAL))) return rc;
    if ((rc = case_get_bool(p, sec, "initially_stuck", &c->initially_stuck))) return rc;
    /* Law */
    c->law = TVDS_LAW_LAGRANGE;
    if ((rc = case_get_enum(p, sec, "law", law_words, &c->law))) return rc;
    static const char *const pk[] = {"kn", "pen0", "kt", "cn", "ct"};
    if (c->law != TVDS_LAW_PENALTY) {
        for (int i = 0; i < 5; i++) {
            case_entry *x = case_get(p, sec, pk[i]);
            if (x)
                return case_err_ent(p, TVDS_ERR_INVALID, x, "%s only applies with law = penalty",
                                    pk[i]);
        }
    } else {
        if (!kind->penalty)
            return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "law"),
                                "law: the penalty law needs a 2D master surface or a rigid "
                                "master (%s takes law = lagrange)",
                                kind->name);
        if ((rc = case_get_num(p, sec, "kn", 1, &c->kn, 0.0, 1, HUGE_VAL))) return rc;
        if ((rc = case_get_num(p, sec, "pen0", 0, &c->pen0, 0.0, 0, HUGE_VAL))) return rc;
        /* Required: without a tangential stiffness a penalty contact cannot stick. */
        if ((rc = case_get_num(p, sec, "kt", 1, &c->kt, 0.0, 1, HUGE_VAL))) return rc;
        if ((rc = case_get_num(p, sec, "cn", 0, &c->cn, 0.0, 0, HUGE_VAL))) return rc;
        if ((rc = case_get_num(p, sec, "ct", 0, &c->ct, 0.0, 0, HUGE_VAL))) return rc;
    }
    static const char *const sk[3] = {"slave_kin_x", "slave_kin_y", "slave_kin_z"};
    for (int k = 0; k < 3; k++)
        if ((rc = case_get_fn(p, sec, sk[k], 0, &c->slave_kin[k]))) return rc;
    return TVDS_OK;
}
