/* study_impl.h — what the study's files share (study.c: the stages; study_report.c: the choice
 * of the window a transient crosses and report.md). */
#ifndef TVDS_STUDY_IMPL_H
#define TVDS_STUDY_IMPL_H

#include <stdio.h>

#include "tvds/tvds_study.h"

/* The study's positions s are the 2D model's abscissa along beam 2's upper edge from its first
 * free node, s = x_C - STUDY_X0 (docs/squeal.md). The 3D study keeps them, so that its windows
 * and the 2D ones are read on one axis; there the CEA's positions are the tip line's travel from
 * its placement (docs/cea.md, "Face-set masters") and are shifted to and from s here. */
#define STUDY_X0 0.001

/* Master-node abscissae of the study's contact (beam 2's edge nodes), for the choice of the
 * window a transient crosses. */
typedef struct study_nodes {
    double *S;
    int ns;
    double v; /* steady sliding speed [m/s] */
} study_nodes;

/* One transient part: the model regenerated with C placed so that window target of r is entered
 * at TVDS_STUDY_T_ENTRY, its CEA windows recomputed along the actual path, the comparison run. */
typedef struct study_part {
    const char *name; /* "a" or "b" */
    double mu;
    double s0_x; /* x of C at t = 0 [m] */
    double s_a;  /* C's abscissa at t = 0 [m] */
    double t_end;
    double t_damp;        /* end of the damping schedule [s] */
    tvds_cea_window tw;   /* the window studied (of the CEA it was chosen from) */
    tvds_cea_window tall; /* the strongest window of that CEA */
    double node_all;      /* master node inside tall (NaN: tall is the window studied) */
    int clean;            /* 1: tw has no master node (0: no node-free window, tw = tall) */
    tvds_cea_result *cea; /* along the actual path (owned) */
    tvds_compare_result res;
    tvds_growth_window gw[TVDS_COMPARE_MAX_WINDOWS]; /* windows passed to the comparison */
    int ran;
    double seconds;
} study_part;

/* The study's stages and the folders they write (report.md's "Outputs" table). */
enum { ST_MODEL, ST_CEA, ST_MU, ST_A, ST_B, ST_N };
enum { SS_NOT_RUN = 0, SS_RUNNING, SS_DONE, SS_SKIPPED };

/* Index of the window of r with the largest predicted growth, or -1. */
int study_strongest(const tvds_cea_result *r);

/* The window a transient studies (study_report.c), or -1 when every window holds a master node. */
int study_target(const tvds_cea_result *r, const study_nodes *nd);

/* The master node inside window w of r, or within the masked span of its edges [m]; NaN: none. */
double study_window_node(const tvds_cea_result *r, int w, const study_nodes *nd);

/* Largest real part over the windows of r [1/s]; -inf without one. */
double study_max_re(const tvds_cea_result *r);

/* The table of r's windows at sliding speed v_mm_s [mm/s], window mark marked the strongest and
 * mark2 the studied one (-1: none). */
void study_windows_table(FILE *fp, const tvds_cea_result *r, int mark, int mark2, double v_mm_s);

/* One transient part's section of report.md under the heading title. */
void study_part_report(FILE *fp, const study_part *pt, const char *title);

/* report.md of a study that ran to its end, up to its wall times: the case, the pair's mesh mp,
 * the departures from the paper, the survey (cd, cu, cx; wa: part (a)'s window), the procedure
 * for mu (nmu grid points), the two parts. */
void study_report(FILE *fp, const tvds_study_geom *g, const tvds_bob_params *mp,
                  const char *case_path, double mu_case, double t_damp, double v_ss,
                  const tvds_cea_result *cd, const tvds_cea_result *cu, const tvds_cea_result *cx,
                  int wa, int nmu, const double *mu_tab, const int *nw_tab, const double *re_tab,
                  const double *g_tab, int found, double mu_pick, int mu_given,
                  const tvds_cea_result *cmu, const study_nodes *nd, const study_part *pa,
                  const study_part *pb);

/* report.md's table of the stages (ST_*) and the state of their folders st[k] (SS_*). */
void study_stage_table(FILE *fp, const int *st);

/* report.md replaced whole (temporary file, then rename) by a short one: the study's status, the
 * message (NULL: none) and the stage table. */
void study_status_report(const char *outdir, const char *title, const char *status, const char *msg,
                         const int *st);

#endif
