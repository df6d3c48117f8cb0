/* case_impl.h — the case-file reader shared by src/io/case*.c: raw sections and entries, the
 * parser state and the helpers of each file (case.c drives them: read, override, check the
 * keys, build the model section by section). */
#ifndef TVDS_CASE_IMPL_H
#define TVDS_CASE_IMPL_H

#include <stddef.h>
#include <stdio.h>

#include "tvds/tvds_case.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"

typedef struct case_section {
    char *type;
    char *name;   /* NULL for unnamed sections */
    char raw[64]; /* header text as libinih reports it (truncated like libinih) */
    int line;     /* 0 when added by an override */
    int set_idx;  /* override that added it, or -1 */
} case_section;

typedef struct case_entry {
    int sec;
    char *key;
    char *value;
    int line;
    int set_idx; /* override that wrote it, or -1 */
    int used;
} case_entry;

typedef struct case_parser {
    const char *file; /* for messages */
    const char *base_dir;
    const char *const *overrides;
    case_section *secs;
    int nsec, capsec;
    case_entry *ents;
    int nent, capent;
    /* reader state */
    FILE *fp;
    const char *str;
    char *linebuf;
    size_t linecap;
    int lineno;
    int indented;
    int cur_sec;
    int last_key_line; /* a key line seen in the current section (continuations allowed) */
    tvds_ctx *ctx;
    int failed; /* a status once an error was recorded */
} case_parser;

typedef struct sec_spec {
    const char *type;
    int named;
    const char *const *keys;
} sec_spec;

/* ---- case_text.c: numbers, tokens, DoF names, paths ---- */
int case_dir_from_name(const char *s);
extern const char *const case_dir_names[6];
int case_is_integer_text(const char *s);
char *case_join_path(const char *base, const char *rel);
void case_normalize3(double *v);
int case_parse_double(const char *s, double *out);
/* The end of the message for a text case_parse_double refuses: "is not a finite number", or
 * what is wrong with a number that underflows or overflows. */
const char *case_bad_number_why(const char *s);
int case_parse_long(const char *s, long *out);
int case_split_colon(char *s, char **f);
int case_split_ws(char *s, char **tok, int maxtok);
int case_valid_name(const char *s);

/* (case_fn.c: tvds_fn_parse and tvds_fn_format, public in tvds_case.h.) */

/* ---- case_parse.c: errors, the INI reader, --set overrides, allowed keys, typed getters ---- */
int case_apply_overrides(case_parser *p, int n);
int case_check_keys(case_parser *p);
int case_check_translations(case_parser *p, const tvds_model *m, const case_entry *e, int sub,
                            int n, const long *nodes, int dim);
int case_copy_value(case_parser *p, const case_entry *e, const char *key, const char *text,
                    char *buf, size_t size);
int case_count_type(const case_parser *p, const char *type);
int case_err_ent(case_parser *p, int code, const case_entry *e, const char *fmt, ...)
    TVDS_PRINTF(4, 5);
int case_err_line(case_parser *p, int code, int line, const char *fmt, ...) TVDS_PRINTF(4, 5);
int case_err_sec(case_parser *p, int code, int sec, const char *fmt, ...) TVDS_PRINTF(4, 5);
int case_find_section(const case_parser *p, const char *type, const char *name);
case_entry *case_get(case_parser *p, int sec, const char *key);
int case_get_bool(case_parser *p, int sec, const char *key, int *out);
int case_get_enum(case_parser *p, int sec, const char *key, const char *const *words, int *out);
int case_get_fn(case_parser *p, int sec, const char *key, int required, tvds_fn *f);
int case_get_int(case_parser *p, int sec, const char *key, int *out, long lo, long hi);
int case_get_num(case_parser *p, int sec, const char *key, int required, double *out, double lo,
                 int lo_strict, double hi);
int case_get_vec(case_parser *p, int sec, const char *key, int n, double *out, int *given);
int case_handler(void *user, const char *section, const char *name, const char *value);
int case_missing(case_parser *p, int sec, const char *key);
int case_parse_dof_ref(case_parser *p, const tvds_model *m, const case_entry *e, const char *key,
                       const char *text, int *sub, int *dof);
int case_parse_nodes_ref(case_parser *p, const tvds_model *m, const case_entry *e, const char *key,
                         int *sub, int *n, long **nodes);
char *case_reader(char *str, int num, void *stream);
const char *case_sec_label(const case_parser *p, int sec, char *buf, size_t size);

/* ---- case_sections.c: the sections run, substructure, element, initial and probe into the
 * model ---- */
int case_build_element(case_parser *p, tvds_model *m, int sec, tvds_element *el);
int case_build_initial(case_parser *p, tvds_model *m, int sec, int *cap);
int case_build_probe(case_parser *p, tvds_model *m, int sec, tvds_probe *pr);
int case_build_run(case_parser *p, tvds_model *m, const char *default_name);
int case_build_substructures(case_parser *p, tvds_model *m);

/* ---- case_loads.c: [load] and [constraint], a node set or face set expanded to one entry per
 * node; both append to the model's arrays (capacity *cap) ---- */
int case_build_constraint(case_parser *p, tvds_model *m, int sec, int *cap);
int case_build_load(case_parser *p, tvds_model *m, int sec, int *cap);

/* ---- case_contact.c: the contact sections into the model ---- */
int case_build_contact(case_parser *p, tvds_model *m, int sec, tvds_contact *c);

#endif
