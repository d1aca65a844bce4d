/* Allocation that dies naming what it was for, and a parallel copy. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void *olive_malloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) olive_die("out of memory allocating %zu bytes for %s", bytes, what);
    return p;
}

void *olive_calloc(size_t n, size_t size, const char *what)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) olive_die("out of memory allocating %zu x %zu bytes for %s", n, size, what);
    return p;
}

void *olive_malloc_huge(size_t bytes, const char *what)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < huge) return olive_malloc(bytes, what);
    void *p = NULL;
    const size_t rounded = (bytes + huge - 1) / huge * huge;
    if (posix_memalign(&p, huge, rounded) != 0 || !p) olive_die("out of memory allocating %zu bytes for %s", bytes, what);
    (void)madvise(p, rounded, MADV_HUGEPAGE);   /* advice: refused, it is an ordinary array */
    return p;
}

void *olive_realloc(void *old, size_t bytes, const char *what)
{
    void *p = realloc(old, bytes ? bytes : 1);
    if (!p) olive_die("out of memory allocating %zu bytes for %s", bytes, what);
    return p;
}

void olive_memcpy_parallel(void *dst, const void *src, size_t bytes)
{
    const size_t piece = (size_t)1 << 18;
    const int64_t npieces = (int64_t)((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < npieces; k++) {
        size_t off = (size_t)k * piece, len = bytes - off < piece ? bytes - off : piece;
        memcpy((char *)dst + off, (const char *)src + off, len);
    }
}
