/* substructure_impl.h — shared by the substructure reader (substructure.c) and its checks
 * (substructure_check.c); internal. */
#ifndef TVDS_SUBSTRUCTURE_IMPL_H
#define TVDS_SUBSTRUCTURE_IMPL_H

#include <stdio.h>

#include "tvds/tvds_io.h"

static const char *const dir_names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};

static inline const char *dir_name(int d)
{
    return d >= 0 && d < 6 ? dir_names[d] : "?";
}

/* ---- Names in messages -------------------------------------------------------------------- */

/* "dir/file" (or "file" for a substructure built in memory). */
static inline void file_of(char *buf, size_t n, const tvds_substructure *s, const char *file)
{
    if (s && s->path)
        snprintf(buf, n, "%s/%s", s->path, file);
    else
        snprintf(buf, n, "%s", file);
}

/* "DoF 3 (node 12 uy)" or "DoF 21 (mode 1)", DoFs numbered from 1. */
static inline void dof_label(char *buf, size_t n, const tvds_substructure *s, int k)
{
    const tvds_dof *d = &s->dofs[k];
    if (d->kind == TVDS_DOF_MODAL)
        snprintf(buf, n, "DoF %d (mode %ld)", k + 1, d->node);
    else
        snprintf(buf, n, "DoF %d (node %ld %s)", k + 1, d->node, dir_name(d->dir));
}

static inline const char *sub_name(const tvds_substructure *s)
{
    return s && s->name ? s->name : "(unnamed)";
}

/* The checks of tvds_substructure_validate; dof_lines and set_lines (may be NULL) give the line
 * of each DoF in dofs.txt and of each set in sets.txt for the messages. */
int tvds_substructure_check_lines(const tvds_substructure *s, const long *dof_lines,
                                  const long *set_lines, tvds_ctx *ctx);

#endif
