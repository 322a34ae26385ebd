// adaptive with the frontier signal: a stretch of list-mode (selection) Jacobi phases in
// one persistent cooperative launch. The switch test needs only UPDATE's count (known on
// the device), so small phases no longer pay a host launch + synchronize each; the stretch
// ends when the frontier exceeds the threshold (the host then runs full phases), when it
// is empty, or after max_phases (to poll cancel). Same semantics and telemetry as the
// host-driven list phases: RELAX reads C from the phase start, heads whose tentative key
// drops below C are appended once (stamp), UPDATE copies U into C and sets the mask.

__device__ __forceinline__ u64 gtime() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void grid_sync(unsigned* bar) {
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile unsigned* vb = bar;
    unsigned gen = vb[1];
    __threadfence();
    unsigned arrived = atomicAdd(bar, 1u);
    if (arrived == gridDim.x - 1) {
      atomicExch(bar, 0u);
      __threadfence();
      atomicAdd(bar + 1, 1u);
    } else {
      while (vb[1] == gen) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// lists: A (p even) / B (p odd) hold the phase's frontier; lc[p % 3] its size.
// tele: [0,cap) frontier after phase i, [cap,2cap) edges, [2cap,3cap) start time of
// phase i (index k = end of the last one). ctl: [0] phases run, [1] reason (0 budget,
// 1 frontier empty, 2 frontier > thr), [2] last frontier size.
extern "C" __global__ void __launch_bounds__(256) adaptive_list_persistent(
    int n, const int* __restrict__ indptr, const int* __restrict__ indices,
    const u64* __restrict__ kw, unsigned char* mask, u64* C, u64* U, int* stamp, int* listA,
    int* listB, u64* lc, unsigned* bar, int p0, int max_phases, u64 thr, u64* tele, int cap,
    u64* ctl) {
  __shared__ unsigned long long blk_edges;
  const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int nth = gridDim.x * blockDim.x;
  int i = 0;
  int reason = 0;
  u64 cnew = 0;
  for (; i < max_phases; ++i) {
    int p = p0 + i;
    const int* lin = (p & 1) ? listB : listA;
    int* lout = (p & 1) ? listA : listB;
    u64 cin = ldk(lc + (p % 3));
    u64* cout = lc + ((p + 1) % 3);
    int sv = p + 1;
    if (lead) {
      atomicExch(lc + ((p + 2) % 3), 0ULL);
      if (i < cap) tele[2 * cap + i] = gtime();
    }
    if (threadIdx.x == 0) blk_edges = 0;
    __syncthreads();
    unsigned e = 0;
    for (int k = tid; k < (int)cin; k += nth) {  // RELAX over the list
      int v = ldi(lin + k);
      mask[v] = 0;
      u64 cv = ldk(C + v);
      int a0 = indptr[v], a1 = indptr[v + 1];
      e += (unsigned)(a1 - a0);
      for (int a = a0; a < a1; ++a) {
        int h = indices[a];
        u64 nk = cv + kw[a];
        if (nk < ldk(C + h)) {
          if (nk < ldk(U + h)) atomicMin(U + h, nk);
          if (ldi(stamp + h) != sv && atomicExch(stamp + h, sv) != sv) {
            int slot = warp_append(cout);
            lout[slot] = h;
          }
        }
      }
    }
    atomicAdd(&blk_edges, (unsigned long long)e);
    __syncthreads();
    if (threadIdx.x == 0 && i < cap) atomicAdd(tele + cap + i, blk_edges);
    grid_sync(bar);
    cnew = ldk(cout);
    for (int k = tid; k < (int)cnew; k += nth) {  // UPDATE over the appended heads
      int v = ldi(lout + k);
      C[v] = ldk(U + v);
      mask[v] = 1;
    }
    if (lead && i < cap) tele[i] = cnew;
    grid_sync(bar);
    if (cnew == 0) {
      reason = 1;
      ++i;
      break;
    }
    if (cnew > thr) {
      reason = 2;
      ++i;
      break;
    }
  }
  if (lead) {
    if (i < cap) tele[2 * cap + i] = gtime();
    ctl[0] = (u64)i;
    ctl[1] = (u64)reason;
    ctl[2] = cnew;
  }
}
