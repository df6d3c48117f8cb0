/* tvds_reduce.h — Craig–Bampton reduction of a full sparse FE model (docs/reduce.md). */
#ifndef TVDS_REDUCE_H
#define TVDS_REDUCE_H

#include <cholmod.h>
#include <signal.h>

#include "tvds/tvds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A full (unreduced) linear FE model: sparse symmetric M and K and the labels of its DoFs.
 * Owns every pointer inside it (tvds_fe_model_free). */
typedef struct tvds_fe_model {
    char *name;        /* or NULL */
    int n;             /* number of DoFs */
    cholmod_sparse *M; /* n x n, symmetric (stype != 0: one triangle stored) [kg] */
    cholmod_sparse *K; /* n x n, symmetric [N/m] */
    tvds_dof *dofs;    /* n labels: physical node/dir/coordinates */
    int nsets;
    tvds_nodeset *sets; /* nsets named, ordered node sets */
    int nfsets;
    tvds_faceset *fsets; /* nfsets face sets (3D contact surfaces); their nodes have ux, uy, uz */
} tvds_fe_model;

/* Free a full model (CHOLMOD matrices with cc); accepts NULL and clears *m. */
TVDS_API void tvds_fe_model_free(tvds_fe_model **m, cholmod_common *cc);

/* Write a full model as a directory: M.mtx, K.mtx (symmetric coordinate Matrix Market),
 * dofs.txt (one line per DoF in matrix order, "<node> <ux|uy|...> <x> <y> <z>", as the DoF
 * table of a substructure, docs/formats.md) and sets.txt ("set <name> <node>..." and one
 * "face <name> <node>..." line per face of each face set).
 * The directory is created if missing. */
TVDS_API int tvds_fe_model_write(const tvds_fe_model *m, const char *dir, tvds_ctx *ctx);
/* The names of the files of a full-model directory (M.mtx, K.mtx, dofs.txt, sets.txt): *names
 * points at a static table; returns its length. */
TVDS_API int tvds_fe_model_files(const char *const **names);
/* Read the DoF label table dofs.txt of a full model (format of tvds_fe_model_write; "#"
 * comments; directions ux/uy/uz or x/y/z) and its
 * node sets (sets_path may be NULL). *dofs and *sets are tvds_malloc'ed, owned by the caller
 * (free sets with tvds_fe_sets_free). *n receives the number of DoFs. */
TVDS_API int tvds_fe_dofs_read(const char *dofs_path, const char *sets_path, int *n,
                               tvds_dof **dofs, int *nsets, tvds_nodeset **sets, tvds_ctx *ctx);
/* The files of a full model on disk (docs/reduce.md). */
typedef struct tvds_fe_paths {
    const char *mass, *stiffness; /* M.mtx, K.mtx (Matrix Market) */
    const char *dofs;             /* dofs.txt */
    const char *sets;             /* sets.txt, or NULL */
    int check_mass;               /* 1: prove M positive definite by a sparse Cholesky */
} tvds_fe_paths;

/* Read a full model and check it as a substructure is checked: DoF table (one line per DoF,
 * coordinates equal for the DoFs of a node), node sets (nodes with DoFs, no repeats, unique
 * names), declared matrix sizes against the DoF table and the machine's memory before any
 * entry is read, M and K symmetric (a 'general' file holding one triangle is refused), M with
 * a positive diagonal (and positive definite with check_mass), K with no negative diagonal.
 * Every message names the file (and line where there is one). *out is owned by the caller
 * (tvds_fe_model_free). Linear in the size of the files (plus the Cholesky of M). Returns
 * TVDS_OK, TVDS_ERR_IO, TVDS_ERR_PARSE, TVDS_ERR_INVALID, TVDS_ERR_NOT_POSDEF, TVDS_ERR_NOMEM. */
TVDS_API int tvds_fe_model_read(const tvds_fe_paths *paths, tvds_fe_model **out, cholmod_common *cc,
                                tvds_ctx *ctx);
/* The checks of tvds_fe_model_read on a model in memory; names gives the file names used in
 * the messages (mass, stiffness, dofs). */
TVDS_API int tvds_fe_model_check(const tvds_fe_model *m, const tvds_fe_paths *names,
                                 cholmod_common *cc, tvds_ctx *ctx);

/* What an import found (for the report of `tvds import`). */
typedef struct tvds_ccx_info {
    int nodes;                   /* nodes with coordinates in the deck */
    int nsets_deck;              /* node sets defined in the deck */
    int sets_dropped;            /* sets left out: none of their nodes has a DoF */
    char first_dropped[64];      /* name of the first one */
    int elements;                /* solid elements read (*ELEMENT of a type with faces) */
    int nsurf_deck;              /* *SURFACE, TYPE=ELEMENT definitions in the deck */
    int faces_dropped;           /* faces left out: a node without ux, uy, uz (constrained) */
    int fsets_dropped;           /* surfaces left out: every face dropped */
    char first_face_dropped[64]; /* surface of the first dropped face */
    int lowmass_elements;        /* elements whose ccx mass is integrated at the stiffness
                                    points (C3D20R, C3D10, C3D4, C3D8R): singular element mass */
    char lowmass_type[16];       /* the first such type, "" when none */
} tvds_ccx_info;

/* Offsets in {0, 1}^3 of node l (0..7) of the box: the bottom face (z offset 0)
 * counter-clockwise from the origin corner, then the top face. */
TVDS_API void tvds_hex8_corner(int l, int off[3]);

/* Stiffness and consistent mass of a box element h[0] x h[1] x h[2] aligned with its local
 * axes, 2 x 2 x 2 Gauss points; DoF 3 l + a (node l, direction a). incompatible != 0 adds the
 * nine Wilson-Taylor incompatible modes (1 - xi^2 per direction and component), condensed
 * statically, which removes the shear locking of the trilinear element in bending. Returns 1, or
 * 0 when the condensation fails (degenerate box). */
TVDS_API int tvds_hex8_box(double E, double nu, double rho, const double h[3], int incompatible,
                           double Ke[24][24], double Me[24][24]);

/* Import a CalculiX job as a full model: inp_path is JOB.inp (its *NODE coordinates and *NSET
 * node sets, with *INCLUDE, GENERATE, keyword-line continuations, '**' comments, keywords in
 * any case); JOB.dof ("node.direction" per line, matrix order; directions 1-3 translations,
 * 4-6 rotations), JOB.sti and JOB.mas (upper triangle "row col value", 1-based, no header), as
 * written by *FREQUENCY, SOLVER=MATRIXSTORAGE, are read beside it. Node sets keep the nodes
 * that have a DoF. Errors name the file and line. *out is owned by the caller; info may be
 * NULL. Nothing is run and nothing is written. */
TVDS_API int tvds_import_calculix(const char *inp_path, tvds_fe_model **out, tvds_ccx_info *info,
                                  cholmod_common *cc, tvds_ctx *ctx);
/* Import the global matrices of an Abaqus matrix generation step (*MATRIX GENERATE,
 * STIFFNESS, MASS with *MATRIX OUTPUT, STIFFNESS, MASS; docs/formats.md): stiffness and mass
 * are the written files (JOB_STIF<step>.mtx, JOB_MASS<step>.mtx), one line per term "row
 * node, row DoF, column node, column DoF, value" (commas and/or blanks), one triangle of the
 * symmetric matrix or both with equal mirrored terms; DoFs 1-6. The DoFs are every (node, DoF)
 * the files name, in ascending node then DoF order. inp_path (JOB.inp of a flat deck, or NULL:
 * coordinates 0, no sets) gives coordinates, node sets and surfaces as tvds_import_calculix
 * does (info counts as for it). Errors name the file and line. *out is owned by the caller. */
TVDS_API int tvds_import_abaqus(const char *stiffness, const char *mass, const char *inp_path,
                                tvds_fe_model **out, tvds_ccx_info *info, cholmod_common *cc,
                                tvds_ctx *ctx);
/* Import two matrices of a Nastran punch (or bulk data) file of DMIG entries (docs/formats.md):
 * small field, large field (DMIG*, '*' continuations) and free field (commas), continuation
 * lines, IFO 6 (symmetric: each term once, in either triangle) and IFO 1 (square: both
 * triangles, symmetric to 1e-10 of the largest term), TIN 1 (single precision: values
 * rounded to float) and TIN 2 (double). k_name and m_name name the matrices (NULL: the one
 * DMIG name beginning with K, not K4, and the one beginning with M). Grid components 1-6;
 * scalar points (component 0) are refused. Coordinates from the GRID entries of the same file
 * and of bulk_path (may be NULL; CP and CD blank or 0); without any GRID they are 0.
 * info->nodes receives the GRID count (info may be NULL). Errors name the file and line. */
TVDS_API int tvds_import_nastran(const char *pch_path, const char *k_name, const char *m_name,
                                 const char *bulk_path, tvds_fe_model **out, tvds_ccx_info *info,
                                 cholmod_common *cc, tvds_ctx *ctx);
/* A box-shaped solid of 8-node hexahedra clamped at x = 0 (benchmarks, docs/performance.md). */
typedef struct tvds_block_params {
    double lx, ly, lz; /* box [m] (default 0.1 x 0.02 x 0.002: beam 2 as a solid) */
    int nx, ny, nz;    /* elements along x, y, z */
    double E, nu, rho; /* polycarbonate by default, as beam 2 [Pa, -, kg/m^3] */
    int patch;         /* side of the 'patch' node set in nodes (default 10) */
} tvds_block_params;

TVDS_API tvds_block_params tvds_block_default(void);
/* Element counts in the box's proportions for about ndofs free DoFs. */
TVDS_API void tvds_block_size_for(tvds_block_params *p, double ndofs);
/* Build the block: K and M upper triangles (stype +1), DoFs of the nodes with x > 0 in node
 * order, node sets 'top' (face z = lz), 'patch' (patch x patch nodes of it at the free end),
 * 'tip' (face x = lx), and (nx > 1) the face set 'top_faces': the 4-node faces of z = lz
 * whose nodes all have DoFs, normal +z. *out is owned by the caller. */
TVDS_API int tvds_block_build(const tvds_block_params *p, tvds_fe_model **out, cholmod_common *cc,
                              tvds_ctx *ctx);
/* Free an array of node sets. */
TVDS_API void tvds_fe_sets_free(int nsets, tvds_nodeset **sets);
/* Free an array of face sets; accepts NULL and clears *fsets. */
TVDS_API void tvds_fe_facesets_free(int nfsets, tvds_faceset **fsets);

/* Where a reduction is (tvds_reduce_opts.progress). Stages, in order: "factor" (K_ii, and
 * K_ii - sigma M_ii), "modes" (ARPACK), "constraint modes", "projection". */
typedef struct tvds_reduce_progress {
    const char *stage;
    int index, count; /* stage index 1..count */
    long done, total; /* work units of the stage done so far and in all; total 0: unknown (the
                         eigensolver: done counts operator applications) */
    double wall_s;    /* wall-clock time since the reduction started [s] */
} tvds_reduce_progress;
typedef void (*tvds_reduce_progress_fn)(void *user, const tvds_reduce_progress *p);

/* Options of the reduction; tvds_reduce_opts_default() gives the documented defaults. */
typedef struct tvds_reduce_opts {
    int nmodes;      /* fixed-interface modes to keep (default 20; at most n_i - 1: a larger
                        request is an error); 0 with f_cut_hz > 0: all modes below the cut-off */
    double f_cut_hz; /* > 0: keep only modes below this frequency [Hz] (default 0: off) */
    double tol;      /* ARPACK relative tolerance (default 1e-12) */
    double sigma; /* shift of K_ii - sigma M_ii in the eigensolver, <= 0 (default 0) [rad^2/s^2] */
    const char *m_name, *k_name;      /* names of M and K in messages, e.g. their files (default
                                         NULL: "M", "K") */
    volatile sig_atomic_t *stop;      /* NULL, or a flag: nonzero stops the reduction at its next
                                         check (each ARPACK iteration, each block of 64 constraint
                                         modes or projected columns, between stages; not inside one
                                         CHOLMOD factorization) with TVDS_ERR_INTERRUPTED */
    tvds_reduce_progress_fn progress; /* NULL, or called at each stage's start and end and as
                                         long stages advance (the library never prints) */
    void *progress_user;
} tvds_reduce_opts;

TVDS_API tvds_reduce_opts tvds_reduce_opts_default(void);

/* What a reduction did and cost. Times are wall-clock seconds. */
typedef struct tvds_reduce_stats {
    int n, nb, ni, nm; /* full, boundary, interior, modal DoF counts */
    long nnz_K;        /* stored entries of K */
    long nnz_L;        /* entries of the Cholesky factor of K_ii */
    double rcond_Kii;  /* CHOLMOD's estimate (min/max diagonal of L)^2 of 1/cond(K_ii) */
    double t_factor;   /* analyse + factorize K_ii (and K_ii - sigma M_ii) */
    double t_static;   /* constraint modes Psi = -K_ii^-1 K_ib */
    double t_modes;    /* ARPACK fixed-interface modes */
    double t_project;  /* M_r = T' M T, K_r = T' K T */
    double t_total;
    int arpack_iter;  /* Arnoldi restarts */
    int arpack_nops;  /* operator applications */
    double f_max_hz;  /* highest fixed-interface frequency kept */
    long peak_rss_kb; /* process peak resident set size at the end (getrusage) [KiB] */
    int nfsets;       /* tvds_reduce_fe: face sets carried to the substructure */
    int nfsets_left;  /* tvds_reduce_fe: face sets left out (a node not retained) */
} tvds_reduce_stats;

/* Craig–Bampton reduction of (M, K).
 *   M, K      full symmetric matrices, n x n (stype +1, -1 or 0 with both triangles stored).
 *   dofs      n labels of the full model's DoFs, or NULL (then node = index + 1, dir X).
 *   nb, boundary   retained physical DoFs (0-based indices into the full model, distinct);
 *             they come first in the reduced model, in the given order.
 *   nrec, recover  DoFs (0-based) whose displacement is recovered from the reduced DoFs: one
 *             recovery row each (row of T), named "node<id>.<dir>"; nrec may be 0.
 *   nsets, sets    node sets copied to the output when every node of a set has a boundary
 *             DoF (others are skipped); may be 0/NULL.
 *   opt       NULL: defaults.
 *   out       receives the reduced substructure (dense M_r, K_r, DoF table with the boundary
 *             DoFs then the modal DoFs labelled with their fixed-interface frequency); owned by
 *             the caller (tvds_substructure_free).
 *   stats     may be NULL.
 * K_ii must be positive definite: when the boundary does not restrain the rigid-body motion
 * the call fails with TVDS_ERR_NOT_POSDEF naming a DoF where the factorization broke down
 * (docs/reduce.md). Returns TVDS_OK, TVDS_ERR_INVALID, TVDS_ERR_NOT_POSDEF, TVDS_ERR_SOLVER,
 * TVDS_ERR_NOMEM. ARPACK is not reentrant: one reduction at a time per process. */
TVDS_API int tvds_reduce_cb(const cholmod_sparse *M, const cholmod_sparse *K, const tvds_dof *dofs,
                            int nb, const int *boundary, int nrec, const int *recover, int nsets,
                            const tvds_nodeset *sets, const tvds_reduce_opts *opt,
                            tvds_substructure **out, tvds_reduce_stats *stats, cholmod_common *cc,
                            tvds_ctx *ctx);

/* Lowest nev eigenpairs of K x = lambda M x (K positive definite, or shifted by sigma <= 0 so
 * that K - sigma M is) by ARPACK shift-invert with a CHOLMOD LL' factorization.
 * freq_hz (nev) receives sqrt(lambda)/(2 pi) in ascending order; phi (n x nev column-major,
 * M-normalised) may be NULL. Returns TVDS_OK or an error code. */
TVDS_API int tvds_eigs_lowest(const cholmod_sparse *M, const cholmod_sparse *K, int nev,
                              double sigma, double tol, double *freq_hz, double *phi,
                              cholmod_common *cc, tvds_ctx *ctx);

/* Parse a boundary/recovery specification against a DoF table: a comma-separated list whose
 * items are a node-set name (every DoF of its nodes, in set order, x before y), "NAME.y" (one
 * direction of a set's nodes; "set:NAME" forces the set meaning), "NODE" (all DoFs of a node),
 * "NODE.x" / "NODE.uy" (one DoF), or "#INDEX" (0-based DoF index). Each item must match a DoF. *idx
 * (tvds_malloc'ed, caller frees) receives the distinct DoF indices. */
TVDS_API int tvds_reduce_parse_spec(const char *spec, int n, const tvds_dof *dofs, int nsets,
                                    const tvds_nodeset *sets, int *count, int **idx, tvds_ctx *ctx);

/* The DoF specification of tvds_reduce_parse_spec against a full model, with its face sets:
 * "face:NAME" (or NAME, node and face sets share one name space) stands for every DoF of the
 * distinct nodes of face set NAME in face order, "face:NAME.z" for one direction. */
TVDS_API int tvds_fe_parse_spec(const tvds_fe_model *m, const char *spec, int *count, int **idx,
                                tvds_ctx *ctx);
/* What tvds_reduce_fe retains, recovers and must carry (docs/reduce.md). */
typedef struct tvds_reduce_spec {
    const char *boundary;  /* retained DoFs (tvds_fe_parse_spec), required */
    const char *recover;   /* recovered DoFs, or NULL */
    const char *faces;     /* comma-separated face sets that must reach the substructure, or
                              NULL; a face set named in boundary must too */
    const char *sets_name; /* the sets file, for messages (NULL: "sets.txt") */
} tvds_reduce_spec;
/* Craig-Bampton reduction of a full model with its sets: the boundary and recovery DoFs from
 * sp, node sets carried as tvds_reduce_cb carries them, and every face set whose nodes all keep
 * ux, uy and uz as boundary DoFs copied to (*out)->fsets; the others are left out (counted in
 * stats). A face set asked for in sp->faces or named in sp->boundary that has a node without
 * retained ux, uy, uz is an error (TVDS_ERR_INVALID, naming the sets file, the face set and the
 * first such node), found before anything is computed. Other arguments and return codes as
 * tvds_reduce_cb. */
TVDS_API int tvds_reduce_fe(const tvds_fe_model *m, const tvds_reduce_spec *sp,
                            const tvds_reduce_opts *opt, tvds_substructure **out,
                            tvds_reduce_stats *stats, cholmod_common *cc, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
