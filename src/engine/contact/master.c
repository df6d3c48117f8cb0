/* master.c — the table of master kinds (master.h): one entry per enum tvds_master_kind, and
 * the slots of registered kinds. */
#include "engine/contact/master.h"

const sim_master_type *sim_masters[SIM_MASTER_SLOTS] = {
    [TVDS_MASTER_SURFACE] = &sim_master_segment2d,
    [TVDS_MASTER_SURFACE_C1] = &sim_master_segment2d_c1,
    [TVDS_MASTER_RIGID] = &sim_master_rigid_plane,
    [TVDS_MASTER_FACES] = &sim_master_faces3d,
    [TVDS_MASTER_DISC] = &sim_master_disc,
    [TVDS_MASTER_FACES_ROT] = &sim_master_faces_rot,
};

int sim_master_register(const sim_master_type *t)
{
    for (int k = TVDS_MASTER_KIND_COUNT; k < SIM_MASTER_SLOTS; k++) {
        if (sim_masters[k] == t) return k;
        if (!sim_masters[k]) {
            sim_masters[k] = t;
            return k;
        }
    }
    return -1;
}
