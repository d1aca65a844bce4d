/* The tokenizer of the text formats (edges, matrix): one character at a
 * time from a FILE (getc_unlocked), so a line of any length streams through
 * a fixed buffer of GC_FIELD_MAX bytes; and strict number parsing. */
#include "import.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void gc_lex_init(gc_lexer *lx, FILE *f, const char *name)
{
    memset(lx, 0, sizeof *lx);
    lx->f = f;
    lx->name = name;
    lx->line = lx->next_line = 1;
}

static int is_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* End of a line (newline or end of input) reached at character c. */
static int end_of_line(gc_lexer *lx, int c, char *err, size_t errlen)
{
    if (lx->comma) {
        snprintf(err, errlen, "%s: line %lld: empty field after ','", lx->name, (long long)lx->next_line);
        return GC_TOK_ERROR;
    }
    if (c == EOF) lx->at_eof = 1;
    int had = lx->fields;
    if (had) lx->line = lx->next_line;
    if (c == '\n') lx->next_line++;
    lx->fields = 0;
    if (had) return GC_TOK_EOL;
    return c == EOF ? GC_TOK_EOF : -1;   /* -1: a blank line, go on */
}

int gc_lex_next(gc_lexer *lx, char *buf, size_t *len, char *err, size_t errlen)
{
    if (lx->at_eof) return GC_TOK_EOF;
    for (;;) {
        int c = getc_unlocked(lx->f);
        if (c == '#') {
            do c = getc_unlocked(lx->f); while (c != '\n' && c != EOF);
        }
        if (c == '\n' || c == EOF) {
            if (c == EOF && ferror(lx->f)) {
                snprintf(err, errlen, "%s: line %lld: read error", lx->name, (long long)lx->next_line);
                return GC_TOK_ERROR;
            }
            int t = end_of_line(lx, c, err, errlen);
            if (t >= 0) return t;
            continue;
        }
        if (is_space(c)) continue;
        if (c == ',') {
            if (lx->fields == 0 || lx->comma) {
                snprintf(err, errlen, "%s: line %lld: empty field before ','", lx->name, (long long)lx->next_line);
                return GC_TOK_ERROR;
            }
            lx->comma = 1;
            continue;
        }
        size_t n = 0;
        while (c != EOF && c != '\n' && c != ',' && c != '#' && !is_space(c)) {
            if (n + 1 >= GC_FIELD_MAX) {
                buf[n] = 0;
                char show[64];
                snprintf(err, errlen, "%s: line %lld: field '%s...' is too long (over %d characters)", lx->name,
                         (long long)lx->next_line, gc_field_show(buf, n, show), GC_FIELD_MAX - 1);
                return GC_TOK_ERROR;
            }
            buf[n++] = (char)c;
            c = getc_unlocked(lx->f);
        }
        buf[n] = 0;
        if (c != EOF) ungetc(c, lx->f);
        *len = n;
        lx->line = lx->next_line;
        lx->fields++;
        lx->comma = 0;
        return GC_TOK_FIELD;
    }
}

const char *gc_field_show(const char *buf, size_t len, char out[64])
{
    size_t n = 0;
    for (size_t i = 0; i < len && n < 40; i++) {
        unsigned char c = (unsigned char)buf[i];
        out[n++] = c >= 32 && c < 127 ? (char)c : '?';
    }
    if (len > 40) { out[n++] = '.'; out[n++] = '.'; out[n++] = '.'; }
    out[n] = 0;
    return out;
}

int gc_parse_id(const char *buf, size_t len, int64_t *id, char *err, size_t errlen)
{
    char show[64];
    size_t i = 0;
    int neg = len > 1 && buf[0] == '-';
    if (neg || (len > 1 && buf[0] == '+')) i = 1;
    if (i == len) goto bad;
    int64_t v = 0;
    for (; i < len; i++) {
        if (buf[i] < '0' || buf[i] > '9') goto bad;
        if (v <= (int64_t)GC_IMPORT_MAX_ID) v = v * 10 + (buf[i] - '0');
    }
    if (neg) {
        snprintf(err, errlen, "cell id %s is negative", gc_field_show(buf, len, show));
        return -1;
    }
    if (v > GC_IMPORT_MAX_ID) {
        snprintf(err, errlen, "cell id %s is too large (at most %d)", gc_field_show(buf, len, show), GC_IMPORT_MAX_ID);
        return -1;
    }
    *id = v;
    return 0;
bad:
    snprintf(err, errlen, "'%s' is not a cell id (a non-negative integer)", gc_field_show(buf, len, show));
    return -1;
}

int gc_parse_w(const char *buf, size_t len, double *w, char *err, size_t errlen)
{
    char show[64], *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (len == 0 || end != buf + len || (buf[0] != '+' && buf[0] != '-' && buf[0] != '.' && (buf[0] < '0' || buf[0] > '9'))) {
        snprintf(err, errlen, "'%s' is not a number", gc_field_show(buf, len, show));
        return -1;
    }
    /* strtod also reads "inf", "nan" and hexadecimal; the first-character
     * test above keeps letters out except after a sign: */
    if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1)) {
        snprintf(err, errlen, "conductance %s is not finite", gc_field_show(buf, len, show));
        return -1;
    }
    if (v < 0) {
        snprintf(err, errlen, "conductance %s is negative", gc_field_show(buf, len, show));
        return -1;
    }
    *w = v == 0 ? 0.0 : v;   /* -0 is 0 */
    return 0;
}
