// Incremental repair of a shortest-path tree on the mutable graph (gpu_core/repair/cuda.py;
// common.cuh is prepended). One block runs the whole repair in one launch (the edited part
// of a road map is small: a block-wide barrier per round costs far less than grid-wide
// ones, and the host reads one status word at the end). The steps are those of cpu.py:
// invalidate (the old pred-subtrees below the roots, level by level, the list itself the
// queue), seed (invalidated vertices from valid in-neighbours, then lowered arcs),
// settle (a label-correcting worklist accepting improvements only) and pred (the rule of
// gpu_core/keys.py at every vertex whose key or in-arcs may have changed).
//
// Arcs by stable id: head/tail/weight (int), state (1 = live); the base graph's rows
// (base_indptr, vertices < n0) then the inserted arcs' per-tail lists (first_extra,
// next_extra). In-arcs: the base graph's reverse CSR (rev_ptr/rev_ids, arc ids by head)
// and the inserted arcs sorted by head (ins_heads/ins_ids, binary search).
// Stamps (int arrays, never cleared): flag[v] = 2*call (invalidated) or 2*call+1 (lowered)
// this call; qstamp[v] = the round tick that queued v; done[v] = call once its pred is set.

#define RP_LIVE 1
#define RP_OK 0
#define RP_TOO_LARGE 1
#define RP_ROUNDS 2
#define RP_OVERFLOW 3
#define RP_TIME 4

// status slots
#define S_CODE 0
#define S_INV 1
#define S_TOUCHED 2
#define S_OUT 3
#define S_ROUNDS 4
#define S_EDGES 5
#define S_SEEDS 6
#define S_T0 7  // %globaltimer at the start of each step, then the end
#define S_SLOTS 16

struct Arcs {
  long long n0;
  const i64* base_indptr;
  const i64* first_extra;
  const i64* next_extra;
  const int* head;
  const int* tail;
  const int* weight;
  const unsigned char* state;
  const i64* rev_ptr;
  const i64* rev_ids;
  const i64* ins_heads;
  const i64* ins_ids;
  long long n_ins;
  int hb;
};

__device__ __forceinline__ u64 kw_of(const Arcs& g, i64 e) {
  u64 w = (u64)(unsigned)g.weight[e];
  return g.hb ? ((w << g.hb) | 1ULL) : w;
}

// every arc id of x's row and list (any state): f(e)
template <class F>
__device__ __forceinline__ void all_out(const Arcs& g, i64 x, F f) {
  if (x < g.n0)
    for (i64 e = g.base_indptr[x]; e < g.base_indptr[x + 1]; ++e) f(e);
  for (i64 e = g.first_extra[x]; e >= 0; e = g.next_extra[e]) f(e);
}

template <class F>
__device__ __forceinline__ void live_out(const Arcs& g, i64 x, F f) {
  all_out(g, x, [&](i64 e) {
    if (g.state[e] == RP_LIVE) f(e);
  });
}

// live in-arcs of v: f(arc id)
template <class F>
__device__ __forceinline__ void live_in(const Arcs& g, i64 v, F f) {
  if (v < g.n0)
    for (i64 i = g.rev_ptr[v]; i < g.rev_ptr[v + 1]; ++i) {
      i64 e = g.rev_ids[i];
      if (g.state[e] == RP_LIVE) f(e);
    }
  if (g.n_ins) {
    i64 lo = 0, hi = g.n_ins;  // first index with ins_heads >= v
    while (lo < hi) {
      i64 mid = (lo + hi) >> 1;
      if (g.ins_heads[mid] < v) lo = mid + 1; else hi = mid;
    }
    for (i64 i = lo; i < g.n_ins && g.ins_heads[i] == v; ++i) {
      i64 e = g.ins_ids[i];
      if (g.state[e] == RP_LIVE) f(e);
    }
  }
}

// best key over live in-arcs from vertices with a key (the seed of an invalidated vertex)
__device__ __forceinline__ u64 best_in(const Arcs& g, i64 v, const u64* key) {
  u64 best = KEY_INF;
  live_in(g, v, [&](i64 e) {
    u64 ku = ldk(key + g.tail[e]);
    if (ku != KEY_INF) {
      u64 nk = ku + kw_of(g, e);
      if (nk < best) best = nk;
    }
  });
  return best;
}

// the pred rule: smallest u with key[u] + w' == key[v]; -1 when unreached or none
__device__ __forceinline__ int pred_of(const Arcs& g, i64 v, const u64* key) {
  u64 kv = ldk(key + v);
  if (kv == KEY_INF) return -1;
  int bu = -1;
  live_in(g, v, [&](i64 e) {
    int u = g.tail[e];
    u64 ku = ldk(key + u);
    if (ku != KEY_INF && ku + kw_of(g, e) == kv && (bu < 0 || u < bu)) bu = u;
  });
  return bu;
}

extern "C" __global__ void __launch_bounds__(1024)
repair_tree(long long n0, const i64* base_indptr, const i64* first_extra,
            const i64* next_extra, const int* head, const int* tail, const int* weight,
            const unsigned char* state, const i64* rev_ptr, const i64* rev_ids,
            const i64* ins_heads, const i64* ins_ids, long long n_ins, int hb, u64* key, int* pred, const i64* __restrict__ plan, long long n_roots,
            long long n_dec, long long n_heads, int* flag, int* qstamp, int* done, int call,
            int tick0, int* inv, u64* seedk, int* touched, long long lim, int* qa, int* qb,
            long long qcap, int* outv, long long outcap, long long max_rounds,
            long long budget_ns, u64* status, i64* triples) {
  const Arcs g{n0, base_indptr, first_extra, next_extra, head, tail, weight, state,
               rev_ptr, rev_ids, ins_heads, ins_ids, n_ins, hb};
  const i64* roots = plan;
  const i64* dec_t = plan + n_roots;
  const i64* dec_h = dec_t + n_dec;
  const i64* dec_kw = dec_h + n_dec;
  const i64* heads = dec_kw + n_dec;
  const int INV = 2 * call, LOW = 2 * call + 1;
  __shared__ unsigned long long c_inv, c_touch, c_q, c_out, c_edges;
  __shared__ int code;
  __shared__ u64 t_start;
  const int tid = threadIdx.x, nt = blockDim.x;
  if (tid < S_SLOTS && tid != S_T0) status[tid] = 0;  // tid 0 writes S_T0
  if (tid == 0) {
    c_inv = c_touch = c_q = c_out = c_edges = 0;
    code = RP_OK;
    t_start = global_ns();
    status[S_T0] = t_start;
  }
  __syncthreads();

  // ---- invalidate: the roots, then each level's children (pred[y] == x over any arc) --
  for (i64 i = tid; i < n_roots; i += nt) {
    i64 r = roots[i];
    if (atomicMax(flag + r, INV) < INV) {
      unsigned long long at = atomicAdd(&c_inv, 1ULL);
      if (at < (unsigned long long)lim) inv[at] = (int)r; else code = RP_TOO_LARGE;
    }
  }
  __syncthreads();
  unsigned long long lo = 0;
  while (code == RP_OK) {
    // past the device-time budget a fresh search is the cheaper way (RepairOptions)
    if (tid == 0 && code == RP_OK && budget_ns && global_ns() - t_start > (u64)budget_ns)
      code = RP_TIME;
    unsigned long long hi = c_inv;
    __syncthreads();
    if (code != RP_OK || lo == hi) break;
    for (unsigned long long i = lo + tid; i < hi; i += nt) {
      int x = __ldcg(inv + i);
      all_out(g, x, [&](i64 e) {
        int y = g.head[e];
        if (pred[y] == x && atomicMax(flag + y, INV) < INV) {
          unsigned long long at = atomicAdd(&c_inv, 1ULL);
          if (at < (unsigned long long)lim) inv[at] = y; else code = RP_TOO_LARGE;
        }
      });
    }
    lo = hi;
    __syncthreads();
  }
  if (tid == 0) status[S_T0 + 1] = global_ns();
  if (code != RP_OK) {
    if (tid == 0) { status[S_CODE] = code; status[S_INV] = c_inv; }
    return;
  }
  const long long n_inv = (long long)c_inv;
  for (i64 i = tid; i < n_inv; i += nt) key[inv[i]] = KEY_INF;
  __syncthreads();

  // ---- seed: best valid in-neighbour of each invalidated vertex, then lowered arcs -----
  int tick = tick0;
  for (i64 i = tid; i < n_inv; i += nt) seedk[i] = best_in(g, inv[i], key);
  __syncthreads();
  for (i64 i = tid; i < n_inv; i += nt) {
    u64 b = seedk[i];
    if (b != KEY_INF) {
      int v = inv[i];
      key[v] = b;
      qstamp[v] = tick;
      qa[atomicAdd(&c_q, 1ULL)] = v;  // each v once: qcap >= lim
    }
  }
  __syncthreads();
  for (i64 i = tid; i < n_dec; i += nt) {
    u64 ku = ldk(key + dec_t[i]);
    if (ku == KEY_INF) continue;
    u64 nk = ku + (u64)dec_kw[i];
    int v = (int)dec_h[i];
    if (nk < ldk(key + v) && nk < atomicMin(key + v, nk)) {
      if (atomicMax(flag + v, LOW) < INV) {
        unsigned long long at = atomicAdd(&c_touch, 1ULL);
        if (at < (unsigned long long)lim) touched[at] = v; else code = RP_TOO_LARGE;
      }
      if (atomicExch(qstamp + v, tick) != tick) {
        unsigned long long at = atomicAdd(&c_q, 1ULL);
        if (at < (unsigned long long)qcap) qa[at] = v; else code = RP_OVERFLOW;
      }
    }
  }
  __syncthreads();
  if (tid == 0) {
    status[S_SEEDS] = c_q;
    status[S_T0 + 2] = global_ns();
  }

  // ---- settle: rounds over the worklist, improvements only ------------------------------
  long long rounds = 0;
  int* cur = qa;
  int* nxt = qb;
  while (code == RP_OK) {
    if (tid == 0 && code == RP_OK && budget_ns && global_ns() - t_start > (u64)budget_ns)
      code = RP_TIME;
    unsigned long long cn = c_q;
    __syncthreads();
    if (code != RP_OK || cn == 0) break;
    if (rounds >= max_rounds) { code = RP_ROUNDS; break; }
    if (tid == 0) c_q = 0;
    ++tick;
    __syncthreads();
    unsigned edges = 0;
    for (unsigned long long i = tid; i < cn; i += nt) {
      int x = __ldcg(cur + i);
      u64 kx = ldk(key + x);
      live_out(g, x, [&](i64 e) {
        ++edges;
        int y = g.head[e];
        u64 nk = kx + kw_of(g, e);
        if (nk < ldk(key + y) && nk < atomicMin(key + y, nk)) {
          if (atomicMax(flag + y, LOW) < INV) {
            unsigned long long at = atomicAdd(&c_touch, 1ULL);
            if (at + n_inv < (unsigned long long)lim) touched[at] = y; else code = RP_TOO_LARGE;
          }
          if (atomicExch(qstamp + y, tick) != tick) {
            unsigned long long at = atomicAdd(&c_q, 1ULL);
            if (at < (unsigned long long)qcap) nxt[at] = y; else code = RP_OVERFLOW;
          }
        }
      });
    }
    if (edges) atomicAdd(&c_edges, (unsigned long long)edges);
    int* t = cur; cur = nxt; nxt = t;
    ++rounds;
    __syncthreads();
  }
  if (tid == 0) {
    status[S_ROUNDS] = rounds;
    status[S_EDGES] = c_edges;
    status[S_TOUCHED] = c_touch;
    status[S_T0 + 3] = global_ns();
  }
  if (code != RP_OK) {
    if (tid == 0) { status[S_CODE] = code; status[S_INV] = n_inv; }
    return;
  }
  __syncthreads();

  // ---- pred: invalidated and lowered vertices, their live out-neighbours, edited heads --
  const long long n_touch = (long long)c_touch;
  const long long total = n_inv + n_touch + n_heads;
  for (long long i = tid; i < total; i += nt) {
    int x;
    bool nb = true;
    if (i < n_inv) x = inv[i];
    else if (i < n_inv + n_touch) x = touched[i - n_inv];
    else { x = (int)heads[i - n_inv - n_touch]; nb = false; }
    auto one = [&](int y) {
      if (atomicExch(done + y, call) == call) return;
      pred[y] = pred_of(g, y, key);
      unsigned long long at = atomicAdd(&c_out, 1ULL);
      if (at < (unsigned long long)outcap) outv[at] = y; else code = RP_OVERFLOW;
    };
    one(x);
    if (nb) live_out(g, x, [&](i64 e) { one(g.head[e]); });
  }
  __syncthreads();
  // (vertex, key, pred) of each vertex whose pred was recomputed, right after the status
  // words in the same buffer: the host reads both with one copy
  const long long n_out = c_out < (unsigned long long)outcap ? (long long)c_out : outcap;
  for (long long i = tid; i < n_out; i += nt) {
    int v = outv[i];
    triples[3 * i] = v;
    triples[3 * i + 1] = (i64)ldk(key + v);
    triples[3 * i + 2] = pred[v];
  }
  if (tid == 0) {
    status[S_CODE] = code;
    status[S_INV] = n_inv;
    status[S_OUT] = c_out;
    status[S_T0 + 4] = global_ns();
  }
}
