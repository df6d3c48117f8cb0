/* master.c — the table of master kinds (master.h): one entry per enum tvds_master_kind. */
#include "engine/contact/master.h"

const sim_master_type *const sim_masters[TVDS_MASTER_KIND_COUNT] = {
    [TVDS_MASTER_SURFACE] = &sim_master_segment2d,
    [TVDS_MASTER_SURFACE_C1] = &sim_master_segment2d_c1,
    [TVDS_MASTER_RIGID] = &sim_master_rigid_plane,
    [TVDS_MASTER_FACES] = &sim_master_faces3d,
    [TVDS_MASTER_DISC] = &sim_master_disc,
};
