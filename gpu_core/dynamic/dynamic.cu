// The mutable graph on the device (gpu_core/dynamic/cuda.py; common.cuh is prepended).
// Arrays by stable arc id: tail, head, weight (int), state (unsigned char: 0 deleted,
// 1 live, 2 disabled); the starting graph's arcs keep their CSR rows (base_indptr), arcs
// inserted later hang in per-vertex lists (first_extra[v], next_extra[e]). A batch arrives
// as its net changes (validated on the host): one scatter of (id, state, weight) and one
// linking kernel for the inserted arcs. Nothing is rebuilt.

#define DYN_LIVE 1

// state[ids[i]] = st[i], weight[ids[i]] = w[i]: ids are distinct (the host dedups them).
extern "C" __global__ void dyn_scatter(const long long count, const i64* __restrict__ ids,
                                       const i64* __restrict__ st, const i64* __restrict__ w,
                                       unsigned char* state, int* weight) {
  i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x;
  if (i >= count) return;
  i64 e = ids[i];
  state[e] = (unsigned char)st[i];
  weight[e] = (int)w[i];
}

// Inserted arcs first_id + i: their ends, then a push at the head of the tail's list (the
// order inside a list is irrelevant: compaction sorts rows by tail, weight, head, id).
extern "C" __global__ void dyn_insert(const long long count, const long long first_id,
                                      const i64* __restrict__ t, const i64* __restrict__ h,
                                      int* tail, int* head, i64* first_extra, i64* next_extra) {
  i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x;
  if (i >= count) return;
  i64 e = first_id + i;
  tail[e] = (int)t[i];
  head[e] = (int)h[i];
  i64 old = (i64)atomicExch((u64*)(first_extra + t[i]), (u64)e);
  next_extra[e] = old;
}

// Live out-arcs of v: its base row (if v existed at the start), then its inserted arcs.
// f(e) is called for each live arc id e: the traversal every kernel on the mutable graph
// uses (here, the live out-degree, which the tests compare with the compacted CSR).
template <class F>
__device__ __forceinline__ void dyn_for_out_arcs(i64 v, i64 n0, const i64* base_indptr,
                                                 const i64* first_extra, const i64* next_extra,
                                                 const unsigned char* state, F f) {
  if (v < n0) {
    for (i64 e = base_indptr[v]; e < base_indptr[v + 1]; ++e)
      if (state[e] == DYN_LIVE) f(e);
  }
  for (i64 e = first_extra[v]; e >= 0; e = next_extra[e])
    if (state[e] == DYN_LIVE) f(e);
}

extern "C" __global__ void dyn_live_out_degree(const long long n, const long long n0,
                                               const i64* base_indptr, const i64* first_extra,
                                               const i64* next_extra, const unsigned char* state,
                                               i64* out) {
  i64 v = blockIdx.x * (i64)blockDim.x + threadIdx.x;
  if (v >= n) return;
  i64 d = 0;
  dyn_for_out_arcs(v, n0, base_indptr, first_extra, next_extra, state, [&](i64) { ++d; });
  out[v] = d;
}
