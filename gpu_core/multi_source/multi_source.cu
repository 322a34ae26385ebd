// Many-source shortest paths (seed 000: Okuyama, Ino, Hagihara, "APSP on CUDA").
//
// Layout (seed 000, Fig. 4): the per-task arrays are task-minor, element (v, t) at
// v * P + t, so the P threads serving the P tasks of one vertex touch P consecutive
// words and a warp's accesses coalesce. Costs are int64; INF = int64 max.
//
// Kernels:
//   ms_init            C = U = (0 at the task's source, INF elsewhere), M = (source)
//   tp_relax_shared    seed kernel A' (P == 32): the CSR row of u staged in shared memory
//                      once per warp and shared by its 32 tasks
//   tp_relax_noshared  kernel A' without shared memory (any P; P == 1 is Harish-Narayanan,
//                      the "one search at a time" baseline)
//   tp_update          seed kernel B': C = U where U < C, mark M, raise the host flag
//   bq_*               "batched": one kernel per phase (relax straight into D with
//                      atomicMin), a device-side vertex queue so a phase only touches
//                      vertices that changed, a fixed grid that reads the queue length
//                      from device memory (no host round trip per phase; the host reads
//                      one counter per group of phases), any P that is a multiple of 32
//   fw_*               blocked Floyd-Warshall (32x32 tiles) for seed 000's comparison

// i64 (long long) comes from gpu_core/device/common.cuh (prepended)
typedef unsigned char u8;
#define INF 0x7FFFFFFFFFFFFFFFLL
#define FULL 0xffffffffu

extern "C" __global__ void ms_init(i64* C, i64* U, u8* M, const int* __restrict__ src, int cnt,
                                   int n, int P) {
    long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long total = (long long)n * P;
    if (idx >= total) return;
    int v = (int)(idx / P);
    int t = (int)(idx - (long long)v * P);
    bool s = (t < cnt) && (src[t] == v);
    i64 val = s ? 0 : INF;
    C[idx] = val;
    if (U) U[idx] = val;
    M[idx] = s ? 1 : 0;
}

// Seed 000 kernel A' with P = 32: a warp serves the 32 tasks of one vertex u.
extern "C" __global__ void tp_relax_shared(const int* __restrict__ Va, const int* __restrict__ Ea,
                                           const int* __restrict__ Wa, u8* M,
                                           const i64* __restrict__ C, i64* U, int n) {
    __shared__ int es[32][33];  // [warp in block][arc]; padded a word against bank conflicts
    __shared__ int ws[32][33];
    int lane = threadIdx.x & 31;
    int wib = threadIdx.x >> 5;
    long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    int u = (int)(idx >> 5);
    if (u >= n) return;  // whole warps only (n * 32 threads)
    bool active = M[idx] != 0;
    if (__ballot_sync(FULL, active) == 0) return;  // seed: shared flag ms[u]
    i64 cu = 0;
    if (active) {
        M[idx] = 0;
        cu = C[idx];
    }
    int b = Va[u], e = Va[u + 1];
    for (int base = b; base < e; base += 32) {
        int k = min(32, e - base);
        if (lane < k) {  // coalesced: the 32 tasks load 32 consecutive arcs in parallel
            es[wib][lane] = Ea[base + lane];
            ws[wib][lane] = Wa[base + lane];
        }
        __syncwarp();
        if (active) {
            for (int j = 0; j < k; ++j) {
                long long a = (long long)es[wib][j] * 32 + lane;
                i64 nd = cu + (i64)ws[wib][j];
                if (nd < U[a]) atomicMin(&U[a], nd);  // a stale read only costs an atomic
            }
        }
        __syncwarp();
    }
}

// Kernel A' reading Va/Ea/Wa straight from global memory (any P; P = 1 is the seed's
// "existing method", one SSSP at a time).
extern "C" __global__ void tp_relax_noshared(const int* __restrict__ Va, const int* __restrict__ Ea,
                                             const int* __restrict__ Wa, u8* M,
                                             const i64* __restrict__ C, i64* U, int n, int P) {
    long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (idx >= (long long)n * P) return;
    if (!M[idx]) return;
    M[idx] = 0;
    int u = (int)(idx / P);
    int t = (int)(idx - (long long)u * P);
    i64 cu = C[idx];
    int e = Va[u + 1];
    for (int i = Va[u]; i < e; ++i) {
        long long a = (long long)Ea[i] * P + t;
        i64 nd = cu + (i64)Wa[i];
        if (nd < U[a]) atomicMin(&U[a], nd);
    }
}

// Seed 000 kernel B': fold U into C, mark changed (vertex, task) pairs.
extern "C" __global__ void tp_update(i64* C, const i64* __restrict__ U, u8* M, long long total,
                                     int* flag) {
    long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    bool ch = false;
    if (idx < total) {
        i64 u = U[idx];
        if (u < C[idx]) {
            C[idx] = u;
            M[idx] = 1;
            ch = true;
        }
    }
    if (__ballot_sync(FULL, ch) && (threadIdx.x & 31) == 0) *flag = 1;
}

// ---- "batched": queue-driven phases, device-side termination ---------------------------
//
// State per batch: D[n*P] costs, Ma/Mb[n*P] task masks (current / next), Qa/Qb[n] vertex
// queues, Fa/Fb[n] (int) "in next queue" flags, cnt[phase] queue lengths (cnt[0] = sources).
// Phase k reads queue (Qin, cnt[k]) and writes (Qout, cnt[k+1]); when cnt[k] == 0 the
// search has converged and the launch returns at once, so the host can enqueue a group
// of phases and read one counter afterwards.

extern "C" __global__ void bq_init(i64* D, u8* Ma, u8* Mb, const int* __restrict__ src, int cnt,
                                   int n, int P) {
    long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (idx >= (long long)n * P) return;
    int v = (int)(idx / P);
    int t = (int)(idx - (long long)v * P);
    bool s = (t < cnt) && (src[t] == v);
    D[idx] = s ? 0 : INF;
    Ma[idx] = s ? 1 : 0;
    Mb[idx] = 0;
}

// Queue of the distinct source vertices (host passes them de-duplicated), flags set.
extern "C" __global__ void bq_seed(const int* __restrict__ src, int cnt, int* Qa, int* Fa,
                                   int* counts) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < cnt) {
        Qa[t] = src[t];
        Fa[src[t]] = 1;
    }
    if (t == 0) counts[0] = cnt;
}

// One phase. Work item i = (queue entry i / G, task group i % G), G = P / 32; a warp
// handles the 32 tasks of one group, lane = task within the group. Fixed grid, strided.
extern "C" __global__ void bq_phase(const int* __restrict__ Va, const int* __restrict__ Ea,
                                    const int* __restrict__ Wa, i64* D, u8* Min, u8* Mout,
                                    const int* __restrict__ Qin, int* Qout, int* Fin, int* Fout,
                                    int* counts, int phase, int P) {
    int qlen = ((volatile int*)counts)[phase];
    if (qlen == 0) return;  // converged: this launch (and the rest of the group) is empty
    int G = P >> 5;
    long long items = (long long)qlen * G;
    int lane = threadIdx.x & 31;
    long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
    long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long it = warp; it < items; it += nwarps) {
        int qi = (int)(it / G);
        int grp = (int)(it - (long long)qi * G);
        int u = Qin[qi];
        long long idx = (long long)u * P + grp * 32 + lane;
        bool active = Min[idx] != 0;
        if (grp == 0 && lane == 0) Fin[u] = 0;  // u leaves the queue (Fin is next phase's Fout)
        if (__ballot_sync(FULL, active) == 0) continue;
        i64 cu = 0;
        if (active) {
            Min[idx] = 0;
            cu = D[idx];
        }
        int b = Va[u], e = Va[u + 1];
        for (int base = b; base < e; base += 32) {
            int k = min(32, e - base);
            int myv = 0, myw = 0;
            if (lane < k) {  // the row of u once per warp, coalesced, shared by shuffles
                myv = Ea[base + lane];
                myw = Wa[base + lane];
            }
            for (int j = 0; j < k; ++j) {
                int v = __shfl_sync(FULL, myv, j);
                int w = __shfl_sync(FULL, myw, j);
                if (active) {
                    long long a = (long long)v * P + grp * 32 + lane;
                    i64 nd = cu + (i64)w;
                    if (nd < D[a]) {
                        i64 old = atomicMin(&D[a], nd);
                        if (nd < old) {
                            Mout[a] = 1;
                            // first to mark v this phase appends it to the next queue
                            if (Fout[v] == 0 && atomicExch(&Fout[v], 1) == 0) {
                                int pos = atomicAdd(&counts[phase + 1], 1);
                                Qout[pos] = v;
                            }
                        }
                    }
                }
            }
        }
    }
}

// Result rows: out[t, j] = cost of task t at vertex cols[j] (cols == nullptr: j itself),
// -1 where unreachable. A 32x32 tile transpose through shared memory so that both the
// task-minor reads and the row-major writes coalesce.
extern "C" __global__ void ms_extract(const i64* __restrict__ D, int P, int cnt,
                                      const int* __restrict__ cols, int ncols, i64* out) {
    __shared__ i64 tile[32][33];
    int tx = threadIdx.x, ty = threadIdx.y;
    int j0 = blockIdx.x * 32, t0 = blockIdx.y * 32;
    int j = j0 + ty, t = t0 + tx;
    if (j < ncols && t < cnt) {
        long long v = cols ? cols[j] : j;
        tile[ty][tx] = D[v * P + t];
    }
    __syncthreads();
    int jj = j0 + tx, tt = t0 + ty;
    if (jj < ncols && tt < cnt) {
        i64 x = tile[tx][ty];
        out[(long long)tt * ncols + jj] = (x == INF) ? -1 : x;
    }
}

// ---- blocked Floyd-Warshall (seed 000's GPU FW comparison) -------------------------------
// D is npad x npad (npad a multiple of 32), FW_INF for "no path" so that FW_INF + FW_INF
// cannot overflow; costs must stay below FW_INF (the host checks the bound).
#define FW_INF (1LL << 61)

extern "C" __global__ void fw_arcs(const int* __restrict__ tails, const int* __restrict__ Ea,
                                   const int* __restrict__ Wa, int m, i64* D, int npad) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) atomicMin(&D[(long long)tails[i] * npad + Ea[i]], (i64)Wa[i]);
}

// Phase 1: the diagonal tile k closes on itself.
extern "C" __global__ void fw_phase1(i64* D, int npad, int k) {
    __shared__ i64 t[32][33];
    int i = threadIdx.y, j = threadIdx.x;
    long long base = (long long)(k * 32) * npad + k * 32;
    t[i][j] = D[base + (long long)i * npad + j];
    __syncthreads();
    for (int kk = 0; kk < 32; ++kk) {
        i64 c = t[i][kk] + t[kk][j];
        __syncthreads();
        if (c < t[i][j]) t[i][j] = c;
        __syncthreads();
    }
    D[base + (long long)i * npad + j] = t[i][j];
}

// Phase 2: tiles of row k (blockIdx.y == 0) and column k (blockIdx.y == 1).
extern "C" __global__ void fw_phase2(i64* D, int npad, int k) {
    int b = blockIdx.x;
    if (b == k) return;
    __shared__ i64 dg[32][33];
    __shared__ i64 own[32][33];
    int i = threadIdx.y, j = threadIdx.x;
    long long dbase = (long long)(k * 32) * npad + k * 32;
    long long obase = blockIdx.y == 0 ? (long long)(k * 32) * npad + b * 32
                                      : (long long)(b * 32) * npad + k * 32;
    dg[i][j] = D[dbase + (long long)i * npad + j];
    own[i][j] = D[obase + (long long)i * npad + j];
    __syncthreads();
    for (int kk = 0; kk < 32; ++kk) {
        i64 c = blockIdx.y == 0 ? dg[i][kk] + own[kk][j] : own[i][kk] + dg[kk][j];
        __syncthreads();
        if (c < own[i][j]) own[i][j] = c;
        __syncthreads();
    }
    D[obase + (long long)i * npad + j] = own[i][j];
}

// Phase 3: every other tile (bi, bj) from its row-k and column-k tiles.
extern "C" __global__ void fw_phase3(i64* D, int npad, int k) {
    int bi = blockIdx.y, bj = blockIdx.x;
    if (bi == k || bj == k) return;
    __shared__ i64 col[32][33];  // tile (bi, k)
    __shared__ i64 row[32][33];  // tile (k, bj)
    int i = threadIdx.y, j = threadIdx.x;
    col[i][j] = D[(long long)(bi * 32 + i) * npad + k * 32 + j];
    row[i][j] = D[(long long)(k * 32 + i) * npad + bj * 32 + j];
    __syncthreads();
    long long a = (long long)(bi * 32 + i) * npad + bj * 32 + j;
    i64 best = D[a];
#pragma unroll 8
    for (int kk = 0; kk < 32; ++kk) {
        i64 c = col[i][kk] + row[kk][j];
        best = c < best ? c : best;
    }
    D[a] = best;
}
