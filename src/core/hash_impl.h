/* hash_impl.h — open-addressing hash tables used by the input readers to stay linear in the
 * size of their input (node ids, names); internal, not part of the public API. */
#ifndef TVDS_HASH_IMPL_H
#define TVDS_HASH_IMPL_H

#include <stddef.h>

/* Map from a non-negative long key (a node id) to an int value. */
typedef struct tvds_lmap {
    long *key; /* cap slots; -1 marks an empty slot */
    int *val;  /* cap */
    size_t cap, n;
} tvds_lmap;

/* Start an empty map sized for about n keys; 0 or TVDS_ERR_NOMEM. */
int tvds_lmap_init(tvds_lmap *m, size_t n);
void tvds_lmap_free(tvds_lmap *m);
/* Slot of key: *val is the stored value, or -1 when key is absent. */
int tvds_lmap_get(const tvds_lmap *m, long key);
/* Insert key with val unless present; *old receives the stored value (-1 when inserted).
 * 0 or TVDS_ERR_NOMEM. */
int tvds_lmap_put(tvds_lmap *m, long key, int val, int *old);

/* Set of strings (pointers are borrowed: they must outlive the table) mapping to an int. */
typedef struct tvds_smap {
    const char **key; /* cap; NULL marks an empty slot */
    int *val;
    size_t cap, n;
} tvds_smap;

int tvds_smap_init(tvds_smap *m, size_t n);
void tvds_smap_free(tvds_smap *m);
/* Value of the len bytes at s (not NUL-terminated), or -1. */
int tvds_smap_get(const tvds_smap *m, const char *s, size_t len);
/* Insert the NUL-terminated s unless present; *old as for tvds_lmap_put. */
int tvds_smap_put(tvds_smap *m, const char *s, int val, int *old);

#endif
