// Sampled billboards with a route index: the shortest path of each sampled (s, t) pair
// walked back from t over tight arcs, reading s's costs from a GPHAST block d [n][K]
// (sweep ids x source columns; gpu_core/hierarchy/phast.cu).
//
// The sampler (we_sample in betweenness.cu) picks predecessor u of x with probability
// sigma_su / sigma_sx. Where every vertex of the walk has exactly one tight in-arc there
// is one shortest path and that pick is certain, so this walk gives exactly the sampler's
// path. A pair meeting a vertex with two or more tight in-arcs (several shortest paths) is
// flagged "ambiguous" and left to we_sample, which counts sigma.
// The block holds 64-bit costs (unreached: 2^62) or 32-bit ones (unreached: 2^31 - 1).
#define INF_COST (1LL << 62)
#define INF32 0x7fffffffLL

template <typename T>
__device__ __forceinline__ long long cost(const T* d, const int* rank_of, int v, int K, int j)
{
    const long long x = (long long)d[(long long)rank_of[v] * K + j];
    return (sizeof(T) == 4 && x == INF32) ? INF_COST : x;
}

// One thread per pair j (column j of d): sources[j] -> targets[j]. First pass: check the
// path is unique and count its interior; second: append (gbase + j, vertex) entries.
template <typename T>
__device__ void walk(const T* __restrict__ d, const int K, const int* __restrict__ rank_of,
                     const int* __restrict__ rindptr, const int* __restrict__ rindices,
                     const long long* __restrict__ rw, const int* __restrict__ sources,
                     const int* __restrict__ targets, const int ns, const int n,
                     const long long gbase, long long* out_sample, int* out_vertex,
                     const long long cap, unsigned long long* counter, unsigned char* reach,
                     unsigned char* ambiguous)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= ns) return;
    const int s = sources[j], t = targets[j];
    ambiguous[j] = 0;
    if (t == s || cost(d, rank_of, t, K, j) >= INF_COST) { reach[j] = 0; return; }
    reach[j] = 1;
    long long len = 0;
    for (int pass = 0; pass < 2; ++pass) {
        unsigned long long pos = 0;
        if (pass == 1) {
            if (len == 0) return;
            pos = atomicAdd(counter, (unsigned long long)len);
            if (pos + (unsigned long long)len > (unsigned long long)cap) return;  // rerun
        }
        int x = t;
        for (int step = 0; ; ++step) {
            if (step > n) { ambiguous[j] = 1; return; }  // a zero-weight cycle: leave it
            const long long dx = cost(d, rank_of, x, K, j);
            int c = 0, pick = -1;
            for (int e = rindptr[x]; e < rindptr[x + 1]; ++e) {
                const int u = rindices[e];
                const long long du = cost(d, rank_of, u, K, j);
                if (du < INF_COST && du + rw[e] == dx) { ++c; pick = u; }
            }
            if (c != 1) { ambiguous[j] = 1; return; }
            x = pick;
            if (x == s) break;
            if (pass == 0) ++len;
            else { out_sample[pos] = gbase + j; out_vertex[pos] = x; ++pos; }
        }
    }
}

#define WALK_ARGS(T)                                                                        \
    const T* __restrict__ d, const int K, const int* __restrict__ rank_of,                  \
        const int* __restrict__ rindptr, const int* __restrict__ rindices,                  \
        const long long* __restrict__ rw, const int* __restrict__ sources,                  \
        const int* __restrict__ targets, const int ns, const int n, const long long gbase,  \
        long long* out_sample, int* out_vertex, const long long cap,                        \
        unsigned long long* counter, unsigned char* reach, unsigned char* ambiguous
#define WALK_CALL d, K, rank_of, rindptr, rindices, rw, sources, targets, ns, n, gbase, \
                  out_sample, out_vertex, cap, counter, reach, ambiguous

extern "C" __global__ void sample_walk(WALK_ARGS(long long)) { walk<long long>(WALK_CALL); }
extern "C" __global__ void sample_walk32(WALK_ARGS(int)) { walk<int>(WALK_CALL); }
