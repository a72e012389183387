package org.slotbook.examples.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one {@link LoadDriver} run counted: requests answered ("decisions"), those that answered true
 * ("holds": took a seat, or whatever the run counts as a hit), requests that threw, their latencies,
 * and the wall-clock time of the measured part.
 */
public final class Measured {
    private final Latencies latencies = new Latencies();
    private final LongAdder decisions = new LongAdder();
    private final LongAdder holds = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();
    private volatile long nanos;

    Measured() {
    }

    void answered(long latencyNanos, boolean hit) {
        latencies.record(latencyNanos);
        decisions.increment();
        if (hit) {
            holds.increment();
        }
    }

    void failed(Throwable error) {
        errors.increment();
        firstError.compareAndSet(null, error);
    }

    void took(long elapsedNanos) {
        this.nanos = elapsedNanos;
    }

    /** A run made of turns: what {@code turns} counted, their measured times added up. */
    static Measured sum(List<Measured> turns) {
        Measured all = new Measured();
        long total = 0;
        for (Measured turn : turns) {
            all.latencies.addAll(turn.latencies);
            all.decisions.add(turn.decisions());
            all.holds.add(turn.holds());
            all.errors.add(turn.errors());
            if (turn.firstError() != null) {
                all.firstError.compareAndSet(null, turn.firstError());
            }
            total += turn.nanos;
        }
        all.nanos = total;
        return all;
    }

    /** Requests that answered (did not throw). */
    public long decisions() {
        return decisions.sum();
    }

    /** Requests that answered true. */
    public long holds() {
        return holds.sum();
    }

    /** Requests that threw. */
    public long errors() {
        return errors.sum();
    }

    /** What the first request that threw threw, or null. */
    public Throwable firstError() {
        return firstError.get();
    }

    public Latencies latencies() {
        return latencies;
    }

    /** The measured time: from the release of the threads (after the warm-up, if any) until the last one is done. */
    public Duration duration() {
        return Duration.ofNanos(nanos);
    }

    public double seconds() {
        return nanos / 1e9;
    }

    /** This, when no request threw; else an exception naming {@code what}, the first failure as its cause. */
    public Measured requireNoErrors(String what) {
        Throwable first = firstError.get();
        if (first != null) {
            throw new IllegalStateException(what + ": " + errors() + " request(s) failed, the first with " + first,
                    first);
        }
        return this;
    }

    /** One line of the load benchmark's table, from these counts. */
    Result result(String workload, String line, String backend, int threads, Long oversold, Long doubleBooked,
                  String note) {
        String text = note;
        if (firstError.get() != null) {
            text = (text.isEmpty() ? "" : text + "; ") + "first error: " + firstError.get();
        }
        return new Result(workload, line, backend, threads, decisions(), holds(), errors(), seconds(),
                latencies.percentileMillis(50), latencies.percentileMillis(99), latencies.maxMillis(), oversold,
                doubleBooked, text);
    }
}
