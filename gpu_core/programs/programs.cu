// Seed 003 on the GPU: a Pregel-style vertex-program framework whose message buffers do
// not depend on the topology, and the paper's three programs on it. One file (over 500
// lines) on purpose: the loader compiles a .cu as one NVRTC module with only common.cuh
// prepended, and the programs need the framework's Ctx and helpers in the same unit.
//
// Loaded by cuda.py through gpu_core.device.get_kernel, which prepends device/common.cuh
// (the i64/u64 typedefs come from there).
//
// * Messages: per-vertex lock-free lists (atomicCAS) in two bump-allocated pools used in
//   alternate supersteps; freeing a pool after it was read is `top = 0` (the host does it)
//   because every vertex with mail runs and clears its list head. Insertion follows the
//   paper's Figure 4: after a failed CAS, half the threads move the cursor one element on
//   (back to the head at the end of the list). mode = MODE_COLLISION always retries at the
//   head (the paper's "collision" ablation).
// * Topology: per-vertex linked arc lists; deletions and insertions are queued during a
//   superstep and applied by vp_mark_dead / vp_relink / vp_insert before the next one.
// * Every kernel takes (ctx, sc, st): ctx a table of device addresses (layout CtxSlot, filled
//   by cuda.py in that order), sc the int64 scalars (layout ScSlot), st the program's own
//   arrays' addresses. A pool or queue that runs out sets counters[CNT_OVERFLOW]; the host
//   raises PoolExhaustedError: nothing is silently dropped.
// * A superstep's counters and aggregators are one entry (VP_LOG_W u64) of a ring: superstep
//   s writes entry s % len, reads the aggregators of entry (s - 1) % len and clears entry
//   (s + 1) % len, so supersteps run back to back with no host work in between; the host
//   reads the ring once per batch of supersteps (cuda.py). A superstep kernel halts by
//   itself (runs nothing) after a quiet superstep, past the step limit or when the
//   program's stop rule says so (PageRank's networkx test), so the host may launch a batch
//   without knowing where the run ends.

#define ARC_DEAD 0
#define ARC_LIVE 1
#define ARC_DYING 2
#define MODE_LIST 0
#define MODE_COLLISION 1
#define I64_INF 0x7fffffffffffffffLL

enum CtxSlot {
    C_GLOB, C_AGG_R, C_AGG_W, C_FIRST, C_ARC_NEXT, C_ARC_TAIL, C_ARC_HEAD, C_ARC_W,
    C_ARC_STATE, C_DEL_Q, C_INS_T, C_INS_H, C_INS_W, C_COUNTERS, C_DIRTY, C_ACTIVE,
    C_R_HEAD, C_R_NEXT, C_R_I, C_R_F, C_W_HEAD, C_W_NEXT, C_W_I, C_W_F,
    C_R_COMB, C_R_HAS, C_W_COMB, C_W_HAS, C_ARC_OFF, C_NSLOTS
};
// S_M0: the number of initial arcs; S_PRUNED: 1 once any arc was deleted
enum ScSlot { S_STEP, S_N, S_KI, S_KF, S_MODE, S_SEED, S_MSG_CAP, S_DEL_CAP, S_INS_CAP,
              S_TOTAL, S_COMB, S_M0, S_PRUNED, S_NSLOTS };
// Combiners (S_COMB): messages to one vertex folded into one 8-byte slot per vertex by an
// atomic, no list element (Pregel's combiner; the paper's lists are COMB_NONE).
#define COMB_NONE 0
#define COMB_SUM_F64 1  // PageRank: the sum of the shares
#define COMB_MIN_I64 2  // Bellman-Ford: the smallest candidate distance
// A sum slot holding the bits of -0.0 has no mail (no "has mail" flag: senders add
// -0.0 as +0.0, and -0.0 + x == x for every x, +0.0 included, so the sums are those of a
// +0.0 start); a min slot needs the flag (any int64 may be a message).
#define SUM_EMPTY 0x8000000000000000ULL
// CNT_ACT: vertices still active after the superstep (ran and did not vote to halt)
enum CntSlot { CNT_TOP, CNT_DEL, CNT_INS, CNT_OVERFLOW, CNT_RAN, CNT_ACT, CNT_NSLOTS };
#define VP_LOG_W 8  // a ring entry: CNT_NSLOTS counters, then two aggregators (doubles)

struct Ctx {
    i64 step, n, ki, kf, mode, seed, msg_cap, del_cap, ins_cap, comb, m0, pruned;
    bool grown;  // arcs were inserted (ids >= m0 exist)
    const i64* glob;
    const double* agg_r;
    double* agg_w;
    i64* first;
    i64* arc_next;
    i64* arc_tail;
    i64* arc_head;
    i64* arc_w;
    int* arc_state;
    i64* del_q;
    i64* ins_t;
    i64* ins_h;
    i64* ins_w;
    u64* counters;
    int* dirty;
    unsigned char* active;
    i64* r_head;
    const i64* r_next;
    const i64* r_i;
    const double* r_f;
    i64* w_head;
    i64* w_next;
    i64* w_i;
    double* w_f;
    u64* r_comb;  // combined message of each vertex (COMB_*; reset value when none)
    unsigned* r_has;  // COMB_MIN_I64: 1 when the vertex got a combined message
    u64* w_comb;
    unsigned* w_has;
    // the initial arcs (ids 0..m0-1) sorted by tail: v's are arc_off[v]..arc_off[v+1]-1;
    // null when they were not given sorted (the arcs are then walked as lists only)
    const i64* arc_off;
    // counter of the vertices with combined mail: this superstep's (the sender marks the
    // first message to a vertex) or, with rx_count, the previous one's (counted by the
    // receivers in the next superstep: the senders only store the flag, no atomic, no read)
    u64* mail_ctr;
    bool rx_count;
    // this thread's share of the superstep's aggregators and of the vertices that got
    // their first combined message: summed per block after compute, one atomic per block
    // (one same-address atomic per warp cost ~0.4 ms a superstep on NE's 1.5M vertices)
    double agg_loc[2];
    u64 mail_loc;
};

__device__ __forceinline__ Ctx load_ctx(const u64* p, const i64* sc) {
    Ctx c;
    c.step = sc[S_STEP];
    c.n = sc[S_N];
    c.ki = sc[S_KI];
    c.kf = sc[S_KF];
    c.mode = sc[S_MODE];
    c.seed = sc[S_SEED];
    c.msg_cap = sc[S_MSG_CAP];
    c.del_cap = sc[S_DEL_CAP];
    c.ins_cap = sc[S_INS_CAP];
    c.comb = sc[S_COMB];
    c.m0 = sc[S_M0];
    c.pruned = sc[S_PRUNED];
    c.grown = sc[S_TOTAL] > c.m0;
    c.glob = (const i64*)p[C_GLOB];
    c.agg_r = (const double*)p[C_AGG_R];
    c.agg_w = (double*)p[C_AGG_W];
    c.first = (i64*)p[C_FIRST];
    c.arc_next = (i64*)p[C_ARC_NEXT];
    c.arc_tail = (i64*)p[C_ARC_TAIL];
    c.arc_head = (i64*)p[C_ARC_HEAD];
    c.arc_w = (i64*)p[C_ARC_W];
    c.arc_state = (int*)p[C_ARC_STATE];
    c.del_q = (i64*)p[C_DEL_Q];
    c.ins_t = (i64*)p[C_INS_T];
    c.ins_h = (i64*)p[C_INS_H];
    c.ins_w = (i64*)p[C_INS_W];
    c.counters = (u64*)p[C_COUNTERS];
    c.dirty = (int*)p[C_DIRTY];
    c.active = (unsigned char*)p[C_ACTIVE];
    c.r_head = (i64*)p[C_R_HEAD];
    c.r_next = (const i64*)p[C_R_NEXT];
    c.r_i = (const i64*)p[C_R_I];
    c.r_f = (const double*)p[C_R_F];
    c.w_head = (i64*)p[C_W_HEAD];
    c.w_next = (i64*)p[C_W_NEXT];
    c.w_i = (i64*)p[C_W_I];
    c.w_f = (double*)p[C_W_F];
    c.r_comb = (u64*)p[C_R_COMB];
    c.r_has = (unsigned*)p[C_R_HAS];
    c.w_comb = (u64*)p[C_W_COMB];
    c.w_has = (unsigned*)p[C_W_HAS];
    c.arc_off = (const i64*)p[C_ARC_OFF];
    c.mail_ctr = c.counters + CNT_TOP;
    c.rx_count = false;
    return c;
}

// ---- framework: messages, topology edits ---------------------------------------------

__device__ __forceinline__ u64 rng_seed(i64 seed, i64 step, i64 v) {
    u64 x = (u64)seed ^ ((u64)(step + 1) * 0x9E3779B97F4A7C15ULL) ^ ((u64)v * 0xBF58476D1CE4E5B9ULL);
    return x ? x : 0x2545F4914F6CDD1DULL;
}

__device__ __forceinline__ bool coin(u64& s) {  // xorshift64
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return (s >> 63) != 0;
}

// One item of a counter (bump allocator, edit queues) from divergent code: one atomic per
// group of converged lanes, not one per message -- millions of same-address atomics per
// superstep were the engine's bottleneck. The counter's final value is unchanged.
__device__ __forceinline__ u64 warp_take(u64* ctr) {
    unsigned g = __activemask();
    int lane = threadIdx.x & 31;
    int leader = __ffs(g) - 1;
    u64 base = 0;
    if (lane == leader) base = atomicAdd(ctr, (u64)__popc(g));
    base = __shfl_sync(g, base, leader);
    return base + (u64)__popc(g & ((1u << lane) - 1u));
}

// Aggregator k (0 or 1) += v: kept in the thread until vp_block_flush.
__device__ __forceinline__ void vp_aggregate(Ctx& c, int k, double v) { c.agg_loc[k] += v; }

// After compute, every thread of the block: the block's sums of the aggregators, of the
// vertices that ran, stayed active and got (rx_count: had) combined mail, one atomic each
// per block. A sum of 0 is not added, so a program with fewer than two aggregators never
// touches agg_w[1].
__device__ __forceinline__ void vp_block_flush(Ctx& c, bool ran, bool act) {
    __shared__ double sh_a[2][32];
    __shared__ u64 sh_n[3][32];
    double a0 = c.agg_loc[0], a1 = c.agg_loc[1];
    // ran, active and mail counts packed in one u64 (21 bits each: a block has <= 1024
    // threads, so no field overflows into the next)
    u64 packed = (ran ? 1ULL : 0ULL) | ((act ? 1ULL : 0ULL) << 21) | (c.mail_loc << 42);
    for (int o = 16; o > 0; o >>= 1) {
        a0 += __shfl_down_sync(0xffffffffu, a0, o);
        a1 += __shfl_down_sync(0xffffffffu, a1, o);
        packed += __shfl_down_sync(0xffffffffu, packed, o);
    }
    int w = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = (blockDim.x + 31) >> 5;
    if (lane == 0) {
        sh_a[0][w] = a0;
        sh_a[1][w] = a1;
        sh_n[0][w] = packed;
    }
    __syncthreads();
    if (w == 0) {
        a0 = lane < nw ? sh_a[0][lane] : 0.0;
        a1 = lane < nw ? sh_a[1][lane] : 0.0;
        packed = lane < nw ? sh_n[0][lane] : 0;
        for (int o = 16; o > 0; o >>= 1) {
            a0 += __shfl_down_sync(0xffffffffu, a0, o);
            a1 += __shfl_down_sync(0xffffffffu, a1, o);
            packed += __shfl_down_sync(0xffffffffu, packed, o);
        }
        if (lane == 0) {
            const u64 mask = (1ULL << 21) - 1;
            u64 n_ran = packed & mask, n_act = (packed >> 21) & mask, n_mail = packed >> 42;
            if (a0 != 0.0) atomicAdd(&c.agg_w[0], a0);
            if (a1 != 0.0) atomicAdd(&c.agg_w[1], a1);
            if (n_ran) atomicAdd(&c.counters[CNT_RAN], n_ran);
            if (n_act) atomicAdd(&c.counters[CNT_ACT], n_act);
            if (n_mail) atomicAdd(c.mail_ctr, n_mail);
        }
    }
}

// A slot of this superstep's pool, or -1 (overflow flagged) when it is full.
__device__ __forceinline__ i64 vp_alloc(Ctx& c) {
    u64 s = warp_take(&c.counters[CNT_TOP]);
    if ((i64)s >= c.msg_cap) {
        atomicExch(&c.counters[CNT_OVERFLOW], 1ULL);
        return -1;
    }
    return (i64)s;
}

// Figure 4: insert `slot` into dst's list, starting at the head.
__device__ void vp_link(Ctx& c, i64 dst, i64 slot, u64& rng) {
    i64* head = &c.w_head[dst];
    i64* cur = head;
    for (;;) {
        i64 nxt = *(volatile i64*)cur;
        c.w_next[slot] = nxt;
        __threadfence();
        if ((i64)atomicCAS((u64*)cur, (u64)nxt, (u64)slot) == nxt) return;
        if (c.mode == MODE_LIST && coin(rng)) {
            i64 now = *(volatile i64*)cur;
            cur = (now < 0) ? head : &c.w_next[now];
        }
    }
}

// A combined message to dst: folded into its slot; the first one to a vertex is counted
// (CNT_TOP = vertices with mail, the CPU engine's "messages after combining"; summed per
// block by vp_block_flush).
__device__ __forceinline__ void vp_mark_mail(Ctx& c, i64 dst) {
    if (c.rx_count) {  // counted by the receiver next superstep: a plain store
        c.w_has[dst] = 1u;
        return;
    }
    if (!*(volatile unsigned*)&c.w_has[dst] && atomicExch(&c.w_has[dst], 1u) == 0u)
        ++c.mail_loc;
}

// Send a double (msg_floats = 1): to the list, or summed (COMB_SUM_F64).
__device__ __forceinline__ void vp_send_f(Ctx& c, i64 dst, double val, u64& rng) {
    if (c.comb == COMB_SUM_F64) {
        val += 0.0;  // -0.0 -> +0.0: the slot's -0.0 means "no mail"
        if (c.rx_count) {
            atomicAdd((double*)&c.w_comb[dst], val);  // no return value: no wait
        } else if (__double_as_longlong(atomicAdd((double*)&c.w_comb[dst], val)) ==
                   (long long)SUM_EMPTY) {
            ++c.mail_loc;  // the first message to dst
        }
        return;
    }
    i64 s = vp_alloc(c);
    if (s < 0) return;
    c.w_f[s * c.kf] = val;
    vp_link(c, dst, s, rng);
}

// Send an i64 (msg_ints = 1): to the list, or the minimum kept (COMB_MIN_I64).
__device__ __forceinline__ void vp_send_i(Ctx& c, i64 dst, i64 val, u64& rng) {
    if (c.comb == COMB_MIN_I64) {
        atomicMin((long long*)&c.w_comb[dst], (long long)val);
        vp_mark_mail(c, dst);
        return;
    }
    i64 s = vp_alloc(c);
    if (s < 0) return;
    c.w_i[s * c.ki] = val;
    vp_link(c, dst, s, rng);
}

// f(e) for every out-arc e of v, in list order (as `for (e = first[v]; e >= 0; e =
// arc_next[e])`): the arcs programs inserted (ids >= m0, pushed at the list head), then
// v's initial arcs, which -- when they were given sorted by tail (arc_off) -- are the id
// range arc_off[v]..arc_off[v+1]-1 minus deleted ones: independent loads instead of a
// dependent arc_next chase. The lists stay the topology (relinked after deletions), so
// edits need no rebuild of the range.
template <class F>
__device__ __forceinline__ void vp_for_arcs(const Ctx& c, i64 v, F f) {
    if (c.arc_off == nullptr) {
        for (i64 e = c.first[v]; e >= 0; e = c.arc_next[e]) f(e);
        return;
    }
    if (c.grown) {  // no list head to read while no arc was ever inserted
        i64 e = c.first[v];
        for (; e >= c.m0; e = c.arc_next[e]) f(e);
        if (e < 0) return;  // no initial arc left
    }
    const i64 end = c.arc_off[v + 1];
    for (i64 e = c.arc_off[v]; e < end; ++e)
        if (!c.pruned || c.arc_state[e] != ARC_DEAD) f(e);
}

__device__ __forceinline__ void vp_delete_arc(Ctx& c, i64 e) {
    if (atomicCAS(&c.arc_state[e], ARC_LIVE, ARC_DYING) != ARC_LIVE) return;
    u64 k = warp_take(&c.counters[CNT_DEL]);
    if ((i64)k >= c.del_cap) {
        atomicExch(&c.counters[CNT_OVERFLOW], 1ULL);
        return;
    }
    c.del_q[k] = e;
}

__device__ __forceinline__ void vp_add_arc(Ctx& c, i64 u, i64 v, i64 w) {
    u64 k = warp_take(&c.counters[CNT_INS]);
    if ((i64)k >= c.ins_cap) {
        atomicExch(&c.counters[CNT_OVERFLOW], 1ULL);
        return;
    }
    c.ins_t[k] = u;
    c.ins_h[k] = v;
    c.ins_w[k] = w;
}

// After a superstep: queued deletions (threads over the queue, sc[S_TOTAL] unused).
extern "C" __global__ void vp_mark_dead(const u64* ctxp, const i64* sc) {
    Ctx c = load_ctx(ctxp, sc);
    i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x;
    i64 nd = (i64)c.counters[CNT_DEL];
    if (nd > c.del_cap) nd = c.del_cap;
    if (k >= nd) return;
    i64 e = c.del_q[k];
    c.arc_state[e] = ARC_DEAD;
    c.dirty[c.arc_tail[e]] = 1;
}

// Relink the list of every vertex that lost arcs (threads over vertices).
extern "C" __global__ void vp_relink(const u64* ctxp, const i64* sc) {
    Ctx c = load_ctx(ctxp, sc);
    i64 v = blockIdx.x * (i64)blockDim.x + threadIdx.x;
    if (v >= c.n || !c.dirty[v]) return;
    c.dirty[v] = 0;
    i64 head = -1, last = -1;
    for (i64 e = c.first[v]; e >= 0;) {
        i64 nxt = c.arc_next[e];
        if (c.arc_state[e] != ARC_DEAD) {
            if (last < 0) head = e; else c.arc_next[last] = e;
            last = e;
        }
        e = nxt;
    }
    if (last >= 0) c.arc_next[last] = -1;
    c.first[v] = head;
}

// Queued insertions get ids sc[S_TOTAL] + k, pushed at their tail's list head.
extern "C" __global__ void vp_insert(const u64* ctxp, const i64* sc) {
    Ctx c = load_ctx(ctxp, sc);
    i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x;
    i64 ni = (i64)c.counters[CNT_INS];
    if (ni > c.ins_cap) ni = c.ins_cap;
    if (k >= ni) return;
    i64 e = sc[S_TOTAL] + k;
    i64 t = c.ins_t[k];
    c.arc_tail[e] = t;
    c.arc_head[e] = c.ins_h[k];
    c.arc_w[e] = c.ins_w[k];
    c.arc_state[e] = ARC_LIVE;
    i64 old = (i64)atomicExch((u64*)&c.first[t], (u64)e);
    c.arc_next[e] = old;  // nobody walks the lists during this kernel
}

// ---- the copy version (the paper's evacuation version, section 4.2; mode "copy") -------
// One allocator only: after each superstep every vertex's list in the write pool is
// counted, then copied into the read pool as a contiguous run (offsets = exclusive prefix
// sum of the counts, by the host), and the write pool's heads are cleared. The cost of
// this copy is what the double-buffered lists avoid.
extern "C" __global__ void vp_count_inbox(const u64* ctxp, const i64* sc, i64* counts) {
    Ctx c = load_ctx(ctxp, sc);
    i64 v = blockIdx.x * (i64)blockDim.x + threadIdx.x;
    if (v >= c.n) return;
    i64 k = 0;
    for (i64 m = c.w_head[v]; m >= 0; m = c.w_next[m]) ++k;
    counts[v] = k;
}

extern "C" __global__ void vp_evacuate(const u64* ctxp, const i64* sc, const i64* offsets) {
    Ctx c = load_ctx(ctxp, sc);
    i64 v = blockIdx.x * (i64)blockDim.x + threadIdx.x;
    if (v >= c.n) return;
    i64* r_next = (i64*)c.r_next;
    i64* r_i = (i64*)c.r_i;
    double* r_f = (double*)c.r_f;
    i64 pos = offsets[v];
    i64 m = c.w_head[v];
    c.r_head[v] = (m >= 0) ? pos : -1;
    for (; m >= 0; m = c.w_next[m], ++pos) {
        for (i64 k = 0; k < c.ki; ++k) r_i[pos * c.ki + k] = c.w_i[m * c.ki + k];
        for (i64 k = 0; k < c.kf; ++k) r_f[pos * c.kf + k] = c.w_f[m * c.kf + k];
        r_next[pos] = (c.w_next[m] >= 0) ? pos + 1 : -1;
    }
    c.w_head[v] = -1;
}

#define VP_BLOCK 256  // cuda.py BLOCK
#ifndef VP_MIN_BLOCKS
#define VP_MIN_BLOCKS 4  // resident blocks per SM: at most 64 registers a thread
#endif

// Has a kernel of this run halted (ctl[0] = the first halted superstep), or must superstep
// `step` halt: the step limit, a quiet previous superstep (it ran nothing: no vertex is
// active and none has mail), or the program's stop rule on the previous superstep's
// aggregator rule_k (>= 0): stop after superstep s >= 1 when agg[rule_k] < rule_limit or
// s >= rule_max (the master's test, replayed on the host from the same values).
#define VP_SUPERSTEP_ARGS                                                                 \
    const u64 *ctxp, const i64 *sc, const u64 *st, const long long step_arg, u64 *ring,   \
        const long long ring_len, const long long rx, const long long max_steps,          \
        const long long rule_k, const double rule_limit, const long long rule_max, i64 *ctl

// One superstep of a program: a thread per vertex; counts the vertices that ran and stayed
// active. Every thread reaches vp_block_flush (it has a block barrier), those without work
// too. Writes per vertex only what changed (a vertex with no mail has nothing to reset).
#define VP_SUPERSTEP(NAME, COMPUTE)                                                      \
    extern "C" __global__ void __launch_bounds__(VP_BLOCK, VP_MIN_BLOCKS)                 \
        NAME(VP_SUPERSTEP_ARGS) {                                                         \
        const i64 step = step_arg + ctl[1]; /* ctl[1]: a CUDA graph's first superstep */  \
        if (ctl[0] < step) return;          /* halted earlier in this run */              \
        Ctx c = load_ctx(ctxp, sc);                                                       \
        c.step = step; /* an argument: sc is uploaded once, not every superstep */        \
        u64* cur = ring + (step % ring_len) * VP_LOG_W;                                   \
        u64* prev = ring + ((step + ring_len - 1) % ring_len) * VP_LOG_W;                 \
        c.counters = cur;                                                                 \
        c.agg_w = (double*)(cur + CNT_NSLOTS);                                            \
        c.agg_r = (const double*)(prev + CNT_NSLOTS);                                     \
        c.rx_count = rx != 0 && c.comb != COMB_NONE;                                      \
        c.mail_ctr = c.rx_count ? prev + CNT_TOP : cur + CNT_TOP;                         \
        c.agg_loc[0] = c.agg_loc[1] = 0.0;                                                \
        c.mail_loc = 0;                                                                   \
        if (blockIdx.x == 0 && threadIdx.x < VP_LOG_W)                                    \
            ring[((step + 1) % ring_len) * VP_LOG_W + threadIdx.x] = 0ULL;                \
        bool halt = step >= max_steps;                                                    \
        if (!halt && step > 0)                                                            \
            halt = prev[CNT_RAN] == 0ULL ||                                               \
                   (rule_k >= 0 && step - 1 >= 1 &&                                       \
                    (c.agg_r[rule_k] < rule_limit || step - 1 >= rule_max));              \
        if (halt && blockIdx.x == 0 && threadIdx.x == 0) ctl[0] = step;                   \
        i64 v = blockIdx.x * (i64)blockDim.x + threadIdx.x;                               \
        bool runs = false, act = false;                                                   \
        if (v < c.n) {                                                                    \
            bool was = c.active[v] != 0;                                                  \
            bool mail = c.comb == COMB_SUM_F64   ? c.r_comb[v] != SUM_EMPTY               \
                        : c.comb == COMB_MIN_I64 ? c.r_has[v] != 0u                       \
                                                 : c.r_head[v] >= 0;                      \
            if (mail && c.rx_count) ++c.mail_loc; /* the previous superstep's mail */     \
            runs = !halt && (was || mail);                                                \
            if (runs) {                                                                   \
                u64 rng = rng_seed(c.seed, c.step, v);                                    \
                act = COMPUTE(v, c, st, rng);                                             \
                if (act != was) c.active[v] = act ? 1 : 0;                                \
                if (mail) {                                                               \
                    if (c.comb == COMB_NONE) {                                            \
                        c.r_head[v] = -1;                                                 \
                    } else if (c.comb == COMB_SUM_F64) { /* written again 2 steps on */   \
                        c.r_comb[v] = SUM_EMPTY;                                          \
                    } else {                                                              \
                        c.r_has[v] = 0u;                                                  \
                        c.r_comb[v] = (u64)I64_INF;                                       \
                    }                                                                     \
                }                                                                         \
            }                                                                             \
        }                                                                                 \
        vp_block_flush(c, runs, act);                                                     \
    }

// ---- Bellman-Ford (Figure 2). st = (dist i64[n], source i64[1]); ki = 1 ----------------

__device__ bool bf_compute(i64 v, Ctx& c, const u64* st, u64& rng) {
    i64* dist = (i64*)st[0];
    i64 source = ((const i64*)st[1])[0];
    i64 best = I64_INF;
    if (c.step == 0) {
        if (v != source) return false;
        best = 0;
    }
    if (c.comb == COMB_MIN_I64)
        best = min(best, (i64)c.r_comb[v]);
    else
        for (i64 m = c.r_head[v]; m >= 0; m = c.r_next[m]) best = min(best, c.r_i[m * c.ki]);
    if (best < dist[v]) {
        dist[v] = best;
        vp_for_arcs(c, v, [&](i64 e) { vp_send_i(c, c.arc_head[e], best + c.arc_w[e], rng); });
    }
    return false;
}
VP_SUPERSTEP(bf_superstep, bf_compute)

// ---- PageRank (networkx). st = (x f64[n], outdeg i64[n], par f64[2]); kf = 1 ------------
// Aggregators: 0 = rank on dangling vertices, 1 = L1 change.

__device__ bool pr_compute(i64 v, Ctx& c, const u64* st, u64& rng) {
    double* x = (double*)st[0];
    const i64* outdeg = (const i64*)st[1];
    const double* par = (const double*)st[2];
    if (c.step > 0) {
        double t = 0.0;
        if (c.comb == COMB_SUM_F64) {
            u64 b = c.r_comb[v];
            t = (b == SUM_EMPTY) ? 0.0 : __longlong_as_double((long long)b);
        }
        else
            for (i64 m = c.r_head[v]; m >= 0; m = c.r_next[m]) t += c.r_f[m * c.kf];
        double nw = par[0] * (t + c.agg_r[0] * par[1]) + (1.0 - par[0]) * par[1];
        vp_aggregate(c, 1, fabs(nw - x[v]));
        x[v] = nw;
    }
    if (outdeg[v] == 0) {
        vp_aggregate(c, 0, x[v]);
    } else {
        double share = x[v] / (double)outdeg[v];
        vp_for_arcs(c, v, [&](i64 e) { vp_send_f(c, c.arc_head[e], share, rng); });
    }
    return true;
}
VP_SUPERSTEP(pr_superstep, pr_compute)

// ---- Borůvka with pointer jumping. Phases in glob[0] (as cpu_programs.py) ----------------
// st = (ptr i64[n], live u8[n], done u8[n], in_forest u8[edges], keys i64[T], ranks i64[T],
// mask i64[1]); ki = 3. Aggregators: 0 = picks, 1 = jump messages.
// Parallel arcs between two supervertices are reduced where the moved arcs meet, in GATHER:
// a hash table (keys = root * n + far, T a power of two >= twice the arcs, so at most half
// full) keeps the lightest rank of each (root, far) by atomicMin, and only the thread that
// claimed a key sends it on. A root's inbox in MERGE is then one arc per neighbouring
// supervertex, as the CPU engine's sort makes it -- reducing it in MERGE instead left a
// contracted dense graph's few roots walking ~10^5 parallel arcs each, one thread apiece.

#define PICK 0
#define RESOLVE 1
#define JUMP 2
#define RELABEL 3
#define GATHER 4
#define MERGE 5
#define REQ 0
#define ANS 1

__device__ __forceinline__ void send3(Ctx& c, i64 dst, i64 a, i64 b, i64 d, u64& rng) {
    i64 s = vp_alloc(c);
    if (s < 0) return;
    c.w_i[s * c.ki] = a;
    c.w_i[s * c.ki + 1] = b;
    c.w_i[s * c.ki + 2] = d;
    vp_link(c, dst, s, rng);
}

// The slot of (root, far) in the GATHER table, its rank lowered to r; `mine`: this thread
// put the key there (it sends the one message MERGE reads). -1 (overflow flagged) if full.
__device__ i64 bv_claim(Ctx& c, i64* keys, i64* ranks, i64 mask, i64 key, i64 r, bool& mine) {
    u64 h = (u64)key;  // splitmix64's finaliser: consecutive keys spread over the table
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
    i64 s = (i64)((h ^ (h >> 31)) & (u64)mask);
    for (i64 probe = 0; probe <= mask; ++probe, s = (s + 1) & mask) {
        i64 k = *(volatile i64*)&keys[s];
        if (k == -1) k = (i64)atomicCAS((u64*)&keys[s], (u64)-1LL, (u64)key);
        if (k == -1 || k == key) {
            mine = k == -1;
            atomicMin((long long*)&ranks[s], (long long)r);
            return s;
        }
    }
    atomicExch(&c.counters[CNT_OVERFLOW], 1ULL);
    return -1;
}

__device__ bool boruvka_compute(i64 v, Ctx& c, const u64* st, u64& rng) {
    i64* ptr = (i64*)st[0];
    unsigned char* live = (unsigned char*)st[1];
    unsigned char* done = (unsigned char*)st[2];
    unsigned char* in_forest = (unsigned char*)st[3];
    if (!live[v]) return false;
    i64 phase = c.glob[0];
    const i64 K = c.ki;
    if (phase == PICK) {
        i64 best = -1, be = -1;
        for (i64 e = c.first[v]; e >= 0; e = c.arc_next[e]) {
            if (best < 0 || c.arc_w[e] < best) {
                best = c.arc_w[e];
                be = e;
            }
        }
        if (be < 0) {
            live[v] = 0;
            return false;
        }
        ptr[v] = c.arc_head[be];
        done[v] = 0;
        in_forest[best] = 1;
        send3(c, c.arc_head[be], v, 0, 0, rng);
        vp_aggregate(c, 0, 1.0);
        return true;
    }
    if (phase == RESOLVE || phase == JUMP) {
        bool asked = false;
        for (i64 m = c.r_head[v]; m >= 0; m = c.r_next[m]) {
            if (phase == RESOLVE) {
                if (c.r_i[m * K] == ptr[v] && v < ptr[v]) ptr[v] = v;
                asked = true;
            } else if (c.r_i[m * K] == ANS) {
                ptr[v] = c.r_i[m * K + 1];
                done[v] = (unsigned char)c.r_i[m * K + 2];
                asked = true;
            }
        }
        bool root = ptr[v] == v;
        if (phase == JUMP) {
            for (i64 m = c.r_head[v]; m >= 0; m = c.r_next[m]) {
                if (c.r_i[m * K] == REQ) {
                    send3(c, c.r_i[m * K + 1], ANS, ptr[v], (root || done[v]) ? 1 : 0, rng);
                    vp_aggregate(c, 1, 1.0);
                }
            }
        }
        if ((phase == RESOLVE || asked) && !root && !done[v]) {
            send3(c, ptr[v], REQ, v, 0, rng);
            vp_aggregate(c, 1, 1.0);
        }
        return true;
    }
    if (phase == RELABEL) {
        for (i64 e = c.first[v]; e >= 0; e = c.arc_next[e]) {
            send3(c, c.arc_head[e], c.arc_w[e], ptr[v], 0, rng);
            vp_delete_arc(c, e);
        }
        return true;
    }
    i64* keys = (i64*)st[4];
    i64* ranks = (i64*)st[5];
    if (phase == GATHER) {  // one message per (root, far): (table slot, far)
        i64 mask = ((const i64*)st[6])[0];
        for (i64 m = c.r_head[v]; m >= 0; m = c.r_next[m]) {
            i64 far = c.r_i[m * K + 1];
            if (far == ptr[v]) continue;
            bool mine = false;
            i64 slot = bv_claim(c, keys, ranks, mask, ptr[v] * c.n + far, c.r_i[m * K], mine);
            if (mine) send3(c, ptr[v], slot, far, 0, rng);
        }
        if (ptr[v] != v) {
            live[v] = 0;
            return false;
        }
        return true;
    }
    // MERGE: one moved arc per neighbouring supervertex, at its lightest rank; the slot is
    // emptied for the next round's GATHER (every claimed slot has exactly one message)
    for (i64 m = c.r_head[v]; m >= 0; m = c.r_next[m]) {
        i64 slot = c.r_i[m * K];
        vp_add_arc(c, v, c.r_i[m * K + 1], ranks[slot]);
        ranks[slot] = I64_INF;
        keys[slot] = -1;
    }
    return true;
}
VP_SUPERSTEP(boruvka_superstep, boruvka_compute)
