/* One pass over a tensor's values for plab_probe's statistics (stats.py).

   The torch scan in stats.py takes about a dozen passes over every value
   (masks, a conversion, a bincount, FP64 copies and sums) and a dozen
   dispatched operations per chunk; on the CPU that is most of what the
   probe costs a training step. This file does the same arithmetic in one
   pass and is compiled on first use (native.py); without a C compiler the
   torch scan runs instead, and the tests hold the two to the same counts.

   Every value is read as the bit pattern of its magnitude as an FP32
   (BF16 and FP16 widen to FP32 exactly), so each class threshold is one
   integer compare, as thresholds.py explains. The pass counts the values
   of each bucket of the top 16 bits (128 a binade); a threshold or a bin
   edge inside a bucket is compared with only the values that bucket holds,
   and the counts below each threshold and in each bin are then read from
   the buckets. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { DTYPE_F32 = 0, DTYPE_BF16 = 1, DTYPE_F16 = 2 };
enum { BUCKETS = 1 << 15, POS_INF_BITS = 0x7F800000, U_SLOTS = 5 * 256 };

static uint32_t f16_to_f32_bits(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exponent = (h >> 10) & 0x1F, fraction = h & 0x3FF;
    if (exponent == 0x1F)
        return sign | POS_INF_BITS | (fraction << 13);
    if (exponent != 0)
        return sign | ((exponent + 112) << 23) | (fraction << 13);
    if (fraction == 0)
        return sign;
    /* A subnormal, fraction * 2^-24: normalised around its top bit p. */
    uint32_t p = 31 - (uint32_t)__builtin_clz(fraction);
    return sign | ((p + 103) << 23) | ((fraction << (23 - p)) & 0x7FFFFF);
}

static inline uint32_t bits_at(const void *data, int64_t i, int dtype) {
    if (dtype == DTYPE_F32) {
        uint32_t u;
        memcpy(&u, (const char *)data + 4 * i, 4);
        return u;
    }
    uint16_t h;
    memcpy(&h, (const char *)data + 2 * i, 2);
    return dtype == DTYPE_BF16 ? (uint32_t)h << 16 : f16_to_f32_bits(h);
}

static inline double value_of(uint32_t bits) {
    float f;
    memcpy(&f, &bits, 4);
    return (double)f;
}

/* The results of one scan, filled by plab_scan. */
typedef struct {
    int64_t count;
    uint32_t amax_bits; /* the largest finite magnitude; 0 when none */
    double sum_abs, sum_sq; /* over the finite values, in FP64 */
} plab_totals;

typedef struct {
    const uint32_t *thresholds;
    int64_t n_thresholds;
    int64_t *per_bucket;
    int64_t *inside; /* per threshold: values in its bucket below it */
    int64_t tiny; /* values in the first bucket other than zeros */
    /* Per bucket: 0, or 1 + the index of its first threshold (n_thresholds
       for none) when a threshold or a bin edge lies inside it. */
    const uint16_t *splits;
    /* A histogram's bin edges, the same in every binade: per bucket of the
       fraction's top 7 bits, the low 16 bits of an edge inside it (0: none);
       per bucket of the value, its values at or above that edge. */
    uint16_t edge_inside[128];
    int64_t *above_edge;
} scan_state;

/* A value compared with the thresholds inside its bucket, which begin at
   thresholds[first] (they are sorted), and with a bin edge inside it. Few
   values come here; kept out of the loop, which is faster without it. */
static __attribute__((noinline, cold)) void count_inside(scan_state *s, uint32_t bits, int64_t first) {
    uint32_t bucket = bits >> 16;
    s->tiny += bucket == 0;
    for (int64_t k = first; k < s->n_thresholds && (s->thresholds[k] >> 16) == bucket; ++k)
        s->inside[k] += bits < s->thresholds[k];
    uint16_t edge = s->edge_inside[bucket & 0x7F];
    if (edge != 0)
        s->above_edge[bucket] += (bits & 0xFFFF) >= edge;
}

/* Everything one value adds, without a branch but the rare split one.
   Inlined into the loop, the sums and the maximum stay in registers. */
static inline __attribute__((always_inline)) void scan_one(scan_state *s, uint32_t raw, double *sum_abs,
                                                           double *sum_sq, uint32_t *amax) {
    uint32_t bits = raw & 0x7FFFFFFF, bucket = bits >> 16;
    s->per_bucket[bucket]++;
    /* The first bucket is always split (the smallest threshold is 1), and
       gradients hold many zeros: they lie below every threshold, so they
       are never compared, and are counted from the bucket. */
    unsigned split = s->splits[bucket];
    if (__builtin_expect(split != 0, 0) && bits != 0)
        count_inside(s, bits, split - 1);
    uint32_t finite = bits < POS_INF_BITS ? bits : 0; /* Inf and NaN add nothing to the sums */
    double v = value_of(finite);
    *sum_abs += v;
    *sum_sq += v * v;
    *amax = finite > *amax ? finite : *amax;
}

/* The loop, inlined once per dtype, so that the dtype is not decided per
   value. Four values a turn, each into its own partial sums and maximum,
   so that no value waits on the one before; the order is fixed, so a scan
   repeats exactly. */
static inline __attribute__((always_inline)) void scan_values(scan_state *s, const void *data, int64_t n,
                                                              int dtype, plab_totals *totals) {
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0, q0 = 0, q1 = 0, q2 = 0, q3 = 0;
    uint32_t x0 = 0, x1 = 0, x2 = 0, x3 = 0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        scan_one(s, bits_at(data, i, dtype), &a0, &q0, &x0);
        scan_one(s, bits_at(data, i + 1, dtype), &a1, &q1, &x1);
        scan_one(s, bits_at(data, i + 2, dtype), &a2, &q2, &x2);
        scan_one(s, bits_at(data, i + 3, dtype), &a3, &q3, &x3);
    }
    for (; i < n; ++i)
        scan_one(s, bits_at(data, i, dtype), &a0, &q0, &x0);
    totals->sum_abs = (a0 + a1) + (a2 + a3);
    totals->sum_sq = (q0 + q1) + (q2 + q3);
    x0 = x0 > x1 ? x0 : x1;
    x2 = x2 > x3 ? x2 : x3;
    totals->amax_bits = x0 > x2 ? x0 : x2;
}

/* Below a threshold: every bucket under its own, and in a split bucket
   the values compared below it (zeros, never compared, too). */
static void count_below(const scan_state *s, int64_t *below) {
    int64_t running = 0;
    uint32_t next_bucket = 0;
    for (int64_t k = 0; k < s->n_thresholds; ++k) {
        uint32_t t = s->thresholds[k], bucket = t >> 16;
        for (; next_bucket < bucket && next_bucket < BUCKETS; ++next_bucket)
            running += s->per_bucket[next_bucket];
        below[k] = running;
        if (t & 0xFFFF)
            below[k] += s->inside[k] + (bucket == 0 ? s->per_bucket[0] - s->tiny : 0);
    }
}

/* u = 5 E + (edges passed) of every value, from its bucket: a bucket lies
   past the edges at or below its start, and its values at or above an
   edge inside it pass one more. */
static void count_bins(const scan_state *s, const uint32_t fraction_min[4], int64_t *u_counts) {
    for (uint32_t bucket = 0; bucket < BUCKETS; ++bucket) {
        int64_t count = s->per_bucket[bucket];
        if (count == 0)
            continue;
        uint32_t start = (bucket & 0x7F) << 16, u = 5 * (bucket >> 7);
        for (int k = 0; k < 4; ++k)
            u += fraction_min[k] <= start;
        int64_t above = s->edge_inside[bucket & 0x7F] ? s->above_edge[bucket] : 0;
        u_counts[u] += count - above;
        u_counts[u + 1] += above;
    }
}

/* Scans n values of the given dtype at data.
   thresholds: n_thresholds sorted magnitude bit patterns; below[k] gets the
   number of values whose magnitude bits are < thresholds[k].
   significand_min: NULL, or the 4 significand minima of a histogram's bin
   edges (thresholds.histogram_edges); then u_counts[u] (U_SLOTS of them)
   gets the number of values with u = 5 E + #{k : M >= significand_min[k]},
   E the exponent field and M the significand with its hidden bit.
   Returns 0, -1 when memory runs out, -2 for too many thresholds. */
int plab_scan(const void *data, int64_t n, int dtype, const uint32_t *thresholds, int64_t n_thresholds,
              const uint32_t *significand_min, int64_t *below, int64_t *u_counts, plab_totals *totals) {
    if (n_thresholds > 0xFFFE)
        return -2;
    scan_state s = {.thresholds = thresholds, .n_thresholds = n_thresholds};
    int with_bins = significand_min != NULL;
    uint32_t fraction_min[4] = {0, 0, 0, 0};
    for (int k = 0; with_bins && k < 4; ++k) {
        /* A minimum of 2^24 is passed by no significand: past every fraction. */
        fraction_min[k] = significand_min[k] - (1u << 23);
        if (fraction_min[k] < (1u << 23) && (fraction_min[k] & 0xFFFF))
            s.edge_inside[fraction_min[k] >> 16] = (uint16_t)(fraction_min[k] & 0xFFFF);
    }
    s.per_bucket = calloc((with_bins ? 2 : 1) * (size_t)BUCKETS, sizeof *s.per_bucket);
    s.above_edge = with_bins ? s.per_bucket + BUCKETS : NULL; /* read only where an edge is */
    uint16_t *splits = calloc(BUCKETS, sizeof *splits);
    s.inside = calloc((size_t)n_thresholds + 1, sizeof *s.inside);
    s.splits = splits;
    if (!s.per_bucket || !splits || !s.inside) {
        free(s.per_bucket), free(splits), free(s.inside);
        return -1;
    }
    for (uint32_t bucket = 0; with_bins && bucket < BUCKETS; ++bucket)
        if (s.edge_inside[bucket & 0x7F])
            splits[bucket] = (uint16_t)(n_thresholds + 1);
    for (int64_t k = n_thresholds - 1; k >= 0; --k)
        if (thresholds[k] & 0xFFFF)
            splits[thresholds[k] >> 16] = (uint16_t)(k + 1);
    switch (dtype) {
    case DTYPE_F32: scan_values(&s, data, n, DTYPE_F32, totals); break;
    case DTYPE_BF16: scan_values(&s, data, n, DTYPE_BF16, totals); break;
    default: scan_values(&s, data, n, DTYPE_F16, totals); break;
    }
    totals->count = n;
    count_below(&s, below);
    if (with_bins)
        count_bins(&s, fraction_min, u_counts);
    free(s.per_bucket), free(splits), free(s.inside);
    return 0;
}
