/* study_report.c — the squeal study's choice of the window a transient crosses and its report:
 * the windows' tables, the parts' sections, report.md and its stage table (docs/squeal.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/study_impl.h"
#include "tvds/tvds_compare.h"

/* "NXxNY" (2D) or "NXxNYxNZ" (3D) of one beam's mesh into out (n >= 32); returns out. */
static const char *beam_mesh_name(const tvds_beam_params *b, int dim3, char *out, size_t n)
{
    if (dim3)
        snprintf(out, n, "%dx%dx%d", b->nx, b->ny, b->nz);
    else
        snprintf(out, n, "%dx%d", b->nx, b->ny);
    return out;
}

int study_strongest(const tvds_cea_result *r)
{
    int best = -1;
    for (int w = 0; w < r->nwin; w++)
        if (isfinite(r->win[w].growth_pred) &&
            (best < 0 || r->win[w].growth_pred > r->win[best].growth_pred))
            best = w;
    return best;
}

/* The window a transient studies: the strongest one without a master node inside it or within
 * the masked span around a node crossing (tvds_compare_window_node: the kick of the crossing
 * seeds the band envelope, so the growth measured there is not the instability's). The span is
 * widened by the CEA's position resolution TVDS_STUDY_DS_MIN, to which the window edges are known.
 */
int study_target(const tvds_cea_result *r, const study_nodes *nd)
{
    return tvds_compare_clean_window(r, nd->S, nd->ns, nd->v, 0.0, TVDS_STUDY_DS_MIN);
}

double study_window_node(const tvds_cea_result *r, int w, const study_nodes *nd)
{
    return w >= 0
               ? tvds_compare_window_node(&r->win[w], nd->S, nd->ns, nd->v, 0.0, TVDS_STUDY_DS_MIN)
               : NAN;
}

double study_max_re(const tvds_cea_result *r)
{
    double v = -INFINITY;
    for (int w = 0; w < r->nwin; w++)
        if (r->win[w].re_max > v) v = r->win[w].re_max;
    return v;
}

void study_windows_table(FILE *fp, const tvds_cea_result *r, int mark, int mark2, double v_mm_s)
{
    if (r->nwin == 0) {
        fprintf(fp, "No unstable window.\n");
        return;
    }
    /* 3D: the mode family about the mirror plane z = 0 (docs/cea.md, "Symmetric and
     * antisymmetric modes"); 2D results have no share and no column. */
    int fam = isfinite(r->win[0].anti_peak);
    fprintf(fp,
            "| branch | s_in … s_out [mm] | width [mm] | f at max Re [Hz] | max Re [1/s] | "
            "predicted growth at %.0f mm/s |%s\n|---|---|---|---|---|---|%s\n",
            v_mm_s, fam ? " antisymmetric share at max Re (family) |" : "", fam ? "---|" : "");
    for (int w = 0; w < r->nwin; w++) {
        const tvds_cea_window *cw = &r->win[w];
        fprintf(fp, "| %d | %.3f … %.3f | %.3f | %.0f | %.4g | %.3g |", cw->branch, 1e3 * cw->s_in,
                1e3 * cw->s_out, 1e3 * fabs(cw->s_out - cw->s_in), cw->f_peak, cw->re_max,
                cw->growth_pred);
        if (fam)
            fprintf(fp, " %.2g (%s) |", cw->anti_peak,
                    !isfinite(cw->anti_peak) ? "?"
                    : cw->anti_peak < 0.01   ? "in-plane"
                    : cw->anti_peak > 0.99   ? "lateral/torsional"
                                             : "mixed");
        fprintf(fp, "%s\n",
                w == mark    ? " ← strongest"
                : w == mark2 ? " ← strongest without a master node (studied)"
                             : "");
    }
}

/* Measured growth of each window by each method (from the comparison), into the report. */
static void part_measured(FILE *fp, const study_part *pt)
{
    if (!pt->ran) return;
    const tvds_compare_result *r = &pt->res;
    if (r->nwindows == 0) {
        fprintf(fp, "\nNo window crossed: nothing to measure.\n");
        return;
    }
    fprintf(fp,
            "\nPredicted (CEA) against measured growth of the band envelope around each "
            "window's frequency (node crossings masked; `%s/report.md` and "
            "docs/burst-metrics.md for the metric): E(t1)/E(t0), in brackets the largest "
            "envelope after entry over E(t0).\n\n| f [Hz] | crossed t [s] | predicted |",
            pt->name);
    for (int k = 0; k < r->n; k++)
        fprintf(fp, " %s |", tvds_method_name(r->e[k].method));
    fprintf(fp, "\n|---|---|---|");
    for (int k = 0; k < r->n; k++)
        fprintf(fp, "---|");
    fprintf(fp, "\n");
    int nan_seen = 0;
    for (int w = 0; w < r->nwindows; w++) {
        const tvds_growth_window *g = &r->windows[w];
        fprintf(fp, "| %.0f | %.4f … %.4f | %.3g |", g->f_hz, g->t0, g->t1, g->growth_pred);
        for (int k = 0; k < r->n; k++) {
            double ge = r->e[k].growth_exit[w], gp = r->e[k].growth_peak[w];
            if (!isfinite(ge) || !isfinite(gp)) nan_seen = 1;
            if (isfinite(ge))
                fprintf(fp, " %.3g", ge);
            else
                fprintf(fp, " –");
            if (isfinite(gp))
                fprintf(fp, " (%.3g) |", gp);
            else
                fprintf(fp, " (–) |");
        }
        fprintf(fp, "\n");
    }
    if (nan_seen)
        fprintf(fp, "\n–: the band envelope is not defined there (the window reaches an end of "
                    "the record, or the envelope is zero at entry).\n");
}

/* Each method's energy balance error and, when timed interleaved, its CPU ratio to FiLm. */
static void part_costs(FILE *fp, const study_part *pt)
{
    if (!pt->ran) return;
    const tvds_compare_result *r = &pt->res;
    fprintf(fp, "\nEnergy balance error (largest over the run, relative to the largest energy):");
    for (int k = 0; k < r->n; k++)
        fprintf(fp, "%s %s %.2g", k ? "," : "", tvds_method_name(r->e[k].method),
                r->e[k].energy_error);
    fprintf(fp, ".\n");
    if (r->cpu_rounds > 0) {
        fprintf(fp,
                "CPU per step against FiLm, interleaved (%d rounds of %ld steps; median, "
                "min … max of the rounds):",
                r->cpu_rounds, r->cpu_steps);
        int first = 1;
        for (int k = 0; k < r->n; k++) {
            const tvds_compare_entry *e = &r->e[k];
            if (e->method == TVDS_METHOD_FILM || !isfinite(e->cpu_ratio_med)) continue;
            fprintf(fp, "%s %s %.1f %% (%.1f … %.1f %%)", first ? "" : ",",
                    tvds_method_name(e->method), 100.0 * e->cpu_ratio_med, 100.0 * e->cpu_ratio_min,
                    100.0 * e->cpu_ratio_max);
            first = 0;
        }
        fprintf(fp, ".\n");
    }
}

void study_part_report(FILE *fp, const study_part *pt, const char *title)
{
    fprintf(fp, "\n## %s\n\n", title);
    if (!pt->cea) {
        fprintf(fp, "Not run.\n");
        return;
    }
    fprintf(fp,
            "μ = %g; C starts at x = %.3f mm (s = %.3f mm) and the run ends at t = %.3f s "
            "(model and CEA in `%s/`, comparison report [%s/report.md](%s/report.md)).\n\n",
            pt->mu, 1e3 * pt->s0_x, 1e3 * pt->s_a, pt->t_end, pt->name, pt->name, pt->name);
    double mh = tvds_compare_mask_half(pt->tw.f_peak, 0.0);
    fprintf(fp,
            "Window studied (entered at t = %.2f s): branch %d, s = %.3f … %.3f mm, %.0f Hz, "
            "predicted growth %.3g at the steady speed",
            TVDS_STUDY_T_ENTRY, pt->tw.branch, 1e3 * pt->tw.s_in, 1e3 * pt->tw.s_out, pt->tw.f_peak,
            pt->tw.growth_pred);
    if (!pt->clean)
        fprintf(fp, ": no window of this μ is free of master nodes, so the strongest is studied "
                    "and its growth includes a node-crossing kick.\n\n");
    else if (isnan(pt->node_all))
        fprintf(fp,
                ", the strongest window, with no master node inside it (nor within ±%.2f ms "
                "× the sliding speed + %.2f mm of its edges).\n\n",
                1e3 * mh, 1e3 * TVDS_STUDY_DS_MIN);
    else
        fprintf(fp,
                ", the strongest window with no master node inside it nor within ±%.2f ms (the "
                "masked span ±4τ of its band) × the sliding speed + %.2f mm (the CEA's position "
                "resolution) of its edges. The strongest window overall, s = %.3f … %.3f mm "
                "(predicted growth %.3g), is not studied: its master-node crossing at s = %.3f mm "
                "kicks the band broadband and seeds the envelope, so the growth measured there is "
                "not the instability's.\n\n",
                1e3 * mh, 1e3 * TVDS_STUDY_DS_MIN, 1e3 * pt->tall.s_in, 1e3 * pt->tall.s_out,
                pt->tall.growth_pred, 1e3 * pt->node_all);
    fprintf(fp, "Windows of the CEA (about the preloaded sliding state, damped) on the run's "
                "path:\n\n| branch | s_in … s_out [mm] | f at max Re [Hz] | max Re [1/s] | "
                "crossed t [s] | predicted growth |\n|---|---|---|---|---|---|\n");
    for (int w = 0; w < pt->cea->nwin; w++) {
        const tvds_cea_window *cw = &pt->cea->win[w];
        fprintf(fp, "| %d | %.3f … %.3f | %.0f | %.4g | ", cw->branch, 1e3 * cw->s_in,
                1e3 * cw->s_out, cw->f_peak, cw->re_max);
        if (isfinite(cw->t_start))
            fprintf(fp, "%.4f … %.4f | %.3g%s |\n", cw->t_start, cw->t_end, cw->growth_pred,
                    cw->t_end < pt->t_damp ? " (crossed under the high damping: less)" : "");
        else
            fprintf(fp, "not crossed | – |\n");
    }
    part_measured(fp, pt);
    part_costs(fp, pt);
}

void study_report(FILE *fp, const tvds_study_geom *g, const tvds_bob_params *mpp,
                  const char *case_path, double mu_case, double t_damp, double v_ss,
                  const tvds_cea_result *cd, const tvds_cea_result *cu, const tvds_cea_result *cx,
                  int wa, int nmu, const double *mu_tab, const int *nw_tab, const double *re_tab,
                  const double *g_tab, int found, double mu_pick, int mu_given,
                  const tvds_cea_result *cmu, const study_nodes *nd, const study_part *pa,
                  const study_part *pb)
{
    fprintf(fp,
            "# Beam-on-beam squeal study%s\n\nCase `%s` (the paper's Table 1–2 values, "
            "docs/models.md), regenerated models (`model/`). Command: `tvds study %s%s%s%s%s -o "
            "DIR`.\n",
            g->dim3 ? " in 3D (both beams as solids)" : "", case_path, g->dim3 ? "--3d " : "",
            g->mesh_txt ? "--mesh " : "", g->mesh_txt ? g->mesh_txt : "", g->mesh_txt ? " " : "",
            case_path);
    tvds_bob_params mp = *mpp;
    if (g->mesh)
        fprintf(fp,
                "\nMesh given by `--mesh`: beam 1 %s, beam 2 %s elements (the study's own "
                "mesh is the reference of `tvds study --convergence%s`, docs/models.md).\n",
                beam_mesh_name(&mp.beam1, g->dim3, (char[32]){0}, 32),
                beam_mesh_name(&mp.beam2, g->dim3, (char[32]){0}, 32), g->dim3 ? " --3d" : "");
    if (g->dim3)
        fprintf(fp,
                "\nThe pair as 8-node hexahedra with incompatible modes (`tvds model "
                "beam-on-beam-3d`, beam 1 %dx%dx%d, beam 2 %dx%dx%d elements along x, through "
                "the thickness and across the width), the tip C a line "
                "of slave nodes across beam 1's width, every one of them in the CEA. Positions "
                "s = x_C − %g mm, the 2D study's abscissa of the same x. Beam 2's face nodes lie "
                "on lines every %.3g mm of x (2D: edge nodes every 1 mm). The measured growth "
                "masks each slave node's crossings of face edges (`tvds compare`).\n",
                mp.beam1.nx, mp.beam1.ny, mp.beam1.nz, mp.beam2.nx, mp.beam2.ny, mp.beam2.nz,
                1e3 * STUDY_X0, 1e3 * mp.beam2.length / mp.beam2.nx);
    fprintf(fp,
            "\n## Departures from the paper\n\n"
            "- Mesh, retained DoFs, step, start position, duration: not given by the paper; tvds' "
            "choices are in docs/models.md (mesh from `tvds study --convergence`), the step is "
            "0.9 × the stability limit (`dt = auto`).\n"
            "- Each transient starts C where the window it studies is entered %.2f s after t = 0 "
            "(%.2f s after the damping schedule ends at %g s) and stops %.2f s after it leaves "
            "it; the paper's runs are long (hours of CPU) and their start is not given.\n"
            "- Part (b) uses the μ of the paper's own procedure (below) rather than 0.30; the "
            "paper chose μ so that instabilities arise (Section 3.1).\n"
            "- Each transient crosses the strongest window of its μ that holds no master node of "
            "beam 2 (%s every %.3g mm): a node crossing kicks the response broadband and seeds "
            "the band envelope, so a window holding one does not measure the instability's "
            "growth. The paper does not separate the two.\n"
            "- The locus of Fig. 4 is drawn undamped in the paper; tvds gives both.\n",
            TVDS_STUDY_T_ENTRY, TVDS_STUDY_T_ENTRY - t_damp, t_damp, TVDS_STUDY_T_AFTER,
            g->dim3 ? "face lines" : "nodes",
            1e3 * mp.beam2.length / (g->dim3 ? mp.beam2.nx : 2 * mp.beam2.nx));
    fprintf(fp, "\n## CEA survey at μ = %g, s = %g … %g mm\n\n", mu_case, 1e3 * TVDS_STUDY_S_LO,
            1e3 * TVDS_STUDY_S_HI);
    fprintf(fp,
            "Predicted growth G = exp(∫ Re λ dt) while C crosses a window at the steady "
            "speed %.4g mm/s. Positions refined automatically down to 0.05 mm (%d, %d and %d "
            "positions); static normal force %.5g … %.5g N.\n\n",
            1e3 * v_ss, cd->npos, cu->npos, cx->npos, cd->lambda_n[0], cd->lambda_n[cd->npos - 1]);
    fprintf(fp, "**About the preloaded sliding state, damped** (`cea/unstable.csv`):\n\n");
    study_windows_table(fp, cd, study_strongest(cd), wa, 1e3 * v_ss);
    fprintf(fp, "\n**About the preloaded sliding state, undamped** (the paper's Fig. 4; "
                "`cea/unstable_undamped.csv`):\n\n");
    study_windows_table(fp, cu, study_strongest(cu), -1, 1e3 * v_ss);
    fprintf(fp, "\n**About the undeformed geometry, damped** (subs-a-consistent; "
                "`cea/unstable_undeformed.csv`):\n\n");
    study_windows_table(fp, cx, study_strongest(cx), -1, 1e3 * v_ss);
    fprintf(fp, "\n![stability](cea/stability.png)\n");
    fprintf(fp, "\n## The paper's procedure for μ\n\n");
    if (mu_given)
        fprintf(fp, "μ = %g given on the command line (`--mu`).\n", mu_pick);
    else {
        fprintf(fp,
                "CEA (preloaded, damped) at μ = %g, %g, … until the predicted growth of the "
                "strongest window free of master nodes (the one part (b) crosses) reaches %g "
                "(an amplitude ratio of %g, %.0f dB: a burst, the same threshold as the "
                "findings):\n\n| μ | windows | max Re [1/s] | predicted growth of the strongest "
                "node-free window |\n|---|---|---|---|\n",
                TVDS_STUDY_MU_LO, TVDS_STUDY_MU_LO + TVDS_STUDY_MU_STEP, TVDS_STUDY_G_MIN,
                TVDS_STUDY_G_MIN, 20 * log10(TVDS_STUDY_G_MIN));
        for (int k = 0; k < nmu; k++)
            if (nw_tab[k] > 0)
                fprintf(fp, "| %.2f | %d | %.4g | %.3g |\n", mu_tab[k], nw_tab[k], re_tab[k],
                        g_tab[k]);
            else
                fprintf(fp, "| %.2f | 0 | – | – |\n", mu_tab[k]);
        if (found)
            fprintf(fp,
                    "\nChosen: **μ = %.2f**, the lowest μ of the grid whose strongest window "
                    "reaches the threshold.\n",
                    mu_pick);
        else
            fprintf(fp, "\nNo μ up to %g reaches it: part (b) is not run.\n", TVDS_STUDY_MU_HI);
    }
    if (found && cmu) {
        fprintf(fp, "\nWindows at μ = %.2f:\n\n", mu_pick);
        study_windows_table(fp, cmu, study_strongest(cmu), study_target(cmu, nd), 1e3 * v_ss);
    }
    char ta[96];
    if (fabs(mu_case - TVDS_STUDY_MU_LO) < 1e-12)
        snprintf(ta, sizeof ta, "(a) The paper's values (μ = %g)", mu_case);
    else
        snprintf(ta, sizeof ta, "(a) The case's μ = %g (the paper's: %g)", mu_case,
                 TVDS_STUDY_MU_LO);
    study_part_report(fp, pa, ta);
    if (pa->cea && wa >= 0 && cd->win[wa].growth_pred < TVDS_STUDY_G_MIN)
        fprintf(fp,
                "\nWhy no burst is expected at μ = %g: the window studied is %.3f mm wide and "
                "its largest real part is %.3g 1/s; crossed at %.4g mm/s (%.1f ms) it predicts an "
                "amplitude ratio of %.3g, below the %g of a visible burst (∫ Re dt = %.3g against "
                "ln %g = %.3g).\n",
                mu_case, 1e3 * fabs(cd->win[wa].s_out - cd->win[wa].s_in), cd->win[wa].re_max,
                1e3 * v_ss, 1e3 * fabs(cd->win[wa].s_out - cd->win[wa].s_in) / v_ss,
                cd->win[wa].growth_pred, TVDS_STUDY_G_MIN, log(cd->win[wa].growth_pred),
                TVDS_STUDY_G_MIN, log(TVDS_STUDY_G_MIN));
    study_part_report(fp, pb, "(b) The μ of the paper's procedure: all methods");
}

static const char *const stage_names[ST_N] = {"models", "CEA survey", "procedure for mu",
                                              "part (a) transients", "part (b) transients"};
static const char *const stage_dirs[ST_N] = {"model/", "cea/", "cea_mu<MU>/", "a/", "b/"};

/* The table of report.md: which folder holds this study's outputs, whole or not. */
void study_stage_table(FILE *fp, const int *st)
{
    fputs("\n## Outputs of this study\n\n| stage | folder | state |\n|---|---|---|\n", fp);
    for (int k = 0; k < ST_N; k++) {
        const char *w = st[k] == SS_DONE      ? "complete"
                        : st[k] == SS_RUNNING ? "**incomplete**: stopped in this stage (what it "
                                                "holds is partial)"
                        : st[k] == SS_SKIPPED ? "not needed (nothing written)"
                        : k == ST_MODEL       ? "not written"
                                              : "not written (an earlier study's outputs were "
                                                "removed at the start)";
        fprintf(fp, "| %s | `%s` | %s |\n", stage_names[k], stage_dirs[k], w);
    }
}

/* report.md replaced whole (temporary file, then rename) by a short one: the study's status, the
 * message and the stage table. */
void study_status_report(const char *outdir, const char *title, const char *status, const char *msg,
                         const int *st)
{
    char rp[2100], tp[2110];
    snprintf(rp, sizeof rp, "%s/report.md", outdir);
    snprintf(tp, sizeof tp, "%s.tmp", rp);
    FILE *fp = fopen(tp, "w");
    if (!fp) return;
    fprintf(fp, "# %s\n\nStatus: %s\n", title, status);
    if (msg && *msg) fprintf(fp, "\n%s\n", msg);
    study_stage_table(fp, st);
    if ((fclose(fp) != 0) | (rename(tp, rp) != 0)) remove(tp);
}
