// Customization of a CCH topology on the GPU (the twin of metric.py; conventions there).
//
// cch_slots: each arc's CCH edge and direction (binary search in the lower end's sorted
//   list), -1 for a self-loop, -2 for an arc on no edge (the graph does not fit).
// cch_initial: the least arc weight per edge and direction (64-bit atomicMin; weights and
//   INF are non-negative, so the unsigned minimum is the signed one).
// cch_height: the lower triangles of the vertices of one elimination-tree height, a warp
//   per vertex u and a lane per lower neighbour v. Every edge it reads ({v,u}, {v,w}) is
//   owned by a vertex of an earlier height (finished by an earlier launch); the edges it
//   writes ({u,w}) are owned by u, but several lanes of u's warp may write the same one
//   (different v, same w): atomicMin makes that race harmless.
#define CCH_INF (1LL << 62)

__device__ __forceinline__ long long cch_find(const long long* __restrict__ up_ptr,
                                              const int* __restrict__ up_nb, long long lo,
                                              long long hi, int y)
{
    while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (up_nb[mid] < y) lo = mid + 1; else hi = mid;
    }
    return lo;
}

extern "C" __global__ void cch_slots(const int* __restrict__ indptr,
                                     const int* __restrict__ indices,
                                     const int* __restrict__ rank,
                                     const long long* __restrict__ up_ptr,
                                     const int* __restrict__ up_nb, const int n,
                                     long long* __restrict__ slots)
{
    const int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n) return;
    const int ru = rank[u];
    for (int a = indptr[u]; a < indptr[u + 1]; ++a) {
        const int rv = rank[indices[a]];
        if (rv == ru) { slots[a] = -1; continue; }
        const int x = ru < rv ? ru : rv, y = ru < rv ? rv : ru;
        const long long e = cch_find(up_ptr, up_nb, up_ptr[x], up_ptr[x + 1], y);
        if (e < up_ptr[x + 1] && up_nb[e] == y) slots[a] = 2 * e + (ru < rv ? 0 : 1);
        else slots[a] = -2;
    }
}

extern "C" __global__ void cch_initial(const long long* __restrict__ slots,
                                       const int* __restrict__ weights, const long long m,
                                       unsigned long long* up, unsigned long long* down)
{
    const long long a = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= m) return;
    const long long s = slots[a];
    if (s < 0) return;
    unsigned long long* dst = (s & 1) ? down : up;
    atomicMin(dst + (s >> 1), (unsigned long long)weights[a]);
}

extern "C" __global__ void cch_height(const int* __restrict__ lvl_vert, const long long s,
                                      const long long t, const long long* __restrict__ up_ptr,
                                      const int* __restrict__ up_nb,
                                      const long long* __restrict__ dn_ptr,
                                      const int* __restrict__ dn_src,
                                      const long long* __restrict__ dn_edge,
                                      unsigned long long* up, unsigned long long* down)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (s + warp >= t) return;
    const int u = lvl_vert[s + warp];
    const long long u0 = up_ptr[u], u1 = up_ptr[u + 1];
    for (long long k = dn_ptr[u] + lane; k < dn_ptr[u + 1]; k += 32) {
        const int v = dn_src[k];
        const long long a = dn_edge[k];
        const long long da = (long long)down[a], ua = (long long)up[a];
        if (da >= CCH_INF && ua >= CCH_INF) continue;
        long long lo = u0;
        const long long b1 = up_ptr[v + 1];
        for (long long b = a + 1; b < b1; ++b) {
            const int w = up_nb[b];
            lo = cch_find(up_ptr, up_nb, lo, u1, w);  // {u, w} exists: the graph is chordal
            const long long ub = (long long)up[b], db = (long long)down[b];
            if (da < CCH_INF && ub < CCH_INF) {
                const unsigned long long c = (unsigned long long)(da + ub);
                if (c < up[lo]) atomicMin(up + lo, c);
            }
            if (ua < CCH_INF && db < CCH_INF) {
                const unsigned long long c = (unsigned long long)(db + ua);
                if (c < down[lo]) atomicMin(down + lo, c);
            }
        }
    }
}

// cch_upper: metric.py's prune pass for the vertices of one sweep level (top-down), a warp
// per vertex x and a lane per upward edge i = {x, y}; the lane walks x's edges j = {x, z}
// above it with f = {y, z}. Values read may be stale within the launch, but every value
// written is the length of a real path, which is all pruning needs; writes to x's edges
// from several lanes are atomicMin.
extern "C" __global__ void cch_upper(const long long* __restrict__ by_sweep, const long long s,
                                     const long long t, const long long* __restrict__ up_ptr,
                                     const int* __restrict__ up_nb, unsigned long long* up,
                                     unsigned long long* down)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (s + warp >= t) return;
    const long long x = by_sweep[s + warp];
    const long long p0 = up_ptr[x], p1 = up_ptr[x + 1];
    for (long long i = p0 + lane; i < p1; i += 32) {
        const int y = up_nb[i];
        long long lo = up_ptr[y];
        const long long y1 = up_ptr[y + 1];
        for (long long j = i + 1; j < p1; ++j) {
            const int z = up_nb[j];
            lo = cch_find(up_ptr, up_nb, lo, y1, z);
            const long long uf = (long long)up[lo], df = (long long)down[lo];
            const long long ui = (long long)up[i], di = (long long)down[i];
            const long long uj = (long long)up[j], dj = (long long)down[j];
            if (uj < CCH_INF && df < CCH_INF && uj + df < ui)
                atomicMin(up + i, (unsigned long long)(uj + df));
            if (uf < CCH_INF && dj < CCH_INF && uf + dj < di)
                atomicMin(down + i, (unsigned long long)(uf + dj));
            if (ui < CCH_INF && uf < CCH_INF && ui + uf < uj)
                atomicMin(up + j, (unsigned long long)(ui + uf));
            if (df < CCH_INF && di < CCH_INF && df + di < dj)
                atomicMin(down + j, (unsigned long long)(df + di));
        }
    }
}
