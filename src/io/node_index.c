/* node_index.c — node id -> the DoF indices of its directions, for the readers of dofs.txt and
 * sets.txt and the reduction's DoF specifications (one index, io_impl.h). */
#include <string.h>

#include "tvds/tvds.h"
#include "io/io_impl.h"

void tvds_nix_free(tvds_nix *x)
{
    tvds_lmap_free(&x->map);
    tvds_free(x->dof);
    tvds_free(x->mark);
    memset(x, 0, sizeof *x);
}

int tvds_nix_add(tvds_nix *x, long node, int dir, int g, int *prev, int *first)
{
    int slot;
    if (tvds_lmap_put(&x->map, node, x->nslot, &slot) != TVDS_OK) return TVDS_ERR_NOMEM;
    *first = -1;
    if (slot < 0) {
        if (x->nslot == x->cap) {
            int nc = x->cap ? 2 * x->cap : 256;
            int(*nd)[6] = tvds_realloc(x->dof, (size_t)nc * sizeof *nd);
            if (!nd) return TVDS_ERR_NOMEM;
            x->dof = nd;
            x->cap = nc;
        }
        slot = x->nslot++;
        for (int d = 0; d < 6; d++)
            x->dof[slot][d] = -1;
    } else {
        for (int d = 0; d < 6; d++)
            if (x->dof[slot][d] >= 0 && (*first < 0 || x->dof[slot][d] < *first))
                *first = x->dof[slot][d];
    }
    *prev = x->dof[slot][dir];
    if (*prev < 0) x->dof[slot][dir] = g;
    return TVDS_OK;
}

int tvds_nix_build(tvds_nix *x, int n, const tvds_dof *dofs)
{
    memset(x, 0, sizeof *x);
    if (tvds_lmap_init(&x->map, (size_t)(n > 0 ? n : 1)) != TVDS_OK) goto nomem;
    for (int g = 0; g < n; g++) {
        if (dofs[g].kind != TVDS_DOF_PHYSICAL || dofs[g].dir < 0 || dofs[g].dir >= 6) continue;
        int prev, first;
        if (tvds_nix_add(x, dofs[g].node, dofs[g].dir, g, &prev, &first) != TVDS_OK) goto nomem;
    }
    x->mark = tvds_malloc((size_t)(x->nslot > 0 ? x->nslot : 1) * sizeof *x->mark);
    if (!x->mark) goto nomem;
    for (int s = 0; s < x->nslot; s++)
        x->mark[s] = -1;
    return TVDS_OK;
nomem:
    tvds_nix_free(x);
    return TVDS_ERR_NOMEM;
}
