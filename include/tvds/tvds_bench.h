/* tvds_bench.h — benchmark helpers: timed stepping loops without outputs, synthetic sliding
 * models of any reduced size, and the wall clock (docs/performance.md, `tvds bench`). */
#ifndef TVDS_BENCH_H
#define TVDS_BENCH_H

#include <stddef.h>

#include "tvds/tvds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one timed stepping loop measured. */
typedef struct tvds_bench_timing {
    long steps;              /* steps taken */
    double dt;               /* step used [s] */
    double setup_seconds;    /* tvds_data_create (eigenbases, flexibilities) [s], wall */
    double loop_seconds;     /* the stepping loop alone [s], wall */
    double loop_cpu_seconds; /* the stepping loop alone [s], CPU time of the calling thread
                                (robust to other processes sharing the cores) */
    double us_per_step;      /* loop_cpu_seconds / steps [us] */
    double film_iter_mean;   /* FiLm Gauss-Seidel iterations per step (summary), 0 otherwise */
    long allocs;             /* tvds_malloc/calloc/realloc calls inside the loop (must be 0) */
} tvds_bench_timing;

/* Monotonic wall clock [s] (CLOCK_MONOTONIC). */
TVDS_API double tvds_bench_now(void);
/* CPU time of the calling thread [s] (CLOCK_THREAD_CPUTIME_ID). */
TVDS_API double tvds_bench_thread_cpu(void);

/* Create the run data of m and take nsteps steps (no output files; nothing but tvds_step in
 * the timed loop). Without hist, the recorded quantities are published every out_dt / dt
 * steps as in a run that writes every out_dt (tvds_set_record); with hist at every step. hist
 * (nsteps x nhist, row-major, may be NULL) receives the first nhist channels of the history group
 * after every step (column 0 is the time; columns past the group's channel count are left
 * untouched). Returns TVDS_OK or the engine's error (t is filled with what was measured up to the
 * failure). */
TVDS_API int tvds_bench_steps(const tvds_model *m, long nsteps, double *hist, int nhist,
                              tvds_bench_timing *t, tvds_ctx *ctx);

/* Like tvds_bench_steps (without hist) but the run data are created once and nseg consecutive
 * segments of nsteps steps are timed: us[k] (nseg) receives the CPU us per step of segment k; t
 * describes the whole (t->us_per_step: the median segment). For models whose setup dominates. */
TVDS_API int tvds_bench_segments(const tvds_model *m, long nsteps, int nseg, double *us,
                                 tvds_bench_timing *t, tvds_ctx *ctx);

/* CPU cost of several methods on the same model, measured so that it survives a shared
 * machine: the run data of every method are created once (shallow copies of m with
 * opt.method = methods[j]); then nseg rounds, in each of which every method takes nsteps steps in
 * turn (the order rotated by one from round to round), timed by the thread's CPU clock. A load
 * that comes and goes then falls on every method alike within a round, and the per-round ratios
 * between methods keep their value. us[k * nm + j] receives the CPU us per step of method j in
 * round k. All methods advance through the same simulated time (from t = 0 to nseg nsteps dt).
 * 1 <= nm <= TVDS_METHOD_COUNT, 1 <= nseg <= 64, nsteps >= 1. Returns TVDS_OK, TVDS_ERR_INVALID,
 * or the engine's error (the message names the method). */
TVDS_API int tvds_bench_interleaved(const tvds_model *m, const int *methods, int nm, long nsteps,
                                    int nseg, double *us, tvds_ctx *ctx);

/* The floor of one contact step: a kernel with the O(n) passes a subs-b step of one contact
 * point cannot avoid, on nsub substructures of sizes n[0..nsub-1] (the modal path): per
 * substructure the fused predictor (backward velocity, external and damping forces, x*),
 * three dot products of length n (the displacements of the contact DoFs at x*, and one
 * probe), two column corrections (normal and tangential force on two DoFs) and the pass of
 * the work sums of the energy balance (external and damping). No engine code runs: it is what a
 * hand-written loop over the same arrays costs. Returns the CPU us per step (median of nrep
 * runs of nsteps) in *us. Returns TVDS_OK, TVDS_ERR_INVALID, TVDS_ERR_NOMEM. */
TVDS_API int tvds_bench_floor(int nsub, const int *n, long nsteps, int nrep, double *us,
                              tvds_ctx *ctx);

/* Write a synthetic sliding model of reduced size n into dir (created if missing):
 * dir/track: n/2 nodes on the line y = 0 with ux, uy each (n even, n >= 4): lumped masses,
 *   chain springs between neighbours and a spring foundation; its node set "top" is the master
 *   surface, spacing 1 mm;
 * dir/slider: a carriage node 1 and a tip node 2 (4 DoFs) joined by springs;
 * dir/case.ini: the tip slides on the track (mu 0.3) under a smooth 0.2 N load on the carriage
 *   while the carriage is driven along x over half the track in t_end = 10 s; Rayleigh damping.
 * The path of the case file is written to case_path[size]. Returns TVDS_OK, TVDS_ERR_INVALID
 * (bad n), TVDS_ERR_IO. */
TVDS_API int tvds_bench_synthetic_write(const char *dir, int n, char *case_path, size_t size,
                                        tvds_ctx *ctx);

/* The same track with a pad of m contact nodes instead of one tip (the contact's slave set
 * "tip" has m nodes, spaced min(1.5 mm, 0.7 L / m), each sprung to the carriage and to its
 * neighbour; the load is 0.2 N per node). m = 1 writes the model above. Returns as above, and
 * TVDS_ERR_INVALID when m is outside [1, min(1000, n/2)]. */
TVDS_API int tvds_bench_synthetic_pad_write(const char *dir, int n, int m, char *case_path,
                                            size_t size, tvds_ctx *ctx);

/* Write a 3D node-to-face sliding model into dir (created if missing):
 * dir/plate: a square plate of cells x cells faces (1 <= cells <= 100) of 5 mm in z = 0, nodes
 *   with ux, uy, uz: lumped masses, springs between grid neighbours and a spring foundation;
 *   face set "top" of nn-node faces (3: each cell split into two triangles, 4, 8 or 9; the
 *   quadratic faces use a grid of half the spacing);
 * dir/slider: a carriage node 1 and a tip node 2 (6 DoFs) joined by springs;
 * dir/case.ini: the tip slides on the plate (mu 0.3) under a smooth 0.2 N load on the carriage
 *   while the carriage is driven diagonally over the plate, crossing faces, their edges and
 *   corners, in t_end = 10 s; Rayleigh damping.
 * The path of the case file is written to case_path[size]. Returns TVDS_OK, TVDS_ERR_INVALID
 * (bad cells or nn), TVDS_ERR_IO. */
TVDS_API int tvds_bench_plate_write(const char *dir, int cells, int nn, char *case_path,
                                    size_t size, tvds_ctx *ctx);

/* Write the pad-on-plate model into dir (created if missing):
 * dir/plate: a steel plate 60 x 20 x 4 mm of nx x ny x 2 hexahedra clamped at x = 0,
 *   Craig-Bampton reduced on the nodes of its top faces (face set "top_faces", 3 DoFs each)
 *   with 20 fixed-interface modes: 3 nx (ny + 1) + 20 DoFs (nx = 37, ny = 8: 1019), dense M^-1;
 * dir/pad: a carriage node 1 and side x side nodes 1 mm apart on the plate's top face (node set
 *   "pad"), each sprung to the carriage and its neighbours, lumped masses;
 * dir/case.ini: the pad (m = side^2 contact nodes, mu 0.3) pressed with 0.5 N per node ramped
 *   in over 0.2 ms and dragged along x at 0.1 m/s; t_end = 10 ms.
 * nx in [2, 200], ny in [1, 100], side in [1, 17]. Returns TVDS_OK, TVDS_ERR_INVALID,
 * TVDS_ERR_IO, TVDS_ERR_NOMEM or the reduction's error. */
TVDS_API int tvds_bench_cbpad_write(const char *dir, int nx, int ny, int side, char *case_path,
                                    size_t size, tvds_ctx *ctx);

/* Ground-spring frequency sqrt(1e4 N/m / 0.01 kg) / (2 pi) [Hz] of tvds_bench_cea_chain: no
 * undamped natural frequency of the chain lies below it (K = K_chain + k_g I with K_chain
 * positive semi-definite, M = m I; the contact constraints only remove DoFs). */
#define TVDS_BENCH_CEA_CHAIN_FG 159.15494309189535
/* A model for the multi-node CEA: one substructure, a chain of N / 2 two-DoF nodes 10 mm apart
 * (mass 0.01 kg per DoF, springs of 1e4 N/m to ground, 1e5 N/m in x and y to the next node and
 * 5e4 N/m along (1, 1) / sqrt 2 coupling x and y), no damping; its nact slave nodes spread
 * evenly along the chain are pressed by 10 N each on a rigid line y = const sliding along x at
 * 1 m/s (mu = 0.3, contact 0). NULL for N < 4, nact outside [1, N / 2] or out of memory; free
 * with tvds_model_free. */
TVDS_API tvds_model *tvds_bench_cea_chain(int N, int nact);

#ifdef __cplusplus
}
#endif
#endif
