// Medusa-style baseline of seed 003's Figures 6-7: one static message slot per arc,
// laid out by head (a reverse CSR), so each vertex reads its inbox as one contiguous
// range. The layout is built on the host from the topology (medusa.py), so any topology
// change means rebuilding it: the cost the paper's per-vertex lists avoid.
// One thread per vertex; "send" and "receive" are separate launches (a superstep each).
// Counters and sums take one atomic per block (md_block_add), as the framework's
// aggregators do, so the baseline is not slowed by same-address atomics.

// *p += the block's sum of v; every thread of the block calls it (it has a barrier).
template <class T>
__device__ __forceinline__ void md_block_add(T* p, T v) {
  __shared__ T sh[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  int w = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = (blockDim.x + 31) >> 5;
  if (lane == 0) sh[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < nw ? sh[lane] : T(0);
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0 && v != T(0)) atomicAdd(p, v);
  }
}

// Bellman-Ford send: every vertex whose distance changed writes d + w into its out-arcs'
// slots, stamped with the superstep (a slot is read only in the superstep that wrote it).
extern "C" __global__ void md_bf_send(const int n, const int* __restrict__ indptr,
                                      const int* __restrict__ slot, const int* __restrict__ w,
                                      const i64* __restrict__ dist,
                                      const unsigned char* __restrict__ active, i64* buf,
                                      int* stamp, const int step, u64* sent) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  u64 k = 0;
  if (v < n && active[v]) {
    i64 d = dist[v];
    int a0 = indptr[v], a1 = indptr[v + 1];
    for (int e = a0; e < a1; ++e) {
      int r = slot[e];
      buf[r] = d + (i64)w[e];
      stamp[r] = step;
    }
    k = (u64)(a1 - a0);
  }
  md_block_add(sent, k);
}

// Bellman-Ford receive: the minimum over this superstep's slots of v's in-arcs.
extern "C" __global__ void md_bf_recv(const int n, const int* __restrict__ rindptr,
                                      const i64* __restrict__ buf,
                                      const int* __restrict__ stamp, i64* dist,
                                      unsigned char* active, const int step, u64* changed) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  bool ch = false;
  if (v < n) {
    i64 best = dist[v];
    for (int r = rindptr[v]; r < rindptr[v + 1]; ++r) {
      if (stamp[r] == step && buf[r] < best) {
        best = buf[r];
        ch = true;
      }
    }
    active[v] = ch ? 1 : 0;
    if (ch) dist[v] = best;
  }
  md_block_add(changed, (u64)(ch ? 1 : 0));
}

// PageRank send: x[v] / outdeg into every out-arc slot; dead ends add to the dangling sum
// (agg[0]). Arcs are the distinct (tail, head) pairs, as networkx counts them.
extern "C" __global__ void md_pr_send(const int n, const int* __restrict__ indptr,
                                      const int* __restrict__ slot,
                                      const double* __restrict__ x, double* buf, double* agg) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  double dang = 0.0;
  if (v < n) {
    int a0 = indptr[v], a1 = indptr[v + 1];
    if (a1 == a0) {
      dang = x[v];
    } else {
      double share = x[v] / (double)(a1 - a0);
      for (int e = a0; e < a1; ++e) buf[slot[e]] = share;
    }
  }
  md_block_add(&agg[0], dang);
}

// PageRank receive: par = (damping, 1/n); agg[1] collects the L1 change.
extern "C" __global__ void md_pr_recv(const int n, const int* __restrict__ rindptr,
                                      const double* __restrict__ buf,
                                      const double* __restrict__ par, double* x, double* agg) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  double diff = 0.0;
  if (v < n) {
    double t = 0.0;
    for (int r = rindptr[v]; r < rindptr[v + 1]; ++r) t += buf[r];
    double nw = par[0] * (t + agg[0] * par[1]) + (1.0 - par[0]) * par[1];
    diff = fabs(nw - x[v]);
    x[v] = nw;
  }
  md_block_add(&agg[1], diff);
}
