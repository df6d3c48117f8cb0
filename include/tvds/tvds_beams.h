/* tvds_beams.h — plane-stress FE models of the paper's beam-on-beam system (9-node Lagrange
 * quadrilaterals), their Craig–Bampton reduction, and beam-theory references (docs/models.md). */
#ifndef TVDS_BEAMS_H
#define TVDS_BEAMS_H

#include <cholmod.h>

#include "tvds/tvds_reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One beam: a rectangle meshed with nx x ny 9-node quadrilaterals (plane stress). */
typedef struct tvds_beam_params {
    double length;    /* along the axis [m] */
    double thick;     /* in-plane thickness b [m] */
    double width;     /* out-of-plane width a [m] */
    double E, nu;     /* Young's modulus [Pa], Poisson's ratio */
    double rho;       /* density [kg/m^3] */
    double angle_deg; /* beam 1: angle to the horizontal [deg]; beam 2: ignored */
    int nx, ny;       /* elements along the axis and across the thickness */
    int nz;           /* 3D model only: elements across the width */
    int pin;          /* beam 1, end A: 0 (default) carriage, the end section translates
                         without rotating; 1 pin, only its mid-thickness node is driven and the
                         beam rotates freely about it (docs/models.md) */
} tvds_beam_params;

/* The beam-on-beam system of the Machines 2022 paper. */
typedef struct tvds_bob_params {
    tvds_beam_params beam1; /* oblique aluminium beam */
    tvds_beam_params beam2; /* horizontal polycarbonate cantilever */
    double s0;              /* initial contact position: x of tip C on beam 2's upper edge [m] */
    int modes1, modes2;     /* fixed-interface modes kept per beam */
} tvds_bob_params;

/* Paper's data (references.md) and the default mesh (docs/models.md). */
TVDS_API tvds_bob_params tvds_bob_default(void);
/* Apply one "key=value" override: s0, modes1, modes2, beam1.KEY or beam2.KEY with KEY one of
 * length thick width E nu rho angle nx ny (SI units, angle in degrees), or
 * beam1.a_support=carriage|pin. */
TVDS_API int tvds_bob_set(tvds_bob_params *p, const char *key_value, tvds_ctx *ctx);

/* Beam 2 alone: horizontal cantilever from B (x = 0, clamped: every node of the section) to
 * the free end T (x = length), upper edge at y = 0. Node sets: "top" (upper-edge nodes left to
 * right, B's clamped node excluded), "T" (mid-height node of the free end), "T_top". */
TVDS_API int tvds_beam2_build(const tvds_beam_params *p, tvds_fe_model **out, cholmod_common *cc,
                              tvds_ctx *ctx);
/* Beam 1 alone: oblique beam whose lower tip corner C is at (s0, 0), rising at angle_deg to
 * the upper-left end A. The nodes of A's end section share the carriage DoFs A.x, A.y (node
 * "A", the last node id). Node sets: "A", "C". */
TVDS_API int tvds_beam1_build(const tvds_beam_params *p, double s0, tvds_fe_model **out,
                              cholmod_common *cc, tvds_ctx *ctx);
/* Monolithic FE model of the pair glued at C (C shares the DoFs of beam 2's upper-edge node at
 * x = s0, which must be a node: s0 a multiple of beam2.length / (2 beam2.nx)). The carriage A
 * is free. DoFs: beam 2's first, then beam 1's. */
TVDS_API int tvds_bob_glued_build(const tvds_bob_params *p, tvds_fe_model **out, cholmod_common *cc,
                                  tvds_ctx *ctx);

/* Build both beams, write their full models (DIR/beam1_full, DIR/beam2_full: M.mtx, K.mtx,
 * dofs.txt, sets.txt) and their Craig–Bampton reductions (DIR/beam1, DIR/beam2, substructure
 * directories: beam 1 retains A.x A.y C.x C.y, beam 2 the upper edge; beam 2 recovers T.y).
 * stats (2, may be NULL) receive the reductions' statistics. */
TVDS_API int tvds_bob_write(const tvds_bob_params *p, const char *dir, tvds_reduce_stats *stats,
                            cholmod_common *cc, tvds_ctx *ctx);

/* The pair as solids (8-node hexahedra with incompatible modes, nx x ny x nz per beam, z across
 * the width, centred on z = 0): the paper's data, the 3D default mesh (docs/models.md). */
TVDS_API tvds_bob_params tvds_bob3d_default(void);
/* Beam 2 as a solid, clamped at x = 0, upper face at y = 0. Node sets: "top_nodes" (upper face,
 * clamped section excluded), "T" (free end, mid-thickness, mid-width). */
TVDS_API int tvds_beam2_3d_build(const tvds_beam_params *p, tvds_fe_model **out, cholmod_common *cc,
                                 tvds_ctx *ctx);
/* Beam 1 as a solid: lower tip line C (nz + 1 nodes across the width at x = s0, y = 0); A's end
 * section translates with node "A" (the last node id, three DoFs). Node sets "A", "C". */
TVDS_API int tvds_beam1_3d_build(const tvds_beam_params *p, double s0, tvds_fe_model **out,
                                 cholmod_common *cc, tvds_ctx *ctx);
/* As tvds_bob_write for the solids: beam 1 retains A and the line C (3 DoFs per node), beam 2
 * its upper-face nodes, with the face set "top" (4-node faces, normal +y) as contact master. */
TVDS_API int tvds_bob3d_write(const tvds_bob_params *p, const char *dir, tvds_reduce_stats *stats,
                              cholmod_common *cc, tvds_ctx *ctx);

/* Timoshenko cantilever (clamped-free) of a rectangular section, plane stress, shear
 * coefficient kappa (Cowper's 10(1+nu)/(12+11nu) when kappa <= 0): lowest nf bending
 * frequencies [Hz] by shooting on the exact ODEs. Returns TVDS_OK. */
TVDS_API int tvds_timoshenko_cantilever(double E, double nu, double rho, double length,
                                        double thick, double kappa, int nf, double *freq_hz);

#ifdef __cplusplus
}
#endif
#endif
