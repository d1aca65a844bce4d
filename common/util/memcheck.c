/* Memory the machine has for olive: measured, or faked for tests. */
#include "memcheck.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes of memory available: MemAvailable (/proc/meminfo), lowered to the
 * cgroup's limit (SLURM confines jobs with cgroups) when it is smaller.
 * OLIVE_MEMAVAILABLE (bytes, or with a K/M/G/T suffix) replaces the
 * measurement, for tests. Returns -1 when unknown. */
double olive_available_memory(const char **source)
{
    const char *fake = getenv("OLIVE_MEMAVAILABLE");
    if (fake && *fake) {
        char *end;
        double v = strtod(fake, &end);
        double mul = 1;
        if (*end == 'K' || *end == 'k') mul = 1024.0, end++;
        else if (*end == 'M' || *end == 'm') mul = 1048576.0, end++;
        else if (*end == 'G' || *end == 'g') mul = 1073741824.0, end++;
        else if (*end == 'T' || *end == 't') mul = 1099511627776.0, end++;
        if (*end || !(v >= 0) || !isfinite(v)) olive_die("OLIVE_MEMAVAILABLE=%s: expected bytes, e.g. 2G", fake);
        *source = "OLIVE_MEMAVAILABLE";
        return v * mul;
    }
    double avail = -1;
    *source = "MemAvailable in /proc/meminfo";
    FILE *fp = fopen("/proc/meminfo", "r");
    if (fp) {
        char line[256];
        long long kb;
        while (fgets(line, sizeof line, fp))
            if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) { avail = (double)kb * 1024.0; break; }
        fclose(fp);
    }
    if (avail < 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        if (pages > 0 && size > 0) { avail = (double)pages * (double)size; *source = "sysconf(_SC_AVPHYS_PAGES)"; }
    }
    fp = fopen("/sys/fs/cgroup/memory.max", "r");
    if (fp) {
        char buf[64] = "";
        if (fgets(buf, sizeof buf, fp) && strncmp(buf, "max", 3)) {
            double max = strtod(buf, NULL), cur = 0;
            FILE *fc = fopen("/sys/fs/cgroup/memory.current", "r");
            if (fc) { if (fscanf(fc, "%lf", &cur) != 1) cur = 0; fclose(fc); }
            if (max > 0 && (avail < 0 || max - cur < avail)) {
                avail = max - cur > 0 ? max - cur : 0;
                *source = "the cgroup limit (/sys/fs/cgroup/memory.max)";
            }
        }
        fclose(fp);
    }
    return avail;
}

/* Bytes for messages: "1.5 GiB", "12 MiB", "800 KiB". */
const char *olive_fmt_bytes(char *buf, size_t n, double b)
{
    if (b >= 1073741824.0) snprintf(buf, n, "%.3g GiB", b / 1073741824.0);
    else if (b >= 1048576.0) snprintf(buf, n, "%.3g MiB", b / 1048576.0);
    else snprintf(buf, n, "%.3g KiB", b / 1024.0);
    return buf;
}

void olive_require_memory(const char *path, double need, const char *what)
{
    const char *source = "";
    double avail = olive_available_memory(&source);
    char b1[32], b2[32];
    olive_info("%s: predicted memory %s, available %s", path, olive_fmt_bytes(b1, sizeof b1, need),
               avail < 0 ? "unknown" : olive_fmt_bytes(b2, sizeof b2, avail));
    if (avail >= 0 && need > avail)
        olive_die("not enough memory: %s (%s) needs about %s, but only %s is available (%s)", path, what,
                  olive_fmt_bytes(b1, sizeof b1, need), olive_fmt_bytes(b2, sizeof b2, avail), source);
}
