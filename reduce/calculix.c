/* calculix.c — import of a CalculiX job's matrix storage (JOB.sti, JOB.mas, JOB.dof) with the
 * nodes and node sets of its input deck (JOB.inp) as a full model (docs/formats.md). */
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
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"

#define CCX_MAX_INCLUDE 16   /* nesting depth */
#define CCX_MAX_FILES   1000 /* files read for one deck (includes included again count) */

/* What the deck gives: node coordinates and ordered node sets (names as first written). */
typedef struct ccx_set {
    char *name;
    long *nodes; /* each node once, in order of first mention */
    int n, cap;
    tvds_lmap in; /* node -> position, to keep each node once */
} ccx_set;

typedef struct ccx_deck {
    tvds_lmap node_slot; /* node id -> slot in xyz */
    double (*xyz)[3];
    int nnode, cap;
    ccx_set *sets;
    int nsets, scap;
    int nfiles; /* deck files opened so far */
} ccx_deck;

static void deck_free(ccx_deck *d)
{
    tvds_lmap_free(&d->node_slot);
    tvds_free(d->xyz);
    for (int i = 0; i < d->nsets; i++) {
        tvds_free(d->sets[i].name);
        tvds_free(d->sets[i].nodes);
        tvds_lmap_free(&d->sets[i].in);
    }
    tvds_free(d->sets);
    memset(d, 0, sizeof *d);
}

static int find_set(const ccx_deck *d, const char *name)
{
    for (int i = 0; i < d->nsets; i++) /* decks have few sets */
        if (strcasecmp(d->sets[i].name, name) == 0) return i;
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

/* fopen for reading, refusing what is not a regular file (a device or a FIFO named by mistake
 * or by *INCLUDE would be read forever); errno is set on failure (EINVAL: not regular). */
static FILE *open_regular(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        errno = EINVAL;
        return NULL;
    }
    return f;
}

static const char *open_error(void)
{
    return errno == EINVAL ? "not a regular file" : strerror(errno);
}

/* Strip the line end and trailing blanks. */
static void chomp(char *s)
{
    size_t l = strlen(s);
    while (l > 0 && isspace((unsigned char)s[l - 1]))
        s[--l] = '\0';
}

static char *trim(char *s)
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
            char *t = trim(buf);
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

enum { CCX_OTHER, CCX_NODE, CCX_NSET };

typedef struct ccx_state {
    int block;    /* data lines belong to: CCX_OTHER, CCX_NODE, CCX_NSET */
    int generate; /* *NSET, GENERATE */
    int set;      /* current set (NSET or NODE's NSET=), -1 none */
} ccx_state;

static int get_or_add_set(ccx_deck *d, const char *name, const char *path, long line, int *q,
                          tvds_ctx *ctx)
{
    if (!valid_name(name))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: set name '%.60s' is not made of letters, digits, '_', '-', "
                          "'.' (tvds node-set names)",
                          path, line, name);
    *q = find_set(d, name);
    if (*q >= 0) return TVDS_OK;
    if (d->nsets == d->scap) {
        int nc = d->scap ? 2 * d->scap : 16;
        ccx_set *ns = tvds_realloc(d->sets, (size_t)nc * sizeof *ns);
        if (!ns) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        d->sets = ns;
        d->scap = nc;
    }
    ccx_set *s = &d->sets[d->nsets];
    memset(s, 0, sizeof *s);
    s->name = tvds_strdup(name);
    d->nsets++; /* owned from here on (deck_free) */
    if (!s->name || tvds_lmap_init(&s->in, 16) != TVDS_OK)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    *q = d->nsets - 1;
    return TVDS_OK;
}

static int parse_long_field(const char *s, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return end != s && !*trim(end) && !errno;
}

static int read_deck(const char *path, int depth, ccx_deck *d, ccx_state *st, tvds_ctx *ctx);

static int keyword(char *kw, const char *path, long line, int depth, ccx_deck *d, ccx_state *st,
                   tvds_ctx *ctx)
{
    char name[64], val[512];
    size_t k = 0;
    const char *p = kw + 1;
    while (*p && *p != ',' && k < sizeof name - 1)
        name[k++] = (char)toupper((unsigned char)*p++);
    name[k] = '\0';
    char *nm = trim(name);
    if (strcmp(nm, "INCLUDE") != 0) { /* an included file continues the current block */
        st->block = CCX_OTHER;
        st->generate = 0;
        st->set = -1;
    }
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
        int rc = read_deck(inc, depth + 1, d, st, ctx);
        if (rc == TVDS_ERR_IO)
            return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s:%ld: *INCLUDE: cannot open %s: %s", path, line,
                              inc, open_error());
        return rc;
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
        char *t = trim(tok);
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
        if (old < 0) {
            if (d->nnode == d->cap) {
                int nc = d->cap ? 2 * d->cap : 1024;
                double(*nx)[3] = tvds_realloc(d->xyz, (size_t)nc * sizeof *nx);
                if (!nx) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                d->xyz = nx;
                d->cap = nc;
            }
            old = d->nnode++;
        }
        memcpy(d->xyz[old], x, sizeof x); /* a node given again is redefined, as in ccx */
        if (st->set >= 0 && set_push(&d->sets[st->set], id) != TVDS_OK)
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        return TVDS_OK;
    }
    if (st->block != CCX_NSET) return TVDS_OK;
    ccx_set *s = &d->sets[st->set];
    if (st->generate) {
        long a, b, inc = 1;
        if (nf < 2 || nf > 3 || !parse_long_field(f[0], &a) || !parse_long_field(f[1], &b) ||
            (nf == 3 && !parse_long_field(f[2], &inc)) || a < 1 || b < a || inc < 1)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: *NSET, GENERATE: expected 'first, last[, increment]' with "
                              "1 <= first <= last, increment >= 1",
                              path, line);
        /* A range far beyond the nodes defined is a typo (or a hostile file), not a set. */
        double count = floor((double)(b - a) / (double)inc) + 1.0;
        if (count > 10.0 * (d->nnode + 100000.0))
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: *NSET, GENERATE: %ld..%ld holds %.0f ids, far more than "
                              "the %d nodes defined above",
                              path, line, a, b, count, d->nnode);
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
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: *NSET %s: node id %ld < 1", path,
                                  line, s->name, v);
            if (set_push(s, v) != TVDS_OK) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
            continue;
        }
        int q = find_set(d, f[c]); /* a set named inside a set: its nodes */
        if (q < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: *NSET %s: '%.40s' is neither a node id nor a node set "
                              "defined above",
                              path, line, s->name, f[c]);
        s = &d->sets[st->set];
        int m = d->sets[q].n;
        for (int i = 0; i < m; i++)
            if (set_push(s, d->sets[q].nodes[i]) != TVDS_OK)
                return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    return TVDS_OK;
}

static int read_deck(const char *path, int depth, ccx_deck *d, ccx_state *st, tvds_ctx *ctx)
{
    if (++d->nfiles > CCX_MAX_FILES)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s: more than %d files read for one deck "
                          "(*INCLUDE loop?)",
                          path, CCX_MAX_FILES);
    FILE *f = depth > 0 ? open_regular(path) : fopen(path, "r");
    if (!f) {
        if (depth > 0) return TVDS_ERR_IO; /* the *INCLUDE line words the message */
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    int frc = depth > 0 ? TVDS_OK : tvds_input_file_check(path, "CalculiX input deck", f, ctx);
    if (frc) {
        fclose(f);
        return frc;
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
    return rc;
}

/* JOB.dof: one "node.direction" per line, in matrix order. */
static int read_dof_list(const char *path, const ccx_deck *d, tvds_fe_model *m, tvds_ctx *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return TVDS_ERROR(ctx, TVDS_ERR_IO,
                          "%s: cannot open: %s (run the job with *FREQUENCY, "
                          "SOLVER=MATRIXSTORAGE first)",
                          path, strerror(errno));
    int frc = tvds_input_file_check(path, "CalculiX DoF list", f, ctx);
    if (frc) {
        fclose(f);
        return frc;
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, *dof_line = NULL;
    int rc = TVDS_OK, alloc = 0;
    tvds_lmap seen; /* 8 node + direction -> row: each DoF once */
    if (tvds_lmap_init(&seen, 1024) != TVDS_OK) {
        fclose(f);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *s = trim(line), *end;
        if (!*s) continue;
        errno = 0;
        long node = strtol(s, &end, 10);
        long dir = -1;
        if (end != s && *end == '.' && isdigit((unsigned char)end[1]) && !end[2] && !errno)
            dir = end[1] - '0';
        if (dir < 0 || node < 1 || node > LONG_MAX / 8) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: expected '<node>.<direction>', found "
                            "'%.40s'",
                            path, lineno, s);
            break;
        }
        if (dir < 1 || dir > 6) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: node %ld direction %ld: tvds maps directions 1-3 "
                            "(translations) and 4-6 (rotations) only",
                            path, lineno, node, dir);
            break;
        }
        int slot = tvds_lmap_get(&d->node_slot, node);
        if (slot < 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: node %ld has no coordinates in the input deck (*NODE)", path,
                            lineno, node);
            break;
        }
        int prev;
        if (tvds_lmap_put(&seen, 8 * node + dir, m->n, &prev) != TVDS_OK) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
            break;
        }
        if (prev >= 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %ld.%ld listed twice (first on line %ld)",
                            path, lineno, node, dir, dof_line[prev]);
            break;
        }
        if (m->n == alloc) {
            alloc = alloc ? 2 * alloc : 1024;
            tvds_dof *nd = tvds_realloc(m->dofs, (size_t)alloc * sizeof *nd);
            if (nd) m->dofs = nd;
            long *nl = nd ? tvds_realloc(dof_line, (size_t)alloc * sizeof *nl) : NULL;
            if (nl) dof_line = nl;
            if (!nd || !nl) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                break;
            }
        }
        dof_line[m->n] = lineno;
        tvds_dof *dd = &m->dofs[m->n++];
        memset(dd, 0, sizeof *dd);
        dd->kind = TVDS_DOF_PHYSICAL;
        dd->node = node;
        dd->dir = (int)dir - 1;
        memcpy(dd->xyz, d->xyz[slot], sizeof dd->xyz);
    }
    free(line); /* getline's buffer */
    fclose(f);
    tvds_lmap_free(&seen);
    tvds_free(dof_line);
    if (!rc && m->n == 0) rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: no DoF listed", path);
    return rc;
}

typedef struct ccx_pos {
    int i, j;
    long line;
} ccx_pos;

static int pos_cmp(const void *a, const void *b)
{
    const ccx_pos *p = a, *q = b;
    if (p->j != q->j) return p->j < q->j ? -1 : 1;
    if (p->i != q->i) return p->i < q->i ? -1 : 1;
    return (p->line > q->line) - (p->line < q->line);
}

/* JOB.sti / JOB.mas: "row col value", 1-based, upper triangle (row <= col), no header. */
static int read_triangle(const char *path, int n, cholmod_sparse **A, cholmod_common *cc,
                         tvds_ctx *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    int frc = tvds_input_file_check(path, "CalculiX matrix file", f, ctx);
    if (frc) {
        fclose(f);
        return frc;
    }
    char *line = NULL;
    size_t cap = 0, cnt = 0, alloc = 0;
    long lineno = 0;
    int rc = TVDS_OK;
    ccx_pos *pos = NULL;
    double *val = NULL;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *s = trim(line), *e1, *e2, *e3;
        if (!*s) continue;
        errno = 0;
        long i = strtol(s, &e1, 10), j = strtol(e1, &e2, 10);
        double x = strtod(e2, &e3);
        if (e1 == s || e2 == e1 || e3 == e2 || *trim(e3) || errno == EINVAL) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: expected '<row> <column> <value>'", path,
                            lineno);
            break;
        }
        if (i < 1 || j < 1 || i > n || j > n) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: index (%ld,%ld) out of range 1..%d (the DoFs of the .dof "
                            "file)",
                            path, lineno, i, j, n);
            break;
        }
        if (i > j) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: entry (%ld,%ld) below the diagonal: CalculiX matrix storage "
                            "holds the upper triangle",
                            path, lineno, i, j);
            break;
        }
        if (!isfinite(x)) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: value is not finite", path, lineno);
            break;
        }
        if (cnt == alloc) {
            alloc = alloc ? 2 * alloc : 4096;
            ccx_pos *np = tvds_realloc(pos, alloc * sizeof *np);
            double *nv = np ? tvds_realloc(val, alloc * sizeof *nv) : NULL;
            if (np) pos = np;
            if (nv) val = nv;
            if (!np || !nv) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
        }
        pos[cnt].i = (int)i - 1;
        pos[cnt].j = (int)j - 1;
        pos[cnt].line = lineno;
        val[cnt++] = x;
    }
    free(line); /* getline's buffer */
    fclose(f);
    cholmod_triplet *T = NULL;
    if (!rc) {
        T = cholmod_allocate_triplet((size_t)n, (size_t)n, cnt ? cnt : 1, 1, CHOLMOD_REAL, cc);
        if (!T) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    }
    if (!rc) {
        int *Ti = T->i, *Tj = T->j;
        double *Tx = T->x;
        size_t t = 0;
        for (size_t k = 0; k < cnt; k++) {
            if (val[k] == 0.0) continue; /* explicit zeros carry nothing */
            Ti[t] = pos[k].i;
            Tj[t] = pos[k].j;
            Tx[t++] = val[k];
        }
        T->nnz = t;
        *A = cholmod_triplet_to_sparse(T, t, cc);
        if (!*A) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        } else if (cholmod_nnz(*A, cc) != (long)t) {
            /* CHOLMOD summed a repeated position: find the first repeat (sort, error path). */
            cholmod_free_sparse(A, cc);
            qsort(pos, cnt, sizeof *pos, pos_cmp);
            long first = 0, second = LONG_MAX;
            int bi = 0, bj = 0;
            for (size_t k = 1; k < cnt; k++)
                if (pos[k].i == pos[k - 1].i && pos[k].j == pos[k - 1].j && pos[k].line < second) {
                    second = pos[k].line;
                    first = pos[k - 1].line;
                    bi = pos[k].i;
                    bj = pos[k].j;
                }
            rc =
                TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: entry (%d,%d) repeats the one on line %ld",
                           path, second, bi + 1, bj + 1, first);
        }
    }
    cholmod_free_triplet(&T, cc);
    tvds_free(pos);
    tvds_free(val);
    return rc;
}

/* Node sets restricted to nodes that have a DoF (constrained nodes have none), in order, each
 * node once; a set with no such node is left out (counted in info). */
static int build_sets(const ccx_deck *d, tvds_fe_model *m, tvds_ccx_info *info, tvds_ctx *ctx)
{
    tvds_lmap has; /* node -> 1 when it has a DoF */
    tvds_lmap seen;
    if (tvds_lmap_init(&has, (size_t)m->n) != TVDS_OK)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    int rc = TVDS_OK;
    for (int g = 0; g < m->n && !rc; g++)
        if (tvds_lmap_put(&has, m->dofs[g].node, 1, NULL) != TVDS_OK) rc = TVDS_ERR_NOMEM;
    m->sets = rc ? NULL : tvds_calloc((size_t)(d->nsets > 0 ? d->nsets : 1), sizeof *m->sets);
    if (!m->sets) rc = TVDS_ERR_NOMEM;
    for (int q = 0; q < d->nsets && !rc; q++) {
        const ccx_set *s = &d->sets[q];
        if (tvds_lmap_init(&seen, (size_t)s->n) != TVDS_OK) {
            rc = TVDS_ERR_NOMEM;
            break;
        }
        tvds_nodeset *ns = &m->sets[m->nsets];
        ns->nodes = tvds_malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(long));
        if (!ns->nodes) rc = TVDS_ERR_NOMEM;
        for (int a = 0; a < s->n && !rc; a++) {
            int old;
            if (tvds_lmap_get(&has, s->nodes[a]) < 0) continue;
            if (tvds_lmap_put(&seen, s->nodes[a], 1, &old) != TVDS_OK) {
                rc = TVDS_ERR_NOMEM;
                break;
            }
            if (old < 0) ns->nodes[ns->n++] = s->nodes[a];
        }
        tvds_lmap_free(&seen);
        if (rc) break;
        if (ns->n == 0) {
            tvds_free(ns->nodes);
            ns->nodes = NULL;
            if (info) {
                if (!info->sets_dropped)
                    snprintf(info->first_dropped, sizeof info->first_dropped, "%s", s->name);
                info->sets_dropped++;
            }
            continue;
        }
        ns->name = tvds_strdup(s->name);
        if (!ns->name) rc = TVDS_ERR_NOMEM;
        m->nsets++;
    }
    tvds_lmap_free(&has);
    if (rc) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    return TVDS_OK;
}

int tvds_import_calculix(const char *inp_path, tvds_fe_model **out, tvds_ccx_info *info,
                         cholmod_common *cc, tvds_ctx *ctx)
{
    if (!inp_path || !out || !cc)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "import calculix: missing argument");
    *out = NULL;
    if (info) memset(info, 0, sizeof *info);
    size_t l = strlen(inp_path);
    if (l < 5 || strcasecmp(inp_path + l - 4, ".inp") != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s: expected the job's input deck JOB.inp (JOB.sti, JOB.mas and "
                          "JOB.dof are read beside it)",
                          inp_path);
    char *base = tvds_malloc(l + 8);
    ccx_deck d;
    memset(&d, 0, sizeof d);
    tvds_fe_model *m = tvds_calloc(1, sizeof *m);
    int rc = (!base || !m || tvds_lmap_init(&d.node_slot, 1024) != TVDS_OK)
                 ? TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory")
                 : TVDS_OK;
    if (!rc) {
        ccx_state st = {CCX_OTHER, 0, -1};
        rc = read_deck(inp_path, 0, &d, &st, ctx);
    }
    if (!rc) {
        memcpy(base, inp_path, l - 4);
        strcpy(base + l - 4, ".dof");
        rc = read_dof_list(base, &d, m, ctx);
    }
    if (!rc) {
        strcpy(base + l - 4, ".sti");
        rc = read_triangle(base, m->n, &m->K, cc, ctx);
    }
    if (!rc) {
        strcpy(base + l - 4, ".mas");
        rc = read_triangle(base, m->n, &m->M, cc, ctx);
    }
    if (!rc) rc = build_sets(&d, m, info, ctx);
    if (!rc) {
        const char *b = strrchr(inp_path, '/');
        b = b ? b + 1 : inp_path;
        m->name = tvds_malloc(strlen(b) + 1);
        if (!m->name) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        } else {
            memcpy(m->name, b, strlen(b) - 4);
            m->name[strlen(b) - 4] = '\0';
        }
    }
    if (!rc && info) {
        info->nodes = d.nnode;
        info->nsets_deck = d.nsets;
    }
    deck_free(&d);
    tvds_free(base);
    if (rc) {
        tvds_fe_model_free(&m, cc);
        return rc;
    }
    *out = m;
    return TVDS_OK;
}
