/* tvds_disc.h — the disc-brake model: an annular disc of 8-node hexahedra clamped at its hub,
 * one or two pads on backplates over its friction ring, Craig–Bampton reduced, and the
 * thin-plate reference of the clamped-free annular disc (docs/models.md, docs/validation.md). */
#ifndef TVDS_DISC_H
#define TVDS_DISC_H

#include <cholmod.h>

#include "tvds/tvds_reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Geometry, materials and meshes of the disc brake. The disc's axis is z, its mid-plane
 * z = 0; node (i, j, k) at r = r_hub + (r_out - r_hub) i / nr, theta = 2 pi j / nt,
 * z = thick (k / nz - 1/2). Pads are annular sectors centred at theta = pad_theta_deg. */
typedef struct tvds_disc_params {
    double r_out, r_hub, thick; /* disc outer radius, clamped hub radius, thickness [m] */
    double E, nu, rho;          /* disc material [Pa, -, kg/m^3] */
    int nr, nt, nz;             /* disc elements: radial, around (a multiple of 4), through */
    int modes;                  /* disc fixed-interface modes */
    int pads;                   /* 1: pad_out only (z > 0); 2: pad_out and pad_in (z < 0) */
    double pad_r_in, pad_r_out; /* pad radial extent [m] */
    double pad_arc_deg;         /* pad arc [deg] */
    double pad_theta_deg;       /* angle of the pad's centre [deg] */
    double pad_thick;           /* friction material thickness [m] */
    double pad_E, pad_nu, pad_rho;
    double back_thick; /* backplate thickness [m] */
    double back_E, back_nu, back_rho;
    int pad_nr, pad_nt, pad_nz; /* pad elements: radial, around, through the friction material
                                   (the backplate has one layer) */
    int pad_modes;              /* fixed-interface modes of each pad */
    double omega; /* the disc's angular speed about +z once the pads are pressed [rad/s]; 0: it
                     does not turn */
} tvds_disc_params;

/* The documented defaults (docs/models.md). */
TVDS_API tvds_disc_params tvds_disc_default(void);
/* Apply one "key=value" override: disc.KEY with KEY one of r_out r_hub thick E nu rho nr nt nz
 * modes omega; pad.KEY with KEY one of r_in r_out arc theta thick E nu rho nr nt nz modes; back.KEY
 * with KEY one of thick E nu rho; pads (1 or 2). SI units, angles in degrees. */
TVDS_API int tvds_disc_set(tvds_disc_params *p, const char *key_value, tvds_ctx *ctx);
/* Check the parameters (sizes, materials, the pad over the disc); TVDS_ERR_INVALID names the
 * first fault. */
TVDS_API int tvds_disc_check(const tvds_disc_params *p, tvds_ctx *ctx);

/* The disc alone, clamped at r_hub (every node of the hub's cylinder). Face sets
 * "ring_out" (z = thick/2, normal +z) and "ring_in" (z = -thick/2, normal -z): the 4-node
 * faces of every element whose radial span overlaps (pad_r_in, pad_r_out), over the full
 * circle; first edge along +theta. *out is owned by the caller. */
TVDS_API int tvds_disc_build(const tvds_disc_params *p, tvds_fe_model **out, cholmod_common *cc,
                             tvds_ctx *ctx);
/* One pad on its backplate, free: side +1 above the disc (friction face on z = thick/2, normal
 * -z), -1 below. Node sets "friction_nodes" (the friction face), "back" (the backplate's outer
 * face, where the pressure acts), "abut_lead" and "abut_trail" (the backplate's end faces at the
 * larger and smaller theta: tangential abutments). Face set "friction" (the pad's face on the
 * disc, outward normal). *out is owned by the caller. */
TVDS_API int tvds_pad_build(const tvds_disc_params *p, int side, tvds_fe_model **out,
                            cholmod_common *cc, tvds_ctx *ctx);
/* Build, write the full models (DIR/disc_full, DIR/pad_out_full, DIR/pad_in_full) and their
 * Craig–Bampton reductions (DIR/disc: boundary the ring face sets' nodes; DIR/pad_out, pad_in:
 * friction face, back and abutment nodes). stats (1 + pads, may be NULL) receive the
 * reductions' statistics in the order disc, pad_out, pad_in. */
TVDS_API int tvds_disc_brake_write(const tvds_disc_params *p, const char *dir,
                                   tvds_reduce_stats *stats, cholmod_common *cc, tvds_ctx *ctx);

/* Clamped-free annular Kirchhoff plate (clamped at r = b, free at r = a): the lowest nroots
 * roots lambda^2 = omega a^2 sqrt(rho h / D) with n nodal diameters, for ratio = b / a and
 * Poisson's ratio nu, from the 4 x 4 determinant of J_n, Y_n, I_n, K_n (docs/validation.md).
 * Returns TVDS_OK, or TVDS_ERR_INVALID (ratio outside (0.05, 0.95), n outside 0..20, nroots
 * outside 1..8) or TVDS_ERR_SOLVER (fewer roots below lambda a = 40). */
TVDS_API int tvds_annular_plate_cf(double ratio, double nu, int n, int nroots, double *lambda2,
                                   tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
