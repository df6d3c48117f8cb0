/* io_impl.h — internal helpers shared by the I/O modules (not part of the public API). */
#ifndef TVDS_IO_IMPL_H
#define TVDS_IO_IMPL_H

#include <limits.h>
#include <stdio.h>

#include "core/hash_impl.h"
#include "tvds/tvds_io.h"

/* Make ctx the context that receives CHOLMOD errors on this thread and return the previous
 * one, so that a helper can route errors to its own caller's context and restore afterwards. */
tvds_ctx *tvds_io_cholmod_ctx_swap(tvds_ctx *ctx);

/* Bounds on an input file opened as f (path for the message): it must be a regular file (not a
 * device such as /dev/zero, a FIFO or a directory, which have no end or no size) no larger than
 * half the physical memory (readers hold a whole file in memory). Returns TVDS_OK, or
 * TVDS_ERR_IO with a message naming the file; what names the role ("table file", "case file"),
 * may be NULL. */
int tvds_input_file_check(const char *path, const char *what, FILE *f, tvds_ctx *ctx);

/* Open an input file for reading without ever blocking on it: open(2) with O_NONBLOCK (a FIFO
 * without a writer, a terminal or a device returns at once), the checks of
 * tvds_input_file_check on the descriptor, then blocking mode again and fdopen. Every reader of
 * tvds opens its files through this. Returns the stream, or NULL: when open(2) fails errno
 * holds the reason and nothing is recorded (the caller says "cannot open" in its own words);
 * when the file is refused (not regular, too large) the message is recorded in ctx and errno
 * is 0. */
FILE *tvds_input_open(const char *path, const char *what, tvds_ctx *ctx);
/* The error of a failed tvds_input_open: records "PATH: cannot open: <reason>" when open(2)
 * failed, and returns TVDS_ERR_IO either way. */
int tvds_input_open_error(const char *path, tvds_ctx *ctx);

/* ---- Node index: node id -> slot, the DoF index of each direction per slot (node_index.c) -- */

/* Lets the DoF-table and node-set readers (text_table.c) and the DoF specifications of the
 * reduction (reduce/fe_io.c) find a node's DoFs in O(1) instead of scanning the table. */
typedef struct tvds_nix {
    tvds_lmap map;
    int (*dof)[6]; /* nslot: DoF index of (node, direction), -1: none */
    int *mark; /* nslot, after tvds_nix_build: scratch (-1; the set that last listed the node) */
    int nslot, cap;
} tvds_nix;

void tvds_nix_free(tvds_nix *x);
/* Record DoF g = (node, dir) in x (its map initialised): *prev the DoF index already given for
 * (node, dir) (-1: none), *first the node's first DoF index (-1: new node). TVDS_OK or
 * TVDS_ERR_NOMEM. */
int tvds_nix_add(tvds_nix *x, long node, int dir, int g, int *prev, int *first);
/* The index of the physical translational and rotational DoFs of dofs[0..n), mark set to -1;
 * x is freed on failure. TVDS_OK or TVDS_ERR_NOMEM. */
int tvds_nix_build(tvds_nix *x, int n, const tvds_dof *dofs);

/* ---- The line tokenizer of the text inputs (text_table.c) ---------------------------------- */

/* Space, tab, CR, LF, FF, VT (isspace in the C locale): what separates tokens. */
int tvds_blank(char c);
/* Next blank-separated token of [*p, e) as [*tb, *te), *p advanced past it; 0 when none left. */
int tvds_token_next(const char **p, const char *e, const char **tb, const char **te);
/* Next item of the comma-separated list [*p, e), blanks around it trimmed, as [*ib, *ie) (empty
 * between two commas), *p advanced past its comma; 0 when the list is exhausted. */
int tvds_list_next(const char **p, const char *e, const char **ib, const char **ie);
/* Split [b, e) into at most max tokens; returns the number found (max + 1 if there are more). */
int tvds_tokens(const char *b, const char *e, const char **tb, const char **te, int max);
/* Whole-token conversions, 1 on success: a decimal integer in range; a finite decimal number
 * (no hexadecimal, NaN or infinity); a name of letters, digits, '_', '-', '.'; a direction
 * ux uy uz rx ry rz (0..5, or -1). */
int tvds_token_long(const char *b, const char *e, long *v);
int tvds_token_double(const char *b, const char *e, double *v);
int tvds_token_name(const char *b, const char *e);
int tvds_token_dir(const char *b, const char *e);

/* A text input held whole in memory (a NUL byte is refused), read line by line. */
typedef struct tvds_text {
    char path[PATH_MAX + 32];
    char *buf;
    size_t len;
    const char *pos;
    long line; /* number of the line last returned, from 1 */
} tvds_text;
/* Open and read path (what names its role for tvds_input_open). TVDS_OK or an error. */
int tvds_text_open(tvds_text *t, const char *path, const char *what, tvds_ctx *ctx);
/* Next line as [*b, *e), without its end of line and its '#' comment; 0 at end of file. */
int tvds_text_line(tvds_text *t, const char **b, const char **e);
void tvds_text_close(tvds_text *t);

/* ---- The one reader of dofs.txt and of sets.txt (docs/formats.md) -------------------------- */

/* Read a DoF table: "<node> <ux|uy|uz|rx|ry|rz> <x> <y> <z>" lines, and "mode <k> <freq_hz>"
 * when modal_ok (substructures; a full model has physical DoFs only). Refused: a malformed
 * line, a (node, direction) or mode listed twice, two DoFs of one node at different
 * coordinates, an empty table. Messages are "path:line: <owner>: ..." (owner such as
 * "substructure 'pad'", or NULL). On success *dofs (n) and *lines (n: the line of each DoF)
 * are the caller's to tvds_free; on failure nothing is returned. */
int tvds_dofs_txt_read(const char *path, const char *owner, int modal_ok, int *n, tvds_dof **dofs,
                       long **lines, tvds_ctx *ctx);

/* What a sets.txt holds; every array is owned (tvds_sets_txt_free). */
typedef struct tvds_sets_txt {
    int nsets;
    tvds_nodeset *sets; /* nsets */
    long *set_lines;    /* nsets: the line of each "set" head */
    int nfsets;
    tvds_faceset *fsets; /* nfsets */
} tvds_sets_txt;
/* Read a node-set file: "set <name> <node>..." ('\' at the end of a line continues it) and
 * "face <name> <node>..." (one face of 3, 4, 6, 8 or 9 nodes per line). Every set node must
 * have a DoF in dofs (n), every face node ux, uy and uz; names are unique across node and
 * face sets; no set is empty or lists a node twice. Messages as tvds_dofs_txt_read. On
 * failure *st is empty. */
int tvds_sets_txt_read(const char *path, const char *owner, int n, const tvds_dof *dofs,
                       tvds_sets_txt *st, tvds_ctx *ctx);
void tvds_sets_txt_free(tvds_sets_txt *st);

#endif
