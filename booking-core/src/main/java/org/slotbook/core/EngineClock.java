package org.slotbook.core;

import java.time.Clock;
import java.time.Instant;
import org.slotbook.core.internal.Checks;

/**
 * The engine's time. Deadlines in the store are judged by the store's own clock (the database's)
 * unless the engine was given an explicit {@link Clock}, which then decides everywhere (tests, and
 * the in-memory backend).
 */
final class EngineClock {
    private final Clock clock;
    private final boolean explicit;

    EngineClock(Clock clock, boolean explicit) {
        this.clock = clock;
        this.explicit = explicit;
    }

    Clock clock() {
        return clock;
    }

    /** The engine's own instant, for what the engine itself judges. */
    Instant now() {
        return Checks.micros("clock.instant()", clock.instant());
    }

    /** Whether an explicit clock decides every deadline (then the gate's clock decides nothing). */
    boolean explicit() {
        return explicit;
    }

    /** What the store is told: the explicit clock's instant, or null for the store's own clock. */
    Instant storeNow() {
        return explicit ? now() : null;
    }
}
