/* Ascending sort of a row's neighbour ids. Rows are short and random, so a
 * quicksort with median-of-three and an insertion-sort finish is fast and
 * inlines the comparison (qsort's callback costs several times more). The
 * recursion always descends into the smaller part, so depth is O(log n). */
#include "genconn.h"

static void insertion(int32_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        int32_t v = a[i];
        int64_t j = i;
        while (j > 0 && a[j - 1] > v) { a[j] = a[j - 1]; j--; }
        a[j] = v;
    }
}

static inline void swap(int32_t *a, int32_t *b) { int32_t t = *a; *a = *b; *b = t; }

void gc_sort_i32(int32_t *a, int64_t n)
{
    while (n > 24) {
        int64_t m = n / 2;
        if (a[m] < a[0]) swap(&a[m], &a[0]);
        if (a[n - 1] < a[0]) swap(&a[n - 1], &a[0]);
        if (a[n - 1] < a[m]) swap(&a[n - 1], &a[m]);
        int32_t pivot = a[m];
        int64_t i = 0, j = n - 1;
        for (;;) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i >= j) break;
            swap(&a[i], &a[j]);
            i++;
            j--;
        }
        /* [0, j] <= pivot <= [j+1, n) */
        int64_t left = j + 1, right = n - left;
        if (left < right) { gc_sort_i32(a, left); a += left; n = right; }
        else { gc_sort_i32(a + left, right); n = left; }
    }
    insertion(a, n);
}
