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
    /* OLIVE_CAIRO_LIB: another library file (tests use a missing one). */
    const char *lib = getenv("OLIVE_CAIRO_LIB");
    if (!lib || !*lib) lib = "libcairo.so.2";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        ana_error("plot needs the cairo library, and %s cannot be loaded (on Debian: apt-get install libcairo2): %s",
                  lib, dlerror());
#define ANA_CAIRO_SYM(f)                                                                              \
    *(void **)&ana_cairo.p_##f = dlsym(h, #f);                                                        \
    if (!ana_cairo.p_##f) ana_error("%s has no function %s (cairo too old?): %s", lib, #f, dlerror());
    ANA_CAIRO_FUNCS(ANA_CAIRO_SYM)
#undef ANA_CAIRO_SYM
    loaded = 1;   /* the library stays loaded: cairo keeps static data */
}
#endif
