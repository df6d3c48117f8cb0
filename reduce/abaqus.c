/* abaqus.c — import of the global matrices Abaqus/Standard writes in a matrix generation step
 * (*MATRIX GENERATE, *MATRIX OUTPUT), with the nodes, node sets and surfaces of the flat input
 * deck read by calculix.c (docs/formats.md). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_impl.h"
#include "import_impl.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"

/* Node labels above this are refused: 8 * label + component must fit a long. */
#define ABQ_MAX_LABEL (LONG_MAX / 16)

/* One data line "row node, row DoF, column node, column DoF, value": fields separated by
 * commas and/or blanks, a trailing comma allowed. Returns the number of fields (at most 6
 * looked at), -1 for an empty field between commas. */
static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int split_fields(char *s, char **f)
{
    int nf = 0, need = 0; /* need: a comma was read, a field must follow (or the line end) */
    char *p = s;
    for (;;) {
        while (blank(*p))
            p++;
        if (!*p) return nf;
        if (*p == ',') {
            if (nf == 0 || need) return -1;
            need = 1;
            p++;
            continue;
        }
        if (nf == 6) return 7;
        f[nf++] = p;
        need = 0;
        while (*p && *p != ',' && !blank(*p))
            p++;
        if (!*p) return nf;
        need = *p == ',';
        *p++ = '\0';
    }
}

static int parse_int(const char *s, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return end != s && !*end && !errno;
}

/* A matrix file of *MATRIX OUTPUT: '**' comments and keyword lines skipped. */
static int read_matrix(tvds_imp_matrix *a, tvds_ctx *ctx)
{
    FILE *f = fopen(a->path, "r");
    if (!f) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", a->path, strerror(errno));
    int rc = tvds_input_file_check(a->path, "Abaqus matrix file", f, ctx);
    if (rc) {
        fclose(f);
        return rc;
    }
    char *line = NULL, *fld[6];
    size_t cap = 0;
    long lineno = 0;
    ssize_t got;
    while (!rc && (got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (got == 0 || line[got - 1] != '\n') {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: the file ends in the middle of a line (truncated file?)",
                            a->path, lineno);
            break;
        }
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '*') continue;
        char shown[48];
        snprintf(shown, sizeof shown, "%.40s", s);
        shown[strcspn(shown, "\r\n")] = '\0';
        int nf = split_fields(s, fld);
        long rn, rd, cn, cd;
        double v = 0.0;
        char *end = NULL;
        if (nf == 5) {
            errno = 0;
            v = strtod(fld[4], &end);
        }
        if (nf != 5 || !parse_int(fld[0], &rn) || !parse_int(fld[1], &rd) ||
            !parse_int(fld[2], &cn) || !parse_int(fld[3], &cd) || end == fld[4] || *end) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: expected 'row node, row DoF, column node, column DoF, "
                            "value', found '%s'",
                            a->path, lineno, shown);
            break;
        }
        long bad = rn < 1 ? rn : cn;
        if (rn < 1 || cn < 1) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: node %ld: %s", a->path, lineno, bad,
                            bad < 0 ? "a negative label is a node Abaqus adds internally "
                                      "(Lagrange multiplier, element internal node), which "
                                      "tvds cannot name"
                                    : "node labels start at 1");
            break;
        }
        if (rn > ABQ_MAX_LABEL || cn > ABQ_MAX_LABEL) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: node label above %ld", a->path, lineno,
                            (long)ABQ_MAX_LABEL);
            break;
        }
        if (rd < 1 || rd > 6 || cd < 1 || cd > 6) {
            rc =
                TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                           "%s:%ld: node %ld DoF %ld: tvds maps DoFs 1-3 (translations) and "
                           "4-6 (rotations) only",
                           a->path, lineno, rd < 1 || rd > 6 ? rn : cn, rd < 1 || rd > 6 ? rd : cd);
            break;
        }
        if (!isfinite(v)) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: value is not finite", a->path, lineno);
            break;
        }
        rc = tvds_imp_push(a, rn, (int)rd, cn, (int)cd, v, lineno, ctx);
    }
    free(line); /* getline's buffer */
    if (!rc && ferror(f)) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: read error", a->path);
    fclose(f);
    if (!rc && a->n == 0) rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: no matrix entry", a->path);
    return rc;
}

int tvds_import_abaqus(const char *stiffness, const char *mass, const char *inp_path,
                       tvds_fe_model **out, tvds_ccx_info *info, cholmod_common *cc, tvds_ctx *ctx)
{
    if (!stiffness || !mass || !out || !cc)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "import abaqus: missing argument");
    *out = NULL;
    if (info) memset(info, 0, sizeof *info);
    tvds_imp_matrix K = {stiffness, "K", TVDS_IMP_SYM_EQUAL, NULL, NULL, NULL, NULL, NULL, 0, 0};
    tvds_imp_matrix M = {mass, "M", TVDS_IMP_SYM_EQUAL, NULL, NULL, NULL, NULL, NULL, 0, 0};
    tvds_deck *deck = NULL;
    tvds_fe_model *m = NULL;
    int rc = inp_path ? tvds_deck_read(inp_path, &deck, ctx) : TVDS_OK;
    if (!rc) rc = read_matrix(&K, ctx);
    if (!rc) rc = read_matrix(&M, ctx);
    if (!rc) {
        tvds_imp_coords co = {deck, 0, NULL, NULL, inp_path ? inp_path : ""};
        rc = tvds_imp_assemble(&K, &M, &co, &m, cc, ctx);
    }
    if (!rc && deck) rc = tvds_deck_sets(deck, m, info, ctx);
    if (!rc) {
        const char *src = inp_path ? inp_path : stiffness;
        const char *b = strrchr(src, '/');
        b = b ? b + 1 : src;
        size_t l = strcspn(b, ".");
        m->name = tvds_malloc(l + 1);
        if (!m->name) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        } else {
            memcpy(m->name, b, l);
            m->name[l] = '\0';
        }
    }
    tvds_deck_free(&deck);
    tvds_imp_matrix_free(&K);
    tvds_imp_matrix_free(&M);
    if (rc) {
        tvds_fe_model_free(&m, cc);
        return rc;
    }
    *out = m;
    return TVDS_OK;
}
