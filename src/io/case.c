/* case.c — case files: INI text (libinih) and --set overrides into a tvds_model; the entry
 * points and the model built section by section (case_sections.c, case_contact.c). */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/case_impl.h"
#include "io/io_impl.h"

static int build_model(case_parser *p, tvds_model *m, const char *default_name)
{
    int rc;
    if ((rc = case_build_run(p, m, default_name))) return rc;
    if ((rc = case_build_substructures(p, m))) return rc;

    int nc = case_count_type(p, "contact"), nb = case_count_type(p, "constraint"),
        nl = case_count_type(p, "load"), ne = case_count_type(p, "element"),
        np = case_count_type(p, "probe");
    if ((nc && !(m->contacts = tvds_calloc((size_t)nc, sizeof *m->contacts))) ||
        (nb && !(m->bil = tvds_calloc((size_t)nb, sizeof *m->bil))) ||
        (nl && !(m->loads = tvds_calloc((size_t)nl, sizeof *m->loads))) ||
        (ne && !(m->elements = tvds_calloc((size_t)ne, sizeof *m->elements))) ||
        (np && !(m->probes = tvds_calloc((size_t)np, sizeof *m->probes))))
        return case_err_line(p, TVDS_ERR_NOMEM, 1, "out of memory");
    int iccap = 0, bilcap = nb, loadcap = nl;
    for (int sec = 0; sec < p->nsec; sec++) {
        const char *t = p->secs[sec].type;
        /* Count first so that a failed build still frees what it half-filled. */
        if (!strcmp(t, "contact")) {
            rc = case_build_contact(p, m, sec, &m->contacts[m->ncontact++]);
        } else if (!strcmp(t, "constraint")) {
            rc = case_build_constraint(p, m, sec, &bilcap);
        } else if (!strcmp(t, "load")) {
            rc = case_build_load(p, m, sec, &loadcap);
        } else if (!strcmp(t, "element")) {
            rc = case_build_element(p, m, sec, &m->elements[m->nel++]);
        } else if (!strcmp(t, "probe")) {
            rc = case_build_probe(p, m, sec, &m->probes[m->nprobe++]);
        } else if (!strcmp(t, "initial")) {
            rc = case_build_initial(p, m, sec, &iccap);
        } else if (!strcmp(t, "gravity")) {
            int given;
            if ((rc = case_get_vec(p, sec, "g", 3, m->gravity, &given))) return rc;
            if (!given) return case_missing(p, sec, "g");
            rc = case_get_fn(p, sec, "scale", 0, &m->gravity_fn);
        } else if (!strcmp(t, "base")) {
            int given;
            if ((rc = case_get_vec(p, sec, "dir", 3, m->base_dir, &given))) return rc;
            if (!given) return case_missing(p, sec, "dir");
            if (m->base_dir[0] == 0 && m->base_dir[1] == 0 && m->base_dir[2] == 0)
                return case_err_ent(p, TVDS_ERR_INVALID, case_get(p, sec, "dir"),
                                    "dir: zero vector");
            case_normalize3(m->base_dir);
            m->has_base_acc = 1;
            rc = case_get_fn(p, sec, "acc", 1, &m->base_acc);
        }
        if (rc) return rc;
    }
    return TVDS_OK;
}

/* ---- Entry points -----------------------------------------------------------------------------
 */

static void parser_free(case_parser *p)
{
    for (int i = 0; i < p->nsec; i++) {
        tvds_free(p->secs[i].type);
        tvds_free(p->secs[i].name);
    }
    tvds_free(p->secs);
    for (int i = 0; i < p->nent; i++) {
        tvds_free(p->ents[i].key);
        tvds_free(p->ents[i].value);
    }
    tvds_free(p->ents);
    free(p->linebuf); /* getline's buffer */
}

static int case_read_common(case_parser *p, const char *default_name, const char *path,
                            int noverrides, tvds_model **pm)
{
    int r = ini_parse_stream(case_reader, p, case_handler, p);
    if (!p->failed && r > 0)
        case_err_line(p, TVDS_ERR_PARSE, r, "expected 'key = value', '[section]' or a comment");
    if (!p->failed && r < 0)
        case_err_line(p, TVDS_ERR_NOMEM, 1, "cannot parse (libinih error %d)", r);
    if (p->failed) return p->failed;
    if (case_apply_overrides(p, noverrides)) return p->failed;
    if (case_check_keys(p)) return p->failed;
    tvds_model *m = tvds_model_create();
    if (!m) return case_err_line(p, TVDS_ERR_NOMEM, 1, "out of memory");
    if (path && !(m->case_path = tvds_strdup(path))) {
        tvds_model_free(&m);
        return case_err_line(p, TVDS_ERR_NOMEM, 1, "out of memory");
    }
    int rc = build_model(p, m, default_name);
    if (!rc) {
        /* Every key was read by some section: anything left is a key of the wrong kind. */
        for (int i = 0; i < p->nent; i++)
            if (!p->ents[i].used) {
                char lab[160];
                rc = case_err_ent(p, TVDS_ERR_PARSE, &p->ents[i], "key '%s' is not used in %s",
                                  p->ents[i].key,
                                  case_sec_label(p, p->ents[i].sec, lab, sizeof lab));
                break;
            }
    }
    if (rc) {
        tvds_model_free(&m);
        return rc;
    }
    *pm = m;
    return TVDS_OK;
}

static char *dirname_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return tvds_strdup(".");
    if (slash == path) return tvds_strdup("/");
    size_t n = (size_t)(slash - path);
    char *d = tvds_malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

/* Base name without directory and extension, e.g. "models/shoe/sdnd100.ini" -> "sdnd100". */
static void stem_of(const char *path, char *out, size_t size)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, size, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out) *dot = '\0';
    for (char *q = out; *q; q++)
        if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-') *q = '_';
    if (!*out) snprintf(out, size, "case");
}

int tvds_case_read(const char *path, const char *const *overrides, int noverrides, tvds_model **m,
                   tvds_ctx *ctx)
{
    if (!m) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_case_read: NULL model pointer");
    *m = NULL;
    if (!path) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_case_read: NULL path");
    FILE *fp = tvds_input_open(path, "case file", ctx);
    if (!fp) return tvds_input_open_error(path, ctx);
    case_parser p;
    memset(&p, 0, sizeof p);
    p.file = path;
    p.overrides = overrides;
    p.fp = fp;
    p.cur_sec = -1;
    p.ctx = ctx;
    char *base = dirname_of(path);
    if (!base) {
        fclose(fp);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    p.base_dir = base;
    char stem[128];
    stem_of(path, stem, sizeof stem);
    int rc = case_read_common(&p, stem, path, noverrides, m);
    fclose(fp);
    parser_free(&p);
    tvds_free(base);
    return rc;
}

int tvds_case_read_string(const char *text, const char *name_for_errors, const char *base_dir,
                          const char *const *overrides, int noverrides, tvds_model **m,
                          tvds_ctx *ctx)
{
    if (!m) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_case_read_string: NULL model pointer");
    *m = NULL;
    if (!text) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_case_read_string: NULL text");
    case_parser p;
    memset(&p, 0, sizeof p);
    p.file = name_for_errors ? name_for_errors : "case.ini";
    p.overrides = overrides;
    p.str = text;
    p.cur_sec = -1;
    p.ctx = ctx;
    p.base_dir = base_dir ? base_dir : ".";
    char stem[128];
    stem_of(p.file, stem, sizeof stem);
    int rc = case_read_common(&p, stem, NULL, noverrides, m);
    parser_free(&p);
    return rc;
}
