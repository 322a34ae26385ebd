// Shared by every .cu file of the CUDA backend (kernels.py prepends it).
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
__device__ __forceinline__ void warp_add_to(u64* ctr, unsigned v) {
  unsigned s = warp_sum(v);
  if ((threadIdx.x & 31) == 0 && s) atomicAdd(ctr, (u64)s);
}
__device__ __forceinline__ void warp_min_to(u64* ctr, u64 v) {
  u64 m = warp_min64(v);
  if ((threadIdx.x & 31) == 0 && m != KEY_INF) atomicMin(ctr, m);
}

// Append one item to a global list from divergent code: one atomic per group of
// converged lanes (warp-aggregated), the standard coalesced-group pattern.
__device__ __forceinline__ int warp_append(u64* ctr) {
  unsigned m = __activemask();
  int lane = threadIdx.x & 31;
  int leader = __ffs(m) - 1;
  u64 base = 0;
  if (lane == leader) base = atomicAdd(ctr, (u64)__popc(m));
  base = __shfl_sync(m, base, leader);
  return (int)base + __popc(m & ((1u << lane) - 1u));
}

// Same, when the lanes may append to different counters (bucket lists): lanes are grouped
// by counter with __match_any_sync so each group's leader reserves its own slots.
__device__ __forceinline__ int warp_append_keyed(u64* ctr) {
  unsigned m = __activemask();
  unsigned g = __match_any_sync(m, (unsigned long long)ctr);
  int lane = threadIdx.x & 31;
  int leader = __ffs(g) - 1;
  u64 base = 0;
  if (lane == leader) base = atomicAdd(ctr, (u64)__popc(g));
  base = __shfl_sync(g, base, leader);
  return (int)base + __popc(g & ((1u << lane) - 1u));
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
