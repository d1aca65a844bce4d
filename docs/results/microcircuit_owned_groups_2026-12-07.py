"""The target-owned form on the real microcircuit (issue 58, session 44): the expected size of a source's group for
one block (132 blocks of 585 cells, the populations contiguous in olive's order), the events a block takes a step at the
full model's rates, and the share of events a window of W due steps holds under the model's delay law (excitatory
N(1.5, 0.75) ms, inhibitory N(0.75, 0.375) ms, steps of 0.1 ms). The numbers of examples/microcircuit/microcircuit.py
(NEST's network_params.py). Run: build/venv-python/bin/python docs/results/microcircuit_owned_groups_2026-12-07.py"""
import numpy as np, math
N=np.array([20683, 5834, 21915, 5479, 4850, 1065, 14395, 2948]); R=np.array([0.903, 2.965, 4.414, 5.876, 7.569, 8.633, 1.105, 7.829])
P=["L23E","L23I","L4E","L4I","L5E","L5I","L6E","L6I"]
C=np.array([[0.1009, 0.1689, 0.0437, 0.0818, 0.0323, 0.0, 0.0076, 0.0],
    [0.1346, 0.1371, 0.0316, 0.0515, 0.0755, 0.0, 0.0042, 0.0],
    [0.0077, 0.0059, 0.0497, 0.135, 0.0067, 0.0003, 0.0453, 0.0],
    [0.0691, 0.0029, 0.0794, 0.1597, 0.0033, 0.0, 0.1057, 0.0],
    [0.1004, 0.0622, 0.0505, 0.0057, 0.0831, 0.3726, 0.0204, 0.0],
    [0.0548, 0.0269, 0.0257, 0.0022, 0.06, 0.3158, 0.0086, 0.0],
    [0.0156, 0.0066, 0.0211, 0.0166, 0.0572, 0.0197, 0.0396, 0.2252],
    [0.0364, 0.001, 0.0034, 0.0005, 0.0277, 0.008, 0.0658, 0.1443]])
prod=np.outer(N,N).astype(float)
K=np.log(1-C)/np.log((prod-1)/prod)   # [target][source]
n=N.sum(); B=132; PB=-(-n//B)
start=np.concatenate([[0],np.cumsum(N)])
cov=np.zeros((B,8))
for b in range(B):
    lo,hi=b*PB,min((b+1)*PB,n)
    for y in range(8):
        cov[b,y]=max(0,min(hi,start[y+1])-max(lo,start[y]))
group=cov@(K/N[None,:]/N[:,None])   # [b][X]
print("cells %d, blocks %d of %d cells; synapses %.4e, mean out-degree %.0f"%(n,B,PB,K.sum(),K.sum()/n))
print("mean group (source, block) %.1f; largest expected group %.1f"%(K.sum()/n/B, group.max()))
print("largest expected group by source population: "+", ".join("%s %.0f"%(P[x],group[:,x].max()) for x in range(8)))
ev=group@(R*N*1e-4)
print("events a step at the model's rates: total %.0f, a block: mean %.0f, max %.0f, min %.0f"%(ev.sum(),ev.mean(),ev.max(),ev.min()))
Phi=lambda z:0.5*(1+math.erf(z/math.sqrt(2)))
exc=np.array([1,0,1,0,1,0,1,0],bool); evsrc=K.sum(0)*R*1e-4
for W in (16,24):
    fe=Phi(((W-0.5)*0.1-1.5)/0.75); fi=Phi(((W-0.5)*0.1-0.75)/0.375)
    print("window %d: excitatory events within %.3f, inhibitory %.4f, all %.3f"%(W,fe,fi,(evsrc[exc].sum()*fe+evsrc[~exc].sum()*fi)/evsrc.sum()))
