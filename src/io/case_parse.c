/* case_parse.c — case-file text: the INI reader (libinih) with continuation lines, --set
 * overrides, allowed keys per section, errors with file and line, typed getters. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/case_impl.h"

static const char *const case_run_keys[] = {
    "name",    "method", "dt",           "dt_safety", "allow_unstable_dt",
    "t_end",   "out_dt", "window",       "film_tol",  "film_maxit",
    "v_stick", "path",   "nonconverged", "max_steps", "integrator",
    "f_band",  "search", "reuse",        NULL};
static const char *const case_sub_keys[] = {"dir",   "damping", "alpha",  "beta", "alpha0",
                                            "beta0", "t_hold",  "t_ramp", NULL};
static const char *const case_constraint_keys[] = {"terms", "value", NULL};
static const char *const case_load_keys[] = {"dof", "f", "split", "faces", "pressure", NULL};
static const char *const case_gravity_keys[] = {"g", "scale", NULL};
static const char *const case_base_keys[] = {"dir", "acc", NULL};
static const char *const case_element_keys[] = {
    "type",     "dof1",   "dof2",      "k",         "b",       "kindF", "Fst",
    "Fsl",      "dvL",    "rigid",     "kindPS",    "dxSD0",   "Fs0",   "dFfrel",
    "eps_dvsl", "eps_dI", "kindTrans", "eps_sigma", "eps_tau", NULL};
static const char *const case_initial_keys[] = {"dof", "u0", "v0", NULL};
static const char *const case_probe_keys[] = {"quantity", "dof", "point", NULL};
static const char *const case_contact_keys[] = {
    "slave",       "master",      "dim",         "point",
    "normal",      "t1",          "motion_x",    "motion_y",
    "motion_z",    "mu",          "mu_s",        "mu_k",
    "mu_axis",     "exact_stick", "v_stick",     "initially_stuck",
    "law",         "kn",          "pen0",        "kt",
    "cn",          "ct",          "slave_kin_x", "slave_kin_y",
    "slave_kin_z", "surface",     "omega",       NULL};

static const sec_spec specs[] = {
    {"run", 0, case_run_keys},         {"substructure", 1, case_sub_keys},
    {"contact", 1, case_contact_keys}, {"constraint", 1, case_constraint_keys},
    {"load", 1, case_load_keys},       {"gravity", 0, case_gravity_keys},
    {"base", 0, case_base_keys},       {"element", 1, case_element_keys},
    {"initial", 1, case_initial_keys}, {"probe", 1, case_probe_keys},
};
#define NSPECS ((int)(sizeof specs / sizeof specs[0]))

static const sec_spec *find_spec(const char *type)
{
    for (int i = 0; i < NSPECS; i++)
        if (strcmp(specs[i].type, type) == 0) return &specs[i];
    return NULL;
}

/* ---- Errors --------------------------------------------------------------------------------- */

/* Record "where: message" where is file:line or --set override. First error wins. */
static int verr(case_parser *p, int code, int line, int set_idx, const char *fmt, va_list ap)
{
    char buf[768];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (!p->failed) p->failed = code;
    if (set_idx >= 0)
        return TVDS_ERROR(p->ctx, code, "--set %.200s: %s", p->overrides[set_idx], buf);
    return TVDS_ERROR(p->ctx, code, "%.200s:%d: %s", p->file, line > 0 ? line : 1, buf);
}

int TVDS_PRINTF(4, 5) case_err_line(case_parser *p, int code, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verr(p, code, line, -1, fmt, ap);
    va_end(ap);
    return rc;
}

int TVDS_PRINTF(4, 5)
    case_err_ent(case_parser *p, int code, const case_entry *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verr(p, code, e->line, e->set_idx, fmt, ap);
    va_end(ap);
    return rc;
}

int TVDS_PRINTF(4, 5) case_err_sec(case_parser *p, int code, int sec, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verr(p, code, p->secs[sec].line, p->secs[sec].set_idx, fmt, ap);
    va_end(ap);
    return rc;
}

/* "[contact tip]" for messages. */
const char *case_sec_label(const case_parser *p, int sec, char *buf, size_t size)
{
    const case_section *s = &p->secs[sec];
    if (s->name)
        snprintf(buf, size, "[%s %s]", s->type, s->name);
    else
        snprintf(buf, size, "[%s]", s->type);
    return buf;
}

/* ---- Reading the INI text ------------------------------------------------------------------- */

static int add_section(case_parser *p, const char *type, const char *name, const char *raw,
                       int line, int set_idx)
{
    if (p->nsec == p->capsec) {
        int nc = p->capsec ? 2 * p->capsec : 16;
        case_section *ns = tvds_realloc(p->secs, (size_t)nc * sizeof *ns);
        if (!ns) return -1;
        p->secs = ns;
        p->capsec = nc;
    }
    case_section *s = &p->secs[p->nsec];
    memset(s, 0, sizeof *s);
    s->type = tvds_strdup(type);
    s->name = name ? tvds_strdup(name) : NULL;
    snprintf(s->raw, sizeof s->raw, "%s", raw);
    s->line = line;
    s->set_idx = set_idx;
    if (!s->type || (name && !s->name)) {
        tvds_free(s->type);
        tvds_free(s->name);
        return -1;
    }
    return p->nsec++;
}

static int add_entry(case_parser *p, int sec, const char *key, const char *value, int line,
                     int set_idx)
{
    if (p->nent == p->capent) {
        int nc = p->capent ? 2 * p->capent : 64;
        case_entry *ne = tvds_realloc(p->ents, (size_t)nc * sizeof *ne);
        if (!ne) return -1;
        p->ents = ne;
        p->capent = nc;
    }
    case_entry *e = &p->ents[p->nent];
    memset(e, 0, sizeof *e);
    e->sec = sec;
    e->key = tvds_strdup(key);
    e->value = tvds_strdup(value);
    e->line = line;
    e->set_idx = set_idx;
    if (!e->key || !e->value) {
        tvds_free(e->key);
        tvds_free(e->value);
        return -1;
    }
    return p->nent++;
}

int case_find_section(const case_parser *p, const char *type, const char *name)
{
    for (int i = 0; i < p->nsec; i++) {
        const case_section *s = &p->secs[i];
        if (strcmp(s->type, type) != 0) continue;
        if ((!name && !s->name) || (name && s->name && strcmp(name, s->name) == 0)) return i;
    }
    return -1;
}

static case_entry *find_entry(case_parser *p, int sec, const char *key)
{
    for (int i = 0; i < p->nent; i++)
        if (p->ents[i].sec == sec && strcmp(p->ents[i].key, key) == 0) return &p->ents[i];
    return NULL;
}

/* Section header "[type name]" seen by the reader at line. */
static void reader_section(case_parser *p, char *text, const char *raw)
{
    char *tok[3];
    char label[96];
    snprintf(label, sizeof label, "%s", raw);
    int nt = case_split_ws(text, tok, 2);
    p->last_key_line = 0;
    if (nt == 0) {
        case_err_line(p, TVDS_ERR_PARSE, p->lineno, "empty section header '[]'");
        return;
    }
    if (nt > 2) {
        case_err_line(
            p, TVDS_ERR_PARSE, p->lineno,
            "section header '[%s]' has more than two words (expected [type] or [type NAME])",
            label);
        return;
    }
    const sec_spec *sp = find_spec(tok[0]);
    if (!sp) {
        case_err_line(
            p, TVDS_ERR_PARSE, p->lineno,
            "unknown section [%s] (expected run, substructure, contact, constraint, load, "
            "gravity, base, element, initial or probe)",
            label);
        return;
    }
    if (sp->named && nt != 2) {
        case_err_line(p, TVDS_ERR_PARSE, p->lineno, "section [%s] needs a name: [%s NAME]", tok[0],
                      tok[0]);
        return;
    }
    if (!sp->named && nt != 1) {
        case_err_line(p, TVDS_ERR_PARSE, p->lineno, "section [%s] takes no name", tok[0]);
        return;
    }
    if (nt == 2 && !case_valid_name(tok[1])) {
        case_err_line(p, TVDS_ERR_PARSE, p->lineno,
                      "name '%s' of [%s] may only use letters, digits, '_' and '-'", tok[1],
                      tok[0]);
        return;
    }
    int prev = case_find_section(p, tok[0], nt == 2 ? tok[1] : NULL);
    if (prev >= 0) {
        case_err_line(p, TVDS_ERR_PARSE, p->lineno, "duplicate section [%s] (first at line %d)",
                      label, p->secs[prev].line);
        return;
    }
    int s = add_section(p, tok[0], nt == 2 ? tok[1] : NULL, raw, p->lineno, -1);
    if (s < 0) {
        case_err_line(p, TVDS_ERR_NOMEM, p->lineno, "out of memory");
        return;
    }
    p->cur_sec = s;
}

/* fgets-like reader for libinih that counts lines and checks the line syntax itself, so that
 * every error carries its line number (this libinih build has no line numbers in handlers). */
char *case_reader(char *str, int num, void *stream)
{
    case_parser *p = stream;
    ssize_t len;
    if (p->fp) {
        len = getline(&p->linebuf, &p->linecap, p->fp);
        if (len < 0) return NULL;
    } else {
        if (!p->str || !*p->str) return NULL;
        const char *nl = strchr(p->str, '\n');
        size_t n = nl ? (size_t)(nl - p->str) + 1 : strlen(p->str);
        if (n + 1 > p->linecap) {
            char *nb = realloc(p->linebuf, n + 1); /* freed with free, like getline's buffer */
            if (!nb) return NULL;
            p->linebuf = nb;
            p->linecap = n + 1;
        }
        memcpy(p->linebuf, p->str, n);
        p->linebuf[n] = '\0';
        p->str += n;
        len = (ssize_t)n;
    }
    p->lineno++;
    char *line = p->linebuf;
    if (p->lineno == 1 && (unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
        (unsigned char)line[2] == 0xBF)
        line += 3, len -= 3;
    p->indented = line[0] == ' ' || line[0] == '\t';
    /* Line end normalised to "\n" (CRLF files); libinih's buffer holds num - 1 characters. */
    size_t vis = (size_t)len;
    while (vis > 0 && (line[vis - 1] == '\n' || line[vis - 1] == '\r'))
        vis--;
    line[vis] = '\0';
    if (vis + 2 > (size_t)num) {
        case_err_line(
            p, TVDS_ERR_PARSE, p->lineno,
            "line longer than %d characters (split long values over indented continuation "
            "lines or use a table file)",
            num - 2);
        snprintf(str, (size_t)num, "\n");
        return str;
    }
    memcpy(str, line, vis);
    str[vis] = '\n';
    str[vis + 1] = '\0';
    if (p->failed) return str;

    /* Syntax as libinih sees it: comment, [section], key = value, or a continuation. */
    char *s = line;
    while (*s && isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    if (!*s || *s == ';' || *s == '#') return str;
    if (p->indented && p->last_key_line) return str; /* continuation of the previous value */
    if (*s == '[') {
        char *close = strchr(s, ']');
        if (!close) {
            case_err_line(p, TVDS_ERR_PARSE, p->lineno, "section header without closing ']'");
            return str;
        }
        if (p->indented) {
            case_err_line(p, TVDS_ERR_PARSE, p->lineno, "indented section header");
            return str;
        }
        char after[8];
        char *rest = close + 1;
        while (*rest && isspace((unsigned char)*rest))
            rest++;
        if (*rest && *rest != ';' && *rest != '#') {
            snprintf(after, sizeof after, "%s", rest);
            case_err_line(p, TVDS_ERR_PARSE, p->lineno, "text after section header: '%s...'",
                          after);
            return str;
        }
        *close = '\0';
        char raw[64];
        snprintf(raw, sizeof raw, "%s", s + 1);
        reader_section(p, s + 1, raw);
        return str;
    }
    char *eq = strpbrk(s, "=:");
    if (!eq || eq == s) {
        case_err_line(p, TVDS_ERR_PARSE, p->lineno,
                      "expected 'key = value', '[section]' or a comment");
        return str;
    }
    if (p->cur_sec < 0) {
        case_err_line(p, TVDS_ERR_PARSE, p->lineno, "key outside any section");
        return str;
    }
    p->last_key_line = p->lineno;
    return str;
}

int case_handler(void *user, const char *section, const char *name, const char *value)
{
    case_parser *p = user;
    if (p->failed) return 1;
    if (p->cur_sec < 0) return 1; /* reported by the reader */
    if (strncmp(section, p->secs[p->cur_sec].raw, 49) != 0) {
        case_err_line(p, TVDS_ERR_PARSE, p->lineno, "malformed section header");
        return 1;
    }
    if (p->indented && p->nent > 0) {
        case_entry *last = &p->ents[p->nent - 1];
        if (last->sec == p->cur_sec && strcmp(last->key, name) == 0) {
            size_t a = strlen(last->value), b = strlen(value);
            char *nv = tvds_realloc(last->value, a + b + 2);
            if (!nv) {
                case_err_line(p, TVDS_ERR_NOMEM, p->lineno, "out of memory");
                return 1;
            }
            nv[a] = ' ';
            memcpy(nv + a + 1, value, b + 1);
            last->value = nv;
            return 1;
        }
    }
    case_entry *prev = find_entry(p, p->cur_sec, name);
    if (prev) {
        char lab[160];
        case_err_line(p, TVDS_ERR_PARSE, p->lineno, "duplicate key '%s' in %s (first at line %d)",
                      name, case_sec_label(p, p->cur_sec, lab, sizeof lab), prev->line);
        return 1;
    }
    if (add_entry(p, p->cur_sec, name, value, p->lineno, -1) < 0)
        case_err_line(p, TVDS_ERR_NOMEM, p->lineno, "out of memory");
    return 1;
}

static int TVDS_PRINTF(4, 5) err_set(case_parser *p, int code, int set_idx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verr(p, code, 0, set_idx, fmt, ap);
    va_end(ap);
    return rc;
}

/* Apply "--set" overrides: "type.key=value" or "type.NAME.key=value". */
int case_apply_overrides(case_parser *p, int n)
{
    for (int i = 0; i < n; i++) {
        const char *o = p->overrides[i];
        const char *eq = o ? strchr(o, '=') : NULL;
        if (!eq) return err_set(p, TVDS_ERR_INVALID, i, "expected section.key=value");
        size_t nl = (size_t)(eq - o);
        char lhs[256];
        if (nl >= sizeof lhs) return err_set(p, TVDS_ERR_INVALID, i, "key too long");
        memcpy(lhs, o, nl);
        lhs[nl] = '\0';
        while (nl > 0 && isspace((unsigned char)lhs[nl - 1]))
            lhs[--nl] = '\0';
        char *dot1 = strchr(lhs, '.'), *dot2 = strrchr(lhs, '.');
        if (!dot1) return err_set(p, TVDS_ERR_INVALID, i, "expected section.key=value");
        *dot1 = '\0';
        const char *type = lhs, *key = dot2 + 1, *name = NULL;
        if (dot2 != dot1) {
            *dot2 = '\0';
            name = dot1 + 1;
        }
        while (*eq == '=' || isspace((unsigned char)*eq))
            eq++;
        char value[1024];
        snprintf(value, sizeof value, "%s", eq);
        for (size_t k = strlen(value); k > 0 && isspace((unsigned char)value[k - 1]); k--)
            value[k - 1] = '\0';
        const sec_spec *sp = find_spec(type);
        if (!sp) return err_set(p, TVDS_ERR_INVALID, i, "unknown section type '%s'", type);
        if (!*key) return err_set(p, TVDS_ERR_INVALID, i, "empty key");
        if (sp->named && !name)
            return err_set(p, TVDS_ERR_INVALID, i, "[%s] sections are named: write %s.NAME.%s=...",
                           type, type, key);
        if (!sp->named && name)
            return err_set(p, TVDS_ERR_INVALID, i, "[%s] takes no name: write %s.KEY=...", type,
                           type);
        int sec = case_find_section(p, type, name);
        if (sec < 0) {
            if (sp->named)
                return err_set(p, TVDS_ERR_INVALID, i, "no section [%s %s] in the case file", type,
                               name);
            sec = add_section(p, type, NULL, type, 0, i);
            if (sec < 0) return err_set(p, TVDS_ERR_NOMEM, i, "out of memory");
        }
        case_entry *e = find_entry(p, sec, key);
        if (e) {
            char *nv = tvds_strdup(value);
            if (!nv) return err_set(p, TVDS_ERR_NOMEM, i, "out of memory");
            tvds_free(e->value);
            e->value = nv;
            e->line = 0;
            e->set_idx = i;
        } else if (add_entry(p, sec, key, value, 0, i) < 0) {
            return err_set(p, TVDS_ERR_NOMEM, i, "out of memory");
        }
    }
    return TVDS_OK;
}

/* Every key must belong to its section type. */
int case_check_keys(case_parser *p)
{
    for (int i = 0; i < p->nent; i++) {
        case_entry *e = &p->ents[i];
        const sec_spec *sp = find_spec(p->secs[e->sec].type);
        int ok = 0;
        for (const char *const *k = sp->keys; *k; k++)
            if (strcmp(*k, e->key) == 0) ok = 1;
        if (!ok) {
            char lab[160];
            return case_err_ent(p, TVDS_ERR_PARSE, e, "unknown key '%s' in %s", e->key,
                                case_sec_label(p, e->sec, lab, sizeof lab));
        }
    }
    return TVDS_OK;
}

/* ---- Typed getters: each marks the entry used; absent optional keys keep the default ------- */

case_entry *case_get(case_parser *p, int sec, const char *key)
{
    case_entry *e = find_entry(p, sec, key);
    if (e) e->used = 1;
    return e;
}

int case_missing(case_parser *p, int sec, const char *key)
{
    char lab[160];
    return case_err_sec(p, TVDS_ERR_PARSE, sec, "%s: missing key '%s'",
                        case_sec_label(p, sec, lab, sizeof lab), key);
}

/* Number with bounds lo <= v (lo_strict: lo < v), v <= hi. */
int case_get_num(case_parser *p, int sec, const char *key, int required, double *out, double lo,
                 int lo_strict, double hi)
{
    case_entry *e = case_get(p, sec, key);
    if (!e) return required ? case_missing(p, sec, key) : TVDS_OK;
    double v;
    if (!case_parse_double(e->value, &v))
        return case_err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' %s", key, e->value,
                            case_bad_number_why(e->value));
    if ((lo_strict ? !(v > lo) : !(v >= lo)) || !(v <= hi)) {
        if (hi < HUGE_VAL)
            return case_err_ent(p, TVDS_ERR_INVALID, e, "%s = %g is outside %s%g, %g]", key, v,
                                lo_strict ? "(" : "[", lo, hi);
        return case_err_ent(p, TVDS_ERR_INVALID, e, "%s = %g must be %s %g", key, v,
                            lo_strict ? ">" : ">=", lo);
    }
    *out = v;
    return TVDS_OK;
}

int case_get_int(case_parser *p, int sec, const char *key, int *out, long lo, long hi)
{
    case_entry *e = case_get(p, sec, key);
    if (!e) return TVDS_OK;
    long v;
    if (!case_parse_long(e->value, &v))
        return case_err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' is not an integer", key, e->value);
    if (v < lo || v > hi)
        return case_err_ent(p, TVDS_ERR_INVALID, e, "%s = %ld is outside [%ld, %ld]", key, v, lo,
                            hi);
    *out = (int)v;
    return TVDS_OK;
}

int case_get_bool(case_parser *p, int sec, const char *key, int *out)
{
    case_entry *e = case_get(p, sec, key);
    if (!e) return TVDS_OK;
    const char *v = e->value;
    if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1"))
        *out = 1;
    else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0"))
        *out = 0;
    else
        return case_err_ent(p, TVDS_ERR_PARSE, e, "%s: expected yes or no, got '%s'", key, v);
    return TVDS_OK;
}

/* One of the NULL-terminated words; *out = its index. */
int case_get_enum(case_parser *p, int sec, const char *key, const char *const *words, int *out)
{
    case_entry *e = case_get(p, sec, key);
    if (!e) return TVDS_OK;
    for (int i = 0; words[i]; i++)
        if (strcmp(words[i], e->value) == 0) {
            *out = i;
            return TVDS_OK;
        }
    char list[256] = "";
    for (int i = 0; words[i]; i++) {
        strncat(list, words[i], sizeof list - strlen(list) - 1);
        if (words[i + 1])
            strncat(list, words[i + 2] ? ", " : " or ", sizeof list - strlen(list) - 1);
    }
    return case_err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' is not one of %s", key, e->value, list);
}

/* Copy a value into a fixed buffer; a value that does not fit is an error, never truncated. */
int case_copy_value(case_parser *p, const case_entry *e, const char *key, const char *text,
                    char *buf, size_t size)
{
    if (strlen(text) >= size)
        return case_err_ent(p, TVDS_ERR_PARSE, e, "%s: value longer than %zu characters", key,
                            size - 1);
    memcpy(buf, text, strlen(text) + 1);
    return TVDS_OK;
}

/* Exactly n numbers. *given = 1 when present. */
int case_get_vec(case_parser *p, int sec, const char *key, int n, double *out, int *given)
{
    case_entry *e = case_get(p, sec, key);
    if (given) *given = e != NULL;
    if (!e) return TVDS_OK;
    char buf[512];
    char *tok[8];
    int rc = case_copy_value(p, e, key, e->value, buf, sizeof buf);
    if (rc) return rc;
    int nt = case_split_ws(buf, tok, 6);
    if (nt != n)
        return case_err_ent(p, TVDS_ERR_PARSE, e, "%s: expected %d numbers, got %s%d", key, n,
                            nt > 6 ? "more than " : "", nt > 6 ? 6 : nt);
    for (int i = 0; i < n; i++)
        if (!case_parse_double(tok[i], &out[i]))
            return case_err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' %s", key, tok[i],
                                case_bad_number_why(tok[i]));
    return TVDS_OK;
}

int case_get_fn(case_parser *p, int sec, const char *key, int required, tvds_fn *f)
{
    case_entry *e = case_get(p, sec, key);
    if (!e) return required ? case_missing(p, sec, key) : TVDS_OK;
    char msg[512];
    tvds_fn nf;
    int rc = tvds_fn_parse(e->value, p->base_dir, &nf, msg, sizeof msg);
    if (rc) return case_err_ent(p, rc, e, "%s: %s", key, msg);
    tvds_fn_clear(f);
    *f = nf;
    return TVDS_OK;
}

/* Reference "SUB:NODE:DIR" or "SUB:mode:K" to a reduced DoF. */
int case_parse_dof_ref(case_parser *p, const tvds_model *m, const case_entry *e, const char *key,
                       const char *text, int *sub, int *dof)
{
    char buf[256];
    char *f[4];
    int rc = case_copy_value(p, e, key, text, buf, sizeof buf);
    if (rc) return rc;
    int nf = case_split_colon(buf, f);
    if (nf != 3)
        return case_err_ent(p, TVDS_ERR_PARSE, e,
                            "%s: '%s' is not SUB:NODE:DIR (DIR ux uy uz rx ry rz)", key, text);
    int is = tvds_model_find_sub(m, f[0]);
    if (is < 0)
        return case_err_ent(p, TVDS_ERR_INVALID, e, "%s: unknown substructure '%s'", key, f[0]);
    const tvds_substructure *s = m->subs[is];
    if (strcmp(f[1], "mode") == 0) {
        long k;
        if (!case_parse_long(f[2], &k))
            return case_err_ent(p, TVDS_ERR_PARSE, e, "%s: mode number '%s' is not an integer", key,
                                f[2]);
        for (int i = 0; i < s->n; i++)
            if (s->dofs[i].kind == TVDS_DOF_MODAL && s->dofs[i].node == k) {
                *sub = is;
                *dof = i;
                return TVDS_OK;
            }
        return case_err_ent(p, TVDS_ERR_INVALID, e, "%s: substructure '%s' has no modal DoF %ld",
                            key, f[0], k);
    }
    long node;
    if (!case_parse_long(f[1], &node))
        return case_err_ent(p, TVDS_ERR_PARSE, e, "%s: node '%s' is not an integer", key, f[1]);
    int dir = case_dir_from_name(f[2]);
    if (dir < 0)
        return case_err_ent(p, TVDS_ERR_PARSE, e,
                            "%s: unknown direction '%s' (expected ux, uy, uz, rx, ry or rz)", key,
                            f[2]);
    int d = tvds_substructure_find_dof(s, node, dir);
    if (d < 0)
        return case_err_ent(p, TVDS_ERR_INVALID, e,
                            "%s: substructure '%s' has no DoF %s at node %ld", key, f[0],
                            case_dir_names[dir], node);
    *sub = is;
    *dof = d;
    return TVDS_OK;
}

static int node_exists(const tvds_substructure *s, long node)
{
    for (int i = 0; i < s->n; i++)
        if (s->dofs[i].kind == TVDS_DOF_PHYSICAL && s->dofs[i].node == node) return 1;
    return 0;
}

/* "SUB:SET" or "SUB:NODE" into a freshly allocated node list. */
int case_parse_nodes_ref(case_parser *p, const tvds_model *m, const case_entry *e, const char *key,
                         int *sub, int *n, long **nodes)
{
    char buf[256];
    char *f[4];
    int rc = case_copy_value(p, e, key, e->value, buf, sizeof buf);
    if (rc) return rc;
    int nf = case_split_colon(buf, f);
    if (nf != 2)
        return case_err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' is not SUB:NODESET or SUB:NODE", key,
                            e->value);
    int is = tvds_model_find_sub(m, f[0]);
    if (is < 0)
        return case_err_ent(p, TVDS_ERR_INVALID, e, "%s: unknown substructure '%s'", key, f[0]);
    const tvds_substructure *s = m->subs[is];
    long node;
    if (case_parse_long(f[1], &node)) {
        if (!node_exists(s, node))
            return case_err_ent(p, TVDS_ERR_INVALID, e, "%s: substructure '%s' has no node %ld",
                                key, f[0], node);
        *nodes = tvds_malloc(sizeof **nodes);
        if (!*nodes) return case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
        (*nodes)[0] = node;
        *n = 1;
    } else {
        int k = tvds_substructure_find_set(s, f[1]);
        if (k < 0)
            return case_err_ent(p, TVDS_ERR_INVALID, e,
                                "%s: substructure '%s' has no node set '%s'", key, f[0], f[1]);
        const tvds_nodeset *ns = &s->sets[k];
        if (ns->n <= 0)
            return case_err_ent(p, TVDS_ERR_INVALID, e, "%s: node set '%s' is empty", key, f[1]);
        *nodes = tvds_malloc((size_t)ns->n * sizeof **nodes);
        if (!*nodes) return case_err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
        memcpy(*nodes, ns->nodes, (size_t)ns->n * sizeof **nodes);
        *n = ns->n;
    }
    *sub = is;
    return TVDS_OK;
}

/* Every node must carry translational DoFs ux, uy (and uz in 3D). */
int case_check_translations(case_parser *p, const tvds_model *m, const case_entry *e, int sub,
                            int n, const long *nodes, int dim)
{
    const tvds_substructure *s = m->subs[sub];
    for (int i = 0; i < n; i++)
        for (int d = 0; d < dim; d++)
            if (tvds_substructure_find_dof(s, nodes[i], d) < 0)
                return case_err_ent(p, TVDS_ERR_INVALID, e,
                                    "%s: node %ld of '%s' has no DoF %s (a %dD contact needs %s)",
                                    e->key, nodes[i], s->name, case_dir_names[d], dim,
                                    dim == 2 ? "ux and uy" : "ux, uy and uz");
    return TVDS_OK;
}

int case_count_type(const case_parser *p, const char *type)
{
    int n = 0;
    for (int i = 0; i < p->nsec; i++)
        if (strcmp(p->secs[i].type, type) == 0) n++;
    return n;
}
