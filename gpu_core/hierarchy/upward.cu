// Upward searches of a route index on the GPU, K sources side by side: a block per source
// walks its elimination-tree path (etree.py says why that path holds the search space, in
// an order that finishes each cost before the cost is used) and leaves its costs in the
// GPHAST block d [n][K] (phast.cu), column j, in place of the host's searches + scatter.
//
// The path's costs live in shared memory indexed by depth (each depth is one vertex of the
// path); each upward arc carries its head's depth (dep), so no id lookup is needed. One
// step per path vertex: read its finished cost, push its arcs with shared atomicMin, sync.
// 32-bit blocks: a cost at or above 2^30 raises *big (the caller sweeps in 64 bits).
// loc (or null): the restricted sweep's local id of each sweep id, -1 outside it.
#define INF_COST (1LL << 62)
#define INF32 0x7fffffff
#define BIG32 (1LL << 30)

// costs are never negative: the unsigned 64-bit atomicMin orders them as signed would
__device__ __forceinline__ void amin(int* a, long long v) { atomicMin(a, (int)v); }
__device__ __forceinline__ void amin(long long* a, long long v)
{
    atomicMin(reinterpret_cast<unsigned long long*>(a), (unsigned long long)v);
}

template <typename T>
__device__ __forceinline__ void walk(const long long* __restrict__ ptr,
                                     const int* __restrict__ dep, const T* __restrict__ w,
                                     const int* __restrict__ parent,
                                     const int* __restrict__ depth,
                                     const int* __restrict__ loc,
                                     const int* __restrict__ sources, const int S, T* d,
                                     const int K, int* big)
{
    extern __shared__ __align__(8) unsigned char smem[];
    T* sd = reinterpret_cast<T*>(smem);
    const long long inf = sizeof(T) == 4 ? (long long)INF32 : INF_COST;
    const int j = blockIdx.x;
    if (j >= S) return;  // the whole block leaves together
    int x = sources[j];
    int p = depth[x];
    for (int i = threadIdx.x; i <= p; i += blockDim.x) sd[i] = (T)inf;
    __syncthreads();
    if (threadIdx.x == 0) sd[p] = 0;
    __syncthreads();
    bool wide = false;
    while (x >= 0) {
        const int next = parent[x];
        const long long dx = (long long)sd[p];  // final: every push into it came before
        if (dx < inf) {
            if (threadIdx.x == 0) {
                const int r = loc == nullptr ? x : loc[x];
                if (r >= 0) d[(long long)r * K + j] = (T)dx;
            }
            const long long e1 = ptr[x + 1];
            for (long long e = ptr[x] + threadIdx.x; e < e1; e += blockDim.x) {
                long long c = dx + (long long)w[e];
                if (sizeof(T) == 4 && c >= BIG32) {
                    wide = true;
                    if (c > inf) c = inf;
                }
                amin(&sd[dep[e]], c);
            }
        }
        __syncthreads();  // pushes into ancestors land before the next step reads one
        x = next;
        --p;
    }
    if (wide) atomicExch(big, 1);
}

extern "C" __global__ void upward_walk(const long long* ptr, const int* dep,
                                       const long long* w, const int* parent,
                                       const int* depth, const int* loc, const int* sources,
                                       const int S, long long* d, const int K, int* big)
{
    walk<long long>(ptr, dep, w, parent, depth, loc, sources, S, d, K, big);
}

extern "C" __global__ void upward_walk32(const long long* ptr, const int* dep, const int* w,
                                         const int* parent, const int* depth, const int* loc,
                                         const int* sources, const int S, int* d,
                                         const int K, int* big)
{
    walk<int>(ptr, dep, w, parent, depth, loc, sources, S, d, K, big);
}
