// adaptive (seed 001) with the frontier signal, decided on the device. The switch test
// needs only UPDATE's count (known on the device), so no phase pays a host launch +
// synchronize: one cooperative launch runs many phases (the host polls cancel between
// launches). global_ns, grid_barrier, block_append and the relax loops are in
// gpu_core/device/common.cuh (prepended).

// Start of phase p (index i of the launch): clear the counter phase p+1 will append to,
// record the start time and the mode (0 conventional, 1 selection, 2 switch).
__device__ __forceinline__ void ad_phase_start(bool lead, u64* lc, int p, int i, int cap,
                                               u64* tele, int full, int prev_full) {
  if (!lead) return;
  atomicExch(lc + ((p + 2) % 3), 0ULL);
  if (i < cap) {
    tele[2 * cap + i] = global_ns();
    tele[3 * cap + i] = full ? 0ULL : (prev_full ? 2ULL : 1ULL);
  }
}

// End of a phase of both kernels: after the grid barrier every block reads the new
// frontier size, so every block takes the same branch next (full when it exceeds thr).
// True when the frontier is empty: the search is done.
__device__ __forceinline__ bool ad_phase_end(unsigned* bar, const u64* cout, bool lead, int i,
                                             int cap, u64* tele, u64 thr, int& full,
                                             int& prev_full, u64& cnew) {
  grid_barrier(bar);
  cnew = ldk(cout);
  if (lead && i < cap) tele[i] = cnew;
  prev_full = full;
  full = cnew > thr ? 1 : 0;
  return cnew == 0;
}

// End of a launch: the end time of the last phase and ctl (layout below).
__device__ __forceinline__ void ad_launch_end(bool lead, int i, int cap, int reason, u64 cnew,
                                              int prev_full, u64* tele, u64* ctl) {
  if (!lead) return;
  if (i < cap) tele[2 * cap + i] = global_ns();
  ctl[0] = (u64)i;
  ctl[1] = (u64)reason;
  ctl[2] = cnew;
  ctl[3] = (u64)prev_full;
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
    ad_phase_start(lead, lc, p, i, cap, tele, full, prev_full);
    if (threadIdx.x == 0) blk_edges = 0;
    __syncthreads();
    unsigned e = 0;
    if (full) {  // RELAX over all |V| (conventional): masked vertices only
      for (int v = tid; v < n; v += nth) {
        if (__ldcg(mask + v)) {
          mask[v] = 0;
          int a0 = indptr[v], a1 = indptr[v + 1];
          e += (unsigned)(a1 - a0);
          relax_row(a0, a1, ldk(C + v), indices, kw, U);
        }
      }
    } else {  // RELAX over the list (selection)
      for (int k = tid; k < (int)cin; k += nth) {
        int v = ldi(lin + k);
        mask[v] = 0;
        int a0 = indptr[v], a1 = indptr[v + 1];
        e += (unsigned)(a1 - a0);
        relax_row_below<true>(a0, a1, ldk(C + v), indices, kw, C, U, [&](int h) {
          if (schedule_once(stamp, h, sv)) {
            int slot = warp_append(cout);
            lout[slot] = h;
          }
        });
      }
    }
    atomicAdd(&blk_edges, (unsigned long long)e);
    __syncthreads();
    if (threadIdx.x == 0 && i < cap && blk_edges) atomicAdd(tele + cap + i, blk_edges);
    grid_barrier(bar);
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
        block_append(take, v, lout, cout);
      }
    } else {  // UPDATE over the appended heads
      u64 c = ldk(cout);
      for (int k = tid; k < (int)c; k += nth) {
        int v = ldi(lout + k);
        C[v] = ldk(U + v);
        mask[v] = 1;
      }
    }
    // the frontier signal, same value in every block
    if (ad_phase_end(bar, cout, lead, i, cap, tele, thr, full, prev_full, cnew)) {
      reason = 1;
      ++i;
      break;
    }
  }
  ad_launch_end(lead, i, cap, reason, cnew, prev_full, tele, ctl);
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
    ad_phase_start(lead, lc, p, i, cap, tele, full, prev_full);
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
      relax_row_below<true>(a0, a1, cv, indices, kw, C, U, [&](int h) {
        if (schedule_once(stamp, h, sv)) {
          mout[h] = 1;
          if (append) {
            int slot = warp_append(cout);
            lout[slot] = h;
          } else {
            ++heads;
          }
        }
      });
    }
    atomicAdd(&blk_edges, (unsigned long long)e);
    if (!append && heads) atomicAdd(&blk_heads, heads);
    __syncthreads();
    if (threadIdx.x == 0) {
      if (i < cap && blk_edges) atomicAdd(tele + cap + i, blk_edges);
      if (blk_heads) atomicAdd(cout, (u64)blk_heads);
    }
    // the frontier signal, same value in every block
    if (ad_phase_end(bar, cout, lead, i, cap, tele, thr, full, prev_full, cnew)) {
      reason = 1;
      ++i;
      break;
    }
  }
  ad_launch_end(lead, i, cap, reason, cnew, prev_full, tele, ctl);
}
