/* A lone process starts MPI fast (no network probing). */
#include "util.h"
#include <stdlib.h>

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
}
