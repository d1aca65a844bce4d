/* Device-code linking at load time (spk_cuda_link.h): CUDA's nvJitLink, the
 * toolkit's own linker, opened when a run first needs it, so that
 * olive-simulate starts, and runs every built-in model, where the library
 * is missing. It is looked for where the system's loader looks
 * (LD_LIBRARY_PATH, ld.so.cache), then in the CUDA toolkit olive was built
 * with (OLIVE_CUDA_LIBDIR): places the user or the system chose, never one
 * an input names. */
#include "spk_cuda_link.h"
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !__has_include(<nvJitLink.h>)
/* A CUDA toolkit before 12 has no nvJitLink: olive builds, its built-in
 * models run on the GPU, and a plugin model is refused there by name. */
int spk_cuda_linker(char *why, size_t whylen)
{
    snprintf(why, whylen, "this olive was built with CUDA %d.%d, which has no nvJitLink (a model's GPU image is "
             "linked into olive's kernels with CUDA 12's or later's): build olive with CUDA 12 or later",
             CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    return 0;
}

void *spk_cuda_link(int sm, const spk_link_input *in, int nin, const char *const *used, size_t *size, char *why,
                    size_t whylen)
{
    (void)sm, (void)in, (void)nin, (void)used, (void)size;
    spk_cuda_linker(why, whylen);
    return nullptr;
}
#else
#include <nvJitLink.h>

#ifndef OLIVE_CUDA_LIBDIR
#define OLIVE_CUDA_LIBDIR "/usr/local/cuda/lib64"
#endif

/* The header's functions are inline wrappers of versioned entry points
 * (__nvJitLinkCreate_13_0 for CUDA 13.0): those are what dlsym finds. */
static const int JL_MAJOR = CUDA_VERSION / 1000, JL_MINOR = CUDA_VERSION % 1000 / 10;

static struct {
    int tried;
    void *lib;
    char why[1024];
    char missing[96];   /* an entry point its library lacks */
    nvJitLinkResult (*create)(nvJitLinkHandle *, uint32_t, const char *const *);
    nvJitLinkResult (*destroy)(nvJitLinkHandle *);
    nvJitLinkResult (*add)(nvJitLinkHandle, nvJitLinkInputType, const void *, size_t, const char *);
    nvJitLinkResult (*complete)(nvJitLinkHandle);
    nvJitLinkResult (*cubin_size)(nvJitLinkHandle, size_t *);
    nvJitLinkResult (*cubin)(nvJitLinkHandle, void *);
    nvJitLinkResult (*log_size)(nvJitLinkHandle, size_t *);
    nvJitLinkResult (*log)(nvJitLinkHandle, char *);
} jl;

static void *entry(const char *f)
{
    char name[96];
    snprintf(name, sizeof name, "__nvJitLink%s_%d_%d", f, JL_MAJOR, JL_MINOR);
    void *p = dlsym(jl.lib, name);
    if (!p) {   /* (a library of a later minor release keeps the release's first names) */
        snprintf(name, sizeof name, "__nvJitLink%s_%d_0", f, JL_MAJOR);
        p = dlsym(jl.lib, name);
    }
    if (!p && !jl.missing[0]) snprintf(jl.missing, sizeof jl.missing, "%s", name);
    return p;
}

template <typename F> static void bind(F &fn, const char *f)
{
    void *p = entry(f);
    memcpy(&fn, &p, sizeof fn);
}

static int open_jitlink(void)
{
    if (jl.tried) return jl.lib != nullptr;
    jl.tried = 1;
    char soname[64], path[400];
    snprintf(soname, sizeof soname, "libnvJitLink.so.%d", JL_MAJOR);
    snprintf(path, sizeof path, "%.300s/%s", OLIVE_CUDA_LIBDIR, soname);
    jl.lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!jl.lib) jl.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!jl.lib) {
        snprintf(jl.why, sizeof jl.why,
                 "CUDA's device linker %s is found neither on the library path nor as %s (it comes with the CUDA "
                 "toolkit %d.x, or pip's nvidia-nvjitlink: put its folder on LD_LIBRARY_PATH)",
                 soname, path, JL_MAJOR);
        return 0;
    }
    bind(jl.create, "Create");
    bind(jl.destroy, "Destroy");
    bind(jl.add, "AddData");
    bind(jl.complete, "Complete");
    bind(jl.cubin_size, "GetLinkedCubinSize");
    bind(jl.cubin, "GetLinkedCubin");
    bind(jl.log_size, "GetErrorLogSize");
    bind(jl.log, "GetErrorLog");
    if (jl.missing[0]) {
        snprintf(jl.why, sizeof jl.why, "%s has no %s (another CUDA release than olive's, %d.%d?)", soname, jl.missing,
                 JL_MAJOR, JL_MINOR);
        dlclose(jl.lib);
        jl.lib = nullptr;
        return 0;
    }
    return 1;
}

int spk_cuda_linker(char *why, size_t whylen)
{
    if (open_jitlink()) return 1;
    snprintf(why, whylen, "%s", jl.why);
    return 0;
}

/* The linker's own words on a failure, after what. */
static void say_log(nvJitLinkHandle h, const char *what, char *why, size_t whylen)
{
    size_t n = 0;
    char *log = nullptr;
    if (jl.log_size(h, &n) == NVJITLINK_SUCCESS && n > 1 && (log = (char *)malloc(n)) &&
        jl.log(h, log) == NVJITLINK_SUCCESS) {
        for (char *c = log; *c; c++)
            if (*c == '\n') *c = ' ';
        snprintf(why, whylen, "%s: %s", what, log);
    } else
        snprintf(why, whylen, "%s", what);
    free(log);
}

void *spk_cuda_link(int sm, const spk_link_input *in, int nin, const char *const *used, size_t *size, char *why,
                    size_t whylen)
{
    if (!open_jitlink()) {
        snprintf(why, whylen, "%s", jl.why);
        return nullptr;
    }
    enum { MAX_USED = 16 };
    char arch[32], keep[MAX_USED][96];
    snprintf(arch, sizeof arch, "-arch=sm_%d", sm);
    /* -fma=0: no multiply-add contracted at link time either, as every
     * image of olive is compiled (-fmad=false): the CPU engine's bits */
    const char *opts[4 + MAX_USED] = {arch, "-lto", "-O3", "-fma=0"};
    uint32_t nopt = 4;
    for (int i = 0; used && used[i] && i < MAX_USED; i++) {   /* (the others are not compiled) */
        snprintf(keep[i], sizeof keep[i], "-kernels-used=%s", used[i]);
        opts[nopt++] = keep[i];
    }
    nvJitLinkHandle h;
    nvJitLinkResult r = jl.create(&h, nopt, opts);
    if (r != NVJITLINK_SUCCESS) {
        snprintf(why, whylen, "nvJitLink refused %s (error %d)", arch, (int)r);
        return nullptr;
    }
    void *cubin = nullptr;
    char what[256];
    for (int i = 0; i < nin && !cubin; i++) {
        if (jl.add(h, NVJITLINK_INPUT_ANY, in[i].data, in[i].size, in[i].name) == NVJITLINK_SUCCESS) continue;
        snprintf(what, sizeof what, "nvJitLink cannot read %s", in[i].name);
        say_log(h, what, why, whylen);
        jl.destroy(&h);
        return nullptr;
    }
    if ((r = jl.complete(h)) != NVJITLINK_SUCCESS) {
        snprintf(what, sizeof what, "nvJitLink could not link them for sm_%d (error %d)", sm, (int)r);
        say_log(h, what, why, whylen);
    } else if (jl.cubin_size(h, size) == NVJITLINK_SUCCESS && (cubin = malloc(*size)) &&
               jl.cubin(h, cubin) != NVJITLINK_SUCCESS) {
        free(cubin);
        cubin = nullptr;
        snprintf(why, whylen, "nvJitLink gave no image");
    }
    jl.destroy(&h);
    return cubin;
}
#endif

int spk_cuda_link_load(const spk_link_input *in, int nin, const char *const *used, cudaLibrary_t *lib, int *sm,
                       double *secs, char *why, size_t whylen)
{
    int dev, major, minor;
    *sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        snprintf(why, whylen, "no CUDA device: %s", cudaGetErrorString(cudaGetLastError()));
        return SPK_LINK_LOAD_FAILED;
    }
    *sm = major * 10 + minor;
    if (!spk_cuda_linker(why, whylen)) return SPK_LINK_NO_LINKER;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t size = 0;
    void *image = spk_cuda_link(*sm, in, nin, used, &size, why, whylen);
    if (!image) return SPK_LINK_FAILED;
    const cudaError_t err = cudaLibraryLoadData(lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
    free(image);
    if (err != cudaSuccess) {
        snprintf(why, whylen, "%s", cudaGetErrorString(err));
        return SPK_LINK_LOAD_FAILED;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return 0;
}
