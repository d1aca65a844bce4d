/* --import-format matrix: the InfOli text matrix, N lines of N numbers;
 * entry (i, j) != 0 is a junction into cell i from cell j with that
 * conductance. Fields as in the edges format (spaces, tabs or commas, '#'
 * comments, blank lines skipped). N comes from the first line; every other
 * line must have N entries, and there must be N lines. */
#include "import.h"
#include <string.h>

int gc_import_matrix(FILE *f, const char *name, gc_sink *s, int64_t *n_out)
{
    gc_lexer lx;
    gc_lex_init(&lx, f, name);
    char buf[GC_FIELD_MAX], fault[320];
    size_t len;
    int64_t n = 0, row = 0, j = 0;
    s->err[0] = 0;
    *n_out = 0;
    for (;;) {
        int t = gc_lex_next(&lx, buf, &len, s->err, sizeof s->err);
        if (t == GC_TOK_ERROR) return -1;
        if (t == GC_TOK_EOF) break;
        if (t == GC_TOK_FIELD) {
            if (row > 0 && row == n) {
                snprintf(fault, sizeof fault, "more than %lld rows (the matrix must be square: %lld columns)",
                         (long long)n, (long long)n);
                goto bad;
            }
            if (row > 0 && j == n) {
                snprintf(fault, sizeof fault, "row %lld has more than %lld entries (ragged matrix: the first row has %lld)",
                         (long long)row, (long long)n, (long long)n);
                goto bad;
            }
            if (row == 0 && j > GC_IMPORT_MAX_ID) {
                snprintf(fault, sizeof fault, "more than %d entries in a row", GC_IMPORT_MAX_ID + 1);
                goto bad;
            }
            if (row == 0 && s->cells > 0 && j >= s->cells) {
                snprintf(fault, sizeof fault, "the first row has more than --cells %lld entries", (long long)s->cells);
                goto bad;
            }
            double w;
            if (gc_parse_w(buf, len, &w, fault, sizeof fault) < 0) {
                char tmp[320];
                snprintf(tmp, sizeof tmp, "%s", fault);
                snprintf(fault, sizeof fault, "entry (%lld, %lld): %.200s", (long long)row, (long long)j, tmp);
                goto bad;
            }
            if (w != 0) {
                if (j == row && !s->drop_self) {
                    snprintf(fault, sizeof fault, "self junction: diagonal entry (%lld, %lld) = %s is not 0 "
                             "(--drop-self drops them)", (long long)row, (long long)j, buf);
                    goto bad;
                }
                if (j == row) { s->dropped_self++; j++; continue; }
                /* In the first row, j may reach beyond row 0 before n is known. */
                /* Line i is the sender, column j the receiver, as every
                 * original InfOli version reads cellConnections.txt (thesis
                 * sec. 4.4); --transpose reads line i as the receiver. */
                int32_t target = s->matrix_transpose ? (int32_t)row : (int32_t)j;
                int32_t source = s->matrix_transpose ? (int32_t)j : (int32_t)row;
                if (s->add(s, target, source, w, lx.line) != 0) {
                    snprintf(fault, sizeof fault, "%.300s", s->err[0] ? s->err : "junction refused");
                    goto bad;
                }
            }
            j++;
            continue;
        }
        /* end of a row */
        if (row == 0) {
            n = j;
            if (s->cells > 0 && n != s->cells) {
                snprintf(fault, sizeof fault, "the first row has %lld entries but --cells is %lld", (long long)n,
                         (long long)s->cells);
                goto bad;
            }
        } else if (j != n) {
            snprintf(fault, sizeof fault, "row %lld has %lld entries, expected %lld (ragged matrix)", (long long)row,
                     (long long)j, (long long)n);
            goto bad;
        }
        row++;
        j = 0;
    }
    if (row == 0) {
        snprintf(s->err, sizeof s->err, "%s: empty (no matrix rows)", name);
        return -1;
    }
    if (row != n) {
        snprintf(s->err, sizeof s->err, "%s: line %lld: the matrix is not square: %lld rows of %lld columns", name,
                 (long long)lx.line, (long long)row, (long long)n);
        return -1;
    }
    *n_out = n;
    return 0;
bad:
    snprintf(s->err, sizeof s->err, "%s: line %lld: %s", name, (long long)lx.line, fault);
    return -1;
}
