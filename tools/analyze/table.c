/* Key/value tables: aligned plain text for people, `key,value` CSV for
 * programs. Rows may be text-only (no key) or CSV-only (no label). */
#include "analyze.h"
#include "util.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = olive_malloc(n, "table");
    memcpy(d, s, n);
    return d;
}

void ana_table_add(ana_table *t, const char *key, const char *label, const char *unit, const char *note,
                   const char *fmt, ...)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 32;
        t->rows = realloc(t->rows, (size_t)t->cap * sizeof *t->rows);
        if (!t->rows) olive_die("out of memory (table)");
    }
    char value[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    ana_row *r = &t->rows[t->n++];
    r->key = dup_or_null(key);
    r->label = dup_or_null(label);
    r->value = dup_or_null(value);
    r->unit = dup_or_null(unit && unit[0] && value[0] ? unit : NULL);
    r->note = dup_or_null(note && note[0] ? note : NULL);
}

void ana_table_print_text(const ana_table *t, FILE *out)
{
    int w = 0;
    for (int i = 0; i < t->n; i++) {
        int l = t->rows[i].label ? (int)strlen(t->rows[i].label) : 0;
        if (l > w) w = l;
    }
    for (int i = 0; i < t->n; i++) {
        const ana_row *r = &t->rows[i];
        if (!r->label) continue;
        fprintf(out, "%-*s  %s", w, r->label, r->value[0] ? r->value : "-");
        if (r->unit) fprintf(out, " %s", r->unit);
        if (r->note) fprintf(out, "  (%s)", r->note);
        fputc('\n', out);
    }
}

void ana_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) { fputs(s, out); return; }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void ana_table_print_csv(const ana_table *t, FILE *out, int header)
{
    if (header) fputs("key,value\n", out);
    for (int i = 0; i < t->n; i++) {
        if (!t->rows[i].key) continue;
        ana_csv_field(out, t->rows[i].key);
        fputc(',', out);
        ana_csv_field(out, t->rows[i].value);
        fputc('\n', out);
    }
}

void ana_table_free(ana_table *t)
{
    for (int i = 0; i < t->n; i++) {
        free(t->rows[i].key);
        free(t->rows[i].label);
        free(t->rows[i].value);
        free(t->rows[i].unit);
        free(t->rows[i].note);
    }
    free(t->rows);
    memset(t, 0, sizeof *t);
}
