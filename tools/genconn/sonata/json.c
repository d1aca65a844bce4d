/* JSON (RFC 8259) into a tree of gc_json values; see json.h. */
#include "json.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64
#define MAX_BYTES (64 << 20)

typedef struct {
    const char *path, *s;
    size_t at;
    int depth;
} parser;

static int line_of(const parser *p)
{
    int line = 1;
    for (size_t i = 0; i < p->at; i++) line += p->s[i] == '\n';
    return line;
}

static void fail(const parser *p, const char *what) __attribute__((noreturn));
static void fail(const parser *p, const char *what)
{
    olive_die("%s: line %d: not valid JSON: %s", p->path, line_of(p), what);
}

static void skip_space(parser *p)
{
    while (p->s[p->at] == ' ' || p->s[p->at] == '\t' || p->s[p->at] == '\n' || p->s[p->at] == '\r') p->at++;
}

static int hex4(parser *p)
{
    int v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p->s[p->at++];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) fail(p, "a \\u escape needs four hexadecimal digits");
        v = v * 16 + d;
    }
    return v;
}

/* The string at p (after its opening quote), UTF-8, NUL-terminated; a \u0000
 * is refused (C strings cannot hold it). */
static char *string(parser *p)
{
    size_t cap = 16, n = 0;
    char *out = olive_malloc(cap, "JSON");
    for (;;) {
        unsigned char c = (unsigned char)p->s[p->at++];
        if (c == 0) fail(p, "a string is not closed");
        if (c < 0x20) fail(p, "a control character in a string");
        if (c == '"') break;
        if (n + 5 > cap) out = olive_realloc(out, cap *= 2, "JSON");
        if (c != '\\') { out[n++] = (char)c; continue; }
        c = (unsigned char)p->s[p->at++];
        const char *esc = strchr("\"\\/bfnrt", c);
        if (esc && c) { out[n++] = "\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"]; continue; }
        if (c != 'u') fail(p, "an unknown escape in a string");
        long u = hex4(p);
        if (u >= 0xD800 && u < 0xDC00) {   /* a surrogate pair */
            if (p->s[p->at] != '\\' || p->s[p->at + 1] != 'u') fail(p, "a lone surrogate in a \\u escape");
            p->at += 2;
            long lo = hex4(p);
            if (lo < 0xDC00 || lo > 0xDFFF) fail(p, "a lone surrogate in a \\u escape");
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
        } else if (u >= 0xDC00 && u < 0xE000) fail(p, "a lone surrogate in a \\u escape");
        if (u == 0) fail(p, "\\u0000 in a string");
        if (u < 0x80) out[n++] = (char)u;
        else if (u < 0x800) { out[n++] = (char)(0xC0 | (u >> 6)); out[n++] = (char)(0x80 | (u & 63)); }
        else if (u < 0x10000) {
            out[n++] = (char)(0xE0 | (u >> 12)); out[n++] = (char)(0x80 | ((u >> 6) & 63)); out[n++] = (char)(0x80 | (u & 63));
        } else {
            out[n++] = (char)(0xF0 | (u >> 18)); out[n++] = (char)(0x80 | ((u >> 12) & 63));
            out[n++] = (char)(0x80 | ((u >> 6) & 63)); out[n++] = (char)(0x80 | (u & 63));
        }
    }
    out[n] = 0;
    return out;
}

static double number(parser *p)
{
    size_t i = p->at;
    if (p->s[i] == '-') i++;
    if (p->s[i] == '0') i++;
    else if (p->s[i] >= '1' && p->s[i] <= '9') while (p->s[i] >= '0' && p->s[i] <= '9') i++;
    else fail(p, "a number needs digits");
    if (p->s[i] == '.') {
        if (!(p->s[++i] >= '0' && p->s[i] <= '9')) fail(p, "a number needs digits after its '.'");
        while (p->s[i] >= '0' && p->s[i] <= '9') i++;
    }
    if (p->s[i] == 'e' || p->s[i] == 'E') {
        if (p->s[++i] == '+' || p->s[i] == '-') i++;
        if (!(p->s[i] >= '0' && p->s[i] <= '9')) fail(p, "a number needs digits in its exponent");
        while (p->s[i] >= '0' && p->s[i] <= '9') i++;
    }
    errno = 0;
    double v = strtod(p->s + p->at, NULL);
    if (!isfinite(v)) fail(p, "a number too large for a double");
    p->at = i;
    return v;
}

static void value(parser *p, gc_json *v);

/* An array or object (after its opening bracket) into v's items. */
static void items(parser *p, gc_json *v, char close)
{
    int cap = 0;
    if (++p->depth > MAX_DEPTH) fail(p, "nested more than 64 deep");
    skip_space(p);
    if (p->s[p->at] == close) { p->at++; p->depth--; return; }
    for (;;) {
        if (v->n == cap) {
            cap = cap ? 2 * cap : 4;
            v->item = olive_realloc(v->item, (size_t)cap * sizeof *v->item, "JSON");
            if (close == '}') v->key = olive_realloc(v->key, (size_t)cap * sizeof *v->key, "JSON");
        }
        skip_space(p);
        if (close == '}') {
            if (p->s[p->at++] != '"') fail(p, "an object's key must be a string");
            char *k = string(p);
            for (int i = 0; i < v->n; i++)
                if (!strcmp(v->key[i], k)) { p->at--; fail(p, "a key given twice in one object"); }
            v->key[v->n] = k;
            skip_space(p);
            if (p->s[p->at++] != ':') fail(p, "':' expected after an object's key");
        }
        value(p, &v->item[v->n++]);
        skip_space(p);
        char c = p->s[p->at++];
        if (c == close) break;
        if (c != ',') fail(p, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
    }
    p->depth--;
}

static void value(parser *p, gc_json *v)
{
    memset(v, 0, sizeof *v);
    skip_space(p);
    const char *s = p->s + p->at;
    if (*s == '{' || *s == '[') { v->kind = *s == '{' ? GC_JSON_OBJ : GC_JSON_ARR; p->at++; items(p, v, *s == '{' ? '}' : ']'); }
    else if (*s == '"') { v->kind = GC_JSON_STR; p->at++; v->str = string(p); }
    else if (!strncmp(s, "true", 4)) { v->kind = GC_JSON_BOOL; v->num = 1; p->at += 4; }
    else if (!strncmp(s, "false", 5)) { v->kind = GC_JSON_BOOL; p->at += 5; }
    else if (!strncmp(s, "null", 4)) { v->kind = GC_JSON_NULL; p->at += 4; }
    else if (*s == '-' || (*s >= '0' && *s <= '9')) { v->kind = GC_JSON_NUM; v->num = number(p); }
    else fail(p, *s ? "a value expected" : "the text ends where a value is expected");
}

gc_json *gc_json_parse(const char *path, const char *text)
{
    parser p = {path, text, 0, 0};
    gc_json *v = olive_malloc(sizeof *v, "JSON");
    value(&p, v);
    skip_space(&p);
    if (p.s[p.at]) fail(&p, "text after the value");
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
    if (strlen(text) != n) olive_die("%s: not valid JSON: a NUL byte", path);
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
