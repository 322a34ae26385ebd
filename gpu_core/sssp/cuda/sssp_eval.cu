// Seed 004: evaluation-value parallel Dijkstra. status: 0 unreached, 1 open, 2 settled.
// Phase: D = min over open u of key[u] + w' of u's lightest arc to a non-settled head
// (rows sorted by weight: the first non-settled head); S = open u with key[u] <= D are
// settled; arcs of S to non-settled heads are relaxed (keys of S are final).

// D(i) by parallel reduction: warp shuffles, then one atomicMin per warp.
extern "C" __global__ void eval_d(int n, const int* __restrict__ indptr,
                                  const int* __restrict__ sidx, const u64* __restrict__ skw,
                                  int rows_sorted, const u64* key, const int* status, u64* st) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  u64 e = KEY_INF;
  if (u < n && status[u] == 1) {
    u64 best = KEY_INF;
    for (int a = indptr[u]; a < indptr[u + 1]; ++a) {
      if (status[sidx[a]] != 2) {
        u64 w = skw[a];
        best = w < best ? w : best;
        if (rows_sorted) break;  // the first non-settled arc is the lightest
      }
    }
    if (best != KEY_INF) e = key[u] + best;
  }
  warp_min_to(st + ST_D, e);
}

// S = open u with key[u] <= D: settle and list them (block-aggregated append, ST_LIST2)
extern "C" __global__ void eval_settle(int n, const u64* key, int* status, int* slist, u64* st) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  u64 D = ldk(st + ST_D);
  bool take = u < n && status[u] == 1 && key[u] <= D;
  if (take) status[u] = 2;
  block_append(take, u, slist, st + ST_LIST2);
}

// Relax the arcs of S to non-settled heads. frontier: heads whose key decreased (counted
// once via the phase stamp); ST_LIST: vertices opened in this phase.
extern "C" __global__ void eval_relax(const int* slist, const int* __restrict__ indptr,
                                      const int* __restrict__ indices,
                                      const u64* __restrict__ kw, u64* key, int* status,
                                      int* stamp, int sv, u64* st, u64* st_next, u64* mirror,
                                      int target) {
  int cnt = (int)ldk(st + ST_LIST2);
  unsigned e = 0, f = 0, opened = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += gridDim.x * blockDim.x) {
    int u = slist[i];
    u64 ku = key[u];
    for (int a = indptr[u]; a < indptr[u + 1]; ++a) {
      int h = indices[a];
      if (ldi(status + h) == 2) continue;
      e += 1;
      u64 nk = ku + kw[a];
      if (nk < ldk(key + h)) {
        u64 old = atomicMin(key + h, nk);
        if (nk < old) {
          if (schedule_once(stamp, h, sv)) f += 1;
          if (ldi(status + h) == 0 && atomicCAS(status + h, 0, 1) == 0) opened += 1;
        }
      }
    }
  }
  warp_add_to(st + ST_EDGES, e);
  warp_add_to(st + ST_FRONTIER, f);
  warp_add_to(st + ST_LIST, opened);
  publish_last_block(st, st_next, mirror, key, status, target);
}
