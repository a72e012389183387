package org.slotbook.core.tck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock a test moves by hand, for the engine ({@code BookingEngine.builder().clock(...)}) and the
 * in-memory backends. It ships in booking-core's test-jar, so a host's own tests can use it too.
 * The no-argument constructor starts it at the current time (so state that a gate expires by its own
 * clock lives as long as it should), truncated to milliseconds. Safe to move from any thread; a copy
 * in another zone ({@link #withZone}) shows the same instant and moves with it.
 */
public final class MutableClock extends Clock {
    private final AtomicReference<Instant> now;
    private final ZoneId zone;

    public MutableClock() {
        this(Instant.now().truncatedTo(ChronoUnit.MILLIS), ZoneOffset.UTC);
    }

    public MutableClock(Instant start, ZoneId zone) {
        this(new AtomicReference<>(requireNonNull("start", start)), requireNonNull("zone", zone));
    }

    private MutableClock(AtomicReference<Instant> now, ZoneId zone) {
        this.now = now;
        this.zone = zone;
    }

    /** Moves the clock forward by {@code duration} (backwards when it is negative). */
    public void advance(Duration duration) {
        requireNonNull("duration", duration);
        now.updateAndGet(i -> i.plus(duration));
    }

    public void set(Instant instant) {
        now.set(requireNonNull("instant", instant));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId newZone) {
        return new MutableClock(now, requireNonNull("zone", newZone));
    }

    private static <T> T requireNonNull(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }
}
