/* plot.c — gnuplot scripts for tvds figures (PNG through pngcairo) and running gnuplot. */
#define _GNU_SOURCE  /* posix_spawn_file_actions_addchdir_np: gnuplot runs in the script's folder  \
                      */
#include "tvds/tvds_plot.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

tvds_plot_panel tvds_plot_panel_default(void)
{
    tvds_plot_panel p;
    memset(&p, 0, sizeof p);
    p.grid = 1;
    return p;
}

/* Folder of the script being written (its path up to the last '/'; empty: the current one):
 * files inside it are written relative to it, so that a folder of results can be moved and its
 * scripts still run there. */
static char script_dir[4096];

static const char *rel_path(const char *path)
{
    size_t n = strlen(script_dir);
    if (path && n > 0 && !strncmp(path, script_dir, n) && path[n] == '/') return path + n + 1;
    return path;
}

/* A gnuplot single-quoted string: inside '...', a quote is written ''. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; s && *s; s++) {
        if (*s == '\'') fputc('\'', f);
        if (*s == '\n' || *s == '\r') {
            fputc(' ', f);
            continue;
        }
        fputc(*s, f);
    }
    fputc('\'', f);
}

static void put_color(FILE *f, const char *color)
{
    fputs(" lc rgb ", f);
    put_quoted(f, color);
}

static int check_figure(const tvds_plot_figure *fig, tvds_ctx *ctx)
{
    if (!fig || !fig->output || !fig->output[0])
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "plot: figure without an output path");
    if (fig->npanels < 1 || !fig->panels)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "plot %s: no panel", fig->output);
    if (fig->width < 0 || fig->height < 0 || fig->nrows < 0 || fig->ncols < 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "plot %s: negative size or layout", fig->output);
    int nr = fig->nrows, nc = fig->ncols;
    if (nr == 0 && nc == 0)
        nr = fig->npanels, nc = 1;
    else if (nr == 0)
        nr = (fig->npanels + nc - 1) / nc;
    else if (nc == 0)
        nc = (fig->npanels + nr - 1) / nr;
    if (nr * nc < fig->npanels)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "plot %s: %d panels do not fit a %dx%d layout",
                          fig->output, fig->npanels, nr, nc);
    for (int p = 0; p < fig->npanels; p++) {
        const tvds_plot_panel *pa = &fig->panels[p];
        if (pa->nseries < 0 || (pa->nseries > 0 && !pa->series) || pa->nrefs < 0 ||
            (pa->nrefs > 0 && !pa->refs))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "plot %s: panel %d: bad series or lines",
                              fig->output, p + 1);
        for (int s = 0; s < pa->nseries; s++) {
            const tvds_plot_series *se = &pa->series[s];
            if (!se->file || !se->file[0])
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "plot %s: panel %d series %d: no data file", fig->output, p + 1,
                                  s + 1);
            if (se->style < TVDS_PLOT_LINES || se->style > TVDS_PLOT_HEATMAP)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "plot %s: panel %d series %d: unknown style %d", fig->output,
                                  p + 1, s + 1, se->style);
            if (!se->using) {
                int need_c = se->style == TVDS_PLOT_SCATTER_COLOR || se->style == TVDS_PLOT_HEATMAP;
                if (se->xcol < 1 || se->ycol < 1 || (need_c && se->ccol < 1))
                    return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                      "plot %s: panel %d series %d: columns must be >= 1",
                                      fig->output, p + 1, s + 1);
            }
            if (se->header_lines < 0)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "plot %s: panel %d series %d: negative header_lines", fig->output,
                                  p + 1, s + 1);
        }
    }
    return TVDS_OK;
}

static void put_range(FILE *f, const char *axis, double lo, double hi)
{
    if (lo < hi && isfinite(lo) && isfinite(hi))
        fprintf(f, "set %srange [%.17g:%.17g]\n", axis, lo, hi);
}

static void put_panel(FILE *f, const tvds_plot_panel *pa)
{
    /* Each panel starts from gnuplot's defaults: settings of the previous panel must not leak
     * into this one (reset keeps the terminal and the output). */
    fputs("reset\nset datafile separator ','\nset datafile missing 'nan'\n", f);
    if (pa->title) {
        fputs("set title ", f);
        put_quoted(f, pa->title);
        fputc('\n', f);
    }
    const char *lab[3] = {pa->xlabel, pa->ylabel, pa->cblabel};
    const char *axn[3] = {"x", "y", "cb"};
    for (int k = 0; k < 3; k++) {
        if (!lab[k]) continue;
        fprintf(f, "set %slabel ", axn[k]);
        put_quoted(f, lab[k]);
        fputc('\n', f);
    }
    if (pa->logx) fputs("set logscale x\n", f);
    if (pa->logy) fputs("set logscale y\n", f);
    if (pa->logcb) fputs("set logscale cb\n", f);
    put_range(f, "x", pa->xmin, pa->xmax);
    put_range(f, "y", pa->ymin, pa->ymax);
    put_range(f, "cb", pa->cbmin, pa->cbmax);
    if (pa->grid) fputs("set grid\n", f);
    int titled = 0, coloured = 0;
    for (int s = 0; s < pa->nseries; s++) {
        if (pa->series[s].title) titled = 1;
        if (pa->series[s].style == TVDS_PLOT_SCATTER_COLOR ||
            pa->series[s].style == TVDS_PLOT_HEATMAP)
            coloured = 1;
    }
    if (!titled)
        fputs("set key off\n", f);
    else
        fprintf(f, "set key %s\n", pa->key ? pa->key : "top right");
    if (coloured) {
        /* A perceptual palette close to viridis, monotone in lightness. */
        fprintf(f, "set palette %s\n",
                pa->palette ? pa->palette
                            : "defined (0 '#440154', 1 '#3b528b', 2 '#21908d', 3 '#5dc963', "
                              "4 '#fde725')");
        fputs("set colorbox\n", f);
    }
    for (int r = 0; r < pa->nrefs; r++) {
        const tvds_plot_refline *rl = &pa->refs[r];
        if (rl->vertical)
            fprintf(f, "set arrow from first %.17g, graph 0 to first %.17g, graph 1 nohead front",
                    rl->value, rl->value);
        else
            fprintf(f, "set arrow from graph 0, first %.17g to graph 1, first %.17g nohead front",
                    rl->value, rl->value);
        put_color(f, rl->color ? rl->color : "black");
        fprintf(f, " lw 1.2 dt %d\n", rl->dashed ? 2 : 1);
        if (rl->label) {
            fputs("set label ", f);
            put_quoted(f, rl->label);
            if (rl->vertical)
                fprintf(f, " at first %.17g, graph 0.98 rotate by 90 right offset -0.6,0 front",
                        rl->value);
            else
                fprintf(f, " at graph 0.99, first %.17g right offset 0,0.6 front", rl->value);
            fputs(" tc rgb ", f);
            put_quoted(f, rl->color ? rl->color : "black");
            fputc('\n', f);
        }
    }
    if (pa->nseries == 0) {
        /* Axes without data: an invisible function keeps gnuplot from complaining. */
        fputs("plot NaN notitle\n", f);
        return;
    }
    fputs("plot ", f);
    for (int s = 0; s < pa->nseries; s++) {
        const tvds_plot_series *se = &pa->series[s];
        if (s) fputs(", \\\n     ", f);
        put_quoted(f, rel_path(se->file));
        if (se->header_lines > 0) fprintf(f, " skip %d", se->header_lines);
        if (se->using)
            fprintf(f, " using %s", se->using);
        else if (se->style == TVDS_PLOT_SCATTER_COLOR || se->style == TVDS_PLOT_HEATMAP)
            fprintf(f, " using %d:%d:%d", se->xcol, se->ycol, se->ccol);
        else
            fprintf(f, " using %d:%d", se->xcol, se->ycol);
        double lw = se->line_width > 0 ? se->line_width : 1.5;
        double ps = se->point_size > 0 ? se->point_size : 0.6;
        int pt = se->point_type > 0 ? se->point_type : 7;
        switch (se->style) {
        case TVDS_PLOT_LINES:
            fprintf(f, " with lines lw %g", lw);
            break;
        case TVDS_PLOT_POINTS:
            fprintf(f, " with points pt %d ps %g", pt, ps);
            break;
        case TVDS_PLOT_LINESPOINTS:
            fprintf(f, " with linespoints lw %g pt %d ps %g", lw, pt, ps);
            break;
        case TVDS_PLOT_SCATTER_COLOR:
            fprintf(f, " with points pt %d ps %g lc palette", pt, ps);
            break;
        default:
            fputs(" with image", f);
            break;
        }
        if (se->color && se->style != TVDS_PLOT_SCATTER_COLOR && se->style != TVDS_PLOT_HEATMAP)
            put_color(f, se->color);
        if (se->title) {
            fputs(" title ", f);
            put_quoted(f, se->title);
        } else {
            fputs(" notitle", f);
        }
    }
    fputc('\n', f);
}

int tvds_plot_write_script(const tvds_plot_figure *fig, const char *script_path, tvds_ctx *ctx)
{
    int rc = check_figure(fig, ctx);
    if (rc) return rc;
    if (!script_path)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "plot %s: no script path", fig->output);
    FILE *f = fopen(script_path, "w");
    if (!f)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write: %s", script_path, strerror(errno));
    const char *slash = strrchr(script_path, '/');
    size_t nd = slash ? (size_t)(slash - script_path) : 0;
    if (nd >= sizeof script_dir) nd = 0; /* too long: paths stay as given */
    memcpy(script_dir, script_path, nd);
    script_dir[nd] = '\0';
    int w = fig->width > 0 ? fig->width : 1000, h = fig->height > 0 ? fig->height : 700;
    fprintf(f,
            "# gnuplot script written by tvds %s; paths relative to its folder: run there, "
            "gnuplot %s\n",
            TVDS_VERSION, slash ? slash + 1 : script_path);
    fprintf(f, "set terminal pngcairo size %d,%d noenhanced font ',10'\n", w, h);
    fputs("set output ", f);
    put_quoted(f, rel_path(fig->output));
    fputc('\n', f);
    int nr = fig->nrows, nc = fig->ncols;
    if (nr == 0 && nc == 0)
        nr = fig->npanels, nc = 1;
    else if (nr == 0)
        nr = (fig->npanels + nc - 1) / nc;
    else if (nc == 0)
        nc = (fig->npanels + nr - 1) / nr;
    int multi = fig->npanels > 1 || fig->title;
    if (multi) {
        fprintf(f, "set multiplot layout %d,%d", nr, nc);
        if (fig->title) {
            fputs(" title ", f);
            put_quoted(f, fig->title);
        }
        fputc('\n', f);
    }
    for (int p = 0; p < fig->npanels; p++)
        put_panel(f, &fig->panels[p]);
    if (multi) fputs("unset multiplot\n", f);
    fputs("unset output\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write error", script_path);
    return TVDS_OK;
}

/* A missing gnuplot is a warning: the message goes to ctx->msg when ctx holds no error yet,
 * but ctx->status stays as it is, so that a later error is still recorded. */
static int no_gnuplot(tvds_ctx *ctx, const char *png, const char *prog, const char *why,
                      const char *script)
{
    if (ctx && ctx->status == TVDS_OK)
        snprintf(ctx->msg, sizeof ctx->msg, "plot %s: cannot run '%s': %s (script left in %s)", png,
                 prog, why, script);
    return TVDS_WARN_NO_GNUPLOT;
}

int tvds_plot_render(const tvds_plot_figure *fig, tvds_ctx *ctx)
{
    int rc = check_figure(fig, ctx);
    if (rc) return rc;
    size_t len = strlen(fig->output);
    char *script = tvds_malloc(len + 4);
    if (!script) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "plot %s: out of memory", fig->output);
    memcpy(script, fig->output, len + 1);
    if (len > 4 && !strcmp(script + len - 4, ".png")) script[len - 4] = '\0';
    strcat(script, ".gp");
    rc = tvds_plot_write_script(fig, script, ctx);
    if (rc) goto done;

    const char *prog = getenv("TVDS_GNUPLOT");
    if (!prog || !prog[0]) prog = "gnuplot";
    /* gnuplot's output (warnings, errors) goes to a pipe, never to our terminal. */
    int fd[2];
    if (pipe(fd) != 0) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "plot %s: pipe: %s", fig->output, strerror(errno));
        goto done;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", 0, 0);
    /* In the script's folder (its paths are relative to it); a gnuplot given by a relative
     * path is resolved before. */
    char *slash = strrchr(script, '/'), *sname = slash ? slash + 1 : script;
    char *progabs = NULL; /* malloc'd by realpath */
    if (slash) {
        *slash = '\0';
        posix_spawn_file_actions_addchdir_np(&fa, script);
        if (strchr(prog, '/') && prog[0] != '/' && (progabs = realpath(prog, NULL))) prog = progabs;
    }
    char *argv[] = {(char *)prog, sname, NULL};
    pid_t pid;
    int err = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (slash) *slash = '/';
    free(progabs);
    prog = getenv("TVDS_GNUPLOT");
    if (!prog || !prog[0]) prog = "gnuplot";
    close(fd[1]);
    if (err != 0) {
        close(fd[0]);
        rc = no_gnuplot(ctx, fig->output, prog, strerror(err), script);
        goto done;
    }
    char out[512];
    size_t nout = 0;
    char buf[4096];
    for (;;) {
        ssize_t k = read(fd[0], buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        for (ssize_t i = 0; i < k && nout + 1 < sizeof out; i++)
            out[nout++] = buf[i];
    }
    out[nout] = '\0';
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "plot %s: waitpid: %s", fig->output, strerror(errno));
            goto done;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        rc = no_gnuplot(ctx, fig->output, prog, "command not found", script);
        goto done;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        /* The interesting line of gnuplot's report is the last non-empty one. */
        char *msg = out;
        char *q = out;
        for (char *p = out; *p; p++) {
            char ch = *p == '\n' || *p == '\t' ? ' ' : *p;
            if (ch == ' ' && q > out && q[-1] == ' ') continue;
            *q++ = ch;
        }
        *q = '\0';
        while (*msg == ' ')
            msg++;
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: gnuplot failed: %s", script,
                        *msg ? msg : "(no output)");
        goto done;
    }
    struct stat st;
    if (stat(fig->output, &st) != 0 || st.st_size == 0) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: gnuplot wrote no image", fig->output);
        goto done;
    }
    rc = TVDS_OK;
done:
    tvds_free(script);
    return rc;
}
