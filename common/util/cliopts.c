/* Command-line conventions shared by the programs: "did you mean" for a
 * mistyped name, and a pre-pass over argv against the program's option list
 * that refuses an unknown option and a non-repeatable option given twice. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Edit distance counting a swap of two neighbours as one edit ("rgj" for
 * "rjg"), as Damerau's optimal string alignment does. */
static int edit_distance(const char *a, const char *b)
{
    const size_t na = strlen(a), nb = strlen(b);
    if (na > 64 || nb > 64) return 99;
    int d[65][65];
    for (size_t i = 0; i <= na; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= nb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[na][nb];
}

static const char *strip_dashes(const char *s)
{
    while (*s == '-') s++;
    return s;
}

const char *olive_suggest(const char *word, const char *const *known, int n)
{
    const char *w = strip_dashes(word), *best = NULL;
    const size_t wl = strlen(w);
    /* two edits for a long word, one for a short one: "-x" is not "-o" mistyped */
    const int cap = wl >= 5 ? 2 : wl >= 3 ? 1 : 0;
    int best_d = cap + 1;
    for (int i = 0; i < n; i++) {
        if (!known[i]) continue;
        const char *k = strip_dashes(known[i]);
        int d = edit_distance(w, k);
        if (wl >= 3 && d > cap && !strncmp(k, w, wl)) d = cap;   /* a prefix: --recor for --record */
        if (d < best_d) { best_d = d; best = known[i]; }
    }
    return best;
}

const char *olive_did_you_mean(char *buf, size_t n, const char *word, const char *const *known, int nknown)
{
    const char *s = olive_suggest(word, known, nknown);
    if (s) snprintf(buf, n, " (did you mean '%s'?)", s);
    else if (n) buf[0] = 0;
    return buf;
}

int olive_parse_choice(const char *opt, const char *value, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(value, names[i])) return i;
    char list[256] = "", hint[96];
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
    olive_usage_error("%s: '%s' is not %s%s", opt, value, list, olive_did_you_mean(hint, sizeof hint, value, names, n));
}

/* The option of opts that the first len characters of argument a name; a
 * unique prefix of a long name when prefixes is set (getopt_long's rule). */
static const olive_opt *find_option(const char *a, size_t len, const olive_opt *opts, int n, int prefixes)
{
    const olive_opt *hit = NULL;
    int nhit = 0;
    for (int i = 0; i < n; i++) {
        const char *names[2] = {opts[i].name, opts[i].alias};
        for (int k = 0; k < 2; k++)
            if (names[k] && strlen(names[k]) == len && !strncmp(names[k], a, len)) return &opts[i];
        if (prefixes && len > 2 && a[1] == '-' && !strncmp(opts[i].name, a, len)) { hit = &opts[i]; nhit++; }
    }
    return nhit == 1 ? hit : NULL;
}

static void list_names(const olive_opt *opts, int n, const char **names, int *count)
{
    *count = 0;
    for (int i = 0; i < n; i++) {
        names[(*count)++] = opts[i].name;
        if (opts[i].alias) names[(*count)++] = opts[i].alias;
    }
}

int olive_check_options(int argc, char **argv, const olive_opt *opts, int n, int prefixes, char *msg, size_t msgsz)
{
    unsigned char *seen = olive_calloc((size_t)n + 1, 1, "options");
    const char **names = olive_malloc((size_t)(2 * n + 1) * sizeof *names, "options");
    int nnames, bad = 0;
    list_names(opts, n, names, &nnames);
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) break;                 /* the rest are operands */
        if (a[0] != '-' || !a[1]) continue;          /* an operand ("-" included) */
        const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
        const size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const olive_opt *o = find_option(a, len, opts, n, prefixes);
        if (!o) {
            char word[128], hint[160];
            snprintf(word, sizeof word, "%.*s", (int)(len < 100 ? len : 100), a);
            snprintf(msg, msgsz, "unknown option '%s'%s", word, olive_did_you_mean(hint, sizeof hint, word, names, nnames));
            bad = 1;
            break;
        }
        if (seen[o - opts]++ && !o->repeatable) {
            snprintf(msg, msgsz, "%.*s given twice (it is not repeatable; give it once)", (int)(len < 100 ? len : 100), a);
            bad = 1;
        }
        if (o->value == OLIVE_OPT_VALUE && !eq) i++;  /* its value, whatever it looks like ("-60:-50") */
    }
    free(names);
    free(seen);
    return bad;
}

void olive_check_options_or_die(int argc, char **argv, const olive_opt *opts, int n)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--list-options")) {
            /* for the tests (the list against --help) and shell completion */
            for (int k = 0; k < n; k++)
                printf("%s%s%s%s\n", opts[k].name, opts[k].alias ? " " : "", opts[k].alias ? opts[k].alias : "",
                       opts[k].repeatable ? " (repeatable)" : "");
            exit(0);
        }
    char msg[512];
    if (olive_check_options(argc, argv, opts, n, 0, msg, sizeof msg)) olive_usage_error("%s", msg);
}

void olive_print_option(const olive_opt *o, int col)
{
    if (!o->help) return;
    const char *arg = o->arg ? o->arg : "";
    /* (a value that follows the name itself: "--compress[=LEVEL]", "--help, --version") */
    const char *sep = !*arg || !strncmp(arg, "[=", 2) || *arg == '=' || *arg == ',' ? "" : " ";
    char left[256];
    snprintf(left, sizeof left, "  %s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name, sep, arg);
    const int len = (int)strlen(left);
    if (!*o->help) { printf("%s\n", left); return; }
    if (len + 1 < col) printf("%-*s", col, left);
    else if (len + 2 <= col + 6) printf("%s  ", left);   /* (a little past the column: on its line) */
    else printf("%s\n%*s", left, col, "");
    for (const char *p = o->help;;) {
        const char *e = strchr(p, '\n');
        printf("%.*s\n", e ? (int)(e - p) : (int)strlen(p), p);
        if (!e) break;
        p = e + 1;
        printf("%*s", col, "");
    }
}

void olive_print_options(const olive_opt *opts, int n, int col)
{
    for (int i = 0; i < n; i++) olive_print_option(&opts[i], col);
}

void olive_print_repeatable(const olive_opt *opts, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (opts[i].repeatable) printf("%s%s", k++ ? ", " : "Repeatable: ", opts[i].name);
    printf(k ? "; any other option given twice is refused.\n" : "No option may be given twice.\n");
}

int olive_take_option(int argc, char **argv, int *i, const olive_opt *opts, int n, const char **value)
{
    const char *a = argv[*i];
    *value = NULL;
    if (a[0] != '-' || !a[1]) return -1;
    const char *eq = strchr(a, '=');
    const size_t len = eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
    for (int k = 0; k < n; k++) {
        const olive_opt *o = &opts[k];
        const int named = strlen(o->name) == len && !strncmp(a, o->name, len);
        if (!named && !(o->alias && !strcmp(a, o->alias))) continue;
        if (o->value == OLIVE_OPT_OPTIONAL) {
            *value = named && eq ? eq + 1 : NULL;
        } else if (o->value == OLIVE_OPT_VALUE) {
            if (*i + 1 >= argc) olive_usage_error("%s needs a value", a);
            *value = argv[++*i];
        } else if (named && eq) {
            olive_usage_error("%s takes no value", o->name);
        }
        return k;
    }
    olive_usage_error("unknown option '%s'", a);
}
