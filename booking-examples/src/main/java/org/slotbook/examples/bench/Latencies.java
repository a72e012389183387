package org.slotbook.examples.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A fixed-size latency histogram: buckets 2% wide in microseconds, so memory stays constant however
 * long a run lasts, and any thread may record into it. Percentiles answer the bucket's upper bound
 * (never above the maximum); the maximum is exact.
 */
public final class Latencies {
    private static final double LOG_BASE = Math.log(1.02);
    private static final int BUCKETS = 1_400; // 1.02^1400 us is far beyond any timeout
    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private final AtomicLong max = new AtomicLong();

    public void record(long nanos) {
        double micros = Math.max(1.0, nanos / 1_000.0);
        int bucket = Math.min(BUCKETS - 1, (int) (Math.log(micros) / LOG_BASE));
        counts.incrementAndGet(bucket);
        max.accumulateAndGet(nanos, Math::max);
    }

    /** Adds every latency {@code other} recorded. */
    void addAll(Latencies other) {
        for (int i = 0; i < BUCKETS; i++) {
            long n = other.counts.get(i);
            if (n != 0) {
                counts.addAndGet(i, n);
            }
        }
        max.accumulateAndGet(other.max.get(), Math::max);
    }

    /** The {@code p}-th percentile (0-100) in milliseconds; 0 when nothing was recorded. */
    public double percentileMillis(double p) {
        long total = 0;
        for (int i = 0; i < BUCKETS; i++) {
            total += counts.get(i);
        }
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(p / 100.0 * total);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts.get(i);
            if (seen >= rank) {
                return Math.min(Math.pow(1.02, i + 1) / 1_000.0, maxMillis());
            }
        }
        return maxMillis();
    }

    public double maxMillis() {
        return max.get() / 1e6;
    }
}
