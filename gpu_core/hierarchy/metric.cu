// Customization of a CCH topology on the GPU (the twin of metric.py and perfect.py;
// conventions there).
//
// cch_slots: each arc's CCH edge and direction (binary search in the lower end's sorted
//   list), -1 for a self-loop, -2 for an arc on no edge (the graph does not fit).
// cch_initial: the least arc weight per edge and direction (64-bit atomicMin; weights and
//   INF are non-negative, so the unsigned minimum is the signed one).
// cch_push / cch_q: the basic customization (bottom-up) and the perfect one with the arc
//   removal's test (top-down), one launch per elimination-tree height. Both visit, for each
//   vertex v of the height, every pair i < j of its upward edges {v, u_i}, {v, u_j}: the
//   triangle v, u_i, u_j, whose third edge f = {u_i, u_j} is in u_i's sorted list (v's
//   upward neighbours form a clique). The pairs of one vertex are cut into tiles of
//   TILE x 32 (rows i, columns j) and a warp takes one tile, a lane per column j: a grid
//   separator's vertex with thousands of upward edges spreads over thousands of warps
//   instead of serialising one (the old warp-per-vertex kernels took 83 s on the
//   Kanto-sized map against 19 s on 16 host cores). ``tile_ptr`` numbers the tiles of the
//   vertices in ``lvl_vert`` order; a warp finds its vertex by binary search.
#define CCH_INF (1LL << 62)

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
        const long long e = lower_bound_i32(up_nb, up_ptr[x], up_ptr[x + 1], y);
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

#define CCH_TILE 32

// The vertex (position p in lvl_vert), its first edge and upward degree, and the tile's
// first row i0 and column j of this lane, for tile q of the launch's height s..e.
struct CchTile { long long base; int d, i0, i1, j; };

__device__ __forceinline__ bool cch_tile(const int* __restrict__ lvl_vert,
                                         const long long* __restrict__ tile_ptr, long long s,
                                         long long e, long long q,
                                         const long long* __restrict__ up_ptr, CchTile& t)
{
    long long lo = s, hi = e;  // the last p with tile_ptr[p] <= q
    while (hi - lo > 1) {
        const long long mid = (lo + hi) >> 1;
        if (tile_ptr[mid] <= q) lo = mid; else hi = mid;
    }
    const int v = lvl_vert[lo];
    t.base = up_ptr[v];
    t.d = (int)(up_ptr[v + 1] - t.base);
    const int k = (t.d + 31) >> 5;
    long long r = q - tile_ptr[lo];
    int ti = 0;  // tiles row by row: row ti holds columns ti .. k-1
    while (r >= k - ti) { r -= k - ti; ++ti; }
    t.i0 = ti * CCH_TILE;
    t.i1 = min(t.i0 + CCH_TILE, t.d - 1);
    t.j = (int)(ti + r) * 32 + (threadIdx.x & 31);
    return t.j < t.d;
}

// f = {u, w} in u's sorted list. v's neighbours from u_i on are all in it, in order, so
// u_j sits at least j - i - 1 places after u's first and d - 1 - j before its end.
__device__ __forceinline__ long long cch_third(const long long* __restrict__ up_ptr,
                                               const int* __restrict__ up_nb, int u, int i,
                                               int j, int d, int w)
{
    long long lo = up_ptr[u] + (j - i - 1), hi = up_ptr[u + 1] - (d - 1 - j);
    while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (up_nb[mid] < w) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// Basic customization, bottom-up: v pushes u_i -> v -> u_j and u_j -> v -> u_i into f.
// Every edge read is v's (final: its lower neighbours are of earlier heights); f belongs
// to a higher vertex, written by several v of this height: atomicMin.
extern "C" __global__ void cch_push(const int* __restrict__ lvl_vert,
                                    const long long* __restrict__ tile_ptr, const long long s,
                                    const long long e, const long long q0,
                                    const long long q1, const long long* __restrict__ up_ptr,
                                    const int* __restrict__ up_nb, unsigned long long* up,
                                    unsigned long long* down)
{
    const long long q = q0 + (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (q >= q1) return;
    CchTile t;
    if (!cch_tile(lvl_vert, tile_ptr, s, e, q, up_ptr, t)) return;
    const long long b = t.base + t.j;
    const int w = up_nb[b];
    const unsigned long long ub = up[b], db = down[b];
    const unsigned long long inf = CCH_INF;
    for (int i = t.i0; i < t.i1 && i < t.j; ++i) {
        const long long a = t.base + i;
        const unsigned long long da = down[a], ua = up[a];
        const bool to_up = da < inf && ub < inf, to_down = ua < inf && db < inf;
        if (!to_up && !to_down) continue;
        const long long f = cch_third(up_ptr, up_nb, up_nb[a], i, t.j, t.d, w);
        if (to_up && da + ub < up[f]) atomicMin(up + f, da + ub);
        if (to_down && db + ua < down[f]) atomicMin(down + f, db + ua);
    }
}

__device__ __forceinline__ unsigned long long cch_warp_min(unsigned long long x)
{
    for (int o = 16; o; o >>= 1) x = min(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}

// perfect.py's Q, top-down: for x's edges {x, y} (row i) and {x, z} (column j), y < z,
// f = {y, z} perfect (its row is of a higher height, settled: min(basic, Q)):
//   Q(x->y) <- b(x->z) + d(z->y)   Q(y->x) <- d(y->z) + b(z->x)     (z above y)
//   Q(x->z) <- b(x->y) + d(y->z)   Q(z->x) <- d(z->y) + b(y->x)     (y between)
// x's own row is read only as basic (bu/bd): nothing this launch writes. Row minima are
// reduced over the warp, column minima over the rows in registers, then atomicMin.
extern "C" __global__ void cch_q(const int* __restrict__ lvl_vert,
                                 const long long* __restrict__ tile_ptr, const long long s,
                                 const long long e, const long long q0, const long long q1,
                                 const long long* __restrict__ up_ptr,
                                 const int* __restrict__ up_nb,
                                 const unsigned long long* __restrict__ bu,
                                 const unsigned long long* __restrict__ bd,
                                 unsigned long long* qu, unsigned long long* qd)
{
    const long long q = q0 + (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (q >= q1) return;  // whole warps: q is the same on every lane
    CchTile t;
    const bool on = cch_tile(lvl_vert, tile_ptr, s, e, q, up_ptr, t);
    const unsigned long long none = ~0ULL, inf = CCH_INF;
    long long b = t.base + (on ? t.j : 0);
    const int z = on ? up_nb[b] : 0;
    const unsigned long long buj = on ? bu[b] : inf, bdj = on ? bd[b] : inf;
    unsigned long long cu = none, cd = none;
    for (int i = t.i0; i < t.i1; ++i) {
        const long long a = t.base + i;
        const unsigned long long bui = bu[a], bdi = bd[a];
        unsigned long long ru = none, rd = none;
        if (on && i < t.j) {
            const long long f = cch_third(up_ptr, up_nb, up_nb[a], i, t.j, t.d, z);
            const unsigned long long uf = min(bu[f], qu[f]), df = min(bd[f], qd[f]);
            ru = buj + df;
            rd = uf + bdj;
            cu = min(cu, bui + uf);
            cd = min(cd, df + bdi);
        }
        ru = cch_warp_min(ru);
        rd = cch_warp_min(rd);
        if ((threadIdx.x & 31) == 0) {
            if (ru < qu[a]) atomicMin(qu + a, ru);
            if (rd < qd[a]) atomicMin(qd + a, rd);
        }
    }
    if (on) {
        if (cu < qu[b]) atomicMin(qu + b, cu);
        if (cd < qd[b]) atomicMin(qd + b, cd);
    }
}

// Q complete: keep the arcs the basic weight beats strictly; q becomes the perfect weight.
extern "C" __global__ void cch_settle(const unsigned long long* __restrict__ bu,
                                      const unsigned long long* __restrict__ bd,
                                      unsigned long long* qu, unsigned long long* qd,
                                      bool* ku, bool* kd, const long long m)
{
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    unsigned long long b = bu[e], c = qu[e];
    ku[e] = b < c;
    qu[e] = min(b, c);
    b = bd[e];
    c = qd[e];
    kd[e] = b < c;
    qd[e] = min(b, c);
}
