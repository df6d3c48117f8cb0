/* blas_threads.h — hold OpenBLAS to one thread while tvds runs its own parallel workers;
 * internal, not part of the public API.
 *
 * OpenBLAS (the BLAS tvds links) starts threads of its own inside each OpenMP worker. When the
 * workers are the parallel axis (CEA positions, sweep points) the two kinds of thread
 * oversubscribe the cores, and idle BLAS threads spin in system time. Measured on 2 cores: the
 * CEA took 4x the wall time; a beam-on-beam sweep on 2 workers reached 70 % of ideal (98 % with
 * BLAS on one thread). */
#ifndef TVDS_BLAS_THREADS_H
#define TVDS_BLAS_THREADS_H

/* Set BLAS to one thread; returns the count to give back to tvds_blas_threads_restore. */
int tvds_blas_threads_hold(void);
void tvds_blas_threads_restore(int held);

#endif
