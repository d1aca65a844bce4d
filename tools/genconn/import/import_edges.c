/* --import-format edges: one junction per line, "source target [conductance]"
 * (the target receives from the source), fields separated by spaces, tabs or
 * commas, '#' comments. Streams: a fixed field buffer, no line buffer, so the
 * memory is that of the sink's junction list only. */
#include "import.h"
#include <string.h>

int gc_import_edges(FILE *f, const char *name, gc_sink *s)
{
    gc_lexer lx;
    gc_lex_init(&lx, f, name);
    char buf[GC_FIELD_MAX], fault[320];
    size_t len;
    int64_t id[2] = {0, 0}, junctions = 0;
    double w = 0;
    int nf = 0;
    s->err[0] = 0;
    for (;;) {
        int t = gc_lex_next(&lx, buf, &len, s->err, sizeof s->err);
        if (t == GC_TOK_ERROR) return -1;
        if (t == GC_TOK_EOF) break;
        if (t == GC_TOK_FIELD) {
            if (nf < 2) {
                if (gc_parse_id(buf, len, &id[nf], fault, sizeof fault) < 0) goto bad;
                if (s->cells > 0 && id[nf] >= s->cells) {
                    snprintf(fault, sizeof fault, "cell id %lld is out of range: --cells is %lld (ids 0..%lld)",
                             (long long)id[nf], (long long)s->cells, (long long)s->cells - 1);
                    goto bad;
                }
            } else if (nf == 2) {
                if (gc_parse_w(buf, len, &w, fault, sizeof fault) < 0) goto bad;
            } else {
                char show[64];
                snprintf(fault, sizeof fault, "extra field '%s' (expected: source target [conductance])",
                         gc_field_show(buf, len, show));
                goto bad;
            }
            nf++;
            continue;
        }
        /* end of a line */
        if (nf < 2) {
            snprintf(fault, sizeof fault, "missing field: only a source, no target (expected: source target [conductance])");
            goto bad;
        }
        if (id[0] == id[1] && !s->drop_self) {
            snprintf(fault, sizeof fault, "self junction (cell %lld to itself; --drop-self drops them)", (long long)id[0]);
            goto bad;
        }
        if (nf == 2) w = s->w_default;
        if (id[0] == id[1]) s->dropped_self++;
        else if (s->add(s, (int32_t)id[1], (int32_t)id[0], w, lx.line) != 0) {
            snprintf(fault, sizeof fault, "%.300s", s->err[0] ? s->err : "junction refused");
            goto bad;
        }
        junctions++;
        nf = 0;
    }
    if (junctions == 0) {
        snprintf(s->err, sizeof s->err, "%s: no junctions (the file is empty or holds only comments)", name);
        return -1;
    }
    return 0;
bad:
    snprintf(s->err, sizeof s->err, "%s: line %lld: %s", name, (long long)lx.line, fault);
    return -1;
}
