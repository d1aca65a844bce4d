/* plugin_link_check MODEL.fatbin OUT_PREFIX: the load-time link of
 * olive-simulate's plugin kernels with a model's GPU image
 * (spk_cuda_link.h), run where nvcc is but no GPU is (nvJitLink needs
 * none), for tests/test_nestml_build.sh:
 *   OUT_PREFIX.both.cubin    the model linked with olive's kernels (sm_90);
 *   OUT_PREFIX.model.cubin   the model's image linked alone: what a model
 *                            carries (the test finds no kernel of olive's in it);
 *   olive's kernels alone are refused, the linker naming the missing cell
 *   function (what an image without plugin_cell.h's _v1 functions gets).
 * Exit 0 when all three went as said. */
#include "spk_cuda_link.h"
#include "spk_plugin_kernels.fatbin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put(const char *prefix, const char *what, const void *data, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%s.cubin", prefix, what);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "plugin_link_check: cannot write %s\n", path);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: plugin_link_check MODEL.fatbin OUT_PREFIX\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (!f || n <= 0 || fseek(f, 0, SEEK_SET)) {
        fprintf(stderr, "plugin_link_check: %s: cannot read it\n", argv[1]);
        return 1;
    }
    void *model = malloc((size_t)n);
    if (!model || fread(model, 1, (size_t)n, f) != (size_t)n) return 1;
    fclose(f);
    const spk_link_input kernels = {spk_plugin_kernels_ltoir, sizeof spk_plugin_kernels_ltoir, "olive's plugin kernels"};
    const spk_link_input cells = {model, (size_t)n, argv[1]};
    const spk_link_input both[] = {kernels, cells};
    char why[8192];
    size_t size;
    void *image = spk_cuda_link(90, both, 2, nullptr, &size, why, sizeof why);
    if (!image) {
        fprintf(stderr, "plugin_link_check: the model and olive's kernels did not link: %s\n", why);
        return 1;
    }
    if (!put(argv[2], "both", image, size)) return 1;
    free(image);
    image = spk_cuda_link(90, &cells, 1, nullptr, &size, why, sizeof why);
    if (!image) {
        fprintf(stderr, "plugin_link_check: the model alone did not link: %s\n", why);
        return 1;
    }
    if (!put(argv[2], "model", image, size)) return 1;
    free(image);
    image = spk_cuda_link(90, &kernels, 1, nullptr, &size, why, sizeof why);
    if (image || !strstr(why, "olive_cell_")) {
        fprintf(stderr, "plugin_link_check: olive's kernels alone %s\n", image ? "linked" : why);
        return 1;
    }
    printf("refused without a model: %s\n", why);
    return 0;
}
