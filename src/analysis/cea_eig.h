/* cea_eig.h — eigensolvers of the CEA's projected quadratic problem (internal; docs/cea.md,
 * "Eigenvalues"): dense LAPACK (all 2n eigenvalues) or shift-invert Arnoldi (ARPACK, the lowest
 * ones only). */
#ifndef TVDS_CEA_EIG_H
#define TVDS_CEA_EIG_H

#include <signal.h>

/* (s^2 M + s C + K) q = 0 of order n, the lowest-frequency oscillating eigenvalues wanted. */
typedef struct cea_eig_problem {
    int n;
    const double *M, *K, *C; /* n x n column-major; C all zero when has_c = 0 */
    int has_c;
    double wmin;   /* eigenvalues with Im s <= wmin [rad/s] are not oscillating ones */
    int ncand;     /* the lowest ncand oscillating eigenvalues (Im s > wmin) are wanted */
    int solver;    /* enum tvds_cea_solver; TVDS_CEA_AUTO means the dense auto choice here */
    double wshift; /* ARPACK: > 0, the complex shift sigma = i wshift [rad/s] (complex LU,
                      znaupd); 0, the real shift */
    volatile sig_atomic_t *stop; /* nonzero: the Arnoldi iteration stops at its next operator
                                    application (TVDS_ERR_INTERRUPTED); may be NULL */
} cea_eig_problem;

/* What the ARPACK path did at one position (zero for the dense path). */
typedef struct cea_eig_stats {
    int nev, ncv;    /* eigenvalues asked for and Krylov basis size of the last attempt */
    int nconv;       /* Ritz values converged in the last attempt */
    int attempts;    /* Arnoldi runs (more than 1: the first did not enclose the wanted set) */
    int nops;        /* applications of the shift-inverted operator, all attempts */
    double sigma;    /* shift [1/s]: real part */
    double sigma_im; /* its imaginary part (0: the real shift) [rad/s] */
    double radius;   /* every eigenvalue with |s - sigma| < radius was found [1/s] */
} cea_eig_stats;

/* Buffers, sized once for problems of order <= nmax (cea_eig_work_alloc). */
typedef struct cea_eig_work {
    int nmax, ncand, arpack;
    /* Dense path (arpack = 0). */
    double *A, *B, *VR;     /* 2 nmax x 2 nmax */
    double *ar, *ai, *beta; /* 2 nmax */
    int *ipiv;              /* 2 nmax */
    /* ARPACK path (arpack = 1). */
    int nev_max, ncv_max;
    double *V;                  /* 2 nmax x ncv_max: Arnoldi basis, then the Ritz vectors */
    double *resid, *workd;      /* 2 nmax, 3 x 2 nmax */
    double *workl, *workev;     /* 3 ncv^2 + 6 ncv, 3 ncv */
    double *dr, *di;            /* ncv_max + 1: Ritz values */
    int *select;                /* ncv_max (a_int) */
    int *lpiv;                  /* nmax: pivots of the LU of D(sigma) */
    double *t;                  /* nmax: operator scratch */
    double *RW, *RT;            /* nmax x 2 ncand: basis of the kept Ritz vectors, M W etc. */
    double *rtau;               /* 2 ncand: QR of RW */
    double *Mk, *Kk, *Ck;       /* 2 ncand x 2 ncand: the problem projected on RW */
    struct cea_eig_work *small; /* dense buffers for the projected problem */
    /* Complex shift (arpack = 2), beside the buffers above (V then receives the kept vectors
     * as real pairs, the layout of the real shift). */
    double _Complex *zlu;          /* nmax x nmax: LU of D(sigma) */
    double _Complex *zV;           /* 2 nmax x ncv_max: Arnoldi basis, then the Ritz vectors */
    double _Complex *zresid;       /* 2 nmax */
    double _Complex *zworkd;       /* 3 x 2 nmax */
    double _Complex *zworkl;       /* 3 ncv^2 + 5 ncv */
    double _Complex *zworkev, *zd; /* 2 ncv, ncv + 1 */
    double _Complex *zt;           /* nmax */
    double *rwork;                 /* ncv_max */
    double *xr, *yr2; /* nmax x 2: real and imaginary parts through the real products */
    /* Both. */
    int *order;      /* max(2 nmax, ncv_max + 1) */
    double *yr, *yi; /* nmax: residual of an eigenpair */
} cea_eig_work;

/* Allocate for order <= nmax, ncand wanted; arpack 1: the Arnoldi buffers instead of the dense
 * 2n x 2n ones; 2: those of the complex shift too. TVDS_OK or TVDS_ERR_NOMEM (w then empty). */
int cea_eig_work_alloc(cea_eig_work *w, int nmax, int ncand, int arpack);
void cea_eig_work_free(cea_eig_work *w);

/* Solve pb. On return lre[], lim[] (pb->ncand) hold the kept eigenvalues sorted by frequency,
 * Q (pb->ncand x 2 n: re then im part of each q) their vectors, *nc how many, *resid the largest
 * backward error of the kept pairs; lu (n x n) is scratch for the ARPACK path. Returns a tvds
 * status with *info the LAPACK / ARPACK detail (-1: singular M for the standard form). */
int cea_eig_solve(cea_eig_work *w, const cea_eig_problem *pb, double *lu, double *lre, double *lim,
                  double *Q, int *nc, double *resid, cea_eig_stats *st, int *info);

#endif
