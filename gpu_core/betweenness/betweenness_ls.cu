// Group-betweenness greedy round on the GPU (seed 002): the level-synchronous kernels
// (seed 002 Fig. 2(a), prior work [2]): one launch per level for a batch of S sources, one
// thread per (source, arc) ("edge") or (source, vertex) ("vertex"), every arc/vertex
// checked in every level. Same results as the work-efficient kernels in betweenness.cu
// (see its opening comment for what every kernel computes).

#define INF 0x7fffffffffffffffLL
typedef long long ll;
typedef unsigned long long ull;

__device__ __forceinline__ ll ld_volatile(const ll* p) { return *((volatile const ll*)p); }

// ------------------------------------------------------------------------------------
// Level-synchronous kernels: item = (source j of the batch, arc e) when edge_mode, else
// (source j, vertex u). Per-source arrays are rows of S x n matrices.

// grid: x strides over the arcs (edge) or vertices (vertex) of source j = blockIdx.y
__device__ __forceinline__ void ls_range(const int k, const int edge_mode,
                                         const int* __restrict__ indptr,
                                         const int* __restrict__ tails, int& u, int& e0,
                                         int& e1) {
    if (edge_mode) { u = tails[k]; e0 = k; e1 = k + 1; }
    else { u = k; e0 = indptr[k]; e1 = indptr[k + 1]; }
}

// Calls item(row, u, e0, e1) for every item of source j = blockIdx.y (grid-stride over x):
// row = j * n is the source's row in the S x n matrices; a return in item skips the item.
template <class Item>
__device__ __forceinline__ void ls_items(const int n, const int cnt, const int edge_mode,
                                         const int* __restrict__ indptr,
                                         const int* __restrict__ tails, Item item) {
    const size_t row = (size_t)blockIdx.y * n;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < cnt; k += gridDim.x * blockDim.x) {
        int u, e0, e1;
        ls_range(k, edge_mode, indptr, tails, u, e0, e1);
        item(row, u, e0, e1);
    }
}

extern "C" __global__ void ls_init(const int n, const int S, const int* __restrict__ src,
                                   ll* dist, int* cur, int* nxt, int* lvl, double* sigma,
                                   double* sbar, double* dbar) {
    const int j = blockIdx.y;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        const size_t i = (size_t)j * n + v;
        const bool is_s = (src[j] == v);
        dist[i] = is_s ? 0 : INF;
        cur[i] = is_s ? 0 : -1;
        nxt[i] = -1;
        lvl[i] = is_s ? 0 : -1;
        sigma[i] = is_s ? 1.0 : 0.0;
        sbar[i] = is_s ? 1.0 : 0.0;
        dbar[i] = 0.0;
    }
}

extern "C" __global__ void ls_relax(const int n, const int cnt, const int S, const int edge_mode,
                                    const int* __restrict__ indptr,
                                    const int* __restrict__ indices,
                                    const int* __restrict__ tails, const ll* __restrict__ w,
                                    ll* dist, const int* __restrict__ cur, int* nxt,
                                    const int round, int* chg) {
    ls_items(n, cnt, edge_mode, indptr, tails, [&](const size_t row, const int u, const int e0,
                                                    const int e1) {
        if (cur[row + u] != round) return;
        const ll du = ld_volatile(&dist[row + u]);
        for (int e = e0; e < e1; ++e) {
            const int x = indices[e];
            const ll nd = du + w[e];
            if (nd < ld_volatile(&dist[row + x])) {
                const ll old = (ll)atomicMin((ull*)&dist[row + x], (ull)nd);
                if (nd < old) { nxt[row + x] = round + 1; chg[round] = 1; }
            }
        }
    });
}

extern "C" __global__ void ls_indeg(const int n, const int cnt, const int S, const int edge_mode,
                                    const int* __restrict__ indptr,
                                    const int* __restrict__ indices,
                                    const int* __restrict__ tails, const ll* __restrict__ w,
                                    const ll* __restrict__ dist, int* indeg) {
    ls_items(n, cnt, edge_mode, indptr, tails, [&](const size_t row, const int u, const int e0,
                                                    const int e1) {
        const ll du = dist[row + u];
        if (du == INF) return;
        for (int e = e0; e < e1; ++e) {
            const int x = indices[e];
            if (du + w[e] == dist[row + x]) atomicAdd(&indeg[row + x], 1);
        }
    });
}

extern "C" __global__ void ls_forward(const int n, const int cnt, const int S, const int edge_mode,
                                      const int* __restrict__ indptr,
                                      const int* __restrict__ indices,
                                      const int* __restrict__ tails, const ll* __restrict__ w,
                                      const unsigned char* __restrict__ in_r,
                                      const ll* __restrict__ dist, int* indeg, int* lvl,
                                      double* sigma, double* sbar, const int L, int* chg) {
    ls_items(n, cnt, edge_mode, indptr, tails, [&](const size_t row, const int u, const int e0,
                                                    const int e1) {
        if (lvl[row + u] != L) return;
        const ll du = dist[row + u];
        const double su = sigma[row + u], bu = sbar[row + u];
        for (int e = e0; e < e1; ++e) {
            const int x = indices[e];
            if (du + w[e] != dist[row + x]) continue;
            atomicAdd(&sigma[row + x], su);  // integer-valued: exact below 2^53
            if (!in_r[x]) atomicAdd(&sbar[row + x], bu);
            if (atomicSub(&indeg[row + x], 1) == 1) { lvl[row + x] = L + 1; chg[L] = 1; }
        }
    });
}

extern "C" __global__ void ls_backward(const int n, const int cnt, const int S,
                                       const int edge_mode, const int* __restrict__ indptr,
                                       const int* __restrict__ indices,
                                       const int* __restrict__ tails, const ll* __restrict__ w,
                                       const unsigned char* __restrict__ in_r,
                                       const double* __restrict__ b,
                                       const ll* __restrict__ dist, const int* __restrict__ lvl,
                                       const double* __restrict__ sigma, double* dbar,
                                       const int L) {
    ls_items(n, cnt, edge_mode, indptr, tails, [&](const size_t row, const int u, const int e0,
                                                    const int e1) {
        if (lvl[row + u] != L) return;
        const ll du = dist[row + u];
        double d = 0.0;
        for (int e = e0; e < e1; ++e) {
            const int x = indices[e];
            if (!in_r[x] && du + w[e] == dist[row + x]) d += b[x] / sigma[row + x] + dbar[row + x];
        }
        if (edge_mode) { if (d != 0.0) atomicAdd(&dbar[row + u], d); }
        else dbar[row + u] = d;
    });
}

extern "C" __global__ void ls_finish(const int n, const int S, const int* __restrict__ src,
                                     const unsigned char* __restrict__ in_r,
                                     const double* __restrict__ a, const double* __restrict__ b,
                                     const int* __restrict__ lvl,
                                     const double* __restrict__ sigma,
                                     const double* __restrict__ sbar,
                                     const double* __restrict__ dbar, double* net, double* pl,
                                     double* sb_src, double* pp_src) {
    const int j = blockIdx.y;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        const size_t i = (size_t)j * n + v;
        if (lvl[i] <= 0 || in_r[v]) continue;  // unreached, or the source itself
        const double as = a[src[j]];
        const double c = (sigma[i] - sbar[i]) / sigma[i];
        atomicAdd(&net[v], as * sbar[i] * dbar[i] - as * b[v] * c);
        atomicAdd(&pl[v], as * b[v]);
        atomicAdd(&sb_src[j], as * b[v] * c);
        atomicAdd(&pp_src[j], as * b[v]);
    }
}
