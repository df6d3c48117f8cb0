/* ccx_deck.c — the reader of an Abaqus/CalculiX input deck: *NODE, *NSET, *ELEMENT, *ELSET,
 * *SURFACE, with *INCLUDE, GENERATE, continuations and comments (docs/formats.md); the
 * matrices and the model are calculix.c's. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/hash_impl.h"
#include "io/io_impl.h"
#include "ccx_impl.h"
#include "import_impl.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"

#define CCX_MAX_INCLUDE 16   /* nesting depth */
#define CCX_MAX_FILES   1000 /* files read for one deck (includes included again count) */

/* Solid element types tvds reads faces of: the face table of the CalculiX manual (element
 * faces 1..6, the labels S1..S6 of *SURFACE and P1..P6 of *DLOAD). The manual lists each
 * face's corners so that the right-hand normal points into the element; face_nodes() reverses
 * them, so that the normal points out of the element (a master face's normal points toward
 * the slave, docs/formats.md). Quadratic faces: corners, then the midside nodes of the edges
 * c1-c2, c2-c3, ... in that order. Positions are 1-based element node numbers. */
enum { ELEM_HEX8, ELEM_HEX20, ELEM_TET4, ELEM_TET10, ELEM_NTYPES };
typedef struct ccx_elem_type {
    int nnode;   /* element nodes */
    int nface;   /* faces */
    int face_nn; /* nodes per face */
    int face[6][8];
} ccx_elem_type;
static const ccx_elem_type elem_types[ELEM_NTYPES] = {
    [ELEM_HEX8] =
        {8,
         6,
         4,
         {{1, 2, 3, 4}, {5, 8, 7, 6}, {1, 5, 6, 2}, {2, 6, 7, 3}, {3, 7, 8, 4}, {4, 8, 5, 1}}},
    [ELEM_HEX20] = {20,
                    6,
                    8,
                    {{1, 2, 3, 4, 9, 10, 11, 12},
                     {5, 8, 7, 6, 16, 15, 14, 13},
                     {1, 5, 6, 2, 17, 13, 18, 9},
                     {2, 6, 7, 3, 18, 14, 19, 10},
                     {3, 7, 8, 4, 19, 15, 20, 11},
                     {4, 8, 5, 1, 20, 16, 17, 12}}},
    [ELEM_TET4] = {4, 4, 3, {{1, 2, 3}, {1, 4, 2}, {2, 4, 3}, {3, 4, 1}}},
    [ELEM_TET10] =
        {10,
         4,
         6,
         {{1, 2, 3, 5, 6, 7}, {1, 4, 2, 8, 9, 5}, {2, 4, 3, 9, 10, 6}, {3, 4, 1, 10, 8, 7}}},
};

/* CalculiX element type names -> face table (reduced integration and incompatible modes do
 * not change the faces). */
static int elem_type_of(const char *name)
{
    static const struct {
        const char *name;
        int type;
    } known[] = {{"C3D8", ELEM_HEX8},   {"C3D8R", ELEM_HEX8},   {"C3D8I", ELEM_HEX8},
                 {"C3D20", ELEM_HEX20}, {"C3D20R", ELEM_HEX20}, {"C3D4", ELEM_TET4},
                 {"C3D10", ELEM_TET10}};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (strcasecmp(name, known[k].name) == 0) return known[k].type;
    return -1;
}

/* Does CalculiX integrate the element's mass at its stiffness points? Then the element mass has
 * the rank of 3 x the points (C3D20R: 24 of 60, C3D10: 12 of 30, C3D4: 3 of 12, C3D8R: 3 of
 * 24; measured on one element's JOB.mas), and a coarse mesh of them has a singular M. */
static int elem_lowmass(const char *name)
{
    static const char *const low[] = {"C3D20R", "C3D10", "C3D4", "C3D8R"};
    for (size_t k = 0; k < sizeof low / sizeof low[0]; k++)
        if (strcasecmp(name, low[k]) == 0) return 1;
    return 0;
}

/* Nodes of face f (0-based) of an element of type t with connectivity conn, oriented with the
 * outward normal: the manual's corner order reversed (c1, cn, ..., c2), the midside nodes
 * following the reversed edges. Returns the node count. */
static int face_nodes(int t, const long *conn, int f, long *out)
{
    const ccx_elem_type *et = &elem_types[t];
    int nn = et->face_nn, nc = nn == 3 || nn == 6 ? 3 : 4;
    const int *fp = et->face[f];
    out[0] = conn[fp[0] - 1];
    for (int c = 1; c < nc; c++)
        out[c] = conn[fp[nc - c] - 1];
    if (nn > nc) /* reversed edge k joins corners nc-k and nc-k-1 of the manual's order */
        for (int k = 0; k < nc; k++)
            out[nc + k] = conn[fp[nc + (nc - 1 - k)] - 1];
    return nn;
}

#define ELEM_MAX_NODES 20

static void sets_free(ccx_set *sets, int n)
{
    for (int i = 0; i < n; i++) {
        tvds_free(sets[i].name);
        tvds_free(sets[i].nodes);
        tvds_lmap_free(&sets[i].in);
    }
    tvds_free(sets);
}

void ccx_deck_free(ccx_deck *d)
{
    tvds_lmap_free(&d->node_slot);
    tvds_free(d->xyz);
    tvds_free(d->nline);
    tvds_free(d->nfile);
    for (int i = 0; i < d->nfiles; i++)
        tvds_free(d->fname[i]);
    tvds_free(d->fname);
    tvds_free(d->eline);
    tvds_free(d->efile);
    sets_free(d->sets, d->nsets);
    sets_free(d->esets, d->nesets);
    tvds_lmap_free(&d->elem_slot);
    tvds_free(d->etype);
    tvds_free(d->conn);
    for (int i = 0; i < d->nsurfs; i++) {
        tvds_free(d->surfs[i].name);
        tvds_free(d->surfs[i].nn);
        tvds_free(d->surfs[i].nodes);
        tvds_lmap_free(&d->surfs[i].in);
    }
    tvds_free(d->surfs);
    memset(d, 0, sizeof *d);
}

static int find_in(const ccx_set *sets, int n, const char *name)
{
    for (int i = 0; i < n; i++) /* decks have few sets */
        if (strcasecmp(sets[i].name, name) == 0) return i;
    return -1;
}

static int find_set(const ccx_deck *d, const char *name)
{
    return find_in(d->sets, d->nsets, name);
}

static int find_surf(const ccx_deck *d, const char *name)
{
    for (int i = 0; i < d->nsurfs; i++)
        if (strcasecmp(d->surfs[i].name, name) == 0) return i;
    return -1;
}

/* Append node unless the set has it already (a set is a set: this also bounds its size by
 * the distinct ids mentioned, whatever sets named inside sets repeat). */
static int set_push(ccx_set *s, long node)
{
    int old;
    if (tvds_lmap_put(&s->in, node, s->n, &old) != TVDS_OK) return TVDS_ERR_NOMEM;
    if (old >= 0) return TVDS_OK;
    if (s->n == s->cap) {
        int nc = s->cap ? 2 * s->cap : 64;
        long *nn = tvds_realloc(s->nodes, (size_t)nc * sizeof *nn);
        if (!nn) return TVDS_ERR_NOMEM;
        s->nodes = nn;
        s->cap = nc;
    }
    s->nodes[s->n++] = node;
    return TVDS_OK;
}

/* Strip the line end and trailing blanks. */
static void chomp(char *s)
{
    size_t l = strlen(s);
    while (l > 0 && isspace((unsigned char)s[l - 1]))
        s[--l] = '\0';
}

char *ccx_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t l = strlen(s);
    while (l > 0 && isspace((unsigned char)s[l - 1]))
        s[--l] = '\0';
    return s;
}

/* Value of parameter name (case-insensitive) in a keyword line "*KEY, A=B, C" (copied into
 * buf); "" for a parameter without value; NULL when absent. */
static const char *param(const char *kw, const char *name, char *buf, size_t n)
{
    const char *p = strchr(kw, ',');
    size_t ln = strlen(name);
    while (p) {
        p++;
        while (isspace((unsigned char)*p))
            p++;
        const char *e = p;
        while (*e && *e != ',' && *e != '=')
            e++;
        const char *ke = e;
        while (ke > p && isspace((unsigned char)ke[-1]))
            ke--;
        if ((size_t)(ke - p) == ln && strncasecmp(p, name, ln) == 0) {
            if (*e != '=') {
                buf[0] = '\0';
                return buf;
            }
            const char *v = e + 1, *ve = v;
            while (*ve && *ve != ',')
                ve++;
            size_t m = (size_t)(ve - v) < n - 1 ? (size_t)(ve - v) : n - 1;
            memcpy(buf, v, m);
            buf[m] = '\0';
            char *t = ccx_trim(buf);
            memmove(buf, t, strlen(t) + 1);
            return buf;
        }
        p = strchr(e, ',');
    }
    return NULL;
}

static int valid_name(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.') return 0;
    return 1;
}

static const char *const elem_type_names = "C3D4, C3D10, C3D8, C3D8R, C3D8I, C3D20, C3D20R";

/* An element whose node list did not end before a keyword or the end of the deck. */
int ccx_check_pending(const ccx_deck *d, const ccx_state *st, const char *path, long line,
                      tvds_ctx *ctx)
{
    if (st->pending < 0) return TVDS_OK;
    return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                      "%s:%ld: *ELEMENT: element %ld lists %d of its %d nodes before %s", path,
                      line, st->pending_id, st->filled, elem_types[d->etype[st->pending]].nnode,
                      line > 0 ? "this keyword" : "the end of the deck");
}

/* Node sets (esets = 0) or element sets (esets = 1): index of name, added when new. Node sets
 * and element-face surfaces become tvds sets, whose names share one name space. */
static int get_or_add(ccx_deck *d, int esets, const char *name, const char *path, long line, int *q,
                      tvds_ctx *ctx)
{
    if (!valid_name(name))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: set name '%.60s' is not made of letters, digits, '_', '-', "
                          "'.' (tvds set names)",
                          path, line, name);
    ccx_set **arr = esets ? &d->esets : &d->sets;
    int *n = esets ? &d->nesets : &d->nsets, *cap = esets ? &d->escap : &d->scap;
    *q = find_in(*arr, *n, name);
    if (*q >= 0) return TVDS_OK;
    if (!esets && find_surf(d, name) >= 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: node set '%.60s' has the name of a *SURFACE above: tvds node "
                          "and face sets share one name space, rename one of them",
                          path, line, name);
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        ccx_set *ns = tvds_realloc(*arr, (size_t)nc * sizeof *ns);
        if (!ns) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        *arr = ns;
        *cap = nc;
    }
    ccx_set *s = &(*arr)[*n];
    memset(s, 0, sizeof *s);
    s->name = tvds_strdup(name);
    (*n)++; /* owned from here on (ccx_deck_free) */
    if (!s->name || tvds_lmap_init(&s->in, 16) != TVDS_OK)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    *q = *n - 1;
    return TVDS_OK;
}

static int get_or_add_set(ccx_deck *d, const char *name, const char *path, long line, int *q,
                          tvds_ctx *ctx)
{
    return get_or_add(d, 0, name, path, line, q, ctx);
}

static int get_or_add_surf(ccx_deck *d, const char *name, const char *path, long line, int *q,
                           tvds_ctx *ctx)
{
    if (!valid_name(name))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: surface name '%.60s' is not made of letters, digits, '_', '-', "
                          "'.' (tvds set names)",
                          path, line, name);
    *q = find_surf(d, name);
    if (*q >= 0) return TVDS_OK;
    if (find_set(d, name) >= 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: *SURFACE '%.60s' has the name of a node set: tvds node and "
                          "face sets share one name space, rename one of them",
                          path, line, name);
    if (d->nsurfs == d->sfcap) {
        int nc = d->sfcap ? 2 * d->sfcap : 8;
        ccx_surf *ns = tvds_realloc(d->surfs, (size_t)nc * sizeof *ns);
        if (!ns) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        d->surfs = ns;
        d->sfcap = nc;
    }
    ccx_surf *s = &d->surfs[d->nsurfs];
    memset(s, 0, sizeof *s);
    s->name = tvds_strdup(name);
    d->nsurfs++;
    if (!s->name || tvds_lmap_init(&s->in, 16) != TVDS_OK)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    *q = d->nsurfs - 1;
    return TVDS_OK;
}

static int parse_long_field(const char *s, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return end != s && !*ccx_trim(end) && !errno;
}

static int keyword(char *kw, const char *path, long line, int depth, ccx_deck *d, ccx_state *st,
                   tvds_ctx *ctx)
{
    char name[64], val[512];
    size_t k = 0;
    const char *p = kw + 1;
    while (*p && *p != ',' && k < sizeof name - 1)
        name[k++] = (char)toupper((unsigned char)*p++);
    name[k] = '\0';
    char *nm = ccx_trim(name);
    if (strcmp(nm, "INCLUDE") != 0) { /* an included file continues the current block */
        int rc = ccx_check_pending(d, st, path, line, ctx);
        if (rc) return rc;
        st->block = CCX_OTHER;
        st->generate = 0;
        st->set = -1;
    }
    if (d->flat_only && (strcmp(nm, "PART") == 0 || strcmp(nm, "INSTANCE") == 0))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: *%s: tvds reads a flat deck, whose node labels are those of "
                          "the matrix output (write the input file without parts and assemblies)",
                          path, line, nm);
    if (strcmp(nm, "NODE") == 0) {
        st->block = CCX_NODE;
        if (param(kw, "NSET", val, sizeof val))
            return get_or_add_set(d, val, path, line, &st->set, ctx);
    } else if (strcmp(nm, "NSET") == 0) {
        if (!param(kw, "NSET", val, sizeof val) || !*val)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: *NSET without NSET=<name>", path, line);
        st->block = CCX_NSET;
        char gen[16];
        st->generate = param(kw, "GENERATE", gen, sizeof gen) != NULL;
        return get_or_add_set(d, val, path, line, &st->set, ctx);
    } else if (strcmp(nm, "ELEMENT") == 0) {
        if (!param(kw, "TYPE", val, sizeof val) || !*val)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: *ELEMENT without TYPE=<type>", path,
                              line);
        st->block = CCX_ELEMENT;
        st->etype = elem_type_of(val); /* other types (shells, beams, springs): skipped */
        st->lowmass = elem_lowmass(val);
        if (st->lowmass && !d->lowmass_type[0]) {
            /* A known type name (elem_lowmass matched it): cut to the field, never longer. */
            size_t n = strlen(val);
            if (n >= sizeof d->lowmass_type) n = sizeof d->lowmass_type - 1;
            memcpy(d->lowmass_type, val, n);
            d->lowmass_type[n] = '\0';
        }
        st->pending = -1;
        if (param(kw, "ELSET", val, sizeof val) && *val)
            return get_or_add(d, 1, val, path, line, &st->set, ctx);
    } else if (strcmp(nm, "ELSET") == 0) {
        if (!param(kw, "ELSET", val, sizeof val) || !*val)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: *ELSET without ELSET=<name>", path,
                              line);
        st->block = CCX_ELSET;
        char gen[16];
        st->generate = param(kw, "GENERATE", gen, sizeof gen) != NULL;
        return get_or_add(d, 1, val, path, line, &st->set, ctx);
    } else if (strcmp(nm, "SURFACE") == 0) {
        char type[32];
        if (!param(kw, "NAME", val, sizeof val) || !*val)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: *SURFACE without NAME=<name>", path,
                              line);
        if (!param(kw, "TYPE", type, sizeof type)) strcpy(type, "ELEMENT");
        if (strcasecmp(type, "ELEMENT") == 0) {
            st->block = CCX_SURF_ELEM;
            int q = find_surf(d, val);
            /* A second definition would add its faces to the first one's without a word. */
            if (q >= 0)
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                  "%s:%ld: *SURFACE %s defined twice (first at %s:%ld)", path, line,
                                  d->surfs[q].name, d->fname[d->surfs[q].file], d->surfs[q].line);
            int rc = get_or_add_surf(d, val, path, line, &st->set, ctx);
            if (!rc) {
                d->surfs[st->set].file = d->cur;
                d->surfs[st->set].line = line;
            }
            return rc;
        }
        if (strcasecmp(type, "NODE") == 0) {
            st->block = CCX_SURF_NODE;
            return get_or_add_set(d, val, path, line, &st->set, ctx);
        }
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: *SURFACE %s: TYPE=%s: tvds reads TYPE=ELEMENT (element faces) "
                          "and TYPE=NODE surfaces",
                          path, line, val, type);
    } else if (strcmp(nm, "INCLUDE") == 0) {
        if (!param(kw, "INPUT", val, sizeof val) || !*val)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: *INCLUDE without INPUT=<file>", path,
                              line);
        if (depth >= CCX_MAX_INCLUDE)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: *INCLUDE nested more than %d deep",
                              path, line, CCX_MAX_INCLUDE);
        char *v = val;
        size_t l = strlen(v);
        if (l >= 2 && v[0] == '"' && v[l - 1] == '"') {
            v[l - 1] = '\0';
            v++;
        }
        /* A relative name is taken from the including file's directory (ccx is normally run
         * there). */
        char inc[4096];
        const char *slash = strrchr(path, '/');
        if (v[0] != '/' && slash)
            snprintf(inc, sizeof inc, "%.*s/%s", (int)(slash - path), path, v);
        else
            snprintf(inc, sizeof inc, "%s", v);
        int rc = ccx_read_deck(inc, depth + 1, d, st, ctx);
        if (rc == TVDS_ERR_IO)
            return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s:%ld: *INCLUDE: cannot open %s: %s", path, line,
                              inc, d->open_why);
        return rc;
    }
    return TVDS_OK;
}

/* Data of *NSET / *ELSET (esets), or the node of a TYPE=NODE surface: ids, or names of sets
 * of the same kind defined above; with generate, 'first, last[, increment]'. */
static int set_data(ccx_deck *d, int esets, int q, int generate, char **f, int nf, const char *path,
                    long line, tvds_ctx *ctx)
{
    ccx_set *arr = esets ? d->esets : d->sets;
    int narr = esets ? d->nesets : d->nsets, ndef = esets ? d->nelem : d->nnode;
    const char *kw = esets ? "*ELSET" : "*NSET", *what = esets ? "element" : "node";
    ccx_set *s = &arr[q];
    if (generate) {
        long a, b, inc = 1;
        if (nf < 2 || nf > 3 || !parse_long_field(f[0], &a) || !parse_long_field(f[1], &b) ||
            (nf == 3 && !parse_long_field(f[2], &inc)) || a < 1 || b < a || inc < 1)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: %s, GENERATE: expected 'first, last[, increment]' with "
                              "1 <= first <= last, increment >= 1",
                              path, line, kw);
        /* A range far beyond the ids defined is a typo (or a hostile file), not a set. */
        double count = floor((double)(b - a) / (double)inc) + 1.0;
        if (count > 10.0 * (ndef + 100000.0))
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: %s, GENERATE: %ld..%ld holds %.0f ids, far more than "
                              "the %d %ss defined above",
                              path, line, kw, a, b, count, ndef, what);
        for (long v = a; v <= b; v += inc) {
            if (set_push(s, v) != TVDS_OK) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
            if (v > LONG_MAX - inc) break;
        }
        return TVDS_OK;
    }
    for (int c = 0; c < nf; c++) {
        long v;
        if (parse_long_field(f[c], &v)) {
            if (v < 1)
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %s %s: %s id %ld < 1", path, line,
                                  kw, s->name, what, v);
            if (set_push(s, v) != TVDS_OK) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
            continue;
        }
        int r = find_in(arr, narr, f[c]); /* a set named inside a set: its members */
        if (r < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: %s %s: '%.40s' is neither a %s id nor a %s set "
                              "defined above",
                              path, line, kw, s->name, f[c], what, what);
        int m = arr[r].n;
        for (int i = 0; i < m; i++)
            if (set_push(s, arr[r].nodes[i]) != TVDS_OK)
                return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    return TVDS_OK;
}

/* *ELEMENT data of a type with faces: 'id, n1, n2, ...', the node list possibly continued on
 * the following lines (CalculiX writes 15 nodes on the first line of a C3D20). */
static int element_data(ccx_deck *d, ccx_state *st, char **f, int nf, const char *path, long line,
                        tvds_ctx *ctx)
{
    if (st->etype < 0) return TVDS_OK;
    const int need = elem_types[st->etype].nnode;
    int first = 0;
    if (st->pending < 0) {
        long id;
        if (!parse_long_field(f[0], &id) || id < 1)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: *ELEMENT: element id '%.40s' is not an integer >= 1", path,
                              line, f[0]);
        int old;
        if (tvds_lmap_put(&d->elem_slot, id, d->nelem, &old) != TVDS_OK)
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        if (old >= 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: *ELEMENT: element %ld defined twice",
                              path, line, id);
        d->nlowmass += st->lowmass;
        if (d->nelem == d->ecap) {
            int nc = d->ecap ? 2 * d->ecap : 256;
            int *nt = tvds_realloc(d->etype, (size_t)nc * sizeof *nt);
            if (nt) d->etype = nt;
            long *ncn =
                nt ? tvds_realloc(d->conn, (size_t)nc * ELEM_MAX_NODES * sizeof *ncn) : NULL;
            if (ncn) d->conn = ncn;
            long *nel = ncn ? tvds_realloc(d->eline, (size_t)nc * sizeof *nel) : NULL;
            if (nel) d->eline = nel;
            int *nef = nel ? tvds_realloc(d->efile, (size_t)nc * sizeof *nef) : NULL;
            if (nef) d->efile = nef;
            if (!nt || !ncn || !nel || !nef)
                return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
            d->ecap = nc;
        }
        d->etype[d->nelem] = st->etype;
        d->eline[d->nelem] = line;
        d->efile[d->nelem] = d->cur;
        st->pending = d->nelem++;
        st->pending_id = id;
        st->filled = 0;
        first = 1;
        if (st->set >= 0 && set_push(&d->esets[st->set], id) != TVDS_OK)
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    long *conn = d->conn + (size_t)st->pending * ELEM_MAX_NODES;
    for (int c = first; c < nf; c++) {
        long v;
        if (st->filled == need)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: *ELEMENT: element %ld has more than the %d nodes of its "
                              "type",
                              path, line, st->pending_id, need);
        if (!parse_long_field(f[c], &v) || v < 1)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: *ELEMENT: element %ld: node id '%.40s' is not an integer "
                              ">= 1",
                              path, line, st->pending_id, f[c]);
        conn[st->filled++] = v;
    }
    if (st->filled == need) st->pending = -1;
    return TVDS_OK;
}

/* Append face fc (0-based) of the element of id eid to surface q, once. */
static int surf_add(ccx_deck *d, int q, long eid, int fc, const char *path, long line,
                    tvds_ctx *ctx)
{
    ccx_surf *s = &d->surfs[q];
    int slot = tvds_lmap_get(&d->elem_slot, eid);
    if (slot < 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: *SURFACE %s: element %ld is not a solid element defined above "
                          "(tvds reads the faces of %s)",
                          path, line, s->name, eid, elem_type_names);
    const ccx_elem_type *et = &elem_types[d->etype[slot]];
    if (fc >= et->nface)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: *SURFACE %s: element %ld has faces S1..S%d, not S%d", path, line,
                          s->name, eid, et->nface, fc + 1);
    int old;
    if (eid > LONG_MAX / 8 || tvds_lmap_put(&s->in, 8 * eid + fc, s->nface, &old) != TVDS_OK)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    if (old >= 0) return TVDS_OK; /* the face is in the surface already */
    if (s->nface == s->cap) {
        int nc = s->cap ? 2 * s->cap : 64;
        int *nn = tvds_realloc(s->nn, (size_t)nc * sizeof *nn);
        if (nn) s->nn = nn;
        long *nd =
            nn ? tvds_realloc(s->nodes, (size_t)nc * TVDS_FACE_MAX_NODES * sizeof *nd) : NULL;
        if (nd) s->nodes = nd;
        if (!nn || !nd) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        s->cap = nc;
    }
    long *dst = s->nodes + (size_t)s->nface * TVDS_FACE_MAX_NODES;
    memset(dst, 0, TVDS_FACE_MAX_NODES * sizeof *dst);
    int nn = face_nodes(d->etype[slot], d->conn + (size_t)slot * ELEM_MAX_NODES, fc, dst);
    for (int a = 1; a < nn; a++)
        for (int b = 0; b < a; b++)
            if (dst[a] == dst[b])
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                  "%s:%ld: *SURFACE %s: face S%d of element %ld lists node %ld "
                                  "twice (a collapsed face: tvds reads faces of distinct nodes)",
                                  path, line, s->name, fc + 1, eid, dst[a]);
    s->nn[s->nface++] = nn;
    return TVDS_OK;
}

/* *SURFACE, TYPE=ELEMENT data: '<element or element set>, S<k>'. */
static int surface_data(ccx_deck *d, int q, char **f, int nf, const char *path, long line,
                        tvds_ctx *ctx)
{
    const char *sn = d->surfs[q].name;
    const char *lab = nf == 2 ? f[1] : "";
    if (nf != 2 || toupper((unsigned char)lab[0]) != 'S' || lab[1] < '1' || lab[1] > '6' || lab[2])
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: *SURFACE %s: expected '<element or element set>, S<face>' "
                          "with a face label S1..S6",
                          path, line, sn);
    int fc = lab[1] - '1';
    long eid;
    if (parse_long_field(f[0], &eid)) {
        if (eid < 1)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: *SURFACE %s: element id %ld < 1", path,
                              line, sn, eid);
        return surf_add(d, q, eid, fc, path, line, ctx);
    }
    int e = find_in(d->esets, d->nesets, f[0]);
    if (e < 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: *SURFACE %s: '%.40s' is neither an element id nor an element "
                          "set defined above",
                          path, line, sn, f[0]);
    for (int i = 0; i < d->esets[e].n; i++) {
        int rc = surf_add(d, q, d->esets[e].nodes[i], fc, path, line, ctx);
        if (rc) return rc;
    }
    return TVDS_OK;
}

static int data_line(char *text, const char *path, long line, ccx_deck *d, ccx_state *st,
                     tvds_ctx *ctx)
{
    char *f[32];
    int nf = 0;
    for (char *tok = text;;) { /* comma-separated fields; empty ones (trailing comma) dropped */
        char *c = strchr(tok, ',');
        if (c) *c = '\0';
        char *t = ccx_trim(tok);
        if (*t) {
            if (nf == 32)
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: more than 32 fields on a line",
                                  path, line);
            f[nf++] = t;
        }
        if (!c) break;
        tok = c + 1;
    }
    if (nf == 0) return TVDS_OK;
    if (st->block == CCX_NODE) {
        long id;
        double x[3] = {0, 0, 0};
        if (!parse_long_field(f[0], &id) || id < 1)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: *NODE: node id '%.40s' is not an "
                              "integer >= 1",
                              path, line, f[0]);
        if (nf > 4)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: *NODE: expected 'id, x, y, z', found %d fields", path, line,
                              nf);
        for (int c = 1; c < nf; c++) {
            char *end;
            x[c - 1] = strtod(f[c], &end);
            if (end == f[c] || *end || !isfinite(x[c - 1]))
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                  "%s:%ld: *NODE: coordinate '%.40s' is not a finite number", path,
                                  line, f[c]);
        }
        int old;
        if (tvds_lmap_put(&d->node_slot, id, d->nnode, &old) != TVDS_OK)
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        /* ccx takes the last definition; a node given twice is more often two meshes sharing
         * ids by mistake than a deliberate move, and the last one winning hides it. */
        if (old >= 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: *NODE: node %ld defined twice (first at %s:%ld)", path, line,
                              id, d->fname[d->nfile[old]], d->nline[old]);
        if (d->nnode == d->cap) {
            int nc = d->cap ? 2 * d->cap : 1024;
            double(*nx)[3] = tvds_realloc(d->xyz, (size_t)nc * sizeof *nx);
            if (nx) d->xyz = nx;
            long *nl = nx ? tvds_realloc(d->nline, (size_t)nc * sizeof *nl) : NULL;
            if (nl) d->nline = nl;
            int *nfl = nl ? tvds_realloc(d->nfile, (size_t)nc * sizeof *nfl) : NULL;
            if (nfl) d->nfile = nfl;
            if (!nx || !nl || !nfl) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
            d->cap = nc;
        }
        old = d->nnode++;
        d->nline[old] = line;
        d->nfile[old] = d->cur;
        memcpy(d->xyz[old], x, sizeof x);
        if (st->set >= 0 && set_push(&d->sets[st->set], id) != TVDS_OK)
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        return TVDS_OK;
    }
    if (st->block == CCX_NSET || st->block == CCX_ELSET)
        return set_data(d, st->block == CCX_ELSET, st->set, st->generate, f, nf, path, line, ctx);
    if (st->block == CCX_SURF_NODE) { /* node or node set [, weight] */
        if (nf > 2)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: *SURFACE %s, TYPE=NODE: expected '<node or node set>[, "
                              "weight]'",
                              path, line, d->sets[st->set].name);
        return set_data(d, 0, st->set, 0, f, 1, path, line, ctx);
    }
    if (st->block == CCX_ELEMENT) return element_data(d, st, f, nf, path, line, ctx);
    if (st->block == CCX_SURF_ELEM) return surface_data(d, st->set, f, nf, path, line, ctx);
    return TVDS_OK;
}

int ccx_read_deck(const char *path, int depth, ccx_deck *d, ccx_state *st, tvds_ctx *ctx)
{
    if (d->nfiles >= CCX_MAX_FILES)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s: more than %d files read for one deck "
                          "(*INCLUDE loop?)",
                          path, CCX_MAX_FILES);
    if (!d->fname) d->fname = tvds_calloc(CCX_MAX_FILES, sizeof *d->fname);
    if (!d->fname || !(d->fname[d->nfiles] = tvds_strdup(path)))
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    int outer = d->cur;
    d->cur = d->nfiles++;
    FILE *f;
    if (depth > 0) { /* the *INCLUDE line words the message, from open_why */
        tvds_ctx lctx;
        tvds_ctx_init(&lctx);
        f = tvds_input_open(path, "included file", &lctx);
        if (!f) {
            size_t lp = strlen(path);
            const char *why = errno ? strerror(errno)
                              : !strncmp(lctx.msg, path, lp) && lctx.msg[lp] == ':'
                                  ? lctx.msg + lp + 2
                                  : lctx.msg;
            snprintf(d->open_why, sizeof d->open_why, "%s", why);
            return TVDS_ERR_IO;
        }
    } else {
        f = tvds_input_open(path, "CalculiX input deck", ctx);
        if (!f) return tvds_input_open_error(path, ctx);
    }
    char *line = NULL, *kw = NULL;
    size_t cap = 0, kwlen = 0;
    long lineno = 0, kwline = 0;
    int rc = TVDS_OK;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        chomp(line);
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (s[0] == '*' && s[1] == '*') continue; /* comment */
        if (kw) { /* a keyword line ending in ',' continues on the next line */
            size_t l = strlen(s);
            char *nk = tvds_realloc(kw, kwlen + l + 1);
            if (!nk) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                break;
            }
            kw = nk;
            memcpy(kw + kwlen, s, l + 1);
            kwlen += l;
        } else if (s[0] == '*') {
            kwlen = strlen(s);
            kw = tvds_strdup(s);
            kwline = lineno;
            if (!kw) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                break;
            }
        } else {
            if (!*s) continue;
            if ((rc = data_line(s, path, lineno, d, st, ctx))) break;
            continue;
        }
        if (kwlen > 0 && kw[kwlen - 1] == ',') continue;
        rc = keyword(kw, path, kwline, depth, d, st, ctx);
        tvds_free(kw);
        kw = NULL;
        if (rc) break;
    }
    if (!rc && kw) rc = keyword(kw, path, kwline, depth, d, st, ctx);
    tvds_free(kw);
    free(line); /* getline's buffer */
    if (!rc && ferror(f)) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: read error", path);
    fclose(f);
    d->cur = outer;
    return rc;
}

/* Every node of every solid element defined by *NODE (anywhere in the deck: ccx accepts nodes
 * after the elements). A face of an element naming an unknown node used to vanish silently
 * from its surface. */
int ccx_check_element_nodes(const ccx_deck *d, tvds_ctx *ctx)
{
    for (int e = 0; e < d->nelem; e++) {
        const long *conn = d->conn + (size_t)e * ELEM_MAX_NODES;
        for (int a = 0; a < elem_types[d->etype[e]].nnode; a++)
            if (tvds_lmap_get(&d->node_slot, conn[a]) < 0) {
                long id = -1;
                for (size_t k = 0; k < d->elem_slot.cap; k++) /* error path: find the id */
                    if (d->elem_slot.key[k] >= 0 && d->elem_slot.val[k] == e)
                        id = d->elem_slot.key[k];
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                  "%s:%ld: *ELEMENT: element %ld names node %ld, which no *NODE "
                                  "defines",
                                  d->fname[d->efile[e]], d->eline[e], id, conn[a]);
            }
    }
    return TVDS_OK;
}
