/* cea_conv.c — mesh convergence of a CEA survey: its unstable windows matched with those of a
 * reference survey, the criterion of docs/models.md ("Mesh convergence"), the least stable
 * branch in a frequency band. */
#include <math.h>
#include <string.h>

#include "tvds/tvds_cea.h"

int tvds_cea_conv_match(const tvds_cea_result *r, const tvds_cea_window *w)
{
    int best = -1;
    double bd = INFINITY;
    for (int j = 0; j < r->nwin; j++) {
        const tvds_cea_window *v = &r->win[j];
        double df = fabs(v->f_peak - w->f_peak) / w->f_peak, dsp = fabs(v->s_peak - w->s_peak);
        /* nearest by the sum of the two differences, each in its tolerance's units */
        double d = df / TVDS_CEA_CONV_MATCH_DF + dsp / TVDS_CEA_CONV_MATCH_DS;
        if (df < TVDS_CEA_CONV_MATCH_DF && dsp < TVDS_CEA_CONV_MATCH_DS && d < bd) {
            bd = d;
            best = j;
        }
    }
    return best;
}

void tvds_cea_conv_compare(const tvds_cea_result *ref, double lambda_ref, const tvds_cea_result *c,
                           double lambda_c, tvds_cea_conv *out)
{
    memset(out, 0, sizeof *out);
    out->strongest = -1;
    double remax = 0.0;
    for (int w = 0; w < ref->nwin; w++)
        if (ref->win[w].re_max > remax) remax = ref->win[w].re_max;
    double floor_re = TVDS_CEA_CONV_COUNT * remax;
    for (int w = 0; w < ref->nwin; w++) {
        const tvds_cea_window *rw = &ref->win[w];
        if (rw->re_max < floor_re) continue;
        int j = tvds_cea_conv_match(c, rw);
        if (j < 0) {
            out->missing++;
            continue;
        }
        double df = fabs(c->win[j].f_peak - rw->f_peak) / rw->f_peak;
        double dr = fabs(c->win[j].re_max - rw->re_max) / rw->re_max;
        if (df > out->df) out->df = df;
        if (dr > out->dre) out->dre = dr;
    }
    for (int j = 0; j < c->nwin; j++) {
        if (out->strongest < 0 || c->win[j].re_max > c->win[out->strongest].re_max)
            out->strongest = j;
        if (c->win[j].re_max < floor_re) continue;
        out->counted++;
        if (tvds_cea_conv_match(ref, &c->win[j]) < 0) out->extra++;
    }
    out->dlambda = fabs(lambda_c - lambda_ref) / lambda_ref;
    out->converged = out->missing == 0 && out->extra == 0 && out->df <= TVDS_CEA_CONV_DF &&
                     out->dre <= TVDS_CEA_CONV_DRE && out->dlambda <= TVDS_CEA_CONV_DLAMBDA;
}

double tvds_cea_band_max(const tvds_cea_result *r, double f_lo, double f_hi, double *f, double *s)
{
    double best = -INFINITY, fb = NAN, sb = NAN;
    for (int i = 0; i < r->npos; i++)
        for (int b = 0; b < r->nbranch; b++) {
            size_t q = (size_t)i * r->nbranch + b;
            if (r->freq[q] >= f_lo && r->freq[q] <= f_hi && r->re[q] > best) {
                best = r->re[q];
                fb = r->freq[q];
                sb = r->s[i];
            }
        }
    if (f) *f = fb;
    if (s) *s = sb;
    return best;
}
