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
#endif
