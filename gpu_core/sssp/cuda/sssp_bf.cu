// Jacobi Bellman-Ford phases (seed 001 conventional / selection / adaptive, seed 004 queue)
// and near-far delta. One phase = RELAX (+ list maintenance) then UPDATE; C = keys at the
// start of the phase, U = tentative keys (U == C between phases). The relax loops and the
// block append are in gpu_core/device/common.cuh (prepended).

// ---- conventional (Harish-Narayanan): |V| threads, mask Ma ---------------------------
extern "C" __global__ void relax_full(int n, const int* __restrict__ indptr,
                                      const int* __restrict__ indices, const u64* __restrict__ kw,
                                      unsigned char* mask, const u64* C, u64* U, u64* st) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned e = 0;
  if (v < n && mask[v]) {
    mask[v] = 0;
    int a0 = indptr[v], a1 = indptr[v + 1];
    e = (unsigned)(a1 - a0);
    relax_row(a0, a1, C[v], indices, kw, U);
  }
  warp_add_to(st + ST_EDGES, e);
}

// UPDATE over all |V|: C = U where smaller, set Ma. Counts the frontier (one atomic per
// warp) because the host must know when Ma is empty.
extern "C" __global__ void update_full(int n, u64* C, const u64* U, unsigned char* mask,
                                       u64* st, u64* st_next, u64* mirror, int target) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned c = 0;
  u64 mk = KEY_INF;
  if (v < n) {
    u64 u = U[v];
    if (u < C[v]) {
      C[v] = u;
      mask[v] = 1;
      c = 1;
      mk = u;
    }
  }
  warp_add_to(st + ST_FRONTIER, c);
  if (target >= 0) warp_min_to(st + ST_MINKEY, mk);
  publish_last_block(st, st_next, mirror, C, nullptr, target);
}

// ---- selection: threads for the frontier list only -----------------------------------
// RELAX over list_in[0..cnt): heads whose tentative key drops below C are appended once
// to list_out (the "scheduled" stamp), counted in st[ST_LIST].
extern "C" __global__ void relax_list(int cnt, const int* __restrict__ list_in,
                                      const int* __restrict__ indptr,
                                      const int* __restrict__ indices, const u64* __restrict__ kw,
                                      unsigned char* mask, const u64* C, u64* U, int* stamp,
                                      int sv, int* list_out, u64* st) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned e = 0;
  if (i < cnt) {
    int v = list_in[i];
    if (mask) mask[v] = 0;
    int a0 = indptr[v], a1 = indptr[v + 1];
    e = (unsigned)(a1 - a0);
    relax_row_below<false>(a0, a1, C[v], indices, kw, C, U, [&](int h) {
      if (schedule_once(stamp, h, sv)) {
        int slot = (int)atomicAdd(st + ST_LIST, 1ULL);  // seed 001: atomic append
        list_out[slot] = h;
      }
    });
  }
  warp_add_to(st + ST_EDGES, e);
}

// UPDATE over the appended list (count read on the device: grid-stride).
extern "C" __global__ void update_list(const int* list, u64* C, const u64* U,
                                       unsigned char* mask, u64* st, u64* st_next, u64* mirror,
                                       int target) {
  int cnt = (int)ldk(st + ST_LIST);
  u64 mk = KEY_INF;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += gridDim.x * blockDim.x) {
    int v = list[i];
    u64 u = U[v];
    C[v] = u;
    if (mask) mask[v] = 1;
    mk = u < mk ? u : mk;
  }
  if (target >= 0) warp_min_to(st + ST_MINKEY, mk);
  if (blockIdx.x == 0 && threadIdx.x == 0) st[ST_FRONTIER] = (u64)cnt;
  publish_last_block(st, st_next, mirror, C, nullptr, target);
}

// ---- block-aggregated stream compaction (seed 001 SWITCH, seed 004 flag queue) --------
// Appends every v with flag[v] != 0 to out (order not kept), clearing the flag when
// clear != 0. With apply != 0 it is seed 004's UPDATE: C[v] = U[v] for flagged v.

extern "C" __global__ void compact_flags(int n, unsigned char* flag, int clear, int apply,
                                         u64* C, const u64* U, int* out, u64* ctr, u64* st,
                                         u64* st_next, u64* mirror, int target) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  bool take = v < n && flag[v];
  u64 mk = KEY_INF;
  if (take) {
    if (clear) flag[v] = 0;
    if (apply) {
      u64 u = U[v];
      C[v] = u;
      mk = u;
    }
  }
  block_append(take, v, out, ctr);
  if (apply && target >= 0) warp_min_to(st + ST_MINKEY, mk);
  if (mirror) publish_last_block(st, st_next, mirror, C, nullptr, target);
}

// seed 004 queue RELAX: like relax_list but marks heads in a flag array (no atomics).
extern "C" __global__ void relax_flag(int cnt, const int* __restrict__ list_in,
                                      const int* __restrict__ indptr,
                                      const int* __restrict__ indices, const u64* __restrict__ kw,
                                      const u64* C, u64* U, unsigned char* flag, u64* st) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned e = 0;
  if (i < cnt) {
    int v = list_in[i];
    int a0 = indptr[v], a1 = indptr[v + 1];
    e = (unsigned)(a1 - a0);
    relax_row_below<false>(a0, a1, C[v], indices, kw, C, U, [&](int h) { flag[h] = 1; });
  }
  warp_add_to(st + ST_EDGES, e);
}

// ---- near-far delta -------------------------------------------------------------------
// dstate: [0] T (threshold), [1] far-pile count, [2] min far key scratch.
// UPDATE of the appended candidates: key < T -> next near list (ST_LIST2), else far pile.
extern "C" __global__ void update_nf(const int* cand, u64* C, const u64* U,
                                     unsigned char* far, int* near_out, u64* dstate, u64* st,
                                     u64* st_next, u64* mirror, int target) {
  int cnt = (int)ldk(st + ST_LIST);
  u64 T = dstate[0];
  u64 mk = KEY_INF;
  int dfar = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += gridDim.x * blockDim.x) {
    int v = cand[i];
    u64 u = U[v];
    C[v] = u;
    if (u < T) {
      if (far[v]) { far[v] = 0; dfar -= 1; }
      int slot = warp_append(st + ST_LIST2);
      near_out[slot] = v;
      mk = u < mk ? u : mk;
    } else if (!far[v]) {
      far[v] = 1;
      dfar += 1;
    }
  }
  int s = __reduce_add_sync(0xffffffffu, dfar);
  if ((threadIdx.x & 31) == 0 && s) atomicAdd(dstate + 1, (u64)(i64)s);
  if (target >= 0) warp_min_to(st + ST_MINKEY, mk);
  if (blockIdx.x == 0 && threadIdx.x == 0) st[ST_FRONTIER] = (u64)cnt;
  publish_last_block(st, st_next, mirror, C, nullptr, target, dstate + 1);
}

// min key over the far pile into *out (set to KEY_INF first)
extern "C" __global__ void far_min(int n, const unsigned char* far, const u64* C, u64* out) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  u64 mk = (v < n && far[v]) ? C[v] : KEY_INF;
  warp_min_to(out, mk);
}

// min key over a list into *out (early exit with a target)
extern "C" __global__ void list_min(int cnt, const int* list, const u64* C, u64* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  u64 mk = KEY_INF;
  for (; i < cnt; i += gridDim.x * blockDim.x) {
    u64 c = C[list[i]];
    mk = c < mk ? c : mk;
  }
  warp_min_to(out, mk);
}

// advance T past the lightest far key (computed on the device: no extra read-back) and
// move far vertices below the new T into the near list (counted in dstate[3]).
extern "C" __global__ void far_split(int n, unsigned char* far, const u64* C, int* near_out,
                                     u64* dstate, u64 dprime) {
  u64 mk = ldk(dstate + 2);
  u64 T = (mk / dprime + 1) * dprime;
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  bool take = v < n && far[v] && C[v] < T;
  if (take) far[v] = 0;
  block_append(take, v, near_out, dstate + 3);
  int c = (int)__reduce_add_sync(0xffffffffu, take ? 1u : 0u);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(dstate + 1, (u64)(-(i64)c));
  if (blockIdx.x == 0 && threadIdx.x == 0 && mk != KEY_INF) dstate[0] = T;
}

// ---- shared helpers --------------------------------------------------------------------
// pred[v] = min u with key[u] + w'(u,v) == key[v]: one pass over all arcs (keys.py rule)
extern "C" __global__ void pred_from_keys(int n, const int* __restrict__ indptr,
                                          const int* __restrict__ indices,
                                          const u64* __restrict__ kw, const u64* key, int* pred) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= n) return;
  u64 ku = key[u];
  if (ku == KEY_INF) return;
  for (int a = indptr[u]; a < indptr[u + 1]; ++a) {
    int h = indices[a];
    if (ku + kw[a] == key[h]) atomicMin(pred + h, u);
  }
}

extern "C" __global__ void pred_finish(int n, int* pred) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && pred[v] == 0x7fffffff) pred[v] = -1;
}

// keys = KEY_INF except the sources (0); optional second array (U) and mask/list set up.
extern "C" __global__ void init_search(int n, u64* C, u64* U, unsigned char* mask) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    C[v] = KEY_INF;
    if (U) U[v] = KEY_INF;
    if (mask) mask[v] = 0;
  }
}

extern "C" __global__ void init_sources(int ns, const int* src, u64* C, u64* U,
                                        unsigned char* mask, int* list) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < ns) {
    int s = src[i];
    C[s] = 0;
    if (U) U[s] = 0;
    if (mask) mask[s] = 1;
    if (list) list[i] = s;
  }
}

// p[k] = v (one thread): scalar resets without a host copy
extern "C" __global__ void set_u64(u64* p, int k, u64 v) {
  if (blockIdx.x == 0 && threadIdx.x == 0) p[k] = v;
}
