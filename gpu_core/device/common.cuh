// Shared by every .cu file of every capability (gpu_core/device/kernels.py prepends it):
// 64-bit keys and atomics, per-phase statistics slots, warp/block append, the grid
// barrier and timer of persistent kernels, and the Jacobi relax loops of the SSSP kernels.
// Keys are non-negative int64 below 2^63, stored as unsigned long long so that the
// hardware's 64-bit atomicMin applies; KEY_INF is int64 max.
typedef unsigned long long u64;
typedef long long i64;
#define KEY_INF 0x7fffffffffffffffULL

// Per-phase statistics slots (a u64 array "st", double-buffered by the host loops).
#define ST_FRONTIER 0   // vertices whose key decreased in the phase
#define ST_EDGES 1      // arcs relaxed in the phase
#define ST_LIST 2       // append counter of the list being written
#define ST_LIST2 3      // second append counter (near-far next N, eval settle list)
#define ST_MINKEY 4     // min key over the next frontier (early exit with a target)
#define ST_DONE_BLOCKS 5  // last-block-done counter of the publishing kernel
#define ST_TKEY 6       // key[target] (published)
#define ST_TSTATUS 7    // status[target] (eval, published)
#define ST_D 8          // eval: D(i)
#define ST_AUX 9        // a device counter copied at publish time (far-pile size)
#define ST_SLOTS 16

// Reads that must see other blocks' atomics/stores: go to L2 (L1 is not coherent).
__device__ __forceinline__ u64 ldk(const u64* p) { return __ldcg(p); }
__device__ __forceinline__ int ldi(const int* p) { return __ldcg(p); }

__device__ __forceinline__ void reset_stats(u64* s) {
  for (int i = 0; i < ST_SLOTS; ++i) s[i] = 0;
  s[ST_MINKEY] = KEY_INF;
  s[ST_D] = KEY_INF;
}

// Full-warp sums/mins: call with all 32 lanes present (kernels have no early return).
__device__ __forceinline__ unsigned warp_sum(unsigned v) {
  return __reduce_add_sync(0xffffffffu, v);
}
__device__ __forceinline__ u64 warp_min64(u64 v) {
  for (int o = 16; o > 0; o >>= 1) {
    u64 w = __shfl_xor_sync(0xffffffffu, v, o);
    v = w < v ? w : v;
  }
  return v;
}

// The first position in a[lo, hi) (ascending) whose value is not below y.
__device__ __forceinline__ i64 lower_bound_i32(const int* __restrict__ a, i64 lo, i64 hi,
                                               int y) {
  while (lo < hi) {
    const i64 mid = (lo + hi) >> 1;
    if (a[mid] < y) lo = mid + 1; else hi = mid;
  }
  return lo;
}
__device__ __forceinline__ void warp_add_to(u64* ctr, unsigned v) {
  unsigned s = warp_sum(v);
  if ((threadIdx.x & 31) == 0 && s) atomicAdd(ctr, (u64)s);
}
__device__ __forceinline__ void warp_min_to(u64* ctr, u64 v) {
  u64 m = warp_min64(v);
  if ((threadIdx.x & 31) == 0 && m != KEY_INF) atomicMin(ctr, m);
}

// One slot of a global list for each lane of group g (a lane mask, all appending to ctr):
// the group's leader reserves them with one atomic.
__device__ __forceinline__ int group_append(u64* ctr, unsigned g) {
  int lane = threadIdx.x & 31;
  int leader = __ffs(g) - 1;
  u64 base = 0;
  if (lane == leader) base = atomicAdd(ctr, (u64)__popc(g));
  base = __shfl_sync(g, base, leader);
  return (int)base + __popc(g & ((1u << lane) - 1u));
}

// Append one item to a global list from divergent code: one atomic per group of
// converged lanes (warp-aggregated), the standard coalesced-group pattern.
__device__ __forceinline__ int warp_append(u64* ctr) {
  return group_append(ctr, __activemask());
}

// Same, when the lanes may append to different counters (bucket lists): lanes are grouped
// by counter with __match_any_sync so each group's leader reserves its own slots.
__device__ __forceinline__ int warp_append_keyed(u64* ctr) {
  unsigned m = __activemask();
  return group_append(ctr, __match_any_sync(m, (unsigned long long)ctr));
}

// The last block of a grid to finish copies the phase statistics to host-mapped memory
// (so the host needs only a stream synchronize) and clears the next phase's slots.
// Call with all threads of every block, after the block's atomics on st.
__device__ __forceinline__ void publish_last_block(u64* st, u64* st_next, volatile u64* mirror,
                                                   const u64* key, const int* status, int target,
                                                   const u64* aux = nullptr) {
  __shared__ int am_last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    u64 done = atomicAdd(&st[ST_DONE_BLOCKS], 1ULL);
    am_last = (done == (u64)(gridDim.x - 1));
  }
  __syncthreads();
  if (am_last && threadIdx.x == 0) {
    __threadfence();
    if (target >= 0) {
      st[ST_TKEY] = ldk(key + target);
      if (status) st[ST_TSTATUS] = (u64)ldi(status + target);
    }
    if (aux) st[ST_AUX] = ldk(aux);
    for (int i = 0; i < ST_SLOTS; ++i) mirror[i] = __ldcg(st + i);
    reset_stats(st_next);
    __threadfence_system();
  }
}

// ---- persistent kernels: %globaltimer and a grid barrier -------------------------------
__device__ __forceinline__ u64 global_ns() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Sense-free grid barrier (count + generation). Every block must be resident: the host
// launches cooperatively with at most the occupancy-derived number of blocks.
__device__ __forceinline__ void grid_barrier(unsigned* bar) {
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

// ---- block-aggregated stream compaction ------------------------------------------------
// Appends v to out for every thread with take set (order not kept): one atomic per block.
// Call with all threads of the block (it has barriers).
__device__ __forceinline__ void block_append(bool take, int v, int* out, u64* ctr) {
  __shared__ int warp_cnt[32];
  __shared__ int block_base;
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  unsigned b = __ballot_sync(0xffffffffu, take);
  if (lane == 0) warp_cnt[wid] = __popc(b);
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
      int c = warp_cnt[w];
      warp_cnt[w] = s;  // exclusive prefix sum of the warps' counts
      s += c;
    }
    block_base = s ? (int)atomicAdd(ctr, (u64)s) : 0;
  }
  __syncthreads();
  if (take) out[block_base + warp_cnt[wid] + __popc(b & ((1u << lane) - 1u))] = v;
  __syncthreads();
}

// ---- relax helpers of the Jacobi SSSP phases -------------------------------------------
// True for the one thread that first stamps h with sv in this phase ("scheduled" once).
__device__ __forceinline__ bool schedule_once(int* stamp, int h, int sv) {
  return ldi(stamp + h) != sv && atomicExch(stamp + h, sv) != sv;
}

// Load of a phase-start key: through L2 (CG, persistent kernels, where other blocks wrote
// it in earlier phases of the same launch) or a plain load (one phase per launch).
template <bool CG>
__device__ __forceinline__ u64 ld_key(const u64* p) { return CG ? ldk(p) : *p; }

// Conventional RELAX of one row: U[h] = min(U[h], cv + w') for arcs a0..a1.
__device__ __forceinline__ void relax_row(int a0, int a1, u64 cv, const int* __restrict__ indices,
                                          const u64* __restrict__ kw, u64* U) {
  for (int a = a0; a < a1; ++a) {
    int h = indices[a];
    u64 nk = cv + kw[a];
    if (nk < ldk(U + h)) atomicMin(U + h, nk);
  }
}

// List RELAX of one row: only heads whose new key is below their phase-start key C[h] are
// lowered in U, and on_head(h) is called for each of them (schedule / flag / append).
template <bool CG, class OnHead>
__device__ __forceinline__ void relax_row_below(int a0, int a1, u64 cv,
                                                const int* __restrict__ indices,
                                                const u64* __restrict__ kw, const u64* C,
                                                u64* U, OnHead on_head) {
  for (int a = a0; a < a1; ++a) {
    int h = indices[a];
    u64 nk = cv + kw[a];
    if (nk < ld_key<CG>(C + h)) {
      if (nk < ldk(U + h)) atomicMin(U + h, nk);
      on_head(h);
    }
  }
}
