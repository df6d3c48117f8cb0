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

int case_build_contact(case_parser *p, tvds_model *m, int sec, tvds_contact *c)
{
    int rc;
    char lab[160];
    case_sec_label(p, sec, lab, sizeof lab);
    c->name = tvds_strdup(p->secs[sec].name);
    if (!c->name) return case_err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    case_entry *es = case_get(p, sec, "slave"), *em = case_get(p, sec, "master");
    if (!es) return case_missing(p, sec, "slave");
    if (!em) return case_missing(p, sec, "master");
    if ((rc = case_parse_nodes_ref(p, m, es, "slave", &c->slave_sub, &c->nslave, &c->slave_nodes)))
        return rc;
    int disc = strcmp(em->value, "disc") == 0;
    int rigid = disc || strcmp(em->value, "rigid") == 0;
    c->master_kind = disc ? TVDS_MASTER_DISC : rigid ? TVDS_MASTER_RIGID : TVDS_MASTER_SURFACE;
    c->dim = rigid ? 3 : 2;
    if ((rc = case_get_int(p, sec, "dim", &c->dim, 2, 3))) return rc;
    if (!disc && case_get(p, sec, "omega"))
        return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "omega"),
                            "omega only applies with master = disc");
    if (disc) {
        if (c->dim != 3)
            return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "dim"),
                                "dim: a rotating disc is a 3D master (dim = 3)");
        static const char *const not_disc[] = {"t1", "motion_x", "motion_y", "motion_z"};
        for (int i = 0; i < 4; i++) {
            case_entry *x = case_get(p, sec, not_disc[i]);
            if (x)
                return case_err_ent(p, TVDS_ERR_INVALID, x,
                                    "%s does not apply to a disc (its frame and motion follow "
                                    "from the axis and omega)",
                                    not_disc[i]);
        }
        if ((rc = case_get_fn(p, sec, "omega", 1, &c->omega))) return rc;
    }
    int faces = 0;
    if (!rigid) {
        rc = parse_faces_ref(p, m, em, c);
        if (rc < 0) return rc;
        faces = rc == 0;
        if (faces) {
            c->master_kind = TVDS_MASTER_FACES;
            c->dim = 3;
            if ((rc = case_get_int(p, sec, "dim", &c->dim, 2, 3))) return rc;
            if (c->dim != 3)
                return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "dim"),
                                    "dim: a face set is a 3D master surface (dim = 3)");
        }
    }
    if (faces) {
        if (c->master_sub == c->slave_sub)
            return case_err_ent(p, TVDS_ERR_INVALID, em,
                                "master: slave and master are in the same substructure '%s'",
                                m->subs[c->slave_sub]->name);
        if ((rc = case_check_translations(p, m, em, c->master_sub, c->nmaster, c->master_nodes, 3)))
            return rc;
        case_entry *esf = case_get(p, sec, "surface");
        if (esf)
            return case_err_ent(p, TVDS_ERR_INVALID, esf,
                                "surface only applies to a 2D node-set master (a face set is "
                                "used as its faces)");
        static const char *const rigid_keys[] = {"point",    "normal",   "t1",
                                                 "motion_x", "motion_y", "motion_z"};
        for (int i = 0; i < 6; i++) {
            case_entry *x = case_get(p, sec, rigid_keys[i]);
            if (x)
                return case_err_ent(p, TVDS_ERR_INVALID, x, "%s only applies with master = rigid",
                                    rigid_keys[i]);
        }
    } else if (!rigid) {
        if ((rc = case_parse_nodes_ref(p, m, em, "master", &c->master_sub, &c->nmaster,
                                       &c->master_nodes)))
            return rc;
        if (c->nmaster < 2)
            return case_err_ent(p, TVDS_ERR_INVALID, em,
                                "master: a master surface needs a node set of at least 2 nodes");
        if (c->master_sub == c->slave_sub)
            return case_err_ent(p, TVDS_ERR_INVALID, em,
                                "master: slave and master are in the same substructure '%s'",
                                m->subs[c->slave_sub]->name);
        if (c->dim != 2)
            return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "dim"),
                                "dim: a master surface is 2D (x-y plane)");
        if ((rc = case_check_translations(p, m, em, c->master_sub, c->nmaster, c->master_nodes, 2)))
            return rc;
        /* The interpolation between the nodes: straight segments or the C1 curve. */
        int smooth = 0;
        if ((rc = case_get_enum(p, sec, "surface", surface_words, &smooth))) return rc;
        if (smooth) c->master_kind = TVDS_MASTER_SURFACE_C1;
        static const char *const rigid_only[] = {"point",    "normal",   "t1",
                                                 "motion_x", "motion_y", "motion_z"};
        for (int i = 0; i < 6; i++) {
            case_entry *x = case_get(p, sec, rigid_only[i]);
            if (x)
                return case_err_ent(p, TVDS_ERR_INVALID, x, "%s only applies with master = rigid",
                                    rigid_only[i]);
        }
    } else {
        c->master_sub = -1;
        case_entry *esf = case_get(p, sec, "surface");
        if (esf)
            return case_err_ent(p, TVDS_ERR_INVALID, esf,
                                "surface only applies to a master surface (not rigid)");
        int given;
        if ((rc = case_get_vec(p, sec, "point", 3, c->rigid_point, &given))) return rc;
        if ((rc = case_get_vec(p, sec, "normal", 3, c->rigid_normal, &given))) return rc;
        if (!given) return case_missing(p, sec, "normal");
        case_entry *en = case_get(p, sec, "normal");
        double *nv = c->rigid_normal;
        if (nv[0] == 0 && nv[1] == 0 && nv[2] == 0)
            return case_err_ent(p, TVDS_ERR_INVALID, en, "normal: zero vector");
        if (c->dim == 2 && nv[2] != 0)
            return case_err_ent(
                p, TVDS_ERR_INVALID, en,
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
            /* t1 = n x e_z (in-plane tangent in 2D); e_x projected when n is along z. */
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
    }
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
        if (c->master_kind == TVDS_MASTER_DISC)
            return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "law"),
                                "law: the penalty law needs a 2D master surface or a rigid "
                                "master (a disc takes law = lagrange)");
        if (c->master_kind == TVDS_MASTER_FACES)
            return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "law"),
                                "law: the penalty law needs a 2D master surface or a rigid "
                                "master (a face set takes law = lagrange)");
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
