/* static.c — what the kinds share for the CEA's static state (master.h): the nodes' global DoFs
 * and coordinates, and the release of a sim_master_static. */
#include "engine/contact/master.h"

int sim_master_node_dofs(const tvds_model *m, int sub, long node, int ncomp, const int *off,
                         int *dof, double *xyz, const char *what, const char *cname, tvds_ctx *ctx)
{
    const tvds_substructure *s = m->subs[sub];
    const char *sname = s->name ? s->name : "?";
    static const int dirs[3] = {TVDS_DIR_X, TVDS_DIR_Y, TVDS_DIR_Z};
    for (int k = 0; k < ncomp; k++) {
        int d = tvds_substructure_find_dof(s, node, dirs[k]);
        if (d < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "cea: contact '%s': %s node %ld has no %c DoF in substructure '%s'",
                              cname, what, node, "xyz"[k], sname);
        dof[k] = off[sub] + d;
        if (xyz) xyz[k] = s->dofs[d].xyz[k];
    }
    return TVDS_OK;
}

void sim_master_static_free(sim_master_static *ms)
{
    tvds_free(ms->master_dof);
    tvds_free(ms->master_xy);
    tvds_free(ms->cum);
    tvds_free(ms->fdof);
    tvds_free(ms->fX);
    ms->master_dof = ms->fdof = NULL;
    ms->master_xy = ms->cum = ms->fX = NULL;
}
