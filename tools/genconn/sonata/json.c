/* JSON into a tree of gc_json values (see json.h): json-c parses, this file
 * copies its values into the tree and refuses those olive cannot hold. */
#include "json.h"
#include "util.h"
#include <errno.h>
#include <json_object.h>
#include <json_tokener.h>
#include <linkhash.h>   /* json_object_object_foreach */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64
#define MAX_BYTES (64 << 20)
/* Integers beyond 2^53 would not be exact in the tree's double. */
#define MAX_EXACT 9007199254740992.0

/* Where a value sits, for messages: "networks.nodes[0].nodes_file". */
typedef struct {
    const char *path;
    char at[256];
    size_t len;
} where;

static const char *where_name(const where *w)
{
    return w->len ? w->at : "the top-level value";
}

/* Appends ".key" or "[i]" (truncated when too long); the old length, to restore. */
static size_t where_push(where *w, const char *key, int i)
{
    size_t old = w->len;
    int n = key ? snprintf(w->at + old, sizeof w->at - old, "%s%s", old ? "." : "", key)
                : snprintf(w->at + old, sizeof w->at - old, "[%d]", i);
    w->len = n < 0 ? old : old + (size_t)n < sizeof w->at ? old + (size_t)n : sizeof w->at - 1;
    return old;
}

static void convert(where *w, struct json_object *o, gc_json *v);

static void convert_item(where *w, struct json_object *o, gc_json *v, const char *key, int i)
{
    size_t old = where_push(w, key, i);
    convert(w, o, v);
    w->len = old;
    w->at[old] = 0;
}

static double number(const where *w, struct json_object *o)
{
    double d = json_object_get_double(o);
    if (!isfinite(d)) olive_die("%s: %s: not valid JSON: %s is not a finite number", w->path, where_name(w), json_object_to_json_string(o));
    if (json_object_get_type(o) == json_type_int && fabs(d) > MAX_EXACT)
        olive_die("%s: %s: an integer beyond 2^53, which a double does not hold exactly", w->path, where_name(w));
    return d;
}

static char *copy(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(olive_malloc(n, "JSON"), s, n);
}

static void convert(where *w, struct json_object *o, gc_json *v)
{
    memset(v, 0, sizeof *v);
    switch (json_object_get_type(o)) {
    case json_type_null: v->kind = GC_JSON_NULL; break;
    case json_type_boolean: v->kind = GC_JSON_BOOL; v->num = json_object_get_boolean(o); break;
    case json_type_int:
    case json_type_double: v->kind = GC_JSON_NUM; v->num = number(w, o); break;
    case json_type_string:
        v->kind = GC_JSON_STR;
        v->str = copy(json_object_get_string(o));
        if (strlen(v->str) != (size_t)json_object_get_string_len(o)) olive_die("%s: %s: \\u0000 in a string", w->path, where_name(w));
        break;
    case json_type_array:
        v->kind = GC_JSON_ARR;
        v->n = (int)json_object_array_length(o);
        v->item = olive_calloc((size_t)v->n + 1, sizeof *v->item, "JSON");
        for (int i = 0; i < v->n; i++) convert_item(w, json_object_array_get_idx(o, (size_t)i), &v->item[i], NULL, i);
        break;
    case json_type_object: {
        v->kind = GC_JSON_OBJ;
        v->item = olive_calloc((size_t)json_object_object_length(o) + 1, sizeof *v->item, "JSON");
        v->key = olive_calloc((size_t)json_object_object_length(o) + 1, sizeof *v->key, "JSON");
        json_object_object_foreach(o, key, val) {
            v->key[v->n] = copy(key);
            convert_item(w, val, &v->item[v->n++], key, 0);
        }
        break;
    }
    }
}

static int line_at(const char *text, size_t at)
{
    int line = 1;
    for (size_t i = 0; i < at && text[i]; i++) line += text[i] == '\n';
    return line;
}

/* A key given twice in one object, which json-c (as most parsers) takes
 * silently, the last winning: refused, naming the key and both lines. The
 * text is valid JSON here (json-c read it), so a light scan does: strings,
 * braces, brackets and commas. Each object's keys are sorted when it closes
 * (n log n: a hostile object of a million keys costs no n^2). */
typedef struct { const char *s; size_t len; int line; } json_key;
typedef struct { int is_obj, expect_key; json_key *keys; size_t n, cap; } json_frame;

static int key_cmp(const void *a, const void *b)
{
    const json_key *x = a, *y = b;
    const size_t n = x->len < y->len ? x->len : y->len;
    const int c = memcmp(x->s, y->s, n);
    return c ? c : x->len < y->len ? -1 : x->len > y->len ? 1 : x->line - y->line;
}

/* 0, or 1 with msg set where object f holds a key twice; f's keys freed. */
static int check_keys(const char *path, json_frame *f, char *msg, size_t n)
{
    int dup = 0;
    if (f->n > 1) qsort(f->keys, f->n, sizeof *f->keys, key_cmp);
    for (size_t k = 1; k < f->n && !dup; k++)
        if (f->keys[k].len == f->keys[k - 1].len && !memcmp(f->keys[k].s, f->keys[k - 1].s, f->keys[k].len)) {
            snprintf(msg, n, "%s: line %d: key \"%.*s\" is given twice in one object (also at line %d): which one "
                     "is meant is unclear", path, f->keys[k].line, (int)(f->keys[k].len < 200 ? f->keys[k].len : 200),
                     f->keys[k].s, f->keys[k - 1].line);
            dup = 1;
        }
    free(f->keys);
    memset(f, 0, sizeof *f);
    return dup;
}

static void refuse_duplicate_keys(const char *path, const char *text)
{
    json_frame *st = olive_calloc(MAX_DEPTH + 2, sizeof *st, "JSON");
    int depth = -1, line = 1, dup = 0;
    char msg[512];
    for (const char *c = text; *c && !dup; c++) {
        if (*c == '\n') line++;
        else if (*c == '{' || *c == '[') {
            if (++depth > MAX_DEPTH) break;   /* (json-c refused deeper) */
            st[depth].is_obj = *c == '{';
            st[depth].expect_key = *c == '{';
        } else if ((*c == '}' || *c == ']') && depth >= 0) {
            dup = check_keys(path, &st[depth--], msg, sizeof msg);
        } else if (*c == ',' && depth >= 0 && st[depth].is_obj) {
            st[depth].expect_key = 1;
        } else if (*c == '"') {
            const char *s = ++c;
            while (*c && *c != '"') c += *c == '\\' && c[1] ? 2 : 1;
            if (depth >= 0 && st[depth].is_obj && st[depth].expect_key) {
                json_frame *f = &st[depth];
                if (f->n == f->cap) {
                    f->cap = f->cap ? 2 * f->cap : 8;
                    f->keys = olive_realloc(f->keys, f->cap * sizeof *f->keys, "JSON");
                }
                f->keys[f->n++] = (json_key){s, (size_t)(c - s), line};
                f->expect_key = 0;
            }
            if (!*c) break;
        }
    }
    for (; depth >= 0; depth--) free(st[depth].keys);
    free(st);
    if (dup) olive_die("%s", msg);
}

gc_json *gc_json_parse(const char *path, const char *text)
{
    struct json_tokener *tok = json_tokener_new_ex(MAX_DEPTH);
    if (!tok) olive_die("out of memory (JSON)");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    /* The terminating NUL is passed too: it ends a top-level number or word. */
    size_t len = strlen(text);
    if (len >= MAX_BYTES) olive_die("%s: larger than %d MiB: not a config file olive reads", path, MAX_BYTES >> 20);
    struct json_object *o = json_tokener_parse_ex(tok, text, (int)len + 1);
    enum json_tokener_error e = json_tokener_get_error(tok);
    if (e != json_tokener_success)   /* o is NULL for a JSON null, too */
        olive_die("%s: line %d: not valid JSON: %s", path, line_at(text, json_tokener_get_parse_end(tok)),
                  e == json_tokener_error_parse_eof ? "the text ends before the value does" : json_tokener_error_desc(e));
    json_tokener_free(tok);
    refuse_duplicate_keys(path, text);
    where w = {.path = path};
    gc_json *v = olive_malloc(sizeof *v, "JSON");
    convert(&w, o, v);
    json_object_put(o);
    return v;
}

gc_json *gc_json_read(const char *path)
{
    olive_check_regular_file(path);
    FILE *f = fopen(path, "rb");
    if (!f) olive_die("%s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *text = olive_malloc(cap, "JSON");
    for (size_t got; (got = fread(text + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n > MAX_BYTES) olive_die("%s: larger than %d MiB: not a config file olive reads", path, MAX_BYTES >> 20);
        if (cap - n < 2) text = olive_realloc(text, cap *= 2, "JSON");
    }
    if (ferror(f)) olive_die("%s: read error", path);
    fclose(f);
    text[n] = 0;
    if (strlen(text) != n) olive_die("%s: line %d: not valid JSON: a NUL byte", path, line_at(text, n));
    gc_json *v = gc_json_parse(path, text);
    free(text);
    return v;
}

static void free_items(gc_json *v)
{
    for (int i = 0; i < v->n; i++) {
        free_items(&v->item[i]);
        if (v->key) free(v->key[i]);
    }
    free(v->item);
    free(v->key);
    free(v->str);
}

void gc_json_free(gc_json *v)
{
    if (!v) return;
    free_items(v);
    free(v);
}

const gc_json *gc_json_get(const gc_json *o, const char *key)
{
    if (!o || o->kind != GC_JSON_OBJ) return NULL;
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->key[i], key)) return &o->item[i];
    return NULL;
}

const char *gc_json_kind_name(gc_json_kind k)
{
    static const char *const names[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
    return names[k];
}
