/* tokens.c — the one line tokenizer of tvds's text inputs: blank-separated tokens,
 * comma-separated lists and whole-token conversions (io_impl.h). */
#include "io/io_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Tokens ----------------------------------------------------------------------------- */

int tvds_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

int tvds_token_next(const char **p, const char *e, const char **tb, const char **te)
{
    const char *q = *p;
    while (q < e && tvds_blank(*q))
        q++;
    if (q >= e) {
        *p = q;
        return 0;
    }
    *tb = q;
    while (q < e && !tvds_blank(*q))
        q++;
    *te = q;
    *p = q;
    return 1;
}

int tvds_list_next(const char **p, const char *e, const char **ib, const char **ie)
{
    const char *q = *p;
    if (q >= e) return 0;
    const char *c = memchr(q, ',', (size_t)(e - q));
    const char *end = c ? c : e;
    *p = c ? c + 1 : e;
    while (q < end && tvds_blank(*q))
        q++;
    while (end > q && tvds_blank(end[-1]))
        end--;
    *ib = q;
    *ie = end;
    return 1;
}

int tvds_tokens(const char *b, const char *e, const char **tb, const char **te, int max)
{
    int n = 0;
    const char *p = b, *xb, *xe;
    while (tvds_token_next(&p, e, &xb, &xe)) {
        if (n == max) return max + 1;
        tb[n] = xb;
        te[n] = xe;
        n++;
    }
    return n;
}

int tvds_token_long(const char *b, const char *e, long *v)
{
    const char *q = b;
    if (q < e && (*q == '+' || *q == '-')) q++;
    if (q == e) return 0;
    for (; q < e; q++)
        if (*q < '0' || *q > '9') return 0;
    errno = 0;
    char *end;
    long x = strtol(b, &end, 10);
    if (end != e || errno == ERANGE) return 0;
    *v = x;
    return 1;
}

int tvds_token_double(const char *b, const char *e, double *v)
{
    for (const char *q = b; q < e; q++) {
        char c = *q;
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
            return 0;
    }
    errno = 0;
    char *end;
    double x = strtod(b, &end);
    if (end != e || end == b || !isfinite(x)) return 0;
    *v = x;
    return 1;
}

int tvds_token_name(const char *b, const char *e)
{
    if (b == e) return 0;
    for (const char *q = b; q < e; q++) {
        char c = *q;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return 0;
    }
    return 1;
}

int tvds_token_dir(const char *b, const char *e)
{
    static const char *const names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
    for (int d = 0; d < 6; d++)
        if (e - b == 2 && memcmp(b, names[d], 2) == 0) return d;
    return -1;
}
