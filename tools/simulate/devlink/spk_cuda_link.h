/* Device-code linking at load time: LTO-IR images (olive's plugin kernels,
 * a model's cell functions) linked, with link-time optimisation, into one
 * image for the GPU at hand (spk_cuda_link.cu, CUDA's nvJitLink). */
#ifndef SPK_CUDA_LINK_H
#define SPK_CUDA_LINK_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const void *data;   /* a fatbin holding LTO-IR, or LTO-IR */
    size_t size;
    const char *name;   /* for the linker's messages */
} spk_link_input;

/* 1 when the linker can be used, else 0 with why set (not found, or a CUDA
 * toolkit without it). */
int spk_cuda_linker(char *why, size_t whylen);
/* The linked image (a cubin for sm_<sm>, malloc'ed, *size bytes), or NULL
 * with why set (the linker missing, or its log). used: the kernels to keep
 * (NULL-terminated, at most 16; NULL: all), the others not compiled. */
void *spk_cuda_link(int sm, const spk_link_input *in, int nin, const char *const *used, size_t *size, char *why,
                    size_t whylen);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include <cuda_runtime.h>
enum { SPK_LINK_NO_LINKER = 1, SPK_LINK_FAILED, SPK_LINK_LOAD_FAILED };
/* in linked for the current device (used: as spk_cuda_link's) and loaded
 * into *lib: 0, or SPK_LINK_NO_LINKER (the linker missing), SPK_LINK_FAILED
 * (the linker's log) or SPK_LINK_LOAD_FAILED, with why set; *sm: the device's
 * compute capability (10 major + minor), *secs: how long it took. The one
 * load of a model's or a mechanism library's GPU image with olive's kernels. */
int spk_cuda_link_load(const spk_link_input *in, int nin, const char *const *used, cudaLibrary_t *lib, int *sm,
                       double *secs, char *why, size_t whylen);
#endif
#endif
