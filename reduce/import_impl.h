/* import_impl.h — what the importers of other codes' matrices share (internal, not part of the
 * public API): the input deck of calculix.c read alone, and the assembly of node-and-DoF
 * labelled matrix entries into a full model (import_fe.c). docs/formats.md. */
#ifndef TVDS_IMPORT_IMPL_H
#define TVDS_IMPORT_IMPL_H

#include "tvds/tvds_reduce.h"

/* An Abaqus/CalculiX input deck: *NODE coordinates, *NSET node sets, solid *ELEMENTs and
 * *SURFACEs, with the syntax calculix.c reads (*INCLUDE, GENERATE, continuations, comments);
 * *PART and *INSTANCE are refused (file:line): the node labels of a matrix output are those of
 * a flat deck. */
typedef struct tvds_deck tvds_deck;
int tvds_deck_read(const char *inp_path, tvds_deck **out, tvds_ctx *ctx);
int tvds_deck_nodes(const tvds_deck *dk);
/* Coordinates of node: 1, or 0 when the deck does not define it. */
int tvds_deck_xyz(const tvds_deck *dk, long node, double xyz[3]);
/* The deck's node sets and element-face surfaces restricted to m's DoFs, as
 * tvds_import_calculix builds them; fills the deck counts of info (may be NULL). */
int tvds_deck_sets(const tvds_deck *dk, tvds_fe_model *m, tvds_ccx_info *info, tvds_ctx *ctx);
void tvds_deck_free(tvds_deck **dk);

/* How the entries of one matrix file give a symmetric matrix. */
enum {
    TVDS_IMP_SYM_ONCE,  /* one triangle, each term once, triangles may be mixed (DMIG IFO 6) */
    TVDS_IMP_SYM_EQUAL, /* one triangle or both, mirrored terms bitwise equal (Abaqus) */
    TVDS_IMP_SQUARE     /* both triangles: every nonzero term with its mirror, equal to 1e-10
                           of the largest entry, the mean kept (DMIG IFO 1) */
};

/* The entries of one matrix as read: row (node, component), column (node, component), value
 * and the line of the file that gave it. Components 1-6 (translations, rotations). */
typedef struct tvds_imp_matrix {
    const char *path; /* file, for messages */
    const char *name; /* "K", "M", or the DMIG name */
    int mode;         /* TVDS_IMP_* */
    long *rnode, *cnode, *line;
    int *rc; /* rdof + 8 * cdof */
    double *val;
    size_t n, cap;
} tvds_imp_matrix;

/* Append one entry; TVDS_OK or TVDS_ERR_NOMEM (message set). */
int tvds_imp_push(tvds_imp_matrix *a, long rnode, int rdof, long cnode, int cdof, double v,
                  long line, tvds_ctx *ctx);
void tvds_imp_matrix_free(tvds_imp_matrix *a);

/* Where the node coordinates come from: a deck, a table of GRID points (sorted ids, xyz), or
 * nothing (coordinates 0). where names the source in messages. */
typedef struct tvds_imp_coords {
    const tvds_deck *deck;
    long n;
    const long *ids; /* ascending */
    const double (*xyz)[3];
    const char *where;
} tvds_imp_coords;

/* The full model of K and M: the DoFs are every (node, component) either matrix names, in
 * ascending node then component order; the terms are checked as mode says (a repeat, a
 * mirrored pair where none may be, unequal mirrors: file:line), every DoF needs a diagonal
 * term in both; K and M are stored as upper triangles (stype 1), exact zeros dropped.
 * Coordinates from co (every node must have them when a source is given). *out is owned by
 * the caller. */
int tvds_imp_assemble(const tvds_imp_matrix *K, const tvds_imp_matrix *M, const tvds_imp_coords *co,
                      tvds_fe_model **out, cholmod_common *cc, tvds_ctx *ctx);

#endif
