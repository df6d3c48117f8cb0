/* check_faces_fe.c — face sets from FE models: the CalculiX face tables (outward normals),
 * *ELEMENT / *ELSET / *SURFACE reading and its file:line errors, face sets in full-model
 * directories and through the Craig–Bampton reduction, and the end-to-end case: a block meshed
 * in a CalculiX deck with a *SURFACE on its top, its matrices written by ccx, imported, reduced
 * with the surface as a face set, and a slider pressed and sliding on it, against the same
 * block built by tvds's own generator. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lapacke.h>

#include "engine/sim_impl.h" /* the contact point's forces and face */
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"
#include "tvds/tvds_sim.h"
#define TVDS_TEST_CHOLMOD
#define TVDS_TEST_ENGINE
#define TVDS_TEST_POINTS
#include "tvds_test.h"
#include "core/test_hooks_impl.h"

static char dir[256];

static void setup(void)
{
    cc_setup();
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_check_faces_");
}

static void teardown(void)
{
    cc_teardown();
    if (tvds_test_rmtree(dir) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

static char *path_of(const char *file)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return p;
}

/* job.dof with ux, uy, uz of nodes 1..nnode except those in clamped (0-terminated), and
 * diagonal job.sti / job.mas: enough for the import to read the deck's sets. */
static void fake_matrices(int nnode, const long *clamped)
{
    char *dof = malloc(64 * (size_t)nnode + 1), *diag = malloc(64 * (size_t)nnode + 1);
    size_t a = 0, b = 0;
    int row = 0;
    dof[0] = diag[0] = '\0';
    for (long v = 1; v <= nnode; v++) {
        int skip = 0;
        for (const long *c = clamped; c && *c; c++)
            skip |= *c == v;
        if (skip) continue;
        for (int d = 1; d <= 3; d++) {
            row++;
            a += (size_t)sprintf(dof + a, "%ld.%d\n", v, d);
            b += (size_t)sprintf(diag + b, "%d %d 1.0\n", row, row);
        }
    }
    tvds_test_write_file(dir, "job.dof", dof);
    tvds_test_write_file(dir, "job.sti", diag);
    tvds_test_write_file(dir, "job.mas", diag);
    free(dof);
    free(diag);
}

static int import(tvds_fe_model **m, tvds_ccx_info *info, tvds_ctx *ctx)
{
    tvds_ctx_init(ctx);
    return tvds_import_calculix(path_of("job.inp"), m, info, &cc, ctx);
}

/* ---- 1. Face tables: every face of every element type points out of the element ----------- */

/* Reference elements in CalculiX's node numbering (the manual's element figures): hexahedra
 * with corners 1-4 counter-clockwise at the bottom and 5-8 above them, midside nodes 9-12 on
 * the bottom edges 1-2, 2-3, 3-4, 4-1, 13-16 on the top edges 5-6, 6-7, 7-8, 8-5, 17-20 on the
 * vertical edges 1-5, 2-6, 3-7, 4-8; tetrahedra with corner 4 on the side where 1-2-3 turns
 * counter-clockwise, midside nodes 5-10 on the edges 1-2, 2-3, 3-1, 1-4, 2-4, 3-4. */
static const struct {
    const char *type;
    int nnode, ncorner, nface, face_nn;
} REF[4] = {
    {"C3D8", 8, 8, 6, 4}, {"C3D20", 20, 8, 6, 8}, {"C3D4", 4, 4, 4, 3}, {"C3D10", 10, 4, 4, 6}};

static const int HEX_EDGES[12][2] = {{1, 2}, {2, 3}, {3, 4}, {4, 1}, {5, 6}, {6, 7},
                                     {7, 8}, {8, 5}, {1, 5}, {2, 6}, {3, 7}, {4, 8}};
static const int TET_EDGES[6][2] = {{1, 2}, {2, 3}, {3, 1}, {1, 4}, {2, 4}, {3, 4}};

static void ref_element(int t, int distort, double X[20][3])
{
    static const double hex[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                     {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
    static const double tet[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    int hexa = t < 2;
    for (int a = 0; a < REF[t].ncorner; a++)
        memcpy(X[a], hexa ? hex[a] : tet[a], sizeof X[a]);
    int nmid = REF[t].nnode - REF[t].ncorner;
    for (int e = 0; e < nmid; e++) {
        const int *ed = hexa ? HEX_EDGES[e] : TET_EDGES[e];
        for (int c = 0; c < 3; c++)
            X[REF[t].ncorner + e][c] = 0.5 * (X[ed[0] - 1][c] + X[ed[1] - 1][c]);
    }
    if (!distort) return;
    /* An affine map with a positive determinant keeps every outward normal outward. */
    static const double A[3][3] = {{1.2, 0.3, 0.1}, {0.1, 0.9, 0.2}, {0.05, 0.1, 1.1}};
    for (int a = 0; a < REF[t].nnode; a++) {
        double y[3];
        for (int r = 0; r < 3; r++)
            y[r] = A[r][0] * X[a][0] + A[r][1] * X[a][1] + A[r][2] * X[a][2] + 0.5 * r;
        memcpy(X[a], y, sizeof y);
    }
}

static void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* The deck job.inp of one element of type REF[t], id elem, on the nodes X (ids 1, 2, ...), all
 * its faces in *SURFACE ALL (more than 15 nodes continue on the next line, as CalculiX writes
 * them), imported with fake matrices; the import must succeed. */
static tvds_fe_model *one_element(int t, double X[20][3], int elem)
{
    int nn = REF[t].nnode;
    char deck[4096];
    size_t k = (size_t)snprintf(deck, sizeof deck, "*NODE\n");
    for (int a = 0; a < nn; a++)
        k += (size_t)snprintf(deck + k, sizeof deck - k, "%d, %.17g, %.17g, %.17g\n", a + 1,
                              X[a][0], X[a][1], X[a][2]);
    k += (size_t)snprintf(deck + k, sizeof deck - k, "*ELEMENT, TYPE=%s\n%d", REF[t].type, elem);
    for (int a = 0; a < nn; a++)
        k += (size_t)snprintf(deck + k, sizeof deck - k, "%s%d", a == 15 ? ",\n" : ", ", a + 1);
    k += (size_t)snprintf(deck + k, sizeof deck - k, "\n*SURFACE, NAME=ALL\n");
    for (int f = 0; f < REF[t].nface; f++)
        k += (size_t)snprintf(deck + k, sizeof deck - k, "%d, S%d\n", elem, f + 1);
    tvds_test_write_file(dir, "job.inp", deck);
    fake_matrices(nn, NULL);
    tvds_ctx ctx;
    tvds_fe_model *m = NULL;
    ck_assert_msg(import(&m, NULL, &ctx) == TVDS_OK, "%s", ctx.msg);
    return m;
}

START_TEST(test_face_tables_outward)
{
    int t = _i / 2, distort = _i % 2;
    double X[20][3];
    ref_element(t, distort, X);
    tvds_fe_model *m = one_element(t, X, 7);
    ck_assert_int_eq(m->nfsets, 1);
    const tvds_faceset *fs = &m->fsets[0];
    ck_assert_str_eq(fs->name, "ALL");
    ck_assert_int_eq(fs->nface, REF[t].nface);
    double ce[3] = {0, 0, 0};
    for (int a = 0; a < REF[t].ncorner; a++)
        for (int c = 0; c < 3; c++)
            ce[c] += X[a][c] / REF[t].ncorner;
    unsigned seen = 0;
    for (int f = 0; f < fs->nface; f++) {
        ck_assert_int_eq(fs->nn[f], REF[t].face_nn);
        const long *v = fs->nodes + (size_t)f * TVDS_FACE_MAX_NODES;
        int nc = fs->nn[f] == 3 || fs->nn[f] == 6 ? 3 : 4;
        /* Normal of the corner polygon (Newell: exact for planar faces) and its centroid. */
        double n[3] = {0, 0, 0}, cf[3] = {0, 0, 0};
        for (int a = 0; a < nc; a++) {
            const double *p = X[v[a] - 1], *q = X[v[(a + 1) % nc] - 1];
            double c3[3];
            cross(p, q, c3);
            for (int c = 0; c < 3; c++) {
                n[c] += 0.5 * c3[c];
                cf[c] += p[c] / nc;
            }
        }
        double nrm = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        ck_assert_double_gt(nrm, 0.1);
        /* Outward: every corner of the element not on the face lies strictly behind it. */
        int off = 0;
        for (int a = 0; a < REF[t].ncorner; a++) {
            double h = 0;
            for (int c = 0; c < 3; c++)
                h += (X[a][c] - cf[c]) * n[c] / nrm;
            int on = 0;
            for (int b = 0; b < nc; b++)
                on |= v[b] == a + 1;
            if (on) {
                ck_assert_double_lt(fabs(h), 1e-12);
            } else {
                ck_assert_msg(h < -0.1, "%s face S%d: corner %d is %g in front of the face",
                              REF[t].type, f + 1, a + 1, h);
                off++;
            }
        }
        ck_assert_int_eq(off, REF[t].ncorner - nc);
        double out = (cf[0] - ce[0]) * n[0] + (cf[1] - ce[1]) * n[1] + (cf[2] - ce[2]) * n[2];
        ck_assert_double_gt(out, 0.0);
        /* Midside node k halves the edge from corner k to corner k + 1 of the oriented face. */
        for (int e = 0; e < fs->nn[f] - nc; e++) {
            const double *p = X[v[e] - 1], *q = X[v[(e + 1) % nc] - 1], *mid = X[v[nc + e] - 1];
            for (int c = 0; c < 3; c++)
                ck_assert_double_lt(fabs(mid[c] - 0.5 * (p[c] + q[c])), 1e-12);
        }
        unsigned key = 0; /* the set of corners: each face once */
        for (int a = 0; a < nc; a++)
            key |= 1u << v[a];
        for (int g = 0; g < f; g++) {
            unsigned kg = 0;
            for (int a = 0; a < nc; a++)
                kg |= 1u << fs->nodes[(size_t)g * TVDS_FACE_MAX_NODES + a];
            ck_assert_uint_ne(kg, key);
        }
        seen |= key;
    }
    ck_assert_uint_eq(seen, ((1u << (REF[t].ncorner + 1)) - 2)); /* every corner on a face */
    tvds_fe_model_free(&m, &cc);
}
END_TEST

/* ---- 2. Deck features and errors ---------------------------------------------------------- */

/* Two C3D8 bricks side by side along x (nodes 1-12: 3 x 2 x 2 grid, id = 1 + i + 3 j + 6 k). */
static const char *BRICKS = "*NODE, NSET=NALL\n"
                            "1,0,0,0\n2,1,0,0\n3,2,0,0\n4,0,1,0\n5,1,1,0\n6,2,1,0\n"
                            "7,0,0,1\n8,1,0,1\n9,2,0,1\n10,0,1,1\n11,1,1,1\n12,2,1,1\n"
                            "*ELEMENT, TYPE=C3D8, ELSET=EALL\n"
                            "1, 1, 2, 5, 4, 7, 8, 11, 10\n"
                            "2, 2, 3, 6, 5, 8, 9, 12, 11\n";

START_TEST(test_deck_surfaces)
{
    char deck[4096];
    snprintf(deck, sizeof deck,
             "%s"
             "*Element, type=S4, elset=SHELL\n" /* a type without faces: skipped */
             "3, 7, 8, 11, 10\n"
             "*ELSET, ELSET=E12, GENERATE\n1, 2, 1\n"
             "*elset, elset=EB\nE12\n"                           /* a set inside a set */
             "*SURFACE, NAME=TOP, TYPE=ELEMENT\nEB, S2\n1, S2\n" /* face 1 S2 twice: once */
             "*Surface, Name=BOT\nE12, s1\n" /* element 1's bottom touches clamped node 1 */
             "*SURFACE, NAME=XMIN\n1, S6\n"  /* every face clamped: left out */
             "*SURFACE, NAME=PTS, TYPE=NODE\n12, 1.0\nNALL\n",
             BRICKS);
    tvds_test_write_file(dir, "job.inp", deck);
    const long clamped[] = {1, 0};
    fake_matrices(12, clamped);
    tvds_ctx ctx;
    tvds_fe_model *m = NULL;
    tvds_ccx_info info;
    ck_assert_msg(import(&m, &info, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(info.elements, 2);
    ck_assert_int_eq(info.nsurf_deck, 3);
    ck_assert_int_eq(info.faces_dropped, 2); /* BOT on element 1, XMIN */
    ck_assert_int_eq(info.fsets_dropped, 1);
    ck_assert_str_eq(info.first_face_dropped, "BOT");
    ck_assert_int_eq(m->nfsets, 2);
    ck_assert_str_eq(m->fsets[0].name, "TOP");
    ck_assert_int_eq(m->fsets[0].nface, 2);
    /* Top of brick 1: corners counter-clockwise seen from +z (outside). */
    static const long top1[4] = {7, 8, 11, 10}, bot2[4] = {2, 5, 6, 3};
    for (int a = 0; a < 4; a++) {
        ck_assert_int_eq(m->fsets[0].nodes[a], top1[a]);
        ck_assert_int_eq(m->fsets[1].nodes[a], bot2[a]); /* seen from -z */
    }
    ck_assert_str_eq(m->fsets[1].name, "BOT");
    ck_assert_int_eq(m->fsets[1].nface, 1);
    /* TYPE=NODE: a node set (node 12 first, then NALL's nodes with DoFs, each once). */
    int q = 0;
    while (q < m->nsets && strcmp(m->sets[q].name, "PTS"))
        q++;
    ck_assert_int_lt(q, m->nsets);
    ck_assert_int_eq(m->sets[q].n, 11);
    ck_assert_int_eq(m->sets[q].nodes[0], 12);
    /* Written and read back: the face lines of sets.txt. */
    char out[400], mp[500], kp[500], dp[500], sp[500];
    snprintf(out, sizeof out, "%s/full", dir);
    ck_assert_int_eq(tvds_fe_model_write(m, out, &ctx), TVDS_OK);
    snprintf(mp, sizeof mp, "%s/M.mtx", out);
    snprintf(kp, sizeof kp, "%s/K.mtx", out);
    snprintf(dp, sizeof dp, "%s/dofs.txt", out);
    snprintf(sp, sizeof sp, "%s/sets.txt", out);
    tvds_fe_paths p = {mp, kp, dp, sp, 1};
    tvds_fe_model *back = NULL;
    ck_assert_msg(tvds_fe_model_read(&p, &back, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(back->nfsets, 2);
    for (int f = 0; f < 2; f++) {
        ck_assert_int_eq(back->fsets[f].nface, m->fsets[f].nface);
        ck_assert_str_eq(back->fsets[f].name, m->fsets[f].name);
        ck_assert_int_eq(memcmp(back->fsets[f].nodes, m->fsets[f].nodes,
                                (size_t)m->fsets[f].nface * TVDS_FACE_MAX_NODES * sizeof(long)),
                         0);
    }
    tvds_fe_model_free(&back, &cc);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

START_TEST(test_deck_surface_errors)
{
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"*SURFACE, NAME=S\n1, S7\n", "job.inp:18: *SURFACE S: expected '<element or element set>, "
                                      "S<face>'"},
        {"*SURFACE, NAME=S\n1\n", "job.inp:18: *SURFACE S: expected"},
        {"*SURFACE, NAME=S\n9, S1\n",
         "job.inp:18: *SURFACE S: element 9 is not a solid element defined above"},
        {"*SURFACE, NAME=S\nNOSUCH, S1\n",
         "job.inp:18: *SURFACE S: 'NOSUCH' is neither an element id nor an element set"},
        {"*SURFACE\n1, S1\n", "job.inp:17: *SURFACE without NAME=<name>"},
        {"*SURFACE, NAME=S, TYPE=SEGMENTS\n", "job.inp:17: *SURFACE S: TYPE=SEGMENTS"},
        {"*SURFACE, NAME=NALL\n1, S1\n", "job.inp:17: *SURFACE 'NALL' has the name of a node set"},
        {"*SURFACE, NAME=S\n1, S1\n*NSET, NSET=s\n1\n",
         "job.inp:19: node set 's' has the name of a *SURFACE above"},
        {"*ELEMENT, TYPE=C3D4\n5, 1, 2, 4\n*SURFACE, NAME=S\n",
         "job.inp:19: *ELEMENT: element 5 lists 3 of its 4 nodes before this keyword"},
        {"*ELEMENT, TYPE=C3D4\n5, 1, 2, 4\n", "job.inp:0: *ELEMENT: element 5 lists 3 of its 4"},
        {"*ELEMENT, TYPE=C3D4\n5, 1, 2, 4, 7, 8\n",
         "job.inp:18: *ELEMENT: element 5 has more than the 4 nodes"},
        {"*ELEMENT, TYPE=C3D4\n1, 1, 2, 4, 7\n", "job.inp:18: *ELEMENT: element 1 defined twice"},
        {"*ELEMENT, TYPE=C3D4\n6, 1, x, 4, 7\n", "job.inp:18: *ELEMENT: element 6: node id 'x'"},
        {"*ELEMENT\n6, 1, 2, 4, 7\n", "job.inp:17: *ELEMENT without TYPE=<type>"},
        {"*ELSET, ELSET=E, GENERATE\n3, 1\n", "job.inp:18: *ELSET, GENERATE: expected"},
        {"*ELSET, ELSET=E\nF\n", "job.inp:18: *ELSET E: 'F' is neither a element id nor a element"},
        {"*SURFACE, NAME=S\n1, S1\n2, S7\n", "job.inp:19: *SURFACE S: expected"},
        {"*ELEMENT, TYPE=C3D8\n4, 1, 2, 5, 5, 7, 8, 11, 11\n*SURFACE, NAME=S\n4, S1\n",
         "job.inp:20: *SURFACE S: face S1 of element 4 lists node 5 twice"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char deck[4096];
        snprintf(deck, sizeof deck, "%s%s", BRICKS, cases[k].text);
        tvds_test_write_file(dir, "job.inp", deck);
        fake_matrices(12, NULL);
        tvds_ctx ctx;
        tvds_fe_model *m = NULL;
        ck_assert_int_ne(import(&m, NULL, &ctx), TVDS_OK);
        ck_assert_ptr_null(m);
        char want[600];
        snprintf(want, sizeof want, "%s/%s", dir, cases[k].expect);
        ck_assert_msg(strstr(ctx.msg, want) != NULL, "case %zu: expected '%s', got '%s'", k, want,
                      ctx.msg);
    }
}
END_TEST

/* Every allocation failure in reading the deck's elements, element sets and surfaces, in
 * writing and reading the face lines back, is TVDS_ERR_NOMEM with nothing returned (leaks: ASan
 * and valgrind in CI). */
START_TEST(test_deck_surfaces_alloc_failures)
{
    char deck[4096];
    snprintf(deck, sizeof deck,
             "%s*ELSET, ELSET=E12, GENERATE\n1, 2, 1\n*SURFACE, NAME=TOP\nE12, S2\n"
             "*SURFACE, NAME=BOT\n2, S1\n*SURFACE, NAME=PTS, TYPE=NODE\nNALL\n",
             BRICKS);
    tvds_test_write_file(dir, "job.inp", deck);
    const long clamped[] = {1, 0};
    fake_matrices(12, clamped);
    char out[400], mp[500], kp[500], dp[500], sp[500];
    snprintf(out, sizeof out, "%s/full", dir);
    snprintf(mp, sizeof mp, "%s/M.mtx", out);
    snprintf(kp, sizeof kp, "%s/K.mtx", out);
    snprintf(dp, sizeof dp, "%s/dofs.txt", out);
    snprintf(sp, sizeof sp, "%s/sets.txt", out);
    for (int stage = 0; stage < 2; stage++) {
        long k;
        for (k = 0; k < 5000; k++) {
            tvds_ctx ctx;
            tvds_ctx_init(&ctx);
            tvds_fe_model *m = NULL;
            tvds_fe_paths p = {mp, kp, dp, sp, 0};
            tvds_alloc_fail_after(k);
            int rc = stage == 0 ? tvds_import_calculix(path_of("job.inp"), &m, NULL, &cc, &ctx)
                                : tvds_fe_model_read(&p, &m, &cc, &ctx);
            tvds_alloc_fail_after(-1);
            if (rc == TVDS_OK) {
                ck_assert_int_eq(m->nfsets, 2);
                if (stage == 0) ck_assert_int_eq(tvds_fe_model_write(m, out, &ctx), TVDS_OK);
                tvds_fe_model_free(&m, &cc);
                break;
            }
            ck_assert_msg(rc == TVDS_ERR_NOMEM, "stage %d, failure %ld: %d %s", stage, k, rc,
                          ctx.msg);
            ck_assert_ptr_null(m);
        }
        ck_assert_msg(k > 10 && k < 5000, "stage %d: %ld allocations", stage, k);
    }
}
END_TEST

/* ---- 3. Face sets in full models and through the reduction -------------------------------- */

/* The 4 x 2 x 2 block of tvds's generator, clamped at x = 0, with its top (z = lz) as face set
 * TOP: the faces of the elements that do not touch the clamped face, corners counter-clockwise
 * seen from +z. */
static const int BX = 4, BY = 2, BZ = 2;

static long bnode(int i, int j, int k)
{
    return 1 + i + (BX + 1L) * (j + (BY + 1L) * k);
}

static tvds_block_params block_params(void)
{
    tvds_block_params p = tvds_block_default();
    p.lx = 0.04;
    p.ly = 0.02;
    p.lz = 0.02;
    p.nx = BX;
    p.ny = BY;
    p.nz = BZ;
    return p;
}

static tvds_fe_model *block_with_top(void)
{
    tvds_block_params p = block_params();
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_fe_model *m = NULL;
    ck_assert_msg(tvds_block_build(&p, &m, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
    /* The generator's face set: the top faces of the elements off the clamped face, as built
     * here by hand, node for node; renamed TOP as the CalculiX surface below. */
    ck_assert_int_eq(m->nfsets, 1);
    tvds_faceset *fs = &m->fsets[0];
    ck_assert_str_eq(fs->name, "top_faces");
    ck_assert_int_eq(fs->nface, (BX - 1) * BY);
    int f = 0;
    for (int j = 0; j < BY; j++)
        for (int i = 1; i < BX; i++, f++) {
            const long *v = fs->nodes + (size_t)f * TVDS_FACE_MAX_NODES;
            ck_assert_int_eq(fs->nn[f], 4);
            ck_assert_int_eq(v[0], bnode(i, j, BZ));
            ck_assert_int_eq(v[1], bnode(i + 1, j, BZ));
            ck_assert_int_eq(v[2], bnode(i + 1, j + 1, BZ));
            ck_assert_int_eq(v[3], bnode(i, j + 1, BZ));
        }
    tvds_free(fs->name);
    fs->name = tvds_strdup("TOP");
    return m;
}

static int reduce_modes(const tvds_fe_model *m, const char *bnd, const char *faces, int nmodes,
                        tvds_substructure **s, tvds_reduce_stats *st, tvds_ctx *ctx)
{
    tvds_ctx_init(ctx);
    tvds_reduce_opts o = tvds_reduce_opts_default();
    o.nmodes = nmodes;
    tvds_reduce_spec sp = {bnd, NULL, faces, "blk/sets.txt"};
    return tvds_reduce_fe(m, &sp, &o, s, st, &cc, ctx);
}

static int reduce_msg(const tvds_fe_model *m, const char *bnd, const char *faces,
                      tvds_substructure **s, tvds_reduce_stats *st, tvds_ctx *ctx)
{
    tvds_ctx_init(ctx);
    tvds_reduce_opts o = tvds_reduce_opts_default();
    o.nmodes = 10;
    tvds_reduce_spec sp = {bnd, NULL, faces, "blk/sets.txt"};
    return tvds_reduce_fe(m, &sp, &o, s, st, &cc, ctx);
}

START_TEST(test_reduce_face_sets)
{
    tvds_fe_model *m = block_with_top();
    tvds_ctx ctx;
    tvds_substructure *s = NULL;
    tvds_reduce_stats st;
    /* face:TOP retains the face set's 12 distinct nodes (36 DoFs) and carries it. */
    ck_assert_msg(reduce_msg(m, "face:TOP", NULL, &s, &st, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(st.nb, 3 * 12);
    ck_assert_int_eq(st.nfsets, 1);
    ck_assert_int_eq(s->nfsets, 1);
    ck_assert_int_eq(s->fsets[0].nface, m->fsets[0].nface);
    ck_assert_int_eq(memcmp(s->fsets[0].nodes, m->fsets[0].nodes,
                            (size_t)s->fsets[0].nface * TVDS_FACE_MAX_NODES * sizeof(long)),
                     0);
    ck_assert_int_eq(s->dofs[0].node, bnode(1, 0, BZ)); /* face order, x before y before z */
    ck_assert_int_eq(s->dofs[2].dir, TVDS_DIR_Z);
    /* The written substructure reads back with its face set (the engine's reader). */
    char out[400];
    snprintf(out, sizeof out, "%s/blk_cb", dir);
    ck_assert_int_eq(tvds_substructure_write(s, out, &ctx), TVDS_OK);
    tvds_substructure *back = NULL;
    ck_assert_msg(tvds_substructure_read(out, NULL, &back, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(back->nfsets, 1);
    ck_assert_int_eq(back->fsets[0].nface, 6);
    tvds_substructure_free(&back);
    tvds_substructure_free(&s);
    /* The bare name works too; and the node set 'top' retains every node of the face set. */
    ck_assert_msg(reduce_msg(m, "TOP", NULL, &s, &st, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(st.nb, 36);
    tvds_substructure_free(&s);
    ck_assert_msg(reduce_msg(m, "top", "TOP", &s, &st, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(st.nfsets, 1);
    tvds_substructure_free(&s);
    /* Not retained: left out, or an error when asked for (before anything is computed). */
    ck_assert_msg(reduce_msg(m, "tip", NULL, &s, &st, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(st.nfsets, 0);
    ck_assert_int_eq(st.nfsets_left, 1);
    ck_assert_int_eq(s->nfsets, 0);
    tvds_substructure_free(&s);
    char want[200];
    snprintf(want, sizeof want,
             "blk/sets.txt: face set 'TOP': node %ld is not retained with ux, uy and uz",
             bnode(1, 0, BZ));
    ck_assert_int_eq(reduce_msg(m, "tip", "TOP", &s, &st, &ctx), TVDS_ERR_INVALID);
    ck_assert_msg(strstr(ctx.msg, want) != NULL, "%s", ctx.msg);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(reduce_msg(m, "face:TOP.z, tip", NULL, &s, &st, &ctx), TVDS_ERR_INVALID);
    ck_assert_msg(strstr(ctx.msg, want) != NULL, "%s", ctx.msg);
    ck_assert_int_eq(reduce_msg(m, "tip", "NOPE", &s, &st, &ctx), TVDS_ERR_INVALID);
    ck_assert_msg(strstr(ctx.msg, "no face set called 'NOPE'") != NULL, "%s", ctx.msg);
    ck_assert_int_eq(reduce_msg(m, "face:tip", NULL, &s, &st, &ctx), TVDS_ERR_INVALID);
    ck_assert_msg(strstr(ctx.msg, "no face set called 'tip'") != NULL, "%s", ctx.msg);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

/* Allocation failures in tvds_reduce_fe: TVDS_ERR_NOMEM, no substructure, nothing leaked. */
START_TEST(test_reduce_fe_alloc_failures)
{
    tvds_fe_model *m = block_with_top();
    long k;
    for (k = 0; k < 20000; k++) {
        tvds_ctx ctx;
        tvds_substructure *s = NULL;
        tvds_reduce_stats st;
        tvds_alloc_fail_after(k);
        int rc = reduce_msg(m, "face:TOP", "TOP", &s, &st, &ctx);
        tvds_alloc_fail_after(-1);
        if (rc == TVDS_OK) {
            ck_assert_int_eq(s->nfsets, 1);
            tvds_substructure_free(&s);
            break;
        }
        ck_assert_msg(rc == TVDS_ERR_NOMEM, "failure %ld: %d %s", k, rc, ctx.msg);
        ck_assert_ptr_null(s);
    }
    ck_assert_msg(k > 10 && k < 20000, "%ld allocations", k);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

/* The commands: `tvds import calculix` reports the face sets, `tvds reduce --boundary face:S`
 * carries them, `--faces` of a set with interior nodes stops with exit code 2 and one line. */
static int run_cli(const char *args)
{
    char cmd[6000], cwd[2048] = "";
    if (TVDS_BIN[0] != '/') ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s%s%s' %s >stdout 2>stderr", dir, cwd, *cwd ? "/" : "",
             TVDS_BIN, args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

START_TEST(test_cli_faces)
{
    char deck[4096];
    snprintf(deck, sizeof deck,
             "%s*SURFACE, NAME=TOP\n1, S2\n2, S2\n*NSET, NSET=XMAX\n3, 6, 9, 12\n", BRICKS);
    tvds_test_write_file(dir, "job.inp", deck);
    const long clamped[] = {1, 4, 7, 10, 0};
    fake_matrices(12, clamped);
    ck_assert_int_eq(run_cli("import calculix job.inp -o full"), 0);
    char *o = tvds_test_slurp(path_of("stdout"), NULL);
    ck_assert_msg(strstr(o, "1 face sets") && strstr(o, "1 face(s) left out"), "%s", o);
    free(o);
    ck_assert_int_eq(run_cli("reduce --model full --boundary face:TOP --modes 2 -o cb"), 0);
    o = tvds_test_slurp(path_of("stdout"), NULL);
    ck_assert_msg(strstr(o, "(14 DoFs: 12 boundary + 2 modes") != NULL, "%s", o);
    ck_assert_msg(strstr(o, "1 face sets)") != NULL, "%s", o);
    free(o);
    o = tvds_test_slurp(path_of("cb/sets.txt"), NULL);
    ck_assert_msg(strstr(o, "face TOP 8 9 12 11") != NULL, "%s", o);
    free(o);
    ck_assert_int_eq(run_cli("reduce --model full --boundary XMAX --faces TOP --modes 2 -o cb2"),
                     2);
    o = tvds_test_slurp(path_of("stderr"), NULL);
    ck_assert_msg(strstr(o, "full/sets.txt: face set 'TOP': node 8 is not retained") != NULL, "%s",
                  o);
    free(o);
    struct stat sb;
    ck_assert_int_ne(stat(path_of("cb2"), &sb), 0); /* nothing written */
}
END_TEST

/* Each defect of a face line in a full model's sets.txt is refused with file:line. */
START_TEST(test_sets_face_line_errors)
{
    tvds_fe_model *m = block_with_top();
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    char out[400], mp[500], kp[500], dp[500], sp[500];
    snprintf(out, sizeof out, "%s/full", dir);
    ck_assert_int_eq(tvds_fe_model_write(m, out, &ctx), TVDS_OK);
    tvds_fe_model_free(&m, &cc);
    snprintf(mp, sizeof mp, "%s/M.mtx", out);
    snprintf(kp, sizeof kp, "%s/K.mtx", out);
    snprintf(dp, sizeof dp, "%s/dofs.txt", out);
    snprintf(sp, sizeof sp, "%s/sets.txt", out);
    static const struct {
        const char *text, *expect;
        int status; /* PARSE: the line's syntax; INVALID: what it says */
    } cases[] = {
        {"face F 2 3 8 7 12\n", "sets.txt:1: face set 'F': a face has 3, 4, 6, 8 or 9 nodes, not 5",
         TVDS_ERR_INVALID},
        {"face F 2 3 8 2\n", "sets.txt:1: face set 'F': a face lists node 2 twice",
         TVDS_ERR_INVALID},
        {"face F 1 2 7\n", "sets.txt:1: face set 'F': node 1 has no ux in the DoF table",
         TVDS_ERR_INVALID},
        {"set A 2 3\nface A 2 3 8\n", "sets.txt:2: 'A' is already a node set", TVDS_ERR_INVALID},
        {"face A 2 3 8\nset A 2 3\n", "sets.txt:2: 'A' is already a face set", TVDS_ERR_INVALID},
        {"face F 2 3 \\\n 8\n", "sets.txt:1: a face line cannot continue", TVDS_ERR_PARSE},
        {"face F 2 x 8\n", "sets.txt:1: face set 'F': node 'x' is not an integer >= 1",
         TVDS_ERR_PARSE},
        {"facet F 2 3 8\n", "sets.txt:1: expected 'set <name> <node>...' or 'face <name>",
         TVDS_ERR_PARSE},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tvds_test_write_file(NULL, sp, cases[k].text);
        tvds_fe_paths p = {mp, kp, dp, sp, 0};
        tvds_ctx_init(&ctx);
        ck_assert_int_eq(tvds_fe_model_read(&p, &m, &cc, &ctx), cases[k].status);
        ck_assert_ptr_null(m);
        char want[600];
        snprintf(want, sizeof want, "%s/%s", out, cases[k].expect);
        ck_assert_msg(strstr(ctx.msg, want) != NULL, "case %zu: expected '%s', got '%s'", k, want,
                      ctx.msg);
    }
}
END_TEST

/* ---- 4. The face tables against CalculiX itself ------------------------------------------ */

static int have_ccx(const char *what)
{
    if (system("command -v ccx >/dev/null 2>&1") == 0) return 1;
    fprintf(stderr,
            "faces_fe: SKIPPED %s: 'ccx' is not installed (Debian calculix-ccx; 'make deps' "
            "installs it)\n",
            what);
    return 0;
}

static void run_ccx(const char *job)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd, "cd '%s' && OMP_NUM_THREADS=1 ccx -i %s >%s.log 2>&1", dir, job, job);
    ck_assert_msg(system(cmd) == 0, "ccx failed: see %s/%s.log", dir, job);
}

/* The reference element of type t clamped on face S1 (z = -1, z = 0 for tetrahedra), loaded
 * either by ccx's own pressure on *SURFACE S = face k of the element (load = 0), or by the
 * nodal forces of that pressure computed from tvds's face (load = 1): -p A w_a n over the face
 * nodes, n the outward unit normal of the oriented face, w_a the consistent weights of a
 * uniform pressure (1/4 on a bilinear parallelogram, 1/3 on a linear triangle; -1/12 at the
 * corners and 1/3 at the midsides of an 8-node parallelogram; 0 and 1/3 on a 6-node
 * triangle). Static step; displacements of every node into u (nnode x 3). */
static void ccx_pressure(int t, int k, const long *fnodes, int fnn, int load, double *u)
{
    double X[20][3];
    ref_element(t, 0, X);
    int nn = REF[t].nnode;
    const double p = 1e6;
    char job[32];
    snprintf(job, sizeof job, "pr%d_%d_%d", t, k, load);
    char path[600];
    snprintf(path, sizeof path, "%s/%s.inp", dir, job);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "*NODE, NSET=NALL\n");
    for (int a = 0; a < nn; a++)
        fprintf(f, "%d, %.17g, %.17g, %.17g\n", a + 1, X[a][0], X[a][1], X[a][2]);
    fprintf(f, "*ELEMENT, TYPE=%s, ELSET=E\n1", REF[t].type);
    for (int a = 0; a < nn; a++)
        fprintf(f, "%s%d", a == 15 ? ",\n" : ", ", a + 1);
    fprintf(f, "\n*NSET, NSET=FIX\n");
    double zmin = t < 2 ? -1.0 : 0.0;
    for (int a = 0; a < nn; a++)
        if (X[a][2] == zmin) fprintf(f, "%d,\n", a + 1);
    fprintf(f, "*SURFACE, NAME=S\n1, S%d\n", k);
    fprintf(f, "*MATERIAL, NAME=M\n*ELASTIC\n1e9, 0.3\n*SOLID SECTION, ELSET=E, MATERIAL=M\n"
               "*BOUNDARY\nFIX, 1, 3\n*STEP\n*STATIC\n");
    if (load == 0) {
        fprintf(f, "*DSLOAD\nS, P, %.17g\n", p);
    } else {
        int nc = fnn == 3 || fnn == 6 ? 3 : 4;
        double area[3] = {0, 0, 0}; /* Newell: area times the unit normal */
        for (int a = 0; a < nc; a++) {
            double c3[3];
            cross(X[fnodes[a] - 1], X[fnodes[(a + 1) % nc] - 1], c3);
            for (int c = 0; c < 3; c++)
                area[c] += 0.5 * c3[c];
        }
        double wc = fnn == 3 ? 1.0 / 3 : fnn == 4 ? 0.25 : fnn == 6 ? 0.0 : -1.0 / 12;
        fprintf(f, "*CLOAD\n");
        for (int a = 0; a < fnn; a++)
            for (int c = 0; c < 3; c++)
                fprintf(f, "%ld, %d, %.17g\n", fnodes[a], c + 1,
                        -p * area[c] * (a < nc ? wc : 1.0 / 3));
    }
    fprintf(f, "*NODE PRINT, NSET=NALL\nU\n*END STEP\n");
    ck_assert_int_eq(fclose(f), 0);
    run_ccx(job);
    snprintf(path, sizeof path, "%s/%s.dat", dir, job);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    int got = 0;
    while (fgets(line, sizeof line, f)) {
        int id;
        double v[3];
        if (sscanf(line, "%d %lf %lf %lf", &id, &v[0], &v[1], &v[2]) == 4 && id >= 1 && id <= nn) {
            memcpy(u + 3 * (id - 1), v, sizeof v);
            got++;
        }
    }
    fclose(f);
    ck_assert_int_eq(got, nn);
}

/* ccx's own face k (its pressure on *SURFACE ..., S<k>) is tvds's face k with the outward
 * normal: the displacements under ccx's pressure equal those under the nodal forces computed
 * from tvds's oriented face, to ccx's printed precision (7 digits). A face with the wrong
 * nodes or the inward orientation moves the element differently (the sign of the normal flips
 * every displacement). Face S1 is clamped, so S2..Sn are compared (S1 is what remains). */
START_TEST(test_ccx_face_labels)
{
    if (!have_ccx("the face tables against ccx")) return;
    int t = _i;
    double X[20][3];
    ref_element(t, 0, X);
    int nn = REF[t].nnode;
    tvds_fe_model *m = one_element(t, X, 1);
    const tvds_faceset *fs = &m->fsets[0];
    double worst = 0.0;
    for (int f = 1; f < fs->nface; f++) {
        double ua[60], ub[60], umax = 0.0, d = 0.0;
        const long *v = fs->nodes + (size_t)f * TVDS_FACE_MAX_NODES;
        ccx_pressure(t, f + 1, v, fs->nn[f], 0, ua);
        ccx_pressure(t, f + 1, v, fs->nn[f], 1, ub);
        for (int a = 0; a < 3 * nn; a++) {
            umax = fmax(umax, fabs(ua[a]));
            d = fmax(d, fabs(ua[a] - ub[a]));
        }
        ck_assert_double_gt(umax, 0.0);
        ck_assert_msg(d <= 1e-5 * umax,
                      "%s face S%d: ccx pressure vs tvds face loads differ by %.3g of %.3g",
                      REF[t].type, f + 1, d, umax);
        worst = fmax(worst, d / umax);
    }
    fprintf(stderr, "faces_fe: %s faces S2..S%d match ccx's pressure faces to %.2g\n", REF[t].type,
            fs->nface, worst);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

/* ---- 5. End to end with CalculiX: a slider on a reduced block's *SURFACE ------------------- */

/* The generator's block as a CalculiX deck: the same nodes (ids and coordinates), C3D8
 * elements with CalculiX's corner order, clamped at x = 0, the material of the generator;
 * *SURFACE TOP is face S2 (the top, z = lz) of the elements of the upper layer. */
static void write_block_deck(const char *job)
{
    tvds_block_params p = block_params();
    char path[600];
    snprintf(path, sizeof path, "%s/%s.inp", dir, job);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "** block of %d x %d x %d C3D8 (tvds faces_fe test)\n*NODE, NSET=NALL\n", BX, BY,
            BZ);
    for (int k = 0; k <= BZ; k++)
        for (int j = 0; j <= BY; j++)
            for (int i = 0; i <= BX; i++)
                fprintf(f, "%ld, %.17g, %.17g, %.17g\n", bnode(i, j, k), p.lx * i / BX,
                        p.ly * j / BY, p.lz * k / BZ);
    fprintf(f, "*ELEMENT, TYPE=C3D8, ELSET=EALL\n");
    int e = 1;
    for (int k = 0; k < BZ; k++)
        for (int j = 0; j < BY; j++)
            for (int i = 0; i < BX; i++)
                fprintf(f, "%d, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld\n", e++, bnode(i, j, k),
                        bnode(i + 1, j, k), bnode(i + 1, j + 1, k), bnode(i, j + 1, k),
                        bnode(i, j, k + 1), bnode(i + 1, j, k + 1), bnode(i + 1, j + 1, k + 1),
                        bnode(i, j + 1, k + 1));
    fprintf(f, "*ELSET, ELSET=EUP, GENERATE\n%d, %d\n", BX * BY * (BZ - 1) + 1, BX * BY * BZ);
    fprintf(f, "*SURFACE, NAME=TOP, TYPE=ELEMENT\nEUP, S2\n*NSET, NSET=FIX\n");
    for (int k = 0; k <= BZ; k++)
        for (int j = 0; j <= BY; j++)
            fprintf(f, "%ld,\n", bnode(0, j, k));
    fprintf(f,
            "*MATERIAL, NAME=PC\n*ELASTIC\n%.17g, %.17g\n*DENSITY\n%.17g\n"
            "*SOLID SECTION, ELSET=EALL, MATERIAL=PC\n*BOUNDARY\nFIX, 1, 3\n"
            "*STEP\n*FREQUENCY, SOLVER=MATRIXSTORAGE\n*END STEP\n",
            p.E, p.nu, p.rho);
    ck_assert_int_eq(fclose(f), 0);
}

/* Dense copy of a symmetric sparse matrix stored as one triangle, in the DoF order perm. */
static double *dense_sym(const cholmod_sparse *A, int n, const int *perm)
{
    double *D = calloc((size_t)n * n, sizeof *D);
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    for (int j = 0; j < n; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            int r = perm[Ai[p]], c = perm[j];
            D[r + (size_t)c * n] = Ax[p];
            D[c + (size_t)r * n] = Ax[p];
        }
    return D;
}

/* Slider: carriage node 1 above tip node 2 at (x0, y0, lz); masses 1 g, springs k_s. */
static const double SL_M = 1e-3, SL_KS = 1e4, SL_F = 1.0, SL_MU = 0.3;
static const double T_PRESS = 0.01, T_HOLD = 0.03, T_END = 0.07, SL_DX = 0.017;
static const double SL_X0 = 0.014, SL_Y0 = 0.007, ALPHA_SL = 500.0;

static void write_slider(const char *sub, double lz)
{
    double M[36] = {0}, K[36] = {0};
    const double xyz[6] = {SL_X0, SL_Y0, lz + 5e-3, SL_X0, SL_Y0, lz};
    for (int k = 0; k < 6; k++)
        M[k + 6 * k] = SL_M;
    for (int c = 0; c < 3; c++) {
        K[c + 6 * c] += SL_KS;
        K[(c + 3) + 6 * (c + 3)] += SL_KS;
        K[c + 6 * (c + 3)] -= SL_KS;
        K[(c + 3) + 6 * c] -= SL_KS;
    }
    const long tip = 2;
    tvds_test_write_points(sub, "slider", 2, xyz, M, K, "tip", 1, &tip);
}

/* One run of the slider on the reduced block in directory blk: per step lambda_N, |F_t| and the
 * tip's normal gap. */
typedef struct slide_trace {
    int n;
    double *t, *lam_n, *ft, *gap;
    double lam_hold;  /* lambda_N at the end of the hold */
    double gap_min;   /* smallest gap while in contact */
    double cone;      /* max | |F_t| / (mu lambda_N) - 1 | while slipping */
    double lam_slide; /* max |lambda_N / F - 1| over the second half of the slide */
    int nslip, faces;
} slide_trace;

static void slide(const char *blk, slide_trace *tr)
{
    char cpath[600];
    snprintf(cpath, sizeof cpath, "%s/case_%s.ini", dir, blk);
    FILE *f = fopen(cpath, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "[run]\nname = slide_%s\nmethod = subs-b\ndt = auto\nt_end = %.17g\n\n"
            "[substructure blk]\ndir = %s\ndamping = rayleigh\nalpha = 200\nbeta = 1e-6\n\n"
            "[substructure slider]\ndir = slider\ndamping = rayleigh\nalpha = %.17g\n"
            "beta = 0\n\n"
            "[contact tip]\nslave = slider:tip\nmaster = blk:TOP\nmu = %.17g\n\n"
            "[load press]\ndof = slider:1:uz\nf = smooth %.17g 0 %.17g\n\n"
            "[constraint drive_x]\nterms = slider:1:ux\nvalue = table 0 0  %.17g 0  %.17g %.17g\n\n"
            "[constraint drive_y]\nterms = slider:1:uy\nvalue = 0\n",
            blk, T_END, blk, ALPHA_SL, SL_MU, -SL_F, T_PRESS, T_HOLD, T_END, SL_DX);
    ck_assert_int_eq(fclose(f), 0);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read(cpath, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->contacts[0].master_kind, TVDS_MASTER_FACES);
    tvds_data *d = NULL;
    ck_assert_msg(tvds_data_create(m, &d, &ctx) == TVDS_OK, "%s", ctx.msg);
    int cap = 1024, last = -1;
    memset(tr, 0, sizeof *tr);
    tr->t = malloc(cap * sizeof(double));
    tr->lam_n = malloc(cap * sizeof(double));
    tr->ft = malloc(cap * sizeof(double));
    tr->gap = malloc(cap * sizeof(double));
    tr->gap_min = INFINITY;
    int igap = ch_index(d, TVDS_GROUP_CONTACTS, "tip.gap [m]");
    while (tvds_data_time(d) < m->opt.t_end) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
        const sim_cp *c = &d->cp[0];
        double t = tvds_data_time(d), ft = hypot(c->ft[0], c->ft[1]);
        if (tr->n == cap) {
            cap *= 2;
            tr->t = realloc(tr->t, cap * sizeof(double));
            tr->lam_n = realloc(tr->lam_n, cap * sizeof(double));
            tr->ft = realloc(tr->ft, cap * sizeof(double));
            tr->gap = realloc(tr->gap, cap * sizeof(double));
        }
        double gap = ch(d, TVDS_GROUP_CONTACTS, igap);
        tr->t[tr->n] = t;
        tr->lam_n[tr->n] = c->lam_n;
        tr->ft[tr->n] = ft;
        tr->gap[tr->n++] = gap;
        if (c->lam_n > 0) tr->gap_min = fmin(tr->gap_min, gap);
        if (t <= T_HOLD) tr->lam_hold = c->lam_n;
        if (c->state == TVDS_SLIP && c->lam_n > 0.5 * SL_F) {
            tr->cone = fmax(tr->cone, fabs(ft / (SL_MU * c->lam_n) - 1.0));
            tr->nslip++;
        }
        if (t > 0.5 * (T_HOLD + T_END))
            tr->lam_slide = fmax(tr->lam_slide, fabs(c->lam_n / SL_F - 1.0));
        if (c->seg != last) tr->faces++, last = c->seg;
    }
    tvds_data_free(&d);
    tvds_model_free(&m);
}

static void trace_free(slide_trace *tr)
{
    free(tr->t);
    free(tr->lam_n);
    free(tr->ft);
    free(tr->gap);
}

START_TEST(test_ccx_block_contact)
{
    if (!have_ccx("the slider on a CalculiX block")) return;
    write_block_deck("blk");
    run_ccx("blk");
    tvds_ctx ctx;
    tvds_fe_model *ccx = NULL;
    tvds_ccx_info info;
    tvds_ctx_init(&ctx);
    ck_assert_msg(tvds_import_calculix(path_of("blk.inp"), &ccx, &info, &cc, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    /* The top's 8 faces, of which the 2 touching the clamped edge x = 0 are left out. */
    ck_assert_int_eq(ccx->nfsets, 1);
    ck_assert_int_eq(ccx->fsets[0].nface, 6);
    ck_assert_int_eq(info.faces_dropped, 2);
    tvds_fe_model *gen = block_with_top();
    ck_assert_int_eq(ccx->n, gen->n);
    /* The same faces, node for node, as the generator's top_faces. */
    ck_assert_int_eq(
        memcmp(ccx->fsets[0].nodes, gen->fsets[0].nodes, 6 * TVDS_FACE_MAX_NODES * sizeof(long)),
        0);
    /* ccx's C3D8 and the generator's hexahedron are the same element: K and M agree to the
     * 14 significant digits ccx prints (relative to their largest entry). */
    int n = gen->n, *perm = malloc(sizeof(int) * n), *ident = malloc(sizeof(int) * n);
    for (int a = 0; a < n; a++) {
        ident[a] = a;
        perm[a] = -1;
        for (int b = 0; b < n; b++)
            if (gen->dofs[b].node == ccx->dofs[a].node && gen->dofs[b].dir == ccx->dofs[a].dir)
                perm[a] = b;
        ck_assert_int_ge(perm[a], 0);
    }
    double err[2], amax[2];
    for (int w = 0; w < 2; w++) {
        double *A = dense_sym(w ? ccx->K : ccx->M, n, perm);
        double *B = dense_sym(w ? gen->K : gen->M, n, ident);
        err[w] = amax[w] = 0;
        for (size_t k = 0; k < (size_t)n * n; k++) {
            err[w] = fmax(err[w], fabs(A[k] - B[k]));
            amax[w] = fmax(amax[w], fabs(B[k]));
        }
        free(A);
        free(B);
        ck_assert_msg(err[w] <= 1e-12 * amax[w], "%s: ccx vs generator %.3g of max %.3g",
                      w ? "K" : "M", err[w], amax[w]);
    }
    free(perm);
    free(ident);
    /* Both reduced with the surface retained, 12 fixed-interface modes. */
    /* 10 fixed-interface modes for the two; and the generator's block with 71 of its 72 (all
     * but the highest: the full model's dynamics to that one mode), for the truncation error. */
    const char *names[3] = {"blk_ccx", "blk_gen", "blk_gen71"};
    tvds_fe_model *fm[3] = {ccx, gen, gen};
    const int nmodes[3] = {10, 10, 71};
    for (int w = 0; w < 3; w++) {
        tvds_substructure *s = NULL;
        tvds_reduce_stats st;
        ck_assert_msg(reduce_modes(fm[w], "face:TOP", "TOP", nmodes[w], &s, &st, &ctx) == TVDS_OK,
                      "%s", ctx.msg);
        ck_assert_int_eq(s->nfsets, 1);
        ck_assert_int_eq(st.nb, 36);
        ck_assert_int_eq(tvds_substructure_write(s, path_of(names[w]), &ctx), TVDS_OK);
        tvds_substructure_free(&s);
    }
    tvds_fe_model_free(&ccx, &cc);
    tvds_fe_model_free(&gen, &cc);
    write_slider(path_of("slider"), block_params().lz);

    slide_trace tr[3];
    for (int w = 0; w < 3; w++)
        slide(names[w], &tr[w]);
    ck_assert_int_eq(tr[0].n, tr[1].n);
    for (int w = 0; w < 2; w++) {
        /* Equilibrium at the end of the hold: lambda_N = F up to what is left of the slider's
         * response to the smooth press ramp, a fraction (2 pi)^2 / (omega T)^3 of F for the
         * ramp's continuous second derivative, decayed by exp(-alpha t / 2) over the hold
         * (mass-proportional damping); a factor 10 for the two-mass slider. */
        double om = sqrt(SL_KS / SL_M);
        double tol = 10.0 * pow(2 * 3.14159265358979323846, 2) / pow(om * T_PRESS, 3) *
                     exp(-0.5 * ALPHA_SL * (T_HOLD - T_PRESS));
        double e = fabs(tr[w].lam_hold / SL_F - 1.0);
        ck_assert_msg(e <= tol, "%s: static lambda_N %.10g vs F = %g: %.3g > %.3g", names[w],
                      tr[w].lam_hold, SL_F, e, tol);
        /* No penetration: the gap is zero to round-off of the coordinates while in contact. */
        ck_assert_msg(tr[w].gap_min >= -1e-15, "%s: gap %.3g", names[w], tr[w].gap_min);
        /* Sliding on the cone, over several faces. */
        ck_assert_int_gt(tr[w].nslip, 100);
        ck_assert_msg(tr[w].cone <= 1e-12, "%s: |F_t|/(mu F_N) - 1 = %.3g", names[w], tr[w].cone);
        ck_assert_int_ge(tr[w].faces, 2);
        fprintf(stderr,
                "faces_fe: %s: lambda_N after the hold %.12g N (F = 1, tol %.2g), gap >= %.3g m, "
                "%d slipping steps on %d faces, cone error %.2g, max |lambda_N/F - 1| late in "
                "the slide %.3g\n",
                names[w], tr[w].lam_hold, tol, tr[w].gap_min, tr[w].nslip, tr[w].faces, tr[w].cone,
                tr[w].lam_slide);
    }
    /* The same contact result from the CalculiX import and from the generator. */
    double dl = 0, dft = 0;
    for (int k = 0; k < tr[0].n; k++) {
        ck_assert_double_le(fabs(tr[0].t[k] - tr[1].t[k]), 1e-9 * tr[0].t[k]);
        dl = fmax(dl, fabs(tr[0].lam_n[k] - tr[1].lam_n[k]));
        dft = fmax(dft, fabs(tr[0].ft[k] - tr[1].ft[k]));
    }
    fprintf(stderr,
            "faces_fe: ccx vs generator: M, K differ by %.2g, %.2g (relative), contact forces by "
            "%.2g N (normal), %.2g N (tangential) over %d steps\n",
            err[0] / amax[0], err[1] / amax[1], dl, dft, tr[0].n);
    /* The inputs differ by ccx's 14 printed digits, and the automatic step (from the reduced
     * spectrum) by as much; over 4e4 steps of a damped response that leaves differences of a
     * few 1e-9 N (measured 4e-9). A real difference of modelling (a face in the wrong
     * orientation, a different element, nodes out of order) changes the forces at the 1e-4 N
     * scale of the face-to-face variation above, so 1e-7 N separates the two. */
    ck_assert_double_le(dl, 1e-7 * SL_F);
    ck_assert_double_le(dft, 1e-7 * SL_F);
    /* Modal truncation: 10 modes against 71 of 72. The static state is the same (the surface
     * is the boundary: static exactness), the sliding transient differs by what the 61 left-out
     * modes carry. */
    double dlh = fabs(tr[1].lam_hold - tr[2].lam_hold), dlt = 0, dls = 0;
    for (int k = 0, j = 1; k < tr[1].n; k++) { /* the 71-mode run has a smaller step */
        double t = tr[1].t[k];
        while (j < tr[2].n - 1 && tr[2].t[j] < t)
            j++;
        double a = (t - tr[2].t[j - 1]) / (tr[2].t[j] - tr[2].t[j - 1]);
        double l2 = (1 - a) * tr[2].lam_n[j - 1] + a * tr[2].lam_n[j];
        dlt = fmax(dlt, fabs(tr[1].lam_n[k] - l2));
        if (t > 0.5 * (T_HOLD + T_END)) dls = fmax(dls, fabs(tr[1].lam_n[k] - l2));
    }
    fprintf(stderr,
            "faces_fe: modal truncation, 10 vs 71 of 72 modes: lambda_N after the hold differs "
            "by %.2g N, over the run by at most %.2g N, late in the slide %.2g N (steps %d, %d)\n",
            dlh, dlt, dls, tr[1].n, tr[2].n);
    /* Both are at the static state up to the ramp's residual (tol above, in units of F). */
    double om = sqrt(SL_KS / SL_M);
    ck_assert_double_le(dlh, 2.0 * 10.0 * pow(2 * 3.14159265358979323846, 2) /
                                 pow(om * T_PRESS, 3) * exp(-0.5 * ALPHA_SL * (T_HOLD - T_PRESS)) *
                                 SL_F);
    for (int w = 0; w < 3; w++)
        trace_free(&tr[w]);
}
END_TEST

/* ---- 6. The CEA of a pad whose nodes lie on the master's mesh lines ------------------------ */

/* A plate of the generator, 60 x 20 x 4 mm in 12 x 4 x 2 hexahedra (faces of 5 x 5 mm, clamped
 * at x = 0), its top face set reduced with 12 fixed-interface modes, and a pad of 9 contact
 * nodes 5 mm apart (the plate's mesh pitch) tied by springs to a carriage pressed with 90 N and
 * driven along x, centred at (x0, y0). At (30, 10) mm every pad node sits on a corner or an
 * edge of the master faces (on the y lines at every position). Writes the case; returns its
 * path. */
static const double PAD_F = 90.0, PAD_MU = 0.3;

static const char *pad_on_plate(double x0, double y0, int flip)
{
    tvds_block_params bp = tvds_block_default();
    bp.lx = 0.06, bp.ly = 0.02, bp.lz = 0.004;
    bp.nx = 12, bp.ny = 4, bp.nz = 2;
    bp.E = 2.1e11, bp.nu = 0.3, bp.rho = 7800;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_fe_model *fm = NULL;
    ck_assert_msg(tvds_block_build(&bp, &fm, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
    tvds_substructure *s = NULL;
    tvds_reduce_stats st;
    ck_assert_msg(reduce_modes(fm, "face:top_faces", "top_faces", 12, &s, &st, &ctx) == TVDS_OK,
                  "%s", ctx.msg);
    if (flip) {
        /* The face x in [30, 35] mm, y in [5, 10] mm turned over (corners clockwise: its
         * normal points into the plate, away from the pad). */
        const long c0 = 1 + 6 + 13L * (1 + 5 * 2);
        tvds_faceset *fs = &s->fsets[0];
        int hit = 0;
        for (int f = 0; f < fs->nface; f++) {
            long *v = fs->nodes + (size_t)f * TVDS_FACE_MAX_NODES;
            if (v[0] != c0) continue;
            long t = v[1];
            v[1] = v[3], v[3] = t;
            hit++;
        }
        ck_assert_int_eq(hit, 1);
    }
    ck_assert_int_eq(tvds_substructure_write(s, path_of("plate"), &ctx), TVDS_OK);
    tvds_substructure_free(&s);
    tvds_fe_model_free(&fm, &cc);
    /* Pad: nodes 1..9 on the plate's top (z = lz), node 10 the carriage 5 mm above; each
     * contact node tied to the carriage (k_c) and to its neighbours (k_n) in x, y and z. */
    enum { NP = 10, ND = 3 * NP };
    double xyz[3 * NP], M[ND * ND] = {0}, K[ND * ND] = {0};
    const double kc = 2e7, kn = 1e7;
    long tips[9];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            int a = 3 * j + i;
            xyz[3 * a] = x0 + 0.005 * (i - 1);
            xyz[3 * a + 1] = y0 + 0.005 * (j - 1);
            xyz[3 * a + 2] = bp.lz;
            tips[a] = a + 1;
        }
    xyz[27] = x0, xyz[28] = y0, xyz[29] = bp.lz + 0.005;
    for (int k = 0; k < ND; k++)
        M[k + ND * k] = k < 27 ? 1e-3 : 1e-2;
    for (int a = 0; a < 10; a++)
        for (int b = a + 1; b < 10; b++) {
            double k = 0.0;
            if (b == 9)
                k = kc;
            else if ((b == a + 1 && b % 3 != 0) || b == a + 3)
                k = kn;
            for (int c = 0; c < 3 && k > 0; c++) {
                int p = 3 * a + c, q = 3 * b + c;
                K[p + ND * p] += k, K[q + ND * q] += k;
                K[p + ND * q] -= k, K[q + ND * p] -= k;
            }
        }
    tvds_test_write_points(path_of("pad"), "pad", NP, xyz, M, K, "tips", 9, tips);
    static char cpath[600];
    snprintf(cpath, sizeof cpath, "%s/pad.ini", dir);
    FILE *f = fopen(cpath, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "[run]\nname = pad\nmethod = subs-b\ndt = 1e-6\nt_end = 0.1\n\n"
            "[substructure plate]\ndir = plate\ndamping = rayleigh\nalpha = 10\nbeta = 1e-7\n\n"
            "[substructure pad]\ndir = pad\ndamping = rayleigh\nalpha = 10\nbeta = 1e-7\n\n"
            "[contact c]\nslave = pad:tips\nmaster = plate:top_faces\nmu = %.17g\n\n"
            "[load press]\ndof = pad:10:uz\nf = %.17g\n\n"
            "[constraint drive_x]\nterms = pad:10:ux\nvalue = table 0 0  1 0.1\n\n"
            "[constraint drive_y]\nterms = pad:10:uy\nvalue = 0\n",
            PAD_MU, -PAD_F);
    ck_assert_int_eq(fclose(f), 0);
    return cpath;
}

/* The pad's nodes on the plate's mesh lines (x0 = 30 mm: on the x lines at s = -5, 0, +5 mm,
 * on the y lines everywhere): the static sliding state exists at every position and the survey
 * solves them all; the multipliers carry the press (sum lambda_N = F up to the tilt of the
 * deformed faces, n_z >= 1 - 1e-3 for a deflection far below the 5 mm faces). Off the lines
 * (centre moved by 1.3 mm in x and y) the same. */
START_TEST(test_cea_pad_on_mesh_lines)
{
    const double x0 = _i == 0 ? 0.03 : 0.0313, y0 = _i == 0 ? 0.01 : 0.0113;
    const char *cpath = pad_on_plate(x0, y0, 0);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read(cpath, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    tvds_cea_options o = tvds_cea_options_default();
    o.slave = TVDS_CEA_ALL_SLAVES;
    o.nmodes = 6;
    o.refine = 0;
    o.nthreads = 1;
    enum { NPOS = 11 };
    double s[NPOS];
    for (int i = 0; i < NPOS; i++)
        s[i] = -0.005 + 0.001 * i;
    tvds_cea_result *r = NULL;
    int rc = tvds_cea_run(m, 0, s, NPOS, &o, &r, &ctx);
    ck_assert_msg(rc == TVDS_OK, "x0 = %g: %s", x0, ctx.msg);
    ck_assert_int_eq(r->npos, NPOS);
    for (int i = 0; i < NPOS; i++)
        ck_assert_msg(fabs(r->lambda_n[i] / PAD_F - 1.0) < 1e-3, "s = %g: lambda_N %.9g", s[i],
                      r->lambda_n[i]);
    tvds_cea_result_free(&r);
    tvds_model_free(&m);
}
END_TEST

/* A position that cannot be solved is left out and listed, and the survey goes on: one face of
 * the plate turned over (its normal into the plate), the pad's first node alone in contact
 * (o.slave = 0, at (26.3 mm + s, 6.3 mm)): over that face (s = 4 ... 8 mm) its multiplier
 * pulls and no sliding contact is left; the other 10 positions are solved and tracked, and the
 * refinement does not split the interval (3, 9) mm across them. */
START_TEST(test_cea_failed_position_skipped)
{
    const char *cpath = pad_on_plate(0.0313, 0.0113, 1);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read(cpath, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    tvds_cea_options o = tvds_cea_options_default();
    o.slave = 0;
    o.nmodes = 6;
    o.nthreads = 1;
    enum { NPOS = 15, NBAD = 5 };
    double s[NPOS];
    for (int i = 0; i < NPOS; i++)
        s[i] = -0.005 + 0.001 * i;
    for (int refine = 0; refine < 2; refine++) {
        o.refine = refine;
        o.ds_min = 2.5e-4;
        tvds_cea_result *r = NULL;
        int rc = tvds_cea_run(m, 0, s, NPOS, &o, &r, &ctx);
        ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
        ck_assert_int_eq(r->nfailed, NBAD);
        ck_assert_int_eq(r->npos, NPOS - NBAD + r->nrefined);
        for (int k = 0; k < NBAD; k++) {
            ck_assert_double_eq(r->failed[k].s, s[9 + k]);
            ck_assert_int_lt(r->failed[k].status, 0);
            ck_assert_msg(strstr(r->failed[k].reason, "position s = ") != NULL, "%s",
                          r->failed[k].reason);
        }
        for (int i = 0; i < r->npos; i++) {
            ck_assert_msg(r->s[i] < 0.0031 || r->s[i] > 0.0089, "s = %g", r->s[i]);
            ck_assert_msg(fabs(r->lambda_n[i] / PAD_F - 1.0) < 1e-3, "s = %g: lambda_N %.9g",
                          r->s[i], r->lambda_n[i]);
        }
        tvds_cea_result_free(&r);
    }
    tvds_model_free(&m);
}
END_TEST

/* The same through `tvds cea`: exit 0, the 9 positions solved in locus.csv, the 2 failed ones
 * in status.json with their status and reason, a warning on stderr. */
START_TEST(test_cli_cea_failed_positions)
{
    pad_on_plate(0.0313, 0.0113, 1);
    ck_assert_int_eq(run_cli("cea pad.ini --slave 0 --positions 11 --s0 -0.005 --s1 0.005 "
                             "--no-refine --no-undamped --modes 6 --threads 1 -q "
                             "-o out"),
                     0);
    char *st = tvds_test_slurp(path_of("out/status.json"), NULL);
    ck_assert_msg(strstr(st, "\"status\": \"ok\"") && strstr(st, "\"positions_written\": 9,") &&
                      strstr(st, "\"positions_failed\": 2,") &&
                      strstr(st, "\"TVDS_ERR_CONTACT_LOST\", \"reason\": \"cea: position s = "
                                 "0.004: no sliding contact") &&
                      strstr(st, "\"reason\": \"cea: position s = 0.005: ") &&
                      strstr(st, "\"failed_undamped\": [],"),
                  "%s", st);
    free(st);
    char *lc = tvds_test_slurp(path_of("out/locus.csv"), NULL);
    int rows = 0;
    for (const char *c = lc; *c; c++)
        rows += *c == '\n';
    ck_assert_int_eq(rows, 1 + 9 * 6);
    free(lc);
    char *er = tvds_test_slurp(path_of("stderr"), NULL);
    ck_assert_msg(strstr(er, "warning: 2 positions of the damped locus could not be solved") !=
                      NULL,
                  "%s", er);
    free(er);
}
END_TEST

/* ---- 7. Many nodes on a CalculiX block: a pad pressed on the *SURFACE ---------------------- */

/* A 2 x 2 x 2 C3D8 pad of side PD_L (the generator's material) with its bottom at z = lz,
 * x in [PD_X0, PD_X0 + PD_L], y in [PD_Y0, PD_Y0 + PD_L]: its 9 bottom nodes (node set BOT)
 * lie on the block's top, the middle row and column on the mesh lines x = 0.02 and y = 0.01
 * (face edges) and the centre on a vertex. The top nodes (TOPN) are held in x and y, so the
 * pad moves freely along z only; a press of PD_F / 9 on each top node. */
static const double PD_L = 0.01, PD_X0 = 0.025, PD_Y0 = 0.005;
static double PD_F = 9.0;
static const double PD_TP = 0.002, PD_TEND = 0.016, PD_ALPHA = 5000.0;

/* The plate of the pad-on-plate model: 60 x 20 x 4 mm of 12 x 4 x 2 C3D8 (5 mm faces), the
 * generator's material, clamped at x = 0, *SURFACE TOP on its upper layer. */
enum { QX = 12, QY = 4, QZ = 2 };
static const double QLX = 0.06, QLY = 0.02;
static double QLZ = 0.004; /* the plate; 0.02 for the block */
static int QBOTH = 0;      /* 1: clamped at both ends */

static long qnode(int i, int j, int k)
{
    return 1 + i + (QX + 1L) * (j + (QY + 1L) * k);
}

static void write_plate_deck(const char *job)
{
    tvds_block_params p = block_params();
    char path[600];
    snprintf(path, sizeof path, "%s/%s.inp", dir, job);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "** plate of %d x %d x %d C3D8 (tvds faces_fe test)\n*NODE, NSET=NALL\n", QX, QY,
            QZ);
    for (int k = 0; k <= QZ; k++)
        for (int j = 0; j <= QY; j++)
            for (int i = 0; i <= QX; i++)
                fprintf(f, "%ld, %.17g, %.17g, %.17g\n", qnode(i, j, k), QLX * i / QX, QLY * j / QY,
                        QLZ * k / QZ);
    fprintf(f, "*ELEMENT, TYPE=C3D8, ELSET=EALL\n");
    int e = 1;
    for (int k = 0; k < QZ; k++)
        for (int j = 0; j < QY; j++)
            for (int i = 0; i < QX; i++)
                fprintf(f, "%d, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld\n", e++, qnode(i, j, k),
                        qnode(i + 1, j, k), qnode(i + 1, j + 1, k), qnode(i, j + 1, k),
                        qnode(i, j, k + 1), qnode(i + 1, j, k + 1), qnode(i + 1, j + 1, k + 1),
                        qnode(i, j + 1, k + 1));
    fprintf(f, "*ELSET, ELSET=EUP, GENERATE\n%d, %d\n", QX * QY * (QZ - 1) + 1, QX * QY * QZ);
    fprintf(f, "*SURFACE, NAME=TOP, TYPE=ELEMENT\nEUP, S2\n*NSET, NSET=FIX\n");
    for (int k = 0; k <= QZ; k++)
        for (int j = 0; j <= QY; j++)
            fprintf(f, QBOTH ? "%ld,\n%ld,\n" : "%ld,\n", qnode(0, j, k), qnode(QX, j, k));
    fprintf(f,
            "*MATERIAL, NAME=PC\n*ELASTIC\n%.17g, %.17g\n*DENSITY\n%.17g\n"
            "*SOLID SECTION, ELSET=EALL, MATERIAL=PC\n*BOUNDARY\nFIX, 1, 3\n"
            "*STEP\n*FREQUENCY, SOLVER=MATRIXSTORAGE\n*END STEP\n",
            p.E, p.nu, p.rho);
    ck_assert_int_eq(fclose(f), 0);
}

static long pnode(int i, int j, int k)
{
    return 1 + i + 3L * (j + 3L * k);
}

static void write_pad_deck(const char *job, double lz)
{
    tvds_block_params p = block_params();
    char path[600];
    snprintf(path, sizeof path, "%s/%s.inp", dir, job);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "** pad of 2 x 2 x 2 C3D8 (tvds faces_fe test)\n*NODE, NSET=NALL\n");
    for (int k = 0; k <= 2; k++)
        for (int j = 0; j <= 2; j++)
            for (int i = 0; i <= 2; i++)
                fprintf(f, "%ld, %.17g, %.17g, %.17g\n", pnode(i, j, k), PD_X0 + PD_L * i / 2,
                        PD_Y0 + PD_L * j / 2, lz + PD_L * k / 2);
    fprintf(f, "*ELEMENT, TYPE=C3D8, ELSET=EALL\n");
    int e = 1;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 2; i++)
                fprintf(f, "%d, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld\n", e++, pnode(i, j, k),
                        pnode(i + 1, j, k), pnode(i + 1, j + 1, k), pnode(i, j + 1, k),
                        pnode(i, j, k + 1), pnode(i + 1, j, k + 1), pnode(i + 1, j + 1, k + 1),
                        pnode(i, j + 1, k + 1));
    fprintf(f, "*NSET, NSET=BOT\n");
    for (int a = 1; a <= 9; a++)
        fprintf(f, "%d,\n", a);
    fprintf(f, "*NSET, NSET=TOPN\n");
    for (int a = 19; a <= 27; a++)
        fprintf(f, "%d,\n", a);
    fprintf(f,
            "*MATERIAL, NAME=PC\n*ELASTIC\n%.17g, %.17g\n*DENSITY\n%.17g\n"
            "*SOLID SECTION, ELSET=EALL, MATERIAL=PC\n%s"
            "*STEP\n*FREQUENCY, SOLVER=MATRIXSTORAGE\n*END STEP\n",
            p.E, p.nu, p.rho, "*BOUNDARY\nTOPN, 1, 2\n");
    ck_assert_int_eq(fclose(f), 0);
}

static int dof_of(const tvds_substructure *s, long node, int dirn)
{
    for (int k = 0; k < s->n; k++)
        if (s->dofs[k].node == node && s->dofs[k].dir == dirn) return k;
    return -1;
}

/* The static state of the reduced pad on the reduced block, frictionless, solved apart from
 * the engine: K_p u_p = f + B_p^T lambda, K_b u_b = -B_b^T lambda, gap = B_p u_p - B_b u_b
 * (small displacements on the flat top, normal +z, bilinear weights of the face under each
 * slave node), every active set of the 9 nodes tried (a strictly convex problem: exactly one
 * has lambda >= 0 on it and gap >= 0 off it, up to round-off). lam[a]: force on BOT node a+1. */
static void pad_static(const char *blk, const char *pad, double *lam)
{
    tvds_ctx ctx;
    tvds_substructure *sb = NULL, *sp = NULL;
    tvds_ctx_init(&ctx);
    ck_assert_msg(tvds_substructure_read(path_of(blk), NULL, &sb, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_msg(tvds_substructure_read(path_of(pad), NULL, &sp, &ctx) == TVDS_OK, "%s", ctx.msg);
    int np = sp->n, nb = sb->n, n0 = np + nb;
    /* Constraint rows: pad z of slave a minus the weighted block z under it. */
    double *B = calloc((size_t)9 * n0, sizeof *B), *f = calloc(n0 + 9, sizeof *f);
    double hx = QLX / QX, hy = QLY / QY;
    for (int a = 0; a < 9; a++) {
        int ip = dof_of(sp, pnode(a % 3, a / 3, 0), TVDS_DIR_Z);
        ck_assert_int_ge(ip, 0);
        B[a + 9 * (size_t)ip] = 1.0;
        double x = PD_X0 + PD_L * (a % 3) / 2, y = PD_Y0 + PD_L * (a / 3) / 2;
        int ci = (int)floor(x / hx + 1e-9), cj = (int)floor(y / hy + 1e-9);
        double xi = x / hx - ci, eta = y / hy - cj;
        if (xi < 1e-9) xi = 0.0;
        if (eta < 1e-9) eta = 0.0;
        for (int q = 0; q < 4; q++) {
            int di = q & 1, dj = q >> 1;
            double w = (di ? xi : 1 - xi) * (dj ? eta : 1 - eta);
            if (w == 0.0) continue;
            int ib = dof_of(sb, qnode(ci + di, cj + dj, QZ), TVDS_DIR_Z);
            ck_assert_int_ge(ib, 0);
            B[a + 9 * (size_t)(np + ib)] -= w;
        }
    }
    for (int a = 19; a <= 27; a++) {
        int ip = dof_of(sp, a, TVDS_DIR_Z);
        ck_assert_int_ge(ip, 0);
        f[ip] = -PD_F / 9.0;
    }
    int found = 0;
    double *A = malloc(sizeof(double) * (n0 + 9) * (n0 + 9)),
           *x = malloc(sizeof(double) * (n0 + 9));
    int *ipiv = malloc(sizeof(int) * (n0 + 9));
    for (int set = 1; set < 512; set++) {
        int act[9], na = 0;
        for (int a = 0; a < 9; a++)
            if (set >> a & 1) act[na++] = a;
        int n = n0 + na;
        for (size_t k = 0; k < (size_t)n * n; k++)
            A[k] = 0.0;
        for (int j = 0; j < np; j++)
            for (int i = 0; i < np; i++)
                A[i + (size_t)j * n] = sp->K[i + (size_t)j * np];
        for (int j = 0; j < nb; j++)
            for (int i = 0; i < nb; i++)
                A[np + i + (size_t)(np + j) * n] = sb->K[i + (size_t)j * nb];
        for (int r = 0; r < na; r++)
            for (int j = 0; j < n0; j++) {
                double b = B[act[r] + 9 * (size_t)j];
                A[n0 + r + (size_t)j * n] = b;    /* gap row */
                A[j + (size_t)(n0 + r) * n] = -b; /* force: +lambda on the pad, - on the block */
            }
        for (int i = 0; i < n; i++)
            x[i] = i < n0 ? f[i] : 0.0;
        if (LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, A, n, ipiv, x, n) != 0) continue;
        double l[9] = {0}, sum = 0.0, umax = 0.0, ok = 1;
        for (int r = 0; r < na; r++)
            l[act[r]] = x[n0 + r], sum += x[n0 + r];
        for (int j = 0; j < n0; j++)
            umax = fmax(umax, fabs(x[j]));
        for (int a = 0; a < 9; a++) {
            double g = 0.0;
            for (int j = 0; j < n0; j++)
                g += B[a + 9 * (size_t)j] * x[j];
            if (set >> a & 1 ? l[a] < -1e-9 * PD_F : g < -1e-9 * umax) ok = 0;
        }
        if (!ok) continue;
        found++;
        ck_assert_double_le(fabs(sum - PD_F), 1e-9 * PD_F);
        memcpy(lam, l, sizeof l);
    }
    ck_assert_int_eq(found, 1);
    free(A);
    free(x);
    free(ipiv);
    free(B);
    free(f);
    tvds_substructure_free(&sb);
    tvds_substructure_free(&sp);
}

/* One run of the pad on the block: the smallest gap of any point at any step, the forces per
 * node at the end. */
static void pad_run(const char *blk, const char *pad, const char *method, double mu, double *lam,
                    double *gmin, long *nonconv, long *steps)
{
    int direct = strcmp(method, "film-direct") == 0; /* FiLm's direct finish alone */
    if (direct) method = "film";
    char cpath[600];
    snprintf(cpath, sizeof cpath, "%s/case_pad_%s.ini", dir, method);
    FILE *f = fopen(cpath, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "[run]\nname = pad_%s\nmethod = %s\ndt = auto\nt_end = %.17g\n\n"
            "[substructure blk]\ndir = %s\ndamping = rayleigh\nalpha = %.17g\nbeta = 1e-7\n\n"
            "[substructure pad]\ndir = %s\ndamping = rayleigh\nalpha = %.17g\nbeta = 1e-7\n\n"
            "[contact bottom]\nslave = pad:BOT\nmaster = blk:TOP\nmu = %.17g\n\n",
            method, method, PD_TEND, blk, PD_ALPHA, pad, PD_ALPHA, mu);
    for (int a = 19; a <= 27; a++)
        fprintf(f, "[load p%d]\ndof = pad:%d:uz\nf = smooth %.17g 0 %.17g\n\n", a, a, -PD_F / 9.0,
                PD_TP);
    ck_assert_int_eq(fclose(f), 0);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read(cpath, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    tvds_data *d = NULL;
    ck_assert_msg(tvds_data_create(m, &d, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(d->ncp, 9);
    d->check.film_direct = direct;
    *gmin = INFINITY;
    while (tvds_data_time(d) < m->opt.t_end) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
        for (int i = 0; i < d->ncp; i++)
            *gmin = fmin(*gmin, d->cp[i].gap);
    }
    for (int i = 0; i < d->ncp; i++) {
        ck_assert(d->cp[i].node >= 1 && d->cp[i].node <= 9);
        lam[d->cp[i].node - 1] = d->cp[i].lam_n;
    }
    *nonconv = tvds_data_nonconverged(d);
    int ns;
    const char *const *nm;
    const double *val;
    tvds_channels_update(m, d);
    ck_assert_int_eq(tvds_summary(d, &ns, &nm, &val), TVDS_OK);
    for (int k = 0; k < ns; k++)
        if (strstr(nm[k], "energy balance") || strstr(nm[k], "direct finishes") ||
            strstr(nm[k], "least-index"))
            fprintf(stderr, "  %s: %s = %.3g\n", method, nm[k], val[k]);
    *steps = tvds_data_steps(d);
    tvds_data_free(&d);
    tvds_model_free(&m);
}

/* The plate (or block) and the pad written, run by ccx, reduced (10 modes each). One case: the
 * static state solved, and every method run with friction mu. all: compare every method with
 * the static state (else subs-a only, the method whose gap is linearised at the undeformed
 * geometry as the static solve's is). Failures go to fail (the first one). */
static void pad_setup(void)
{
    write_plate_deck("blk");
    run_ccx("blk");
    write_pad_deck("pad", QLZ);
    run_ccx("pad");
    tvds_ctx ctx;
    tvds_fe_model *fm = NULL;
    tvds_ccx_info info;
    const char *jobs[2] = {"blk.inp", "pad.inp"}, *bnd[2] = {"face:TOP", "BOT, TOPN"};
    const char *faces[2] = {"TOP", NULL}, *out[2] = {"blk_cb", "pad_cb"};
    for (int w = 0; w < 2; w++) {
        tvds_ctx_init(&ctx);
        ck_assert_msg(tvds_import_calculix(path_of(jobs[w]), &fm, &info, &cc, &ctx) == TVDS_OK,
                      "%s", ctx.msg);
        tvds_substructure *s = NULL;
        tvds_reduce_stats st;
        ck_assert_msg(reduce_modes(fm, bnd[w], faces[w], 10, &s, &st, &ctx) == TVDS_OK, "%s",
                      ctx.msg);
        ck_assert_int_eq(tvds_substructure_write(s, path_of(out[w]), &ctx), TVDS_OK);
        tvds_substructure_free(&s);
        tvds_fe_model_free(&fm, &cc);
    }
}

static void pad_case(const char *what, double mu, int all, char *fail, size_t nfail)
{
    double ref[9];
    pad_static("blk_cb", "pad_cb", ref);
    double lref = 0.0;
    for (int a = 0; a < 9; a++)
        lref = fmax(lref, ref[a]);
    const char *methods[5] = {"subs-a", "subs-b", "subs-c", "film", "film-direct"};
    /* film-direct: FiLm steps solved by its direct finish alone from lambda = 0 (the check
     * hook film_direct), frictionless: the finish's least-index passes build the whole set. */
    for (int w = 0; w < (mu == 0.0 ? 5 : 4); w++) {
        double lam[9], gmin, sum = 0.0, err = 0.0;
        long nc, steps;
        pad_run("blk_cb", "pad_cb", methods[w], mu, lam, &gmin, &nc, &steps);
        for (int a = 0; a < 9; a++) {
            sum += lam[a];
            err = fmax(err, fabs(lam[a] - ref[a]));
        }
        fprintf(stderr,
                "faces_fe: pad on %s, mu %g, %s: %ld steps, %ld non-converged, min gap %.3g m, "
                "sum lambda_N / F - 1 = %.3g, max |lambda_a - static| / max lambda = %.3g\n",
                what, mu, methods[w], steps, nc, gmin, sum / PD_F - 1.0, err / lref);
        char msg[300] = "";
        if (!(gmin >= -1e-15))
            snprintf(msg, sizeof msg, "a point ends a step %.3g m inside", gmin);
        else if (nc != 0)
            snprintf(msg, sizeof msg, "%ld non-converged steps", nc);
        else if (mu == 0.0 && (all || w == 0) && !(fabs(sum - PD_F) <= 1e-6 * PD_F))
            snprintf(msg, sizeof msg, "sum lambda_N %.12g N, F = %g", sum, PD_F);
        else if (mu == 0.0 && (all || w == 0) && !(err <= 1e-6 * lref))
            snprintf(msg, sizeof msg, "lambda_N per node off the static one by %.3g N of %.3g", err,
                     lref);
        if (msg[0] && !fail[0])
            snprintf(fail, nfail, "pad on %s, mu %g, %s: %s", what, mu, methods[w], msg);
    }
}

/* Every method, with slave nodes on the master's face edges and vertices (all 9 here): no point
 * ends a step inside the master beyond 1e-15 m (round-off of coordinates of 1e-2 m), no step
 * is left inconsistent, and after the hold the frictionless forces per node are the static
 * ones of the reduced matrices to 1e-6 (what is left of the press transient after 14 ms of
 * exp(-alpha t / 2) decay with alpha = 5000 is below 1e-12). On the 4 mm plate under 9 N the
 * plate's face turns by theta = F L^2 / (2 E I) = 0.016 rad under the pad, and the methods on
 * the deformed geometry (subs-b, subs-c, FiLm) differ from the linear static state by O(theta)
 * (measured 2e-2): there subs-a alone is compared. On the 20 mm block clamped at both ends
 * under 9 mN, theta < 1e-8 and every method is. Frictionless, FiLm runs a second time with
 * every step solved by its direct finish alone (film-direct), which must give the same. */
START_TEST(test_ccx_pad_on_block)
{
    if (!have_ccx("the pad on a CalculiX plate")) return;
    char fail[400] = "";
    QLZ = 0.004;
    QBOTH = 0;
    PD_F = 9.0;
    pad_setup();
    pad_case("plate", 0.0, 0, fail, sizeof fail);
    pad_case("plate", 0.3, 0, fail, sizeof fail);
    QLZ = 0.02;
    QBOTH = 1;
    PD_F = 9e-3;
    pad_setup();
    pad_case("block", 0.0, 1, fail, sizeof fail);
    ck_assert_msg(!fail[0], "%s", fail);
}
END_TEST

Suite *faces_fe_suite(void)
{
    Suite *s = suite_create("faces_fe");
    TCase *tc = tcase_create("faces_fe");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_face_tables_outward, 0, 8);
    tcase_add_test(tc, test_deck_surfaces);
    tcase_add_test(tc, test_deck_surface_errors);
    tcase_add_test(tc, test_reduce_face_sets);
    tcase_add_test(tc, test_sets_face_line_errors);
    tcase_add_test(tc, test_deck_surfaces_alloc_failures);
    tcase_add_test(tc, test_reduce_fe_alloc_failures);
    tcase_add_loop_test(tc, test_cea_pad_on_mesh_lines, 0, 2);
    tcase_add_test(tc, test_cea_failed_position_skipped);
    suite_add_tcase(s, tc);
    TCase *tcli = tcase_create("faces_fe_cli");
    tcase_set_tags(tcli, "long"); /* spawns the command */
    tcase_add_checked_fixture(tcli, setup, teardown);
    tcase_set_timeout(tcli, 30);
    tcase_add_test(tcli, test_cli_faces);
    tcase_add_test(tcli, test_cli_cea_failed_positions);
    suite_add_tcase(s, tcli);
    TCase *tl = tcase_create("faces_fe_ccx");
    tcase_set_tags(tl, "long");
    tcase_add_checked_fixture(tl, setup, teardown);
    tcase_set_timeout(tl, 120);
    tcase_add_test(tl, test_ccx_block_contact);
    tcase_add_loop_test(tl, test_ccx_face_labels, 0, 4);
    suite_add_tcase(s, tl);
    TCase *tp = tcase_create("faces_fe_pad");
    tcase_set_tags(tp, "long");
    tcase_add_checked_fixture(tp, setup, teardown);
    tcase_set_timeout(tp, 400);
    tcase_add_test(tp, test_ccx_pad_on_block);
    suite_add_tcase(s, tp);
    return s;
}
