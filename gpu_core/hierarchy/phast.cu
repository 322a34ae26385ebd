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
