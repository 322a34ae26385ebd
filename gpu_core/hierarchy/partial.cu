// Partial re-customization on the GPU (the twin of partial.py's ``update``; conventions
// there and in metric.cu).
//
// One cooperative launch walks the elimination-tree heights bottom-up with grid barriers
// between the steps (a launch per step cost more than the work on NE's ~300 heights):
//   seed:    the changed inputs written into base_up/base_down, their edges marked dirty
//            and their lower ends queued;
//   per height h, when a vertex of h is queued:
//     collect: a warp per queued vertex of h appends its dirty edges to ``list``;
//     edges:   a warp per listed edge f = {u, w} recomputes it from its input and its lower
//              triangles {v, u}, {v, w} (v a lower neighbour of both: a descendant of u,
//              so of a lower height, final), lanes over the shorter lower-neighbour list.
//              A changed value is recorded (edge, old up, old down) and marks the edges it
//              is a triangle leg of, {y, w} / {w, y} for u's other upward neighbours y: their
//              lower end is an ancestor of u, of a higher height, queued in its bucket.
// An edge is written only at its own height, by its own warp, and read at higher heights
// only: the barriers order every read after its write. Values written in this launch are
// read through L2 (__ldcg): another SM may hold a stale L1 line of them.
#define CCH_INF (1LL << 62)  // i64, u64, grid_barrier, warp_min64, lower_bound_i32: common.cuh

__device__ __forceinline__ i64 cchp_find(const i64* __restrict__ up_ptr,
                                         const int* __restrict__ up_nb, int x, int y)
{
    const i64 p = lower_bound_i32(up_nb, up_ptr[x], up_ptr[x + 1], y);
    return (p < up_ptr[x + 1] && up_nb[p] == y) ? p : -1;
}

__device__ __forceinline__ void cchp_queue(int x, int* queued, const int* __restrict__ height,
                                           const i64* __restrict__ lp, int* bucket, int* bcount)
{
    if (atomicExch(queued + x, 1) == 0) {
        const int hx = height[x];
        bucket[lp[hx] + atomicAdd(bcount + hx, 1)] = x;
    }
}

// The triangle of a = {v, u} and b = {v, w} (v below both): u -> v -> w into nu, w -> v ->
// u into nd.
__device__ __forceinline__ void cchp_triangle(i64 a, i64 b, const i64* up, const i64* down,
                                              u64& nu, u64& nd)
{
    const u64 inf = CCH_INF;
    const u64 da = __ldcg(down + a), ua = __ldcg(up + a);
    const u64 ub = __ldcg(up + b), db = __ldcg(down + b);
    if (da < inf && ub < inf) nu = min(nu, da + ub);
    if (ua < inf && db < inf) nd = min(nd, db + ua);
}

extern "C" __global__ void cch_partial(
    const i64* __restrict__ seeds, const i64* __restrict__ seed_up,
    const i64* __restrict__ seed_down, const i64 nseeds, const int heights,
    const i64* __restrict__ lp, const int* __restrict__ height, const int* __restrict__ tails,
    const i64* __restrict__ up_ptr, const int* __restrict__ up_nb,
    const i64* __restrict__ dn_ptr, const int* __restrict__ dn_src,
    const i64* __restrict__ dn_edge, i64* base_up, i64* base_down, i64* up, i64* down,
    unsigned char* dirty, int* queued, int* bucket, int* bcount, i64* list, int* lcount,
    i64* changed, i64* old_up, i64* old_down, int* ccount, const i64 cap, unsigned* bar)
{
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 threads = (i64)gridDim.x * blockDim.x;
    const int lane = threadIdx.x & 31;
    const i64 warp = tid >> 5, warps = threads >> 5;
    const u64 inf = CCH_INF;

    for (i64 i = tid; i < nseeds; i += threads) {
        const i64 f = seeds[i];
        base_up[f] = seed_up[i];
        base_down[f] = seed_down[i];
        dirty[f] = 1;
        cchp_queue(tails[f], queued, height, lp, bucket, bcount);
    }
    grid_barrier(bar);

    for (int h = 0; h < heights; ++h) {
        const int nb = __ldcg(bcount + h);  // final: only lower heights queue into h
        if (nb == 0) continue;  // the same for every thread: no barrier skipped unevenly
        for (i64 i = warp; i < nb; i += warps) {
            const int u = __ldcg(bucket + lp[h] + i);
            if (lane == 0) queued[u] = 0;  // clean for the next launch
            for (i64 f = up_ptr[u] + lane; f < up_ptr[u + 1]; f += 32)
                if (__ldcg(dirty + f)) list[atomicAdd(lcount + h, 1)] = f;
        }
        grid_barrier(bar);
        const int ne = __ldcg(lcount + h);
        for (i64 i = warp; i < ne; i += warps) {
            const i64 f = __ldcg(list + i);
            const int u = tails[f], w = up_nb[f];
            u64 nu = inf, nd = inf;
            const i64 du0 = dn_ptr[u], du1 = dn_ptr[u + 1];
            const i64 dw0 = dn_ptr[w], dw1 = dn_ptr[w + 1];
            if (du1 - du0 <= dw1 - dw0) {  // u's lower neighbours v; {v, w} searched
                for (i64 k = du0 + lane; k < du1; k += 32) {
                    const i64 b = cchp_find(up_ptr, up_nb, dn_src[k], w);
                    if (b >= 0) cchp_triangle(dn_edge[k], b, up, down, nu, nd);
                }
            } else {  // w's lower neighbours below u (ascending); {v, u} searched
                const i64 below = lower_bound_i32(dn_src, dw0, dw1, u);
                for (i64 k = dw0 + lane; k < below; k += 32) {
                    const i64 a = cchp_find(up_ptr, up_nb, dn_src[k], u);
                    if (a >= 0) cchp_triangle(a, dn_edge[k], up, down, nu, nd);
                }
            }
            nu = warp_min64(nu);
            nd = warp_min64(nd);
            int moved = 0;
            if (lane == 0) {
                nu = min(nu, (u64)__ldcg(base_up + f));
                nd = min(nd, (u64)__ldcg(base_down + f));
                const i64 ou = __ldcg(up + f), od = __ldcg(down + f);
                dirty[f] = 0;
                if ((i64)nu != ou || (i64)nd != od) {
                    moved = 1;
                    const int k = atomicAdd(ccount, 1);
                    if (k < cap) {
                        changed[k] = f;
                        old_up[k] = ou;
                        old_down[k] = od;
                    }
                    up[f] = (i64)nu;
                    down[f] = (i64)nd;
                }
            }
            if (!__shfl_sync(0xffffffffu, moved, 0)) continue;
            for (i64 k = up_ptr[u] + lane; k < up_ptr[u + 1]; k += 32) {
                if (k == f) continue;
                const int y = up_nb[k];
                const int x = k < f ? y : w;  // the lower end of {y, w}
                const i64 g = cchp_find(up_ptr, up_nb, x, k < f ? w : y);
                if (g < 0) continue;  // not a chordal topology: the host's tests catch it
                dirty[g] = 1;
                cchp_queue(x, queued, height, lp, bucket, bcount);
            }
        }
        grid_barrier(bar);
    }
}
