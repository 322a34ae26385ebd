// Medusa-style baseline of seed 003's Figures 6-7: one static message slot per arc,
// laid out by head (a reverse CSR), so each vertex reads its inbox as one contiguous
// range. The layout is built on the host from the topology (medusa.py), so any topology
// change means rebuilding it: the cost the paper's per-vertex lists avoid.
// One thread per vertex; "send" and "receive" are separate launches (a superstep each).

// Bellman-Ford send: every vertex whose distance changed writes d + w into its out-arcs'
// slots, stamped with the superstep (a slot is read only in the superstep that wrote it).
extern "C" __global__ void md_bf_send(const int n, const int* __restrict__ indptr,
                                      const int* __restrict__ slot, const int* __restrict__ w,
                                      const i64* __restrict__ dist,
                                      const unsigned char* __restrict__ active, i64* buf,
                                      int* stamp, const int step, u64* sent) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !active[v]) return;
  i64 d = dist[v];
  int a0 = indptr[v], a1 = indptr[v + 1];
  for (int e = a0; e < a1; ++e) {
    int r = slot[e];
    buf[r] = d + (i64)w[e];
    stamp[r] = step;
  }
  if (a1 > a0) atomicAdd(sent, (u64)(a1 - a0));
}

// Bellman-Ford receive: the minimum over this superstep's slots of v's in-arcs.
extern "C" __global__ void md_bf_recv(const int n, const int* __restrict__ rindptr,
                                      const i64* __restrict__ buf,
                                      const int* __restrict__ stamp, i64* dist,
                                      unsigned char* active, const int step, u64* changed) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  i64 best = dist[v];
  bool ch = false;
  for (int r = rindptr[v]; r < rindptr[v + 1]; ++r) {
    if (stamp[r] == step && buf[r] < best) {
      best = buf[r];
      ch = true;
    }
  }
  active[v] = ch ? 1 : 0;
  if (ch) {
    dist[v] = best;
    atomicAdd(changed, 1ULL);
  }
}

// PageRank send: x[v] / outdeg into every out-arc slot; dead ends add to the dangling sum
// (agg[0]). Arcs are the distinct (tail, head) pairs, as networkx counts them.
extern "C" __global__ void md_pr_send(const int n, const int* __restrict__ indptr,
                                      const int* __restrict__ slot,
                                      const double* __restrict__ x, double* buf, double* agg) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int a0 = indptr[v], a1 = indptr[v + 1];
  if (a1 == a0) {
    atomicAdd(&agg[0], x[v]);
    return;
  }
  double share = x[v] / (double)(a1 - a0);
  for (int e = a0; e < a1; ++e) buf[slot[e]] = share;
}

// PageRank receive: par = (damping, 1/n); agg[1] collects the L1 change.
extern "C" __global__ void md_pr_recv(const int n, const int* __restrict__ rindptr,
                                      const double* __restrict__ buf,
                                      const double* __restrict__ par, double* x, double* agg) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  double t = 0.0;
  for (int r = rindptr[v]; r < rindptr[v + 1]; ++r) t += buf[r];
  double nw = par[0] * (t + agg[0] * par[1]) + (1.0 - par[0]) * par[1];
  atomicAdd(&agg[1], fabs(nw - x[v]));
  x[v] = nw;
}
