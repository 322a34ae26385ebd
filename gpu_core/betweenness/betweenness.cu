// Group-betweenness greedy round on the GPU (seed 002), three parallelisations.
//
// Every kernel computes, per source s (not in R), exactly what gpu_core/betweenness/cpu.py
// computes: exact integer distances over arc lengths w >= 1 (hops: w = 1), the path counts
// sigma (all shortest paths) and sbar (avoiding R) over the tight-arc DAG, the back-trace
// dbar[v] = sum over tight (v,x), x not in R, of b[x]/sigma[x] + dbar[x], and the net gain
// a_s*sbar[v]*dbar[v] - a_s*b[v]*(sigma[v]-sbar[v])/sigma[v] per vertex.
//
// Distances: frontier Bellman-Ford rounds (a BFS when w = 1). Counting: Kahn levels of the
// tight DAG (a vertex's level follows all its tight predecessors), so sigma is complete
// before it is used, for hops and weighted paths alike.
//
// work_efficient (McLaughlin & Bader SC14, seed 002 Fig. 2(b)): one block per source runs
//   the whole search + back-trace with explicit frontier queues in one launch; gridDim
//   blocks (N_SM * k) loop over the sources of the batch.
// edge / vertex (seed 002 Fig. 2(a), prior work [2]): level-synchronous, one launch per
//   level for a batch of S sources, one thread per (source, arc) or (source, vertex),
//   every arc/vertex checked in every level: in betweenness_ls.cu.

#define INF 0x7fffffffffffffffLL
typedef long long ll;
typedef unsigned long long ull;

__device__ __forceinline__ ll ld_volatile(const ll* p) { return *((volatile const ll*)p); }

__device__ __forceinline__ double block_sum(double v, double* red) {
    // deterministic: fixed shuffle tree, then warps summed in order by thread 0
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (lane == 0) red[wid] = v;
    __syncthreads();
    double t = 0.0;
    if (threadIdx.x == 0) {
        const int nw = (blockDim.x + 31) >> 5;
        for (int i = 0; i < nw; ++i) t += red[i];
    }
    __syncthreads();
    return t;  // valid in thread 0
}

// One block's exact search from s: distances (frontier Bellman-Ford), then Kahn levels of
// the tight DAG with sigma and sbar pulled level by level. On return order[lvl[l] ..
// lvl[l+1]) holds level l; returns the number of levels. Ends with a barrier.
// Per-source vertex state of the work-efficient kernels, one 32-byte record per vertex:
// a random visit of a vertex (tight-arc test, sigma, sbar, dbar) touches one 32-byte
// sector instead of four (the rows are far larger than L2, so sectors are the cost).
struct __align__(32) VRec {
    ll dist;
    double sigma;
    double sbar;
    double dbar;
};

// A "group" runs one source: the whole block, or (WARP) one warp of it, with its own
// shared counters. Levels of a road map hold ~100 vertices: a warp per source keeps its
// lanes busy and syncs with __syncwarp instead of a block barrier.
template <bool WARP>
__device__ __forceinline__ void gsync() {
    if (WARP) __syncwarp(); else __syncthreads();
}
template <bool WARP>
__device__ __forceinline__ int gtid() { return WARP ? (threadIdx.x & 31) : threadIdx.x; }
template <bool WARP>
__device__ __forceinline__ int gsize() { return WARP ? 32 : blockDim.x; }

// One group's exact search from s: distances (frontier Bellman-Ford), then Kahn levels of
// the tight DAG with sigma and sbar pulled level by level. On return order[lvl[l] ..
// lvl[l+1]) holds level l; returns the number of levels. Ends with a group barrier.
template <bool WITH_SBAR, bool WARP>
__device__ int we_search(const int n, const int s, const int* __restrict__ indptr,
                         const int* __restrict__ indices, const ll* __restrict__ w,
                         const int* __restrict__ rindptr, const int* __restrict__ rindices,
                         const ll* __restrict__ rw, const unsigned char* __restrict__ in_r,
                         VRec* rec, int* q0, int* q1, int* stamp, int& s_len, int& s_next,
                         const ll delta, ll& s_bound, ll& s_minfar, int& s_near,
                         unsigned char* tin, unsigned char* tout,
                         const int* __restrict__ tg = nullptr, const int T = 0,
                         ll* s_dmax = nullptr)
{
    // Near-far (delta > 0; Davidson et al. IPDPS 2014): phase 1 expands only frontier
    // vertices with dist < bound; the others stay in the frontier unexpanded. When no
    // vertex below the bound is left, bound = (smallest frontier dist) + delta. Plain
    // frontier Bellman-Ford re-expands a vertex each time it improves (on road maps with
    // varied weights many times); near-far settles roughly in distance order. The fixed
    // point (exact distances) is the same, so everything after phase 1 is unchanged.
    // tin/tout (optional): per level-order position i, bit k set iff in-/out-arc k (< 8)
    // of order[i] is tight; later passes skip arcs known not tight (arcs >= 8 are tested).
    // Sampling (T > 0 targets tg): a vertex u with dist[u] >= D = max over the targets of
    // their (tentative) distance cannot precede a target on a shortest path (arcs >= 1),
    // so it is not expanded, and the Kahn phase keeps only dist <= D. Every vertex with
    // true distance <= D is still exact (its predecessors lie below D), so are their
    // counts sigma: the walks back from the targets see exactly the full search's values.
    const int tid = gtid<WARP>(), bd = gsize<WARP>();
    for (int v = tid; v < n; v += bd) { rec[v].dist = INF; stamp[v] = -1; }
    gsync<WARP>();
    if (tid == 0) {
        rec[s].dist = 0; q0[0] = s; s_len = 1; s_next = 0;
        if (T > 0) *s_dmax = INF;
        s_bound = delta > 0 ? delta : INF;
        s_minfar = INF; s_near = 0;
    }
    gsync<WARP>();
    // ---- phase 1: exact distances, frontier Bellman-Ford (BFS when w == 1)
    int* cur = q0;
    int* nxt = q1;
    int round = 0;
    while (true) {
        const int len = s_len;
        if (len == 0) break;
        const ll dmax = T > 0 ? *s_dmax : INF;
        const ll bound = s_bound;
        for (int i = tid; i < len; i += bd) {
            const int u = cur[i];
            const ll du = ld_volatile(&rec[u].dist);
            if (du >= dmax) continue;  // sampling: beyond every target
            if (du >= bound) {  // far: stays in the frontier, not expanded yet
                if (atomicExch(&stamp[u], round) != round) nxt[atomicAdd(&s_next, 1)] = u;
                if (du < ld_volatile(&s_minfar)) atomicMin((ull*)&s_minfar, (ull)du);
                continue;
            }
            const int e1 = indptr[u + 1];
            for (int e = indptr[u]; e < e1; ++e) {
                const int x = indices[e];
                const ll nd = du + w[e];
                if (nd < ld_volatile(&rec[x].dist)) {
                    const ll old = (ll)atomicMin((ull*)&rec[x].dist, (ull)nd);
                    if (nd < old) {
                        if (nd < bound) s_near = 1;
                        else if (nd < ld_volatile(&s_minfar)) atomicMin((ull*)&s_minfar, (ull)nd);
                        if (atomicExch(&stamp[x], round) != round) nxt[atomicAdd(&s_next, 1)] = x;
                    }
                }
            }
        }
        gsync<WARP>();
        if (tid == 0) {
            s_len = s_next; s_next = 0;
            // nothing below the bound left in the frontier: move the bound past its minimum
            if (!s_near && s_minfar != INF) s_bound = s_minfar + delta;
            s_near = 0; s_minfar = INF;
            if (T > 0) {
                ll d = 0;
                for (int k = 0; k < T; ++k) {
                    const int t = tg[k];
                    if (t != s) d = max(d, ld_volatile(&rec[t].dist));
                }
                *s_dmax = d;
            }
        }
        int* t = cur; cur = nxt; nxt = t;
        ++round;
        gsync<WARP>();
    }
    const ll dlim = T > 0 ? *s_dmax : INF;  // Kahn: only vertices with dist <= dlim
    // ---- phase 2: tight in-degree (pull over reversed arcs), then Kahn levels
    for (int v = tid; v < n; v += bd) {
        const ll dv = rec[v].dist;
        int c = 0;
        if (dv != INF && dv <= dlim) {
            const int e1 = rindptr[v + 1];
            for (int e = rindptr[v]; e < e1; ++e) {
                const ll du = rec[rindices[e]].dist;
                if (du != INF && du + rw[e] == dv) ++c;
            }
        }
        stamp[v] = c;
    }
    int* order = q0;
    int* lvl = q1;
    gsync<WARP>();
    if (tid == 0) {
        order[0] = s; lvl[0] = 0; lvl[1] = 1; s_len = 1;
        rec[s].sigma = 1.0;
        if (WITH_SBAR) rec[s].sbar = in_r[s] ? 0.0 : 1.0;
    }
    gsync<WARP>();
    int L = 0;
    while (true) {
        const int lo = lvl[L], hi = lvl[L + 1];
        if (lo == hi) break;
        for (int i = lo + tid; i < hi; i += bd) {
            const int x = order[i];
            if (L > 0) {  // pull sigma: every tight predecessor is on an earlier level
                const ll dx = rec[x].dist;
                double sg = 0.0, sb = 0.0;
                unsigned m8 = 0;
                const int e0 = rindptr[x], e1 = rindptr[x + 1];
                for (int e = e0; e < e1; ++e) {
                    const VRec& ru = rec[rindices[e]];
                    const ll du = ru.dist;
                    if (du != INF && du + rw[e] == dx) {
                        sg += ru.sigma;
                        if (WITH_SBAR) sb += ru.sbar;
                        if (e - e0 < 8) m8 |= 1u << (e - e0);
                    }
                }
                if (tin) tin[i] = (unsigned char)m8;
                rec[x].sigma = sg;
                if (WITH_SBAR) rec[x].sbar = in_r[x] ? 0.0 : sb;
            }
            // push: a successor whose last tight predecessor this was joins level L + 1
            const ll du = rec[x].dist;
            unsigned m8 = 0;
            const int e0 = indptr[x], e1 = indptr[x + 1];
            for (int e = e0; e < e1; ++e) {
                const int y = indices[e];
                const ll dy = rec[y].dist;
                if (du + w[e] == dy && dy <= dlim) {
                    if (e - e0 < 8) m8 |= 1u << (e - e0);
                    if (atomicSub(&stamp[y], 1) == 1) order[atomicAdd(&s_len, 1)] = y;
                }
            }
            if (tout) tout[i] = (unsigned char)m8;
        }
        gsync<WARP>();
        if (tid == 0) lvl[L + 2] = s_len;
        ++L;
        gsync<WARP>();
    }
    return L;
}

struct __align__(16) NetRec {
    double net;
    double pl;
};

// mode 0: per-block scratch rows (row = blockIdx.x), full search every round.
// mode 1: per-source cached rows (row = slots[j]): full search, the row keeps dist, sigma,
//         the level order and offsets, Ls[row] the level count.
// mode 2: cached rows from an earlier round: dist and sigma do not depend on R, so only
//         sbar is recomputed (one pull pass over the cached levels) before the back-trace.
#ifndef SAMPLER_ONLY  // the sampler's own module (cuda.py SAMPLER) leaves the rounds out
template <bool WARP>
__device__ void we_round_impl(const int n, const int* __restrict__ indptr, const int* __restrict__ indices,
         const ll* __restrict__ w, const int* __restrict__ rindptr,
         const int* __restrict__ rindices, const ll* __restrict__ rw,
         const unsigned char* __restrict__ in_r, const double* __restrict__ a,
         const double* __restrict__ b, const int* __restrict__ sources, const int nsrc,
         VRec* rec_all, int* q0_all, int* q1_all, int* stamp_all, NetRec* net_all,
         double* sb_out, double* pp_out, const int mode, const int* __restrict__ slots,
         int* Ls, unsigned char* tin_all, unsigned char* tout_all, const ll delta)
{
    const int per_block = WARP ? (blockDim.x >> 5) : 1;
    const int grp = WARP ? (threadIdx.x >> 5) : 0;
    const int gid = blockIdx.x * per_block + grp;  // this group's index in the grid
    const int ngroups = gridDim.x * per_block;
    int* stamp = stamp_all + (size_t)gid * n;
    NetRec* net = net_all + (size_t)gid * n;
    __shared__ int s_len_a[32], s_next_a[32], s_near_a[32];
    __shared__ ll s_bound_a[32], s_minfar_a[32];
    __shared__ double red[32];
    int& s_len = s_len_a[grp];
    int& s_next = s_next_a[grp];
    const int tid = gtid<WARP>(), bd = gsize<WARP>();

    for (int j = gid; j < nsrc; j += ngroups) {
        const int s = sources[j];
        const size_t row = mode == 0 ? (size_t)gid : (size_t)slots[j];
        VRec* rec = rec_all + row * n;
        int* q0 = q0_all + row * n;
        int* q1 = q1_all + row * (n + 1);
        unsigned char* tin = tin_all + row * n;    // tight in-arc bits by level position
        unsigned char* tout = tout_all + row * n;  // tight out-arc bits by level position
        int L;
        if (mode < 2) {
            L = we_search<true, WARP>(n, s, indptr, indices, w, rindptr, rindices, rw, in_r,
                                      rec, q0, q1, stamp, s_len, s_next, delta,
                                      s_bound_a[grp], s_minfar_a[grp], s_near_a[grp], tin,
                                      tout);
            if (mode == 1 && tid == 0) Ls[row] = L;
        } else {
            L = Ls[row];
            if (tid == 0) rec[s].sbar = 1.0;  // sources are never in R
            for (int l = 1; l < L; ++l) {
                gsync<WARP>();
                const int lo = q1[l], hi = q1[l + 1];
                for (int i = lo + tid; i < hi; i += bd) {
                    const int x = q0[i];
                    if (in_r[x]) { rec[x].sbar = 0.0; continue; }
                    const ll dx = rec[x].dist;
                    double sb = 0.0;
                    const unsigned m8 = tin[i];
                    const int e0 = rindptr[x], e1 = rindptr[x + 1];
                    for (int e = e0; e < e1; ++e) {
                        if (e - e0 < 8 && !((m8 >> (e - e0)) & 1u)) continue;  // not tight
                        const VRec& ru = rec[rindices[e]];
                        if (ru.dist != INF && ru.dist + rw[e] == dx) sb += ru.sbar;
                    }
                    rec[x].sbar = sb;
                }
            }
            gsync<WARP>();
        }
        const int* order = q0;
        const int* lvl = q1;
        // ---- phase 3: back-trace, deepest level first
        const double as = a[s];
        double my_sb = 0.0, my_pp = 0.0;
        for (int l = L - 1; l >= 0; --l) {
            const int lo = lvl[l], hi = lvl[l + 1];
            for (int i = lo + tid; i < hi; i += bd) {
                const int v = order[i];
                const ll dv = rec[v].dist;
                double d = 0.0;
                const unsigned m8 = tout[i];
                const int e0 = indptr[v], e1 = indptr[v + 1];
                for (int e = e0; e < e1; ++e) {
                    if (e - e0 < 8 && !((m8 >> (e - e0)) & 1u)) continue;  // not tight
                    const int x = indices[e];
                    if (in_r[x]) continue;
                    const VRec& rx = rec[x];
                    if (dv + w[e] == rx.dist) d += b[x] / rx.sigma + rx.dbar;
                }
                rec[v].dbar = d;
                if (v != s && !in_r[v]) {
                    const double sg = rec[v].sigma, sb = rec[v].sbar;
                    const double c = (sg - sb) / sg;
                    NetRec r = net[v];
                    r.net += as * sb * d;
                    r.net -= as * b[v] * c;
                    r.pl += as * b[v];
                    net[v] = r;
                    my_sb += b[v] * c;
                    my_pp += b[v];
                }
            }
            gsync<WARP>();
        }
        double tsb, tpp;
        if (WARP) {  // fixed shuffle tree: deterministic
            for (int o = 16; o > 0; o >>= 1) {
                my_sb += __shfl_down_sync(0xffffffffu, my_sb, o);
                my_pp += __shfl_down_sync(0xffffffffu, my_pp, o);
            }
            tsb = my_sb;
            tpp = my_pp;
        } else {
            tsb = block_sum(my_sb, red);
            tpp = block_sum(my_pp, red);
        }
        if (tid == 0) {
            sb_out[j] = as * tsb;
            pp_out[j] = as * tpp;
            net[s].net -= as * tsb;
            net[s].pl += as * tpp;
        }
        gsync<WARP>();
    }
}

#define WE_ROUND_ARGS const int n, const int* __restrict__ indptr, \
    const int* __restrict__ indices, const ll* __restrict__ w, \
    const int* __restrict__ rindptr, const int* __restrict__ rindices, \
    const ll* __restrict__ rw, const unsigned char* __restrict__ in_r, \
    const double* __restrict__ a, const double* __restrict__ b, \
    const int* __restrict__ sources, const int nsrc, VRec* rec_all, int* q0_all, \
    int* q1_all, int* stamp_all, NetRec* net_all, double* sb_out, double* pp_out, \
    const int mode, const int* __restrict__ slots, int* Ls, unsigned char* tin_all, \
    unsigned char* tout_all, const ll delta
#define WE_ROUND_PASS n, indptr, indices, w, rindptr, rindices, rw, in_r, a, b, sources, \
    nsrc, rec_all, q0_all, q1_all, stamp_all, net_all, sb_out, pp_out, mode, slots, Ls, \
    tin_all, tout_all, delta

// one block per source (ROUND_WARP_ONLY leaves it out: the engine's module compiles the
// one layout it launches, half the NVRTC time of a fresh machine's exact billboards)
#ifndef ROUND_WARP_ONLY
extern "C" __global__ void __launch_bounds__(256, 4) we_round(WE_ROUND_ARGS) {
    we_round_impl<false>(WE_ROUND_PASS);
}
#endif
// one warp per source (blockDim / 32 sources per block)
#ifndef ROUND_BLOCK_ONLY
extern "C" __global__ void __launch_bounds__(256, 4) we_round_warp(WE_ROUND_ARGS) {
    we_round_impl<true>(WE_ROUND_PASS);
}
#endif
#endif  // SAMPLER_ONLY

// ------------------------------------------------------------------------------------
// Sampled method (Mahmoody et al. KDD 2016): per source, the exact search above, then a
// uniformly random shortest path back from each of its T targets (predecessor u of x
// taken with probability sigma[u] / sigma[x], in reversed-CSR order). Random numbers
// come from a counter hash shared with the CPU (cpu.py: _u01), so both draw the same.

__device__ __forceinline__ double u01(ull seed, ull i, ull j, ull step) {
    ull z = seed;
    z = z * 1000003ULL + i;
    z = z * 1000003ULL + j;
    z = z * 1000003ULL + step;
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

#ifndef ROUNDS_ONLY  // the exact engine's module leaves the sampler out
extern "C" __global__ void __launch_bounds__(256, 4)
we_sample(const int n, const int* __restrict__ indptr, const int* __restrict__ indices,
          const ll* __restrict__ w, const int* __restrict__ rindptr,
          const int* __restrict__ rindices, const ll* __restrict__ rw,
          const unsigned char* __restrict__ in_r, const int* __restrict__ sources,
          const int* __restrict__ targets, const int nsrc, const int T, const ull seed,
          const long long base, VRec* rec_all, int* q0_all, int* q1_all,
          int* stamp_all, long long* out_sample, int* out_vertex, const long long cap,
          ull* counter, unsigned char* reach, const ll delta, int* next_job,
          const long long* __restrict__ gids)
{
    const size_t off = (size_t)blockIdx.x * n;
    VRec* rec = rec_all + off;
    int* q0 = q0_all + off;
    int* q1 = q1_all + (size_t)blockIdx.x * (n + 1);
    int* stamp = stamp_all + off;
    __shared__ int s_len, s_next, s_near, s_job;
    __shared__ ll s_dmax, s_bound, s_minfar;
    // sources are taken from a global counter (their work varies a lot with the target's
    // distance): no block sits idle while another still has a queue of sources
    while (true) {
        if (threadIdx.x == 0) s_job = atomicAdd(next_job, 1);
        __syncthreads();
        const int j = s_job;
        if (j >= nsrc) break;
        const int s = sources[j];
        we_search<false, false>(n, s, indptr, indices, w, rindptr, rindices, rw, in_r, rec,
                                q0, q1, stamp, s_len, s_next, delta, s_bound, s_minfar,
                                s_near, nullptr, nullptr, targets + (size_t)j * T, T,
                                &s_dmax);
        // a pair's draws are keyed by its global sample number (gids: given one by one)
        const long long gj = gids ? gids[j] : base + j;
        for (int ti = threadIdx.x; ti < T; ti += blockDim.x) {
            const int t = targets[(size_t)j * T + ti];
            const bool ok = (t != s) && rec[t].dist != INF;
            reach[(size_t)j * T + ti] = ok ? 1 : 0;
            if (!ok) continue;
            const long long gid = gj * T + ti;
            int x = t;
            for (ull step = 0;; ++step) {
                const double r = u01(seed, (ull)gj, (ull)ti, step) * rec[x].sigma;
                const ll dx = rec[x].dist;
                double acc = 0.0;
                int pick = -1;
                for (int e = rindptr[x]; e < rindptr[x + 1]; ++e) {
                    const int u = rindices[e];
                    const ll du = rec[u].dist;
                    if (du != INF && du + rw[e] == dx) {
                        acc += rec[u].sigma;
                        pick = u;
                        if (acc > r) break;
                    }
                }
                x = pick;
                if (x == s || x < 0) break;
                const ull pos = atomicAdd(counter, 1ULL);
                if (pos < (ull)cap) { out_sample[pos] = gid; out_vertex[pos] = x; }
            }
        }
        __syncthreads();
    }
}
#endif  // ROUNDS_ONLY
