// "auto": a whole search in one persistent launch (or a few), no host round trip per phase.
//
// Asynchronous Bellman-Ford over a global worklist: phase p processes list[p&1] (count
// cnt[p%3]) with atomicMin straight on the keys (updates are visible at once, so a phase
// may carry a route several arcs further than a Jacobi phase), and improved heads are
// pushed either into the block's shared-memory queue, which the block keeps draining for up
// to LOCAL_ROUNDS rounds inside the same phase (cheap __syncthreads instead of grid-wide
// barriers), or, deduplicated by a phase stamp, into the next global list. One grid
// barrier per phase. Telemetry (list size at each phase start, arcs relaxed, globaltimer)
// is written on the device and read back once per launch.
// Correctness does not depend on the schedule: every improved vertex is queued somewhere
// and relaxed with its current key later, so the fixpoint is the exact shortest keys.

#ifndef AUTO_BS
#define AUTO_BS 256
#endif
#ifndef AUTO_SQ
#define AUTO_SQ 1024
#endif
// lanes per work item: the arcs of one vertex are relaxed side by side (road maps have
// ~3 arcs per vertex, so one thread per vertex would walk a serial chain of atomics)
#ifndef AUTO_G
#define AUTO_G 4
#endif
#define AUTO_IPB (AUTO_BS / AUTO_G)
#ifndef AUTO_PRECHECK
#define AUTO_PRECHECK 1
#endif
// AUTO_STAGE: far-bucket pushes are staged in shared memory and flushed once at the end
// of the phase in a dense loop (lanes pushing to the same bucket share one atomic), instead
// of one contended atomicAdd on a bucket counter per push from divergent code
#ifndef AUTO_STAGE
#define AUTO_STAGE 1
#endif
#ifndef AUTO_FQ
#define AUTO_FQ 1024
#endif

// global_ns, grid_barrier, warp_append and schedule_once: gpu_core/device/common.cuh

struct AutoCtx {
  const int* __restrict__ indptr;
  const int* __restrict__ indices;
  const u64* __restrict__ kw;
  u64* key;
  int* stamp;
  int* lout;
  u64* cout;
  int sv;
};

// The fields of phase p: it reads list (p&1) (list0/list1), writes the other one and
// counts it in cnt[(p+1)%3]; heads are scheduled once per phase by the stamp p+1.
__device__ __forceinline__ void set_phase(AutoCtx& c, const int* indptr, const int* indices,
                                          const u64* kw, u64* key, int* stamp, int* list0,
                                          int* list1, u64* cnt, int p) {
  c.indptr = indptr;
  c.indices = indices;
  c.kw = kw;
  c.key = key;
  c.stamp = stamp;
  c.lout = (p & 1) ? list0 : list1;
  c.cout = cnt + ((p + 1) % 3);
  c.sv = p + 1;
}

// Rounds 1..R-1 of a phase: the block drains its own shared-memory queue (sqn[r&1]
// entries; Gauss-Seidel inside the block). relax(rq, wq, i, more) relaxes entry i of
// queue rq, pushing to queue wq when more rounds follow; returns the arcs relaxed.
template <class Relax>
__device__ __forceinline__ unsigned drain_local(int local_rounds, int* sqn, Relax relax) {
  unsigned edges = 0;
  for (int r = 1; r < local_rounds; ++r) {
    int rq = (r - 1) & 1, wq = r & 1;
    int nq = min(sqn[rq], AUTO_SQ);
    if (nq == 0) break;
    bool more = r + 1 < local_rounds;
    for (int i = threadIdx.x / AUTO_G; i < nq; i += AUTO_IPB) edges += relax(rq, wq, i, more);
    __syncthreads();
    if (threadIdx.x == 0) sqn[rq] = 0;
    __syncthreads();
  }
  return edges;
}

__device__ __forceinline__ void push_global(const AutoCtx& c, int v) {
  if (schedule_once(c.stamp, v, c.sv)) {
    int slot = warp_append(c.cout);
    c.lout[slot] = v;
  }
}

// relax the arcs of u with its current key; improved heads go to the local queue wq
// (when allowed and not full) or to the global list
__device__ __forceinline__ unsigned relax_vertex(const AutoCtx& c, int u, bool local,
                                                 int* wq, int* wqn) {
  u64 ku = ldk(c.key + u);
  int a0 = c.indptr[u], a1 = c.indptr[u + 1];
  int gl = threadIdx.x % AUTO_G;
  for (int a = a0 + gl; a < a1; a += AUTO_G) {
    int h = c.indices[a];
    u64 nk = ku + c.kw[a];
    if (nk < ldk(c.key + h)) {
      u64 old = atomicMin(c.key + h, nk);
      if (nk < old) {
        bool queued = false;
        if (local) {
          int s = atomicAdd(wqn, 1);
          if (s < AUTO_SQ) {
            wq[s] = h;
            queued = true;
          }
        }
        if (!queued) push_global(c, h);
      }
    }
  }
  return gl == 0 ? (unsigned)(a1 - a0) : 0u;
}

extern "C" __global__ void __launch_bounds__(AUTO_BS) auto_bf(
    int n, const int* __restrict__ indptr, const int* __restrict__ indices,
    const u64* __restrict__ kw, u64* key, int* list0, int* list1, u64* cnt, int* stamp,
    unsigned* bar, int p0, int p_end, int local_rounds, int coop, u64* tele, int tele_cap,
    int tele_base, u64* ctl) {
  __shared__ int sq[2][AUTO_SQ];
  __shared__ int sqn[2];
  __shared__ unsigned long long blk_edges;
  u64* tele_f = tele;                 // list size at the start of phase i
  u64* tele_e = tele + tele_cap;      // arcs relaxed in phase i
  u64* tele_t = tele + 2 * tele_cap;  // globaltimer at the start of phase i
  const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
  // ctl: [0] phase reached, [2] done (sticky: later launches of a batch return at once)
  if (ldk(ctl + 2)) return;
  int p = p0;
  u64 cin = 0;
  for (;; ++p) {
    cin = ldk(cnt + (p % 3));
    int ti = p - tele_base;
    if (lead && ti < tele_cap) {
      tele_t[ti] = global_ns();
      tele_f[ti] = cin;
    }
    if (cin == 0 || p == p_end) break;  // uniform: every block read the same count
    if (lead) atomicExch(cnt + ((p + 2) % 3), 0ULL);  // next phase's output counter
    if (threadIdx.x == 0) {
      sqn[0] = 0;
      sqn[1] = 0;
      blk_edges = 0;
    }
    __syncthreads();
    AutoCtx c;
    set_phase(c, indptr, indices, kw, key, stamp, list0, list1, cnt, p);
    const int* lin = (p & 1) ? list1 : list0;
    unsigned my_edges = 0;
    // round 0: this phase's share of the global list
    bool local = local_rounds > 1;
    for (int i = blockIdx.x * AUTO_IPB + threadIdx.x / AUTO_G; i < (int)cin;
         i += gridDim.x * AUTO_IPB) {
      my_edges += relax_vertex(c, ldi(lin + i), local, sq[0], &sqn[0]);
    }
    __syncthreads();
    my_edges += drain_local(local_rounds, sqn, [&](int rq, int wq, int i, bool more) {
      return relax_vertex(c, sq[rq][i], more, sq[wq], &sqn[wq]);
    });
    atomicAdd(&blk_edges, (unsigned long long)my_edges);
    __syncthreads();
    if (threadIdx.x == 0 && ti < tele_cap) atomicAdd(tele_e + ti, blk_edges);
    if (!coop) break;  // one phase per launch: the kernel boundary is the barrier
    grid_barrier(bar);
  }
  if (lead) {
    ctl[0] = (u64)p;
    if (cin == 0) ctl[2] = 1;
  }
}

// ------------------------------------------------------------------------------------
// auto_nf: the same persistent worklist, ordered by buckets of width dp (near-far /
// delta-stepping in one launch). Heavy-tailed weights make unordered Bellman-Ford relax
// each arc tens of times (measured ~29x on a kanto-like map); buckets keep the work near
// one relaxation per arc while the phases stay barrier-only (no host round trip).
//
// A vertex improved to key k goes to bucket b = k / dp:
//   b <= cur          -> the near worklist of the current bucket (block queue or next list)
//   cur < b < cur+nb  -> bucket list b % nb (at most once per bucket: atomicMin on bstamp)
//   b >= cur+nb       -> the overflow list (once: oflag), redistributed when the ring
//                        runs dry (rebase).
// When the near worklist is empty the lead block moves cur to the next non-empty bucket
// (an "advance", not a phase) and that bucket's list is the next phase's input.
// Control state, double-buffered by iteration parity (every block reads S[it&1], only the
// lead block writes S[(it+1)&1], then a grid barrier): [0] cur bucket, [1] input kind
// (0 near list, 1 bucket list), [2] overflow parity, [3] done, [4] rebase pending;
// scratch[0]: rebase min bucket; scratch[1]: a lower bound of the overflow entries'
// buckets (KEY_INF when none). An iteration is a phase, an advance or a rebase.
struct NfCtx : AutoCtx {
  u64 cur, dp;
  int nb, n;
  int* buckets;
  u64* bcnt;
  i64* bstamp;
  int* over;
  u64* ocnt;
  int* oflag;
  u64* omin;
  int* fqv;    // staged far pushes (shared memory), AUTO_STAGE
  u64* fqb;
  int* fqn;
};

__device__ __forceinline__ void nf_push_far(const NfCtx& c, int v, u64 b) {
  if (b < c.cur + (u64)c.nb) {
    i64 old = atomicMin((long long*)(c.bstamp + v), (long long)b);
    if ((u64)old > b) {
      int s = (int)(b % (u64)c.nb);
      int slot = warp_append_keyed(c.bcnt + s);
      c.buckets[(size_t)s * c.n + slot] = v;
    }
  } else {
    if (b < ldk(c.omin)) atomicMin(c.omin, b);  // also when listed: its bucket may drop
    if (ldi(c.oflag + v) == 0 && atomicExch(c.oflag + v, 1) == 0) {
      int slot = warp_append(c.ocnt);
      c.over[slot] = v;
    }
  }
}

// Local queue entries carry the head's CSR row bounds, loaded while its atomicMin is in
// flight (the loads do not depend on the atomic), so the next round starts at the arcs:
// one dependent memory access less per hop on the critical path.
struct LocalQ {
  int* v;
  int* a0;
  int* a1;
  int* n;
};

__device__ __forceinline__ unsigned nf_relax(const NfCtx& c, int u, int a0, int a1, bool local,
                                             const LocalQ& q) {
  u64 ku = ldk(c.key + u);
  int gl = threadIdx.x % AUTO_G;
  for (int a = a0 + gl; a < a1; a += AUTO_G) {
    int h = c.indices[a];
    u64 nk = ku + c.kw[a];
    int h0 = 0, h1 = 0;
    if (local) {
      h0 = c.indptr[h];
      h1 = c.indptr[h + 1];
    }
    if (!AUTO_PRECHECK || nk < ldk(c.key + h)) {
      u64 old = atomicMin(c.key + h, nk);
      if (nk < old) {
        u64 b = nk / c.dp;
        if (b > c.cur) {
          if (AUTO_STAGE) {
            int s = atomicAdd(c.fqn, 1);
            if (s < AUTO_FQ) {
              c.fqv[s] = h;
              c.fqb[s] = b;
              continue;
            }
          }
          nf_push_far(c, h, b);
          continue;
        }
        bool queued = false;
        if (local) {
          int s = atomicAdd(q.n, 1);
          if (s < AUTO_SQ) {
            q.v[s] = h;
            q.a0[s] = h0;
            q.a1[s] = h1;
            queued = true;
          }
        }
        if (!queued && schedule_once(c.stamp, h, c.sv)) {
          int slot = warp_append(c.cout);
          c.lout[slot] = h;
        }
      }
    }
  }
  return gl == 0 ? (unsigned)(a1 - a0) : 0u;
}

extern "C" __global__ void __launch_bounds__(AUTO_BS) auto_nf(
    int n, const int* __restrict__ indptr, const int* __restrict__ indices,
    const u64* __restrict__ kw, u64* key, int* near0, int* near1, u64* cnt, int* stamp,
    int* buckets, u64* bcnt, i64* bstamp, int nb, int* over0, int* over1, u64* ocnt,
    int* oflag, u64* state, u64* scratch, u64 dp, int target, unsigned* bar, int p0,
    int p_end, int it0, int local_rounds, u64* tele, int tele_cap, int tele_base, u64* ctl) {
  __shared__ int sq[2][AUTO_SQ];
  __shared__ int sqa0[2][AUTO_SQ];
  __shared__ int sqa1[2][AUTO_SQ];
  __shared__ int sqn[2];
  __shared__ int fqv[AUTO_STAGE ? AUTO_FQ : 1];
  __shared__ u64 fqb[AUTO_STAGE ? AUTO_FQ : 1];
  __shared__ int fqn;
  __shared__ unsigned long long blk_edges;
  u64* tele_f = tele;
  u64* tele_e = tele + tele_cap;
  u64* tele_t = tele + 2 * tele_cap;
  const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
  if (ldk(ctl + 2)) return;
  int p = p0;
  int it = it0;
  bool done = false;
  for (;; ++it) {
    const u64* S = state + 8 * (it & 1);
    u64* SN = state + 8 * ((it + 1) & 1);
    u64 cur = ldk(S);
    int kind = (int)ldk(S + 1);
    int par = (int)ldk(S + 2);
    if (ldk(S + 3)) {
      done = true;
      break;
    }
    if (ldk(S + 4)) {
      // ---- rebase: the window moves to ncur = min(next ring bucket, min live overflow
      // bucket); overflow entries inside the new window go to the ring, entries whose key
      // has since dropped to bucket <= cur are stale (relaxed elsewhere) and are dropped.
      const int* oin = par ? over1 : over0;
      int* oout = par ? over0 : over1;
      int oc = (int)ldk(ocnt + par);
      u64 mb = KEY_INF;
      for (int i = blockIdx.x * AUTO_BS + threadIdx.x; i < oc; i += gridDim.x * AUTO_BS) {
        u64 b = ldk(key + ldi(oin + i)) / dp;
        if (b > cur) mb = b < mb ? b : mb;
      }
      warp_min_to(scratch, mb);
      grid_barrier(bar);
      u64 ncur = ldk(scratch);
      for (int i = blockIdx.x * AUTO_BS + threadIdx.x; i < oc; i += gridDim.x * AUTO_BS) {
        int v = ldi(oin + i);
        u64 b = ldk(key + v) / dp;
        if (b <= cur) {
          atomicExch(oflag + v, 0);
        } else if (b < ncur + (u64)nb) {
          atomicExch(oflag + v, 0);
          i64 old = atomicMin((long long*)(bstamp + v), (long long)b);
          if ((u64)old > b) {
            int s = (int)(b % (u64)nb);
            int slot = warp_append_keyed(bcnt + s);
            buckets[(size_t)s * n + slot] = v;
          }
        } else {
          int slot = warp_append(ocnt + (1 - par));
          oout[slot] = v;
        }
      }
      if (lead) {
        SN[0] = ncur;
        SN[1] = 1;
        SN[2] = 1 - par;
        SN[3] = (ncur == KEY_INF || (target >= 0 && ldk(key + target) < ncur * dp)) ? 1 : 0;
        SN[4] = 0;
        scratch[1] = ncur + (u64)nb;  // every entry left in the overflow is at or past this
      }
      grid_barrier(bar);
      continue;
    }
    const int* lin;
    u64 cin;
    if (kind == 0) {
      lin = (p & 1) ? near1 : near0;
      cin = ldk(cnt + (p % 3));
    } else {
      lin = buckets + (size_t)(cur % (u64)nb) * n;
      cin = ldk(bcnt + (cur % (u64)nb));
    }
    if (cin == 0) {
      // ---- advance to the next non-empty bucket (not a phase) ----
      if (lead) {
        atomicExch(bcnt + (cur % (u64)nb), 0ULL);  // bucket cur's slot is consumed
        u64 nxt = 0;
        bool found = false;
        for (int d = 1; d < nb; ++d) {
          if (ldk(bcnt + ((cur + d) % (u64)nb))) {
            nxt = cur + d;
            found = true;
            break;
          }
        }
        SN[2] = par;
        u64 omin = ldk(scratch + 1);  // lower bound of the overflow entries' buckets
        u64 lim = found ? nxt + (u64)nb : KEY_INF;
        if (omin != KEY_INF && omin < lim && ldk(ocnt + par) > 0) {
          // overflow entries may fall inside the next window (or nothing else is left)
          SN[0] = cur;
          SN[1] = 0;
          SN[3] = 0;
          SN[4] = 1;
          scratch[0] = found ? nxt : KEY_INF;
          atomicExch(ocnt + (1 - par), 0ULL);
          scratch[1] = KEY_INF;
        } else if (found) {
          SN[0] = nxt;
          SN[1] = 1;
          SN[3] = (target >= 0 && ldk(key + target) < nxt * dp) ? 1 : 0;
          SN[4] = 0;
        } else {
          SN[0] = cur;
          SN[1] = 0;
          SN[3] = 1;
          SN[4] = 0;
        }
      }
      grid_barrier(bar);
      continue;
    }
    // ---- a phase ----
    int ti = p - tele_base;
    if (lead && ti < tele_cap) {
      tele_t[ti] = global_ns();
      tele_f[ti] = cin;
    }
    if (p == p_end) break;
    if (lead) {
      atomicExch(cnt + ((p + 2) % 3), 0ULL);
      SN[0] = cur;
      SN[1] = 0;  // the next phase reads the near list (an empty one means advance)
      SN[2] = par;
      SN[3] = 0;
      SN[4] = 0;
    }
    if (threadIdx.x == 0) {
      sqn[0] = 0;
      sqn[1] = 0;
      fqn = 0;
      blk_edges = 0;
    }
    __syncthreads();
    NfCtx c;
    set_phase(c, indptr, indices, kw, key, stamp, near0, near1, cnt, p);
    c.cur = cur;
    c.dp = dp;
    c.nb = nb;
    c.n = n;
    c.buckets = buckets;
    c.bcnt = bcnt;
    c.bstamp = bstamp;
    c.over = par ? over1 : over0;
    c.ocnt = ocnt + par;
    c.oflag = oflag;
    c.omin = scratch + 1;
    c.fqv = fqv;
    c.fqb = fqb;
    c.fqn = &fqn;
    unsigned my_edges = 0;
    bool local = local_rounds > 1;
    LocalQ q0 = {sq[0], sqa0[0], sqa1[0], &sqn[0]};
    for (int i = blockIdx.x * AUTO_IPB + threadIdx.x / AUTO_G; i < (int)cin;
         i += gridDim.x * AUTO_IPB) {
      int u = ldi(lin + i);
      // a bucket entry whose key has since dropped into an earlier bucket was relaxed there
      if (kind == 1 && ldk(key + u) / dp < cur) continue;
      my_edges += nf_relax(c, u, indptr[u], indptr[u + 1], local, q0);
    }
    __syncthreads();
    // rounds 1..R-1 as in drain_local, but written out: built through drain_local's lambda
    // this kernel compiled differently and ran slower (docs/perf/tuning_defaults.md)
    for (int r = 1; r < local_rounds; ++r) {
      int rq = (r - 1) & 1, wq = r & 1;
      int nq = min(sqn[rq], AUTO_SQ);
      if (nq == 0) break;
      bool more = r + 1 < local_rounds;
      LocalQ qw = {sq[wq], sqa0[wq], sqa1[wq], &sqn[wq]};
      for (int i = threadIdx.x / AUTO_G; i < nq; i += AUTO_IPB) {
        my_edges += nf_relax(c, sq[rq][i], sqa0[rq][i], sqa1[rq][i], more, qw);
      }
      __syncthreads();
      if (threadIdx.x == 0) sqn[rq] = 0;
      __syncthreads();
    }
    atomicAdd(&blk_edges, (unsigned long long)my_edges);
    __syncthreads();
    if (AUTO_STAGE) {
      int nf = min(fqn, AUTO_FQ);
      for (int i = threadIdx.x; i < nf; i += AUTO_BS) nf_push_far(c, fqv[i], fqb[i]);
    }
    if (threadIdx.x == 0 && ti < tele_cap) atomicAdd(tele_e + ti, blk_edges);
    grid_barrier(bar);
    ++p;
  }
  if (lead) {
    int ti = p - tele_base;
    if (done && ti < tele_cap) {
      tele_t[ti] = global_ns();  // end of the last phase
      tele_f[ti] = 0;
    }
    ctl[0] = (u64)p;
    ctl[3] = (u64)it;
    if (done) ctl[2] = 1;
  }
}
