/* Memory checks before big allocations: a file that declares billions of
 * cells must be refused with a message, not end in the OOM killer. */
#ifndef OLIVE_MEMCHECK_H
#define OLIVE_MEMCHECK_H
#include <stddef.h>

/* Bytes available: MemAvailable (/proc/meminfo), lowered to the cgroup
 * limit when smaller; OLIVE_MEMAVAILABLE (bytes, or K/M/G/T suffix)
 * replaces the measurement, for tests. -1 when unknown; *source names where
 * the number came from. */
double olive_available_memory(const char **source);
/* "1.5 GiB", "12 MiB", "800 KiB" into buf. */
const char *olive_fmt_bytes(char *buf, size_t n, double bytes);
/* Dies ("not enough memory: PATH (WHAT) needs about ..., but only ... is
 * available") when need bytes exceed what is available. */
void olive_require_memory(const char *path, double need, const char *what);

#endif
