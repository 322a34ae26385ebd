// The mutable graph on the device (gpu_core/dynamic/cuda.py; common.cuh is prepended).
// Arrays by stable arc id: tail, head, weight (int), state (unsigned char: 0 deleted,
// 1 live, 2 disabled); the starting graph's arcs keep their CSR rows (base_indptr), arcs
// inserted later hang in per-vertex lists (first_extra[v], next_extra[e]). Nothing is
// rebuilt: a batch is validated and applied here by three launches over its edits.
//
// A batch (one upload, int64 words): a[k] (arc id, or an insert's tail), b[k] (head),
// c[k] (weight), ins_pos[ji] (edit index of each insert, in id order: insert j makes arc
// total0 + j), add_pos[jv] (edit index of each add_vertex: it makes vertex n0 + j), then
// the k op bytes. The host loop (cpu._apply) applies edits in order and stops at the
// first invalid one; here every edit is checked against the arrays as they were before
// the batch plus what earlier edits of the batch did, which is all an edit can depend on:
//   * an arc id is valid at edit i if it existed before the batch or its insert is < i
//     (a vertex likewise with add_vertex);
//   * an arc is deleted at edit i if it was before the batch or a delete of it is < i
//     (D: the first delete of each id);
//   * its final state / weight are those of its last state edit / weight edit (S, W: the
//     last writer of each id; an insert writes both).
// The first invalid edit is the smallest flagged index (err); the apply launch writes
// nothing if there is one. S, W, D and err hold stamps (epoch << 32 | index, the first
// delete and err as 0xffffffff - index so that atomicMax keeps the smallest): stamps of
// earlier batches are below every stamp of this one, so nothing is cleared between batches.

#define DYN_DELETED 0
#define DYN_LIVE 1
#define DYN_DISABLED 2
#define DYN_OP_DISABLE 1
#define DYN_OP_ENABLE 2
#define DYN_OP_SET_WEIGHT 3
#define DYN_OP_INSERT 4
#define DYN_OP_DELETE 5
#define DYN_OP_ADD_VERTEX 6
#define DYN_MAX_WEIGHT 2147483647LL

struct DynBatch {  // views into the uploaded words
  i64 k, ji, jv, total0, n0;
  u64 epoch;
  const i64* a;
  const i64* b;
  const i64* c;
  const i64* ins_pos;
  const i64* add_pos;
  const unsigned char* ops;
};

__device__ __forceinline__ DynBatch dyn_batch(const i64* words, i64 k, i64 ji, i64 jv,
                                              i64 total0, i64 n0, u64 epoch) {
  DynBatch B;
  B.k = k; B.ji = ji; B.jv = jv; B.total0 = total0; B.n0 = n0; B.epoch = epoch;
  B.a = words; B.b = words + k; B.c = words + 2 * k;
  B.ins_pos = words + 3 * k; B.add_pos = B.ins_pos + ji;
  B.ops = (const unsigned char*)(B.add_pos + jv);
  return B;
}

__device__ __forceinline__ u64 dyn_last(const DynBatch& B, i64 i) {
  return (B.epoch << 32) | (u64)i;
}
__device__ __forceinline__ u64 dyn_first(const DynBatch& B, i64 i) {
  return (B.epoch << 32) | (0xffffffffULL - (u64)i);
}
// Arc id e exists at edit i.
__device__ __forceinline__ bool dyn_arc_ok(const DynBatch& B, i64 e, i64 i) {
  if (e >= 0 && e < B.total0) return true;
  return e >= B.total0 && e - B.total0 < B.ji && B.ins_pos[e - B.total0] < i;
}
// Vertex v exists at edit i.
__device__ __forceinline__ bool dyn_vertex_ok(const DynBatch& B, i64 v, i64 i) {
  if (v >= 0 && v < B.n0) return true;
  return v >= B.n0 && v - B.n0 < B.jv && B.add_pos[v - B.n0] < i;
}
__device__ __forceinline__ bool dyn_weight_ok(i64 w) { return w >= 0 && w <= DYN_MAX_WEIGHT; }

// Threads 0..k-1: edit t (arc edits only); threads k..k+ji-1: insert t - k.
#define DYN_BATCH_ARGS                                                                  \
  const i64* __restrict__ words, const long long k, const long long ji,                \
      const long long jv, const long long total0, const long long n0,                  \
      const unsigned long long epoch

// Launch 1: the checks that need no other edit, and the stamps S, W, D.
extern "C" __global__ void dyn_check(DYN_BATCH_ARGS, const unsigned char* __restrict__ state,
                                     u64* S, u64* W, u64* D, u64* err) {
  i64 t = blockIdx.x * (i64)blockDim.x + threadIdx.x;
  if (t >= k + ji) return;
  DynBatch B = dyn_batch(words, k, ji, jv, total0, n0, epoch);
  if (t >= k) {
    i64 j = t - k, i = B.ins_pos[j], e = total0 + j;
    if (!dyn_vertex_ok(B, B.a[i], i) || !dyn_vertex_ok(B, B.b[i], i) || !dyn_weight_ok(B.c[i])) {
      atomicMax(err, dyn_first(B, i));
      return;
    }
    atomicMax(S + e, dyn_last(B, i));
    atomicMax(W + e, dyn_last(B, i));
    return;
  }
  int op = B.ops[t];
  if (op == DYN_OP_INSERT || op == DYN_OP_ADD_VERTEX) return;
  i64 e = B.a[t];
  if (!dyn_arc_ok(B, e, t) || (e < total0 && state[e] == DYN_DELETED) ||
      (op == DYN_OP_SET_WEIGHT && !dyn_weight_ok(B.c[t]))) {
    atomicMax(err, dyn_first(B, t));
    return;
  }
  if (op == DYN_OP_SET_WEIGHT) {
    atomicMax(W + e, dyn_last(B, t));
  } else {
    atomicMax(S + e, dyn_last(B, t));
    if (op == DYN_OP_DELETE) atomicMax(D + e, dyn_first(B, t));
  }
}

// Launch 2: an arc edit after a delete of the same id in this batch.
extern "C" __global__ void dyn_check_deleted(DYN_BATCH_ARGS, const u64* __restrict__ D,
                                             u64* err) {
  i64 t = blockIdx.x * (i64)blockDim.x + threadIdx.x;
  if (t >= k) return;
  DynBatch B = dyn_batch(words, k, ji, jv, total0, n0, epoch);
  int op = B.ops[t];
  if (op == DYN_OP_INSERT || op == DYN_OP_ADD_VERTEX) return;
  i64 e = B.a[t];
  if (!dyn_arc_ok(B, e, t)) return;  // flagged by launch 1
  u64 d = D[e];
  if ((d >> 32) == epoch && 0xffffffffULL - (d & 0xffffffffULL) < (u64)t)
    atomicMax(err, dyn_first(B, t));
}

// Launch 3: if no edit was flagged, each id's last writers write it; inserted arcs are
// pushed at the head of their tail's list (the order inside a list is irrelevant:
// compaction sorts rows by tail, weight, head, id). Thread 0 also copies err to the
// host-mapped word the host waits on.
extern "C" __global__ void dyn_apply(DYN_BATCH_ARGS, const u64* __restrict__ S,
                                     const u64* __restrict__ W, const u64* __restrict__ err,
                                     u64* host_err, unsigned char* state, int* weight,
                                     int* tail, int* head, i64* first_extra, i64* next_extra) {
  i64 t = blockIdx.x * (i64)blockDim.x + threadIdx.x;
  u64 ev = *err;
  if (t == 0) *(volatile u64*)host_err = ev;
  if (t >= k + ji || (ev >> 32) == epoch) return;
  DynBatch B = dyn_batch(words, k, ji, jv, total0, n0, epoch);
  if (t >= k) {
    i64 j = t - k, i = B.ins_pos[j], e = total0 + j;
    int tl = (int)B.a[i];
    tail[e] = tl;
    head[e] = (int)B.b[i];
    if (S[e] == dyn_last(B, i)) state[e] = DYN_LIVE;
    if (W[e] == dyn_last(B, i)) weight[e] = (int)B.c[i];
    next_extra[e] = (i64)atomicExch((u64*)(first_extra + tl), (u64)e);
    return;
  }
  int op = B.ops[t];
  if (op == DYN_OP_INSERT || op == DYN_OP_ADD_VERTEX) return;
  i64 e = B.a[t];
  if (op == DYN_OP_SET_WEIGHT) {
    if (W[e] == dyn_last(B, t)) weight[e] = (int)B.c[t];
  } else if (S[e] == dyn_last(B, t)) {
    state[e] = op == DYN_OP_DISABLE ? DYN_DISABLED : op == DYN_OP_ENABLE ? DYN_LIVE
                                                                           : DYN_DELETED;
  }
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
