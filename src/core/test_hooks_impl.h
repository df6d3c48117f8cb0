/* test_hooks_impl.h — fault injection and counters for the test suites and the bench: internal
 * (hidden in libtvds.so and in the installed libtvds.a, not installed as a header). Each is a
 * single-threaded facility: set, run the code under test, reset. */
#ifndef TVDS_TEST_HOOKS_IMPL_H
#define TVDS_TEST_HOOKS_IMPL_H

/* Number of successful allocations so far (tvds_malloc, tvds_calloc, tvds_realloc). */
long tvds_alloc_count(void);
/* Make the allocation after n more successful ones fail (n < 0 disables injection). */
void tvds_alloc_fail_after(long n);
/* The next tvds_commit_end stops, as a killed process would, after n renames into place
 * (n < 0: never). */
void tvds_commit_fail_after(long nrenames);
/* Output data writes (CSV rows) may write nbytes more bytes, then fail with ENOSPC as on a full
 * disk (a write crossing the limit is cut there); nbytes < 0 removes the limit. */
void tvds_output_fail_after(long nbytes);

#endif
