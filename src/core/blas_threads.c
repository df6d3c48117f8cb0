/* blas_threads.c — see blas_threads.h. */
#include "blas_threads.h"

extern int openblas_get_num_threads(void);
extern void openblas_set_num_threads(int);

int tvds_blas_threads_hold(void)
{
    int n = openblas_get_num_threads();
    if (n > 1) openblas_set_num_threads(1);
    return n;
}

void tvds_blas_threads_restore(int held)
{
    if (held > 1) openblas_set_num_threads(held);
}
