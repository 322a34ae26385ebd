// GPHAST: the downward sweep of a contraction hierarchy for K sources side by side.
//
// d is [n][K] (vertex-major, source-minor, K a multiple of 32): a warp takes one vertex and
// 32 of its sources, so reading a tail's K costs is one coalesced row segment. One launch
// per level; every in-arc of a level's vertex comes from an earlier level (sweep ids are
// sorted by level), so a level only reads finished rows.
#define INF_COST (1LL << 62)

extern "C" __global__ void phast_level(const long long* __restrict__ ptr,
                                       const int* __restrict__ src,
                                       const long long* __restrict__ w, long long* d,
                                       const long long v0, const long long v1, const int K)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long v = v0 + t / K;
    if (v >= v1) return;
    const int j = (int)(t % K);
    long long best = d[v * K + j];
    const long long e1 = ptr[v + 1];
    for (long long e = ptr[v]; e < e1; ++e) {
        const long long c = d[(long long)src[e] * K + j] + w[e];
        best = c < best ? c : best;
    }
    d[v * K + j] = best;
}

// Upward-search results into d: entry i is (column col[i], sweep id vert[i], cost dist[i]).
extern "C" __global__ void phast_scatter(const int* __restrict__ col, const int* __restrict__ vert,
                                         const long long* __restrict__ dist, const long long cnt,
                                         long long* d, const int K)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cnt) d[(long long)vert[i] * K + col[i]] = dist[i];
}

// out[j][c] = d[rows[c]][j] for j < S (the real sources of the batch), -1 where unreached.
extern "C" __global__ void phast_extract(const long long* __restrict__ d,
                                         const int* __restrict__ rows, const int ncols,
                                         const int S, const int K, long long* out)
{
    const int c = blockIdx.x * 32 + threadIdx.x;
    const int j = blockIdx.y * 32 + threadIdx.y;
    if (c >= ncols || j >= S) return;
    const long long x = d[(long long)rows[c] * K + j];
    out[(long long)j * ncols + c] = x >= INF_COST ? -1 : x;
}
