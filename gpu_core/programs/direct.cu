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
//   prd_persistent runs the same iterations in one cooperative launch (the default path;
//   prd_pull + prd_finish are the fallback where cooperative launches are refused).
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
// The same iteration as prd_pull + prd_finish with no host round trip. Block b owns the
// vertices [b * chunk, (b + 1) * chunk) and the same thread updates the same vertex in
// every iteration, so a vertex's rank, row bounds and out-degree stay in the block's
// shared memory (mode PRD_SMEM_ALL; PRD_SMEM_X: the rank only; 0: all read from global
// memory, for graphs too large for the SMs' shared memory). Per iteration the global
// memory traffic is then the source list, the gathered shares y = x * (1 / outdeg) (8
// bytes an arc) and the new shares; y has two buffers alternating by parity, so one
// barrier per iteration is enough (an iteration writes the buffer the one before it read,
// and every read of that one finished before that barrier).
// The barrier is a last-block-done one: each block stores its partial sums (L1 change,
// rank on dangling vertices) and counts itself in; the last to arrive sums every block's
// partials in a fixed order (deterministic, whichever block is last), publishes the two
// sums and bumps a generation word the others spin on; then every block applies
// networkx's stopping test to the same published delta, so all stop together.
// out: x (the rank), info = (converged, iterations), res = (delta of the last iteration).
#define PRD_SMEM_X 1
#define PRD_SMEM_ALL 2

// Deterministic sums of (a, b) over the block (warp shuffles, then warp 0); the result
// is in thread 0. Call with all threads.
__device__ __forceinline__ void block_sum2(double& a, double& b, double* sh) {
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_down_sync(0xffffffffu, a, o);
        b += __shfl_down_sync(0xffffffffu, b, o);
    }
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0) {
        sh[w] = a;
        sh[32 + w] = b;
    }
    __syncthreads();
    if (w == 0) {
        const int nw = (blockDim.x + 31) >> 5;
        a = lane < nw ? sh[lane] : 0.0;
        b = lane < nw ? sh[32 + lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) {
            a += __shfl_down_sync(0xffffffffu, a, o);
            b += __shfl_down_sync(0xffffffffu, b, o);
        }
    }
    __syncthreads();
}

// Count the block in with its partials (a, b); the last block reduces all partials and
// publishes them as generation `gen`. Returns the published (a, b) in every thread.
// sync = (arrivals, generation); parts = 2 * gridDim.x partials; pub = 2 sums.
__device__ __forceinline__ void prd_arrive(double& a, double& b, int gen, double* parts,
                                           unsigned* sync, double* pub, double* sh,
                                           int* last) {
    const int nb = gridDim.x;
    block_sum2(a, b, sh);
    if (threadIdx.x == 0) {
        parts[blockIdx.x] = a;
        parts[nb + blockIdx.x] = b;
        __threadfence();
        *last = atomicAdd(sync, 1u) == (unsigned)(nb - 1);
    }
    __syncthreads();
    if (*last) {  // every other block's partials are in L2: sum them in a fixed order
        __threadfence();
        a = 0.0;
        b = 0.0;
        for (int i = threadIdx.x; i < nb; i += blockDim.x) {
            a += __ldcg(&parts[i]);
            b += __ldcg(&parts[nb + i]);
        }
        block_sum2(a, b, sh);
        if (threadIdx.x == 0) {
            pub[0] = a;
            pub[1] = b;
            atomicExch(sync, 0u);  // nobody arrives again before the generation moves
            __threadfence();
            atomicExch(sync + 1, (unsigned)gen);
        }
    } else if (threadIdx.x == 0) {
        volatile unsigned* g = sync + 1;
        while (*g != (unsigned)gen) {
        }
        __threadfence();
    }
    if (threadIdx.x == 0) {
        sh[64] = __ldcg(&pub[0]);
        sh[65] = __ldcg(&pub[1]);
    }
    __syncthreads();
    a = sh[64];
    b = sh[65];
    __syncthreads();  // sh is reused by the next call
}

// Switches (direct_cuda.py turns PRD_Y_CACHED on, PRD_X2 in the mode-0 build and
// PRD_HUBS for graphs with rows of more than hub_min in-arcs, summed by a warp):
// PRD_Y_CACHED gathers y through L1 (legal: every read of a y buffer follows the
// barrier's fences and bar.sync, as after a cooperative grid.sync(); without it, __ldcg
// through L2); PRD_X2 keeps two rank buffers in global memory in mode 0 instead of
// updating one in place (measured 4.7x faster on NE, cause not investigated).
#ifdef PRD_Y_CACHED
#define LDY(p) (*(p))
#else
#define LDY(p) __ldcg(p)
#endif

extern "C" __global__ void __launch_bounds__(1024, 2)  // 2 resident blocks of 1024: <= 32 registers
prd_persistent(const int* __restrict__ indptr, const int* __restrict__ src,
               const int* __restrict__ outdeg, const int* __restrict__ hubs,
               const int* __restrict__ hub_off, int hub_min, double* x, double* x2,
               double* ya, double* yb, double* dbuf, unsigned* sync, int n, int chunk,
               int mode, double damping, double limit, int max_iter, double dsum0) {
    extern __shared__ double dyn[];
    __shared__ double sh[66];
    __shared__ int last;
    const int nb = gridDim.x;
    double* parts = dbuf;        // 2 * nb partial sums
    double* pub = dbuf + 2 * nb;  // the last block's two sums
    double* out = pub + 2;        // delta, converged, iterations
    const int lo = min(n, blockIdx.x * chunk);
    const int cnt = min(n, lo + chunk) - lo;
    // the block's vertices: shared memory where it fits, else their global homes
    double* xl = mode ? dyn : x + lo;
    double* xl2 = xl;  // = xl: the rank is updated in place
#ifdef PRD_X2
    if (!mode) xl2 = x2 + lo;
#endif
    const int* rl = indptr + lo;  // row bounds: rl[i], rl[i + 1]
    const int* dl = outdeg + lo;
    if (mode == PRD_SMEM_ALL) {
        int* r = (int*)(dyn + chunk);
        int* d = r + chunk + 1;
        for (int i = threadIdx.x; i <= cnt; i += blockDim.x) r[i] = rl[i];
        for (int i = threadIdx.x; i < cnt; i += blockDim.x) d[i] = dl[i];
        rl = r;
        dl = d;
    }
    const double x0 = 1.0 / (double)n;
    const double base = (1.0 - damping) / (double)n;
    for (int i = threadIdx.x; i < cnt; i += blockDim.x) {  // x = 1/n, y = x * inv
        xl[i] = x0;
        const int d = dl[i];
        ya[lo + i] = d ? x0 * (1.0 / (double)d) : 0.0;
    }
    int gen = 1;
    double delta = 0.0, dsum = 0.0;
    prd_arrive(delta, dsum, gen, parts, sync, pub, sh, &last);  // y0 written everywhere
    delta = nan("");
    dsum = dsum0;
    int it = 0;
    bool conv = false;
    while (it < max_iter) {
        ++it;
        // y is rewritten every other iteration by other blocks: LDY reads it through L2
        // (__ldcg) unless PRD_Y_CACHED
        const double* y = (it & 1) ? ya : yb;
        double* yn = (it & 1) ? yb : ya;
        double* xo = (it & 1) ? xl : xl2;
        double* xw = (it & 1) ? xl2 : xl;
        const double dn = dsum / (double)n;
        double diff = 0.0, dang = 0.0;
        // vertex i's new rank and share; the old rank is only this thread's to read
        auto finish = [&](int i, double flow) {
            const double nw = damping * (flow + dn) + base;  // prd_pull's arithmetic
            diff += fabs(nw - xo[i]);
            xw[i] = nw;
            const int d = dl[i];
            if (d == 0) dang += nw;
            // y = x * (1 / outdeg): the CPU's product, 1/outdeg rounded as numpy does
            yn[lo + i] = d ? nw * (1.0 / (double)d) : 0.0;
        };
        for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
            const int j1 = rl[i + 1];
            int j = rl[i];
#ifdef PRD_HUBS
            if (j1 - j > hub_min) continue;  // a hub: a warp sums it below
#endif
            double flow = 0.0;
            for (; j + 1 < j1; j += 2) {  // two loads in flight; the sum keeps its order
                const double f0 = LDY(&y[__ldg(&src[j])]);
                const double f1 = LDY(&y[__ldg(&src[j + 1])]);
                flow += f0;
                flow += f1;
            }
            if (j < j1) flow += LDY(&y[__ldg(&src[j])]);
            finish(i, flow);
        }
#ifdef PRD_HUBS
        // The block's hubs (more than hub_min in-arcs, listed in hubs[hub_off[b]..]): one
        // warp each, lanes striding the row, a fixed shuffle tree (deterministic). One
        // thread walking a 10^5-arc row held the whole grid at every barrier. Built only
        // for graphs that have hubs (a road graph's kernel is the one without).
        for (int h = hub_off[blockIdx.x] + (threadIdx.x >> 5); h < hub_off[blockIdx.x + 1];
             h += blockDim.x >> 5) {
            const int i = hubs[h] - lo, j1 = rl[i + 1];
            double flow = 0.0;
            for (int j = rl[i] + (threadIdx.x & 31); j < j1; j += 32)
                flow += LDY(&y[__ldg(&src[j])]);
            for (int o = 16; o > 0; o >>= 1) flow += __shfl_down_sync(0xffffffffu, flow, o);
            if ((threadIdx.x & 31) == 0) finish(i, flow);
        }
#endif
        ++gen;
        prd_arrive(diff, dang, gen, parts, sync, pub, sh, &last);
        delta = diff;
        dsum = dang;
        if (delta < limit) {
            conv = true;
            break;
        }
    }
    const double* xf = (it & 1) ? xl2 : xl;  // the last rank written
    if (xf != x + lo)
        for (int i = threadIdx.x; i < cnt; i += blockDim.x) x[lo + i] = xf[i];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = delta;
        out[1] = conv ? 1.0 : 0.0;
        out[2] = (double)it;
    }
}
