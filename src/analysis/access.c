/* access.c — accessors by function call and name (tvds_access.h): what a binding reads from a
 * model, run data and a CEA result without mirroring their structs, and the run, reduction and
 * import of the CLI's commands as single calls. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "tvds/tvds_access.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"
#include "tvds/tvds_run.h"

/* ---- Model ---------------------------------------------------------------------------------- */

const char *tvds_model_name(const tvds_model *m)
{
    return m && m->name ? m->name : "";
}

double tvds_model_t_end(const tvds_model *m)
{
    return m ? m->opt.t_end : NAN;
}

double tvds_model_dt(const tvds_model *m)
{
    if (!m) return NAN;
    return m->opt.dt_auto ? 0.0 : m->opt.dt;
}

double tvds_model_out_dt(const tvds_model *m)
{
    return m ? m->opt.out_dt : NAN;
}

int tvds_model_method(const tvds_model *m)
{
    return m ? m->opt.method : -1;
}

/* The [run] keys and where they live in tvds_options. */
enum opt_type { OPT_INT, OPT_LONG, OPT_DOUBLE, OPT_DT };
static const struct {
    const char *key;
    size_t off;
    int type;
} run_keys[] = {
    {"method", offsetof(tvds_options, method), OPT_INT},
    {"dt", offsetof(tvds_options, dt), OPT_DT},
    {"dt_safety", offsetof(tvds_options, dt_safety), OPT_DOUBLE},
    {"allow_unstable_dt", offsetof(tvds_options, allow_unstable_dt), OPT_INT},
    {"t_end", offsetof(tvds_options, t_end), OPT_DOUBLE},
    {"out_dt", offsetof(tvds_options, out_dt), OPT_DOUBLE},
    {"window_start", offsetof(tvds_options, win_t0), OPT_DOUBLE},
    {"window_end", offsetof(tvds_options, win_t1), OPT_DOUBLE},
    {"film_tol", offsetof(tvds_options, film_tol), OPT_DOUBLE},
    {"film_maxit", offsetof(tvds_options, film_maxit), OPT_INT},
    {"nonconverged", offsetof(tvds_options, nonconverged_error), OPT_INT},
    {"max_steps", offsetof(tvds_options, max_steps), OPT_LONG},
    {"v_stick", offsetof(tvds_options, v_stick), OPT_DOUBLE},
    {"path", offsetof(tvds_options, modal), OPT_INT},
    {"integrator", offsetof(tvds_options, integrator), OPT_INT},
    {"f_band", offsetof(tvds_options, f_band), OPT_DOUBLE},
    {"search", offsetof(tvds_options, search), OPT_INT},
    {"reuse_off", offsetof(tvds_options, reuse_off), OPT_INT},
};
#define NRUN_KEYS ((int)(sizeof run_keys / sizeof run_keys[0]))

const char *tvds_model_option_key(int i)
{
    return i >= 0 && i < NRUN_KEYS ? run_keys[i].key : NULL;
}

int tvds_model_option(const tvds_model *m, const char *key, double *value, tvds_ctx *ctx)
{
    if (!m || !key || !value)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_model_option: NULL argument");
    for (int i = 0; i < NRUN_KEYS; i++) {
        if (strcmp(run_keys[i].key, key) != 0) continue;
        const char *p = (const char *)&m->opt + run_keys[i].off;
        switch (run_keys[i].type) {
        case OPT_INT:
            *value = *(const int *)(const void *)p;
            break;
        case OPT_LONG:
            *value = (double)*(const long *)(const void *)p;
            break;
        case OPT_DT:
            *value = tvds_model_dt(m);
            break;
        default:
            *value = *(const double *)(const void *)p;
        }
        return TVDS_OK;
    }
    return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "unknown run option '%s'", key);
}

int tvds_model_nsub(const tvds_model *m)
{
    return m ? m->nsub : 0;
}

const char *tvds_model_sub_name(const tvds_model *m, int i)
{
    return m && i >= 0 && i < m->nsub ? m->subs[i]->name : NULL;
}

int tvds_model_sub_ndof(const tvds_model *m, int i)
{
    return m && i >= 0 && i < m->nsub ? m->subs[i]->n : -1;
}

int tvds_model_ncontact(const tvds_model *m)
{
    return m ? m->ncontact : 0;
}

const char *tvds_model_contact_name(const tvds_model *m, int i)
{
    return m && i >= 0 && i < m->ncontact ? m->contacts[i].name : NULL;
}

int tvds_model_find_contact(const tvds_model *m, const char *name)
{
    if (!m || !name) return -1;
    for (int c = 0; c < m->ncontact; c++)
        if (m->contacts[c].name && !strcmp(m->contacts[c].name, name)) return c;
    return -1;
}

int tvds_model_nprobe(const tvds_model *m)
{
    return m ? m->nprobe : 0;
}

const char *tvds_model_probe_name(const tvds_model *m, int i)
{
    return m && i >= 0 && i < m->nprobe ? m->probes[i].name : NULL;
}

/* ---- Channels ------------------------------------------------------------------------------- */

const char *tvds_group_name(int group)
{
    static const char *const names[TVDS_GROUP_COUNT] = {"history", "contacts", "energy"};
    return group >= 0 && group < TVDS_GROUP_COUNT ? names[group] : NULL;
}

int tvds_channel_count(const tvds_data *d, int group)
{
    int n;
    const char *const *names;
    const double *values;
    if (!d || !tvds_group_name(group)) return -1;
    if (tvds_channels(d, group, &n, &names, &values) != TVDS_OK) return -1;
    return n;
}

/* Copy len bytes of src into dst[size] with a NUL; 1 when it had to be cut. */
static int copy_cut(char *dst, size_t size, const char *src, size_t len)
{
    if (!dst) return 0;
    if (size == 0) return len > 0;
    size_t k = len < size ? len : size - 1;
    memcpy(dst, src, k);
    dst[k] = '\0';
    return k < len;
}

int tvds_label_split(const char *label, char *name, size_t name_size, char *unit, size_t unit_size)
{
    if (!label) return TVDS_ERR_INVALID;
    size_t len = strlen(label), nlen = len, u0 = len, ulen = 0;
    /* "NAME [UNIT]": the last " [" of a label that ends with "]". */
    if (len >= 3 && label[len - 1] == ']') {
        const char *open = NULL;
        for (const char *q = label; (q = strstr(q, " [")) != NULL; q++)
            open = q;
        if (open) {
            nlen = (size_t)(open - label);
            u0 = nlen + 2;
            ulen = len - 1 - u0;
        }
    }
    int cut = 0;
    if (name) cut |= copy_cut(name, name_size, label, nlen);
    if (unit) cut |= copy_cut(unit, unit_size, label + u0, ulen);
    return cut ? TVDS_ERR_INVALID : TVDS_OK;
}

int tvds_channel_info(const tvds_data *d, int group, int i, char *name, size_t name_size,
                      char *unit, size_t unit_size)
{
    int n;
    const char *const *names;
    const double *values;
    if (!d || !tvds_group_name(group)) return TVDS_ERR_INVALID;
    if (tvds_channels(d, group, &n, &names, &values) != TVDS_OK || i < 0 || i >= n)
        return TVDS_ERR_INVALID;
    return tvds_label_split(names[i], name, name_size, unit, unit_size);
}

/* ---- Run ------------------------------------------------------------------------------------ */

int tvds_run_simple(const tvds_model *m, const char *outdir, volatile sig_atomic_t *stop,
                    tvds_ctx *ctx)
{
    tvds_run_opts o = tvds_run_opts_default();
    o.stop = stop;
    return tvds_run(m, outdir, &o, ctx);
}

/* ---- CEA ------------------------------------------------------------------------------------ */

tvds_cea_options *tvds_cea_options_create(void)
{
    tvds_cea_options *o = tvds_malloc(sizeof *o);
    if (o) *o = tvds_cea_options_default();
    return o;
}

void tvds_cea_options_free(tvds_cea_options **o)
{
    if (!o || !*o) return;
    tvds_free(*o);
    *o = NULL;
}

static const struct {
    const char *key;
    size_t off;
    int is_int;
} cea_keys[] = {
    {"nmodes", offsetof(tvds_cea_options, nmodes), 1},
    {"nextra", offsetof(tvds_cea_options, nextra), 1},
    {"chi", offsetof(tvds_cea_options, chi), 0},
    {"t_eval", offsetof(tvds_cea_options, t_eval), 0},
    {"slave", offsetof(tvds_cea_options, slave), 1},
    {"fmin_hz", offsetof(tvds_cea_options, fmin_hz), 0},
    {"re_tol", offsetof(tvds_cea_options, re_tol), 0},
    {"solver", offsetof(tvds_cea_options, solver), 1},
    {"shift_hz", offsetof(tvds_cea_options, shift_hz), 0},
    {"nthreads", offsetof(tvds_cea_options, nthreads), 1},
    {"state", offsetof(tvds_cea_options, state), 1},
    {"undamped", offsetof(tvds_cea_options, undamped), 1},
    {"no_lateral", offsetof(tvds_cea_options, no_lateral), 1},
    {"refine", offsetof(tvds_cea_options, refine), 1},
    {"ds_min", offsetof(tvds_cea_options, ds_min), 0},
    {"max_pos", offsetof(tvds_cea_options, max_pos), 1},
    {"zeta_near", offsetof(tvds_cea_options, zeta_near), 0},
    {"gap_rel", offsetof(tvds_cea_options, gap_rel), 0},
    {"mirror", offsetof(tvds_cea_options, mirror), 1},
};

int tvds_cea_options_set(tvds_cea_options *o, const char *key, double value, tvds_ctx *ctx)
{
    if (!o || !key) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_cea_options_set: NULL argument");
    for (size_t i = 0; i < sizeof cea_keys / sizeof cea_keys[0]; i++) {
        if (strcmp(cea_keys[i].key, key) != 0) continue;
        char *p = (char *)o + cea_keys[i].off;
        if (cea_keys[i].is_int) {
            if (!(value == trunc(value)) || fabs(value) > 1e9)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "CEA option %s = %g: need an integer", key,
                                  value);
            *(int *)(void *)p = (int)value;
        } else {
            if (isnan(value)) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "CEA option %s: NaN", key);
            *(double *)(void *)p = value;
        }
        return TVDS_OK;
    }
    return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "unknown CEA option '%s'", key);
}

void tvds_cea_options_set_stop(tvds_cea_options *o, volatile sig_atomic_t *stop)
{
    if (o) o->stop = stop;
}

int tvds_cea_default_range(const tvds_model *m, int contact, const tvds_cea_options *o, double *s0,
                           double *s1, tvds_ctx *ctx)
{
    if (!m || !s0 || !s1)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_cea_default_range: NULL argument");
    if (contact < 0 || contact >= m->ncontact)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "CEA: no contact %d (the case has %d)", contact,
                          m->ncontact);
    tvds_cea_options def = tvds_cea_options_default();
    if (!o) o = &def;
    if (m->contacts[contact].master_kind == TVDS_MASTER_FACES)
        return tvds_cea_path_range(m, contact, o->slave, o->t_eval, s0, s1, ctx);
    double L;
    int rc = tvds_cea_surface_length(m, contact, &L, ctx);
    if (rc) return rc;
    *s0 = 0.0;
    *s1 = L;
    return TVDS_OK;
}

int tvds_cea_result_size(const tvds_cea_result *r, int *npos, int *nbranch, int *nwin)
{
    if (!r) return TVDS_ERR_INVALID;
    if (npos) *npos = r->npos;
    if (nbranch) *nbranch = r->nbranch;
    if (nwin) *nwin = r->nwin;
    return TVDS_OK;
}

const double *tvds_cea_result_array(const tvds_cea_result *r, const char *name, int *len)
{
    if (len) *len = 0;
    if (!r || !name) return NULL;
    const double *a = NULL;
    int n = r->npos;
    if (!strcmp(name, "s"))
        a = r->s;
    else if (!strcmp(name, "resid"))
        a = r->resid;
    else if (!strcmp(name, "lambda_n"))
        a = r->lambda_n;
    else if (!strcmp(name, "slope"))
        a = r->slope;
    else {
        n = r->npos * r->nbranch;
        if (!strcmp(name, "freq"))
            a = r->freq;
        else if (!strcmp(name, "re"))
            a = r->re;
        else if (!strcmp(name, "zeta"))
            a = r->zeta;
        else if (!strcmp(name, "mac"))
            a = r->mac;
        else if (!strcmp(name, "anti"))
            a = r->anti;
    }
    if (a && len) *len = n;
    return a;
}

int tvds_cea_result_windows(const tvds_cea_result *r, const char *field, double *out, tvds_ctx *ctx)
{
    static const struct {
        const char *name;
        size_t off;
    } fields[] = {
        {"s_start", offsetof(tvds_cea_window, s_start)},
        {"s_end", offsetof(tvds_cea_window, s_end)},
        {"f_min", offsetof(tvds_cea_window, f_min)},
        {"f_max", offsetof(tvds_cea_window, f_max)},
        {"re_max", offsetof(tvds_cea_window, re_max)},
        {"s_in", offsetof(tvds_cea_window, s_in)},
        {"s_out", offsetof(tvds_cea_window, s_out)},
        {"f_peak", offsetof(tvds_cea_window, f_peak)},
        {"s_peak", offsetof(tvds_cea_window, s_peak)},
        {"t_start", offsetof(tvds_cea_window, t_start)},
        {"t_end", offsetof(tvds_cea_window, t_end)},
        {"growth_pred", offsetof(tvds_cea_window, growth_pred)},
        {"anti_peak", offsetof(tvds_cea_window, anti_peak)},
    };
    if (!r || !field || (!out && r->nwin > 0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_cea_result_windows: NULL argument");
    if (!strcmp(field, "branch")) {
        for (int w = 0; w < r->nwin; w++)
            out[w] = r->win[w].branch;
        return TVDS_OK;
    }
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (strcmp(fields[i].name, field) != 0) continue;
        for (int w = 0; w < r->nwin; w++)
            out[w] = *(const double *)(const void *)((const char *)&r->win[w] + fields[i].off);
        return TVDS_OK;
    }
    return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "unknown CEA window field '%s'", field);
}
