/* tvds_plot.h — PNG figures through gnuplot: line plots, coloured scatter, heat maps, panels. */
#ifndef TVDS_PLOT_H
#define TVDS_PLOT_H

#include "tvds/tvds.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A figure is described by plain structs (no allocation, no builder): fill them on the stack,
 * zero what you do not use, and call tvds_plot_render. The data stay in files (CSV written by
 * the caller); the figure only references them, so a figure of a 10^6-row history costs nothing
 * in memory. tvds_plot_render writes a gnuplot script next to the PNG (same name, ".gp") and
 * runs gnuplot on it; the script can be edited and re-run by hand. */

enum tvds_plot_style {
    TVDS_PLOT_LINES = 0,     /* y(x) as a line */
    TVDS_PLOT_POINTS,        /* markers only */
    TVDS_PLOT_LINESPOINTS,   /* line and markers */
    TVDS_PLOT_SCATTER_COLOR, /* markers coloured by a third column (ccol) on the panel's
                                colour bar: eigenvalue loci coloured by position */
    TVDS_PLOT_HEATMAP        /* z(x, y) on a regular grid as an image, z from ccol: the file
                                lists x-major blocks separated by blank lines (spectrograms) */
};

/* One data series. */
typedef struct tvds_plot_series {
    const char *file;  /* data file: comma-separated numbers; lines starting with '#' and
                          blank lines are comments / block separators */
    int header_lines;  /* leading lines to skip (a CSV header row: 1) */
    int xcol, ycol;    /* 1-based column numbers */
    int ccol;          /* colour / z column (SCATTER_COLOR, HEATMAP); 0 = none */
    const char *using; /* verbatim gnuplot `using` spec overriding xcol/ycol/ccol, e.g.
                          "1:2:(20*log10($3))"; NULL = from the columns */
    int style;         /* enum tvds_plot_style */
    const char *title; /* legend entry; NULL = no entry */
    const char *color; /* "#rrggbb" or a gnuplot colour name; NULL = automatic */
    double line_width; /* 0 = 1.5 */
    double point_size; /* 0 = 0.6 */
    int point_type;    /* gnuplot point type; 0 = 7 (filled circle) */
} tvds_plot_series;

/* A reference line across a panel: horizontal (y = value) or vertical (x = value), with an
 * optional label. Used for marked frequencies, thresholds, reference values. */
typedef struct tvds_plot_refline {
    int vertical; /* 0: y = value, 1: x = value */
    double value;
    const char *label; /* NULL = none */
    const char *color; /* NULL = black */
    int dashed;
} tvds_plot_refline;

/* One panel (one set of axes). Axis ranges: min < max sets the range, otherwise autoscale. */
typedef struct tvds_plot_panel {
    const char *title;
    const char *xlabel, *ylabel, *cblabel; /* with units: "t [s]" */
    int logx, logy, logcb;
    double xmin, xmax, ymin, ymax, cbmin, cbmax;
    int grid;            /* 1: draw a grid */
    const char *key;     /* gnuplot key placement ("top right", "off"...); NULL = "top right" */
    const char *palette; /* gnuplot palette definition after `set palette`; NULL = a
                            perceptual default (viridis-like) */
    int nseries;
    const tvds_plot_series *series; /* nseries */
    int nrefs;
    const tvds_plot_refline *refs; /* nrefs */
} tvds_plot_panel;

/* A figure: one PNG with npanels panels laid out row-major on nrows x ncols. */
typedef struct tvds_plot_figure {
    const char *output; /* PNG path; the script goes to the same path with ".gp" */
    int width, height;  /* pixels; 0 = 1000 x 700 */
    const char *title;  /* overall title; NULL = none */
    int nrows, ncols;   /* 0 = one column of npanels rows */
    int npanels;
    const tvds_plot_panel *panels; /* npanels */
} tvds_plot_figure;

/* A panel with every range on autoscale and no series (fill the rest). */
TVDS_API tvds_plot_panel tvds_plot_panel_default(void);

/* Write the gnuplot script of fig to script_path (pngcairo terminal, commas as separators).
 * Returns TVDS_OK, TVDS_ERR_INVALID (missing output, series without file, bad columns),
 * TVDS_ERR_IO. */
TVDS_API int tvds_plot_write_script(const tvds_plot_figure *fig, const char *script_path,
                                    tvds_ctx *ctx);

/* Write the script (fig->output with ".gp") and run gnuplot on it. The gnuplot program is
 * "gnuplot" on PATH, or the TVDS_GNUPLOT environment variable when set.
 * Returns TVDS_OK; TVDS_WARN_NO_GNUPLOT (positive: the script is written, the PNG is not) when
 * gnuplot cannot be started, so that callers may go on with a warning (the reason is in
 * ctx->msg; ctx->status is left unchanged); TVDS_ERR_IO when gnuplot
 * fails on the script (its first line of output is in ctx->msg) or the PNG is missing
 * afterwards; the codes of tvds_plot_write_script. Never prints: gnuplot's own output is
 * captured. */
TVDS_API int tvds_plot_render(const tvds_plot_figure *fig, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
