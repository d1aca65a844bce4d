/* A lone process starts MPI fast (no network probing). */
#include "util.h"
#include <link.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void olive_mpi_singleton_fast(void)
{
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK")) return;
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);   /* 0: a user's setting wins */
    /* A lone process talks to nobody: the ob1 messaging layer (self and
     * shared-memory transports) starts in ~20 ms, where probing UCX for
     * network devices costs ~0.25 s on every start (measured with a bare
     * MPI_Init on Debian 12's Open MPI 4.1). Pipelines and parameter sweeps
     * start olive thousands of times. */
    setenv("OMPI_MCA_pml", "ob1", 0);
    setenv("OMPI_MCA_osc", "^ucx", 0);
    /* and it needs no shared-memory transport either: one fewer thing to set
     * up (and to fail) when many start at once on a busy machine */
    setenv("OMPI_MCA_btl", "self", 0);
    /* Open MPI asks hwloc for the machine's topology, I/O devices included:
     * hwloc reads every PCI device's configuration space (in a virtual
     * machine each read traps to the hypervisor) and loads its XML, OpenCL,
     * GL and PCI plugins (libxml2, ICU, X11, ...). A lone process binds
     * nothing and talks to no device through MPI: without them MPI_Init took
     * 8 ms instead of 17 on the 2-core VM (docs/results/startup_2026-12-05_vm.txt).
     * hwloc still finds the cores, caches and NUMA nodes (its "linux" and
     * "x86" components). */
    setenv("HWLOC_COMPONENTS", "-linuxio", 0);
    setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_xml_libxml,hwloc_opencl,hwloc_gl,hwloc_pci", 0);
}

/* Whether this run will use one OpenMP thread: --threads 1 (the last
 * --threads given), else OMP_NUM_THREADS=1, else a process allowed on one
 * core only (the default is one thread a core). Where unsure, no. */
static int one_thread(char **argv)
{
    const char *t = NULL;
    for (int i = 1; argv[i]; i++) {
        if (!strcmp(argv[i], "--threads") && argv[i + 1]) t = argv[++i];
        else if (!strncmp(argv[i], "--threads=", 10)) t = argv[i] + 10;
    }
    if (t) return !strcmp(t, "1");
    const char *e = getenv("OMP_NUM_THREADS");
    if (e) return !strcmp(e, "1");
    cpu_set_t mask;
    return sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_COUNT(&mask) == 1;
}

/* Whether libgomp was loaded as a shared library (then it read its
 * environment before any code of this program ran). */
static int gomp_found(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    return info->dlpi_name && strstr(info->dlpi_name, "libgomp") != NULL;
}

int olive_gomp_shared(void) { return dl_iterate_phdr(gomp_found, NULL) != 0; }

/* OpenMP's idle threads spin by default (libgomp: ~300k iterations at each
 * barrier before they sleep), which on a shared or busy machine takes the
 * cores the working threads need: a 1024-cell run took 21.8 s on 2 threads
 * beside another job, 1.7 s with passive waiting (docs/BENCHMARKS.md).
 * Passive waiting (no spin at all) sleeps at every barrier instead, and a
 * small network's step waits for the wake-ups: 4096 InfOli cells on 2 idle
 * cores ran at 9.6e6 cell-steps/s passive, 3.7e7 spinning. A short spin
 * (GOMP_SPINCOUNT=10000, some microseconds) gave both: 3.7e7 idle, and
 * beside a busy loop on each core 0.81 s against passive's 0.85 s and the
 * default's 1.36 s (1024 cells, 2 threads). A user's OMP_WAIT_POLICY or
 * GOMP_SPINCOUNT wins; one thread never waits at a barrier, so nothing is
 * set for it. Returns 1 where it set GOMP_SPINCOUNT. */
int olive_omp_short_spin_env(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") || one_thread(argv)) return 0;
    setenv("GOMP_SPINCOUNT", "10000", 1);
    return 1;
}

void olive_omp_short_wait(char **argv)
{
    /* libgomp reads GOMP_SPINCOUNT once, when it starts. Linked in
     * statically (olive-simulate, where the compiler has libgomp.a) it
     * starts after olive-simulate's early constructor, which has set it
     * (tools/simulate/main.c); as a shared library it started before main,
     * so the process runs itself again with it set (~9 ms on the 2-core VM,
     * docs/results/startup_2026-12-05_vm.txt). */
    if (!olive_gomp_shared() || getenv("OLIVE_NO_REEXEC")) return;
    if (!olive_omp_short_spin_env(argv)) return;
    setenv("OLIVE_NO_REEXEC", "1", 1);   /* (once, whatever happens below) */
    execv("/proc/self/exe", argv);        /* returns only where it cannot: then on as we are */
}
