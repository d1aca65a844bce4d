/* Loads libcairo at run time for olive-analyze plot (cairo_load.h says why). */
#ifndef ANA_NO_CAIRO
#define ANA_CAIRO_NO_RENAME
#include "cairo_load.h"
#include "analyze.h"
#include <dlfcn.h>
#include <stdlib.h>

struct ana_cairo_table ana_cairo;

void ana_cairo_load(void)
{
    static int loaded;
    if (loaded) return;
    /* OLIVE_CAIRO_LIB: another library name or path (a cairo elsewhere; the
     * tests name a missing one to see plot fail cleanly). */
    const char *lib = getenv("OLIVE_CAIRO_LIB");
    if (!lib || !*lib) lib = "libcairo.so.2";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        ana_error("plot: %s not found (apt-get install libcairo2): %s", lib, dlerror());
    /* Every symbol checked: a cairo older than the one built against names
     * the first function it lacks. */
#define ANA_CAIRO_SYM(f)                                                                         \
    dlerror();                                                                                   \
    *(void **)&ana_cairo.p_##f = dlsym(h, #f);                                                   \
    if (!ana_cairo.p_##f) {                                                                      \
        const char *e = dlerror();                                                               \
        ana_error("plot: %s has no function %s (cairo too old?): %s", lib, #f, e ? e : "NULL"); \
    }
    ANA_CAIRO_FUNCS(ANA_CAIRO_SYM)
#undef ANA_CAIRO_SYM
    loaded = 1;   /* the library stays loaded: cairo keeps static data */
}
#endif
