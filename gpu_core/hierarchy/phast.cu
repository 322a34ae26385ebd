// GPHAST: the downward sweep of a contraction hierarchy for K sources side by side.
//
// d is [n][K] (vertex-major, source-minor, K a multiple of 32): a warp takes one vertex and
// 32 of its sources, so reading a tail's K costs is one coalesced row segment. One launch
// per level; every in-arc of a level's vertex comes from an earlier level (sweep ids are
// sorted by level), so a level only reads finished rows.
//
// Two widths: 64-bit costs (INF 2^62), and 32-bit costs (INF 2^31 - 1) that halve the
// memory traffic. The 32-bit sweep is exact while every cost stays below 2^30 and every
// arc weighs less than 2^30 (the caller checks the weights and the upward costs): a cost
// at or above 2^31 can only be reached through a vertex whose cost lies in [2^30, 2^31),
// and any such cost raises *big, after which the caller sweeps the batch again in 64 bits.
#define INF_COST (1LL << 62)
#define INF32 0x7fffffff
#define BIG32 (1LL << 30)

template <typename T>
__device__ __forceinline__ void level(const long long* __restrict__ ptr,
                                      const int* __restrict__ src, const T* __restrict__ w,
                                      T* d, const long long v0, const long long v1, const int K,
                                      int* big)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long v = v0 + t / K;
    if (v >= v1) return;
    const int j = (int)(t % K);
    long long best = d[v * K + j];
    const long long e1 = ptr[v + 1];
    for (long long e = ptr[v]; e < e1; ++e) {
        const long long c = (long long)d[(long long)src[e] * K + j] + (long long)w[e];
        best = c < best ? c : best;
    }
    if (sizeof(T) == 4) {
        if (best >= INF32) best = INF32;
        else if (best >= BIG32) atomicExch(big, 1);
    }
    d[v * K + j] = (T)best;
}

// A narrow level whose vertices have many in-arcs (the top separators: hundreds each) took
// ~33 us a level with a thread per (vertex, source) walking all its arcs in turn, so the
// levels' count, not their work, set a restricted sweep's time (profile_turn_od.py, H100).
// Here a thread takes one chunk of ``len`` arcs of its vertex (``chunks`` per vertex) and
// folds its least cost in with atomicMin: costs are never negative, so the 64-bit block
// is min'd as unsigned; the level's rows are only written here, read by later levels.
template <typename T>
__device__ __forceinline__ void level_split(const long long* __restrict__ ptr,
                                            const int* __restrict__ src,
                                            const T* __restrict__ w, T* d, const long long v0,
                                            const long long v1, const int K, const int chunks,
                                            const int len, int* big)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int j = (int)(t % K);
    const long long rest = t / K;
    const long long v = v0 + rest / chunks;
    if (v >= v1) return;
    const long long b = ptr[v] + (rest % chunks) * (long long)len;
    const long long e1 = min(ptr[v + 1], b + len);
    if (b >= e1) return;
    long long best = INF_COST;
    for (long long e = b; e < e1; ++e) {
        const long long c = (long long)d[(long long)src[e] * K + j] + (long long)w[e];
        best = c < best ? c : best;
    }
    if (sizeof(T) == 4) {
        if (best >= INF32) return;
        // (a chunk's best may be beaten by another's: a flag then only costs a 64-bit sweep)
        if (best >= BIG32) atomicExch(big, 1);
        atomicMin((int*)&d[v * K + j], (int)best);
    } else {
        atomicMin((unsigned long long*)&d[v * K + j], (unsigned long long)best);
    }
}

extern "C" __global__ void phast_level_split(const long long* __restrict__ ptr,
                                             const int* __restrict__ src,
                                             const long long* __restrict__ w, long long* d,
                                             const long long v0, const long long v1,
                                             const int K, const int chunks, const int len,
                                             int* big)
{
    level_split<long long>(ptr, src, w, d, v0, v1, K, chunks, len, big);
}

extern "C" __global__ void phast_level_split32(const long long* __restrict__ ptr,
                                               const int* __restrict__ src,
                                               const int* __restrict__ w, int* d,
                                               const long long v0, const long long v1,
                                               const int K, const int chunks, const int len,
                                               int* big)
{
    level_split<int>(ptr, src, w, d, v0, v1, K, chunks, len, big);
}

extern "C" __global__ void phast_level(const long long* __restrict__ ptr,
                                       const int* __restrict__ src,
                                       const long long* __restrict__ w, long long* d,
                                       const long long v0, const long long v1, const int K,
                                       int* big)
{
    level<long long>(ptr, src, w, d, v0, v1, K, big);
}

extern "C" __global__ void phast_level32(const long long* __restrict__ ptr,
                                         const int* __restrict__ src, const int* __restrict__ w,
                                         int* d, const long long v0, const long long v1,
                                         const int K, int* big)
{
    level<int>(ptr, src, w, d, v0, v1, K, big);
}

// Upward-search results into d: entry i is (column col[i], sweep id vert[i], cost dist[i]).
template <typename T>
__device__ __forceinline__ void scatter(const int* __restrict__ col, const int* __restrict__ vert,
                                        const long long* __restrict__ dist, const long long cnt,
                                        T* d, const int K)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cnt) d[(long long)vert[i] * K + col[i]] = (T)dist[i];
}

extern "C" __global__ void phast_scatter(const int* col, const int* vert, const long long* dist,
                                         const long long cnt, long long* d, const int K)
{
    scatter<long long>(col, vert, dist, cnt, d, K);
}

extern "C" __global__ void phast_scatter32(const int* col, const int* vert,
                                           const long long* dist, const long long cnt, int* d,
                                           const int K)
{
    scatter<int>(col, vert, dist, cnt, d, K);
}

// out[j][c] = d[rows[c]][j] for j < S (the real sources of the batch), -1 where unreached.
template <typename T>
__device__ __forceinline__ void extract(const T* __restrict__ d, const int* __restrict__ rows,
                                        const int ncols, const int S, const int K,
                                        long long* out, const long long inf)
{
    const int c = blockIdx.x * 32 + threadIdx.x;
    const int j = blockIdx.y * 32 + threadIdx.y;
    if (c >= ncols || j >= S) return;
    const long long x = (long long)d[(long long)rows[c] * K + j];
    out[(long long)j * ncols + c] = x >= inf ? -1 : x;
}

extern "C" __global__ void phast_extract(const long long* d, const int* rows, const int ncols,
                                         const int S, const int K, long long* out)
{
    extract<long long>(d, rows, ncols, S, K, out, INF_COST);
}

extern "C" __global__ void phast_extract32(const int* d, const int* rows, const int ncols,
                                           const int S, const int K, long long* out)
{
    extract<int>(d, rows, ncols, S, K, out, INF32);
}

// Extra target columns folded into theirs (gpu_core/host/fold.py): out[j][into[k]]
// = least of it and out[j][keep + k]; unreachable is -1, the largest as unsigned, so an
// unsigned atomicMin (several extras may fold into one column) gives "least reachable".
extern "C" __global__ void phast_fold(long long* out, const int ncols, const int S,
                                      const int keep, const int* __restrict__ into,
                                      const int nextra)
{
    const int k = blockIdx.x * 32 + threadIdx.x;
    const int j = blockIdx.y * 32 + threadIdx.y;
    if (k >= nextra || j >= S) return;
    const unsigned long long x = (unsigned long long)out[(long long)j * ncols + keep + k];
    atomicMin((unsigned long long*)&out[(long long)j * ncols + into[k]], x);
}
