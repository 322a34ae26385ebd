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

// ---- adaptive (frontier signal) decided on the device: the whole search ---------------
// Each phase is a full (conventional, |V| threads over the mask Ma) or a list (selection)
// Jacobi phase, chosen from the previous phase's frontier size, which every block reads
// after the grid barrier, so every block takes the same branch and no host round trip is
// needed. The semantics are the host-driven ones: RELAX reads C (keys at the phase start)
// and lowers U; UPDATE copies U into C and sets Ma. A full UPDATE also appends the updated
// vertices to the next list (block-aggregated, order irrelevant), which is exactly the
// list seed 001's SWITCH kernel would rebuild from Ma, so a switch back costs no pass.
// tele: [0,cap) frontier of phase i, [cap,2cap) arcs relaxed, [2cap,3cap) %globaltimer at
// the start of phase i (index k = end of the last), [3cap,4cap) mode (0 conventional,
// 1 selection, 2 switch = first list phase after a full one). ctl: [0] phases run,
// [1] reason (0 budget, 1 frontier empty), [2] last frontier, [3] last phase was full.
__device__ __forceinline__ void ad_block_append(bool take, int v, int* out, u64* ctr) {
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
      warp_cnt[w] = s;
      s += c;
    }
    block_base = s ? (int)atomicAdd(ctr, (u64)s) : 0;
  }
  __syncthreads();
  if (take) out[block_base + warp_cnt[wid] + __popc(b & ((1u << lane) - 1u))] = v;
  __syncthreads();
}

extern "C" __global__ void __launch_bounds__(256, 4) adaptive_device(
    int n, const int* __restrict__ indptr, const int* __restrict__ indices,
    const u64* __restrict__ kw, unsigned char* mask, u64* C, u64* U, int* stamp, int* listA,
    int* listB, u64* lc, unsigned* bar, int p0, int max_phases, u64 thr, int full0,
    int prev_full0, u64* tele, int cap, u64* ctl) {
  __shared__ unsigned long long blk_edges;
  const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int nth = gridDim.x * blockDim.x;
  int full = full0, prev_full = prev_full0;
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
      if (i < cap) {
        tele[2 * cap + i] = gtime();
        tele[3 * cap + i] = full ? 0ULL : (prev_full ? 2ULL : 1ULL);
      }
    }
    if (threadIdx.x == 0) blk_edges = 0;
    __syncthreads();
    unsigned e = 0;
    if (full) {  // RELAX over all |V| (conventional): masked vertices only
      for (int v = tid; v < n; v += nth) {
        if (__ldcg(mask + v)) {
          mask[v] = 0;
          u64 cv = ldk(C + v);
          int a0 = indptr[v], a1 = indptr[v + 1];
          e += (unsigned)(a1 - a0);
          for (int a = a0; a < a1; ++a) {
            int h = indices[a];
            u64 nk = cv + kw[a];
            if (nk < ldk(U + h)) atomicMin(U + h, nk);
          }
        }
      }
    } else {  // RELAX over the list (selection)
      for (int k = tid; k < (int)cin; k += nth) {
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
    }
    atomicAdd(&blk_edges, (unsigned long long)e);
    __syncthreads();
    if (threadIdx.x == 0 && i < cap && blk_edges) atomicAdd(tele + cap + i, blk_edges);
    grid_sync(bar);
    if (full) {  // UPDATE over all |V|; updated vertices also form the next list
      for (int base = blockIdx.x * blockDim.x; base < n; base += nth) {
        int v = base + threadIdx.x;
        bool take = false;
        if (v < n) {
          u64 u = ldk(U + v);
          if (u < ldk(C + v)) {
            C[v] = u;
            mask[v] = 1;
            take = true;
          }
        }
        ad_block_append(take, v, lout, cout);
      }
    } else {  // UPDATE over the appended heads
      u64 c = ldk(cout);
      for (int k = tid; k < (int)c; k += nth) {
        int v = ldi(lout + k);
        C[v] = ldk(U + v);
        mask[v] = 1;
      }
    }
    grid_sync(bar);
    cnew = ldk(cout);
    if (lead && i < cap) tele[i] = cnew;
    prev_full = full;
    full = cnew > thr ? 1 : 0;  // the frontier signal, same value in every block
    if (cnew == 0) {
      reason = 1;
      ++i;
      break;
    }
  }
  if (lead) {
    if (i < cap) tele[2 * cap + i] = gtime();
    ctl[0] = (u64)i;
    ctl[1] = (u64)reason;
    ctl[2] = cnew;
    ctl[3] = (u64)prev_full;
  }
}

// ---- the same, one grid barrier per phase (no UPDATE pass) ----------------------------
// Keys double-buffered: phase p reads C = K[p&1] (its phase-start keys, never written in
// the phase) and lowers U = K[(p+1)&1]. Invariant at a phase start: U == C except on the
// frontier F_p (the vertices lowered by phase p-1), where U still holds the older key;
// the thread that takes v in F_p first lowers U[v] to C[v] (atomicMin, so it commutes
// with the relaxations of v as a head in the same phase), which restores U == C + this
// phase's improvements at its end: the next phase's C. No UPDATE pass, no second barrier.
// Heads are counted once per phase (the stamp), and marked in the next mask
// (mask[(p+1)&1]); list-mode phases also append them to the next list. Phases: full
// (conventional: |V| threads over the mask, no append), switch (a list phase after a
// full one: the list is the mask, read in place by the same |V| threads = seed 001's
// SWITCH), selection (the list). Same telemetry layout and ctl as adaptive_device; the
// final keys are in both arrays (the last phase changed nothing).
extern "C" __global__ void __launch_bounds__(256, 4) adaptive_fused(
    int n, const int* __restrict__ indptr, const int* __restrict__ indices,
    const u64* __restrict__ kw, unsigned char* mask0, unsigned char* mask1, u64* K0, u64* K1,
    int* stamp, int* listA, int* listB, u64* lc, unsigned* bar, int p0, int max_phases,
    u64 thr, int full0, int prev_full0, u64* tele, int cap, u64* ctl) {
  __shared__ unsigned long long blk_edges;
  __shared__ unsigned blk_heads;
  const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int nth = gridDim.x * blockDim.x;
  int full = full0, prev_full = prev_full0;
  int i = 0;
  int reason = 0;
  u64 cnew = 0;
  for (; i < max_phases; ++i) {
    int p = p0 + i;
    const int* lin = (p & 1) ? listB : listA;
    int* lout = (p & 1) ? listA : listB;
    unsigned char* min_ = (p & 1) ? mask1 : mask0;
    unsigned char* mout = (p & 1) ? mask0 : mask1;
    const u64* C = (p & 1) ? K1 : K0;
    u64* U = (p & 1) ? K0 : K1;
    u64* cout = lc + ((p + 1) % 3);
    const int sv = p + 1;
    const bool by_mask = full || prev_full;
    const bool append = !full;
    if (lead) {
      atomicExch(lc + ((p + 2) % 3), 0ULL);
      if (i < cap) {
        tele[2 * cap + i] = gtime();
        tele[3 * cap + i] = full ? 0ULL : (prev_full ? 2ULL : 1ULL);
      }
    }
    if (threadIdx.x == 0) {
      blk_edges = 0;
      blk_heads = 0;
    }
    __syncthreads();
    unsigned e = 0, heads = 0;
    const int count = by_mask ? n : (int)ldk(lc + (p % 3));
    for (int k = tid; k < count; k += nth) {
      int v;
      if (by_mask) {
        if (!__ldcg(min_ + k)) continue;
        v = k;
      } else {
        v = ldi(lin + k);
      }
      min_[v] = 0;
      u64 cv = ldk(C + v);
      if (cv < ldk(U + v)) atomicMin(U + v, cv);  // restore U == C on F_p (see above)
      int a0 = indptr[v], a1 = indptr[v + 1];
      e += (unsigned)(a1 - a0);
      for (int a = a0; a < a1; ++a) {
        int h = indices[a];
        u64 nk = cv + kw[a];
        if (nk < ldk(C + h)) {
          if (nk < ldk(U + h)) atomicMin(U + h, nk);
          if (ldi(stamp + h) != sv && atomicExch(stamp + h, sv) != sv) {
            mout[h] = 1;
            if (append) {
              int slot = warp_append(cout);
              lout[slot] = h;
            } else {
              ++heads;
            }
          }
        }
      }
    }
    atomicAdd(&blk_edges, (unsigned long long)e);
    if (!append && heads) atomicAdd(&blk_heads, heads);
    __syncthreads();
    if (threadIdx.x == 0) {
      if (i < cap && blk_edges) atomicAdd(tele + cap + i, blk_edges);
      if (blk_heads) atomicAdd(cout, (u64)blk_heads);
    }
    grid_sync(bar);
    cnew = ldk(cout);
    if (lead && i < cap) tele[i] = cnew;
    prev_full = full;
    full = cnew > thr ? 1 : 0;
    if (cnew == 0) {
      reason = 1;
      ++i;
      break;
    }
  }
  if (lead) {
    if (i < cap) tele[2 * cap + i] = gtime();
    ctl[0] = (u64)i;
    ctl[1] = (u64)reason;
    ctl[2] = cnew;
    ctl[3] = (u64)prev_full;
  }
}
