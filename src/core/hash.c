/* hash.c — open-addressing hash tables (linear probing, load factor <= 1/2) for the readers. */
#include <stdint.h>
#include <string.h>

#include "core/hash_impl.h"
#include "tvds/tvds.h"

static size_t pow2_at_least(size_t n)
{
    size_t c = 16;
    while (c < 2 * n + 2)
        c *= 2;
    return c;
}

static size_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (size_t)x;
}

int tvds_lmap_init(tvds_lmap *m, size_t n)
{
    memset(m, 0, sizeof *m);
    m->cap = pow2_at_least(n);
    m->key = tvds_malloc(m->cap * sizeof *m->key);
    m->val = tvds_malloc(m->cap * sizeof *m->val);
    if (!m->key || !m->val) {
        tvds_lmap_free(m);
        return TVDS_ERR_NOMEM;
    }
    for (size_t i = 0; i < m->cap; i++)
        m->key[i] = -1;
    return TVDS_OK;
}

void tvds_lmap_free(tvds_lmap *m)
{
    tvds_free(m->key);
    tvds_free(m->val);
    memset(m, 0, sizeof *m);
}

static size_t lslot(const long *key, size_t cap, long k)
{
    size_t i = mix((uint64_t)k) & (cap - 1);
    while (key[i] != -1 && key[i] != k)
        i = (i + 1) & (cap - 1);
    return i;
}

int tvds_lmap_get(const tvds_lmap *m, long key)
{
    if (!m->cap) return -1;
    size_t i = lslot(m->key, m->cap, key);
    return m->key[i] == key ? m->val[i] : -1;
}

static int lgrow(tvds_lmap *m)
{
    tvds_lmap g;
    if (tvds_lmap_init(&g, m->cap) != TVDS_OK) return TVDS_ERR_NOMEM;
    for (size_t i = 0; i < m->cap; i++)
        if (m->key[i] != -1) {
            size_t j = lslot(g.key, g.cap, m->key[i]);
            g.key[j] = m->key[i];
            g.val[j] = m->val[i];
        }
    g.n = m->n;
    tvds_lmap_free(m);
    *m = g;
    return TVDS_OK;
}

int tvds_lmap_put(tvds_lmap *m, long key, int val, int *old)
{
    if (2 * (m->n + 1) > m->cap && lgrow(m) != TVDS_OK) return TVDS_ERR_NOMEM;
    size_t i = lslot(m->key, m->cap, key);
    if (m->key[i] == key) {
        if (old) *old = m->val[i];
        return TVDS_OK;
    }
    m->key[i] = key;
    m->val[i] = val;
    m->n++;
    if (old) *old = -1;
    return TVDS_OK;
}

int tvds_smap_init(tvds_smap *m, size_t n)
{
    memset(m, 0, sizeof *m);
    m->cap = pow2_at_least(n);
    m->key = tvds_calloc(m->cap, sizeof *m->key);
    m->val = tvds_malloc(m->cap * sizeof *m->val);
    if (!m->key || !m->val) {
        tvds_smap_free(m);
        return TVDS_ERR_NOMEM;
    }
    return TVDS_OK;
}

void tvds_smap_free(tvds_smap *m)
{
    tvds_free((void *)m->key);
    tvds_free(m->val);
    memset(m, 0, sizeof *m);
}

static size_t shash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return mix(h);
}

static size_t sslot(const char **key, size_t cap, const char *s, size_t len)
{
    size_t i = shash(s, len) & (cap - 1);
    while (key[i] && !(strlen(key[i]) == len && memcmp(key[i], s, len) == 0))
        i = (i + 1) & (cap - 1);
    return i;
}

int tvds_smap_get(const tvds_smap *m, const char *s, size_t len)
{
    if (!m->cap) return -1;
    size_t i = sslot(m->key, m->cap, s, len);
    return m->key[i] ? m->val[i] : -1;
}

int tvds_smap_put(tvds_smap *m, const char *s, int val, int *old)
{
    if (2 * (m->n + 1) > m->cap) {
        tvds_smap g;
        if (tvds_smap_init(&g, m->cap) != TVDS_OK) return TVDS_ERR_NOMEM;
        for (size_t i = 0; i < m->cap; i++)
            if (m->key[i]) {
                size_t j = sslot(g.key, g.cap, m->key[i], strlen(m->key[i]));
                g.key[j] = m->key[i];
                g.val[j] = m->val[i];
            }
        g.n = m->n;
        tvds_smap_free(m);
        *m = g;
    }
    size_t len = strlen(s), i = sslot(m->key, m->cap, s, len);
    if (m->key[i]) {
        if (old) *old = m->val[i];
        return TVDS_OK;
    }
    m->key[i] = s;
    m->val[i] = val;
    m->n++;
    if (old) *old = -1;
    return TVDS_OK;
}
