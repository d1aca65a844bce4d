/* A library an adversary plants (tests/test_model_trust.sh): its constructor
 * runs the moment anything loads it and leaves a marker file, PLANTED_MARKER
 * (a path fixed at build time), so a test can tell whether olive loaded it. */
#include <fcntl.h>
#include <unistd.h>

__attribute__((constructor)) static void planted_ran(void)
{
    int fd = open(PLANTED_MARKER, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) close(fd);
}

int planted_symbol = 1;
