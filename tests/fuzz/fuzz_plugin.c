/* libFuzzer: plugin loading from network files (common/models/model_places.h).
 * The readers run as olive-simulate runs them, with plugins enabled, while a
 * library sits where the user did not choose it: in a directory nobody named
 * (planted/, with the hash file that would make it model "evil" of hash
 * 00aa), and in a directory of OLIVE_MODEL_PATH that others can write
 * (open/, the same). OLIVE_MODEL_PATH's other directory, trusted/, holds
 * evil.so with hash 00bb: an input naming that may load it (the user chose
 * trusted/; it is no plugin and is refused). Whatever the input (model names,
 * hashes, model_path attributes naming planted/), neither planted/evil.so nor
 * open/evil.so may ever be loaded: checked after every input with
 * dlopen(RTLD_NOLOAD). The libraries are copies of libm (any shared object
 * will do: only whether it was loaded is looked at). */
#include "fuzz_h5common.h"
#include "model_plugin.h"
#include "netfile.h"
#include "synfile.h"
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

static char root[128], planted[256], open_dir[256];

static void remove_dirs(void)   /* (atexit: the three directories and their files) */
{
    static const char *const sub[] = {"planted", "open", "trusted"}, *const files[] = {"evil.so", "evil.hash"};
    char p[512];
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 2; k++) {
            snprintf(p, sizeof p, "%s/%s/%s", root, sub[i], files[k]);
            unlink(p);
        }
        snprintf(p, sizeof p, "%s/%s", root, sub[i]);
        rmdir(p);
    }
    rmdir(root);
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    if (!in || !out) abort();
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) abort();
    fclose(in);
    if (fclose(out)) abort();
}

static void put(const char *dir, const char *hash, const char *lib)
{
    char path[512];
    if (mkdir(dir, 0755) && errno != EEXIST) abort();
    snprintf(path, sizeof path, "%s/evil.so", dir);
    copy_file(lib, path);
    snprintf(path, sizeof path, "%s/evil.hash", dir);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%s\n", hash) < 0 || fclose(f)) abort();
}

static void setup(void)
{
    Dl_info info;
    if (!dladdr((void *)&cos, &info) || !info.dli_fname) abort();   /* libm's file */
    char d[256];
    snprintf(root, sizeof root, "/tmp/olive-fuzz-plugin-%ld", (long)getpid());
    if (mkdir(root, 0700) && errno != EEXIST) abort();
    atexit(remove_dirs);
    snprintf(d, sizeof d, "%s/planted", root);
    put(d, "00aa", info.dli_fname);
    snprintf(planted, sizeof planted, "%s/evil.so", d);
    snprintf(d, sizeof d, "%s/open", root);
    put(d, "00aa", info.dli_fname);
    if (chmod(d, 0777)) abort();
    snprintf(open_dir, sizeof open_dir, "%s/evil.so", d);
    snprintf(d, sizeof d, "%s/trusted", root);
    put(d, "00bb", info.dli_fname);
    char mp[600];
    snprintf(mp, sizeof mp, "%s/open:%s/trusted", root, root);
    setenv("OLIVE_MODEL_PATH", mp, 1);
    setenv("HOME", root, 1);   /* no model cache there */
    unsetenv("OLIVE_MODEL_CACHE");
    unsetenv("XDG_CACHE_HOME");
    olive_plugins_enable();
}

static void never_loaded(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    if (h) {
        fprintf(stderr, "fuzz_plugin: %s was loaded\n", lib);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!planted[0]) setup();
    const char *path = fuzz_input_file("fuzz_plugin", data, size);
    if (!path) return 0;
    static olive_network hdr;
    static olive_populations pops;
    if (setjmp(fuzz_back) == 0) {
        olive_net_read_header(path, &hdr);
        const olive_cell_model *m;
        olive_pops_present(path, &m);
        olive_pops_read(path, hdr.count, &pops);
    }
    fuzz_close_everything();
    never_loaded(planted);
    never_loaded(open_dir);
    return 0;
}
