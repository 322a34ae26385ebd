// Direct GPU kernels of two of seed 003's programs, outside the vertex-program framework
// (the bench's "direct" rows, so the framework's overhead is visible). Loaded by
// direct_cuda.py through gpu_core.device.get_kernel (common.cuh prepended).
//
// * PageRank (networkx's definition, as direct.pagerank_csr): a pull SpMV over the
//   transposed simple digraph whose rows list their sources in ascending order, so each
//   rank is summed in scipy's order (bit-identical flow); per-block partial sums of the L1
//   change and of the dangling rank, reduced by one block in a fixed order (deterministic),
//   which also applies networkx's stopping test on the device: after convergence the
//   iterations only copy x, so the host reads the flag every few iterations, not each one.
//   prd_persistent runs the same iterations in one cooperative launch (the default path).
// * Borůvka: undirected edges indexed by their rank in Kruskal's order (weight, smaller
//   id, larger id), so an edge's index is its key and ties are strict. Per round: every
//   edge between two supervertices offers its index to both roots (atomicMin); each root
//   hooks to the other end of its minimum edge (a mutual pair keeps the smaller root);
//   pointer jumping to the new roots; every vertex relabelled. The forest equals Kruskal's.

#define BLK 256
#define NONE 0x7fffffff

// ---- PageRank --------------------------------------------------------------------------

// Deterministic sum of a block's 256 values (tree in shared memory).
__device__ __forceinline__ double block_sum(double v, double* sh) {
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

// One iteration: xn = damping * (flow + dsum / n) + (1 - damping) / n; partial sums of
// |xn - x| and of xn on dangling vertices per block. info[0] != 0: converged, copy x.
extern "C" __global__ void prd_pull(const int* indptr, const int* src, const double* inv,
                                    const unsigned char* dangling, const double* x,
                                    double* xn, const double* dsum, const int* info,
                                    double* part_diff, double* part_dang, int n,
                                    double damping) {
    __shared__ double sh[BLK];
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    double diff = 0.0, dang = 0.0;
    if (v < n) {
        if (info[0]) {
            xn[v] = x[v];
        } else {
            double flow = 0.0;
            for (int j = indptr[v]; j < indptr[v + 1]; ++j) {
                int u = src[j];
                flow += x[u] * inv[u];
            }
            double nw = damping * (flow + dsum[0] / (double)n) + (1.0 - damping) / (double)n;
            diff = fabs(nw - x[v]);
            dang = dangling[v] ? nw : 0.0;
            xn[v] = nw;
        }
    }
    double a = block_sum(diff, sh);
    double b = block_sum(dang, sh);
    if (threadIdx.x == 0) {
        part_diff[blockIdx.x] = a;
        part_dang[blockIdx.x] = b;
    }
}

// One block: reduce the partials in a fixed order, then networkx's test for iteration `it`.
// info = (converged, iterations); res = (delta of the last iteration done).
extern "C" __global__ void prd_finish(const double* part_diff, const double* part_dang,
                                      int nblocks, double* dsum, int* info, double* res,
                                      int it, double limit) {
    __shared__ double sh[BLK];
    double a = 0.0, b = 0.0;
    for (int i = threadIdx.x; i < nblocks; i += blockDim.x) {
        a += part_diff[i];
        b += part_dang[i];
    }
    a = block_sum(a, sh);
    b = block_sum(b, sh);
    if (threadIdx.x == 0 && !info[0]) {
        dsum[0] = b;
        res[0] = a;
        info[1] = it;
        if (a < limit) info[0] = 1;
    }
}

// ---- Borůvka ---------------------------------------------------------------------------

// Every edge joining two supervertices offers its rank (= index) to both roots.
extern "C" __global__ void bor_pick(const int* ea, const int* eb, int k, const int* root,
                                    int* best) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k) return;
    int ra = root[ea[i]], rb = root[eb[i]];
    if (ra == rb) return;
    atomicMin(&best[ra], i);
    atomicMin(&best[rb], i);
}

// Each root hooks to the far end of its lightest edge (nxt); a mutual pair keeps the
// smaller root. hooks[0] counts the forest edges added this round.
extern "C" __global__ void bor_hook(const int* ea, const int* eb, const int* root,
                                    int* best, int* nxt, unsigned char* in_forest,
                                    int* hooks, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || root[v] != v) return;
    int e = best[v];
    if (e == NONE) {
        nxt[v] = v;
        return;
    }
    int ra = root[ea[e]], rb = root[eb[e]];
    int o = (ra == v) ? rb : ra;
    if (best[o] == e && v < o) {
        nxt[v] = v;  // mutual minimum: v stays the root of both
    } else {
        nxt[v] = o;
        in_forest[e] = 1;
        atomicAdd(hooks, 1);
    }
}

// Pointer jumping: every root follows nxt to its new root (chains are acyclic: ranks are
// strict and mutual pairs were broken). Writes only shorten paths, so racing is safe.
extern "C" __global__ void bor_jump(const int* root, int* nxt, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || root[v] != v) return;
    int r = nxt[v];
    while (nxt[r] != r) r = nxt[r];
    nxt[v] = r;
}

// Every vertex takes its old root's new root; best[] is reset for the next round.
extern "C" __global__ void bor_relabel(int* root, const int* nxt, int* best, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    root[v] = nxt[root[v]];
    best[v] = NONE;
}

// ---- PageRank, all iterations in one persistent cooperative launch ----------------------
// The same iteration as prd_pull + prd_finish, with no host round trip and one grid
// barrier per iteration: every block reduces the previous iteration's per-block partials
// itself (the same fixed order in every block, so all blocks see the same delta and stop
// together), then pulls its vertices. Two buffers each of x and of y = x * inv (the share
// a vertex sends, so the gather reads 8 bytes per arc), alternating by parity; the
// partials alternate too, so one barrier per iteration is enough (an iteration writes the
// buffers the one before it read, and every read of those finished before that barrier).
// out: info = (converged, iterations), res = (delta of the last iteration); the final
// rank is in xa when iterations is even, else in xb.
extern "C" __global__ void prd_persistent(const int* __restrict__ indptr,
                                          const int* __restrict__ src,
                                          const double* __restrict__ inv,
                                          const unsigned char* __restrict__ dangling,
                                          double* xa, double* xb, double* ya, double* yb,
                                          double* parts, unsigned* bar, int* info,
                                          double* res, int n, double damping, double limit,
                                          int max_iter, double dsum0) {
    __shared__ double sh[BLK];
    const int nb = gridDim.x;
    const int stride = nb * blockDim.x;
    const double base = (1.0 - damping) / (double)n;
    // x and y are rewritten every other iteration by other blocks: read them through L2
    // (__ldcg), never from a stale L1 line.
    // y of the start vector (x = 1/n everywhere, written by the host into xa)
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride)
        ya[v] = xa[v] * inv[v];
    grid_barrier(bar);
    int it = 0;
    bool conv = false;
    double delta = nan("");
    double dsum = dsum0;
    for (;;) {
        if (it > 0) {  // the previous iteration's L1 change and dangling sum
            const double* pd = parts + (it & 1) * 2 * nb;
            double a = 0.0, b = 0.0;
            for (int i = threadIdx.x; i < nb; i += blockDim.x) {
                a += __ldcg(&pd[i]);  // written by other blocks: read through L2
                b += __ldcg(&pd[nb + i]);
            }
            delta = block_sum(a, sh);
            dsum = block_sum(b, sh);
            if (delta < limit) {
                conv = true;
                break;
            }
            if (it == max_iter) break;
        }
        ++it;
        const double* x = (it & 1) ? xa : xb;
        const double* y = (it & 1) ? ya : yb;
        double* xn = (it & 1) ? xb : xa;
        double* yn = (it & 1) ? yb : ya;
        const double dn = dsum / (double)n;
        double diff = 0.0, dang = 0.0;
        for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
            double flow = 0.0;
            const int j1 = indptr[v + 1];
            for (int j = indptr[v]; j < j1; ++j) flow += __ldcg(&y[src[j]]);
            double nw = damping * (flow + dn) + base;  // prd_pull's arithmetic
            diff += fabs(nw - __ldcg(&x[v]));
            const double iv = inv[v];
            if (iv == 0.0) dang += nw;  // inv = 0 exactly on dangling vertices
            xn[v] = nw;
            yn[v] = nw * iv;
        }
        double a = block_sum(diff, sh);
        double b = block_sum(dang, sh);
        if (threadIdx.x == 0) {
            double* pd = parts + (it & 1) * 2 * nb;
            pd[blockIdx.x] = a;
            pd[nb + blockIdx.x] = b;
        }
        grid_barrier(bar);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        info[0] = conv ? 1 : 0;
        info[1] = it;
        res[0] = delta;
    }
}
