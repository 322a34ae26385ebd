// One-source GPHAST with predecessors (gpu_core/indexed_sssp): the whole search after the
// host's upward search in ONE cooperative launch, a grid barrier between its steps:
//
//   1. scatter the upward search's (sweep id, key) pairs into up[] (INF elsewhere, kept
//      INF between calls: step 3 resets what step 1 wrote);
//   2. the sweep, level by level: d[v] = min(up[v], min over downward in-arcs d[u] + w)
//      (sweep ids are sorted by level, so a level reads only finished levels); the first
//      nsmall levels (the top of the hierarchy: a few vertices each) by block 0 alone
//      with a block barrier between them, then one grid barrier, the others by the grid;
//   3. key[v] = d[rank_of[v]] in the graph's ids (KEY_INF when unreached);
//   4. pred[v] = the smallest u with key[u] + w'(u, v) == key[v] over v's in-arcs in the
//      original graph (the rule of gpu_core/keys.py; rows sorted by tail: the first).
//
// Values written by other blocks in this launch are read with __ldcg (L2, not a stale
// L1 line). d needs no initialisation: each entry is written in its own level before any
// later level reads it. Block 0 stamps %globaltimer after each step into times[] (the
// telemetry rows: one per level). Hierarchy costs are below 2^62 (its INF).
#define OTA_INF (1LL << 62)

__device__ __forceinline__ void ota_pull(const i64 v, const i64* __restrict__ down_ptr,
                                         const int* __restrict__ down_src,
                                         const i64* __restrict__ down_w, const i64* up, i64* d)
{
    i64 best = __ldcg(up + v);
    const i64 e1 = down_ptr[v + 1];
    for (i64 e = down_ptr[v]; e < e1; ++e) {
        const i64 c = __ldcg(d + down_src[e]) + down_w[e];
        best = c < best ? c : best;
    }
    d[v] = best;
}

extern "C" __global__ void ota_search(
    const i64* __restrict__ level_ptr, const int nlev, const int nsmall,
    const i64* __restrict__ down_ptr, const int* __restrict__ down_src,
    const i64* __restrict__ down_w,
    const int* __restrict__ up_vert, const i64* __restrict__ up_cost, const int nup,
    i64* up, i64* d, const int* __restrict__ rank_of, const int n,
    const i64* __restrict__ rptr, const int* __restrict__ rsrc, const int* __restrict__ rw,
    const int hb, i64* key, int* pred, unsigned* bar, u64* times)
{
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    const bool stamp = blockIdx.x == 0 && threadIdx.x == 0;
    if (stamp) times[0] = global_ns();
    for (i64 i = tid; i < nup; i += stride) up[up_vert[i]] = up_cost[i];
    grid_barrier(bar);
    if (stamp) times[1] = global_ns();
    if (blockIdx.x == 0) {  // __syncthreads makes a level's writes visible to the block
        for (int lv = 0; lv < nsmall; ++lv) {
            const i64 v1 = level_ptr[lv + 1];
            for (i64 v = level_ptr[lv] + threadIdx.x; v < v1; v += blockDim.x)
                ota_pull(v, down_ptr, down_src, down_w, up, d);
            __syncthreads();
            if (stamp) times[2 + lv] = global_ns();
        }
    }
    if (nsmall > 0) grid_barrier(bar);
    for (int lv = nsmall; lv < nlev; ++lv) {
        const i64 v1 = level_ptr[lv + 1];
        for (i64 v = level_ptr[lv] + tid; v < v1; v += stride)
            ota_pull(v, down_ptr, down_src, down_w, up, d);
        grid_barrier(bar);
        if (stamp) times[2 + lv] = global_ns();
    }
    for (i64 v = tid; v < n; v += stride) {
        const i64 x = __ldcg(d + rank_of[v]);
        key[v] = x >= OTA_INF ? (i64)KEY_INF : x;
    }
    for (i64 i = tid; i < nup; i += stride) up[up_vert[i]] = OTA_INF;
    grid_barrier(bar);
    const i64 one = hb > 0 ? 1 : 0;
    for (i64 v = tid; v < n; v += stride) {
        const i64 kv = __ldcg(key + v);
        int p = -1;
        if (kv != (i64)KEY_INF) {
            const i64 e1 = rptr[v + 1];
            for (i64 e = rptr[v]; e < e1; ++e) {
                const int u = rsrc[e];
                // kv - w' cannot overflow and never equals KEY_INF; rows list their
                // in-arcs by tail, so the first tight one is the smallest
                if (__ldcg(key + u) == kv - ((((i64)rw[e]) << hb) | one)) {
                    p = u;
                    break;
                }
            }
        }
        pred[v] = p;
    }
    grid_barrier(bar);
    if (stamp) times[2 + nlev] = global_ns();
}
