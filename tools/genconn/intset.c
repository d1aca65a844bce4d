/* A set of cell ids for rejecting duplicate partners while one row is drawn.
 * Linear probing in a power-of-two table kept at most half full; the
 * inserted keys are remembered so that clearing for the next row costs
 * O(row) rather than O(table). Ids are < 2^31, so UINT32_MAX marks empty. */
#include "genconn.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

#define EMPTY UINT32_MAX

void gc_intset_init(gc_intset *s, int64_t max_items)
{
    int64_t cap = 16;
    int lg = 4;
    while (cap < 2 * max_items) { cap *= 2; lg++; }
    s->cap = cap;
    s->shift = 32 - lg;
    s->slot = olive_malloc((size_t)cap * sizeof(uint32_t), "id set");
    memset(s->slot, 0xff, (size_t)cap * sizeof(uint32_t));
    s->keys = olive_malloc((size_t)(max_items + 1) * sizeof(uint32_t), "id set keys");
    s->n = 0;
}

/* Fibonacci hashing: the top bits of key * 2^32/phi spread consecutive ids
 * (lattice neighbours are near-consecutive) over the whole table. */
static inline uint32_t home(const gc_intset *s, uint32_t key)
{
    return (uint32_t)(key * 2654435769u) >> s->shift;
}

int gc_intset_insert(gc_intset *s, uint32_t key)
{
    uint32_t mask = (uint32_t)s->cap - 1;
    for (uint32_t h = home(s, key);; h = (h + 1) & mask) {
        if (s->slot[h] == key) return 0;
        if (s->slot[h] == EMPTY) {
            s->slot[h] = key;
            s->keys[s->n++] = key;
            return 1;
        }
    }
}

int gc_intset_contains(const gc_intset *s, uint32_t key)
{
    uint32_t mask = (uint32_t)s->cap - 1;
    for (uint32_t h = home(s, key);; h = (h + 1) & mask) {
        if (s->slot[h] == key) return 1;
        if (s->slot[h] == EMPTY) return 0;
    }
}

void gc_intset_clear(gc_intset *s)
{
    uint32_t mask = (uint32_t)s->cap - 1;
    /* Every key sits in the probe run starting at its home slot; wiping the
     * whole runs of the inserted keys leaves the table empty. */
    for (int64_t i = 0; i < s->n; i++)
        for (uint32_t h = home(s, s->keys[i]); s->slot[h] != EMPTY; h = (h + 1) & mask) s->slot[h] = EMPTY;
    s->n = 0;
}

void gc_intset_free(gc_intset *s)
{
    free(s->slot);
    free(s->keys);
    s->slot = s->keys = NULL;
}
