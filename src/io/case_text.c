/* case_text.c — small text helpers of case files: numbers, tokens, DoF names, paths, names. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/case_impl.h"
#include "io/io_impl.h"

const char *const case_dir_names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};

/* Full-string finite number. */
int case_parse_double(const char *s, double *out)
{
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v) || errno == ERANGE) return 0;
    *out = v;
    return 1;
}

/* Why s is not accepted by case_parse_double, for the message: a value that underflows (a
 * subnormal such as 4.9e-324, which strtod flags with ERANGE) is a number, just not one tvds
 * can use. */
const char *case_bad_number_why(const char *s)
{
    char *end;
    errno = 0;
    double v = s && *s ? strtod(s, &end) : 0.0;
    if (!s || !*s || end == s || *end != '\0' || isnan(v)) return "is not a finite number";
    if (isinf(v) || (errno == ERANGE && fabs(v) > 1.0))
        return "is not a finite number (too large for a double)";
    if (errno == ERANGE) return "is too small: below 2.2e-308 it underflows (subnormal or zero)";
    return "is not a finite number";
}

int case_parse_long(const char *s, long *out)
{
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE) return 0;
    *out = v;
    return 1;
}

int case_is_integer_text(const char *s)
{
    long v;
    return case_parse_long(s, &v);
}

/* Split s (modified in place) at whitespace into at most maxtok tokens; returns the count, or
 * maxtok + 1 when there are more. */
int case_split_ws(char *s, char **tok, int maxtok)
{
    const char *p = s, *e = s + strlen(s), *tb, *te;
    int n = 0;
    while (tvds_token_next(&p, e, &tb, &te)) {
        if (n == maxtok) return maxtok + 1;
        tok[n++] = (char *)tb;
        if (te < e) {
            s[te - s] = '\0';
            p = te + 1;
        }
    }
    return n;
}

/* Split s (modified) at ':' into at most 3 fields; returns the count (4 when more). */
int case_split_colon(char *s, char **f)
{
    int n = 0;
    f[n++] = s;
    for (char *q = s; *q; q++)
        if (*q == ':') {
            if (n == 3) return 4;
            *q = '\0';
            f[n++] = q + 1;
        }
    return n;
}

int case_dir_from_name(const char *s)
{
    for (int i = 0; i < 6; i++)
        if (strcmp(s, case_dir_names[i]) == 0) return i;
    return -1;
}

char *case_join_path(const char *base, const char *rel)
{
    if (rel[0] == '/' || !base || !*base || strcmp(base, ".") == 0) return tvds_strdup(rel);
    size_t nb = strlen(base), nr = strlen(rel);
    char *p = tvds_malloc(nb + nr + 2);
    if (!p) return NULL;
    memcpy(p, base, nb);
    p[nb] = '/';
    memcpy(p + nb + 1, rel, nr + 1);
    return p;
}

int case_valid_name(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-') return 0;
    return 1;
}

void case_normalize3(double *v)
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++)
        v[i] /= n;
}
