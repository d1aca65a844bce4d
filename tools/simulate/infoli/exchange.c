/* Halo exchange of V_dend: pack the values other ranks need, exchange them
 * with a non-blocking neighbourhood collective, received straight into the
 * halo part of the V_dend array (receive order = halo order). */
#include "sim.h"
#include "util.h"

void sim_exchange_begin(sim_t *s, MPI_Request *req)
{
    const olive_plan *p = &s->plan;
    MPI_Datatype t = s->cfg->run.single ? MPI_FLOAT : MPI_DOUBLE;
    if (s->cfg->run.single) {
        const float *vd = s->state[OV_V_DEND];
        float *buf = s->io.sendbuf;
        for (int64_t i = 0; i < p->nsend; i++) buf[i] = vd[p->send_local[i]];
    } else {
        const double *vd = s->state[OV_V_DEND];
        double *buf = s->io.sendbuf;
        for (int64_t i = 0; i < p->nsend; i++) buf[i] = vd[p->send_local[i]];
    }
    char *halo = (char *)s->state[OV_V_DEND] + (size_t)p->nlocal * (s->cfg->run.single ? sizeof(float) : sizeof(double));
    const double t0 = olive_now();
    SIM_CHECK_MPI(MPI_Ineighbor_alltoallv(s->io.sendbuf, s->io.nbr_send_count, s->io.nbr_send_displ, t, halo,
                                          s->io.nbr_recv_count, s->io.nbr_recv_displ, t, s->io.graph, req));
    s->t.mpi += olive_now() - t0;
}

void sim_exchange_end(sim_t *s, MPI_Request *req)
{
    const double t0 = olive_now();
    SIM_CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
    s->t.mpi += olive_now() - t0;
}
