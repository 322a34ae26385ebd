// One-source GPHAST with predecessors (gpu_core/indexed_sssp): the whole search after the
// host's upward search in ONE cooperative launch:
//
//   1. scatter the upward search's (sweep id, key) pairs into up[] (INF elsewhere, kept
//      INF between calls: step 4 resets what step 1 wrote) and set d[] to -1 (not final);
//   2. the sweep, without level barriers (a dataflow): d[v] = min(up[v], min over downward
//      in-arcs d[u] + w), a group of level_g[lv] lanes per vertex (ota_level); a lane
//      waits on each in-arc tail u until d[u] is final, then the group writes d[v], which
//      is itself the flag v's readers wait on. A barrier per level cost ~5 us x 296
//      levels on NE (H100); the dataflow costs the dependency chain only;
//   3. key[v] = d[rank_of[v]] in the graph's ids (KEY_INF when unreached);
//   4. pred[v] = the smallest u with key[u] + w'(u, v) == key[v] over v's in-arcs in the
//      original graph (the rule of gpu_core/keys.py; rows sorted by tail: the first).
//
// Why step 2 cannot deadlock: every lane walks the levels in order (sweep ids are sorted
// by level and an arc goes from a lower level to a higher one), the lanes of a warp are
// always in the same level, where no vertex waits on another, and the launch is
// cooperative, so every block is resident. Take the lowest level with an unfinished
// vertex: all its tails are final, and the lane that owns it either works on it or on an
// earlier vertex of its own, so it gets there and finishes it.
//
// Values written by other blocks in this launch are read through L2 (__ldcg, or a
// volatile load while waiting), never from a stale L1 line. Block 0's lane 0 stamps
// %globaltimer into times[]: after step 1, when it leaves each level (the telemetry rows,
// one per level: how far the sweep's front had got), and at the end. Hierarchy costs are
// below 2^62 (its INF), so d's -1 is never a cost.
#define OTA_INF (1LL << 62)
#define OTA_SENT (-1LL)

__device__ __forceinline__ i64 ota_wait(const i64* d, const int u)
{
    i64 x = *(volatile const i64*)(d + u);
    while (x == OTA_SENT) {
        __nanosleep(32);  // leave L2 and the issue slots to the lanes doing work
        x = *(volatile const i64*)(d + u);
    }
    return x;
}

// One level's vertices [v0, v1) by groups of G lanes (G a power of two <= 32): a group
// pulls one vertex, its lanes over the vertex's downward in-arcs, then a shuffle minimum.
// Vertices high in the hierarchy (separator cliques) have tens to hundreds of in-arcs,
// which one lane would read one dependent load after another. Every lane of a warp runs
// the same trip count (the loop bound is uniform), so the full-mask shuffles are safe.
__device__ __forceinline__ void ota_level(const i64 v0, const i64 v1, const int G,
                                          const i64 tid, const i64 stride,
                                          const i64* __restrict__ down_ptr,
                                          const int* __restrict__ down_src,
                                          const i64* __restrict__ down_w, const i64* up,
                                          i64* d)
{
    const i64 lane = tid & (G - 1);
    const i64 groups = stride / G;
    for (i64 base = v0; base < v1; base += groups) {
        const i64 v = base + tid / G;
        i64 best = OTA_INF;
        if (v < v1) {
            if (lane == 0) best = __ldcg(up + v);
            const i64 e1 = down_ptr[v + 1];
            for (i64 e = down_ptr[v] + lane; e < e1; e += G) {
                const i64 c = ota_wait(d, down_src[e]) + down_w[e];
                best = c < best ? c : best;
            }
        }
        __syncwarp();
        for (int off = G >> 1; off > 0; off >>= 1) {
            const i64 o = __shfl_xor_sync(0xffffffffu, best, off);
            best = o < best ? o : best;
        }
        if (v < v1 && lane == 0) *(volatile i64*)(d + v) = best;
    }
}

extern "C" __global__ void ota_search(
    const i64* __restrict__ level_ptr, const int* __restrict__ level_g, const int nlev,
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
    for (i64 v = tid; v < n; v += stride) d[v] = OTA_SENT;
    grid_barrier(bar);
    if (stamp) times[1] = global_ns();
    for (int lv = 0; lv < nlev; ++lv) {
        ota_level(level_ptr[lv], level_ptr[lv + 1], level_g[lv], tid, stride, down_ptr,
                  down_src, down_w, up, d);
        if (stamp) times[2 + lv] = global_ns();
    }
    grid_barrier(bar);
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
