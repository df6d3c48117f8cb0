/* ccx_impl.h — the input deck as ccx_deck.c reads it, for calculix.c (internal). */
#ifndef TVDS_CCX_IMPL_H
#define TVDS_CCX_IMPL_H

#include "core/hash_impl.h"
#include "tvds/tvds.h"

/* What the deck gives: node coordinates and ordered node sets (names as first written). */
typedef struct ccx_set {
    char *name;
    long *nodes; /* each node once, in order of first mention */
    int n, cap;
    tvds_lmap in; /* node -> position, to keep each node once */
} ccx_set;

/* A face set read from *SURFACE, TYPE=ELEMENT: faces as (element, face) pairs resolved to
 * oriented node lists at once. */
typedef struct ccx_surf {
    char *name;
    int file; /* where its *SURFACE keyword is: index into ccx_deck.fname, line */
    long line;
    int nface, cap;
    int *nn;      /* nface */
    long *nodes;  /* nface x TVDS_FACE_MAX_NODES */
    tvds_lmap in; /* 8 element + face -> index: each face once */
} ccx_surf;

typedef struct ccx_deck {
    tvds_lmap node_slot; /* node id -> slot in xyz */
    double (*xyz)[3];
    long *nline; /* nnode: where each node is defined: line, file (index into fname) */
    int *nfile;
    int nnode, cap;
    char **fname; /* nfiles: the deck files in the order they were opened */
    int cur;      /* file being read (index into fname) */
    ccx_set *sets;
    int nsets, scap;
    int nfiles;          /* deck files opened so far */
    char open_why[1024]; /* why the last *INCLUDE could not be opened */
    /* Solid elements: id -> slot; per slot its type and ELEM_MAX_NODES node ids. */
    tvds_lmap elem_slot;
    int *etype;
    long *conn;  /* nelem x 20 */
    long *eline; /* nelem: where each element is defined: line, file */
    int *efile;
    int nelem, ecap;
    ccx_set *esets; /* element sets (ids of any element type, in order) */
    int nesets, escap;
    ccx_surf *surfs;
    int nsurfs, sfcap;
    int flat_only; /* refuse *PART and *INSTANCE (node labels of a matrix output, abaqus.c) */
    /* Elements whose CalculiX mass is integrated at the stiffness points (C3D20R, C3D10, C3D4,
     * C3D8R: a singular element mass), and the first such type. */
    int nlowmass;
    char lowmass_type[16];
} ccx_deck;

enum { CCX_OTHER, CCX_NODE, CCX_NSET, CCX_ELEMENT, CCX_ELSET, CCX_SURF_ELEM, CCX_SURF_NODE };

typedef struct ccx_state {
    int block;    /* data lines belong to: CCX_OTHER, CCX_NODE, CCX_NSET, ... */
    int generate; /* *NSET, *ELSET: GENERATE */
    int set;      /* current set (NSET, NODE's NSET=, ELSET, ELEMENT's ELSET=, surface), -1 none */
    int etype;    /* *ELEMENT: face table (ELEM_*), -1: a type without faces (data skipped) */
    int pending;  /* *ELEMENT: slot of an element whose nodes continue on the next line, -1 */
    int filled;   /* nodes of the pending element read so far */
    long pending_id;
    int lowmass; /* *ELEMENT: a type counted in ccx_deck.nlowmass */
} ccx_state;

/* Read the deck file path (depth: *INCLUDE nesting) into d, st the parse state (start:
 * {CCX_OTHER, 0, -1, -1, -1, 0, 0, 0}). */
int ccx_read_deck(const char *path, int depth, ccx_deck *d, ccx_state *st, tvds_ctx *ctx);
/* An element whose node list did not end before a keyword or the end of the deck. */
int ccx_check_pending(const ccx_deck *d, const ccx_state *st, const char *path, long line,
                      tvds_ctx *ctx);
/* Every node of every solid element defined by *NODE. */
int ccx_check_element_nodes(const ccx_deck *d, tvds_ctx *ctx);
void ccx_deck_free(ccx_deck *d);
/* s without leading and trailing blanks (trailing ones cut in place). */
char *ccx_trim(char *s);

#endif
