/* Histogram bins over a closed interval, by width or by count, with the
 * bin lookup agreeing exactly with the printed edges. */
#include "analyze.h"
#include <math.h>

void ana_bins_width(ana_bins *b, double lo, double hi, double width, int max)
{
    b->lo = lo;
    b->hi = hi;
    b->width = width;
    b->by_width = 1;
    double n = ceil((hi - lo) / width);
    /* A last bin shorter than a millionth of the width is rounding: drop it. */
    if (n > 1 && lo + (n - 1) * width >= hi - 1e-6 * width) n -= 1;
    if (n < 1) n = 1;
    if (n > max) ana_error("%.0f bins of %g ms over [%g, %g] ms is too many (at most %d): choose a wider bin", n, width, lo, hi, max);
    b->n = (int)n;
}

void ana_bins_count(ana_bins *b, double lo, double hi, int n)
{
    b->lo = lo;
    b->hi = hi;
    b->n = n;
    b->by_width = 0;
    b->width = n > 0 ? (hi - lo) / n : 0;
}

double ana_bins_edge(const ana_bins *b, int k)
{
    if (k >= b->n) return b->hi;
    if (k <= 0) return b->lo;
    return b->by_width ? b->lo + k * b->width : b->lo + (b->hi - b->lo) * k / b->n;
}

int ana_bins_find(const ana_bins *b, double x)
{
    if (b->n <= 0 || !(x >= b->lo && x <= b->hi)) return -1;
    double w = b->width > 0 ? b->width : 1;
    double f = floor((x - b->lo) / w);
    int k = f < 0 ? 0 : f >= b->n ? b->n - 1 : (int)f;
    while (k > 0 && x < ana_bins_edge(b, k)) k--;
    while (k < b->n - 1 && x >= ana_bins_edge(b, k + 1)) k++;
    return k;
}
